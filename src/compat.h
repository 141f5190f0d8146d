/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for kernel-version differences, so that the rest of the
 * module reads as plain code for the kernel it is built against.  Keep it
 * small: add a wrapper here only when an API really differs between the
 * kernels we ship for (Debian 6.1, and 6.12 from backports).
 *
 * Shrinkers: 6.1 embeds struct shrinker in the user's data and registers it
 * with register_shrinker(s, fmt, ...); 6.7 replaced that with
 * shrinker_alloc() / shrinker_register() / shrinker_free() and a
 * private_data field.  Both are hidden behind tmem_shrinker_create(),
 * tmem_shrinker_destroy() and tmem_shrinker_priv().  A memory-cgroup-aware
 * shrinker comes with its list_lru, which needs the shrinker's id: 6.7+
 * has it from shrinker_alloc(), before registration; 6.1 only from
 * register_shrinker(), so there the list is set up just after it (the
 * caller's count must not need the list).  list_lru_add()/del() of a slab
 * object became list_lru_add_obj()/del_obj() in 6.8.
 *
 * Sysctl handlers: 6.11 made the table argument const (TMEM_CTL_TABLE).
 * Sysctl tables: 6.1 needs the empty entry that ends each table; from 6.11
 * on register_sysctl() passes ARRAY_SIZE(table) and refuses an entry with
 * no procname, so tmem_register_sysctl() leaves that last entry out there.
 *
 * Boolean sysctls: 6.1's proc_dobool() walks the value as an int array and
 * refuses a bool-sized one (fixed in 6.3); tmem_proc_bool() goes through an
 * int limited to 0..1 on every version.
 *
 * Swap entry of a page in the swap cache: page_private() on 6.1 (set for
 * every subpage), page_swap_entry() from 6.6 on (folio->swap).
 *
 * Memory cgroup charges (preswap): the kernel patch exports zswap's charge
 * API wherever the kernel has it, i.e. with CONFIG_ZSWAP and memcg kmem
 * accounting (CONFIG_MEMCG_KMEM before 6.10, part of CONFIG_MEMCG since):
 * TMEM_CHARGE, tested on the configuration (and CONFIG_TMEM: a kernel
 * with the patch). The page's cgroup: get_obj_cgroup_from_page() on 6.1,
 * get_obj_cgroup_from_folio() on 6.12; 6.8 added memory.zswap.writeback
 * (struct mem_cgroup's zswap_writeback field).
 */
#ifndef TMEM_COMPAT_H
#define TMEM_COMPAT_H

#include <linux/version.h>
#include <linux/list_lru.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/swap.h>
#include <linux/swapops.h>

/* the only version test: true on kernels from a.b.c on */
#define TMEM_KERNEL_SINCE(a, b, c) (LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

#if TMEM_KERNEL_SINCE(6, 11, 0)
#define TMEM_CTL_TABLE const struct ctl_table
#define tmem_register_sysctl(path, table) \
	register_sysctl_sz(path, table, ARRAY_SIZE(table) - 1)
#else
#define TMEM_CTL_TABLE struct ctl_table
#define tmem_register_sysctl(path, table) register_sysctl(path, table)
#endif

/*
 * A 0/1 sysctl kept in a bool: reads *@val, or on a valid write stores the
 * new value there (invalid input: -EINVAL and *@val unchanged).
 */
static inline int tmem_proc_bool(bool *val, int write, void *buffer,
				 size_t *lenp, loff_t *ppos)
{
	int v = READ_ONCE(*val);
	struct ctl_table t = {
		.data = &v,
		.maxlen = sizeof(v),
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_ONE,
	};
	int ret = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);

	if (!ret && write)
		WRITE_ONCE(*val, v);
	return ret;
}

static inline swp_entry_t tmem_page_swap_entry(struct page *page)
{
#if TMEM_KERNEL_SINCE(6, 6, 0)
	return page_swap_entry(page);
#else
	swp_entry_t entry = { .val = page_private(page) };

	return entry;
#endif
}

typedef unsigned long (*tmem_shrink_fn)(struct shrinker *,
					 struct shrink_control *);

#if TMEM_KERNEL_SINCE(6, 7, 0)

/*
 * A registered shrinker; with @lru (not NULL) memcg-aware, and @lru set up
 * as its list (list_lru_destroy() it after tmem_shrinker_destroy()).
 */
static inline struct shrinker *
tmem_shrinker_create(tmem_shrink_fn count, tmem_shrink_fn scan, int seeks,
		     void *priv, const char *name, struct list_lru *lru)
{
	struct shrinker *s = shrinker_alloc(lru ? SHRINKER_MEMCG_AWARE : 0,
					    "%s", name);

	if (!s)
		return NULL;
	if (lru && list_lru_init_memcg(lru, s)) {
		shrinker_free(s);
		return NULL;
	}
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->private_data = priv;
	shrinker_register(s);
	return s;
}

static inline void tmem_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}

static inline void *tmem_shrinker_priv(struct shrinker *s)
{
	return s->private_data;
}

#else /* < 6.7 */

struct tmem_shrinker {
	struct shrinker s;
	void *priv;
};

static inline struct shrinker *
tmem_shrinker_create(tmem_shrink_fn count, tmem_shrink_fn scan, int seeks,
		     void *priv, const char *name, struct list_lru *lru)
{
	struct tmem_shrinker *ts = kzalloc(sizeof(*ts), GFP_KERNEL);

	if (!ts)
		return NULL;
	ts->s.count_objects = count;
	ts->s.scan_objects = scan;
	ts->s.seeks = seeks;
	ts->s.flags = lru ? SHRINKER_MEMCG_AWARE : 0;
	ts->priv = priv;
	if (register_shrinker(&ts->s, "%s", name)) {
		kfree(ts);
		return NULL;
	}
	if (lru && list_lru_init_memcg(lru, &ts->s)) {
		unregister_shrinker(&ts->s);
		kfree(ts);
		return NULL;
	}
	return &ts->s;
}

static inline void tmem_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
	kfree(container_of(s, struct tmem_shrinker, s));
}

static inline void *tmem_shrinker_priv(struct shrinker *s)
{
	return container_of(s, struct tmem_shrinker, s)->priv;
}

#endif /* 6.7 */

#if TMEM_KERNEL_SINCE(6, 8, 0)
#define tmem_list_lru_add_obj(lru, item) list_lru_add_obj(lru, item)
#define tmem_list_lru_del_obj(lru, item) list_lru_del_obj(lru, item)
#else
#define tmem_list_lru_add_obj(lru, item) list_lru_add(lru, item)
#define tmem_list_lru_del_obj(lru, item) list_lru_del(lru, item)
#endif

#if defined(CONFIG_TMEM) && defined(CONFIG_ZSWAP) && \
	(defined(CONFIG_MEMCG_KMEM) || \
	 (TMEM_KERNEL_SINCE(6, 10, 0) && defined(CONFIG_MEMCG)))
#define TMEM_CHARGE
#endif

#ifdef TMEM_CHARGE
#include <linux/memcontrol.h>
static inline struct obj_cgroup *tmem_page_objcg(struct page *page)
{
#if TMEM_KERNEL_SINCE(6, 2, 0)
	return get_obj_cgroup_from_folio(page_folio(page));
#else
	return get_obj_cgroup_from_page(page);
#endif
}

/*
 * False if memory.zswap.writeback is 0 in @memcg or an ancestor (6.8+; on
 * older kernels the knob does not exist). Caller holds rcu_read_lock().
 */
static inline bool tmem_memcg_may_writeback(struct mem_cgroup *memcg)
{
#if TMEM_KERNEL_SINCE(6, 8, 0)
	for (; memcg; memcg = parent_mem_cgroup(memcg))
		if (!READ_ONCE(memcg->zswap_writeback))
			return false;
#endif
	return true;
}
#endif

#endif /* TMEM_COMPAT_H */
