/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmem backends: how the bytes of a stored page are kept.
 *
 * The core decides what is stored under which handle, when, and for how
 * long; a backend only turns a page into an opaque handle and back.  Keeping
 * that behind this small ops table lets a compressed backend (e.g. lzo/lz4
 * into zsmalloc) or a remote one be added without touching the core.
 *
 * Context: store() and load() are called with the core's locks held and
 * interrupts possibly disabled (load() of a persistent page runs under a
 * bucket spinlock), free() from any context except NMI.  None may sleep.
 * An ephemeral store() (precache) may run under the page cache's i_pages
 * lock, which is also taken in hard interrupt context: it must not take a
 * lock that is ever held with interrupts enabled.
 */
#ifndef TMEM_BACKEND_H
#define TMEM_BACKEND_H

#include <linux/types.h>
#include <linux/gfp.h>

struct page;

struct tmem_backend {
	const char *name;
	/*
	 * Copy @page into backend memory allocated with @gfp (never a
	 * sleeping mask).  On success return 0, set *@handle and *@charged,
	 * the bytes accounted against the store's capacity for it (for RAM:
	 * PAGE_SIZE).  The core never interprets a handle, but stores it
	 * as is in an xarray: it must be non-zero with its two low bits
	 * clear (an aligned pointer will do).
	 * Return -errno to refuse (-ENOMEM: no memory; -E2BIG: the page
	 * would not save memory, e.g. incompressible); the core then stores
	 * nothing.  @ephemeral: the page goes to an ephemeral pool (see the
	 * context rule above).
	 */
	int (*store)(struct page *page, gfp_t gfp, bool ephemeral,
		     unsigned long *handle, unsigned int *charged);
	/* Copy the data of @handle into @page.  0 or -errno (-EIO). */
	int (*load)(unsigned long handle, struct page *page);
	/* Free @handle. */
	void (*free)(unsigned long handle);
	/* What store() set *@charged to for @handle. */
	unsigned int (*size)(unsigned long handle);
	/* Bytes of memory the backend uses now, overhead included. */
	u64 (*bytes_used)(void);
	/*
	 * The compressor new stores to an @ephemeral pool (or to a
	 * persistent one) use, or NULL (optional).
	 */
	const char *(*compressor)(bool ephemeral);
};

/* A copied page per stored page; the default backend. */
extern const struct tmem_backend tmem_backend_ram;
/*
 * Compressed pages: zsmalloc for persistent pools, slab size classes for
 * ephemeral ones (backend_compress.c); the default.  Set up by the core.
 */
extern const struct tmem_backend tmem_backend_compress;
int tmem_backend_compress_init(void);
void tmem_backend_compress_exit(void);
/*
 * Make @name the compressor of new puts to @ephemeral pools or to persistent
 * ones (as the module parameters precache_compressor and compressor), or of
 * both.  -EINVAL for a name the kernel lacks (nothing changes).
 */
int tmem_compress_select_for(bool ephemeral, const char *name);
int tmem_compress_select(const char *name);

#endif /* TMEM_BACKEND_H */
