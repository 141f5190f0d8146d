// SPDX-License-Identifier: GPL-2.0
/*
 * aiodio: async O_DIRECT overwrites racing buffered readers, for the
 * precache coherency test on filesystems that use fs/direct-io.c (vfat).
 *
 *   aiodio FILE PAGES GENERATIONS
 *
 * FILE gets PAGES pages of generation 0 through the page cache (then
 * fsync). A child process then loops: a buffered read of the whole range,
 * then POSIX_FADV_DONTNEED of it, which evicts the pages (precache_put keeps
 * them). The parent, for each generation g = 1..GENERATIONS, writes the
 * range with one Linux AIO O_DIRECT write (io_submit) and waits for its
 * completion (io_getevents); then a buffered read must return generation g
 * in every word. An async direct write that completes while no page is
 * cached must still drop what precache kept of the old data, or that read
 * returns generation g-1 from precache.
 *
 * Every 64-bit word holds (generation << 32 | page << 12 | word), so a stale
 * page is named exactly. Prints "aiodio: generations=G pages=P stale=S" and
 * exits 1 if any word was wrong (or on an error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096UL
#define WORDS (PAGE / sizeof(uint64_t))

static void fill(uint64_t *buf, size_t pages, uint64_t gen)
{
	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < WORDS; w++)
			buf[p * WORDS + w] = gen << 32 | p << 12 | w;
}

/* words of @buf that are not generation @gen; the first is reported */
static size_t check(const uint64_t *buf, size_t pages, uint64_t gen)
{
	size_t bad = 0;

	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < WORDS; w++) {
			uint64_t want = gen << 32 | p << 12 | w;

			if (buf[p * WORDS + w] == want)
				continue;
			if (!bad)
				fprintf(stderr, "aiodio: generation %llu page %zu word %zu: found %#llx (generation %llu)\n",
					(unsigned long long)gen, p, w,
					(unsigned long long)buf[p * WORDS + w],
					(unsigned long long)(buf[p * WORDS + w] >> 32));
			bad++;
		}
	return bad;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void reader(const char *path, size_t len)
{
	char *buf = malloc(len);
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0)
		die("reader");
	for (;;) {
		if (pread(fd, buf, len, 0) < 0)
			die("reader pread");
		posix_fadvise(fd, 0, len, POSIX_FADV_DONTNEED);
	}
}

int main(int argc, char **argv)
{
	size_t pages, len, stale = 0;
	unsigned long gens, g;
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	uint64_t *wbuf, *rbuf;
	int fd, dfd, status;
	pid_t child;

	if (argc != 4) {
		fprintf(stderr, "usage: aiodio FILE PAGES GENERATIONS\n");
		return 2;
	}
	pages = strtoul(argv[2], NULL, 0);
	gens = strtoul(argv[3], NULL, 0);
	len = pages * PAGE;
	if (posix_memalign((void **)&wbuf, PAGE, len) ||
	    posix_memalign((void **)&rbuf, PAGE, len))
		die("posix_memalign");

	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open");
	fill(wbuf, pages, 0);
	if (pwrite(fd, wbuf, len, 0) != (ssize_t)len || fsync(fd))
		die("generation 0");
	dfd = open(argv[1], O_RDWR | O_DIRECT);
	if (dfd < 0)
		die("open O_DIRECT");
	if (syscall(SYS_io_setup, 1, &ctx))
		die("io_setup");

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0)
		reader(argv[1], len);

	for (g = 1; g <= gens; g++) {
		fill(wbuf, pages, g);
		memset(&cb, 0, sizeof(cb));
		cb.aio_fildes = dfd;
		cb.aio_lio_opcode = IOCB_CMD_PWRITE;
		cb.aio_buf = (uintptr_t)wbuf;
		cb.aio_nbytes = len;
		cb.aio_offset = 0;
		if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
			die("io_submit");
		if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
			die("io_getevents");
		if (ev.res != (int64_t)len) {
			fprintf(stderr, "aiodio: write of generation %lu: %lld\n",
				g, (long long)ev.res);
			stale++;
			break;
		}
		if (pread(fd, rbuf, len, 0) != (ssize_t)len)
			die("pread");
		stale += check(rbuf, pages, g);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	syscall(SYS_io_destroy, ctx);
	printf("aiodio: generations=%lu pages=%zu stale=%zu\n", gens, pages,
	       stale);
	return stale ? 1 : 0;
}
