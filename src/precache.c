// SPDX-License-Identifier: GPL-2.0
/*
 * precache: an ephemeral victim cache for clean page-cache pages.
 *
 * When the kernel drops a clean, up-to-date page of a block-device
 * filesystem that is mapped to disk, the page is put into that filesystem's
 * private ephemeral pool; before ext4 or an mpage filesystem reads a page
 * from disk it asks precache, and a hit fills the page without I/O. A get
 * takes the page out (the pool is exclusive of the page cache), so precache
 * never holds a copy of a page that is also cached and could be changed.
 *
 * Handles: pool = one per filesystem (super_block), object = inode number,
 * index = page offset in the file. Filesystems without a block device
 * (tmpfs, proc, network filesystems) never get a pool; nor do encrypted or
 * verity files get pages kept. A pool is created at the first disk read
 * of its filesystem that asks precache (the get hook, which may sleep; the
 * put hook may not), so filesystems mounted before the module loaded are
 * served too, and destroyed at umount.
 *
 * Coherency comes from the kernel's flush hooks: every page that leaves the
 * page cache without a put is flushed; inode eviction and a truncate to
 * zero flush the whole inode (even when no page was cached, so a reused
 * inode number never sees the old file's data); a partial truncate, hole
 * punching, zero/collapse range and O_DIRECT writes flush only the pages
 * of their range (the kernel passes it: precache_flush_range), so the rest
 * of the file stays served; invalidate_bdev flushes every filesystem on
 * that device; umount destroys the pool.
 *
 * O_DIRECT writes in flight: while an inode has direct I/O in flight
 * (inode->i_dio_count, held from submission until after the kernel's
 * post-write invalidation and precache flush), a put of one of its pages is
 * a flush and a get is a miss. A page read from disk during the write may
 * hold the old data; the kernel drops such pages from the page cache when
 * the write completes, but a copy in precache could move back into the page
 * cache (a get) after that scan and before the flush, and so outlive both.
 * With no copy entering or leaving precache during the write, the final
 * flush leaves nothing stale (found with async O_DIRECT overwrites on vfat
 * racing buffered reads: one read in ten returned the previous data).
 *
 * Tunables (module parameter and sysctl vm.precache_enabled, same value):
 *   precache_enabled  1 = on (default), 0 = off. Turning it off stops puts
 *                     and gets and drops every pool, so nothing stale can
 *                     survive until it is turned on again.
 *
 * Locking: precache_fs_lock (spinlock, irqsave: put runs with interrupts
 * off) protects precache_fs_list changes; lookups walk the list under RCU;
 * precache_create_mutex makes pool creation one at a time. A pool is
 * destroyed only after an RCU grace period past its unlinking, since its
 * id may be reused at once. The store (core.c) serialises operations on
 * one handle itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/debugfs.h>
#include <linux/blkdev.h>
#include <linux/sysctl.h>
#include <linux/sched/mm.h>

#include "hooks.h"
#include "tmem.h"
#include "compat.h"

/* One filesystem that has a pool. Freed by RCU after it leaves the list. */
struct precache_fs {
	struct list_head list;
	struct super_block *sb;		/* key; never dereferenced after umount */
	struct block_device *bdev;	/* sb->s_bdev, for invalidate_bdev */
	int pool_id;
	char type[16];			/* filesystem type */
	char device[32];		/* sb->s_id */
	char name[48];			/* "<fs type> <device>": the pool's */
	struct list_head dead;		/* on a local list while being dropped */
	/* deliberately racy counters: statistics only */
	unsigned long puts, put_refused, hits, misses, flushes;
};

static LIST_HEAD(precache_fs_list);
static DEFINE_SPINLOCK(precache_fs_lock);
static DEFINE_MUTEX(precache_create_mutex);	/* one creator at a time */
static bool precache_enabled = true;

/* Caller holds rcu_read_lock(). */
static struct precache_fs *precache_fs_find(struct super_block *sb)
{
	struct precache_fs *fs;

	list_for_each_entry_rcu(fs, &precache_fs_list, list)
		if (fs->sb == sb)
			return fs;
	return NULL;
}

/*
 * Create the pool of @sb unless it has one. Called from the get hook, which
 * runs in process context before a disk read (readahead sets NOFS), so it
 * may sleep; puts only use pools that exist. Caller holds no RCU lock.
 */
static void precache_fs_create(struct super_block *sb)
{
	struct precache_fs *fs;
	unsigned long flags;
	unsigned int nofs;
	bool found;
	int id;

	/* the caller may hold a locked page-cache folio: no fs recursion */
	nofs = memalloc_nofs_save();
	mutex_lock(&precache_create_mutex);
	rcu_read_lock();
	found = precache_fs_find(sb);
	rcu_read_unlock();
	if (found || !READ_ONCE(precache_enabled))
		goto out;
	fs = kzalloc(sizeof(*fs), GFP_KERNEL);
	if (!fs)
		goto out;
	fs->sb = sb;
	fs->bdev = sb->s_bdev;
	strscpy(fs->type, sb->s_type->name, sizeof(fs->type));
	strscpy(fs->device, sb->s_id, sizeof(fs->device));
	snprintf(fs->name, sizeof(fs->name), "%s %s", fs->type, fs->device);
	id = tmem_new_pool(NULL, TMEM_POOL_FLAGS(false), fs->name);
	if (id < 0) {
		pr_warn_ratelimited("no pool for %s: %d\n", fs->name, id);
		kfree(fs);
		goto out;
	}
	fs->pool_id = id;
	spin_lock_irqsave(&precache_fs_lock, flags);
	list_add_tail_rcu(&fs->list, &precache_fs_list);
	spin_unlock_irqrestore(&precache_fs_lock, flags);
out:
	mutex_unlock(&precache_create_mutex);
	memalloc_nofs_restore(nofs);
}

/*
 * Unlink every filesystem that @match accepts (all when @match is NULL),
 * wait until no hook can still use them, then destroy their pools. The wait
 * matters: a pool id may be reused at once, so a put that found the old
 * entry must be over before its pool goes. Sleeps: called from umount,
 * invalidate_bdev and the control paths only, never from put/get.
 */
static void precache_fs_drop(bool (*match)(struct precache_fs *fs, void *arg),
			     void *arg)
{
	struct precache_fs *fs, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);

	might_sleep();
	spin_lock_irqsave(&precache_fs_lock, flags);
	list_for_each_entry_safe(fs, tmp, &precache_fs_list, list) {
		if (match && !match(fs, arg))
			continue;
		list_del_rcu(&fs->list);
		list_add(&fs->dead, &dead);
	}
	spin_unlock_irqrestore(&precache_fs_lock, flags);
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(fs, tmp, &dead, dead) {
		tmem_destroy_pool(fs->pool_id);
		kfree(fs);
	}
}

static bool precache_fs_on_bdev(struct precache_fs *fs, void *bdev)
{
	return fs->bdev == bdev;
}

static bool precache_fs_of_sb(struct precache_fs *fs, void *sb)
{
	return fs->sb == sb;
}

/* Files precache serves: on a block device, not encrypted or verity. */
static bool precache_wanted(struct inode *inode)
{
	return inode->i_sb->s_bdev && !IS_ENCRYPTED(inode) &&
	       !IS_VERITY(inode) && READ_ONCE(precache_enabled);
}

int precache_put(struct address_space *mapping, struct folio *folio)
{
	struct inode *inode = mapping->host;
	struct precache_fs *fs;
	int ret = -ENOSPC;

	if (!inode || !precache_wanted(inode) ||
	    atomic_read(&inode->i_dio_count))	/* see the top of this file */
		return precache_flush_page(mapping, folio);
	/* Only whole, clean, small pages whose index fits the handle. */
	if (folio_test_large(folio) || folio_test_dirty(folio) ||
	    folio->index > U32_MAX || mapping != inode->i_mapping)
		return precache_flush_page(mapping, folio);

	rcu_read_lock();
	fs = precache_fs_find(inode->i_sb);
	if (fs) {
		ret = tmem_put_page(fs->pool_id, inode->i_ino, folio->index,
				    &folio->page);
		if (ret)
			fs->put_refused++;
		else
			fs->puts++;
	}
	rcu_read_unlock();
	return ret;
}

int precache_get(struct page *page)
{
	struct address_space *mapping = page->mapping;
	struct inode *inode = mapping ? mapping->host : NULL;
	struct precache_fs *fs;
	int ret = -ENOENT;

	if (!inode || !precache_wanted(inode) || page->index > U32_MAX ||
	    PageCompound(page) || atomic_read(&inode->i_dio_count))
		return ret;
	rcu_read_lock();
	fs = precache_fs_find(inode->i_sb);
	if (fs) {
		ret = tmem_get_page(fs->pool_id, inode->i_ino, page->index, page);
		if (ret)
			fs->misses++;
		else
			fs->hits++;
	}
	rcu_read_unlock();
	if (!fs)
		precache_fs_create(inode->i_sb);	/* first read: a pool */
	return ret;
}

int precache_flush_page(struct address_space *mapping, struct folio *folio)
{
	struct inode *inode = mapping->host;
	struct precache_fs *fs;
	long i, nr = folio_nr_pages(folio);

	if (!inode || !inode->i_sb->s_bdev)
		return 0;
	rcu_read_lock();
	fs = precache_fs_find(inode->i_sb);
	if (fs) {
		for (i = 0; i < nr && folio->index + i <= U32_MAX; i++)
			tmem_flush_page(fs->pool_id, inode->i_ino,
					folio->index + i);
		fs->flushes++;
	}
	rcu_read_unlock();
	return 0;
}

/*
 * Pages @start..@end of @mapping changed or went away: 0..ULONG_MAX (inode
 * eviction, truncate to zero) flushes the whole object; a range flushes its
 * pages alone (indices past U32_MAX were never stored). A block device's
 * own page cache drops every filesystem on the device, whatever the range:
 * a write through it can change any of their blocks.
 */
int precache_flush_range(struct address_space *mapping, pgoff_t start,
			 pgoff_t end)
{
	struct inode *inode = mapping->host;
	struct precache_fs *fs;

	if (!inode)
		return 0;
	if (S_ISBLK(inode->i_mode) && !inode->i_sb->s_bdev) {
		/* the page cache of a block device itself */
		precache_fs_drop(precache_fs_on_bdev, I_BDEV(inode));
		return 0;
	}
	if (!inode->i_sb->s_bdev || start > U32_MAX || start > end)
		return 0;
	rcu_read_lock();
	fs = precache_fs_find(inode->i_sb);
	if (fs) {
		if (start == 0 && end == ULONG_MAX)
			tmem_flush_object(fs->pool_id, inode->i_ino);
		else
			tmem_flush_range(fs->pool_id, inode->i_ino, start,
					 min_t(pgoff_t, end, U32_MAX));
		fs->flushes++;
	}
	rcu_read_unlock();
	return 0;
}

int precache_flush_fs(struct super_block *sb)
{
	precache_fs_drop(precache_fs_of_sb, sb);
	return 0;
}

static int precache_set_enabled(bool on)
{
	WRITE_ONCE(precache_enabled, on);
	if (!on)
		/* puts that saw "on" finish before the pools go */
		precache_fs_drop(NULL, NULL);
	return 0;
}

static int precache_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	return precache_set_enabled(on);
}

static const struct kernel_param_ops precache_param_ops = {
	.set = precache_param_set,
	.get = param_get_bool,
};
module_param_cb(precache_enabled, &precache_param_ops, &precache_enabled, 0644);
MODULE_PARM_DESC(precache_enabled,
		 "Keep evicted clean page-cache pages (default 1; 0 drops them all)");

static int precache_sysctl(TMEM_CTL_TABLE *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	bool on = READ_ONCE(precache_enabled);
	int ret = tmem_proc_bool(&on, write, buffer, lenp, ppos);

	if (ret || !write)
		return ret;
	return precache_set_enabled(on);
}

static struct ctl_table precache_sysctls[] = {
	{
		.procname	= "precache_enabled",
		.mode		= 0644,
		.proc_handler	= precache_sysctl,
	},
	{ }
};
static struct ctl_table_header *precache_sysctl_header;

static int precache_show(struct seq_file *m, void *v)
{
	struct precache_fs *fs;

	rcu_read_lock();
	list_for_each_entry_rcu(fs, &precache_fs_list, list)
		seq_printf(m, "pool %d type %s device %s puts %lu put_refused %lu hits %lu misses %lu flushes %lu\n",
			   fs->pool_id, fs->type, fs->device, fs->puts,
			   fs->put_refused, fs->hits, fs->misses, fs->flushes);
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(precache);

int precache_init(struct dentry *debugfs_root)
{
	precache_sysctl_header = tmem_register_sysctl("vm", precache_sysctls);
	if (!precache_sysctl_header)
		return -ENOMEM;
	debugfs_create_file("precache", 0444, debugfs_root, NULL,
			    &precache_fops);
	return 0;
}

void precache_exit(void)
{
	unregister_sysctl_table(precache_sysctl_header);
	precache_fs_drop(NULL, NULL);
}
