// SPDX-License-Identifier: GPL-2.0
/*
 * tmem core: pools of objects of pages, with the seed's exact semantics (see
 * tmem.h), a capacity limit, LRU eviction of ephemeral pages, a shrinker,
 * and per-pool and per-store statistics in debugfs.
 *
 * It is the single page store under precache (ephemeral pools, one per
 * filesystem) and preswap (one persistent pool).  The bytes of a page are
 * kept by a backend (backend.h); the core only decides what is stored under
 * which handle and for how long.
 *
 * Tunables, module parameters of tmem.ko (writable at runtime but backend):
 *   max_pool_percent  capacity of the default store in percent of RAM
 *                     (0..100, default 20)
 *   max_pages         capacity in pages of memory; when non-zero it
 *                     overrides max_pool_percent (default 0; capped at RAM
 *                     size)
 *   backend           how the default store keeps page data, read at load:
 *                     "compress" (default; backend_compress.c) or "ram"
 *                     (a plain copy per page)
 * The capacity is memory, not pages stored: each page is charged what the
 * backend says it costs (a compressed page its compressed size rounded to
 * the allocator's granularity; a RAM copy a page), and a same-filled page
 * (one machine word repeated, zero included) is kept as that word alone in
 * the core's own slot and charged TMEM_SAME_CHARGE bytes, the metadata it
 * costs.
 * The shrinker ages precache as the kernel ages the page cache it extends:
 * it counts the ephemeral memory held in pages, says such a page costs what
 * an LRU page does to recreate (seeks = TMEM_SHRINK_SEEKS, 4, for which
 * shrink_slab() scans count >> priority per pass, as shrink_lruvec() scans
 * an LRU list of that many pages), and each unit scanned drops one stored
 * page, the oldest, as each page scanned off a file LRU drops one page of
 * cache.  So a pass costs the same future disk reads per page of memory in
 * precache as per page of page cache.  (It counted and freed pages of
 * memory with DEFAULT_SEEKS before: with lz4's ~3 pages per page of memory
 * that dropped about 5x more stored pages per pass, and a victim cache
 * refilled only by the page cache's own evictions stayed at a third of its
 * limit.)
 * When the store is full, a put (ephemeral or persistent) first evicts the
 * least recently put ephemeral pages of the store, as Xen tmem did; when
 * none can be evicted the put is refused.  Persistent pages are never
 * dropped by the store.  Lowering the limit evicts nothing by itself: puts
 * are refused (or evict) until the store is below it again.  The limit is
 * checked before a page is added, against a per-CPU counter that is summed
 * exactly when close to the limit, so concurrent puts may overshoot it by
 * about one page per CPU.
 *
 * Data structures and locking (all locks are spinlocks taken with interrupts
 * disabled, because a precache put runs under the interrupt-safe i_pages
 * lock; nothing here sleeps):
 *
 *   tmem_pools       xarray: pool id -> pool.  Its xa_lock (irq) guards
 *                    changes; lookups are lockless under RCU.
 *   pool->buckets[]  256 buckets by hash of the object id.
 *     bucket->lock   guards the bucket's rbtree of objects, every object's
 *                    page xarray (changes only under it; the xarray's own
 *                    xa_lock nests inside), obj->detached and pool->dead.
 *                    All operations on one handle take the same bucket lock,
 *                    so they are serialised; operations on objects in other
 *                    buckets run in parallel.
 *   store->lru[]     the ephemeral LRU, in shards (see below).
 *     shard->lock    guards the shard's list (its entries, least recently
 *                    put first), shard->nr and shard->bytes.  "lru_lock"
 *                    below means the lock of the entry's shard.
 *
 *   Lock order:  bucket->lock -> shard->lock
 *                bucket->lock -> obj->pages xa_lock
 *                shard->lock -> obj->pages xa_lock
 *                shard->lock -> bucket->lock ONLY by spin_trylock
 *                (eviction walks the LRU and must reach the entry's bucket;
 *                a busy bucket is passed over)
 *                The tmem_pools xa_lock and tmem_deferred_lock are never
 *                held with another lock.
 *
 * Lifetimes:
 * - A pool is unpublished from tmem_pools, torn down, and freed an RCU
 *   grace period after its last reference is dropped.  Every operation runs inside rcu_read_lock(), so the pool
 *   it looked up stays allocated; a put that finds pool->dead under its
 *   bucket lock stores nothing.
 * - An object lives while it has pages: whoever removes its last page under
 *   the bucket lock frees it.  flush_object and destroy instead detach
 *   objects under the bucket lock (obj->detached, or pool->dead) and free
 *   their pages outside it, taking lru_lock briefly per batch of entries;
 *   past TMEM_INLINE_FREE pages per call they queue the detached objects
 *   for tmem_free_work, which frees them in process context and holds a
 *   pool reference (pool->refs) meanwhile.  Detached pages are unreachable
 *   at once; only the memory comes back a little later (tmem_drain()).
 *   While they wait, dead ephemeral entries stay on the LRU and the evictor
 *   passes over them.
 * - A persistent page is nothing but its backend handle in the xarray (no
 *   allocation of ours per page); an ephemeral page has a tmem_entry.
 * - An ephemeral entry is freed only after it left the LRU under lru_lock,
 *   so the evictor, holding lru_lock, may follow entry->obj->pool for any
 *   entry on the LRU; it leaves detached objects and dead pools alone.
 * - Pages' data is copied in before the bucket lock is taken and, for an
 *   ephemeral get, out after it is dropped.  A persistent get copies under
 *   the lock (the entry must stay while it is read).
 *
 * LRU shards.  One list and one lock for the whole store would be a lock
 * and two cache lines every ephemeral put, get and flush of every CPU
 * shares.  Instead the store keeps 2^k lists (store->lru_shards: four per
 * possible CPU, at most TMEM_LRU_SHARDS), and a page's shard is fixed by
 * its handle: (hash of the object id + index) mod the shard count, so a
 * file's consecutive pages go round the shards and each shard holds an
 * even sample of the store's pages in put order.  Two CPUs then meet on a
 * lock only when their pages share a shard.  Eviction takes the oldest
 * pages of one shard at a time (at most TMEM_EVICT_CHUNK), moving to the
 * next shard on each call, from a per-CPU cursor: the order is least
 * recently put within a shard and approximately so across them (a page is
 * evicted before the pages put about shards x chunk puts after it).  A
 * store with one shard (tmem_store_set_lru_shards()) keeps the exact order.
 *
 * Statistics are per-CPU counters, summed when read: no shared cache line
 * on the hot paths, and a snapshot under load is not atomic across fields.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "backend.h"
#include "compat.h"
#include "tmem.h"

#define TMEM_OBJ_HASH_BITS	8
#define TMEM_OBJ_BUCKETS	(1 << TMEM_OBJ_HASH_BITS)

/* Every allocation on the operation paths: never sleep, never warn, never
 * dip into the reserves (a put from reclaim must not use them to store a
 * copy of the very page reclaim is trying to free).
 */
#define TMEM_GFP		(GFP_NOWAIT | __GFP_NOWARN | __GFP_NOMEMALLOC)

/* Per-CPU slack of the capacity counter, in bytes. */
#define TMEM_USED_BATCH		(64 * PAGE_SIZE)
/* store_full() compares approximately when the slack is this share or less */
#define TMEM_FULL_SLACK_SHARE	64
/* Entries evicted per hold of lru_lock; entries passed over per hold. */
#define TMEM_EVICT_CHUNK	32
#define TMEM_SHRINK_SEEKS	4	/* see the shrinker, above */
/* The most LRU shards a store has (a power of two; entry->shard's range). */
#define TMEM_LRU_SHARDS_BITS	4
#define TMEM_LRU_SHARDS		(1U << TMEM_LRU_SHARDS_BITS)
/* LRU shards per possible CPU (rounded up to a power of two). */
#define TMEM_LRU_SHARDS_PER_CPU	4
#define TMEM_EVICT_SKIP		64
/* Single-page evictions a put tries before it gives up. */
#define TMEM_EVICT_TRIES	8
/* Bytes charged for a same-filled page: the core's slot or entry. */
#define TMEM_SAME_CHARGE	64
/* In a persistent pool's xarray, a same-filled page is the value entry
 * xa_mk_value(word >> 1) with this mark set iff bit 0 of the word is.
 */
#define TMEM_MARK_WORD_BIT0	XA_MARK_0
/* Entries of a detached object taken off the LRU per irqs-off section. */
#define TMEM_FREE_CHUNK		64
/*
 * Pages flush_object / destroy_pool free in the caller's context; beyond
 * that they hand the detached objects to a work item, which can reschedule
 * (the caller may not sleep, and a pool may hold a million pages).
 */
#define TMEM_INLINE_FREE	1024

enum tmem_stat_item {
	TMEM_STAT_PUTS,
	TMEM_STAT_PUTS_REFUSED,
	TMEM_STAT_GETS_HIT,
	TMEM_STAT_GETS_MISS,
	TMEM_STAT_FLUSH_PAGES,
	TMEM_STAT_FLUSH_OBJECTS,
	TMEM_STAT_FLUSH_RANGES,
	TMEM_STAT_FLUSHED,
	TMEM_STAT_EVICTED,
	TMEM_STAT_SHRUNK,
	TMEM_STAT_REFUSED_FULL,
	TMEM_STAT_REFUSED_NOMEM,
	TMEM_STAT_REFUSED_INCOMPRESSIBLE,
	TMEM_STAT_PAGES,	/* gauge: per-CPU deltas, may wrap per CPU */
	TMEM_STAT_BYTES,	/* gauge */
	TMEM_STAT_SAME_FILLED,	/* gauge */
	TMEM_NR_STATS
};

struct tmem_pcpu_stats {
	u64 v[TMEM_NR_STATS];
};

/* One shard of a store's ephemeral LRU (see "LRU shards" at the top). */
struct tmem_lru {
	spinlock_t lock;
	struct list_head list;		/* under lock, oldest first */
	unsigned long nr;		/* under lock; read racily */
	unsigned long bytes;		/* charged for them; as nr */
} ____cacheline_aligned_in_smp;

/* A capacity domain: limit, LRU of ephemeral pages, totals. */
struct tmem_store {
	struct tmem_lru lru[TMEM_LRU_SHARDS];
	unsigned int lru_shards;	/* for new pages: a power of two */
	unsigned int __percpu *evict_cursor;	/* see lru_next_victim() */
	struct percpu_counter used;	/* bytes charged, for the limit */
	unsigned long max_pages;	/* 0: module parameters; READ_ONCE */
	const struct tmem_backend *backend;
	struct tmem_pcpu_stats __percpu *stats;
	struct shrinker *shrinker;	/* default store only */
	char name[TMEM_POOL_NAME_LEN];
};

struct tmem_bucket {
	spinlock_t lock;
	struct rb_root objs;		/* of tmem_obj, by oid */
};

struct tmem_pool {
	struct tmem_store *store;
	struct tmem_pcpu_stats __percpu *stats;
	struct rcu_head rcu;
	refcount_t refs;		/* the table's + one per deferred obj */
	bool persistent;
	bool dead;			/* set once by destroy; see top */
	char name[TMEM_POOL_NAME_LEN];
	struct tmem_bucket buckets[TMEM_OBJ_BUCKETS];
};

struct tmem_obj {
	struct rb_node node;		/* in bucket->objs */
	struct xarray pages;		/* index -> item, see below */
	struct tmem_pool *pool;
	struct tmem_bucket *bucket;
	struct list_head defer;		/* on tmem_deferred, once detached */
	unsigned long nr_pages;		/* under bucket->lock */
	u64 oid;
	bool detached;			/* taken out of the tree, being freed */
};

/*
 * An item is what an object's xarray holds for a page.  In a persistent
 * pool it is the backend's handle itself: no allocation per page besides
 * the backend's, and nothing to free but the handle.  In an ephemeral pool
 * it is a tmem_entry, which carries the LRU link and what the evictor needs
 * to find the page's object.
 */
struct tmem_entry {
	struct list_head lru;		/* on its shard's list, under its lock */
	struct tmem_obj *obj;
	unsigned long handle;		/* the backend's, or the fill word */
	unsigned int size : 27;		/* bytes charged */
	unsigned int shard : TMEM_LRU_SHARDS_BITS;	/* in store->lru[] */
	unsigned int same_filled : 1;	/* handle is the word, no backend */
	u32 index;
};

/* Persistent pools' bucket locks are never taken under i_pages (ephemeral
 * ones are), and a backend's irq-unsafe locks nest in them: a lockdep class
 * of their own says so.
 */
static struct lock_class_key tmem_persistent_bucket_key;

static DEFINE_XARRAY_FLAGS(tmem_pools, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
static u32 tmem_pool_next;		/* cyclic id cursor, under xa_lock */
static struct kmem_cache *tmem_obj_cache;
static struct kmem_cache *tmem_entry_cache;
static struct tmem_store *tmem_default;
static struct dentry *tmem_debugfs_stats;
/* Detached objects waiting for tmem_free_work; lock order: innermost. */
static LIST_HEAD(tmem_deferred);
static DEFINE_SPINLOCK(tmem_deferred_lock);
static void tmem_free_workfn(struct work_struct *work);
static DECLARE_WORK(tmem_free_work, tmem_free_workfn);
static struct dentry *tmem_debugfs_pools;

/* ---- capacity tunables ------------------------------------------------ */

static unsigned int max_pool_percent = 20;
static unsigned long max_pages;
static char *backend = "compress";
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend,
		 "How pages are kept, read at load: compress (default) or ram");

static int max_pool_percent_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 100);
}

static const struct kernel_param_ops max_pool_percent_ops = {
	.set = max_pool_percent_set,
	.get = param_get_uint,
};

module_param_cb(max_pool_percent, &max_pool_percent_ops, &max_pool_percent,
		0644);
MODULE_PARM_DESC(max_pool_percent,
		 "Capacity of the store in percent of RAM (0-100, default 20)");
module_param(max_pages, ulong, 0644);
MODULE_PARM_DESC(max_pages,
		 "Capacity of the store in pages; overrides max_pool_percent if not 0");

static unsigned long tmem_param_limit(void)
{
	unsigned long ram = totalram_pages();
	unsigned long mp = READ_ONCE(max_pages);

	if (mp)
		return min(mp, ram);
	return mult_frac(ram, READ_ONCE(max_pool_percent), 100);
}

unsigned long tmem_store_max_pages(struct tmem_store *s)
{
	unsigned long mp = READ_ONCE(s->max_pages);

	return mp ? mp : tmem_param_limit();
}
EXPORT_SYMBOL_NS_GPL(tmem_store_max_pages, TMEM);

void tmem_store_set_max_pages(struct tmem_store *s, unsigned long pages)
{
	WRITE_ONCE(s->max_pages, min_t(unsigned long, pages,
				       S64_MAX >> (PAGE_SHIFT + 1)));
}
EXPORT_SYMBOL_NS_GPL(tmem_store_set_max_pages, TMEM);

/*
 * True if one more page would take the store over its limit. A full store
 * is the normal state of a victim cache, so this runs on every put with
 * the counter near the limit, where an exact comparison would sum every
 * CPU's share under the counter's lock each time. A store large enough
 * that the counter's per-CPU slack (TMEM_USED_BATCH each) is at most
 * 1/TMEM_FULL_SLACK_SHARE of it reads the approximate count instead: it may
 * go over its limit, or stop short of it, by that slack (64 pages per
 * online CPU: 0.5 MiB on 2 CPUs, so from a 32 MiB store on), and the cost
 * does not grow with the number of CPUs. Smaller stores compare exactly.
 */
static bool store_full(struct tmem_store *s)
{
	unsigned long limit = tmem_store_max_pages(s);
	s64 max, slack;

	if (!limit)
		return true;
	max = (s64)(limit - 1) << PAGE_SHIFT;
	slack = (s64)TMEM_USED_BATCH * num_online_cpus();
	if (max >= slack * TMEM_FULL_SLACK_SHARE)
		return percpu_counter_read(&s->used) > max;
	return __percpu_counter_compare(&s->used, max, TMEM_USED_BATCH) > 0;
}

/* ---- statistics --------------------------------------------------------- */

static inline void pool_stat_add(struct tmem_pool *p, enum tmem_stat_item i,
				 s64 delta)
{
	this_cpu_add(p->stats->v[i], delta);
	this_cpu_add(p->store->stats->v[i], delta);
}

static inline void pool_stat_inc(struct tmem_pool *p, enum tmem_stat_item i)
{
	pool_stat_add(p, i, 1);
}

/*
 * A page of @size bytes became reachable under its handle / stopped;
 * @same: a same-filled page.
 */
static inline void account_link(struct tmem_pool *p, unsigned int size,
				bool same)
{
	pool_stat_add(p, TMEM_STAT_PAGES, 1);
	pool_stat_add(p, TMEM_STAT_BYTES, size);
	if (same)
		pool_stat_add(p, TMEM_STAT_SAME_FILLED, 1);
}

static inline void account_unlink(struct tmem_pool *p, unsigned int size,
				  bool same)
{
	pool_stat_add(p, TMEM_STAT_PAGES, -1);
	pool_stat_add(p, TMEM_STAT_BYTES, -(s64)size);
	if (same)
		pool_stat_add(p, TMEM_STAT_SAME_FILLED, -1);
}

static void stats_sum(struct tmem_pcpu_stats __percpu *pcs,
		      struct tmem_stats *st)
{
	u64 v[TMEM_NR_STATS] = { 0 };
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct tmem_pcpu_stats *c = per_cpu_ptr(pcs, cpu);

		for (i = 0; i < TMEM_NR_STATS; i++)
			v[i] += READ_ONCE(c->v[i]);
	}
	st->puts = v[TMEM_STAT_PUTS];
	st->puts_refused = v[TMEM_STAT_PUTS_REFUSED];
	st->gets_hit = v[TMEM_STAT_GETS_HIT];
	st->gets_miss = v[TMEM_STAT_GETS_MISS];
	st->flush_pages = v[TMEM_STAT_FLUSH_PAGES];
	st->flush_objects = v[TMEM_STAT_FLUSH_OBJECTS];
	st->flush_ranges = v[TMEM_STAT_FLUSH_RANGES];
	st->flushed = v[TMEM_STAT_FLUSHED];
	st->evicted = v[TMEM_STAT_EVICTED];
	st->shrunk = v[TMEM_STAT_SHRUNK];
	st->refused_full = v[TMEM_STAT_REFUSED_FULL];
	st->refused_nomem = v[TMEM_STAT_REFUSED_NOMEM];
	st->refused_incompressible = v[TMEM_STAT_REFUSED_INCOMPRESSIBLE];
	st->pages = (s64)v[TMEM_STAT_PAGES];
	st->bytes = (s64)v[TMEM_STAT_BYTES];
	st->same_filled = (s64)v[TMEM_STAT_SAME_FILLED];
}

/* ---- entries, objects --------------------------------------------------- */

/*
 * Same-filled pages: one machine word repeated over the whole page (zero
 * included).  The last word is compared first: a page that differs only
 * there is common (a zeroed buffer with a trailing value) and cheap to
 * reject.  No lock needed.
 */
static bool page_same_filled(struct page *page, unsigned long *word)
{
	const unsigned long *w = kmap_local_page(page);
	const unsigned int last = PAGE_SIZE / sizeof(*w) - 1;
	unsigned int i;
	bool same = w[last] == w[0];

	for (i = 1; same && i < last; i++)
		if (w[i] != w[0])
			same = false;
	*word = w[0];
	kunmap_local(w);
	return same;
}

static void page_fill(struct page *page, unsigned long word)
{
	void *d = kmap_local_page(page);

	memset_l(d, word, PAGE_SIZE / sizeof(word));
	kunmap_local(d);
}

/*
 * Copy @page into the backend (or, same-filled, keep its word) and make
 * the item for it (see struct tmem_entry; a persistent same-filled page is
 * a value entry, and *@bit0 is the mark its slot must carry).  No lock
 * held.  NULL and *@err on failure.
 */
static void *item_store(struct tmem_pool *p, struct page *page, u32 index,
			bool *bit0, int *err)
{
	struct tmem_store *s = p->store;
	struct tmem_entry *e;
	unsigned long handle;
	unsigned int size;
	bool same = page_same_filled(page, &handle);

	if (same) {
		size = TMEM_SAME_CHARGE;
		if (p->persistent) {
			percpu_counter_add_batch(&s->used, size,
						 TMEM_USED_BATCH);
			*bit0 = handle & 1;
			return xa_mk_value(handle >> 1);
		}
	} else {
		*err = s->backend->store(page, TMEM_GFP, !p->persistent,
					 &handle, &size);
		if (*err)
			return NULL;
		if (WARN_ON_ONCE(!handle || (handle & 3))) {
			/* not storable in an xarray: a broken backend */
			s->backend->free(handle);
			*err = -EINVAL;
			return NULL;
		}
	}
	percpu_counter_add_batch(&s->used, size, TMEM_USED_BATCH);
	if (p->persistent)
		return (void *)handle;
	e = kmem_cache_alloc(tmem_entry_cache, TMEM_GFP);
	if (!e) {
		if (!same)
			s->backend->free(handle);
		percpu_counter_add_batch(&s->used, -(s64)size, TMEM_USED_BATCH);
		*err = -ENOMEM;
		return NULL;
	}
	e->handle = handle;
	e->size = size;
	e->same_filled = same;
	e->index = index;
	return e;
}

static inline bool item_same(struct tmem_pool *p, void *item)
{
	return p->persistent ? xa_is_value(item) :
		((struct tmem_entry *)item)->same_filled;
}

static inline unsigned int item_size(struct tmem_pool *p, void *item)
{
	if (!p->persistent)
		return ((struct tmem_entry *)item)->size;
	if (xa_is_value(item))
		return TMEM_SAME_CHARGE;
	return p->store->backend->size((unsigned long)item);
}

/*
 * Fill @page from a persistent item of @o (under its bucket lock: the item
 * and its slot's mark stay put) or from a detached ephemeral entry (no
 * lock; @o unused).  0 or the backend's -errno.
 */
static int item_load(struct tmem_pool *p, struct tmem_obj *o, u32 index,
		     void *item, struct page *page)
{
	struct tmem_entry *e = item;

	if (p->persistent) {
		if (xa_is_value(item)) {
			page_fill(page, xa_to_value(item) << 1 |
				  xa_get_mark(&o->pages, index,
					      TMEM_MARK_WORD_BIT0));
			return 0;
		}
		return p->store->backend->load((unsigned long)item, page);
	}
	if (e->same_filled) {
		page_fill(page, e->handle);
		return 0;
	}
	return p->store->backend->load(e->handle, page);
}

/* Free an ephemeral entry no longer reachable from an object or the LRU. */
static void entry_free(struct tmem_store *s, struct tmem_entry *e)
{
	if (!e->same_filled)
		s->backend->free(e->handle);
	percpu_counter_add_batch(&s->used, -(s64)e->size, TMEM_USED_BATCH);
	kmem_cache_free(tmem_entry_cache, e);
}

/* Free an item no longer reachable; @size as item_size() gave it. */
static void item_free(struct tmem_pool *p, void *item, unsigned int size)
{
	struct tmem_store *s = p->store;

	if (!p->persistent) {
		entry_free(s, item);
		return;
	}
	if (!xa_is_value(item))
		s->backend->free((unsigned long)item);
	percpu_counter_add_batch(&s->used, -(s64)size, TMEM_USED_BATCH);
}

/* The LRU shard of a new ephemeral page at (@oid, @index) of @s. */
static inline unsigned int lru_shard(struct tmem_store *s, u64 oid, u32 index)
{
	return (hash_64(oid, TMEM_LRU_SHARDS_BITS) + index) &
	       (READ_ONCE(s->lru_shards) - 1);
}

/*
 * Take entry @e off its shard's list.  Caller has interrupts off and holds
 * the bucket lock of @e's object or owns it detached; not the shard lock.
 */
static void lru_del(struct tmem_store *s, struct tmem_entry *e)
{
	struct tmem_lru *l = &s->lru[e->shard];

	spin_lock(&l->lock);
	list_del(&e->lru);
	l->nr--;
	l->bytes -= e->size;
	spin_unlock(&l->lock);
}

/* Ephemeral pages of @s and the bytes charged for them; racy sums. */
static unsigned long store_lru_pages(struct tmem_store *s)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < TMEM_LRU_SHARDS; i++)
		n += READ_ONCE(s->lru[i].nr);
	return n;
}

static unsigned long store_lru_bytes(struct tmem_store *s)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < TMEM_LRU_SHARDS; i++)
		n += READ_ONCE(s->lru[i].bytes);
	return n;
}

static struct tmem_bucket *pool_bucket(struct tmem_pool *p, u64 oid)
{
	return &p->buckets[hash_64(oid, TMEM_OBJ_HASH_BITS)];
}

/* Under bucket->lock. */
static struct tmem_obj *obj_find(struct tmem_bucket *b, u64 oid)
{
	struct rb_node *n = b->objs.rb_node;

	while (n) {
		struct tmem_obj *o = rb_entry(n, struct tmem_obj, node);

		if (oid < o->oid)
			n = n->rb_left;
		else if (oid > o->oid)
			n = n->rb_right;
		else
			return o;
	}
	return NULL;
}

/* Under bucket->lock.  NULL if a new object cannot be allocated. */
static struct tmem_obj *obj_find_or_create(struct tmem_pool *p,
					   struct tmem_bucket *b, u64 oid)
{
	struct rb_node **link = &b->objs.rb_node, *parent = NULL;
	struct tmem_obj *o;

	while (*link) {
		parent = *link;
		o = rb_entry(parent, struct tmem_obj, node);
		if (oid < o->oid)
			link = &parent->rb_left;
		else if (oid > o->oid)
			link = &parent->rb_right;
		else
			return o;
	}
	o = kmem_cache_alloc(tmem_obj_cache, TMEM_GFP);
	if (!o)
		return NULL;
	xa_init(&o->pages);
	o->pool = p;
	o->bucket = b;
	o->oid = oid;
	o->nr_pages = 0;
	o->detached = false;
	rb_link_node(&o->node, parent, link);
	rb_insert_color(&o->node, &b->objs);
	return o;
}

/* Under bucket->lock: free @o if it holds no page. */
static void obj_free_if_empty(struct tmem_obj *o)
{
	if (!xa_empty(&o->pages))
		return;
	rb_erase(&o->node, &o->bucket->objs);
	kmem_cache_free(tmem_obj_cache, o);
}

/*
 * Under bucket->lock: take the page of (@oid, @index) out of the pool (its
 * object, the LRU, the counters) and return its item, and in *@size its
 * size, for item_free() after the lock is dropped; NULL if there is none.
 */
static void *handle_detach(struct tmem_pool *p, struct tmem_bucket *b,
			   u64 oid, u32 index, unsigned int *size)
{
	struct tmem_obj *o = obj_find(b, oid);
	struct tmem_store *s = p->store;
	void *item;

	if (!o)
		return NULL;
	item = xa_erase(&o->pages, index);
	if (!item)
		return NULL;
	o->nr_pages--;
	*size = item_size(p, item);
	if (!p->persistent)
		lru_del(s, item);
	account_unlink(p, *size, item_same(p, item));
	obj_free_if_empty(o);
	return item;
}

/*
 * Free every page of an object that was detached (taken out of its tree
 * under the bucket lock, with obj->detached or pool->dead set), then the
 * object.  No lock held; ephemeral entries leave the LRU in batches so the
 * irqs-off sections stay short.  @can_sleep: reschedule between batches.
 * Return: pages freed.
 */
static unsigned long obj_free_detached(struct tmem_pool *p, struct tmem_obj *o,
				       bool can_sleep)
{
	struct tmem_store *s = p->store;
	bool on_lru = !p->persistent;
	unsigned long index = 0, total = 0, flags = 0;
	unsigned int n, size;
	void *item;

	do {
		struct tmem_entry *e, *tmp;
		LIST_HEAD(batch);

		n = 0;
		if (on_lru)
			local_irq_save(flags);
		xa_for_each_start(&o->pages, index, item, index) {
			if (on_lru) {
				e = item;
				lru_del(s, e);
				list_add_tail(&e->lru, &batch);
			} else {
				/* nothing else can reach it: no lock needed */
				size = item_size(p, item);
				account_unlink(p, size, xa_is_value(item));
				item_free(p, item, size);
			}
			if (++n == TMEM_FREE_CHUNK)
				break;
		}
		if (on_lru)
			local_irq_restore(flags);
		list_for_each_entry_safe(e, tmp, &batch, lru) {
			account_unlink(p, e->size, e->same_filled);
			entry_free(s, e);
		}
		total += n;
		index++;
		if (can_sleep)
			cond_resched();
	} while (n == TMEM_FREE_CHUNK);
	xa_destroy(&o->pages);
	kmem_cache_free(tmem_obj_cache, o);
	return total;
}

static void pool_free_rcu(struct rcu_head *head);

static void pool_put(struct tmem_pool *p)
{
	if (refcount_dec_and_test(&p->refs))
		call_rcu(&p->rcu, pool_free_rcu);
}

/*
 * A detached object: free it now if its pages fit in *@budget (and take
 * them from it), else hand it to tmem_free_work, which holds a reference to
 * the pool until it is done.  Caller: in an RCU read section, or holding
 * the pool's table reference.  Never sleeps.
 */
static void obj_release(struct tmem_pool *p, struct tmem_obj *o,
			unsigned long *budget)
{
	unsigned long flags;

	/* refs is 0 once destroy let go: then @p lasts our RCU section */
	if (o->nr_pages <= *budget || !refcount_inc_not_zero(&p->refs)) {
		*budget -= min(*budget, o->nr_pages);
		obj_free_detached(p, o, false);
		return;
	}
	spin_lock_irqsave(&tmem_deferred_lock, flags);
	list_add_tail(&o->defer, &tmem_deferred);
	spin_unlock_irqrestore(&tmem_deferred_lock, flags);
	schedule_work(&tmem_free_work);
}

static void tmem_free_workfn(struct work_struct *work)
{
	struct tmem_obj *o, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&tmem_deferred_lock, flags);
	list_splice_init(&tmem_deferred, &list);
	spin_unlock_irqrestore(&tmem_deferred_lock, flags);
	list_for_each_entry_safe(o, tmp, &list, defer) {
		struct tmem_pool *p = o->pool;

		obj_free_detached(p, o, true);
		pool_put(p);
	}
}

void tmem_drain(void)
{
	flush_work(&tmem_free_work);
}
EXPORT_SYMBOL_NS_GPL(tmem_drain, TMEM);

/* ---- eviction ----------------------------------------------------------- */

/* The shard this CPU's next eviction from @s looks at; CPUs start apart. */
static unsigned int lru_next_victim(struct tmem_store *s)
{
	unsigned int c = this_cpu_inc_return(*s->evict_cursor);

	return (c + raw_smp_processor_id() * (TMEM_LRU_SHARDS / 2 + 1)) %
	       TMEM_LRU_SHARDS;
}

/*
 * Evict ephemeral pages of @s, least recently put first, until at least
 * @bytes of charge are freed (at least one page if @bytes > 0) or as many
 * pages as @pages are evicted, counting them as @why; *@evicted (if not
 * NULL) gets the number of pages.  Caller holds no bucket lock.  Visits the
 * shards in turn from this CPU's cursor, up to TMEM_EVICT_CHUNK pages from
 * each, under its lock; takes each victim's bucket lock by trylock (the
 * reverse of the usual order).  An entry whose bucket is busy, or whose
 * object or pool is being torn down by another thread (which will free
 * it), is passed over.  Stops when a round of all shards freed nothing.
 * Return: bytes freed.
 */
static unsigned long store_evict(struct tmem_store *s, unsigned long bytes,
				 unsigned long pages, unsigned long *evicted,
				 enum tmem_stat_item why)
{
	struct tmem_entry *e, *tmp;
	unsigned long done = 0, count = 0, flags;
	unsigned int idle = 0;
	LIST_HEAD(victims);

	while (done < bytes && count < pages && idle < TMEM_LRU_SHARDS) {
		unsigned long n = 0, skipped = 0;
		struct tmem_lru *l = &s->lru[lru_next_victim(s)];

		if (!READ_ONCE(l->nr)) {
			idle++;
			continue;
		}
		spin_lock_irqsave(&l->lock, flags);
		list_for_each_entry_safe(e, tmp, &l->list, lru) {
			struct tmem_obj *o = e->obj;
			struct tmem_bucket *b = o->bucket;
			struct tmem_pool *p = o->pool;

			if (n == TMEM_EVICT_CHUNK || done >= bytes ||
			    count == pages || skipped == TMEM_EVICT_SKIP)
				break;
			if (!spin_trylock(&b->lock)) {
				skipped++;
				continue;
			}
			if (o->detached || READ_ONCE(p->dead)) {
				spin_unlock(&b->lock);
				skipped++;
				continue;
			}
			xa_erase(&o->pages, e->index);
			o->nr_pages--;
			list_move_tail(&e->lru, &victims);
			l->nr--;
			l->bytes -= e->size;
			account_unlink(p, e->size, e->same_filled);
			pool_stat_inc(p, why);
			obj_free_if_empty(o);
			spin_unlock(&b->lock);
			done += e->size;
			n++;
			count++;
		}
		spin_unlock_irqrestore(&l->lock, flags);
		idle = n ? 0 : idle + 1;
	}
	list_for_each_entry_safe(e, tmp, &victims, lru)
		entry_free(s, e);
	if (evicted)
		*evicted = count;
	return done;
}

/* Make room for one page.  0, or -ENOSPC if the store stays full. */
static int store_make_room(struct tmem_store *s)
{
	int tries = 0;

	while (store_full(s)) {
		if (tries++ == TMEM_EVICT_TRIES ||
		    !store_evict(s, 1, ULONG_MAX, NULL,
					 TMEM_STAT_EVICTED))
			return -ENOSPC;
	}
	return 0;
}

unsigned long tmem_store_shrink_count(struct tmem_store *s)
{
	return DIV_ROUND_UP(store_lru_bytes(s), PAGE_SIZE);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_shrink_count, TMEM);

unsigned long tmem_store_shrink_scan(struct tmem_store *s,
				     unsigned long nr_to_scan)
{
	unsigned long evicted;

	store_evict(s, ULONG_MAX, nr_to_scan, &evicted, TMEM_STAT_SHRUNK);
	return evicted;
}
EXPORT_SYMBOL_NS_GPL(tmem_store_shrink_scan, TMEM);

static unsigned long tmem_shrinker_count(struct shrinker *sh,
					 struct shrink_control *sc)
{
	unsigned long n = tmem_store_shrink_count(tmem_shrinker_priv(sh));

	return n ? n : SHRINK_EMPTY;
}

static unsigned long tmem_shrinker_scan(struct shrinker *sh,
					struct shrink_control *sc)
{
	unsigned long n = tmem_store_shrink_scan(tmem_shrinker_priv(sh),
						 sc->nr_to_scan);

	return n ? n : SHRINK_STOP;
}

/* ---- the operations ----------------------------------------------------- */

/* Under rcu_read_lock(). */
static struct tmem_pool *pool_lookup(int pool_id)
{
	if (pool_id < 0 || pool_id >= TMEM_MAX_POOLS)
		return NULL;
	return xa_load(&tmem_pools, pool_id);
}

/*
 * Detach the page stored under a handle and free it.  Caller holds
 * rcu_read_lock() and no tmem lock.  Return: whether a page was stored.
 */
static bool handle_drop(struct tmem_pool *p, u64 oid, u32 index)
{
	struct tmem_bucket *b = pool_bucket(p, oid);
	unsigned long flags;
	unsigned int size;
	void *item;

	spin_lock_irqsave(&b->lock, flags);
	item = handle_detach(p, b, oid, index, &size);
	spin_unlock_irqrestore(&b->lock, flags);
	if (item)
		item_free(p, item, size);
	return item;
}

/*
 * A put was refused with @err: the handle's older page must not survive
 * it.  Counted, and by cause where it has one.
 */
static void put_refused(struct tmem_pool *p, u64 oid, u32 index, int err)
{
	handle_drop(p, oid, index);
	pool_stat_inc(p, TMEM_STAT_PUTS_REFUSED);
	if (err == -ENOSPC)
		pool_stat_inc(p, TMEM_STAT_REFUSED_FULL);
	else if (err == -ENOMEM)
		pool_stat_inc(p, TMEM_STAT_REFUSED_NOMEM);
	else if (err == -E2BIG)
		pool_stat_inc(p, TMEM_STAT_REFUSED_INCOMPRESSIBLE);
}

int tmem_put_page_sized(int pool_id, u64 oid, u32 index, struct page *page,
			unsigned int *sizep)
{
	unsigned int size, old_size = 0;
	struct tmem_store *s;
	struct tmem_bucket *b;
	struct tmem_pool *p;
	struct tmem_obj *o;
	unsigned long flags;
	void *item, *old;
	bool bit0 = false;
	int ret;

	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (!p) {
		ret = -EINVAL;
		goto out;
	}
	s = p->store;
	b = pool_bucket(p, oid);
	ret = store_make_room(s);
	if (ret)
		goto refused;
	item = item_store(p, page, index, &bit0, &ret);
	if (!item)
		goto refused;
	size = item_size(p, item);

	spin_lock_irqsave(&b->lock, flags);
	if (unlikely(READ_ONCE(p->dead))) {
		spin_unlock_irqrestore(&b->lock, flags);
		item_free(p, item, size);
		ret = -EINVAL;
		goto out;
	}
	o = obj_find_or_create(p, b, oid);
	if (!o) {
		spin_unlock_irqrestore(&b->lock, flags);
		item_free(p, item, size);
		ret = -ENOMEM;
		goto refused;
	}
	if (!p->persistent) {
		((struct tmem_entry *)item)->obj = o;
		((struct tmem_entry *)item)->shard = lru_shard(s, oid, index);
	}
	old = xa_store(&o->pages, index, item, TMEM_GFP);
	if (xa_is_err(old)) {
		ret = xa_err(old);
		obj_free_if_empty(o);
		spin_unlock_irqrestore(&b->lock, flags);
		item_free(p, item, size);
		goto refused;
	}
	if (old)
		old_size = item_size(p, old);
	if (!p->persistent) {
		struct tmem_entry *e = item;
		struct tmem_lru *l = &s->lru[e->shard];

		if (old)	/* in the same shard unless the count changed */
			lru_del(s, old);
		spin_lock(&l->lock);
		list_add_tail(&e->lru, &l->list);
		l->nr++;
		l->bytes += size;
		spin_unlock(&l->lock);
	} else if (xa_is_value(item)) {
		/* the word's bit 0 (xa_store keeps an old mark) */
		if (bit0)
			xa_set_mark(&o->pages, index, TMEM_MARK_WORD_BIT0);
		else
			xa_clear_mark(&o->pages, index, TMEM_MARK_WORD_BIT0);
	}
	if (old)
		account_unlink(p, old_size, item_same(p, old));
	else
		o->nr_pages++;
	account_link(p, size, item_same(p, item));
	pool_stat_inc(p, TMEM_STAT_PUTS);
	spin_unlock_irqrestore(&b->lock, flags);
	if (old)
		item_free(p, old, old_size);
	rcu_read_unlock();
	if (sizep)
		*sizep = size;
	return 0;

refused:
	put_refused(p, oid, index, ret);
out:
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tmem_put_page_sized, TMEM);

int tmem_put_page(int pool_id, u64 oid, u32 index, struct page *page)
{
	return tmem_put_page_sized(pool_id, oid, index, page, NULL);
}
EXPORT_SYMBOL_NS_GPL(tmem_put_page, TMEM);

int tmem_get_page(int pool_id, u64 oid, u32 index, struct page *page)
{
	struct tmem_store *s;
	struct tmem_bucket *b;
	struct tmem_pool *p;
	unsigned long flags;
	unsigned int size;
	void *item = NULL;
	int ret = -ENOENT;

	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (!p) {
		rcu_read_unlock();
		return -EINVAL;
	}
	s = p->store;
	b = pool_bucket(p, oid);
	spin_lock_irqsave(&b->lock, flags);
	if (p->persistent) {
		struct tmem_obj *o = obj_find(b, oid);

		item = o ? xa_load(&o->pages, index) : NULL;
		if (item) {
			ret = item_load(p, o, index, item, page);
			/* unreadable: drop it, so that later gets miss too */
			if (ret)
				item = handle_detach(p, b, oid, index, &size);
			else
				item = NULL;
		}
		spin_unlock_irqrestore(&b->lock, flags);
	} else {
		item = handle_detach(p, b, oid, index, &size);
		spin_unlock_irqrestore(&b->lock, flags);
		if (item)
			ret = item_load(p, NULL, index, item, page);
	}
	if (item)
		item_free(p, item, size);
	if (ret && ret != -ENOENT)
		ret = -EIO;
	pool_stat_inc(p, ret ? TMEM_STAT_GETS_MISS : TMEM_STAT_GETS_HIT);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tmem_get_page, TMEM);

int tmem_flush_page(int pool_id, u64 oid, u32 index)
{
	struct tmem_pool *p;
	int ret = -EINVAL;

	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (p) {
		pool_stat_inc(p, TMEM_STAT_FLUSH_PAGES);
		ret = -ENOENT;
		if (handle_drop(p, oid, index)) {
			pool_stat_inc(p, TMEM_STAT_FLUSHED);
			ret = 0;
		}
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(tmem_flush_page, TMEM);

int tmem_flush_object(int pool_id, u64 oid)
{
	struct tmem_bucket *b;
	struct tmem_pool *p;
	struct tmem_obj *o;
	unsigned long flags;

	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (!p) {
		rcu_read_unlock();
		return -EINVAL;
	}
	b = pool_bucket(p, oid);
	spin_lock_irqsave(&b->lock, flags);
	o = obj_find(b, oid);
	if (o) {
		rb_erase(&o->node, &b->objs);
		o->detached = true;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	pool_stat_inc(p, TMEM_STAT_FLUSH_OBJECTS);
	if (o) {
		unsigned long budget = TMEM_INLINE_FREE;

		pool_stat_add(p, TMEM_STAT_FLUSHED, o->nr_pages);
		obj_release(p, o, &budget);
	}
	rcu_read_unlock();
	return o ? 0 : -ENOENT;
}
EXPORT_SYMBOL_NS_GPL(tmem_flush_object, TMEM);

/* Pages tmem_flush_range() detaches per hold of the bucket lock. */
#define TMEM_RANGE_CHUNK	16

int tmem_flush_range(int pool_id, u64 oid, u32 first, u32 last)
{
	struct {
		void *item;
		unsigned int size;
	} batch[TMEM_RANGE_CHUNK];
	unsigned long index = first, flags, flushed = 0;
	struct tmem_bucket *b;
	struct tmem_pool *p;
	struct tmem_obj *o;
	unsigned int i, n;

	if (first > last)
		return -EINVAL;
	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (!p) {
		rcu_read_unlock();
		return -EINVAL;
	}
	b = pool_bucket(p, oid);
	do {
		n = 0;
		spin_lock_irqsave(&b->lock, flags);
		/* handle_detach() frees the object with its last page */
		while (n < TMEM_RANGE_CHUNK && index <= last &&
		       (o = obj_find(b, oid)) &&
		       xa_find(&o->pages, &index, last, XA_PRESENT)) {
			batch[n].item = handle_detach(p, b, oid, index,
						      &batch[n].size);
			n++;
			index++;
		}
		spin_unlock_irqrestore(&b->lock, flags);
		for (i = 0; i < n; i++)
			item_free(p, batch[i].item, batch[i].size);
		flushed += n;
	} while (n == TMEM_RANGE_CHUNK);
	pool_stat_inc(p, TMEM_STAT_FLUSH_RANGES);
	pool_stat_add(p, TMEM_STAT_FLUSHED, flushed);
	rcu_read_unlock();
	return flushed ? 0 : -ENOENT;
}
EXPORT_SYMBOL_NS_GPL(tmem_flush_range, TMEM);

/* ---- pools -------------------------------------------------------------- */

static int pool_flags_check(const uuid_t *uuid, u32 flags)
{
	const u32 known = TMEM_POOL_PERSIST | TMEM_POOL_SHARED |
		TMEM_POOL_PAGESIZE_MASK << TMEM_POOL_PAGESIZE_SHIFT |
		TMEM_POOL_VERSION_MASK << TMEM_POOL_VERSION_SHIFT;

	if (flags & TMEM_POOL_SHARED) {
		pr_warn_once("shared pools are not supported (dropped for security, as in the seed); refused\n");
		return -EOPNOTSUPP;
	}
	if (flags & ~known)
		return -EINVAL;
	if (((flags >> TMEM_POOL_PAGESIZE_SHIFT) & TMEM_POOL_PAGESIZE_MASK) !=
	    PAGE_SHIFT - 12)
		return -EINVAL;
	if (((flags >> TMEM_POOL_VERSION_SHIFT) & TMEM_POOL_VERSION_MASK) !=
	    TMEM_SPEC_VERSION)
		return -EINVAL;
	/* a uuid names a shared pool; private pools take none */
	if (uuid && !uuid_is_null(uuid))
		return -EINVAL;
	return 0;
}

static void pool_free_rcu(struct rcu_head *head)
{
	struct tmem_pool *p = container_of(head, struct tmem_pool, rcu);

	free_percpu(p->stats);
	kfree(p);
}

int tmem_store_new_pool(struct tmem_store *s, const uuid_t *uuid, u32 flags,
			const char *name)
{
	struct tmem_pool *p;
	u32 id;
	int i, ret;

	might_sleep();
	if (!s)
		return -ENODEV;
	ret = pool_flags_check(uuid, flags);
	if (ret)
		return ret;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->stats = alloc_percpu(struct tmem_pcpu_stats);
	if (!p->stats) {
		kfree(p);
		return -ENOMEM;
	}
	p->store = s;
	refcount_set(&p->refs, 1);
	p->persistent = flags & TMEM_POOL_PERSIST;
	strscpy(p->name, name ? name : "", sizeof(p->name));
	for (i = 0; i < TMEM_OBJ_BUCKETS; i++) {
		spin_lock_init(&p->buckets[i].lock);
		if (p->persistent)
			lockdep_set_class(&p->buckets[i].lock,
					  &tmem_persistent_bucket_key);
		p->buckets[i].objs = RB_ROOT;
	}
	ret = xa_alloc_cyclic_irq(&tmem_pools, &id, p,
				  XA_LIMIT(0, TMEM_MAX_POOLS - 1),
				  &tmem_pool_next, GFP_KERNEL);
	if (ret < 0) {
		free_percpu(p->stats);
		kfree(p);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	return id;
}
EXPORT_SYMBOL_NS_GPL(tmem_store_new_pool, TMEM);

int tmem_new_pool(const uuid_t *uuid, u32 flags, const char *name)
{
	return tmem_store_new_pool(tmem_default, uuid, flags, name);
}
EXPORT_SYMBOL_NS_GPL(tmem_new_pool, TMEM);

int tmem_destroy_pool(int pool_id)
{
	unsigned long flags, budget = TMEM_INLINE_FREE;
	struct tmem_pool *p;
	int i;

	if (pool_id < 0 || pool_id >= TMEM_MAX_POOLS)
		return -EINVAL;
	xa_lock_irqsave(&tmem_pools, flags);
	p = __xa_erase(&tmem_pools, pool_id);
	xa_unlock_irqrestore(&tmem_pools, flags);
	if (!p)
		return -EINVAL;

	/* from here no new operation finds the pool; puts in flight see
	 * ->dead under their bucket lock, the evictor leaves its pages alone
	 */
	WRITE_ONCE(p->dead, true);
	for (i = 0; i < TMEM_OBJ_BUCKETS; i++) {
		struct tmem_bucket *b = &p->buckets[i];
		struct tmem_obj *o, *tmp;
		struct rb_root objs;

		spin_lock_irqsave(&b->lock, flags);
		objs = b->objs;
		b->objs = RB_ROOT;
		spin_unlock_irqrestore(&b->lock, flags);
		rbtree_postorder_for_each_entry_safe(o, tmp, &objs, node)
			obj_release(p, o, &budget);
	}
	pool_put(p);		/* the table's reference */
	return 0;
}
EXPORT_SYMBOL_NS_GPL(tmem_destroy_pool, TMEM);

int tmem_pool_stats(int pool_id, struct tmem_stats *st)
{
	struct tmem_pool *p;

	rcu_read_lock();
	p = pool_lookup(pool_id);
	if (p)
		stats_sum(p->stats, st);
	rcu_read_unlock();
	return p ? 0 : -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(tmem_pool_stats, TMEM);

/* ---- stores ------------------------------------------------------------- */

unsigned int tmem_store_lru_shards(struct tmem_store *s, unsigned int shards)
{
	if (shards)
		WRITE_ONCE(s->lru_shards, rounddown_pow_of_two(min(shards, TMEM_LRU_SHARDS)));
	return READ_ONCE(s->lru_shards);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_lru_shards, TMEM);

struct tmem_store *tmem_store_create(const char *name, unsigned long max,
				     const struct tmem_backend *backend)
{
	struct tmem_store *s;
	unsigned int i;

	might_sleep();
	if (!tmem_entry_cache)
		return ERR_PTR(-ENODEV);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < TMEM_LRU_SHARDS; i++) {
		spin_lock_init(&s->lru[i].lock);
		INIT_LIST_HEAD(&s->lru[i].list);
	}
	tmem_store_lru_shards(s, TMEM_LRU_SHARDS_PER_CPU *
			      roundup_pow_of_two(num_possible_cpus()));
	s->backend = backend ? backend : &tmem_backend_ram;
	tmem_store_set_max_pages(s, max);
	strscpy(s->name, name ? name : "", sizeof(s->name));
	s->stats = alloc_percpu(struct tmem_pcpu_stats);
	s->evict_cursor = alloc_percpu(unsigned int);
	if (!s->stats || !s->evict_cursor)
		goto fail;
	if (percpu_counter_init(&s->used, 0, GFP_KERNEL))
		goto fail;
	return s;
fail:
	free_percpu(s->evict_cursor);
	free_percpu(s->stats);
	kfree(s);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_create, TMEM);

/*
 * Destroy the pools of @s, or every pool if @s is NULL.  Process context:
 * one pool at a time, outside the RCU read section (a pool of a million
 * pages takes a while to free) and with a chance to reschedule in between.
 */
static void store_destroy_pools(struct tmem_store *s)
{
	struct tmem_pool *p;
	unsigned long id, start = 0;
	bool found;

	do {
		found = false;
		rcu_read_lock();
		xa_for_each_start(&tmem_pools, id, p, start) {
			if (!s || p->store == s) {
				found = true;
				break;
			}
		}
		rcu_read_unlock();
		if (found) {
			tmem_destroy_pool(id);
			start = id + 1;
			cond_resched();
		}
	} while (found);
}

void tmem_store_destroy(struct tmem_store *s)
{
	unsigned int i;

	might_sleep();
	if (IS_ERR_OR_NULL(s))
		return;
	if (s->shrinker)
		tmem_shrinker_destroy(s->shrinker);
	store_destroy_pools(s);
	tmem_drain();
	/* operations in flight on a pool of @s may still touch @s */
	synchronize_rcu();
	for (i = 0; i < TMEM_LRU_SHARDS; i++)
		WARN_ON_ONCE(s->lru[i].nr || !list_empty(&s->lru[i].list));
	WARN_ON_ONCE(percpu_counter_sum(&s->used));
	percpu_counter_destroy(&s->used);
	free_percpu(s->evict_cursor);
	free_percpu(s->stats);
	kfree(s);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_destroy, TMEM);

void tmem_store_stats(struct tmem_store *s, struct tmem_stats *st)
{
	stats_sum(s->stats, st);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_stats, TMEM);

void tmem_global_stats(struct tmem_stats *st)
{
	struct tmem_store *s = READ_ONCE(tmem_default);

	if (s)
		stats_sum(s->stats, st);
	else
		memset(st, 0, sizeof(*st));
}
EXPORT_SYMBOL_NS_GPL(tmem_global_stats, TMEM);

unsigned int tmem_store_persistent_fill(struct tmem_store *s, bool exact)
{
	unsigned long limit = tmem_store_max_pages(s);
	s64 used;

	if (!limit)
		return 100;
	used = exact ? percpu_counter_sum(&s->used) :
		       percpu_counter_read(&s->used);
	used -= store_lru_bytes(s);
	if (used <= 0)
		return 0;
	return div64_u64((u64)used * 100, (u64)limit << PAGE_SHIFT);
}
EXPORT_SYMBOL_NS_GPL(tmem_store_persistent_fill, TMEM);

unsigned int tmem_persistent_fill(bool exact)
{
	struct tmem_store *s = READ_ONCE(tmem_default);

	return s ? tmem_store_persistent_fill(s, exact) : 0;
}
EXPORT_SYMBOL_NS_GPL(tmem_persistent_fill, TMEM);

/* ---- debugfs ------------------------------------------------------------ */

static int stats_show(struct seq_file *m, void *v)
{
	struct tmem_store *s = tmem_default;
	struct tmem_stats st;
	u64 used;

	if (!s)
		return 0;
	used = s->backend->bytes_used();
	tmem_store_stats(s, &st);
	seq_printf(m, "backend %s\n", s->backend->name);
	seq_printf(m, "compressor %s\n", s->backend->compressor ?
		   s->backend->compressor(false) : "none");
	seq_printf(m, "precache_compressor %s\n", s->backend->compressor ?
		   s->backend->compressor(true) : "none");
	seq_printf(m, "max_pages %lu\n", tmem_store_max_pages(s));
	seq_printf(m, "pages %lld\n", st.pages);
	seq_printf(m, "bytes %lld\n", st.bytes);
	seq_printf(m, "same_filled %lld\n", st.same_filled);
	seq_printf(m, "ephemeral_pages %lu\n", store_lru_pages(s));
	seq_printf(m, "lru_shards %u\n", READ_ONCE(s->lru_shards));
	seq_printf(m, "puts %llu\n", st.puts);
	seq_printf(m, "puts_refused %llu\n", st.puts_refused);
	seq_printf(m, "refused_full %llu\n", st.refused_full);
	seq_printf(m, "refused_nomem %llu\n", st.refused_nomem);
	seq_printf(m, "refused_incompressible %llu\n",
		   st.refused_incompressible);
	seq_printf(m, "gets_hit %llu\n", st.gets_hit);
	seq_printf(m, "gets_miss %llu\n", st.gets_miss);
	seq_printf(m, "flush_pages %llu\n", st.flush_pages);
	seq_printf(m, "flush_objects %llu\n", st.flush_objects);
	seq_printf(m, "flush_ranges %llu\n", st.flush_ranges);
	seq_printf(m, "flushed %llu\n", st.flushed);
	seq_printf(m, "evicted %llu\n", st.evicted);
	seq_printf(m, "shrunk %llu\n", st.shrunk);
	/* the backend's own view, all stores together, overhead included */
	seq_printf(m, "backend_bytes %llu\n", used);
	/* pages stored per page of memory used, as x.yy */
	used += st.same_filled * TMEM_SAME_CHARGE;
	seq_printf(m, "compression_ratio_x100 %llu\n",
		   used ? div64_u64((u64)max(st.pages, 0LL) * PAGE_SIZE * 100,
				    used) : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int pools_show(struct seq_file *m, void *v)
{
	struct tmem_pool *p;
	struct tmem_stats st;
	unsigned long id;

	rcu_read_lock();
	xa_for_each(&tmem_pools, id, p) {
		stats_sum(p->stats, &st);
		seq_printf(m, "pool %lu kind %s store %s pages %lld bytes %lld same_filled %lld puts %llu puts_refused %llu refused_full %llu refused_nomem %llu refused_incompressible %llu gets_hit %llu gets_miss %llu flush_pages %llu flush_objects %llu flush_ranges %llu flushed %llu evicted %llu shrunk %llu name %s\n",
			   id, p->persistent ? "persistent" : "ephemeral",
			   p->store->name, st.pages, st.bytes, st.same_filled,
			   st.puts, st.puts_refused, st.refused_full,
			   st.refused_nomem, st.refused_incompressible,
			   st.gets_hit, st.gets_miss,
			   st.flush_pages, st.flush_objects, st.flush_ranges,
			   st.flushed,
			   st.evicted, st.shrunk, p->name);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pools);

/* ---- init / exit -------------------------------------------------------- */

int tmem_core_init(struct dentry *debugfs_root)
{
	struct tmem_store *s;
	int ret = -ENOMEM;

	const struct tmem_backend *be;

	if (!strcmp(backend, "compress")) {
		be = &tmem_backend_compress;
	} else if (!strcmp(backend, "ram")) {
		be = &tmem_backend_ram;
	} else {
		pr_err("backend=%s: unknown (compress or ram)\n", backend);
		return -EINVAL;
	}
	/* set up even under backend=ram: tests and the benchmark use it */
	ret = tmem_backend_compress_init();
	if (ret) {
		pr_err("compressing backend: cannot set it up (%d)\n", ret);
		return ret;
	}
	ret = -ENOMEM;
	tmem_obj_cache = KMEM_CACHE(tmem_obj, 0);
	tmem_entry_cache = KMEM_CACHE(tmem_entry, 0);
	if (!tmem_obj_cache || !tmem_entry_cache)
		goto fail;
	s = tmem_store_create("default", 0, be);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
		goto fail;
	}
	s->shrinker = tmem_shrinker_create(tmem_shrinker_count,
					   tmem_shrinker_scan, TMEM_SHRINK_SEEKS,
					   s, "tmem", NULL);
	if (!s->shrinker) {
		tmem_store_destroy(s);
		goto fail;
	}
	WRITE_ONCE(tmem_default, s);
	if (!IS_ERR_OR_NULL(debugfs_root)) {
		tmem_debugfs_stats = debugfs_create_file("stats", 0444,
							 debugfs_root, NULL,
							 &stats_fops);
		tmem_debugfs_pools = debugfs_create_file("pools", 0444,
							 debugfs_root, NULL,
							 &pools_fops);
	}
	if (s->backend->compressor)
		pr_info("core: limit %lu pages of memory, backend %s, compressor %s (precache %s)\n",
			tmem_store_max_pages(s), s->backend->name,
			s->backend->compressor(false),
			s->backend->compressor(true));
	else
		pr_info("core: limit %lu pages of memory, backend %s\n",
			tmem_store_max_pages(s), s->backend->name);
	return 0;
fail:
	kmem_cache_destroy(tmem_entry_cache);
	kmem_cache_destroy(tmem_obj_cache);
	tmem_entry_cache = NULL;
	tmem_obj_cache = NULL;
	tmem_backend_compress_exit();
	return ret;
}

void tmem_core_exit(void)
{
	struct tmem_store *s = tmem_default;

	debugfs_remove(tmem_debugfs_pools);
	debugfs_remove(tmem_debugfs_stats);
	tmem_debugfs_pools = NULL;
	tmem_debugfs_stats = NULL;
	WRITE_ONCE(tmem_default, NULL);
	/* pools of private stores should be gone with their stores */
	store_destroy_pools(NULL);
	tmem_store_destroy(s);
	rcu_barrier();		/* pool_free_rcu() is our code */
	kmem_cache_destroy(tmem_entry_cache);
	kmem_cache_destroy(tmem_obj_cache);
	tmem_entry_cache = NULL;
	tmem_obj_cache = NULL;
	tmem_backend_compress_exit();
}
