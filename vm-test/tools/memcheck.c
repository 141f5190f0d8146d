// SPDX-License-Identifier: GPL-2.0
/*
 * memcheck: fill anonymous memory with a pattern that names each page and a
 * generation, then read every byte back and count mismatches.
 *
 * Every 64-bit word of page p in generation g holds pattern(p, g, word / 8),
 * so a page that comes back from swap (or tmem) with another page's data, an
 * older generation's data, or zeroes is caught. Each value fills 8 words in
 * a row, so a page compresses (lz4: to about a sixth) as real memory does;
 * -R makes every word differ (pattern(p, g, word)): incompressible pages,
 * which a compressing store refuses. -Z makes every fourth page same-filled
 * (one non-zero value in every word: pattern(p, g, 0)). Used by the guest
 * tests:
 *
 *   memcheck -m MIB [-g GENERATIONS] [-s SEED] [-p] [-f] [-H] [-R] [-Z]
 *            [-r READY_FILE -w GO_FILE]
 *
 * -f: after the last generation is written, fork; parent and child both
 * push the (now shared, copy-on-write) pages out and verify them, so one
 * swap slot is read back by two processes. -H: ask for transparent huge
 * pages (MADV_HUGEPAGE), so THP swap-out is exercised.
 *
 * With -p every generation is pushed out with MADV_PAGEOUT right after it is
 * written, so pages reach swap deterministically even when they fit in RAM.
 *
 * With -r/-w it writes generation 1, creates READY_FILE, waits until GO_FILE
 * exists, then verifies (so a test can swapoff or reload modules in between).
 * Prints "memcheck: pages=N generations=G mismatches=M" and exits 1 if M > 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGE 4096UL
#define WORDS (PAGE / sizeof(uint64_t))

static uint64_t seed = 0x746d656dULL;
static int incompressible, same_filled;

static inline uint64_t pattern(uint64_t page, uint64_t gen, uint64_t word)
{
	uint64_t x = (page + 1) * 0x9e3779b97f4a7c15ULL ^ (gen << 40) ^ seed;

	if (same_filled && page % 4 == 0)
		word = 0;
	else if (!incompressible)
		word /= 8;

	x ^= word * 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 31;
	return x;
}

static void fill(uint64_t *mem, size_t pages, uint64_t gen)
{
	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < WORDS; w++)
			mem[p * WORDS + w] = pattern(p, gen, w);
}

static size_t verify(const uint64_t *mem, size_t pages, uint64_t gen)
{
	size_t bad = 0;

	for (size_t p = 0; p < pages; p++) {
		for (size_t w = 0; w < WORDS; w++) {
			if (mem[p * WORDS + w] != pattern(p, gen, w)) {
				if (bad < 5)
					fprintf(stderr, "memcheck: page %zu word %zu gen %lu bad\n",
						p, w, (unsigned long)gen);
				bad++;
				break;
			}
		}
	}
	return bad;
}

static void wait_for(const char *path)
{
	struct stat st;

	while (stat(path, &st) != 0)
		usleep(100000);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	size_t mib = 64, pages, bad = 0;
	unsigned long gens = 1;
	uint64_t *mem;
	int opt, pageout = 0, forked = 0, huge = 0;

	while ((opt = getopt(argc, argv, "m:g:s:pfHRZr:w:")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'g': gens = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': pageout = 1; break;
		case 'f': forked = 1; break;
		case 'H': huge = 1; break;
		case 'R': incompressible = 1; break;
		case 'Z': same_filled = 1; break;
		case 'r': ready = optarg; break;
		case 'w': go = optarg; break;
		default:
			fprintf(stderr, "usage: memcheck -m MIB [-g GENS] [-s SEED] [-p] [-f] [-H] [-R] [-Z] [-r READY -w GO]\n");
			return 2;
		}
	}
	pages = mib * 1024 * 1024 / PAGE;
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	if (huge && madvise(mem, pages * PAGE, MADV_HUGEPAGE) != 0) {
		perror("madvise(MADV_HUGEPAGE)");
		return 2;
	}
	for (unsigned long g = 1; g <= gens; g++) {
		fill(mem, pages, g);
		if (pageout && madvise(mem, pages * PAGE, MADV_PAGEOUT) != 0) {
			perror("madvise(MADV_PAGEOUT)");
			return 2;
		}
		if (ready && g == 1) {
			FILE *f = fopen(ready, "w");

			if (f)
				fclose(f);
			wait_for(go);
		}
		if (forked && g == gens)
			break;
		bad += verify(mem, pages, g);
	}
	if (forked) {
		pid_t child = fork();
		int status = 0;

		if (child < 0) {
			perror("fork");
			return 2;
		}
		/* both push the shared pages out, then both read them */
		madvise(mem, pages * PAGE, MADV_PAGEOUT);
		bad += verify(mem, pages, gens);
		if (child == 0) {
			printf("memcheck: child pages=%zu mismatches=%zu\n", pages, bad);
			return bad ? 1 : 0;
		}
		if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "memcheck: child failed\n");
			bad++;
		}
	}
	printf("memcheck: pages=%zu generations=%lu mismatches=%zu\n", pages, gens, bad);
	return bad ? 1 : 0;
}
