// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the tmem core (core.c), built as tmem_kunit.ko.
 *
 * Each semantic rule of tmem.h is a case of its own.  Every page stored
 * carries a pattern derived from (pool tag, object, index, writer, generation)
 * in every word, so a get is checked word for word: a stale, torn, misplaced
 * or foreign page fails the case.
 *
 * Two suites: tmem_core runs every case on the RAM backend; tmem_compress
 * runs the semantic and concurrency cases again on the compressing backend
 * (backend_compress.c), plus its own: a round trip of each page kind with
 * each compressor, same-filled pages, capacity in bytes, and switching the
 * compressor while pages are stored.  Pattern pages repeat each value over
 * 8 words, so they compress (to about a sixth with lz4) yet every word is
 * checked.
 *
 * Each case runs in a private store (tmem_store_create()) with a counting
 * backend that wraps the suite's backend: real precache/preswap traffic in the
 * guest does not disturb the cases, the exact capacity and LRU order can be
 * checked (the store has one LRU shard, so the order is exact, except in
 * the cases of the sharded LRU itself: test_lru_shards and the concurrency
 * model), backend failures can be injected, and every case ends by checking
 * that no backend page is left (a leak of page data would not show in
 * kmemleak, which does not track the page allocator).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/crypto.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uuid.h>

#include "backend.h"
#include "tmem.h"

MODULE_IMPORT_NS(TMEM);

static unsigned int stress_ops = 20000;
module_param(stress_ops, uint, 0444);
MODULE_PARM_DESC(stress_ops, "Operations per thread in the concurrency cases");

/* ---- a backend that counts and fails on demand ------------------------- */

static atomic_t tb_live;		/* handles not yet freed */
static atomic_t tb_fail_stores;		/* refuse this many next stores */
static atomic_t tb_fail_loads;		/* fail this many next loads */
/* The backend wrapped: the suite's (set by its init). */
static const struct tmem_backend *tb_inner = &tmem_backend_ram;

static int tb_store(struct page *page, gfp_t gfp, bool ephemeral,
		    unsigned long *handle, unsigned int *charged)
{
	int ret;

	if (atomic_add_unless(&tb_fail_stores, -1, 0))
		return -ENOMEM;
	ret = tb_inner->store(page, gfp, ephemeral, handle, charged);
	if (!ret)
		atomic_inc(&tb_live);
	return ret;
}

static int tb_load(unsigned long handle, struct page *page)
{
	if (atomic_add_unless(&tb_fail_loads, -1, 0))
		return -EIO;
	return tb_inner->load(handle, page);
}

static void tb_free(unsigned long handle)
{
	tb_inner->free(handle);
	atomic_dec(&tb_live);
}

static unsigned int tb_size(unsigned long handle)
{
	return tb_inner->size(handle);
}

static u64 tb_bytes_used(void)
{
	return (u64)atomic_read(&tb_live) << PAGE_SHIFT;
}

static const struct tmem_backend tb_backend = {
	.name = "kunit",
	.store = tb_store,
	.load = tb_load,
	.free = tb_free,
	.size = tb_size,
	.bytes_used = tb_bytes_used,
};

/* ---- page patterns ------------------------------------------------------ */

#define PAT_MAGIC	0x746d656d6b756e74ULL	/* "tmemkunt" */
#define PAT_HDR		4

struct pat {
	u64 tag;	/* which pool */
	u64 oid;
	u32 index;
	u32 writer;	/* thread id in the concurrency cases */
	u64 gen;
};

static u64 mix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static u64 pat_seed(const u64 *w)
{
	return mix64(w[0] ^ mix64(w[1] ^ mix64(w[2] ^ mix64(w[3]))));
}

static void pat_fill(struct page *page, const struct pat *pt)
{
	u64 *w = kmap_local_page(page);
	u64 seed;
	int i;

	w[0] = PAT_MAGIC ^ pt->tag;
	w[1] = pt->oid;
	w[2] = (u64)pt->index << 32 | pt->writer;
	w[3] = pt->gen;
	seed = pat_seed(w);
	for (i = PAT_HDR; i < PAGE_SIZE / sizeof(u64); i++)
		w[i] = mix64(seed + i / 8);
	kunmap_local(w);
}

/* Decode @page; false if any word disagrees with its header. */
static bool pat_decode(struct page *page, u64 tag, struct pat *pt)
{
	u64 *w = kmap_local_page(page);
	bool ok = w[0] == (PAT_MAGIC ^ tag);
	u64 seed = pat_seed(w);
	int i;

	pt->tag = tag;
	pt->oid = w[1];
	pt->index = w[2] >> 32;
	pt->writer = (u32)w[2];
	pt->gen = w[3];
	for (i = PAT_HDR; ok && i < PAGE_SIZE / sizeof(u64); i++)
		ok = w[i] == mix64(seed + i / 8);
	kunmap_local(w);
	return ok;
}

static void page_poison(struct page *page)
{
	void *p = kmap_local_page(page);

	memset(p, 0x5a, PAGE_SIZE);
	kunmap_local(p);
}

/* ---- per-case context and helpers -------------------------------------- */

struct tctx {
	struct tmem_store *store;
	struct page *in, *out;
};

/* Set up a case's store on the backend tb_inner wraps. */
static int tmem_test_init_store(struct kunit *test, struct tctx *c)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	test->priv = c;
	atomic_set(&tb_live, 0);
	atomic_set(&tb_fail_stores, 0);
	atomic_set(&tb_fail_loads, 0);
	c->store = tmem_store_create("kunit", 64, &tb_backend);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->store);
	tmem_store_lru_shards(c->store, 1);
	c->in = alloc_page(GFP_KERNEL);
	c->out = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->in);
	KUNIT_ASSERT_NOT_NULL(test, c->out);
	return 0;
}

static int tmem_test_init(struct kunit *test)
{
	tb_inner = &tmem_backend_ram;
	return tmem_test_init_store(test, kunit_kzalloc(test,
							sizeof(struct tctx),
							GFP_KERNEL));
}

static void tmem_test_exit(struct kunit *test)
{
	struct tctx *c = test->priv;

	if (!c)
		return;
	tmem_store_destroy(c->store);
	/* every page the store held was given back to the backend */
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	if (c->in)
		__free_page(c->in);
	if (c->out)
		__free_page(c->out);
}

static int new_pool(struct kunit *test, bool persist)
{
	struct tctx *c = test->priv;
	int id = tmem_store_new_pool(c->store, NULL, TMEM_POOL_FLAGS(persist),
				     persist ? "kunit-p" : "kunit-e");

	KUNIT_ASSERT_GE(test, id, 0);
	return id;
}

static int put(struct kunit *test, int pool, u64 oid, u32 index, u64 gen)
{
	struct tctx *c = test->priv;
	struct pat pt = { .tag = pool, .oid = oid, .index = index, .gen = gen };

	pat_fill(c->in, &pt);
	return tmem_put_page(pool, oid, index, c->in);
}

#define PUT_OK(test, pool, oid, index, gen) \
	KUNIT_ASSERT_EQ(test, put(test, pool, oid, index, gen), 0)

/* Get and decode: 0 and *@gen, -EBADMSG if the data is not this handle's. */
static int get(struct kunit *test, int pool, u64 oid, u32 index, u64 *gen)
{
	struct tctx *c = test->priv;
	struct pat pt;
	int ret;

	page_poison(c->out);
	ret = tmem_get_page(pool, oid, index, c->out);
	if (ret)
		return ret;
	if (!pat_decode(c->out, pool, &pt) || pt.oid != oid ||
	    pt.index != index)
		return -EBADMSG;
	*gen = pt.gen;
	return 0;
}

static void expect_page(struct kunit *test, int pool, u64 oid, u32 index,
			u64 gen)
{
	u64 got = ~0ULL;

	KUNIT_EXPECT_EQ_MSG(test, get(test, pool, oid, index, &got), 0,
			    "get(%d, %llu, %u)", pool, oid, index);
	KUNIT_EXPECT_EQ_MSG(test, got, gen, "get(%d, %llu, %u) generation",
			    pool, oid, index);
}

static void expect_miss(struct kunit *test, int pool, u64 oid, u32 index)
{
	u64 got = ~0ULL;

	KUNIT_EXPECT_EQ_MSG(test, get(test, pool, oid, index, &got), -ENOENT,
			    "get(%d, %llu, %u) should miss (got gen %llu)",
			    pool, oid, index, got);
}

static struct tmem_stats store_stats(struct kunit *test)
{
	struct tctx *c = test->priv;
	struct tmem_stats st;

	tmem_store_stats(c->store, &st);
	return st;
}

static struct tmem_stats pool_stats(struct kunit *test, int pool)
{
	struct tmem_stats st;

	KUNIT_EXPECT_EQ(test, tmem_pool_stats(pool, &st), 0);
	return st;
}

/*
 * What the shrinker must count when ephemeral pool @pe holds the store's
 * only ephemeral pages: their charge in pages (their number on the RAM
 * backend, fewer when compressed).
 */
static unsigned long lru_units(struct kunit *test, int pe)
{
	return DIV_ROUND_UP(pool_stats(test, pe).bytes, PAGE_SIZE);
}

/* ---- the semantic rules, one case each ---------------------------------- */

/* A put copies: changing the caller's page afterwards changes nothing. */
static void test_put_copies(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, true);
	struct pat pt;

	PUT_OK(test, p, 1, 0, 100);
	/* the caller's page is untouched by the put ... */
	KUNIT_EXPECT_TRUE(test, pat_decode(c->in, p, &pt));
	KUNIT_EXPECT_EQ(test, pt.gen, 100ULL);
	/* ... and reusing it does not reach the stored copy */
	pt.gen = 101;
	pat_fill(c->in, &pt);
	expect_page(test, p, 1, 0, 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 1);
}

/* Persistent: every get returns the page until it is flushed. */
static void test_persistent_get_not_destructive(struct kunit *test)
{
	int p = new_pool(test, true);
	struct tmem_stats st;
	int i;

	PUT_OK(test, p, 7, 3, 1);
	for (i = 0; i < 3; i++)
		expect_page(test, p, 7, 3, 1);
	st = pool_stats(test, p);
	KUNIT_EXPECT_EQ(test, st.gets_hit, 3ULL);
	KUNIT_EXPECT_EQ(test, st.pages, 1LL);
	if (tb_inner == &tmem_backend_ram)
		KUNIT_EXPECT_EQ(test, st.bytes, (s64)PAGE_SIZE);
	else	/* compressed: charged less than a page, but something */
		KUNIT_EXPECT_TRUE(test, st.bytes > 0 && st.bytes < PAGE_SIZE / 2);
}

/* Ephemeral: a get hit removes the page. */
static void test_ephemeral_get_destructive(struct kunit *test)
{
	int p = new_pool(test, false);
	struct tmem_stats st;

	PUT_OK(test, p, 7, 3, 1);
	expect_page(test, p, 7, 3, 1);
	expect_miss(test, p, 7, 3);
	st = pool_stats(test, p);
	KUNIT_EXPECT_EQ(test, st.gets_hit, 1ULL);
	KUNIT_EXPECT_EQ(test, st.gets_miss, 1ULL);
	KUNIT_EXPECT_EQ(test, st.pages, 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(
				((struct tctx *)test->priv)->store), 0UL);
}

static void put_put_get(struct kunit *test, bool persist)
{
	int p = new_pool(test, persist);

	PUT_OK(test, p, 5, 9, 1);
	PUT_OK(test, p, 5, 9, 2);
	expect_page(test, p, 5, 9, 2);
	/* the older copy was freed, not kept aside */
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), persist ? 1 : 0);
	KUNIT_EXPECT_EQ(test, store_stats(test).pages, persist ? 1LL : 0LL);
}

/* put(D1), put(D2), get returns D2 (persistent pool). */
static void test_put_put_get_persistent(struct kunit *test)
{
	put_put_get(test, true);
}

/* put(D1), put(D2), get returns D2 (ephemeral pool). */
static void test_put_put_get_ephemeral(struct kunit *test)
{
	put_put_get(test, false);
}

/* A refused second put (backend failure) drops the older data too. */
static void test_put_refused_drops_old(struct kunit *test)
{
	int pp = new_pool(test, true), pe = new_pool(test, false);
	int pool, i;

	for (i = 0; i < 2; i++) {
		pool = i ? pe : pp;
		PUT_OK(test, pool, 1, 1, 1);
		atomic_set(&tb_fail_stores, 1);
		KUNIT_EXPECT_EQ(test, put(test, pool, 1, 1, 2), -ENOMEM);
		expect_miss(test, pool, 1, 1);
		expect_miss(test, pool, 1, 1);
		KUNIT_EXPECT_EQ(test, pool_stats(test, pool).puts_refused, 1ULL);
		KUNIT_EXPECT_EQ(test, pool_stats(test, pool).pages, 0LL);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
}

/* A second put refused for capacity drops the older data too. */
static void test_put_refused_full_drops_old(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, true);

	tmem_store_set_max_pages(c->store, 1);
	PUT_OK(test, p, 1, 1, 1);
	KUNIT_EXPECT_EQ(test, put(test, p, 1, 1, 2), -ENOSPC);
	expect_miss(test, p, 1, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	/* and the room is usable again */
	PUT_OK(test, p, 1, 1, 3);
	expect_page(test, p, 1, 1, 3);
}

/* Get-get: once a get misses, gets miss until the next put. */
static void test_get_get(struct kunit *test)
{
	int pp = new_pool(test, true), pe = new_pool(test, false);

	/* never stored */
	expect_miss(test, pp, 2, 2);
	expect_miss(test, pp, 2, 2);
	/* flushed */
	PUT_OK(test, pp, 2, 2, 1);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(pp, 2, 2), 0);
	expect_miss(test, pp, 2, 2);
	expect_miss(test, pp, 2, 2);
	/* taken by a destructive get */
	PUT_OK(test, pe, 2, 2, 1);
	expect_page(test, pe, 2, 2, 1);
	expect_miss(test, pe, 2, 2);
	expect_miss(test, pe, 2, 2);
	/* a get the backend fails: the page is dropped, not kept for later */
	PUT_OK(test, pp, 3, 3, 1);
	atomic_set(&tb_fail_loads, 1);
	KUNIT_EXPECT_EQ(test, tmem_get_page(pp, 3, 3,
					    ((struct tctx *)test->priv)->out),
			-EIO);
	expect_miss(test, pp, 3, 3);
	PUT_OK(test, pe, 3, 3, 1);
	atomic_set(&tb_fail_loads, 1);
	KUNIT_EXPECT_EQ(test, tmem_get_page(pe, 3, 3,
					    ((struct tctx *)test->priv)->out),
			-EIO);
	expect_miss(test, pe, 3, 3);
	/* a put after the misses is found again */
	PUT_OK(test, pp, 2, 2, 5);
	expect_page(test, pp, 2, 2, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 1);
}

/* flush_page: that page misses, its neighbours do not. */
static void test_flush_page(struct kunit *test)
{
	int p = new_pool(test, true);
	struct tmem_stats st;

	PUT_OK(test, p, 4, 0, 1);
	PUT_OK(test, p, 4, 1, 2);
	PUT_OK(test, p, 5, 0, 3);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(p, 4, 0), 0);
	expect_miss(test, p, 4, 0);
	expect_page(test, p, 4, 1, 2);
	expect_page(test, p, 5, 0, 3);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(p, 4, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(p, 99, 0), -ENOENT);
	st = pool_stats(test, p);
	KUNIT_EXPECT_EQ(test, st.flush_pages, 3ULL);
	KUNIT_EXPECT_EQ(test, st.flushed, 1ULL);
	KUNIT_EXPECT_EQ(test, st.pages, 2LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 2);
}

/* flush_object: every page of that object misses, other objects do not. */
static void test_flush_object(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	int pool, k;
	u32 i;

	tmem_store_set_max_pages(c->store, 1024);
	for (k = 0; k < 2; k++) {
		pool = k ? pe : pp;
		for (i = 0; i < 100; i++)
			PUT_OK(test, pool, 10, i * 3, i);
		for (i = 0; i < 10; i++)
			PUT_OK(test, pool, 11, i, 1000 + i);
		KUNIT_EXPECT_EQ(test, tmem_flush_object(pool, 10), 0);
		KUNIT_EXPECT_EQ(test, tmem_flush_object(pool, 10), -ENOENT);
		for (i = 0; i < 100; i++)
			expect_miss(test, pool, 10, i * 3);
		KUNIT_EXPECT_EQ(test, pool_stats(test, pool).flushed, 100ULL);
		KUNIT_EXPECT_EQ(test, pool_stats(test, pool).pages, 10LL);
	}
	/* only the ephemeral object 11 is on the LRU: its 10 pages */
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store),
			lru_units(test, pe));
	for (k = 0; k < 2; k++)
		for (i = 0; i < 10; i++)
			expect_page(test, k ? pe : pp, 11, i, 1000 + i);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 10);
}

/*
 * flush_range: the pages in the range miss; the rest of the object and the
 * other objects do not. 40 pages (several lock holds), a range up to the
 * top index, an empty and an inverted range; the object goes with its last
 * page.
 */
static void test_flush_range(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	struct tmem_stats st;
	int pool, k;
	u32 i;

	tmem_store_set_max_pages(c->store, 1024);
	for (k = 0; k < 2; k++) {
		pool = k ? pe : pp;
		for (i = 0; i < 100; i++)
			PUT_OK(test, pool, 20, i, i);
		PUT_OK(test, pool, 20, U32_MAX, 7);
		for (i = 0; i < 10; i++)
			PUT_OK(test, pool, 21, i, 500 + i);
		KUNIT_EXPECT_EQ(test, tmem_flush_range(pool, 20, 10, 49), 0);
		KUNIT_EXPECT_EQ(test, tmem_flush_range(pool, 20, 10, 49),
				-ENOENT);
		KUNIT_EXPECT_EQ(test, tmem_flush_range(pool, 20, 60, 59),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, tmem_flush_range(pool, 99, 0, U32_MAX),
				-ENOENT);
		st = pool_stats(test, pool);
		KUNIT_EXPECT_EQ(test, st.flushed, 40ULL);
		KUNIT_EXPECT_EQ(test, st.pages, 71LL);
		/* 90..99 and the top index */
		KUNIT_EXPECT_EQ(test, tmem_flush_range(pool, 20, 90, U32_MAX),
				0);
		st = pool_stats(test, pool);
		KUNIT_EXPECT_EQ(test, st.flushed, 51ULL);
		KUNIT_EXPECT_EQ(test, st.flush_ranges, 4ULL);
		for (i = 10; i < 50; i++)
			expect_miss(test, pool, 20, i);
		for (i = 90; i < 100; i++)
			expect_miss(test, pool, 20, i);
		expect_miss(test, pool, 20, U32_MAX);
		for (i = 0; i < 10; i++)
			expect_page(test, pool, 20, i, i);
		for (i = 50; i < 90; i++)
			expect_page(test, pool, 20, i, i);
		for (i = 0; i < 10; i++)
			expect_page(test, pool, 21, i, 500 + i);
	}
	/* the persistent object's last 50 pages: the object goes with them */
	KUNIT_EXPECT_EQ(test, tmem_flush_range(pp, 20, 0, U32_MAX), 0);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pp).flushed, 101ULL);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(pp, 20), -ENOENT);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pe).pages, 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 10);
}

/* destroy_pool frees everything and the id stops working. */
static void test_destroy_pool(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p1 = new_pool(test, true), p2 = new_pool(test, false);
	struct tmem_stats st;
	u32 i;

	for (i = 0; i < 20; i++) {
		PUT_OK(test, p1, i % 3, i, i);
		PUT_OK(test, p2, i % 3, i, i);
	}
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(p2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 20);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, put(test, p2, 0, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_get_page(p2, 0, 0, c->out), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(p2, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(p2, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_pool_stats(p2, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(p2), -EINVAL);
	for (i = 0; i < 20; i++)
		expect_page(test, p1, i % 3, i, i);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(p1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	st = store_stats(test);
	KUNIT_EXPECT_EQ(test, st.pages, 0LL);
	KUNIT_EXPECT_EQ(test, st.bytes, 0LL);
}

/* Flags, uuid, page size, version, shared: what new_pool accepts. */
static void test_pool_flags(struct kunit *test)
{
	struct tctx *c = test->priv;
	const u32 base = TMEM_POOL_FLAGS(0);
	const u32 psz = TMEM_POOL_PAGESIZE_MASK << TMEM_POOL_PAGESIZE_SHIFT;
	const u32 ver = TMEM_POOL_VERSION_MASK << TMEM_POOL_VERSION_SHIFT;
	uuid_t some;
	int id;

	generate_random_uuid(some.b);
	some.b[0] |= 1;		/* surely not nil */

#define NEW(uuid, flags) tmem_store_new_pool(c->store, uuid, flags, "f")
	/* accepted: private, persistent or not, NULL or nil uuid */
	id = NEW(NULL, base);
	KUNIT_EXPECT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(id), 0);
	id = NEW(&uuid_null, base | TMEM_POOL_PERSIST);
	KUNIT_EXPECT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(id), 0);
	/* shared pools are refused, with or without a uuid */
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | TMEM_POOL_SHARED), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, NEW(&some, base | TMEM_POOL_SHARED |
				  TMEM_POOL_PERSIST), -EOPNOTSUPP);
	/* a uuid on a private pool */
	KUNIT_EXPECT_EQ(test, NEW(&some, base), -EINVAL);
	/* page size other than ours */
	KUNIT_EXPECT_EQ(test, NEW(NULL, (base & ~psz) |
				  (((PAGE_SHIFT - 12 + 1) & TMEM_POOL_PAGESIZE_MASK)
				   << TMEM_POOL_PAGESIZE_SHIFT)), -EINVAL);
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | psz), -EINVAL);
	/* versions other than TMEM_SPEC_VERSION */
	KUNIT_EXPECT_EQ(test, NEW(NULL, base & ~ver), -EINVAL);
	KUNIT_EXPECT_EQ(test, NEW(NULL, (base & ~ver) |
				  (TMEM_SPEC_VERSION + 1) << TMEM_POOL_VERSION_SHIFT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | ver), -EINVAL);
	/* unknown bits */
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | BIT(2)), -EINVAL);
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | BIT(8)), -EINVAL);
	KUNIT_EXPECT_EQ(test, NEW(NULL, base | BIT(23)), -EINVAL);
#undef NEW
	/* pool ids that are not pools */
	KUNIT_EXPECT_EQ(test, tmem_put_page(-1, 0, 0, c->in), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_put_page(TMEM_MAX_POOLS, 0, 0, c->in),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_get_page(-1, 0, 0, c->out), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(TMEM_MAX_POOLS, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(-5, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(-1), -EINVAL);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(id), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
}

/* The pool API of the default store works as well (what the hooks use). */
static void test_default_store(struct kunit *test)
{
	struct tctx *c = test->priv;
	struct pat pt = { .oid = 3, .index = 4, .gen = 77 };
	struct tmem_stats st;
	int id = tmem_new_pool(NULL, TMEM_POOL_FLAGS(1), "kunit-default");
	unsigned int size = 0;

	KUNIT_ASSERT_GE(test, id, 0);
	pt.tag = id;
	pat_fill(c->in, &pt);
	/* the size a put reports is what the pool is charged (preswap's charge) */
	KUNIT_EXPECT_EQ(test, tmem_put_page_sized(id, 3, 4, c->in, &size), 0);
	KUNIT_EXPECT_GT(test, size, 0U);
	page_poison(c->out);
	KUNIT_EXPECT_EQ(test, tmem_get_page(id, 3, 4, c->out), 0);
	KUNIT_EXPECT_TRUE(test, pat_decode(c->out, id, &pt));
	KUNIT_EXPECT_EQ(test, pt.gen, 77ULL);
	KUNIT_EXPECT_EQ(test, tmem_pool_stats(id, &st), 0);
	KUNIT_EXPECT_EQ(test, st.pages, 1LL);
	KUNIT_EXPECT_EQ(test, st.bytes, (s64)size);
	KUNIT_EXPECT_EQ(test, st.puts, 1ULL);
	KUNIT_EXPECT_EQ(test, st.gets_hit, 1ULL);
	tmem_global_stats(&st);
	KUNIT_EXPECT_GE(test, st.puts, 1ULL);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(id), 0);
}

/* Capacity: a persistent put over the limit is refused, nothing is lost. */
static void test_capacity_persistent(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, true);
	u32 i;

	tmem_store_set_max_pages(c->store, 8);
	KUNIT_EXPECT_EQ(test, tmem_store_max_pages(c->store), 8UL);
	for (i = 0; i < 8; i++)
		PUT_OK(test, p, 1, i, i);
	KUNIT_EXPECT_EQ(test, put(test, p, 1, 8, 8), -ENOSPC);
	KUNIT_EXPECT_EQ(test, put(test, p, 2, 0, 8), -ENOSPC);
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).puts_refused, 2ULL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).evicted, 0ULL);
	for (i = 0; i < 8; i++)
		expect_page(test, p, 1, i, i);
	expect_miss(test, p, 1, 8);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(p, 1, 0), 0);
	PUT_OK(test, p, 1, 8, 8);
	expect_page(test, p, 1, 8, 8);
	KUNIT_EXPECT_EQ(test, store_stats(test).pages, 8LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 8);
}

/* Capacity: ephemeral puts evict the least recently put pages, in order. */
static void test_capacity_ephemeral_lru(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 8);
	for (i = 0; i < 8; i++)
		PUT_OK(test, p, 1, i, i);
	/* re-putting page 2 makes it the most recent */
	PUT_OK(test, p, 1, 2, 102);
	PUT_OK(test, p, 1, 8, 8);	/* evicts 0 */
	PUT_OK(test, p, 1, 9, 9);	/* evicts 1 */
	PUT_OK(test, p, 1, 10, 10);	/* evicts 3, not 2 */
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).evicted, 3ULL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).pages, 8LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 8);
	expect_miss(test, p, 1, 0);
	expect_miss(test, p, 1, 1);
	expect_miss(test, p, 1, 3);
	expect_page(test, p, 1, 2, 102);
	for (i = 4; i <= 10; i++)
		expect_page(test, p, 1, i, i);
}

/* The LRU is the store's: eviction follows put order across pools. */
static void test_lru_across_pools(struct kunit *test)
{
	struct tctx *c = test->priv;
	int a = new_pool(test, false), b = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 6);
	for (i = 0; i < 6; i++)
		PUT_OK(test, i & 1 ? b : a, 1, i, i);	/* a0 b1 a2 b3 a4 b5 */
	PUT_OK(test, b, 1, 6, 6);			/* evicts a0 */
	PUT_OK(test, a, 1, 7, 7);			/* evicts b1 */
	PUT_OK(test, a, 1, 8, 8);			/* evicts a2 */
	KUNIT_EXPECT_EQ(test, pool_stats(test, a).evicted, 2ULL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, b).evicted, 1ULL);
	KUNIT_EXPECT_EQ(test, store_stats(test).evicted, 3ULL);
	expect_miss(test, a, 1, 0);
	expect_miss(test, b, 1, 1);
	expect_miss(test, a, 1, 2);
	expect_page(test, b, 1, 3, 3);
	expect_page(test, a, 1, 4, 4);
	expect_page(test, b, 1, 5, 5);
	expect_page(test, b, 1, 6, 6);
	expect_page(test, a, 1, 7, 7);
	expect_page(test, a, 1, 8, 8);
}

/*
 * A full store makes room for a persistent put by evicting ephemeral pages
 * (persistent data is worth more than a clean-cache copy), never persistent
 * ones; with no ephemeral page left, puts of either kind are refused.
 */
static void test_capacity_mixed(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 8);
	for (i = 0; i < 4; i++) {
		PUT_OK(test, pe, 1, i, i);
		PUT_OK(test, pp, 1, i, i);
	}
	for (i = 4; i < 8; i++)
		PUT_OK(test, pp, 1, i, i);	/* each evicts one ephemeral */
	KUNIT_EXPECT_EQ(test, pool_stats(test, pe).evicted, 4ULL);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, put(test, pp, 1, 8, 8), -ENOSPC);
	KUNIT_EXPECT_EQ(test, put(test, pe, 1, 9, 9), -ENOSPC);
	for (i = 0; i < 8; i++)
		expect_page(test, pp, 1, i, i);
	for (i = 0; i < 4; i++)
		expect_miss(test, pe, 1, i);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pp).evicted, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 8);
}

/*
 * How full the store is with persistent pages (what preswap's writeback
 * watches): ephemeral pages, which a put can evict, do not count; a flush
 * and a new limit show at once in the exact reading.
 */
static void test_persistent_fill(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 20);
	KUNIT_EXPECT_EQ(test, tmem_store_persistent_fill(c->store, true), 0U);
	for (i = 0; i < 5; i++)
		PUT_OK(test, pp, 1, i, i);
	for (i = 0; i < 10; i++)
		PUT_OK(test, pe, 1, i, i);
	KUNIT_EXPECT_EQ(test, tmem_store_persistent_fill(c->store, true), 25U);
	KUNIT_EXPECT_EQ(test, tmem_flush_page(pp, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, tmem_store_persistent_fill(c->store, true), 20U);
	tmem_store_set_max_pages(c->store, 8);
	KUNIT_EXPECT_EQ(test, tmem_store_persistent_fill(c->store, true), 50U);
	tmem_store_set_max_pages(c->store, 2);
	KUNIT_EXPECT_EQ(test, tmem_store_persistent_fill(c->store, true), 200U);
}

/* The shrinker's count and scan: ephemeral pages only, oldest first. */
static void test_shrinker(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true);
	int e1 = new_pool(test, false), e2 = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 100);
	for (i = 0; i < 10; i++) {
		PUT_OK(test, pp, 1, i, i);
		PUT_OK(test, i & 1 ? e2 : e1, 1, i, i);
		PUT_OK(test, i & 1 ? e1 : e2, 2, i, i);
	}
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 20UL);
	/* the 5 oldest ephemeral: e1/1/0 e2/2/0 e2/1/1 e1/2/1 e1/1/2 */
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_scan(c->store, 5), 5UL);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 15UL);
	expect_miss(test, e1, 1, 0);
	expect_miss(test, e2, 2, 0);
	expect_miss(test, e2, 1, 1);
	expect_miss(test, e1, 2, 1);
	expect_miss(test, e1, 1, 2);
	expect_page(test, e2, 2, 2, 2);		/* the 6th oldest stayed */
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 14UL);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_scan(c->store, 1000), 14UL);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_scan(c->store, 10), 0UL);
	KUNIT_EXPECT_EQ(test, store_stats(test).shrunk, 19ULL);
	KUNIT_EXPECT_EQ(test, store_stats(test).evicted, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 10);
	for (i = 0; i < 10; i++)
		expect_page(test, pp, 1, i, i);
}

/*
 * The sharded LRU: a page's shard follows its handle, so consecutive pages
 * of an object go round the shards, and eviction takes the oldest page of
 * each shard in turn.  Once the store is full, as many new puts as there
 * are shards evict exactly the oldest page of each: the first pages put,
 * one per shard.  Pinned to one CPU so that the eviction cursor (per CPU)
 * moves only with this case's evictions.  Counts above 16 are cut to 16,
 * and a count that is no power of two is rounded down.
 */
static void test_lru_shards(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, false);
	unsigned int shards, max;
	u32 i;

	KUNIT_EXPECT_EQ(test, tmem_store_lru_shards(c->store, 1000), 16U);
	KUNIT_EXPECT_EQ(test, tmem_store_lru_shards(c->store, 12), 8U);
	KUNIT_EXPECT_EQ(test, tmem_store_lru_shards(c->store, 0), 8U);
	shards = 8;
	max = 4 * shards;
	tmem_store_set_max_pages(c->store, max);
	migrate_disable();
	for (i = 0; i < max + shards; i++)
		PUT_OK(test, p, 7, i, i);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).evicted, (u64)shards);
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).pages, (s64)max);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store),
			(unsigned long)max);
	for (i = 0; i < shards; i++)
		expect_miss(test, p, 7, i);
	for (i = shards; i < max + shards; i++)
		expect_page(test, p, 7, i, i);	/* an ephemeral get takes it */
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);

	/* the shrinker drains every shard */
	for (i = 0; i < max; i++)
		PUT_OK(test, p, 8, i, i);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_scan(c->store, 1000),
			(unsigned long)max);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
}

#define MANY 3000

/*
 * destroy_pool with thousands of pages present: the first objects are freed
 * at once, the rest (beyond the inline budget) by the background worker.
 */
static void test_destroy_many(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	struct tmem_stats st;
	u32 i;

	tmem_store_set_max_pages(c->store, 4 * MANY);
	for (i = 0; i < MANY; i++) {
		PUT_OK(test, pp, i % 7, i, i);
		PUT_OK(test, pe, i % 5, i, i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 2 * MANY);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store),
			lru_units(test, pe));
	KUNIT_EXPECT_EQ(test, pool_stats(test, pe).pages, (s64)MANY);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(pe), 0);
	KUNIT_EXPECT_EQ(test, tmem_get_page(pe, 0, 0, c->out), -EINVAL);
	tmem_drain();
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), MANY);
	for (i = 0; i < MANY; i += 101)
		expect_page(test, pp, i % 7, i, i);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(pp), 0);
	tmem_drain();
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	st = store_stats(test);
	KUNIT_EXPECT_EQ(test, st.pages, 0LL);
	KUNIT_EXPECT_EQ(test, st.bytes, 0LL);
}

/* destroy_pool with thousands of one-page objects. */
static void test_destroy_many_objects(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 4 * MANY);
	for (i = 0; i < MANY; i++) {
		PUT_OK(test, pp, (u64)i << 20, 1, i);
		PUT_OK(test, pe, (u64)i << 20, 1, i);
	}
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(pp), 0);
	KUNIT_EXPECT_EQ(test, tmem_destroy_pool(pe), 0);
	tmem_drain();
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 0UL);
	KUNIT_EXPECT_EQ(test, store_stats(test).pages, 0LL);
}

/*
 * flush_object with thousands of pages present: beyond the inline budget
 * the pages are freed in the background, but unreachable at once, and the
 * object id is usable again at once.
 */
static void test_flush_object_many(struct kunit *test)
{
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	u32 i;

	tmem_store_set_max_pages(c->store, 4 * MANY);
	for (i = 0; i < MANY; i++) {
		PUT_OK(test, pp, 42, i, i);
		PUT_OK(test, pe, 42, i, i);
	}
	PUT_OK(test, pp, 43, 0, 1);
	PUT_OK(test, pe, 43, 0, 1);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(pe, 42), 0);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(pp, 42), 0);
	KUNIT_EXPECT_EQ(test, tmem_flush_object(pp, 42), -ENOENT);
	for (i = 0; i < MANY; i += 97) {
		expect_miss(test, pp, 42, i);
		expect_miss(test, pe, 42, i);
	}
	PUT_OK(test, pp, 42, 7, 1234);
	expect_page(test, pp, 42, 7, 1234);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pp).flushed, (u64)MANY);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pe).flushed, (u64)MANY);
	tmem_drain();
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_count(c->store), 1UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 3);
	KUNIT_EXPECT_EQ(test, store_stats(test).pages, 3LL);
	expect_page(test, pp, 43, 0, 1);
	expect_page(test, pe, 43, 0, 1);
	expect_page(test, pp, 42, 7, 1234);
}

/* ---- concurrency -------------------------------------------------------- */

static u32 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 32;
}

struct worker {
	struct completion done;
	struct page *in, *out;
	void *shared;
	int id;
	unsigned long errors;
	char msg[160];
};

static __printf(2, 3) void worker_error(struct worker *w, const char *fmt, ...)
{
	va_list args;

	if (!w->errors++) {
		va_start(args, fmt);
		vsnprintf(w->msg, sizeof(w->msg), fmt, args);
		va_end(args);
	}
}

/* Run @fn on two kthreads, bound to two CPUs when there are two. */
static void run_workers(struct kunit *test, int (*fn)(void *), void *shared,
			struct worker *w)
{
	struct task_struct *t[2] = {};
	int cpu = -1, i;
	bool ok = true;

	if (num_online_cpus() < 2)
		kunit_info(test, "one CPU online: threads interleave on it\n");
	for (i = 0; i < 2; i++) {
		init_completion(&w[i].done);
		w[i].id = i;
		w[i].shared = shared;
		w[i].in = alloc_page(GFP_KERNEL);
		w[i].out = alloc_page(GFP_KERNEL);
		t[i] = kthread_create(fn, &w[i], "tmem_kunit/%d", i);
		if (IS_ERR(t[i]) || !w[i].in || !w[i].out)
			ok = false;
		else if (num_online_cpus() >= 2) {
			cpu = cpumask_next(cpu, cpu_online_mask);
			kthread_bind(t[i], cpu);
		}
	}
	/* start both or neither: a stopped, never woken kthread never runs @fn */
	for (i = 0; i < 2; i++) {
		if (IS_ERR(t[i]))
			continue;
		if (ok)
			wake_up_process(t[i]);
		else
			kthread_stop(t[i]);
	}
	for (i = 0; i < 2; i++) {
		if (ok)
			wait_for_completion(&w[i].done);
		if (w[i].in)
			__free_page(w[i].in);
		if (w[i].out)
			__free_page(w[i].out);
		KUNIT_EXPECT_EQ_MSG(test, w[i].errors, 0UL, "thread %d: %s", i,
				    w[i].msg);
	}
	KUNIT_ASSERT_TRUE_MSG(test, ok, "could not start the threads");
}

/*
 * Model case: two threads on two CPUs run random puts, gets, flushes and
 * object flushes on the same objects of a persistent and an ephemeral pool,
 * in a store too small for them (evictions and refusals happen).  Each
 * handle has a test-side lock held across the operation and the update of
 * its model (absent, or present with a generation), so the model is exact
 * and every result is checked: a persistent get must return exactly the
 * model's generation (else a page was lost or is stale), an ephemeral hit
 * must (it may miss), no get may find a page the model says is gone.
 * Handles differ per operation but share objects and buckets, so the core's
 * object creation and freeing, LRU and eviction race for real.
 */
#define M_OBJS	8
#define M_IDX	32

struct model {
	int pool[2];			/* [0] persistent, [1] ephemeral */
	rwlock_t objlock[2][M_OBJS];	/* write: flush_object */
	spinlock_t lock[2][M_OBJS][M_IDX];
	u64 gen[2][M_OBJS][M_IDX];	/* 0: absent */
	atomic64_t next_gen;
};

static void model_op(struct worker *w, struct model *m, u64 *rs)
{
	u32 r = rnd(rs), k = r & 1, o = (r >> 1) % M_OBJS;
	u32 i = (r >> 8) % M_IDX, op = (r >> 16) % 100;
	int pool = m->pool[k];
	u64 *g = &m->gen[k][o][i];
	struct pat pt;
	int ret;

	if (op < 2) {			/* flush_object */
		write_lock(&m->objlock[k][o]);
		ret = tmem_flush_object(pool, o);
		if (ret && ret != -ENOENT)
			worker_error(w, "flush_object %d", ret);
		for (i = 0; i < M_IDX; i++)
			m->gen[k][o][i] = 0;
		write_unlock(&m->objlock[k][o]);
		return;
	}
	read_lock(&m->objlock[k][o]);
	spin_lock(&m->lock[k][o][i]);
	if (op < 45) {			/* put */
		pt = (struct pat){ .tag = pool, .oid = o, .index = i,
				   .gen = atomic64_inc_return(&m->next_gen) };
		pat_fill(w->in, &pt);
		ret = tmem_put_page(pool, o, i, w->in);
		if (ret && ret != -ENOSPC && ret != -ENOMEM)
			worker_error(w, "put %d", ret);
		*g = ret ? 0 : pt.gen;
	} else if (op < 85) {		/* get */
		page_poison(w->out);
		ret = tmem_get_page(pool, o, i, w->out);
		if (ret == 0) {
			if (!pat_decode(w->out, pool, &pt) || pt.oid != o ||
			    pt.index != i)
				worker_error(w, "corrupt page %d/%u/%u", k, o, i);
			else if (pt.gen != *g)
				worker_error(w, "stale page %d/%u/%u: gen %llu, expected %llu",
					     k, o, i, pt.gen, *g);
		} else if (ret != -ENOENT) {
			worker_error(w, "get %d", ret);
		} else if (k == 0 && *g) {
			worker_error(w, "lost persistent page %u/%u gen %llu",
				     o, i, *g);
		}
		if (k == 1)
			*g = 0;		/* destructive, or gone */
	} else {			/* flush_page */
		ret = tmem_flush_page(pool, o, i);
		if (k == 0 && ret != (*g ? 0 : -ENOENT))
			worker_error(w, "flush_page %u/%u: %d with gen %llu",
				     o, i, ret, *g);
		*g = 0;
	}
	spin_unlock(&m->lock[k][o][i]);
	read_unlock(&m->objlock[k][o]);
}

static int model_thread(void *arg)
{
	struct worker *w = arg;
	u64 rs = 0x1234567ULL * (w->id + 1);
	unsigned int n;

	for (n = 0; n < stress_ops; n++) {
		model_op(w, w->shared, &rs);
		if (!(n & 63))
			cond_resched();
	}
	kthread_complete_and_exit(&w->done, 0);
}

static void test_concurrency_model(struct kunit *test)
{
	struct tctx *c = test->priv;
	struct worker w[2] = {};
	struct model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 k, o, i;
	u64 gen;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, m);
	/* the sharded LRU, as a store has it on a machine of 2 CPUs */
	KUNIT_EXPECT_EQ(test, tmem_store_lru_shards(c->store, 8), 8U);
	m->pool[0] = new_pool(test, true);
	m->pool[1] = new_pool(test, false);
	for (k = 0; k < 2; k++)
		for (o = 0; o < M_OBJS; o++) {
			rwlock_init(&m->objlock[k][o]);
			for (i = 0; i < M_IDX; i++)
				spin_lock_init(&m->lock[k][o][i]);
		}
	/* 512 handles in 2 pools, room for 200 pages */
	tmem_store_set_max_pages(c->store, 200);
	run_workers(test, model_thread, m, w);

	/* quiescent now: the store must agree with the model exactly */
	for (k = 0; k < 2; k++)
		for (o = 0; o < M_OBJS; o++)
			for (i = 0; i < M_IDX; i++) {
				u64 want = m->gen[k][o][i];

				ret = get(test, m->pool[k], o, i, &gen);
				/* an ephemeral page may have been evicted */
				if (want && (k == 0 || ret != -ENOENT)) {
					KUNIT_EXPECT_EQ_MSG(test, ret, 0,
							    "%u/%u/%u", k, o, i);
					KUNIT_EXPECT_EQ_MSG(test, gen, want,
							    "%u/%u/%u", k, o, i);
				} else if (!want) {
					KUNIT_EXPECT_EQ_MSG(test, ret, -ENOENT,
							    "%u/%u/%u", k, o, i);
				}
			}
	kunit_info(test, "store after the run: %lld pages, %llu evicted, %llu refused\n",
		   store_stats(test).pages, store_stats(test).evicted,
		   store_stats(test).puts_refused);
}

/*
 * Race case: two threads on two CPUs hammer the same 8 handles of a
 * persistent pool with puts, gets and flushes and no test-side lock, so
 * operations on one handle really collide.  Each thread numbers its own
 * operations per handle and publishes, after each, its number (done) and
 * the other thread's number it saw when it started (cover).  A get that
 * returns thread T's write s is stale if an operation that started after
 * that write completed has itself completed before the get began:
 *   s < done[T]                (T wrote again or flushed since), or
 *   s <= cover[U]              (U's later operation started after s was done).
 * Every page must also be intact and be the handle's.  At the end, each
 * handle must hold the last write of one thread, or be empty only if a
 * thread's last operation on it was a flush or a refused put (no lost page).
 */
#define R_HANDLES 8

struct race {
	int pool;
	u64 seq[2][R_HANDLES];		/* private to thread t */
	bool last_ok[2][R_HANDLES];	/* t's last op was a stored put */
	u64 done[2][R_HANDLES];		/* published by t */
	u64 cover[2][R_HANDLES];	/* published by t */
};

static void race_op(struct worker *w, struct race *r, u64 *rs)
{
	u32 x = rnd(rs), h = x % R_HANDLES, op = (x >> 8) % 100;
	int t = w->id, u = !t, ret;
	u64 oid = h & 1, seq, cov;
	u32 index = h >> 1;
	struct pat pt;

	if (op < 50) {			/* get */
		/* acquires pair with u's releases after its ops */
		u64 d = smp_load_acquire(&r->done[u][h]);
		/* (a second, for the second published value) */
		u64 c = smp_load_acquire(&r->cover[u][h]);

		page_poison(w->out);
		ret = tmem_get_page(r->pool, oid, index, w->out);
		if (ret == -ENOENT)
			return;
		if (ret) {
			worker_error(w, "get %d", ret);
			return;
		}
		if (!pat_decode(w->out, r->pool, &pt) || pt.oid != oid ||
		    pt.index != index || pt.writer > 1) {
			worker_error(w, "corrupt page in handle %u", h);
			return;
		}
		if (pt.writer == t) {
			if (pt.gen != r->seq[t][h] || !r->last_ok[t][h] ||
			    pt.gen <= c)
				worker_error(w, "stale own write %llu in handle %u (own %llu%s, covered to %llu)",
					     pt.gen, h, r->seq[t][h],
					     r->last_ok[t][h] ? "" : " gone",
					     c);
		} else if (pt.gen < d || pt.gen <= r->cover[t][h]) {
			worker_error(w, "stale write %llu of the other thread in handle %u (done %llu, covered to %llu)",
				     pt.gen, h, d, r->cover[t][h]);
		}
		return;
	}
	seq = ++r->seq[t][h];
	/* what u had completed before this op starts */
	cov = smp_load_acquire(&r->done[u][h]);
	if (op < 85) {			/* put */
		pt = (struct pat){ .tag = r->pool, .oid = oid, .index = index,
				   .writer = t, .gen = seq };
		pat_fill(w->in, &pt);
		ret = tmem_put_page(r->pool, oid, index, w->in);
		if (ret && ret != -ENOMEM && ret != -ENOSPC)
			worker_error(w, "put %d", ret);
		r->last_ok[t][h] = !ret;
	} else {			/* flush_page */
		tmem_flush_page(r->pool, oid, index);
		r->last_ok[t][h] = false;
	}
	/* publish after the op completed: pairs with u's acquires */
	smp_store_release(&r->cover[t][h], cov);
	/* (a second, for the second published value) */
	smp_store_release(&r->done[t][h], seq);
}

static int race_thread(void *arg)
{
	struct worker *w = arg;
	u64 rs = 0x9876543ULL * (w->id + 3);
	unsigned int n;

	for (n = 0; n < stress_ops; n++) {
		race_op(w, w->shared, &rs);
		if (!(n & 63))
			cond_resched();
	}
	kthread_complete_and_exit(&w->done, 0);
}

static void test_concurrency_race(struct kunit *test)
{
	struct worker w[2] = {};
	struct race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u32 h;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->pool = new_pool(test, true);
	run_workers(test, race_thread, r, w);

	for (h = 0; h < R_HANDLES; h++) {
		struct tctx *c = test->priv;
		bool any_gone = (r->seq[0][h] && !r->last_ok[0][h]) ||
				(r->seq[1][h] && !r->last_ok[1][h]) ||
				(!r->seq[0][h] && !r->seq[1][h]);
		struct pat pt;
		int ret;

		page_poison(c->out);
		ret = tmem_get_page(r->pool, h & 1, h >> 1, c->out);
		if (ret == -ENOENT) {
			KUNIT_EXPECT_TRUE_MSG(test, any_gone,
					      "handle %u lost its page", h);
			continue;
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_ASSERT_TRUE(test, pat_decode(c->out, r->pool, &pt));
		KUNIT_ASSERT_LE(test, pt.writer, 1U);
		KUNIT_EXPECT_EQ_MSG(test, pt.gen, r->seq[pt.writer][h],
				    "handle %u: not the last write of thread %u",
				    h, pt.writer);
		KUNIT_EXPECT_TRUE(test, r->last_ok[pt.writer][h]);
	}
}

static struct kunit_case tmem_core_cases[] = {
	KUNIT_CASE(test_put_copies),
	KUNIT_CASE(test_persistent_get_not_destructive),
	KUNIT_CASE(test_ephemeral_get_destructive),
	KUNIT_CASE(test_put_put_get_persistent),
	KUNIT_CASE(test_put_put_get_ephemeral),
	KUNIT_CASE(test_put_refused_drops_old),
	KUNIT_CASE(test_put_refused_full_drops_old),
	KUNIT_CASE(test_get_get),
	KUNIT_CASE(test_flush_page),
	KUNIT_CASE(test_flush_object),
	KUNIT_CASE(test_flush_range),
	KUNIT_CASE(test_destroy_pool),
	KUNIT_CASE(test_pool_flags),
	KUNIT_CASE(test_default_store),
	KUNIT_CASE(test_capacity_persistent),
	KUNIT_CASE(test_capacity_ephemeral_lru),
	KUNIT_CASE(test_lru_across_pools),
	KUNIT_CASE(test_lru_shards),
	KUNIT_CASE(test_capacity_mixed),
	KUNIT_CASE(test_persistent_fill),
	KUNIT_CASE(test_shrinker),
	KUNIT_CASE(test_destroy_many),
	KUNIT_CASE(test_destroy_many_objects),
	KUNIT_CASE(test_flush_object_many),
	KUNIT_CASE(test_concurrency_model),
	KUNIT_CASE(test_concurrency_race),
	{}
};

static struct kunit_suite tmem_core_suite = {
	.name = "tmem_core",
	.init = tmem_test_init,
	.exit = tmem_test_exit,
	.test_cases = tmem_core_cases,
};

/* ---- the compressing backend ------------------------------------------- */

/*
 * The compressors new puts use when a case starts (persistent, ephemeral);
 * restored at its end.
 */
static char comp_saved[2][CRYPTO_MAX_ALG_NAME];

static int tmem_compress_test_init(struct kunit *test)
{
	tb_inner = &tmem_backend_compress;
	strscpy(comp_saved[0], tmem_backend_compress.compressor(false),
		sizeof(comp_saved[0]));
	strscpy(comp_saved[1], tmem_backend_compress.compressor(true),
		sizeof(comp_saved[1]));
	return tmem_test_init_store(test, kunit_kzalloc(test,
							sizeof(struct tctx),
							GFP_KERNEL));
}

static void tmem_compress_test_exit(struct kunit *test)
{
	tmem_test_exit(test);
	KUNIT_EXPECT_EQ(test, tmem_compress_select_for(false, comp_saved[0]), 0);
	KUNIT_EXPECT_EQ(test, tmem_compress_select_for(true, comp_saved[1]), 0);
	tb_inner = &tmem_backend_ram;
}

enum page_kind {
	KIND_ZERO,		/* all zero */
	KIND_SAME,		/* one non-zero word repeated, bit 0 set */
	KIND_SAME_EVEN,		/* one non-zero word repeated, bit 0 clear */
	KIND_TEXT,		/* words and numbers, like a log */
	KIND_RANDOM,		/* incompressible */
	KIND_LAST_BYTE,		/* zeros, then one byte 1 at the very end */
	KIND_LAST_WORD,		/* one word repeated but the last */
	KIND_FIRST_WORD,	/* one word repeated but the first */
	NR_KINDS
};

static const char * const kind_names[NR_KINDS] = {
	"zero", "same-filled", "same-filled-even", "text", "random",
	"zeros+last byte", "last word differs", "first word differs",
};

static bool kind_same_filled(enum page_kind k)
{
	return k == KIND_ZERO || k == KIND_SAME || k == KIND_SAME_EVEN;
}

static void kind_fill(struct page *page, enum page_kind k, u64 seed)
{
	static const char * const words[] = {
		"page", "cache", "swap", "tmem", "object", "index", "pool",
		"flush", "the", "of", "and", "kernel", "\n",
	};
	const unsigned int last = PAGE_SIZE / sizeof(u64) - 1;
	u64 *w = kmap_local_page(page);
	char *b = (char *)w;
	unsigned int i, off = 0;

	switch (k) {
	case KIND_ZERO:
		memset(b, 0, PAGE_SIZE);
		break;
	case KIND_SAME:
	case KIND_SAME_EVEN:
	case KIND_LAST_WORD:
	case KIND_FIRST_WORD:
		for (i = 0; i <= last; i++)
			w[i] = (mix64(seed) | 1) ^ (k == KIND_SAME_EVEN);
		if (k == KIND_LAST_WORD)
			w[last] ^= 0x100;
		if (k == KIND_FIRST_WORD)
			w[0] ^= 0x100;
		break;
	case KIND_TEXT:
		for (i = 0; off < PAGE_SIZE - 1; i++)
			off += scnprintf(b + off, PAGE_SIZE - off, "%s %llu ",
					 words[mix64(seed + i) % ARRAY_SIZE(words)],
					 mix64(seed ^ i) % 1000);
		b[PAGE_SIZE - 1] = '\n';
		break;
	case KIND_RANDOM:
		for (i = 0; i <= last; i++)
			w[i] = mix64(seed + i);
		break;
	case KIND_LAST_BYTE:
		memset(b, 0, PAGE_SIZE);
		b[PAGE_SIZE - 1] = 1;
		break;
	default:
		break;
	}
	kunmap_local(w);
}

static bool pages_equal(struct page *a, struct page *b)
{
	void *pa = kmap_local_page(a), *pb = kmap_local_page(b);
	bool eq = !memcmp(pa, pb, PAGE_SIZE);

	kunmap_local(pb);
	kunmap_local(pa);
	return eq;
}

/*
 * Put a page of kind @k under (@pool, @oid, @index) and read it back:
 * what a compressing store must answer for it (random pages refused as
 * incompressible, the rest byte for byte).
 */
static void round_trip(struct kunit *test, int pool, u64 oid, u32 index,
		       enum page_kind k, const char *comp)
{
	struct tctx *c = test->priv;
	int ret;

	kind_fill(c->in, k, oid * 1000 + index);
	ret = tmem_put_page(pool, oid, index, c->in);
	if (k == KIND_RANDOM) {
		KUNIT_EXPECT_EQ_MSG(test, ret, -E2BIG, "%s, %s page", comp,
				    kind_names[k]);
		expect_miss(test, pool, oid, index);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s, %s page", comp, kind_names[k]);
	page_poison(c->out);
	KUNIT_EXPECT_EQ_MSG(test, tmem_get_page(pool, oid, index, c->out), 0,
			    "%s, %s page", comp, kind_names[k]);
	KUNIT_EXPECT_TRUE_MSG(test, pages_equal(c->in, c->out),
			      "%s, %s page: data differs", comp, kind_names[k]);
}

/* The compressors new puts use: @persistent (preswap), @ephemeral (precache). */
static void expect_compressors(struct kunit *test, const char *persistent,
			       const char *ephemeral)
{
	KUNIT_EXPECT_STREQ(test, tmem_backend_compress.compressor(false),
			   persistent);
	KUNIT_EXPECT_STREQ(test, tmem_backend_compress.compressor(true),
			   ephemeral);
}

/* Every page kind, with each compressor, in both kinds of pool. */
static void test_compress_round_trip(struct kunit *test)
{
	static const char * const comps[] = { "lz4", "lzo-rle", "zstd" };
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	struct tmem_stats st;
	unsigned int i, k, same = 0, random = 0, stored = 0;

	tmem_store_set_max_pages(c->store, 1024);
	for (i = 0; i < ARRAY_SIZE(comps); i++) {
		KUNIT_ASSERT_EQ_MSG(test, tmem_compress_select(comps[i]), 0,
				    "compressor %s", comps[i]);
		expect_compressors(test, comps[i], comps[i]);
		for (k = 0; k < NR_KINDS; k++) {
			round_trip(test, pp, i, k, k, comps[i]);
			round_trip(test, pe, i, k, k, comps[i]);
			if (kind_same_filled(k))
				same++;
			else if (k == KIND_RANDOM)
				random++;
			else
				stored++;
		}
	}
	st = pool_stats(test, pp);
	/* persistent pages stay: same-filled ones without a backend object */
	KUNIT_EXPECT_EQ(test, st.same_filled, (s64)same);
	KUNIT_EXPECT_EQ(test, st.pages, (s64)(same + stored));
	KUNIT_EXPECT_EQ(test, st.refused_incompressible, (u64)random);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), (int)stored);
	/* ephemeral gets took theirs */
	st = pool_stats(test, pe);
	KUNIT_EXPECT_EQ(test, st.pages, 0LL);
	KUNIT_EXPECT_EQ(test, st.same_filled, 0LL);
	KUNIT_EXPECT_EQ(test, st.refused_incompressible, (u64)random);
}

/* A page that differs from same-filled only in its last (or first) word,
 * or in its very last byte, is stored compressed and comes back whole.
 */
static void test_not_same_filled(struct kunit *test)
{
	static const enum page_kind kinds[] = {
		KIND_LAST_WORD, KIND_FIRST_WORD, KIND_LAST_BYTE,
	};
	int p = new_pool(test, true);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		round_trip(test, p, 5, i, kinds[i], "current");
	KUNIT_EXPECT_EQ(test, pool_stats(test, p).same_filled, 0LL);
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), (int)ARRAY_SIZE(kinds));
}

/* Same-filled pages cost no backend object and only their metadata. */
static void test_same_filled_no_allocation(struct kunit *test)
{
	int pp = new_pool(test, true), pe = new_pool(test, false);
	struct tmem_stats st;
	u32 i;

	for (i = 0; i < 200; i++) {
		round_trip(test, pp, 1, i, i & 1 ? KIND_SAME : KIND_ZERO, "-");
		/* overwrite a same-filled slot with the other parity */
		round_trip(test, pp, 2, i % 7, i & 1 ? KIND_SAME_EVEN : KIND_SAME,
			   "-");
		round_trip(test, pe, 1, i, KIND_SAME_EVEN, "-");
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&tb_live), 0);
	st = pool_stats(test, pp);
	KUNIT_EXPECT_EQ(test, st.pages, 207LL);
	KUNIT_EXPECT_EQ(test, st.same_filled, 207LL);
	KUNIT_EXPECT_LE(test, st.bytes, 207LL * 64);
}

/*
 * Capacity is memory: a store of 8 pages holds many more compressed pages,
 * never more bytes than its limit, and refuses (counted as full) after.
 */
static void test_compress_capacity_bytes(struct kunit *test)
{
	struct tctx *c = test->priv;
	int p = new_pool(test, true), e = new_pool(test, false);
	struct tmem_stats st;
	u32 i, n = 0;
	int ret = 0;

	tmem_store_set_max_pages(c->store, 8);
	for (i = 0; i < 1000 && !ret; i++) {
		ret = put(test, p, 1, i, i);
		if (!ret)
			n++;
	}
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	/* pattern pages compress to about a sixth: at least twice as many */
	KUNIT_EXPECT_GE(test, n, 16U);
	st = pool_stats(test, p);
	KUNIT_EXPECT_EQ(test, st.pages, (s64)n);
	KUNIT_EXPECT_LE(test, st.bytes, 8LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, st.refused_full, 1ULL);
	for (i = 0; i < n; i++)
		expect_page(test, p, 1, i, i);

	/* ephemeral pages evict each other by bytes, the oldest first */
	KUNIT_EXPECT_EQ(test, tmem_flush_object(p, 1), 0);
	for (i = 0; i < 1000; i++)
		PUT_OK(test, e, 1, i, i);
	st = pool_stats(test, e);
	KUNIT_EXPECT_GE(test, st.pages, 16LL);
	KUNIT_EXPECT_LE(test, st.bytes, 8LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, (u64)st.pages + st.evicted, 1000ULL);
	KUNIT_EXPECT_LE(test, tmem_store_shrink_count(c->store), 8UL);
	expect_page(test, e, 1, 999, 999);
	expect_miss(test, e, 1, 0);

	/*
	 * the shrinker counts pages of memory but drops stored pages: one
	 * unit scanned evicts exactly one page (the oldest), not a page of
	 * memory's worth of them
	 */
	st = pool_stats(test, e);
	i = st.evicted;			/* the oldest left: 0 .. i - 1 went */
	KUNIT_EXPECT_LT(test, tmem_store_shrink_count(c->store),
			(unsigned long)st.pages);
	KUNIT_EXPECT_EQ(test, tmem_store_shrink_scan(c->store, 1), 1UL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, e).pages, st.pages - 1);
	KUNIT_EXPECT_EQ(test, pool_stats(test, e).shrunk, st.shrunk + 1);
	expect_miss(test, e, 1, i);
	expect_page(test, e, 1, i + 1, i + 1);
}

/* Changing the compressor applies to new puts; stored pages stay readable. */
static void test_compress_switch(struct kunit *test)
{
	static const char * const comps[] = { "lz4", "zstd", "lzo-rle", "lz4" };
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	u32 i, j;

	tmem_store_set_max_pages(c->store, 1024);
	for (j = 0; j < ARRAY_SIZE(comps); j++) {
		KUNIT_ASSERT_EQ(test, tmem_compress_select(comps[j]), 0);
		for (i = 0; i < 32; i++) {
			PUT_OK(test, pp, j, i, j);
			PUT_OK(test, pe, j, i, j);
		}
	}
	/* an unknown name changes nothing */
	KUNIT_EXPECT_EQ(test, tmem_compress_select("no-such-compressor"),
			-EINVAL);
	expect_compressors(test, "lz4", "lz4");
	for (j = 0; j < ARRAY_SIZE(comps); j++)
		for (i = 0; i < 32; i++) {
			expect_page(test, pp, j, i, j);
			expect_page(test, pe, j, i, j);
		}
}

/*
 * put_text_pages() - @n text pages (seeds 0 .. n - 1) under @oid of @pool,
 * each read back and checked (a persistent pool keeps them); returns the
 * bytes the pool is charged for them.  The pool holds nothing else.
 */
static s64 put_text_pages(struct kunit *test, int pool, u64 oid, u32 n)
{
	struct tctx *c = test->priv;
	s64 bytes;
	u32 i;

	for (i = 0; i < n; i++) {
		kind_fill(c->in, KIND_TEXT, i);
		KUNIT_ASSERT_EQ(test, tmem_put_page(pool, oid, i, c->in), 0);
	}
	bytes = pool_stats(test, pool).bytes;
	for (i = 0; i < n; i++) {
		kind_fill(c->in, KIND_TEXT, i);
		page_poison(c->out);
		KUNIT_EXPECT_EQ(test, tmem_get_page(pool, oid, i, c->out), 0);
		KUNIT_EXPECT_TRUE_MSG(test, pages_equal(c->in, c->out),
				      "text page %u differs", i);
	}
	tmem_flush_object(pool, oid);
	return bytes;
}

/*
 * compressor (persistent pools, preswap) and precache_compressor (ephemeral
 * pools, precache) are separate: setting one never changes what the other
 * user's puts are compressed with.  Seen through the bytes charged: zstd
 * packs these text pages tighter than lz4.
 */
static void test_compress_per_user(struct kunit *test)
{
	enum { N = 16 };
	struct tctx *c = test->priv;
	int pp = new_pool(test, true), pe = new_pool(test, false);
	s64 p_lz4, e_lz4, p_zstd, e_zstd;

	tmem_store_set_max_pages(c->store, 1024);
	KUNIT_ASSERT_EQ(test, tmem_compress_select("lz4"), 0);
	p_lz4 = put_text_pages(test, pp, 1, N);
	e_lz4 = put_text_pages(test, pe, 1, N);

	/* preswap's compressor to zstd: precache's puts stay lz4 */
	KUNIT_ASSERT_EQ(test, tmem_compress_select_for(false, "zstd"), 0);
	expect_compressors(test, "zstd", "lz4");
	p_zstd = put_text_pages(test, pp, 2, N);
	KUNIT_EXPECT_EQ(test, put_text_pages(test, pe, 2, N), e_lz4);
	KUNIT_EXPECT_LT(test, p_zstd, p_lz4);

	/* and precache's to zstd: preswap's is untouched by it */
	KUNIT_ASSERT_EQ(test, tmem_compress_select_for(false, "lz4"), 0);
	KUNIT_ASSERT_EQ(test, tmem_compress_select_for(true, "zstd"), 0);
	expect_compressors(test, "lz4", "zstd");
	e_zstd = put_text_pages(test, pe, 3, N);
	KUNIT_EXPECT_EQ(test, put_text_pages(test, pp, 3, N), p_lz4);
	KUNIT_EXPECT_LT(test, e_zstd, e_lz4);

	/* an unknown name for one user changes neither */
	KUNIT_EXPECT_EQ(test, tmem_compress_select_for(true, "no-such"), -EINVAL);
	expect_compressors(test, "lz4", "zstd");
	kunit_info(test, "%d text pages charged: persistent lz4 %lld, zstd %lld bytes; ephemeral lz4 %lld, zstd %lld bytes",
		   N, p_lz4, p_zstd, e_lz4, e_zstd);
}

static struct kunit_case tmem_compress_cases[] = {
	KUNIT_CASE(test_compress_round_trip),
	KUNIT_CASE(test_not_same_filled),
	KUNIT_CASE(test_same_filled_no_allocation),
	KUNIT_CASE(test_compress_capacity_bytes),
	KUNIT_CASE(test_compress_switch),
	KUNIT_CASE(test_compress_per_user),
	KUNIT_CASE(test_put_copies),
	KUNIT_CASE(test_persistent_get_not_destructive),
	KUNIT_CASE(test_ephemeral_get_destructive),
	KUNIT_CASE(test_put_put_get_persistent),
	KUNIT_CASE(test_put_put_get_ephemeral),
	KUNIT_CASE(test_put_refused_drops_old),
	KUNIT_CASE(test_get_get),
	KUNIT_CASE(test_flush_page),
	KUNIT_CASE(test_flush_object),
	KUNIT_CASE(test_flush_range),
	KUNIT_CASE(test_destroy_pool),
	KUNIT_CASE(test_destroy_many),
	KUNIT_CASE(test_flush_object_many),
	KUNIT_CASE(test_concurrency_model),
	KUNIT_CASE(test_concurrency_race),
	{}
};

static struct kunit_suite tmem_compress_suite = {
	.name = "tmem_compress",
	.init = tmem_compress_test_init,
	.exit = tmem_compress_test_exit,
	.test_cases = tmem_compress_cases,
};
kunit_test_suites(&tmem_core_suite, &tmem_compress_suite);

MODULE_DESCRIPTION("KUnit tests of the tmem core");
MODULE_LICENSE("GPL");
