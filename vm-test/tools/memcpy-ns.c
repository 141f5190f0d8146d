// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy-ns: nanoseconds per 4 KiB memcpy, for make bench's disk model.
 *
 *   memcpy-ns
 *
 * The same binary runs in the guest (under TCG) and on the host, and the
 * ratio of the two is the guest's CPU slowdown: guest/bench.sh divides a
 * real device's speed by it, so that a disk throttled to that speed costs
 * the emulated CPU what the real device would cost a real one.
 *
 * Copies between two page-aligned 4 KiB buffers in rounds of 4096 copies,
 * 15 rounds, and prints the median round's ns per copy with one decimal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS	15
#define COPIES	4096

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	static char src[4096] __attribute__((aligned(4096)));
	static char dst[4096] __attribute__((aligned(4096)));
	double r[ROUNDS], t;
	int i, k;

	for (i = 0; i < 4096; i++)
		src[i] = (char)(i * 7);
	for (k = 0; k < ROUNDS; k++) {
		t = now_ns();
		for (i = 0; i < COPIES; i++) {
			src[i & 4095] ^= 1;
			memcpy(dst, src, sizeof(dst));
			/* the copy is used: the compiler may not drop it */
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		r[k] = (now_ns() - t) / COPIES;
	}
	qsort(r, ROUNDS, sizeof(r[0]), cmp);
	printf("%.1f\n", r[ROUNDS / 2]);
	return 0;
}
