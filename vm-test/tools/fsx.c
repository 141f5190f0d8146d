// SPDX-License-Identifier: GPL-2.0
/*
 * fsx: random file operations checked byte for byte against an in-memory
 * model of every file, in the spirit of xfstests' fsx (written anew here).
 *
 * Why: precache keeps clean page-cache pages after the kernel evicts them and
 * hands them back before a disk read. If an invalidation is missed, a read
 * gets stale data: bytes from before a write, truncate, hole punch, O_DIRECT
 * write or mmap write, or bytes of a file that was deleted (and whose inode
 * number was reused). So fsx mixes those operations with evictions (fsync +
 * POSIX_FADV_DONTNEED, sometimes drop_caches) and checks every read.
 *
 *   fsx -d DIR [-n FILES] [-s MAXSIZE_KIB] [-t SECONDS] [-S SEED] [-e EVICT_EVERY]
 *
 * Files are DIR/fsx.0 .. DIR/fsx.N-1 (default 3, up to 4096 KiB each), for
 * -t seconds (default 30); every -e ops (default 20, 0: only at the end) all
 * files are evicted and read back in full. Written bytes are derived from
 * (seed, op number, offset), so stale data names the op that wrote it.
 * An op the filesystem lacks is dropped with a note (tmpfs: ZERO_RANGE and
 * COLLAPSE_RANGE, O_DIRECT before Linux 6.6). Exit 0 with "fsx: seed=S ops=N
 * reads_checked=R bytes_checked=B evictions=E", 1 on a data mismatch (with
 * the last ops), 2 on a syscall error. -DFSX_SELFTEST_CORRUPT flips one model
 * byte before the first eviction check, to prove the checker catches it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096UL
#define LOGN 16

struct file {
	char path[4096];
	int fd, dfd;		/* buffered, O_DIRECT (-1 if unsupported) */
	size_t size;
	unsigned char *model;	/* bytes past size are always zero */
};

enum { OP_WRITE, OP_READ, OP_TRUNC, OP_PUNCH, OP_ZERO, OP_COLLAPSE, OP_DWRITE,
	OP_DREAD, OP_MWRITE, OP_MREAD, OP_FSYNC, OP_RECREATE, NR_OPS };

static int disabled[NR_OPS], collapsed;	/* collapsed: data has moved */
static const struct { const char *name; int weight; } ops[NR_OPS] = {
	{ "write", 20 }, { "read", 20 }, { "truncate", 5 }, { "punch_hole", 5 },
	{ "zero_range", 4 }, { "collapse_range", 3 }, { "dio_write", 6 },
	{ "dio_read", 6 }, { "mmap_write", 6 }, { "mmap_read", 6 },
	{ "fsync", 3 }, { "recreate", 1 },
};

static const char *dir;
static struct file *files;
static int nfiles = 3, evict_every = 20;
static size_t maxsize = 4096 * 1024, pagesz;
static uint64_t seed, rng;
static unsigned long long opno, reads, bytes, evictions;
static unsigned char *buf;	/* BLK-aligned I/O buffer, > maxsize */
static char oplog[LOGN][160];
static unsigned int nlog;

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t n)	/* splitmix64, uniform enough in [0, n) */
{
	rng += 0x9e3779b97f4a7c15ULL;
	return n ? mix(rng) % n : 0;
}

static uint64_t key(uint64_t op)	/* names op number @op of this seed */
{
	return mix(seed ^ (op << 20));
}

/* The byte the op of key @k writes at file offset @off; never 0, holes stand out. */
static unsigned char pat(uint64_t k, uint64_t off)
{
	unsigned char b = mix(k ^ (off >> 3)) >> ((off & 7) * 8);

	return b ? b : 1;
}

static void fill(unsigned char *p, uint64_t off, size_t len)
{
	uint64_t k = key(opno);

	for (size_t i = 0; i < len; i++)
		p[i] = pat(k, off + i);
}

static void logop(const char *fmt, ...)
{
	char *s = oplog[nlog++ % LOGN];
	va_list ap;
	int n = snprintf(s, sizeof(oplog[0]), "op %llu: ", opno);

	va_start(ap, fmt);
	vsnprintf(s + n, sizeof(oplog[0]) - n, fmt, ap);
	va_end(ap);
}

/* Print the last ops and how to rerun, then exit with @code. */
static void bail(int code)
{
	unsigned int i = nlog > 10 ? nlog - 10 : 0;

	fprintf(stderr, "fsx: last operations:\n");
	for (; i < nlog; i++)
		fprintf(stderr, "  %s\n", oplog[i % LOGN]);
	fprintf(stderr, "fsx: rerun: fsx -d %s -n %d -s %zu -S %llu -e %d\n", dir,
		nfiles, maxsize / 1024, (unsigned long long)seed, evict_every);
	exit(code);
}

static void die(const char *what, struct file *f)
{
	int err = errno;

	fflush(stdout);
	fprintf(stderr, "fsx: ERROR seed=%llu op=%llu %s %s: %s\n",
		(unsigned long long)seed, opno, what, f ? f->path : "", strerror(err));
	bail(2);
}

/* Print @n bytes at file offset @off and the newest op that wrote them there. */
static void describe(const char *what, const unsigned char *p, uint64_t off, size_t n)
{
	unsigned long long k = opno;
	size_t i, zeros = 0;

	fprintf(stderr, "fsx: %-8s", what);
	for (i = 0; i < n; i++) {
		fprintf(stderr, " %02x", p[i]);
		zeros += !p[i];
	}
	for (; k > 0; k--) {
		for (i = 0; i < n && p[i] == pat(key(k), off + i); i++)
			;
		if (i == n)
			break;
	}
	if (zeros == n)
		fprintf(stderr, "  (zeros: a hole, or never written)\n");
	else if (k)
		fprintf(stderr, "  (written here by op %llu)\n", k);
	else
		fprintf(stderr, "  (no op wrote this at this offset%s)\n",
			collapsed ? "; collapse_range moves data" : "");
}

static void mismatch(const char *how, struct file *f, size_t off, size_t len,
		     const char *fmt, size_t a, size_t b)
{
	fflush(stdout);
	fprintf(stderr, "fsx: MISMATCH seed=%llu op=%llu file=%s check=%s off=0x%zx len=0x%zx size=0x%zx\n",
		(unsigned long long)seed, opno, f->path, how, off, len, f->size);
	fprintf(stderr, fmt, a, b);
}

/* Compare @len bytes read at @off (of which @got arrived) with the model. */
static void check(const char *how, struct file *f, size_t off, size_t len,
		  const unsigned char *p, size_t got)
{
	size_t want = off < f->size ? f->size - off : 0, bad, nbad = 0, n;

	if (want > len)
		want = len;
	reads++;
	bytes += got;
	if (got != want) {
		mismatch(how, f, off, len, "fsx: read returned %zu bytes, model says %zu\n", got, want);
	} else if (memcmp(p, f->model + off, got)) {
		for (bad = 0; p[bad] == f->model[off + bad]; bad++)
			;
		for (size_t i = bad; i < got; i++)
			nbad += p[i] != f->model[off + i];
		n = got - bad < 8 ? got - bad : 8;
		mismatch(how, f, off, len, "fsx: first bad byte at file offset 0x%zx, %zu bad bytes in this read\n",
			 off + bad, nbad);
		describe("expected", f->model + off + bad, off + bad, n);
		describe("found", p + bad, off + bad, n);
	} else {
		return;
	}
	bail(1);
}

static size_t pread_all(struct file *f, unsigned char *p, size_t len, size_t off)
{
	size_t got = 0;
	ssize_t r = 0;

	while (got < len && (r = pread(f->fd, p + got, len - got, off + got)) > 0)
		got += r;
	if (r < 0)
		die("pread", f);
	return got;
}

static void pwrite_all(struct file *f, int fd, const unsigned char *p, size_t len, size_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, p, len, off);

		if (r <= 0)
			die("pwrite", f);
		p += r, off += r, len -= r;
	}
}

static void model_write(struct file *f, const unsigned char *p, size_t off, size_t len)
{
	memcpy(f->model + off, p, len);
	if (off + len > f->size)
		f->size = off + len;
}

static void open_file(struct file *f, int flags)
{
	f->fd = open(f->path, O_RDWR | O_CREAT | flags, 0644);
	if (f->fd < 0)
		die("open", f);
	f->dfd = -1;
	if (disabled[OP_DWRITE])
		return;
	f->dfd = open(f->path, O_RDWR | O_DIRECT);
	if (f->dfd < 0 && errno != EINVAL)
		die("open(O_DIRECT)", f);
	if (f->dfd < 0) {
		printf("fsx: note: O_DIRECT unsupported here, dio ops disabled\n");
		disabled[OP_DWRITE] = disabled[OP_DREAD] = 1;
	}
}

static void full_check(const char *how)
{
	for (int i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		struct stat st;

		if (fstat(f->fd, &st))
			die("fstat", f);
		if ((size_t)st.st_size != f->size) {
			mismatch(how, f, 0, 0, "fsx: st_size 0x%zx, model 0x%zx\n", st.st_size, f->size);
			bail(1);
		}
		check(how, f, 0, maxsize, buf, pread_all(f, buf, maxsize, 0));
	}
}

static void evict(void)
{
	int fd;

	evictions++;
	logop("evict all files%s", evictions % 5 ? "" : " + drop_caches");
	for (int i = 0; i < nfiles; i++) {
		if (fsync(files[i].fd))
			die("fsync", &files[i]);
		if ((errno = posix_fadvise(files[i].fd, 0, 0, POSIX_FADV_DONTNEED)))
			die("posix_fadvise", &files[i]);
	}
	if (evictions % 5 == 0 && (fd = open("/proc/sys/vm/drop_caches", O_WRONLY)) >= 0) {
		dprintf(fd, "1\n");	/* may fail when not root: fadvise did the work */
		close(fd);
	}
#ifdef FSX_SELFTEST_CORRUPT	/* prove that the checker is live */
	static int done;

	for (int i = 0; i < nfiles && !done; i++) {
		if (!files[i].size)
			continue;
		done = 1;
		files[i].model[files[i].size / 2] ^= 0x5a;
		printf("fsx: selftest: flipped the model byte of %s at 0x%zx\n",
		       files[i].path, files[i].size / 2);
	}
#endif
	full_check("read-back after eviction");
}

/* fallocate(); 0 if the filesystem lacks @op (which is then disabled). */
static int falloc(struct file *f, int op, int mode, size_t off, size_t len)
{
	if (!fallocate(f->fd, mode, off, len))
		return 1;
	if (errno != EOPNOTSUPP && errno != EINVAL)
		die(ops[op].name, f);
	printf("fsx: note: %s unsupported here (%s), disabled\n", ops[op].name,
	       strerror(errno));
	disabled[op] = 1;
	return 0;
}

static size_t rnd_len(size_t room)
{
	static const size_t lim[] = { 512, 8192, 65536, SIZE_MAX };
	size_t l = lim[rnd(4)];

	return 1 + rnd(l < room ? l : room);
}

/* mmap [off, off + len) of @f (within its size) and write or check it. */
static void map_op(int op, struct file *f, size_t off, size_t len)
{
	size_t moff = off & ~(pagesz - 1), mlen = off + len - moff;
	unsigned char *m = mmap(NULL, mlen, PROT_READ | (op == OP_MWRITE ? PROT_WRITE : 0),
				MAP_SHARED, f->fd, moff);

	if (m == MAP_FAILED)
		die("mmap", f);
	if (op == OP_MWRITE) {
		fill(buf, off, len);
		memcpy(m + off - moff, buf, len);
		if (msync(m, mlen, MS_SYNC))
			die("msync", f);
		model_write(f, buf, off, len);
	} else {
		check("mmap read", f, off, len, m + off - moff, len);
	}
	if (munmap(m, mlen))
		die("munmap", f);
}

/* One operation on @f; 0 if it does not apply now (the caller then writes). */
static int do_op(int op, struct file *f)
{
	size_t off = 0, len = 0, end, nblk = maxsize / BLK;
	ssize_t r;

	switch (op) {		/* pick the range */
	case OP_WRITE:
		off = rnd(4) ? rnd(maxsize) : (f->size < maxsize ? f->size : 0);
		len = rnd_len(maxsize - off);
		break;
	case OP_READ:
		off = rnd(f->size + 1);
		len = rnd_len(maxsize - off + 1);
		break;
	case OP_TRUNC:
		off = rnd(maxsize + 1);		/* the new size */
		break;
	case OP_PUNCH:
	case OP_ZERO:
	case OP_MWRITE:
	case OP_MREAD:
		if (!f->size)
			return 0;
		off = rnd(f->size);
		len = rnd_len((op == OP_ZERO ? maxsize : f->size) - off);
		break;
	case OP_COLLAPSE:		/* blocks, and off + len < size */
		if (f->size < 2 * BLK)
			return 0;
		off = rnd((f->size - 1) / BLK) * BLK;
		len = (1 + rnd((f->size - 1 - off) / BLK)) * BLK;
		break;
	case OP_DWRITE:
	case OP_DREAD:
		if (f->dfd < 0 || !nblk)
			return 0;
		end = op == OP_DREAD ? (f->size + BLK - 1) / BLK + 1 : nblk;
		off = rnd(end < nblk ? end : nblk);	/* in blocks, < nblk */
		len = (1 + rnd(nblk - off < 64 ? nblk - off : 64)) * BLK;
		off *= BLK;
		break;
	}
	if (op == OP_TRUNC)
		logop("%s truncate 0x%zx -> 0x%zx", f->path, f->size, off);
	else
		logop("%s %s off=0x%zx len=0x%zx size=0x%zx", f->path, ops[op].name, off, len, f->size);

	switch (op) {
	case OP_WRITE:
	case OP_DWRITE:
		fill(buf, off, len);
		pwrite_all(f, op == OP_WRITE ? f->fd : f->dfd, buf, len, off);
		model_write(f, buf, off, len);
		break;
	case OP_READ:
		check("pread", f, off, len, buf, pread_all(f, buf, len, off));
		break;
	case OP_DREAD:
		r = pread(f->dfd, buf, len, off);
		if (r < 0)
			die("pread(O_DIRECT)", f);
		check("O_DIRECT pread", f, off, len, buf, r);
		break;
	case OP_TRUNC:
		if (ftruncate(f->fd, off))
			die("ftruncate", f);
		if (off < f->size)
			memset(f->model + off, 0, f->size - off);
		f->size = off;
		break;
	case OP_PUNCH:
	case OP_ZERO:
		if (!falloc(f, op, op == OP_ZERO ? FALLOC_FL_ZERO_RANGE :
			    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
			return 0;
		memset(f->model + off, 0, len);
		if (off + len > f->size)	/* ZERO_RANGE extends */
			f->size = off + len;
		break;
	case OP_COLLAPSE:
		if (!falloc(f, op, FALLOC_FL_COLLAPSE_RANGE, off, len))
			return 0;
		memmove(f->model + off, f->model + off + len, f->size - off - len);
		memset(f->model + f->size - len, 0, len);
		f->size -= len;
		collapsed = 1;
		break;
	case OP_MWRITE:
	case OP_MREAD:
		map_op(op, f, off, len);
		break;
	case OP_FSYNC:
		if (fsync(f->fd))
			die("fsync", f);
		break;
	case OP_RECREATE:
		close(f->fd);
		if (f->dfd >= 0)
			close(f->dfd);
		if (unlink(f->path))
			die("unlink", f);
		open_file(f, O_EXCL);
		memset(f->model, 0, f->size);
		f->size = 0;
		break;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int opt, secs = 30, total = 0, seeded = 0;
	time_t end;

	while ((opt = getopt(argc, argv, "d:n:s:t:S:e:")) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'n': nfiles = atoi(optarg); break;
		case 's': maxsize = strtoul(optarg, NULL, 0) * 1024; break;
		case 't': secs = atoi(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); seeded = 1; break;
		case 'e': evict_every = atoi(optarg); break;
		default: dir = NULL; optind = argc; break;
		}
	}
	if (!dir || optind != argc || nfiles < 1 || !maxsize || evict_every < 0) {
		fprintf(stderr, "usage: fsx -d DIR [-n FILES] [-s MAXSIZE_KIB] [-t SECONDS] [-S SEED] [-e EVICT_EVERY]\n");
		return 2;
	}
	if (!seeded)
		seed = mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32)) % 1000000000;
	rng = seed;
	pagesz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fsx: seed=%llu dir=%s files=%d maxsize=%zuKiB time=%ds evict_every=%d\n",
	       (unsigned long long)seed, dir, nfiles, maxsize / 1024, secs, evict_every);

	/* buf: room for any read (up to maxsize + 1) and any aligned I/O */
	files = calloc(nfiles, sizeof(*files));
	errno = ENOMEM;
	if (!files || posix_memalign((void **)&buf, BLK, (maxsize & ~(BLK - 1)) + 2 * BLK))
		die("malloc", NULL);
	for (int i = 0; i < nfiles; i++) {
		snprintf(files[i].path, sizeof(files[i].path), "%s/fsx.%d", dir, i);
		files[i].model = calloc(1, maxsize);
		if (!files[i].model)
			die("malloc", NULL);
		open_file(&files[i], O_TRUNC);
	}
	for (int i = 0; i < NR_OPS; i++)
		total += ops[i].weight;

	for (end = time(NULL) + secs; time(NULL) < end; ) {
		struct file *f = &files[rnd(nfiles)];
		int op = 0, r = rnd(total);

		while (r >= ops[op].weight)
			r -= ops[op++].weight;
		opno++;
		if (disabled[op] || !do_op(op, f))
			do_op(OP_WRITE, f);	/* keep the op count moving */
		if (evict_every && opno % evict_every == 0)
			evict();
	}

	evict();
	for (int i = 0; i < nfiles; i++) {
		struct file *f = &files[i];

		if (f->size)
			map_op(OP_MREAD, f, 0, f->size);
		close(f->fd);
		if (f->dfd >= 0)
			close(f->dfd);
		if (unlink(f->path))
			die("unlink", f);
	}
	printf("fsx: seed=%llu ops=%llu reads_checked=%llu bytes_checked=%llu evictions=%llu\n",
	       (unsigned long long)seed, opno, reads, bytes, evictions);
	return 0;
}
