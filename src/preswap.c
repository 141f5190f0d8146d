// SPDX-License-Identifier: GPL-2.0
/*
 * preswap: a persistent store for pages on their way to a swap device.
 *
 * swap_writepage offers each page to preswap_put before the disk write. If
 * the store takes it, the slot's bit is set in the area's bitmap and the
 * write is skipped; otherwise the page goes to disk as without tmem. On
 * swap-in, a set bit means the data is in tmem: preswap_get copies it back.
 * The get is not destructive (a page may be read twice: shared by fork, or
 * dropped clean from the swap cache and read again, or read without the
 * swap cache on zram-like devices); the copy goes only when the kernel frees
 * the slot (preswap_flush_page) or at swapoff (preswap_flush_area).
 *
 * Handles: one private persistent pool for all areas. Swizzling as in the
 * seed: object = type << SWIZ_BITS | (offset & SWIZ_MASK), index = offset >>
 * SWIZ_BITS, so neighbouring slots spread over 2^SWIZ_BITS objects per area
 * and do not all serialise on one object.
 *
 * Never lose a page:
 * - a put over a slot already held drops the old copy and clears the bit
 *   before answering, whether the new put is stored or refused, so the disk
 *   write that follows a refusal can never be shadowed by older data;
 * - large folios (THP swap-out) are refused whole and their slots flushed;
 * - shrinking (vm.preswap = N) moves pages out one at a time with the
 *   kernel's tmem_preswap_writeback(): the page is read into the swap cache,
 *   and only then flushed from tmem and written to the swap device (at
 *   once, past the put hook), so it is always in memory, in tmem, or on
 *   disk. The slot is marked in the area's "moved" bitmap first, and a
 *   later put of that slot (reclaim writing the page again, after a failed
 *   write) is refused, so the page really goes to the swap device instead
 *   of coming straight back into preswap;
 * - a held page that cannot be read back (backend error, or the
 *   fail_preswap_get fault attribute) makes preswap_get return -EIO: the
 *   kernel fails that swap-in (SIGBUS) rather than read the never-written
 *   disk slot;
 * - writeback: when preswap's pages fill the store (see "Writeback" below)
 *   a worker moves the oldest out the same way, so the store keeps taking
 *   new pages instead of refusing them while the oldest stay forever;
 * - unload: every put that may store (preswap enabled) takes a module
 *   reference with try_module_get() for its duration, so once rmmod has
 *   begun (the module is GOING) no put is accepted, and pages already held
 *   pin the module (rmmod answers "in use"): swapoff, or vm.preswap = 0,
 *   empties it first. With preswap disabled a put takes none, so swap-outs
 *   arriving meanwhile do not make that rmmod fail.
 *
 * Memory cgroups. Where the kernel exports zswap's charge API (the patch
 * does, with CONFIG_ZSWAP and memcg kmem accounting: TMEM_CHARGE in
 * compat.h), each
 * stored page is charged to the memory cgroup that owned it, as zswap
 * charges its own: the bytes the page takes in the store count in the
 * cgroup's memory.current and in memory.stat's "zswap" and "zswapped"
 * lines, and are uncharged whenever the page leaves (freed slot, put over
 * it, swapoff, shrink, writeback). A put is refused (counted as refused by
 * "cgroup") when memory.zswap.max of the cgroup or an ancestor is reached
 * (memory.zswap.max = 0 keeps a cgroup out of preswap), or when what
 * preswap holds for the cgroup has reached cgroup_max_percent of the
 * lowest memory.max on its path: a charged store larger than the cgroup's
 * limit would leave it nothing to reclaim (an OOM kill), and a store shared
 * by every cgroup would let one of them fill it. With preswap_writeback
 * on, a memcg-aware shrinker also writes back a cgroup's oldest pages
 * under its own memory pressure (see preswap_memcg_lru). Writeback passes
 * over pages of cgroups with memory.zswap.writeback = 0 (6.8+). Pages of the
 * root cgroup, or with cgroup v1, are not charged. Per cgroup counts: the
 * debugfs file preswap_cgroups.
 *
 * Tunables:
 *   preswap_enabled (module parameter and sysctl vm.preswap_enabled):
 *       0 stops new puts (each is refused, dropping any old copy of the
 *       slot); stored pages are still served and flushed.
 *   vm.preswap: reading gives the pages held; writing N moves pages out
 *       until at most N are held. Invalid input is refused with -EINVAL.
 *   preswap_writeback (module parameter, default 0): write the oldest
 *       pages back to the swap device when the store is nearly full of
 *       preswap's pages; 0 lets the store fill up and refuse puts. Each
 *       page is read into the swap cache and written to the swap device at
 *       once (the patch's tmem_preswap_writeback()). Also turns on the
 *       memcg shrinker (see "Memory cgroups"). Off by default: on
 *       make bench's swap workload, which reads pages back in the order it
 *       wrote them, it costs more disk traffic than refusing (see README,
 *       Performance).
 *   accept_threshold_percent (module parameter, 1-99, default 90, as
 *       zswap's): writeback starts when preswap's pages take half-way from
 *       this to 100 percent of the store's limit (95 by default) and stops
 *       once they take at most this percentage. Puts are never refused in
 *       between: only a store at its limit refuses.
 *   cgroup_max_percent (module parameter, 1-100, default 50): the most a
 *       memory cgroup may hold in preswap, in percent of its memory.max
 *       (the lowest on its path to the root); no limit for a cgroup without
 *       one. Needs TMEM_CHARGE.
 *   /sys/kernel/debug/tmem/fail_preswap_put, fail_preswap_get: fault
 *       attributes that make puts fail (as if tmem were full) or gets of a
 *       held page fail (as if the backend could not read it back); tests
 *       only, need CONFIG_FAULT_INJECTION_DEBUG_FS.
 *
 * Locking: area bitmaps are set up under the kernel's swapon_mutex (init
 * and flush_area hooks) and read under RCU by put/get/flush; bits change
 * with atomic bitops while the swap slot's page is locked (put, get) or
 * under the swap_info lock (flush). preswap_shrink_mutex serialises shrinks
 * and writeback (the only setters of "moved" bits).
 *
 * Writeback. Each held slot records the generation it was stored in (a
 * byte per slot, area->age); a generation ends at every PRESWAP_GEN_PUTS-th
 * put a CPU makes, and preswap_gen_held counts (per CPU, summed when read)
 * the pages each generation still holds. The worker (preswap_wb_work, on an unbound WQ_MEM_RECLAIM workqueue) takes the
 * oldest generation that holds pages and moves its slots out, in slot
 * order, until the store is below the accept threshold: an LRU by
 * generations, with no allocation or lock per put. The generation counter
 * wraps at 256: it does not enter a generation that still holds pages, so
 * a generation then grows instead, and the order is only coarser. Puts kick
 * the worker (queue_work) when they see the store above the start mark or
 * are refused as full; it takes preswap_shrink_mutex with a trylock, so a
 * running vm.preswap shrink (which moves pages out itself) is left alone.
 * Unload waits for it (preswap_exit).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sched/mm.h>
#include <linux/pagemap.h>
#include <linux/vmalloc.h>
#include <linux/sysctl.h>
#include <linux/seq_file.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/tmem.h>

#include "hooks.h"
#include "tmem.h"
#include "compat.h"

#define SWIZ_BITS	8
#define SWIZ_MASK	((1UL << SWIZ_BITS) - 1)
/* passes over all areas in one shrink, while each makes progress */
#define PRESWAP_SHRINK_PASSES	4
/* puts per writeback generation; generations are a byte (see top) */
#define PRESWAP_GEN_PUTS	512
#define PRESWAP_GENS		256
/* pages moved out between two looks at how full the store is */
#define PRESWAP_WB_BATCH	32
/* held slots passed over (younger generations) per RCU read section */
#define PRESWAP_WB_SCAN		4096

struct preswap_area {
	unsigned long *map;		/* bit per slot: data is in tmem */
	unsigned long *moved;		/* bit per slot: shrink moved it out */
	u8 *age;			/* per slot: generation of its put */
#ifdef TMEM_CHARGE
	/*
	 * Per held slot: the cgroup charged (a reference, NULL if none), the
	 * bytes charged and the memcg id counted in preswap_memcgs. Written
	 * before the slot's bit is set, read after it is cleared.
	 */
	struct obj_cgroup **objcg;
	u16 *charged;
	u16 *memcg_id;
#endif
	unsigned long pages;		/* slots in the area */
	atomic_long_t held;		/* bits set */
	/* deliberately racy counters: statistics only */
	unsigned long puts, put_refused, gets, get_misses, flushes, moved_out;
	unsigned long written_back;	/* moved out by writeback */
	unsigned long written_back_memcg;	/* by the memcg shrinker */
	struct rcu_head rcu;
};

static struct preswap_area __rcu *preswap_areas[MAX_SWAPFILES];
static int preswap_pool = -1;
static bool preswap_enabled = true;
static atomic_long_t preswap_held;	/* pages held, all areas */
static DEFINE_MUTEX(preswap_shrink_mutex);
static bool preswap_shrinking;
/* shrinks waiting for the mutex: writeback gives way to them */
static atomic_t preswap_shrink_waiters;
/* puts refused because the module was being unloaded (see preswap_exit) */
static atomic_long_t preswap_refused_unloading;

#ifdef TMEM_CHARGE
/*
 * What preswap holds for one memory cgroup, in preswap_memcgs by memcg id.
 * The id stays the cgroup's while any of its pages is swapped out (the
 * swap entry holds it), so it names the same cgroup for every page counted.
 * Entries are created by the first put of a cgroup (xa_cmpxchg) and freed
 * at unload; counters are atomics, except the racy statistics.
 */
struct preswap_memcg {
	atomic_long_t pages;
	atomic_long_t bytes;
	unsigned long ino;		/* of the cgroup's directory; racy */
	unsigned long refused;		/* puts refused for the cgroup; racy */
	unsigned long written_back;	/* by the memcg shrinker; racy */
	atomic_long_t wb_wanted;	/* pages the shrinker asked for */
	struct list_head lru;		/* on preswap_memcg_lru, see below */
	unsigned short id;		/* its key */
};
static DEFINE_XARRAY(preswap_memcgs);

/*
 * The memcg-aware shrinker: under a cgroup's memory pressure (its own
 * reclaim, at memory.high or memory.max, or kswapd's) it has that cgroup's
 * oldest preswap pages written back, when preswap_writeback is on. Not in
 * the shrinker itself: a reclaim inside a swap-in holds that slot's
 * SWAP_HAS_CACHE before its folio is in the swap cache, and reading the
 * slot back from there would wait on itself for ever (the zswap deadlock
 * 6.12 avoids with skip_if_exists, which 6.1 lacks). The shrinker adds
 * what it was asked to scan to the cgroup's wb_wanted and queues
 * preswap_memcg_wb_work, which writes back on the writeback workqueue. The
 * worker's reads are charged to the cgroup beyond its limit (PF_MEMALLOC in
 * preswap_move_out(), as in zswap's shrinker, which runs in reclaim): each
 * page is written out at once and leaves memory, so the cgroup ends up
 * lighter. The kernel calls a
 * memcg-aware shrinker for a cgroup only once the cgroup's bit is set for
 * it, and from a module only list_lru_add() sets it. So each
 * preswap_memcg is allocated from an accounted cache for its cgroup
 * (kmem_cache_alloc_lru() under set_active_memcg(), which also makes the
 * list's part for that cgroup) and sits on preswap_memcg_lru from the
 * cgroup's first put until unload. The list is never walked: count and
 * scan look the cgroup up by id. The cgroup's part of the list moves to
 * its parent when the cgroup is deleted, as every list_lru's does, and a
 * new cgroup that gets a deleted one's id keeps the old entry (on the old
 * cgroup's list): such a cgroup is shrunk only by the store's writeback.
 */
static struct list_lru preswap_memcg_lru;
static struct kmem_cache *preswap_memcg_cache;
static struct shrinker *preswap_memcg_shrinker;
/* preswap_writeback_memcg()'s census of ages; under preswap_shrink_mutex */
static unsigned long preswap_memcg_ages[PRESWAP_GENS];
static void preswap_memcg_wb_workfn(struct work_struct *work);
static DECLARE_WORK(preswap_memcg_wb_work, preswap_memcg_wb_workfn);
#endif
static unsigned int cgroup_max_percent = 50;
/* puts refused by memory.zswap.max or cgroup_max_percent */
static atomic_long_t preswap_refused_cgroup;

/* writeback (see top) */
static bool preswap_writeback;
static unsigned int accept_threshold_percent = 90;
static unsigned int preswap_gen;		/* current generation; racy */
/*
 * Per CPU, so that a put touches no shared cache line for them: the puts
 * this CPU made (a generation ends at each PRESWAP_GEN_PUTS-th), and the
 * pages each generation holds, counted up on the CPU that stores and down
 * on the one that drops; only their sum over every CPU means anything.
 */
static DEFINE_PER_CPU(unsigned int, preswap_gen_puts);
struct preswap_gen_counts {
	long held[PRESWAP_GENS];
};
static DEFINE_PER_CPU(struct preswap_gen_counts, preswap_gen_held);
static struct workqueue_struct *preswap_wb_wq;
static void preswap_wb_workfn(struct work_struct *work);
static DECLARE_WORK(preswap_wb_work, preswap_wb_workfn);

/* Percent of the store's limit at which writeback starts (see top). */
static unsigned int preswap_wb_start(void)
{
	unsigned int accept = READ_ONCE(accept_threshold_percent);

	return accept + (100 - accept) / 2;
}

/* Pages generation @gen holds now: a racy sum, for decisions only. */
static long preswap_gen_count(unsigned int gen)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(preswap_gen_held, cpu).held[gen];
	return n;
}

static inline u64 preswap_object(unsigned int type, pgoff_t offset)
{
	return (u64)type << SWIZ_BITS | (offset & SWIZ_MASK);
}

static inline u32 preswap_index(pgoff_t offset)
{
	return offset >> SWIZ_BITS;
}

/*
 * The module stays loaded while it holds a page (see top of file). Caller
 * holds a module reference (the put's), so the module is not being unloaded
 * and __module_get() is safe.
 */
static void preswap_held_inc(struct preswap_area *area)
{
	atomic_long_inc(&area->held);
	if (atomic_long_inc_return(&preswap_held) == 1)
		__module_get(THIS_MODULE);
}

static void preswap_held_dec(struct preswap_area *area)
{
	atomic_long_dec(&area->held);
	if (atomic_long_dec_and_test(&preswap_held))
		module_put(THIS_MODULE);
}

/*
 * Slot @offset is now held: record its generation, then set its bit (a
 * dropper that clears the bit reads the age after). Ends the generation
 * every PRESWAP_GEN_PUTS puts, unless the next one still holds pages.
 * Caller holds rcu_read_lock() and owns the slot (its page is locked).
 */
static void preswap_hold(struct preswap_area *area, pgoff_t offset)
{
	unsigned int gen = READ_ONCE(preswap_gen), next;

	area->age[offset] = gen;
	this_cpu_inc(preswap_gen_held.held[gen]);
	/* the age is visible before the bit: preswap_drop() reads it after */
	smp_mb__before_atomic();
	set_bit(offset, area->map);
	preswap_held_inc(area);
	if (this_cpu_inc_return(preswap_gen_puts) % PRESWAP_GEN_PUTS == 0) {
		next = (gen + 1) % PRESWAP_GENS;
		if (preswap_gen_count(next) <= 0)
			WRITE_ONCE(preswap_gen, next);
	}
}

#ifdef TMEM_CHARGE
/*
 * Uncharge slot @offset, whose bit the caller just cleared. Any context
 * (the slot-free hook runs under the swap area's spinlock): the uncharge
 * does not sleep, as zswap's does not in the same place.
 */
static void preswap_uncharge(struct preswap_area *area, pgoff_t offset)
{
	struct obj_cgroup *objcg = area->objcg[offset];
	struct preswap_memcg *pm;

	if (!objcg)
		return;
	area->objcg[offset] = NULL;
	pm = xa_load(&preswap_memcgs, area->memcg_id[offset]);
	if (pm) {
		atomic_long_dec(&pm->pages);
		atomic_long_sub(area->charged[offset], &pm->bytes);
	}
	obj_cgroup_uncharge_zswap(objcg, area->charged[offset]);
	obj_cgroup_put(objcg);
}

/* The lowest memory.max on @memcg's path to the root, in pages. RCU held. */
static unsigned long preswap_memcg_limit(struct mem_cgroup *memcg)
{
	unsigned long limit = PAGE_COUNTER_MAX;

	/* (the root's is PAGE_COUNTER_MAX: no limit) */
	for (; memcg; memcg = parent_mem_cgroup(memcg))
		limit = min(limit, READ_ONCE(memcg->memory.max));
	return limit;
}

/*
 * A new preswap_memcg for cgroup id @id, charged to @objcg's cgroup and
 * with that cgroup's part of preswap_memcg_lru made (see above). Never
 * sleeps. NULL if there is no memory.
 */
static struct preswap_memcg *preswap_memcg_alloc(struct obj_cgroup *objcg,
						 unsigned short id)
{
	struct mem_cgroup *old_memcg;
	struct preswap_memcg *pm;

	rcu_read_lock();
	old_memcg = set_active_memcg(obj_cgroup_memcg(objcg));
	pm = kmem_cache_alloc_lru(preswap_memcg_cache, &preswap_memcg_lru,
				  GFP_NOWAIT | __GFP_NOWARN | __GFP_ZERO);
	set_active_memcg(old_memcg);
	rcu_read_unlock();
	if (pm) {
		pm->id = id;
		INIT_LIST_HEAD(&pm->lru);
	}
	return pm;
}

/*
 * May @page, about to be put, be stored for its memory cgroup? Returns 0
 * with *@objcgp (a reference, or NULL: not charged) and *@pmp, or
 * -ENOSPC (refused for the cgroup) or -ENOMEM. May sleep briefly (the
 * zswap.max check flushes the cgroup's statistics), as zswap's store does.
 */
static int preswap_memcg_admit(struct page *page, struct obj_cgroup **objcgp,
			       struct preswap_memcg **pmp)
{
	struct obj_cgroup *objcg = tmem_page_objcg(page);
	struct preswap_memcg *pm, *old;
	unsigned long limit, ino;
	struct mem_cgroup *memcg;
	unsigned short id;

	*objcgp = NULL;
	*pmp = NULL;
	if (!objcg)
		return 0;
	if (!obj_cgroup_may_zswap(objcg))
		goto refused;
	rcu_read_lock();
	memcg = obj_cgroup_memcg(objcg);
	id = mem_cgroup_id(memcg);
	ino = cgroup_ino(memcg->css.cgroup);
	limit = preswap_memcg_limit(memcg);
	rcu_read_unlock();
	pm = xa_load(&preswap_memcgs, id);
	if (!pm) {
		pm = preswap_memcg_alloc(objcg, id);
		if (!pm) {
			obj_cgroup_put(objcg);
			return -ENOMEM;
		}
		old = xa_cmpxchg(&preswap_memcgs, id, NULL, pm,
				 GFP_NOWAIT | __GFP_NOWARN);
		if (old) {	/* another put's, or no memory for the node */
			kmem_cache_free(preswap_memcg_cache, pm);
			pm = xa_is_err(old) ? NULL : old;
		} else {
			tmem_list_lru_add_obj(&preswap_memcg_lru, &pm->lru);
		}
		if (!pm) {
			obj_cgroup_put(objcg);
			return -ENOMEM;
		}
	}
	if (!atomic_long_read(&pm->pages))
		WRITE_ONCE(pm->ino, ino);	/* a reused id: the new cgroup */
	if (limit != PAGE_COUNTER_MAX &&
	    atomic_long_read(&pm->bytes) >=
	    (s64)(limit / 100 * READ_ONCE(cgroup_max_percent)) * PAGE_SIZE) {
		pm->refused++;
		goto refused;
	}
	*objcgp = objcg;
	*pmp = pm;
	return 0;
refused:
	atomic_long_inc(&preswap_refused_cgroup);
	obj_cgroup_put(objcg);
	return -ENOSPC;
}

/*
 * Record the charge of slot @offset, just stored with @size bytes, before
 * its bit is set (preswap_hold). Caller owns the slot (page locked).
 * Returns the bytes to charge.
 */
static unsigned int preswap_memcg_record(struct preswap_area *area, pgoff_t offset,
				 struct obj_cgroup *objcg,
				 struct preswap_memcg *pm, unsigned int size)
{
	u16 charged = min_t(unsigned int, size, U16_MAX);

	area->objcg[offset] = objcg;
	area->charged[offset] = charged;
	area->memcg_id[offset] = pm->id;
	atomic_long_inc(&pm->pages);
	atomic_long_add(charged, &pm->bytes);
	return charged;
}

#else
static inline void preswap_uncharge(struct preswap_area *area,
				    pgoff_t offset)
{
}
#endif

/* Drop slot @offset if held. Caller holds rcu_read_lock(). */
static void preswap_drop(struct preswap_area *area, unsigned int type,
			 pgoff_t offset)
{
	if (test_and_clear_bit(offset, area->map)) {
		tmem_flush_page(preswap_pool, preswap_object(type, offset),
				preswap_index(offset));
		this_cpu_dec(preswap_gen_held.held[area->age[offset]]);
		preswap_uncharge(area, offset);
		preswap_held_dec(area);
	}
}

static void preswap_free_area(struct preswap_area *area)
{
	kvfree(area->map);
	kvfree(area->moved);
	kvfree(area->age);
#ifdef TMEM_CHARGE
	kvfree(area->objcg);
	kvfree(area->charged);
	kvfree(area->memcg_id);
#endif
	kfree(area);
}

int preswap_init_area(unsigned int type, unsigned long pages)
{
	struct preswap_area *area, *old;

	if (type >= MAX_SWAPFILES)
		return -EINVAL;
	/* swapon and registration run this under swapon_mutex: may sleep */
	old = rcu_dereference_protected(preswap_areas[type], true);
	if (old && old->pages == pages)
		return 0;	/* registration raced with swapon: same area */
	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return -ENOMEM;
	area->map = kvcalloc(BITS_TO_LONGS(pages), sizeof(long), GFP_KERNEL);
	area->moved = kvcalloc(BITS_TO_LONGS(pages), sizeof(long), GFP_KERNEL);
	area->age = kvmalloc(pages, GFP_KERNEL);
#ifdef TMEM_CHARGE
	area->objcg = kvcalloc(pages, sizeof(*area->objcg), GFP_KERNEL);
	area->charged = kvcalloc(pages, sizeof(*area->charged), GFP_KERNEL);
	area->memcg_id = kvcalloc(pages, sizeof(*area->memcg_id), GFP_KERNEL);
	if (!area->objcg || !area->charged || !area->memcg_id) {
		preswap_free_area(area);
		return -ENOMEM;
	}
#endif
	if (!area->map || !area->moved || !area->age) {
		preswap_free_area(area);
		return -ENOMEM;
	}
	area->pages = pages;
	rcu_assign_pointer(preswap_areas[type], area);
	if (old) {
		synchronize_rcu();
		preswap_free_area(old);
	}
	return 0;
}

/*
 * Fault injection for tests: on kernels with CONFIG_FAULT_INJECTION_DEBUG_FS
 * the standard fault attribute in /sys/kernel/debug/tmem/fail_preswap_put
 * (probability, interval, times, ...) makes the store step of a put fail
 * with -ENOSPC, as if tmem were full, and fail_preswap_get makes the get of
 * a held page fail as if the backend could not read it (-EIO to the
 * kernel). Off (probability 0) by default; they log nothing (verbose 0).
 * Elsewhere they compile away.
 */
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(preswap_fail_put);
static DECLARE_FAULT_ATTR(preswap_fail_get);

static bool preswap_inject_failure(void)
{
	return should_fail(&preswap_fail_put, PAGE_SIZE);
}

static bool preswap_inject_get_failure(void)
{
	return should_fail(&preswap_fail_get, PAGE_SIZE);
}

static void preswap_fault_init(struct dentry *debugfs_root)
{
	preswap_fail_put.verbose = 0;
	preswap_fail_get.verbose = 0;
	fault_create_debugfs_attr("fail_preswap_put", debugfs_root,
				  &preswap_fail_put);
	fault_create_debugfs_attr("fail_preswap_get", debugfs_root,
				  &preswap_fail_get);
}
#else
static bool preswap_inject_failure(void)
{
	return false;
}

static bool preswap_inject_get_failure(void)
{
	return false;
}

static void preswap_fault_init(struct dentry *debugfs_root)
{
}
#endif

/*
 * The store step of a put; *@size: the bytes it takes. Caller holds
 * rcu_read_lock (area in use).
 */
static int preswap_store(unsigned int type, pgoff_t offset, struct page *page,
			 unsigned int *size)
{
	if (preswap_inject_failure())
		return -ENOSPC;
	return tmem_put_page_sized(preswap_pool, preswap_object(type, offset),
				   preswap_index(offset), page, size);
}

int preswap_put(struct page *page)
{
	swp_entry_t entry = tmem_page_swap_entry(page);
	unsigned int type = swp_type(entry);
	pgoff_t offset = swp_offset(entry);
	long i, nr = compound_nr(page);
#ifdef TMEM_CHARGE
	struct obj_cgroup *objcg = NULL, *charge = NULL;
	struct preswap_memcg *pm = NULL;
#endif
	struct preswap_area *area;
	bool enabled, ref, moved;
	unsigned int size = 0;
	int ret = -ENOSPC, admit = 0;

	if (type >= MAX_SWAPFILES)
		return -EINVAL;
	/*
	 * A module reference, held for the put: it fails once rmmod has
	 * begun, so a page stored here can never be freed with the module
	 * (see preswap_held_inc()). Only a put that may store takes it: with
	 * preswap disabled (as the packaged unload does first) a put only
	 * drops the slot's old copy, which the hook's SRCU section already
	 * makes safe, so a stream of swap-outs does not keep rmmod failing
	 * with "in use".
	 */
	enabled = READ_ONCE(preswap_enabled);
	ref = enabled && try_module_get(THIS_MODULE);
#ifdef TMEM_CHARGE
	/* may sleep briefly: before the RCU section */
	if (ref && nr == 1)
		admit = preswap_memcg_admit(page, &objcg, &pm);
#endif
	rcu_read_lock();
	area = rcu_dereference(preswap_areas[type]);
	if (!area || offset + nr > area->pages)
		goto out;
	/* whatever happens below, no older copy of these slots survives */
	for (i = 0; i < nr; i++)
		preswap_drop(area, type, offset + i);
	if (enabled && !ref)
		atomic_long_inc(&preswap_refused_unloading);
	/* a page the shrink moved out goes to the swap device this time */
	moved = test_bit(offset, area->moved) &&	/* no atomic write if clear */
		test_and_clear_bit(offset, area->moved);
	if (!ref || moved || nr > 1 || !READ_ONCE(preswap_enabled) ||
	    READ_ONCE(preswap_shrinking) || preswap_pool < 0 || admit) {
		area->put_refused++;
		goto out;
	}
	ret = preswap_store(type, offset, page, &size);
	if (ret) {
		area->put_refused++;
		goto out;
	}
#ifdef TMEM_CHARGE
	if (objcg) {	/* the slot takes the reference; charged below */
		size = preswap_memcg_record(area, offset, objcg, pm, size);
		charge = objcg;
		objcg = NULL;
	}
#endif
	preswap_hold(area, offset);
	area->puts++;
out:
	rcu_read_unlock();
#ifdef TMEM_CHARGE
	if (objcg)	/* admitted, not stored */
		obj_cgroup_put(objcg);
	if (charge) {
		/*
		 * Charge the stored page. The slot cannot be dropped (hence
		 * uncharged) meanwhile: its page is locked in the swap cache,
		 * so neither a free, a writeback nor swapoff can reach it.
		 * PF_MEMALLOC as zswap: the charge is forced, never reclaims.
		 */
		unsigned int noreclaim = memalloc_noreclaim_save();

		obj_cgroup_charge_zswap(charge, size);
		memalloc_noreclaim_restore(noreclaim);
	}
#endif
	if (ref && READ_ONCE(preswap_writeback) &&
	    !work_pending(&preswap_wb_work) &&
	    (ret == -ENOSPC ||
	     tmem_persistent_fill(false) >= preswap_wb_start()))
		queue_work(preswap_wb_wq, &preswap_wb_work);
	if (ref)
		module_put(THIS_MODULE);
	return ret;
}

int preswap_get(struct page *page)
{
	swp_entry_t entry = tmem_page_swap_entry(page);
	unsigned int type = swp_type(entry);
	pgoff_t offset = swp_offset(entry);
	struct preswap_area *area;
	int ret = -ENOENT;

	if (type >= MAX_SWAPFILES || PageCompound(page))
		return -EINVAL;
	rcu_read_lock();
	area = rcu_dereference(preswap_areas[type]);
	if (!area || offset >= area->pages || !test_bit(offset, area->map))
		goto out;
	if (preswap_inject_get_failure())
		ret = -EIO;
	else
		ret = tmem_get_page(preswap_pool, preswap_object(type, offset),
				    preswap_index(offset), page);
	if (ret) {
		/*
		 * A persistent page never vanishes: this is data loss. -EIO
		 * tells the kernel to fail the swap-in rather than read the
		 * disk slot, which was never written.
		 */
		pr_err_ratelimited("swap slot %u:%lu held but not readable (%d)\n",
				   type, offset, ret);
		area->get_misses++;
		ret = -EIO;
	} else {
		area->gets++;
	}
out:
	rcu_read_unlock();
	return ret;
}

int preswap_flush_page(unsigned int type, pgoff_t offset)
{
	struct preswap_area *area;

	if (type >= MAX_SWAPFILES)
		return -EINVAL;
	rcu_read_lock();
	area = rcu_dereference(preswap_areas[type]);
	if (area && offset < area->pages) {
		/*
		 * A held slot is dropped (slot freed, or the shrink's writeback
		 * flushing its copy: its "moved" bit must stay for the next
		 * put). A slot not held that is flushed is being freed: a page
		 * stored there next is a new one.
		 */
		if (test_bit(offset, area->map)) {
			preswap_drop(area, type, offset);
			area->flushes++;
		} else {
			clear_bit(offset, area->moved);
		}
	}
	rcu_read_unlock();
	return 0;
}

int preswap_flush_area(unsigned int type)
{
	struct preswap_area *area;
	unsigned long offset;

	if (type >= MAX_SWAPFILES)
		return -EINVAL;
	/* swapoff: under swapon_mutex, every page already back in memory */
	area = rcu_dereference_protected(preswap_areas[type], true);
	if (!area)
		return 0;
	rcu_assign_pointer(preswap_areas[type], NULL);
	synchronize_rcu();
	for_each_set_bit(offset, area->map, area->pages) {
		tmem_flush_page(preswap_pool, preswap_object(type, offset),
				preswap_index(offset));
		clear_bit(offset, area->map);
		this_cpu_dec(preswap_gen_held.held[area->age[offset]]);
		preswap_uncharge(area, offset);
		preswap_held_dec(area);
	}
	preswap_free_area(area);
	return 0;
}

/*
 * Move the page of slot @offset of area @type out of tmem: mark the slot
 * "moved" (a later put of it is refused, so the page goes to the swap
 * device), then tmem_preswap_writeback(), which writes it there. Counted
 * by @why: moved out by a shrink, or written back. Caller holds
 * preswap_shrink_mutex and found the slot held under rcu_read_lock(), which
 * it holds; it is dropped meanwhile and held again on return. Returns
 * tmem_preswap_writeback()'s result: 0 moved, -EAGAIN/-ENOMEM slot busy or
 * no memory (try later).
 */
enum preswap_move {
	PRESWAP_MOVE_SHRINK,		/* vm.preswap */
	PRESWAP_MOVE_LIMIT,		/* writeback: the store nearly full */
	PRESWAP_MOVE_MEMCG,		/* writeback: the memcg shrinker */
};

static int preswap_move_out(struct preswap_area *area, unsigned int type,
			    unsigned long offset, enum preswap_move why)
	__must_hold(RCU)
{
	unsigned int noreclaim;
	int err;

	set_bit(offset, area->moved);
	rcu_read_unlock();
	/*
	 * As reclaim itself (and zswap's writeback in it): the page read
	 * back may use the reserves and is charged to its cgroup even over
	 * the limit; it is written out and freed at once. Without this its
	 * allocation (__GFP_NORETRY in the patch) fails under the machine's
	 * memory pressure, with a warning in the log.
	 */
	noreclaim = memalloc_noreclaim_save();
	err = tmem_preswap_writeback(type, offset);
	memalloc_noreclaim_restore(noreclaim);
	rcu_read_lock();
	area = rcu_dereference(preswap_areas[type]);
	if (area && !err) {
		if (why == PRESWAP_MOVE_LIMIT)
			area->written_back++;
		else if (why == PRESWAP_MOVE_MEMCG)
			area->written_back_memcg++;
		else
			area->moved_out++;
	} else if (area) {	/* still held: its next put is normal */
		clear_bit(offset, area->moved);
	}
	return err;
}

/*
 * One pass over every area: move held pages out, lowest slot first, until at
 * most @target are held. Caller holds preswap_shrink_mutex. Returns 0, or
 * the error that stopped the pass (-EINTR on a fatal signal).
 */
static int preswap_shrink_pass(unsigned long target)
{
	unsigned int type;
	int err = 0;

	for (type = 0; type < MAX_SWAPFILES; type++) {
		struct preswap_area *area;
		unsigned long offset = 0;

		while (atomic_long_read(&preswap_held) > target) {
			rcu_read_lock();
			area = rcu_dereference(preswap_areas[type]);
			if (area)
				offset = find_next_bit(area->map, area->pages,
						       offset);
			if (!area || offset >= area->pages) {
				rcu_read_unlock();
				break;
			}
			err = preswap_move_out(area, type, offset,
					       PRESWAP_MOVE_SHRINK);
			rcu_read_unlock();
			if (err && err != -EAGAIN && err != -ENOMEM)
				return err;
			offset++;
			cond_resched();
			if (fatal_signal_pending(current))
				return -EINTR;
		}
	}
	return err;
}

/*
 * Move pages out of tmem until at most @target are held. Each page is read
 * back into the swap cache before its tmem copy goes, then written to the
 * swap device (see tmem_preswap_writeback() in the kernel patch), so no
 * data is lost. New puts are refused meanwhile. A
 * slot that was busy in one pass is tried again in the next, as long as
 * passes make progress.
 */
static int preswap_shrink(unsigned long target)
{
	unsigned long before;
	unsigned int pass;
	int err = 0;

	atomic_inc(&preswap_shrink_waiters);
	mutex_lock(&preswap_shrink_mutex);
	atomic_dec(&preswap_shrink_waiters);
	WRITE_ONCE(preswap_shrinking, true);
	for (pass = 0; pass < PRESWAP_SHRINK_PASSES; pass++) {
		before = atomic_long_read(&preswap_held);
		if (before <= target)
			break;
		err = preswap_shrink_pass(target);
		if (err == -EINTR ||
		    atomic_long_read(&preswap_held) >= before)
			break;
	}
	WRITE_ONCE(preswap_shrinking, false);
	mutex_unlock(&preswap_shrink_mutex);
	if (atomic_long_read(&preswap_held) > target)
		return err ? err : -EBUSY;
	return 0;
}

/* The oldest generation that holds pages, or -1 if none does. */
static int preswap_oldest_gen(void)
{
	unsigned int cur = READ_ONCE(preswap_gen), i, g;

	for (i = 1; i <= PRESWAP_GENS; i++) {
		g = (cur + i) % PRESWAP_GENS;
		if (preswap_gen_count(g) > 0)
			return g;
	}
	return -1;
}

/*
 * Writeback leaves alone a page whose cgroup set memory.zswap.writeback to
 * 0 (6.8+). Caller holds rcu_read_lock() and found the slot held.
 */
static bool preswap_slot_may_writeback(struct preswap_area *area,
				       unsigned long offset)
{
#ifdef TMEM_CHARGE
	struct obj_cgroup *objcg = READ_ONCE(area->objcg[offset]);

	if (objcg && !tmem_memcg_may_writeback(obj_cgroup_memcg(objcg)))
		return false;
#endif
	return true;
}

/*
 * Write back held slots of generation @gen, every area in slot order, until
 * the store is at most @stop percent full of persistent pages. Caller holds
 * preswap_shrink_mutex. Returns the number of pages moved out.
 */
static unsigned long preswap_writeback_gen(unsigned int gen, unsigned int stop)
{
	unsigned long moved = 0, seen = 0, offset;
	struct preswap_area *area;
	unsigned int type;

	for (type = 0; type < MAX_SWAPFILES; type++) {
		offset = 0;
		rcu_read_lock();
		while ((area = rcu_dereference(preswap_areas[type]))) {
			offset = find_next_bit(area->map, area->pages, offset);
			if (offset >= area->pages)
				break;
			if (READ_ONCE(area->age[offset]) == gen &&
			    preswap_slot_may_writeback(area, offset) &&
			    !preswap_move_out(area, type, offset,
					      PRESWAP_MOVE_LIMIT) &&
			    ++moved % PRESWAP_WB_BATCH == 0) {
				rcu_read_unlock();
				if (tmem_persistent_fill(true) <= stop ||
				    !READ_ONCE(preswap_writeback) ||
				    atomic_read(&preswap_shrink_waiters))
					return moved;
				cond_resched();
				rcu_read_lock();
			} else if (++seen % PRESWAP_WB_SCAN == 0) {
				/* a long walk past younger slots: let others run */
				rcu_read_unlock();
				cond_resched();
				rcu_read_lock();
			}
			offset++;
		}
		rcu_read_unlock();
	}
	return moved;
}

/*
 * The writeback worker: oldest generation first, until the store is at
 * most accept_threshold_percent full of persistent pages, or no page could
 * be moved (all busy: the next put that sees the store full kicks it again),
 * or a vm.preswap shrink waits for the mutex (it moves pages out itself).
 */
static void preswap_wb_workfn(struct work_struct *work)
{
	unsigned int stop = READ_ONCE(accept_threshold_percent);
	int gen;

	if (!mutex_trylock(&preswap_shrink_mutex))
		return;
	while (READ_ONCE(preswap_writeback) &&
	       !atomic_read(&preswap_shrink_waiters) &&
	       tmem_persistent_fill(true) > stop) {
		gen = preswap_oldest_gen();
		if (gen < 0 || !preswap_writeback_gen(gen, stop))
			break;
		cond_resched();
	}
	mutex_unlock(&preswap_shrink_mutex);
}

#ifdef TMEM_CHARGE
/* Does slot @offset of @area hold a page of cgroup @pm? RCU held. */
static bool preswap_slot_of(struct preswap_area *area, unsigned long offset,
			    struct preswap_memcg *pm)
{
	return READ_ONCE(area->objcg[offset]) &&
	       READ_ONCE(area->memcg_id[offset]) == pm->id;
}

/*
 * Write back up to @nr pages of cgroup @pm, the oldest first: a first walk
 * over the held slots counts the cgroup's pages by age (generations since
 * their put), a second moves out those at least as old as the youngest of
 * the @nr oldest. Caller holds preswap_shrink_mutex. Returns pages moved.
 */
static unsigned long preswap_writeback_memcg(struct preswap_memcg *pm,
					     unsigned long nr)
{
	unsigned int cur = READ_ONCE(preswap_gen), type, age, min_age;
	unsigned long moved = 0, seen = 0, sum = 0, offset;
	struct preswap_area *area;
	int pass;

	memset(preswap_memcg_ages, 0, sizeof(preswap_memcg_ages));
	min_age = 0;
	for (pass = 0; pass < 2; pass++) {
		for (type = 0; type < MAX_SWAPFILES && moved < nr; type++) {
			offset = 0;
			rcu_read_lock();
			while (moved < nr &&
			       (area = rcu_dereference(preswap_areas[type]))) {
				offset = find_next_bit(area->map, area->pages,
						       offset);
				if (offset >= area->pages)
					break;
				age = (cur - READ_ONCE(area->age[offset])) %
				      PRESWAP_GENS;
				if (!preswap_slot_of(area, offset, pm)) {
					/* not the cgroup's */
				} else if (!pass) {
					preswap_memcg_ages[age]++;
				} else if (age >= min_age &&
					   !preswap_move_out(area, type, offset,
							     PRESWAP_MOVE_MEMCG)) {
					moved++;
				}
				if (++seen % PRESWAP_WB_SCAN == 0) {
					rcu_read_unlock();
					cond_resched();
					rcu_read_lock();
				}
				offset++;
			}
			rcu_read_unlock();
		}
		if (pass)
			break;
		for (min_age = PRESWAP_GENS - 1; min_age > 0; min_age--) {
			sum += preswap_memcg_ages[min_age];
			if (sum >= nr)
				break;
		}
	}
	return moved;
}

/*
 * What the memcg shrinker may free for sc->memcg: the memory its preswap
 * pages take, in pages; 0 (not SHRINK_EMPTY, which would clear the
 * cgroup's bit for good) when there is nothing or writeback is off or
 * refused by the cgroup (memory.zswap.writeback = 0).
 */
static unsigned long preswap_memcg_count(struct shrinker *sh,
					 struct shrink_control *sc)
{
	struct preswap_memcg *pm;
	bool may;

	if (!sc->memcg || !READ_ONCE(preswap_writeback))
		return 0;
	rcu_read_lock();
	may = tmem_memcg_may_writeback(sc->memcg);
	rcu_read_unlock();
	pm = may ? xa_load(&preswap_memcgs, mem_cgroup_id(sc->memcg)) : NULL;
	return pm ? DIV_ROUND_UP(atomic_long_read(&pm->bytes), PAGE_SIZE) : 0;
}

/*
 * Ask for sc->nr_to_scan of the cgroup's oldest preswap pages to be written
 * back (at most what it holds), by preswap_memcg_wb_work. Frees nothing
 * itself, so it says 0. Not for a reclaim that may not start I/O.
 */
static unsigned long preswap_memcg_scan(struct shrinker *sh,
					struct shrink_control *sc)
{
	struct preswap_memcg *pm;
	long held;

	if (!sc->memcg || !(sc->gfp_mask & __GFP_IO) ||
	    !READ_ONCE(preswap_writeback))
		return SHRINK_STOP;
	pm = xa_load(&preswap_memcgs, mem_cgroup_id(sc->memcg));
	if (!pm)
		return SHRINK_STOP;
	held = atomic_long_read(&pm->pages);
	if (atomic_long_add_return(sc->nr_to_scan, &pm->wb_wanted) > held)
		atomic_long_set(&pm->wb_wanted, held);
	if (!work_pending(&preswap_memcg_wb_work))
		queue_work(preswap_wb_wq, &preswap_memcg_wb_work);
	return 0;
}

/*
 * The memcg writeback worker: for each cgroup that asked, its oldest pages,
 * as many as asked. Gives way to a vm.preswap shrink waiting for the mutex.
 */
static void preswap_memcg_wb_workfn(struct work_struct *work)
{
	struct preswap_memcg *pm;
	unsigned long id;
	long want;

	xa_for_each(&preswap_memcgs, id, pm) {
		want = atomic_long_xchg(&pm->wb_wanted, 0);
		if (want <= 0 || atomic_read(&preswap_shrink_waiters) ||
		    !READ_ONCE(preswap_writeback))
			continue;
		mutex_lock(&preswap_shrink_mutex);
		pm->written_back += preswap_writeback_memcg(pm, want);
		mutex_unlock(&preswap_shrink_mutex);
		cond_resched();
	}
}

static int preswap_memcg_shrinker_init(void)
{
	preswap_memcg_cache = KMEM_CACHE(preswap_memcg, SLAB_ACCOUNT);
	if (!preswap_memcg_cache)
		return -ENOMEM;
	preswap_memcg_shrinker = tmem_shrinker_create(preswap_memcg_count,
						      preswap_memcg_scan,
						      DEFAULT_SEEKS, NULL,
						      "tmem-preswap",
						      &preswap_memcg_lru);
	if (!preswap_memcg_shrinker) {
		kmem_cache_destroy(preswap_memcg_cache);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Unload, first (before the workqueue goes): once it returns no shrinker
 * callback runs and no memcg writeback is queued or running.
 */
static void preswap_memcg_shrinker_exit(void)
{
	tmem_shrinker_destroy(preswap_memcg_shrinker);
	cancel_work_sync(&preswap_memcg_wb_work);
}

/* Unload, last: nothing is held (see preswap_exit). */
static void preswap_memcgs_free(void)
{
	struct preswap_memcg *pm;
	unsigned long id;

	xa_for_each(&preswap_memcgs, id, pm) {
		WARN_ON(atomic_long_read(&pm->pages));
		tmem_list_lru_del_obj(&preswap_memcg_lru, &pm->lru);
		kmem_cache_free(preswap_memcg_cache, pm);
	}
	xa_destroy(&preswap_memcgs);
	list_lru_destroy(&preswap_memcg_lru);
	kmem_cache_destroy(preswap_memcg_cache);
}
#else
static inline int preswap_memcg_shrinker_init(void)
{
	return 0;
}

static inline void preswap_memcg_shrinker_exit(void)
{
}

static inline void preswap_memcgs_free(void)
{
}
#endif

/* vm.preswap: read = pages held; write N = shrink to at most N pages */
static int preswap_sysctl(TMEM_CTL_TABLE *table, int write,
			  void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned long val = atomic_long_read(&preswap_held);
	struct ctl_table t = {
		.data = &val,
		.maxlen = sizeof(val),
	};
	int ret;

	ret = proc_doulongvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	return preswap_shrink(val);
}

static int preswap_enabled_sysctl(TMEM_CTL_TABLE *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	return tmem_proc_bool(&preswap_enabled, write, buffer, lenp, ppos);
}

static struct ctl_table preswap_sysctls[] = {
	{
		.procname	= "preswap",
		.mode		= 0644,
		.proc_handler	= preswap_sysctl,
	},
	{
		.procname	= "preswap_enabled",
		.mode		= 0644,
		.proc_handler	= preswap_enabled_sysctl,
	},
	{ }
};
static struct ctl_table_header *preswap_sysctl_header;

module_param_named(preswap_enabled, preswap_enabled, bool, 0644);
MODULE_PARM_DESC(preswap_enabled,
		 "Store pages on their way to swap (default 1; 0 stops new puts, stored pages stay served)");
module_param(preswap_writeback, bool, 0644);
MODULE_PARM_DESC(preswap_writeback,
		 "Write the oldest preswap pages to the swap device when the store is nearly full (default 0)");

static int accept_threshold_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 99);
}

static const struct kernel_param_ops accept_threshold_ops = {
	.set = accept_threshold_set,
	.get = param_get_uint,
};

module_param_cb(accept_threshold_percent, &accept_threshold_ops,
		&accept_threshold_percent, 0644);
MODULE_PARM_DESC(accept_threshold_percent,
		 "Writeback empties the store to this percent of its limit (1-99, default 90)");

static int cgroup_max_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 100);
}

static const struct kernel_param_ops cgroup_max_ops = {
	.set = cgroup_max_set,
	.get = param_get_uint,
};

module_param_cb(cgroup_max_percent, &cgroup_max_ops, &cgroup_max_percent,
		0644);
MODULE_PARM_DESC(cgroup_max_percent,
		 "Most a memory cgroup may hold in preswap, in percent of its memory.max (1-100, default 50)");

static int preswap_show(struct seq_file *m, void *v)
{
	struct preswap_area *area;
	unsigned int type;

	seq_printf(m, "pool %d enabled %d held %ld refused_cgroup %ld\n",
		   preswap_pool, READ_ONCE(preswap_enabled),
		   atomic_long_read(&preswap_held),
		   atomic_long_read(&preswap_refused_cgroup));
	rcu_read_lock();
	for (type = 0; type < MAX_SWAPFILES; type++) {
		area = rcu_dereference(preswap_areas[type]);
		if (area)
			seq_printf(m, "type %u slots %lu held %ld puts %lu put_refused %lu gets %lu get_misses %lu flushes %lu moved_out %lu written_back %lu written_back_memcg %lu\n",
				   type, area->pages,
				   atomic_long_read(&area->held), area->puts,
				   area->put_refused, area->gets,
				   area->get_misses, area->flushes,
				   area->moved_out, area->written_back,
				   area->written_back_memcg);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(preswap);

/*
 * preswap_cgroups: a line per memory cgroup preswap has stored for, as
 * key-value pairs: memcg id, inode number of its cgroup directory (stat -c
 * %i), pages and bytes held (charged) now, puts refused for it, pages the
 * memcg shrinker wrote back. Empty when
 * the kernel has no charge API (TMEM_CHARGE).
 */
static int preswap_cgroups_show(struct seq_file *m, void *v)
{
#ifdef TMEM_CHARGE
	struct preswap_memcg *pm;
	unsigned long id;

	xa_for_each(&preswap_memcgs, id, pm)
		seq_printf(m, "cgroup %lu ino %lu pages %ld bytes %ld refused %lu written_back %lu\n",
			   id, READ_ONCE(pm->ino), atomic_long_read(&pm->pages),
			   atomic_long_read(&pm->bytes), READ_ONCE(pm->refused),
			   READ_ONCE(pm->written_back));
#endif
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(preswap_cgroups);

int preswap_init(struct dentry *debugfs_root)
{
	preswap_wb_wq = alloc_workqueue("tmem_writeback",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 1);
	if (!preswap_wb_wq)
		return -ENOMEM;
	preswap_pool = tmem_new_pool(NULL, TMEM_POOL_FLAGS(true), "preswap");
	if (preswap_pool < 0) {
		destroy_workqueue(preswap_wb_wq);
		return preswap_pool;
	}
	preswap_sysctl_header = tmem_register_sysctl("vm", preswap_sysctls);
	if (!preswap_sysctl_header || preswap_memcg_shrinker_init()) {
		if (preswap_sysctl_header)
			unregister_sysctl_table(preswap_sysctl_header);
		tmem_destroy_pool(preswap_pool);
		destroy_workqueue(preswap_wb_wq);
		return -ENOMEM;
	}
	debugfs_create_file("preswap", 0444, debugfs_root, NULL, &preswap_fops);
	debugfs_create_file("preswap_cgroups", 0444, debugfs_root, NULL,
			    &preswap_cgroups_fops);
	preswap_fault_init(debugfs_root);
	return 0;
}

/*
 * Called after the hooks are withdrawn. Nothing is held: a held page pins
 * the module, and no put was accepted once the unload began.
 */
void preswap_exit(void)
{
	unsigned int type;

	pr_info("%ld preswap puts refused while unloading\n",
		atomic_long_read(&preswap_refused_unloading));
	preswap_memcg_shrinker_exit();
	/* no put kicks it any more; wait for a run in progress */
	destroy_workqueue(preswap_wb_wq);
	unregister_sysctl_table(preswap_sysctl_header);
	for (type = 0; type < MAX_SWAPFILES; type++) {
		struct preswap_area *area;

		area = rcu_dereference_protected(preswap_areas[type], true);
		if (!area)
			continue;
		WARN_ON(atomic_long_read(&area->held));
		RCU_INIT_POINTER(preswap_areas[type], NULL);
		preswap_free_area(area);
	}
	tmem_destroy_pool(preswap_pool);
	preswap_memcgs_free();
}
