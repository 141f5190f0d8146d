/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook layer between the kernel's call sites (main.c registers them)
 * and the two users of the store: precache.c (clean page-cache pages) and
 * preswap.c (pages on their way to swap). Every function here is called
 * from a kernel hook, in the context include/linux/tmem.h gives for that
 * op: precache_put under the i_pages lock with interrupts off,
 * preswap_flush_page under the swap area's spinlock (neither may sleep);
 * preswap_init and preswap_flush_area under swapon_mutex (may sleep).
 */
#ifndef _TMEM_HOOKS_H
#define _TMEM_HOOKS_H

#include <linux/fs.h>
#include <linux/mm_types.h>

#ifndef TMEM_VERSION
#define TMEM_VERSION "0"
#endif

enum tmem_hook {
	TMEM_HOOK_PRECACHE_GET,
	TMEM_HOOK_PRECACHE_PUT,
	TMEM_HOOK_PRECACHE_FLUSH_PAGE,
	TMEM_HOOK_PRECACHE_FLUSH_RANGE,
	TMEM_HOOK_PRECACHE_FLUSH_FS,
	TMEM_HOOK_PRESWAP_INIT,
	TMEM_HOOK_PRESWAP_PUT,
	TMEM_HOOK_PRESWAP_GET,
	TMEM_HOOK_PRESWAP_FLUSH_PAGE,
	TMEM_HOOK_PRESWAP_FLUSH_AREA,
	TMEM_NR_HOOKS
};

struct dentry;

/* precache.c */
int precache_init(struct dentry *debugfs_root);
void precache_exit(void);
int precache_get(struct page *page);
int precache_put(struct address_space *mapping, struct folio *folio);
int precache_flush_page(struct address_space *mapping, struct folio *folio);
int precache_flush_range(struct address_space *mapping, pgoff_t start,
			 pgoff_t end);
int precache_flush_fs(struct super_block *sb);

/* preswap.c */
int preswap_init(struct dentry *debugfs_root);
void preswap_exit(void);
int preswap_init_area(unsigned int type, unsigned long pages);
int preswap_put(struct page *page);
int preswap_get(struct page *page);
int preswap_flush_page(unsigned int type, pgoff_t offset);
int preswap_flush_area(unsigned int type);

#endif /* _TMEM_HOOKS_H */
