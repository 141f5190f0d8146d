// SPDX-License-Identifier: GPL-2.0
/*
 * precache: an ephemeral victim cache for clean page-cache pages.
 *
 * Walking-skeleton stage: every put is declined and every get misses, which
 * is a correct (zero-capacity) tmem. The store is wired in by a later step.
 */
#include "hooks.h"

int precache_init(struct dentry *debugfs_root)
{
	return 0;
}

void precache_exit(void)
{
}

int precache_get(struct page *page)
{
	return -ENOENT;
}

int precache_put(struct address_space *mapping, struct folio *folio)
{
	return -ENOSPC;
}

int precache_flush_page(struct address_space *mapping, struct folio *folio)
{
	return 0;
}

int precache_flush_inode(struct address_space *mapping)
{
	return 0;
}

int precache_flush_fs(struct super_block *sb)
{
	return 0;
}
