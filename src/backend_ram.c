// SPDX-License-Identifier: GPL-2.0
/*
 * tmem RAM backend: every stored page is a plain copy in a page of its own.
 *
 * The simplest backend and the reference for the others: no compression, no
 * metadata beyond the struct page, so the handle is the page pointer (an
 * aligned pointer, as the core requires).  Pages
 * come from the page allocator with the core's non-sleeping mask.  The byte
 * count is kept per CPU (no shared cache line on the put path) and summed
 * when read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include "backend.h"

/* Pages held, per CPU; a CPU's value may be negative, the sum is not. */
static DEFINE_PER_CPU(long, ram_pages);

static int ram_store(struct page *page, gfp_t gfp, bool ephemeral,
		     unsigned long *handle, unsigned int *charged)
{
	/* only ever reached through kmap, so highmem will do */
	struct page *copy = alloc_page(gfp | __GFP_HIGHMEM);

	if (!copy)
		return -ENOMEM;
	copy_highpage(copy, page);
	this_cpu_inc(ram_pages);
	*handle = (unsigned long)copy;
	*charged = PAGE_SIZE;
	return 0;
}

static int ram_load(unsigned long handle, struct page *page)
{
	copy_highpage(page, (struct page *)handle);
	return 0;
}

static void ram_free(unsigned long handle)
{
	__free_page((struct page *)handle);
	this_cpu_dec(ram_pages);
}

static unsigned int ram_size(unsigned long handle)
{
	return PAGE_SIZE;
}

static u64 ram_bytes_used(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(ram_pages, cpu);
	return sum > 0 ? (u64)sum << PAGE_SHIFT : 0;
}

const struct tmem_backend tmem_backend_ram = {
	.name = "ram",
	.store = ram_store,
	.load = ram_load,
	.free = ram_free,
	.size = ram_size,
	.bytes_used = ram_bytes_used,
};
EXPORT_SYMBOL_NS_GPL(tmem_backend_ram, TMEM);
