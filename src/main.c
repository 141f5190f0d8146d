// SPDX-License-Identifier: GPL-2.0
/*
 * tmem module entry: registers the hook ops with the kernel patch
 * (include/linux/tmem.h) at load and withdraws them at unload.
 *
 * Every hook the kernel calls is counted here before it is passed on to
 * precache.c or preswap.c (a page-cache removal counts as precache_put or
 * precache_flush_page, whichever it turns into), and the counts are shown in
 * /sys/kernel/debug/tmem/hooks, one "name count" line per hook. They tell a
 * user (and the tests) which call sites fire; they are not the store's
 * statistics, which live with the store.
 *
 * Unload: tmem_unregister_ops() returns only once no CPU runs any of our
 * hooks (the patch waits for an SRCU grace period), so everything can be
 * freed right after it. Between the start of rmmod (the module is GOING)
 * and that point hooks still run; preswap refuses every put there (it
 * takes a module reference per put), so nothing it must keep is stored.
 *
 * The debugfs files (/sys/kernel/debug/tmem/: stats, pools, hooks, precache,
 * preswap, preswap_cgroups) share one format, which tmemstat and the tests
 * read: each line is a record of "key value" pairs separated by single
 * spaces; keys are lower-case words, values numbers or words without spaces,
 * except "name", which comes last on its line and runs to its end (a pool's
 * name may hold a space: "name ext4 vdc"). stats and hooks have one pair per
 * line; the other files one record per pool, filesystem, swap area or
 * cgroup, whose first key says what it is. New keys may be added; none is
 * renamed or moved before "name".
 *
 * Tunable (tests only): unload_delay_ms, module parameter, 0 by default:
 * tmem_exit() sleeps that long before withdrawing the hooks, which widens
 * that window so a test can swap through it on purpose.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/pagemap.h>
#include <linux/delay.h>
#include <linux/tmem.h>

#include "hooks.h"
#include "tmem.h"

/*
 * Calls per hook, per CPU: a hook runs on every page-cache eviction and
 * every swap-out, so no shared cache line is written there. Summed when
 * read, without a snapshot: a sum taken while hooks run may miss some.
 */
static DEFINE_PER_CPU(unsigned long [TMEM_NR_HOOKS], hook_calls);

static const char * const hook_names[TMEM_NR_HOOKS] = {
	[TMEM_HOOK_PRECACHE_GET]	 = "precache_get",
	[TMEM_HOOK_PRECACHE_PUT]	 = "precache_put",
	[TMEM_HOOK_PRECACHE_FLUSH_PAGE]	 = "precache_flush_page",
	[TMEM_HOOK_PRECACHE_FLUSH_RANGE] = "precache_flush_range",
	[TMEM_HOOK_PRECACHE_FLUSH_FS]	 = "precache_flush_fs",
	[TMEM_HOOK_PRESWAP_INIT]	 = "preswap_init",
	[TMEM_HOOK_PRESWAP_PUT]		 = "preswap_put",
	[TMEM_HOOK_PRESWAP_GET]		 = "preswap_get",
	[TMEM_HOOK_PRESWAP_FLUSH_PAGE]	 = "preswap_flush_page",
	[TMEM_HOOK_PRESWAP_FLUSH_AREA]	 = "preswap_flush_area",
};

static inline void count(enum tmem_hook hook)
{
	this_cpu_inc(hook_calls[hook]);
}

static int hook_precache_get(struct page *page)
{
	count(TMEM_HOOK_PRECACHE_GET);
	return precache_get(page);
}

/*
 * Every folio leaving the page cache comes here. Only a clean copy of what
 * is on disk may be kept: an up-to-date folio mapped to disk is a put; any
 * other is a flush of its handle, so no older copy outlives it. Counted as
 * precache_put or precache_flush_page accordingly.
 */
static int hook_precache_put(struct address_space *mapping,
			     struct folio *folio)
{
	if (folio_test_uptodate(folio) && folio_test_mappedtodisk(folio)) {
		count(TMEM_HOOK_PRECACHE_PUT);
		return precache_put(mapping, folio);
	}
	count(TMEM_HOOK_PRECACHE_FLUSH_PAGE);
	return precache_flush_page(mapping, folio);
}

static int hook_precache_flush_range(struct address_space *mapping,
				     pgoff_t start, pgoff_t end)
{
	count(TMEM_HOOK_PRECACHE_FLUSH_RANGE);
	return precache_flush_range(mapping, start, end);
}

static int hook_precache_flush_fs(struct super_block *sb)
{
	count(TMEM_HOOK_PRECACHE_FLUSH_FS);
	return precache_flush_fs(sb);
}

static int hook_preswap_init(unsigned int type, unsigned long pages)
{
	count(TMEM_HOOK_PRESWAP_INIT);
	return preswap_init_area(type, pages);
}

static int hook_preswap_put(struct page *page)
{
	count(TMEM_HOOK_PRESWAP_PUT);
	return preswap_put(page);
}

static int hook_preswap_get(struct page *page)
{
	count(TMEM_HOOK_PRESWAP_GET);
	return preswap_get(page);
}

static int hook_preswap_flush_page(unsigned int type, pgoff_t offset)
{
	count(TMEM_HOOK_PRESWAP_FLUSH_PAGE);
	return preswap_flush_page(type, offset);
}

static int hook_preswap_flush_area(unsigned int type)
{
	count(TMEM_HOOK_PRESWAP_FLUSH_AREA);
	return preswap_flush_area(type);
}

static const struct tmem_ops tmem_hook_ops = {
	.precache_get		= hook_precache_get,
	.precache_put		= hook_precache_put,
	.precache_flush_range	= hook_precache_flush_range,
	.precache_flush_fs	= hook_precache_flush_fs,
	.preswap_init		= hook_preswap_init,
	.preswap_put		= hook_preswap_put,
	.preswap_get		= hook_preswap_get,
	.preswap_flush_page	= hook_preswap_flush_page,
	.preswap_flush_area	= hook_preswap_flush_area,
};

static int hooks_show(struct seq_file *m, void *v)
{
	unsigned long sum;
	int i, cpu;

	for (i = 0; i < TMEM_NR_HOOKS; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += per_cpu(hook_calls, cpu)[i];
		seq_printf(m, "%s %lu\n", hook_names[i], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hooks);

static struct dentry *tmem_debugfs_root;

static unsigned int unload_delay_ms;
module_param(unload_delay_ms, uint, 0644);
MODULE_PARM_DESC(unload_delay_ms,
		 "Tests: sleep this long in rmmod before the hooks are withdrawn (default 0)");

static int __init tmem_init(void)
{
	int ret;

	tmem_debugfs_root = debugfs_create_dir("tmem", NULL);
	debugfs_create_file("hooks", 0444, tmem_debugfs_root, NULL,
			    &hooks_fops);

	ret = tmem_core_init(tmem_debugfs_root);
	if (ret)
		goto out_debugfs;
	ret = precache_init(tmem_debugfs_root);
	if (ret)
		goto out_core;
	ret = preswap_init(tmem_debugfs_root);
	if (ret)
		goto out_precache;
	ret = tmem_register_ops(&tmem_hook_ops);
	if (ret) {
		pr_err("cannot register hooks: %d (another tmem module loaded?)\n",
		       ret);
		goto out_preswap;
	}
	pr_info("hooks registered\n");
	return 0;

out_preswap:
	preswap_exit();
out_precache:
	precache_exit();
out_core:
	tmem_core_exit();
out_debugfs:
	debugfs_remove_recursive(tmem_debugfs_root);
	return ret;
}

static void __exit tmem_exit(void)
{
	if (unload_delay_ms)
		msleep(unload_delay_ms);
	tmem_unregister_ops(&tmem_hook_ops);
	preswap_exit();
	precache_exit();
	tmem_core_exit();
	debugfs_remove_recursive(tmem_debugfs_root);
	pr_info("hooks withdrawn, module unloaded\n");
}

module_init(tmem_init);
module_exit(tmem_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Transcendent memory: precache and preswap for Linux");
MODULE_VERSION(TMEM_VERSION);
