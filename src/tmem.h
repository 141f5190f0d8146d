/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmem core: the page store that precache and preswap sit on.
 *
 * Pages are kept by handle (pool id, u64 object, u32 index) and reached only
 * by copying them in (put) and out (get).  The semantics are the seed's
 * (Xen tmem / cleancache / frontswap), made precise:
 *
 * - A put copies; the caller keeps its page.  Any put may be refused.
 * - Persistent pool: a stored page is returned by every later get of the
 *   same handle until it is flushed; get does not remove it.
 * - Ephemeral (private) pool: a stored page may vanish at any time; get
 *   removes it (exclusive cache).
 * - put(D1), put(D2), get never returns D1; if the second put is refused,
 *   D1 is gone too.
 * - If a get misses, a later get of the same handle with no put in between
 *   misses too.
 * - After flush_page / flush_object, gets of what they named miss;
 *   destroy_pool frees everything in the pool.
 * - Shared pools are not supported (the seed dropped them for security).
 *
 * This header is the core's internal API, used by the rest of tmem.ko and
 * (through the TMEM symbol namespace) by tmem_kunit.ko and tmem_bench.ko.
 * The kernel's <linux/tmem.h> is another header (the hook table); this one
 * is included with quotes, from src/.
 *
 * Calling context (this is what the kernel's hooks need):
 * - tmem_put_page(), tmem_get_page(), tmem_flush_page(), tmem_flush_object(),
 *   tmem_flush_range(), tmem_destroy_pool() never sleep and may be called in any context except
 *   NMI, including with spinlocks held and interrupts disabled (a precache
 *   put runs under the i_pages lock with interrupts off).  They allocate
 *   only with GFP_NOWAIT.
 * - tmem_new_pool(), tmem_store_*create/destroy, tmem_core_init() and
 *   tmem_core_exit() may sleep: process context only.
 * - Stats accessors never sleep.
 */
#ifndef TMEM_CORE_H
#define TMEM_CORE_H

#include <linux/types.h>
#include <linux/uuid.h>

struct page;
struct dentry;
struct tmem_backend;

/* Pool flags, bit for bit the seed's Xen interface. */
#define TMEM_POOL_PERSIST		1
#define TMEM_POOL_SHARED		2
#define TMEM_POOL_PAGESIZE_SHIFT	4	/* 4 bits: PAGE_SHIFT - 12 */
#define TMEM_POOL_PAGESIZE_MASK		0xf
#define TMEM_POOL_VERSION_SHIFT		24	/* 8 bits */
#define TMEM_POOL_VERSION_MASK		0xff
#define TMEM_SPEC_VERSION		1

/* The flags a caller normally passes, persistent or not. */
#define TMEM_POOL_FLAGS(persist)					\
	(((persist) ? TMEM_POOL_PERSIST : 0) |				\
	 ((PAGE_SHIFT - 12) << TMEM_POOL_PAGESIZE_SHIFT) |		\
	 (TMEM_SPEC_VERSION << TMEM_POOL_VERSION_SHIFT))

/* Pool ids are 0 .. TMEM_MAX_POOLS - 1. */
#define TMEM_MAX_POOLS			1024
/* Longest pool name kept (longer names are truncated). */
#define TMEM_POOL_NAME_LEN		32

/**
 * tmem_new_pool() - create a pool in the default store
 * @uuid:  NULL (or the nil uuid) for a private pool; a uuid names a shared
 *         pool, and shared pools are refused.
 * @flags: TMEM_POOL_* bits; see TMEM_POOL_FLAGS().
 * @name:  shown in debugfs "pools" (e.g. "ext4 vdb", "preswap"); may be NULL.
 *
 * Process context; may sleep.
 *
 * Return: pool id (>= 0), or
 *  -EOPNOTSUPP  TMEM_POOL_SHARED set (logged once),
 *  -EINVAL      page-size field is not this kernel's, version is not
 *               TMEM_SPEC_VERSION, unknown flag bits are set, or a non-nil
 *               uuid was given for a private pool,
 *  -ENOSPC      TMEM_MAX_POOLS pools exist,
 *  -ENOMEM      out of memory,
 *  -ENODEV      tmem_core_init() has not run.
 */
int tmem_new_pool(const uuid_t *uuid, u32 flags, const char *name);

/**
 * tmem_destroy_pool() - free every page of a pool and the pool id
 * @pool_id: id from tmem_new_pool()
 *
 * Never sleeps; pages are detached under the locks and freed outside them,
 * the first 1024 at once and the rest by a background worker (tmem_drain()).
 * Operations racing with it on other CPUs either complete before it or
 * fail; puts racing with it never leave a page behind.
 *
 * Return: 0, or -EINVAL if @pool_id is not a live pool.
 */
int tmem_destroy_pool(int pool_id);

/**
 * tmem_put_page() - store a copy of @page under (pool, object, index)
 *
 * Never sleeps.  Replaces any page stored under the handle.  When the store
 * is at its capacity limit, the least recently put ephemeral pages (of any
 * pool of the store) are evicted first; persistent pages are never evicted.
 * On refusal any older page stored under the handle is flushed.
 *
 * Return: 0 stored, or
 *  -EINVAL  @pool_id is not a live pool,
 *  -ENOSPC  at capacity and nothing evictable,
 *  -ENOMEM  an atomic allocation failed,
 *  another -errno from the backend.
 */
int tmem_put_page(int pool_id, u64 object, u32 index, struct page *page);
/* the same; on success *@size is the bytes the page now takes in the store */
int tmem_put_page_sized(int pool_id, u64 object, u32 index, struct page *page,
			unsigned int *size);

/**
 * tmem_get_page() - copy the page stored under a handle into @page
 *
 * Never sleeps.  In an ephemeral pool a hit also removes the page.
 *
 * Return: 0 @page filled, -ENOENT miss, -EINVAL bad pool id, or -EIO if the
 * backend could not produce the data (the page is then dropped).
 */
int tmem_get_page(int pool_id, u64 object, u32 index, struct page *page);

/**
 * tmem_flush_page() - forget the page stored under a handle
 *
 * Never sleeps.  Return: 0 a page was freed, -ENOENT none was stored,
 * -EINVAL bad pool id.
 */
int tmem_flush_page(int pool_id, u64 object, u32 index);

/**
 * tmem_flush_object() - forget every page of an object
 *
 * Never sleeps; the object is detached under its lock and its pages freed
 * outside it, so thousands of pages do not mean a long irqs-off section; an
 * object of more than 1024 pages is freed by a background worker
 * (tmem_drain()), its pages unreachable at once all the same.
 * Return: 0 the object existed, -ENOENT it did not, -EINVAL bad pool id.
 */
int tmem_flush_object(int pool_id, u64 object);

/**
 * tmem_flush_range() - forget the pages of an object with an index in
 * @first..@last (inclusive)
 *
 * Never sleeps; the bucket lock is taken once per TMEM_RANGE_CHUNK pages
 * found, and the pages are freed outside it, so a long range does not mean
 * a long irqs-off section.  The cost grows with the pages stored in the
 * range, not with its length.
 * Return: 0 some page was freed, -ENOENT none was stored in the range,
 * -EINVAL bad pool id or @first > @last.
 */
int tmem_flush_range(int pool_id, u64 object, u32 first, u32 last);

/**
 * tmem_drain() - wait until the pages that tmem_flush_object() and
 * tmem_destroy_pool() handed to the background worker (beyond 1024 pages
 * per call) are freed.  They are unreachable from the moment those calls
 * return; this only waits for the memory and the page/byte counters.
 * Process context; sleeps.
 */
void tmem_drain(void);

/**
 * tmem_core_init() - set up the core
 * @debugfs_root: directory for the "stats" and "pools" files (may be NULL
 *                or an error pointer: no files then)
 *
 * Creates the default store (limit from the module parameters
 * max_pool_percent / max_pages) and registers its shrinker.  Process context.
 * Return: 0 or -errno.
 */
int tmem_core_init(struct dentry *debugfs_root);

/**
 * tmem_core_exit() - destroy every pool left, remove the debugfs files
 * created by tmem_core_init() (call it before removing @debugfs_root), and
 * free the core.  The hooks must be unregistered before this is called.
 */
void tmem_core_exit(void);

/*
 * Statistics.  Counters are per CPU and summed when read, so a snapshot
 * taken while operations run is not atomic across fields (pages may even
 * read slightly negative for an instant); quiescent, it is exact.
 */
struct tmem_stats {
	u64 puts;		/* puts stored */
	u64 puts_refused;	/* puts refused (capacity, memory, backend) */
	u64 gets_hit;
	u64 gets_miss;
	u64 flush_pages;	/* tmem_flush_page() calls */
	u64 flush_objects;	/* tmem_flush_object() calls */
	u64 flush_ranges;	/* tmem_flush_range() calls */
	u64 flushed;		/* pages freed by the three flushes */
	u64 evicted;		/* ephemeral pages evicted to make room */
	u64 shrunk;		/* ephemeral pages given back to the shrinker */
	u64 refused_full;	/* of puts_refused: at capacity */
	u64 refused_nomem;	/* of puts_refused: an allocation failed */
	u64 refused_incompressible; /* of puts_refused: would save nothing */
	s64 pages;		/* pages stored now */
	s64 bytes;		/* bytes charged for them now */
	s64 same_filled;	/* of pages: same-filled, kept as a word */
};

/* Stats of one pool.  Return: 0, or -EINVAL if not a live pool. */
int tmem_pool_stats(int pool_id, struct tmem_stats *st);
/* Stats of the default store (all pools the hooks created). */
void tmem_global_stats(struct tmem_stats *st);

/**
 * tmem_persistent_fill() - how full the default store is with pages it
 * cannot evict: the bytes charged for its persistent pages (its total less
 * its ephemeral pages), in percent of its limit (100 if the limit is 0)
 * @exact: sum the capacity counter over every CPU (process context, for a
 *         worker); false reads it with its per-CPU slack (about 64 pages
 *         per CPU), cheap enough for a put path.  Never sleeps.
 */
unsigned int tmem_persistent_fill(bool exact);

/*
 * Stores.  A store is a capacity domain: a page limit, the LRU of its
 * ephemeral pages, and its own totals.  tmem_new_pool() uses the default
 * store, whose limit follows the module parameters and which has the
 * shrinker.  Tests and the benchmark create private stores so that real
 * precache/preswap traffic neither disturbs them nor is disturbed by them.
 */
struct tmem_store;

/**
 * tmem_store_create() - make a private store (no shrinker registered)
 * @name:      for debugfs
 * @max_pages: capacity limit in pages (0 = follow the module parameters)
 * @backend:   NULL for the RAM backend (&tmem_backend_compress to compress)
 *
 * Process context.  Return: the store or ERR_PTR(-errno).
 */
struct tmem_store *tmem_store_create(const char *name, unsigned long max_pages,
				     const struct tmem_backend *backend);
/**
 * tmem_store_lru_shards() - how many lists the ephemeral LRU uses
 * @s:      the store
 * @shards: 0 to leave it, else the new count (rounded down to a power of
 *          two, at most 16)
 *
 * New ephemeral pages go to one of @shards lists by their handle; pages
 * already stored stay where they are.  One shard: exact least-recently-put
 * eviction, one lock for every ephemeral operation; more: approximate
 * order, CPUs rarely meet (see "LRU shards" in core.c).  A store starts
 * with four per possible CPU, at most 16.  Any context.  Return: the count
 * in effect.
 */
unsigned int tmem_store_lru_shards(struct tmem_store *s, unsigned int shards);
/* Destroys the store's pools, waits for operations in flight, frees it. */
void tmem_store_destroy(struct tmem_store *store);
/* As tmem_new_pool(), in @store. */
int tmem_store_new_pool(struct tmem_store *store, const uuid_t *uuid,
			u32 flags, const char *name);
/* Change the limit (0 = follow the module parameters). */
void tmem_store_set_max_pages(struct tmem_store *store,
			      unsigned long max_pages);
/* The limit in effect now, in pages. */
unsigned long tmem_store_max_pages(struct tmem_store *store);
void tmem_store_stats(struct tmem_store *store, struct tmem_stats *st);
/* As tmem_persistent_fill(), for @store. */
unsigned int tmem_store_persistent_fill(struct tmem_store *store, bool exact);

/*
 * What the shrinker callbacks do, callable directly (tests): count returns
 * the memory the ephemeral pages take, in pages; scan evicts up to
 * @nr_to_scan stored pages (not pages of memory), oldest first, and returns
 * how many it evicted.  Never sleep.
 */
unsigned long tmem_store_shrink_count(struct tmem_store *store);
unsigned long tmem_store_shrink_scan(struct tmem_store *store,
				     unsigned long nr_to_scan);

#endif /* TMEM_CORE_H */
