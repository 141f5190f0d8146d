// SPDX-License-Identifier: GPL-2.0
/*
 * tmem compressing backend: every stored page is compressed with one of the
 * kernel's compressors (crypto API) and only the compressed bytes are kept.
 * It is the default backend (module parameter backend=compress); backend=ram
 * keeps plain copies, for comparison.
 *
 * Where the bytes go depends on who stores them:
 * - persistent pages (preswap) go to zsmalloc, the kernel's allocator for
 *   compressed pages (zram and zswap use it): objects of any size packed
 *   into pages with 16-byte granularity.  A persistent put runs in process
 *   context (swap_writepage) with no lock of the core held.
 * - ephemeral pages (precache) go to slab caches of this backend, one per
 *   128-byte size class.  A precache put runs under the page cache's
 *   i_pages lock, which is taken in hard interrupt context (writeback
 *   completion), with interrupts off.  zsmalloc's locks are taken with
 *   interrupts on (its compaction and page migration), so entering them
 *   under i_pages could deadlock against an interrupt that wants i_pages;
 *   the slab allocator is safe there.  The cost is at most 127 bytes of
 *   slack per page (the charge below counts it).
 * The store() caller says which (@ephemeral); load() and free() tell the
 * two apart by bit 2 of the handle (set for slab objects, whose pointers
 * are 8-byte aligned; zsmalloc handles are 8-byte aligned slab pointers
 * too, so that bit is clear).
 *
 * Each object starts with a 4-byte header: compressed length and the
 * number of the compressor that made it, so that changing the compressor
 * applies to new puts while pages already stored stay readable.
 *
 * Tunables (module parameters of tmem.ko):
 *   compressor        crypto compression algorithm for new puts to
 *                     persistent pools, i.e. preswap ("lz4" by default;
 *                     "lzo-rle", "lzo", "zstd", "deflate" ... any the
 *                     kernel has).  Writable at run time; an unknown name
 *                     is refused with -EINVAL and a log line, and nothing
 *                     changes.  Every compressor used since load stays
 *                     allocated (its pages may still be stored) until the
 *                     module is unloaded; at most TMEM_COMP_MAX of them.
 *   precache_compressor
 *                     the same for ephemeral pools, i.e. precache ("lz4" by
 *                     default).  Kept apart because a precache put runs with
 *                     interrupts off: a slow compressor (zstd costs several
 *                     times lz4's time per page, see the README) is paid for
 *                     there in interrupt latency, while preswap's puts run
 *                     in process context and may trade time for a smaller
 *                     store.
 *   incompressible_percent
 *                     a page whose compressed size (header included) is at
 *                     least this percentage of a page is refused (-E2BIG)
 *                     and counted: storing it would save no memory, and a
 *                     refused preswap page goes to the swap device as
 *                     without tmem (default 75, 10..100).
 *
 * Context: store(), load() and free() never sleep.  store() and load() use
 * this CPU's compressor context and buffer with preemption disabled; tmem
 * operations run in task context (possibly with interrupts off), never in
 * an interrupt handler, and a call from one is refused (-EBUSY) rather
 * than allowed to share the CPU's buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crypto.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "backend.h"

/* Compressors kept at once (each used since load keeps its slot). */
#define TMEM_COMP_MAX		8
/* Size classes of the ephemeral slab caches. */
#define SLAB_CLASS_SHIFT	7
#define SLAB_CLASS_SIZE		(1U << SLAB_CLASS_SHIFT)
#define SLAB_CLASSES		(PAGE_SIZE >> SLAB_CLASS_SHIFT)
/* zsmalloc's size granularity (ZS_SIZE_CLASS_DELTA for 4 KiB pages). */
#define ZS_CHARGE_ALIGN		16
/* Bit 2 of a handle: a slab object (ephemeral), else a zsmalloc handle. */
#define HANDLE_SLAB		4UL

struct obj_header {
	u16 len;		/* compressed bytes after the header */
	u8 comp;		/* index in comps[] */
	u8 pad;
};

/*
 * A compressor: one crypto transform per possible CPU.  Slots of comps[]
 * are filled under comp_mutex and never emptied before exit, so a reader
 * needs no lock: it reads the slot number from a header or from comp_cur.
 */
struct tmem_comp {
	struct crypto_comp * __percpu *tfm;
	char name[CRYPTO_MAX_ALG_NAME];
};

/* Who a compressor setting is for: a put to a persistent or ephemeral pool. */
enum comp_user { COMP_PERSISTENT, COMP_EPHEMERAL, COMP_USERS };
static const char * const comp_user_param[COMP_USERS] = {
	"compressor", "precache_compressor",
};

static struct tmem_comp *comps[TMEM_COMP_MAX];
/* Per user: the slot new puts use, -1 before init; READ_ONCE. */
static int comp_cur[COMP_USERS] = { -1, -1 };
static DEFINE_MUTEX(comp_mutex);	/* guards filling slots, comp_cur */
static bool comp_ready;			/* under comp_mutex: init has run */
/* Per user: the name asked for (the module parameter); under comp_mutex. */
static char comp_param[COMP_USERS][CRYPTO_MAX_ALG_NAME] = { "lz4", "lz4" };

/* Per CPU: the output buffer of a compression (two pages: an output may
 * exceed its input).
 */
static DEFINE_PER_CPU(u8 *, comp_buf);

static struct zs_pool *zpool;
static struct kmem_cache *slab_class[SLAB_CLASSES];
/* Bytes of slab objects held, per CPU (a CPU's value may be negative). */
static DEFINE_PER_CPU(long, slab_bytes);

static unsigned int incompressible_percent = 75;

/* ---- compressors ------------------------------------------------------- */

static void comp_free(struct tmem_comp *c)
{
	int cpu;

	if (!c)
		return;
	if (c->tfm) {
		for_each_possible_cpu(cpu) {
			struct crypto_comp *tfm = *per_cpu_ptr(c->tfm, cpu);

			if (!IS_ERR_OR_NULL(tfm))
				crypto_free_comp(tfm);
		}
		free_percpu(c->tfm);
	}
	kfree(c);
}

/* Process context. */
static struct tmem_comp *comp_alloc(const char *name)
{
	struct tmem_comp *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int cpu;

	if (!c)
		return ERR_PTR(-ENOMEM);
	strscpy(c->name, name, sizeof(c->name));
	c->tfm = alloc_percpu(struct crypto_comp *);
	if (!c->tfm) {
		kfree(c);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		struct crypto_comp *tfm = crypto_alloc_comp(name, 0, 0);

		if (IS_ERR(tfm)) {
			int ret = PTR_ERR(tfm);

			comp_free(c);
			return ERR_PTR(ret);
		}
		*per_cpu_ptr(c->tfm, cpu) = tfm;
	}
	return c;
}

/*
 * Make @name the compressor of @user's new puts, allocating it if it was
 * never used.  Under comp_mutex, after init.
 */
static int comp_select(enum comp_user user, const char *name)
{
	struct tmem_comp *c;
	int i, free_slot = -1;

	lockdep_assert_held(&comp_mutex);
	for (i = 0; i < TMEM_COMP_MAX; i++) {
		if (!comps[i]) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (!strcmp(comps[i]->name, name)) {
			WRITE_ONCE(comp_cur[user], i);
			return 0;
		}
	}
	if (free_slot < 0) {
		pr_err("compressor %s: already %d compressors in use; unload the module to start over\n",
		       name, TMEM_COMP_MAX);
		return -ENOSPC;
	}
	c = comp_alloc(name);
	if (IS_ERR(c)) {
		pr_err("compressor %s: cannot set it up (%ld); still using %s\n",
		       name, PTR_ERR(c),
		       comp_cur[user] >= 0 ? comps[comp_cur[user]]->name : "none");
		return PTR_ERR(c);
	}
	/* the slot is complete before comp_cur (or a header) can name it */
	smp_store_release(&comps[free_slot], c);
	WRITE_ONCE(comp_cur[user], free_slot);
	return 0;
}

/* Set @user's compressor (the parameter and, after init, new puts). */
static int compressor_set_user(enum comp_user user, const char *val)
{
	char name[CRYPTO_MAX_ALG_NAME];
	int ret = 0;

	strscpy(name, val, sizeof(name));
	strim(name);
	if (!*name || !crypto_has_comp(name, 0, 0)) {
		pr_err("%s \"%s\": not available in this kernel; unchanged\n",
		       comp_user_param[user], name);
		return -EINVAL;
	}
	mutex_lock(&comp_mutex);
	if (comp_ready)
		ret = comp_select(user, name);
	if (!ret) {
		strscpy(comp_param[user], name, sizeof(comp_param[user]));
		if (comp_ready)
			pr_info("%s for new puts: %s\n",
				comp_user_param[user], name);
	}
	mutex_unlock(&comp_mutex);
	return ret;
}

/* kp->arg points to the user's entry of comp_user_ids. */
static const enum comp_user comp_user_ids[COMP_USERS] = {
	COMP_PERSISTENT, COMP_EPHEMERAL,
};

static int compressor_set(const char *val, const struct kernel_param *kp)
{
	return compressor_set_user(*(const enum comp_user *)kp->arg, val);
}

static int compressor_get(char *buf, const struct kernel_param *kp)
{
	enum comp_user user = *(const enum comp_user *)kp->arg;
	int ret;

	mutex_lock(&comp_mutex);
	ret = sysfs_emit(buf, "%s\n", comp_param[user]);
	mutex_unlock(&comp_mutex);
	return ret;
}

static const struct kernel_param_ops compressor_ops = {
	.set = compressor_set,
	.get = compressor_get,
};
module_param_cb(compressor, &compressor_ops,
		(void *)&comp_user_ids[COMP_PERSISTENT], 0644);
MODULE_PARM_DESC(compressor,
		 "Compression algorithm for new preswap (persistent) puts (default lz4; lzo-rle, zstd, ...)");
module_param_cb(precache_compressor, &compressor_ops,
		(void *)&comp_user_ids[COMP_EPHEMERAL], 0644);
MODULE_PARM_DESC(precache_compressor,
		 "Compression algorithm for new precache (ephemeral) puts, made with interrupts off (default lz4)");

static int incompressible_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 10, 100);
}

static const struct kernel_param_ops incompressible_ops = {
	.set = incompressible_set,
	.get = param_get_uint,
};
module_param_cb(incompressible_percent, &incompressible_ops,
		&incompressible_percent, 0644);
MODULE_PARM_DESC(incompressible_percent,
		 "Refuse a page that compresses to at least this percentage of a page (10-100, default 75)");

/* ---- store, load, free ------------------------------------------------- */

static inline unsigned int slab_class_of(unsigned int bytes)
{
	return (bytes - 1) >> SLAB_CLASS_SHIFT;
}

/*
 * Compress @page with @user's current compressor into this CPU's buffer,
 * from offset sizeof(header).  Preemption disabled by the caller (get_cpu).
 * Return: the object's size (header included), or -errno.
 */
static int compress_page(struct page *page, u8 *buf, struct obj_header *hdr,
			 enum comp_user user)
{
	int cur = READ_ONCE(comp_cur[user]);
	unsigned int dlen = 2 * PAGE_SIZE - sizeof(*hdr);
	struct crypto_comp *tfm;
	struct tmem_comp *c;
	void *src;
	int ret;

	if (cur < 0)
		return -ENODEV;
	/* pairs with comp_select()'s release: the slot is complete */
	c = smp_load_acquire(&comps[cur]);
	tfm = *this_cpu_ptr(c->tfm);
	src = kmap_local_page(page);
	ret = crypto_comp_compress(tfm, src, PAGE_SIZE, buf + sizeof(*hdr),
				   &dlen);
	kunmap_local(src);
	if (ret)
		return ret == -ENOSPC ? -E2BIG : -EIO;
	hdr->len = dlen;
	hdr->comp = cur;
	hdr->pad = 0;
	memcpy(buf, hdr, sizeof(*hdr));
	return sizeof(*hdr) + dlen;
}

/* Decompress @src (an object, header first) into @page.  0 or -EIO. */
static int decompress_obj(const u8 *src, struct page *page)
{
	struct obj_header hdr;
	unsigned int dlen = PAGE_SIZE;
	struct tmem_comp *c;
	void *dst;
	int ret;

	memcpy(&hdr, src, sizeof(hdr));
	if (hdr.comp >= TMEM_COMP_MAX)
		return -EIO;
	/* pairs with comp_select()'s release: the slot is complete */
	c = smp_load_acquire(&comps[hdr.comp]);
	if (WARN_ON_ONCE(!c))
		return -EIO;
	dst = kmap_local_page(page);
	ret = crypto_comp_decompress(*this_cpu_ptr(c->tfm),
				     src + sizeof(hdr), hdr.len, dst, &dlen);
	kunmap_local(dst);
	return ret || dlen != PAGE_SIZE ? -EIO : 0;
}

static int compress_store(struct page *page, gfp_t gfp, bool ephemeral,
			  unsigned long *handle, unsigned int *charged)
{
	struct obj_header hdr;
	unsigned int limit;
	int len, ret = 0;
	u8 *buf;

	if (!in_task())
		return -EBUSY;
	limit = PAGE_SIZE * READ_ONCE(incompressible_percent) / 100;
	buf = get_cpu_var(comp_buf);
	len = compress_page(page, buf, &hdr,
			    ephemeral ? COMP_EPHEMERAL : COMP_PERSISTENT);
	if (len < 0) {
		ret = len;
		goto out;
	}
	if (len >= limit) {
		ret = -E2BIG;
		goto out;
	}
	if (ephemeral) {
		unsigned int cls = slab_class_of(len);
		void *obj = kmem_cache_alloc(slab_class[cls], gfp);

		if (!obj) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(obj, buf, len);
		*charged = (cls + 1) << SLAB_CLASS_SHIFT;
		this_cpu_add(slab_bytes, *charged);
		*handle = (unsigned long)obj | HANDLE_SLAB;
	} else {
		unsigned long zh;
		void *dst;

		zh = zs_malloc(zpool, len, gfp | __GFP_HIGHMEM | __GFP_MOVABLE);
		if (IS_ERR_VALUE(zh) || !zh) {
			ret = -ENOMEM;
			goto out;
		}
		dst = zs_map_object(zpool, zh, ZS_MM_WO);
		memcpy(dst, buf, len);
		zs_unmap_object(zpool, zh);
		*charged = ALIGN(len, ZS_CHARGE_ALIGN);
		*handle = zh;
	}
out:
	put_cpu_var(comp_buf);
	return ret;
}

static int compress_load(unsigned long handle, struct page *page)
{
	int ret;

	if (!in_task())
		return -EBUSY;
	/* the tfm of this CPU: keep it until done */
	preempt_disable();
	if (handle & HANDLE_SLAB) {
		ret = decompress_obj((void *)(handle & ~HANDLE_SLAB), page);
	} else {
		void *src = zs_map_object(zpool, handle, ZS_MM_RO);

		ret = decompress_obj(src, page);
		zs_unmap_object(zpool, handle);
	}
	preempt_enable();
	return ret;
}

static unsigned int obj_len(unsigned long handle)
{
	struct obj_header hdr;

	if (handle & HANDLE_SLAB) {
		memcpy(&hdr, (void *)(handle & ~HANDLE_SLAB), sizeof(hdr));
	} else {
		void *src = zs_map_object(zpool, handle, ZS_MM_RO);

		memcpy(&hdr, src, sizeof(hdr));
		zs_unmap_object(zpool, handle);
	}
	return sizeof(hdr) + hdr.len;
}

static unsigned int compress_size(unsigned long handle)
{
	unsigned int len = obj_len(handle);

	if (handle & HANDLE_SLAB)
		return (slab_class_of(len) + 1) << SLAB_CLASS_SHIFT;
	return ALIGN(len, ZS_CHARGE_ALIGN);
}

static void compress_free(unsigned long handle)
{
	if (handle & HANDLE_SLAB) {
		unsigned int cls = slab_class_of(obj_len(handle));

		kmem_cache_free(slab_class[cls], (void *)(handle & ~HANDLE_SLAB));
		this_cpu_sub(slab_bytes, (cls + 1) << SLAB_CLASS_SHIFT);
	} else {
		zs_free(zpool, handle);
	}
}

static u64 compress_bytes_used(void)
{
	long slab = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		slab += per_cpu(slab_bytes, cpu);
	return ((u64)zs_get_total_pages(zpool) << PAGE_SHIFT) +
		(slab > 0 ? slab : 0);
}

static const char *compress_compressor(bool ephemeral)
{
	int cur = READ_ONCE(comp_cur[ephemeral ? COMP_EPHEMERAL : COMP_PERSISTENT]);

	return cur >= 0 ? comps[cur]->name : "none";
}

const struct tmem_backend tmem_backend_compress = {
	.name = "compress",
	.store = compress_store,
	.load = compress_load,
	.free = compress_free,
	.size = compress_size,
	.bytes_used = compress_bytes_used,
	.compressor = compress_compressor,
};
EXPORT_SYMBOL_NS_GPL(tmem_backend_compress, TMEM);

/* For tests: make @name current for @ephemeral pools' puts or the others'. */
int tmem_compress_select_for(bool ephemeral, const char *name)
{
	return compressor_set_user(ephemeral ? COMP_EPHEMERAL : COMP_PERSISTENT,
				   name);
}
EXPORT_SYMBOL_NS_GPL(tmem_compress_select_for, TMEM);

/* For tests: make @name current for every put (both parameters). */
int tmem_compress_select(const char *name)
{
	return tmem_compress_select_for(false, name) ?:
		tmem_compress_select_for(true, name);
}
EXPORT_SYMBOL_NS_GPL(tmem_compress_select, TMEM);

/* ---- init / exit ------------------------------------------------------- */

void tmem_backend_compress_exit(void)
{
	int i, cpu;

	mutex_lock(&comp_mutex);
	comp_ready = false;
	WRITE_ONCE(comp_cur[COMP_PERSISTENT], -1);
	WRITE_ONCE(comp_cur[COMP_EPHEMERAL], -1);
	for (i = 0; i < TMEM_COMP_MAX; i++) {
		comp_free(comps[i]);
		comps[i] = NULL;
	}
	mutex_unlock(&comp_mutex);
	for_each_possible_cpu(cpu) {
		kfree(per_cpu(comp_buf, cpu));
		per_cpu(comp_buf, cpu) = NULL;
	}
	for (i = 0; i < SLAB_CLASSES; i++) {
		kmem_cache_destroy(slab_class[i]);
		slab_class[i] = NULL;
	}
	if (zpool)
		zs_destroy_pool(zpool);
	zpool = NULL;
}

/* Process context, at load, before any store exists. */
int tmem_backend_compress_init(void)
{
	char name[32];
	int i, cpu, ret;

	zpool = zs_create_pool("tmem");
	if (!zpool)
		return -ENOMEM;
	for (i = 0; i < SLAB_CLASSES; i++) {
		snprintf(name, sizeof(name), "tmem-%u",
			 (i + 1) << SLAB_CLASS_SHIFT);
		slab_class[i] = kmem_cache_create(name,
						  (i + 1) << SLAB_CLASS_SHIFT,
						  8, 0, NULL);
		if (!slab_class[i])
			goto nomem;
	}
	for_each_possible_cpu(cpu) {
		u8 *buf = kmalloc_node(2 * PAGE_SIZE, GFP_KERNEL,
				       cpu_to_node(cpu));

		if (!buf)
			goto nomem;
		per_cpu(comp_buf, cpu) = buf;
	}
	mutex_lock(&comp_mutex);
	ret = comp_select(COMP_PERSISTENT, comp_param[COMP_PERSISTENT]) ?:
		comp_select(COMP_EPHEMERAL, comp_param[COMP_EPHEMERAL]);
	if (!ret)
		comp_ready = true;
	mutex_unlock(&comp_mutex);
	if (ret) {
		tmem_backend_compress_exit();
		return ret;
	}
	return 0;
nomem:
	tmem_backend_compress_exit();
	return -ENOMEM;
}
