// SPDX-License-Identifier: GPL-2.0
/*
 * preswap: a persistent store for pages on their way to a swap device.
 *
 * Walking-skeleton stage: every put is declined (the page goes to disk as
 * without tmem) and every get misses. The store is wired in by a later step.
 */
#include "hooks.h"

int preswap_init(struct dentry *debugfs_root)
{
	return 0;
}

void preswap_exit(void)
{
}

int preswap_init_area(unsigned int type, unsigned long pages)
{
	return 0;
}

int preswap_put(struct page *page)
{
	return -ENOSPC;
}

int preswap_get(struct page *page)
{
	return -ENOENT;
}

int preswap_flush_page(unsigned int type, pgoff_t offset)
{
	return 0;
}

int preswap_flush_area(unsigned int type)
{
	return 0;
}
