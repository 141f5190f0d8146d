// SPDX-License-Identifier: GPL-2.0
/*
 * tmem_bench.ko: a one-shot microbenchmark of the tmem core.
 *
 * At load it measures, in a private store with the RAM backend and a high
 * limit, the cost of a put and of a get of one 4 KiB page with 1 K, 64 K
 * and 1 M pages stored (or the largest count that fits in the memory
 * available), next to a bare 4 KiB memcpy timed in the same run; then the
 * throughput of 1, 2 and all online CPUs' threads on a full store, for an
 * ephemeral and a persistent pool, puts, gets and a mix, beside the same
 * threads doing bare memcpys (the ceiling the machine, or the emulator,
 * allows).  It prints a table to the kernel log, every line starting
 * "tmem_bench:".
 *
 * Columns: fill = ns per put while growing to the size; memcpy = a bare
 * 4 KiB memcpy; ram = the RAM backend alone (page allocation + copy + free,
 * the floor under a replacing put); put, get = ns per op, then each over
 * memcpy, then each over its own figure at 1 K pages.
 *
 * Puts replace pages at random handles among those stored (so the size
 * stays put) and gets read random stored pages; handles are spread over 64
 * objects, each thread using its own share of them in the thread runs.
 * A thread run lasts thread_ms (every thread stops at that time, so a
 * host that preempts one vCPU for a while does not stretch one short
 * run), and each thread figure is the median of three runs: with runs of
 * a fixed 20000 ops (under 100 ms for a get under TCG) the 2-thread
 * speedup of one case varied from 1.3x to 1.9x between runs.
 *
 * Then the compressing backend, for each of lz4, lzo-rle and zstd, in a
 * private store of its own: ns per put and per get of a text page, for an
 * ephemeral pool (each put timed with interrupts off, as a precache put
 * runs under the page cache's i_pages lock: the mean and the longest such
 * stretch are the interrupts-off time it costs) and for a persistent pool
 * (zsmalloc), and the bytes charged per page.  The module's compressor
 * parameters are switched for this and set back afterwards.
 *
 * It is a benchmark, not a test: it never fails.  Its init returns
 * -ECANCELED once the table is printed so that it does not stay loaded
 * (insmod then reports "Operation canceled"; that is expected).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/crypto.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "backend.h"
#include "tmem.h"

MODULE_IMPORT_NS(TMEM);

static unsigned long max_pages = 1UL << 20;
module_param(max_pages, ulong, 0444);
MODULE_PARM_DESC(max_pages, "Largest number of pages to store (default 1M)");
static unsigned int mem_percent = 50;
module_param(mem_percent, uint, 0444);
MODULE_PARM_DESC(mem_percent, "Use at most this percent of available memory (default 50)");
static unsigned int ops = 20000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "Operations per measurement (default 20000)");
static unsigned int thread_ms = 300;
module_param(thread_ms, uint, 0444);
MODULE_PARM_DESC(thread_ms, "Length of each thread run in ms; each figure is the median of 3 (default 300)");

#define NOBJ		64
#define RESCHED_MASK	1023

struct bench {
	int pool;
	unsigned long size;	/* pages stored, handles 0 .. size - 1 */
	struct page *src, *dst;
};

static inline u64 handle_oid(unsigned long n)
{
	return n % NOBJ;
}

static inline u32 handle_index(unsigned long n)
{
	return n / NOBJ;
}

static u32 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 32;
}

/*
 * Handle number @r of all of @size (@nshares <= 1), or of share @share of
 * @nshares: the handles whose object number is @share modulo @nshares, so
 * that concurrent threads never touch one handle (nor, mostly, one bucket).
 */
static unsigned long pick(unsigned long size, u32 r, int share, int nshares)
{
	unsigned long n = ((u64)r * size) >> 32, o;

	if (nshares <= 1)
		return n;
	o = n % NOBJ;
	o = o - o % nshares + share;
	if (o >= NOBJ)
		o -= nshares;
	n = n - n % NOBJ + o;
	return n < size ? n : n - NOBJ;
}

/* ns per op, times 10 */
static u64 per_op10(u64 ns, unsigned long n)
{
	return n ? div64_u64(ns * 10, n) : 0;
}

static u64 time_memcpy(struct bench *b, unsigned long n)
{
	void *to = page_address(b->dst), *from = page_address(b->src);
	unsigned long i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		memcpy(to, from, PAGE_SIZE);
		barrier_data(to);
	}
	return per_op10(ktime_get_ns() - t0, n);
}

/* The RAM backend alone: store (page allocation + copy) and free. */
static u64 time_backend(struct bench *b, unsigned long n)
{
	unsigned long i, handle;
	unsigned int charged;
	u64 t0 = ktime_get_ns(), ns = 0;

	for (i = 0; i < n; i++) {
		if (tmem_backend_ram.store(b->src, GFP_NOWAIT | __GFP_NOWARN, false,
					   &handle, &charged))
			continue;
		tmem_backend_ram.free(handle);
		if (!(i & RESCHED_MASK)) {
			ns += ktime_get_ns() - t0;
			cond_resched();
			t0 = ktime_get_ns();
		}
	}
	return per_op10(ns + ktime_get_ns() - t0, n);
}

/* Store handles b->size .. @to - 1; stops early when a put is refused. */
static u64 fill(struct bench *b, unsigned long to)
{
	unsigned long from = b->size, n;
	u64 t0 = ktime_get_ns(), ns = 0;

	for (n = from; n < to; n++) {
		if (tmem_put_page(b->pool, handle_oid(n), handle_index(n),
				  b->src))
			break;
		if (!(n & RESCHED_MASK)) {
			ns += ktime_get_ns() - t0;
			cond_resched();
			t0 = ktime_get_ns();
		}
	}
	b->size = n;
	return per_op10(ns + ktime_get_ns() - t0, n - from);
}

/* @n random puts (replacing) or gets among the stored pages; ns*10/op. */
static u64 run_ops(struct bench *b, unsigned long n, bool do_put,
		   struct page *page, u64 seed, unsigned long *failed)
{
	u64 t0 = ktime_get_ns(), ns = 0, s = seed | 1;
	unsigned long i, h;
	int ret;

	for (i = 0; i < n; i++) {
		h = pick(b->size, rnd(&s), 0, 1);
		if (do_put)
			ret = tmem_put_page(b->pool, handle_oid(h),
					    handle_index(h), page);
		else
			ret = tmem_get_page(b->pool, handle_oid(h),
					    handle_index(h), page);
		if (ret)
			(*failed)++;
		if (!(i & RESCHED_MASK)) {
			ns += ktime_get_ns() - t0;
			cond_resched();
			t0 = ktime_get_ns();
		}
	}
	return per_op10(ns + ktime_get_ns() - t0, n);
}

/* a figure kept times 10, printed with one decimal */
static const char *fmt10(char *buf, u64 v10)
{
	u32 tenths;
	u64 units = div_u64_rem(v10, 10, &tenths);

	snprintf(buf, 24, "%llu.%u", units, tenths);
	return buf;
}

static u64 ratio10(u64 a10, u64 b10)
{
	return b10 ? div64_u64(a10 * 10, b10) : 0;
}

/* ---- threads on a full store ------------------------------------------ */

#define THREAD_STORE	16384	/* pages of the store the threads share */
#define MAX_THREADS	8

enum thread_op { OP_PUT, OP_GET, OP_MIX, OP_MEMCPY };
static const char * const op_names[] = { "put", "get", "mix", "memcpy" };

struct worker {
	struct bench *b;
	struct completion done;
	struct page *page, *src;
	atomic_t *go;
	enum thread_op op;
	bool ephemeral;
	int share, nshares;
	u64 ns;			/* wall time of the worker's ops */
	unsigned long hits, misses;	/* ops done: hits + misses */
};

/*
 * One thread's operations of kind w->op on its share of the handles, for
 * thread_ms.
 * put: a put at a random handle (replacing; into a full ephemeral store it
 * evicts the oldest page). get: a get at a random handle; in an ephemeral
 * pool a hit takes the page out, so it is put back at once (the pair is
 * the op) to keep the store full. mix: a put and a get at two random
 * handles, alternately. memcpy: a bare 4 KiB copy, the ceiling the same
 * threads reach with no tmem at all.
 */
static int worker_fn(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	u64 s = 0x9e3779b9ULL * (w->share + 1) + w->op, t0, limit;
	void *to = page_address(w->page), *from = page_address(w->src);
	unsigned long i, h;
	int ret;

	atomic_dec(w->go);
	while (atomic_read(w->go) > 0)
		cpu_relax();
	t0 = ktime_get_ns();
	limit = (u64)max(thread_ms, 1U) * NSEC_PER_MSEC;
	for (i = 0; ; i++) {
		if (!(i & 255) && ktime_get_ns() - t0 >= limit)
			break;
		h = pick(b->size, rnd(&s), w->share, w->nshares);
		switch (w->op) {
		case OP_MIX:
			if (i & 1)
				goto get;
			fallthrough;
		case OP_PUT:
			ret = tmem_put_page(b->pool, handle_oid(h),
					    handle_index(h), w->src);
			break;
		case OP_GET:
get:
			ret = tmem_get_page(b->pool, handle_oid(h),
					    handle_index(h), w->page);
			if (!ret && w->ephemeral && w->op == OP_GET)
				tmem_put_page(b->pool, handle_oid(h),
					      handle_index(h), w->page);
			break;
		default:
			memcpy(to, from, PAGE_SIZE);
			barrier_data(to);
			ret = 0;
		}
		if (ret)
			w->misses++;
		else
			w->hits++;
		if (!(i & RESCHED_MASK))
			cond_resched();
	}
	w->ns = ktime_get_ns() - t0;
	kthread_complete_and_exit(&w->done, 0);
}

/*
 * Run @nr workers of @op on distinct CPUs, each for thread_ms on its own
 * share of the handles. Return: operations per ms of all of them together
 * (over the longest worker's wall time), 0 on error; *@hitp gets the
 * percentage of operations that hit (were not missed or refused).
 */
static u64 run_threads_once(struct bench *b, int nr, enum thread_op op,
			    bool ephemeral, unsigned int *hitp)
{
	struct task_struct *t[MAX_THREADS] = {};
	struct worker w[MAX_THREADS] = {};
	unsigned long done = 0, missed = 0;
	atomic_t go;
	int cpu = -1, i;
	u64 ns = 0;
	bool ok = true;

	atomic_set(&go, nr);
	*hitp = 0;
	for (i = 0; i < nr; i++) {
		w[i] = (struct worker){ .b = b, .go = &go, .op = op,
					.ephemeral = ephemeral, .share = i,
					.nshares = nr };
		init_completion(&w[i].done);
		w[i].page = alloc_page(GFP_KERNEL);
		w[i].src = alloc_page(GFP_KERNEL);
		t[i] = kthread_create(worker_fn, &w[i], "tmem_bench/%d", i);
		if (IS_ERR(t[i]) || !w[i].page || !w[i].src) {
			ok = false;
			continue;
		}
		memset(page_address(w[i].src), 0x5a + i, PAGE_SIZE);
		cpu = cpumask_next(cpu, cpu_online_mask);
		kthread_bind(t[i], cpu);
	}
	for (i = 0; i < nr; i++) {
		if (IS_ERR(t[i]))
			continue;
		if (ok)
			wake_up_process(t[i]);
		else
			kthread_stop(t[i]);	/* never woken: never runs */
	}
	for (i = 0; i < nr; i++) {
		if (ok && !IS_ERR(t[i])) {
			wait_for_completion(&w[i].done);
			ns = max(ns, w[i].ns);
			done += w[i].hits + w[i].misses;
			missed += w[i].misses;
		}
		if (w[i].page)
			__free_page(w[i].page);
		if (w[i].src)
			__free_page(w[i].src);
	}
	if (!ok || !ns || !done)
		return 0;
	*hitp = 100 - missed * 100 / done;
	return div64_u64((u64)done * NSEC_PER_MSEC, ns);
}

/* The median of three runs of run_threads_once(); *@hitp from the median. */
static u64 run_threads(struct bench *b, int nr, enum thread_op op,
		       bool ephemeral, unsigned int *hitp)
{
	unsigned int hit[3];
	u64 r[3];
	int i, m;

	for (i = 0; i < 3; i++)
		r[i] = run_threads_once(b, nr, op, ephemeral, &hit[i]);
	if (r[0] > r[1])
		m = r[1] > r[2] ? 1 : (r[0] > r[2] ? 2 : 0);
	else
		m = r[0] > r[2] ? 0 : (r[1] > r[2] ? 2 : 1);
	*hitp = hit[m];
	return r[m];
}

/*
 * Threads: 1, 2 and every online CPU (at most MAX_THREADS) on a full
 * store of THREAD_STORE pages (RAM backend), for an ephemeral pool (full:
 * every new page evicts the oldest), the same with one LRU shard (exact
 * order, one lock: what the store had before the LRU was sharded), and a
 * persistent one (filled to 90 %,
 * so that puts replace pages instead of being refused), then the memcpy
 * ceiling. Prints ops/ms, the speedup over one thread, and ns per op of
 * one thread over a 4 KiB memcpy's.
 */
static void bench_threads(void)
{
	static const char * const pool_kinds[] = {
		"persistent", "ephemeral", "ephemeral-1lru",
	};
	static const enum thread_op kinds[] = { OP_PUT, OP_GET, OP_MIX };
	int counts[3] = { 1, 2, min_t(int, num_online_cpus(), MAX_THREADS) };
	int nc = counts[2] > 2 ? 3 : 2, k, c, e;
	unsigned int hit;
	u64 r[3], one_ns10, mc_ns10 = 0;
	struct tmem_store *store;
	struct bench b = {};
	char f[3][24];

	/* the ceiling first: it also gives the memcpy ns of one thread */
	for (c = 0; c < nc; c++)
		r[c] = run_threads(&b, counts[c], OP_MEMCPY, false, &hit);
	if (r[0])
		mc_ns10 = div64_u64(10ULL * NSEC_PER_MSEC, r[0]);
	pr_info("threads (%d CPUs online), runs of %u ms, median of 3, ops/ms (speedup over 1 thread):\n",
		num_online_cpus(), thread_ms);
	pr_info("  %-22s 1: %6llu  2: %6llu (%sx)\n", "memcpy 4 KiB (ceiling)",
		r[0], r[1], fmt10(f[0], ratio10(10 * r[1], 10 * r[0])));
	if (nc == 3)
		pr_info("  %-22s %d: %6llu (%sx)\n", "", counts[2], r[2],
			fmt10(f[1], ratio10(10 * r[2], 10 * r[0])));

	for (e = 2; e >= 0; e--) {
		store = tmem_store_create("bench-threads", THREAD_STORE, NULL);
		if (IS_ERR(store))
			return;
		if (e == 2)	/* one list, exact order: the unsharded LRU */
			tmem_store_lru_shards(store, 1);
		b = (struct bench){};
		b.pool = tmem_store_new_pool(store, NULL, TMEM_POOL_FLAGS(!e),
					     "threads");
		b.src = alloc_page(GFP_KERNEL);
		if (b.pool >= 0 && b.src) {
			memset(page_address(b.src), 0xa5, PAGE_SIZE);
			/*
			 * ephemeral: put twice what the store holds, so it is
			 * full and about half the handles miss
			 */
			fill(&b, e ? 2 * THREAD_STORE : THREAD_STORE * 9 / 10);
			for (k = 0; k < ARRAY_SIZE(kinds); k++) {
				unsigned int m[3] = {};

				for (c = 0; c < nc; c++)
					r[c] = run_threads(&b, counts[c], kinds[k],
							   e, &m[c]);
				one_ns10 = r[0] ? div64_u64(10ULL * NSEC_PER_MSEC,
							    r[0]) : 0;
				pr_info("  %-10s %-11s 1: %6llu  2: %6llu (%sx)  %s ns/op = %sx memcpy, %u%% hit\n",
					pool_kinds[e],
					op_names[kinds[k]], r[0], r[1],
					fmt10(f[0], ratio10(10 * r[1], 10 * r[0])),
					fmt10(f[1], one_ns10),
					fmt10(f[2], ratio10(one_ns10, mc_ns10)),
					m[0]);
				if (nc == 3)
					pr_info("  %-22s %d: %6llu (%sx)\n", "",
						counts[2], r[2],
						fmt10(f[0], ratio10(10 * r[2],
								    10 * r[0])));
			}
		}
		if (b.src)
			__free_page(b.src);
		tmem_store_destroy(store);
	}
}

static void bench_size(struct bench *b, unsigned long target, u64 *put1k,
		       u64 *get1k)
{
	char f[9][24];
	unsigned long failed = 0;
	u64 fill10, mc10, ram10, put10, get10;

	fill10 = fill(b, target);
	mc10 = time_memcpy(b, ops);
	ram10 = time_backend(b, ops);
	put10 = run_ops(b, ops, true, b->src, 0xabcdef, &failed);
	get10 = run_ops(b, ops, false, b->dst, 0x123457, &failed);
	if (!*put1k) {
		*put1k = put10;
		*get1k = get10;
	}
	pr_info("%8lu %10s %10s %10s %10s %6sx %10s %6sx %6sx %6sx%s\n",
		b->size, fmt10(f[0], fill10), fmt10(f[1], mc10),
		fmt10(f[8], ram10),
		fmt10(f[2], put10), fmt10(f[3], ratio10(put10, mc10)),
		fmt10(f[4], get10), fmt10(f[5], ratio10(get10, mc10)),
		fmt10(f[6], ratio10(put10, *put1k)),
		fmt10(f[7], ratio10(get10, *get1k)),
		b->size < target ? "  (largest that fit)" : "");
	if (failed)
		pr_info("  %lu operations refused or missed\n", failed);
}

/* ---- the compressing backend ------------------------------------------ */

#define COMP_PAGES	64	/* distinct text pages offered in turn */
#define COMP_HANDLES	4096	/* handles the puts cycle over */

static const char * const comp_names[] = { "lz4", "lzo-rle", "zstd" };

/* A page of words and numbers, like the text the guest's workloads write. */
static void text_fill(struct page *page, u64 seed)
{
	static const char * const words[] = {
		"memory", "page", "kernel", "swap", "cache", "file", "data",
		"time", "the", "of", "and", "\n",
	};
	char *b = page_address(page);
	unsigned int off = 0;
	u64 s = seed * 2654435761ULL + 1;

	while (off < PAGE_SIZE - 1)
		off += scnprintf(b + off, PAGE_SIZE - off, "%s %u ",
				 words[rnd(&s) % ARRAY_SIZE(words)],
				 rnd(&s) % 100000);
	b[PAGE_SIZE - 1] = '\n';
}

struct comp_run {
	u64 put10, put_max, get10;	/* ns*10 per op; longest put, ns */
	unsigned long failed;
	s64 bytes, pages;
};

/*
 * @n puts then @n gets in @pool of @store, cycling over COMP_HANDLES
 * handles and the text pages @src.  With @irqs_off each put runs with
 * interrupts disabled, as precache's does, and its duration is that
 * interrupts-off stretch.  Then one get per handle, each checked against
 * the page last put there (a mismatch or miss counts as failed).
 */
static void comp_ops(struct tmem_store *store, int pool, struct page **src,
		     struct page *dst, unsigned long n, bool irqs_off,
		     struct comp_run *r)
{
	unsigned long i, h, flags = 0;
	struct tmem_stats st;
	u64 t0, t, sum = 0;
	int ret;

	for (i = 0; i < n; i++) {
		struct page *p = src[i % COMP_PAGES];

		if (irqs_off)
			local_irq_save(flags);
		t0 = ktime_get_ns();
		ret = tmem_put_page(pool, handle_oid(i % COMP_HANDLES),
				    handle_index(i % COMP_HANDLES), p);
		t = ktime_get_ns() - t0;
		if (irqs_off)
			local_irq_restore(flags);
		sum += t;
		r->put_max = max(r->put_max, t);
		if (ret)
			r->failed++;
		if (!(i & RESCHED_MASK))
			cond_resched();
	}
	r->put10 = per_op10(sum, n);
	tmem_store_stats(store, &st);
	r->bytes = st.bytes;
	r->pages = st.pages;

	/* one get per handle (an ephemeral hit removes the page) */
	sum = 0;
	for (h = 0; h < COMP_HANDLES; h++) {
		/* the last put to handle h */
		unsigned long last = h + (n - 1 - h) / COMP_HANDLES * COMP_HANDLES;

		t0 = ktime_get_ns();
		ret = tmem_get_page(pool, handle_oid(h), handle_index(h), dst);
		sum += ktime_get_ns() - t0;
		if (ret || memcmp(page_address(dst),
				  page_address(src[last % COMP_PAGES]),
				  PAGE_SIZE))
			r->failed++;
		if (!(h & RESCHED_MASK))
			cond_resched();
	}
	r->get10 = per_op10(sum, COMP_HANDLES);
}

static void bench_compress(u64 mc10)
{
	struct page *src[COMP_PAGES] = {}, *dst = alloc_page(GFP_KERNEL);
	char old[2][CRYPTO_MAX_ALG_NAME], f[6][24];
	struct tmem_store *store;
	unsigned long n = max_t(unsigned int, ops, COMP_HANDLES);
	unsigned int c, i;
	int persist;

	strscpy(old[0], tmem_backend_compress.compressor(false), sizeof(old[0]));
	strscpy(old[1], tmem_backend_compress.compressor(true), sizeof(old[1]));
	store = tmem_store_create("bench-compress", 4 * COMP_HANDLES,
				  &tmem_backend_compress);
	if (IS_ERR(store) || !dst)
		goto out;
	for (i = 0; i < COMP_PAGES; i++) {
		src[i] = alloc_page(GFP_KERNEL);
		if (!src[i])
			goto out;
		text_fill(src[i], i);
	}
	pr_info("compressing backend: text pages, %lu puts and %u gets per figure (memcpy %s ns)\n",
		n, COMP_HANDLES, fmt10(f[0], mc10));
	pr_info("%-10s %-10s %10s %12s %10s %10s %9s\n", "compress", "pool",
		"put ns", "irqs-off max", "get ns", "bytes/page", "failed");
	for (c = 0; c < ARRAY_SIZE(comp_names); c++) {
		if (tmem_compress_select(comp_names[c])) {
			pr_info("%-10s not available in this kernel\n",
				comp_names[c]);
			continue;
		}
		for (persist = 0; persist <= 1; persist++) {
			struct comp_run r = {};
			int pool = tmem_store_new_pool(store, NULL,
						       TMEM_POOL_FLAGS(persist),
						       "bench-compress");

			if (pool < 0)
				break;
			comp_ops(store, pool, src, dst, n, !persist, &r);
			tmem_destroy_pool(pool);
			pr_info("%-10s %-10s %10s %12llu %10s %10lld %9lu\n",
				comp_names[c],
				persist ? "persistent" : "ephemeral",
				fmt10(f[1], r.put10),
				persist ? 0ULL : r.put_max,
				fmt10(f[2], r.get10),
				r.pages ? div64_s64(r.bytes, r.pages) : 0LL,
				r.failed);
		}
	}
	if (tmem_compress_select_for(false, old[0]) ||
	    tmem_compress_select_for(true, old[1]))
		pr_warn("could not set the compressors back to %s, %s\n",
			old[0], old[1]);
out:
	for (i = 0; i < COMP_PAGES; i++)
		if (src[i])
			__free_page(src[i]);
	if (dst)
		__free_page(dst);
	if (!IS_ERR_OR_NULL(store))
		tmem_store_destroy(store);
}

static int __init tmem_bench_init(void)
{
	unsigned long cap, avail = si_mem_available();
	u64 put1k = 0, get1k = 0, mc10;
	struct tmem_store *store;
	struct bench b = {};

	cap = min(max_pages, mult_frac(avail, min(mem_percent, 90U), 100));
	cap = max(cap, 1024UL);
	store = tmem_store_create("bench", cap + 1024, NULL);
	if (IS_ERR(store)) {
		pr_err("cannot create a store: %ld\n", PTR_ERR(store));
		return -ECANCELED;
	}
	b.pool = tmem_store_new_pool(store, NULL, TMEM_POOL_FLAGS(1), "bench");
	b.src = alloc_page(GFP_KERNEL);
	b.dst = alloc_page(GFP_KERNEL);
	if (b.pool < 0 || !b.src || !b.dst) {
		pr_err("cannot set up (pool %d)\n", b.pool);
		goto out;
	}
	memset(page_address(b.src), 0xa5, PAGE_SIZE);

	pr_info("persistent pool, backend ram, %u ops per figure, %u CPUs online, up to %lu pages\n",
		ops, num_online_cpus(), cap);
	pr_info("%8s %10s %10s %10s %10s %7s %10s %7s %7s %7s\n", "pages",
		"fill ns", "memcpy ns", "ram ns", "put ns", "/memcp", "get ns", "/memcp",
		"put/1K", "get/1K");
	bench_size(&b, 1024, &put1k, &get1k);
	bench_size(&b, min(65536UL, cap), &put1k, &get1k);

	if (cap > 65536)
		bench_size(&b, cap, &put1k, &get1k);
	mc10 = time_memcpy(&b, ops);
	/*
	 * Free the RAM store's pages (up to mem_percent of the memory
	 * available) first, so that the compressors are timed without that
	 * pressure on the page allocator.
	 */
	tmem_store_destroy(store);	/* destroys the pool too */
	store = NULL;
	bench_threads();
	bench_compress(mc10);
	pr_info("done\n");
out:
	if (b.src)
		__free_page(b.src);
	if (b.dst)
		__free_page(b.dst);
	if (store)
		tmem_store_destroy(store);
	/* one-shot: do not stay loaded */
	return -ECANCELED;
}
module_init(tmem_bench_init);

MODULE_DESCRIPTION("Microbenchmark of the tmem core (one-shot, never stays loaded)");
MODULE_LICENSE("GPL");
