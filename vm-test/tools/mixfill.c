// SPDX-License-Identifier: GPL-2.0
/*
 * mixfill: the benchmark's memory workload. Pages hold a mix of what a real
 * program's memory holds, every byte is checked when it comes back, and a
 * page that comes back wrong fails the run (exit 1): a store that is fast
 * because it loses data must not look good.
 *
 *   mixfill -m MIB [-g GENS] [-t TEXT%] [-r RANDOM%] [-s SEED]
 *   mixfill -w FILE -m MIB [-t ..] [-r ..] [-s SEED]     write a file
 *   mixfill -c FILE -m MIB [-t ..] [-r ..] [-s SEED]     read it back, check
 *   mixfill -n -m MIB [-t ..] [-r ..] [-s SEED]          print the mix only
 *
 * Kinds of page (by a hash of the page number, so a page keeps its kind):
 *   text    a 4 KiB slice of generated text (phrases, numbers, line
 *           breaks), like a program's strings and logs: lz4 makes a page
 *           about 2x smaller
 *   random  a slice of pseudo-random bytes: incompressible
 *   zero    all zero bytes (written, so the page exists)
 * the rest of TEXT% + RANDOM% (default 50% + 25%) is zero pages. Text and
 * random pages start with 16 bytes naming the page and the generation, so
 * every page is distinct and a stale or misplaced page is caught.
 *
 * Anonymous mode: maps MIB of private anonymous memory and writes every
 * page GENS times (default 2: "touched twice"): a first pass writes
 * generation 1; each further pass reads every page, checks it holds the
 * previous generation and rewrites it with the next; a last pass checks
 * the final generation, so each generation is checked once. File mode writes a file of the same mix (seeded by
 * -s, so each file of a set differs) or reads one back with read() and
 * checks it. Prints the mix and "mismatches=N"; exits 1 if N > 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define TEXT_POOL (64UL * 1024)
#define RAND_POOL (1024UL * 1024)
#define CHUNK (256UL * PAGE)

enum kind { TEXT, RANDOM, ZERO };

static uint64_t seed = 0x6d697866ULL;
static unsigned int text_pct = 50, random_pct = 25;
static char *text_pool, *rand_pool;
static const char zero_page[PAGE];

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static uint64_t next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return mix64(*s);
}

static const char *const phrases[] = {
	"the page was written to the swap device",
	"a clean page of the file was read again",
	"memory is reclaimed when the system is under pressure",
	"the kernel keeps a copy of the data",
	"when the process returns",
	"it was not in the cache",
	"which of them",
	"for each request the server",
	"the value of the buffer",
	"and then",
	"of the people who",
	"information about the device",
	"however, the function",
	"in the example above",
	"because it is",
	"this number",
	"they had been",
	"would be",
	"from time to time",
	"there is no",
};

/*
 * Text like a program's strings, logs and documents hold: phrases from a
 * small set (common ones more often), numbers, punctuation, line breaks.
 * lz4 compresses a 4 KiB slice of it about 2x.
 */
static void make_text_pool(void)
{
	uint64_t s = 0x74657874 ^ seed;
	size_t n = 0, line = 0, np = sizeof(phrases) / sizeof(phrases[0]);
	char num[24];

	while (n < TEXT_POOL + PAGE) {
		uint64_t r = next(&s);
		/* skewed pick: the lesser of two draws favours early phrases */
		size_t a = r % np, b = (r >> 16) % np;
		const char *w = phrases[a < b ? a : b];
		size_t len = strlen(w);

		if ((r >> 32) % 5 < 3) {
			snprintf(num, sizeof(num), "%u ", (unsigned int)(r >> 40));
			w = num;
			len = strlen(num) - 1;
		}
		if (n + len + 2 >= TEXT_POOL + PAGE)
			break;
		memcpy(text_pool + n, w, len);
		if (line == 0 && text_pool[n] >= 'a' && text_pool[n] <= 'z')
			text_pool[n] -= 'a' - 'A';
		n += len;
		line += len + 1;
		if ((r >> 24) % 7 == 0)
			text_pool[n++] = ',';
		if (line > 60 + (r >> 44) % 20) {
			text_pool[n++] = (r >> 52) % 4 ? '\n' : '.';
			line = 0;
		} else {
			text_pool[n++] = ' ';
		}
	}
	memset(text_pool + n, ' ', TEXT_POOL + PAGE - n);
}

static void make_rand_pool(void)
{
	uint64_t s = 0x72616e64 ^ seed;

	for (size_t i = 0; i < RAND_POOL / 8; i++) {
		uint64_t v = next(&s);

		memcpy(rand_pool + i * 8, &v, 8);
	}
}

static enum kind kind_of(uint64_t page)
{
	unsigned int h = mix64(page ^ (seed << 1)) % 100;

	if (h < text_pct)
		return TEXT;
	if (h < text_pct + random_pct)
		return RANDOM;
	return ZERO;
}

/* The expected contents of @page in generation @gen, into @buf. */
static void expected(char *buf, uint64_t page, uint64_t gen)
{
	enum kind k = kind_of(page);
	uint64_t h = mix64(page * 0x100000001b3ULL + gen + seed), stamp[2];

	if (k == ZERO) {
		memset(buf, 0, PAGE);
		return;
	}
	if (k == TEXT)
		memcpy(buf, text_pool + h % TEXT_POOL, PAGE);
	else
		memcpy(buf, rand_pool + (h % (RAND_POOL - PAGE)) / 8 * 8, PAGE);
	stamp[0] = page ^ 0x7061676500000000ULL;
	stamp[1] = gen ^ seed;
	memcpy(buf, stamp, sizeof(stamp));
}

static size_t bad;

static void check(const char *p, uint64_t page, uint64_t gen, char *buf)
{
	if (kind_of(page) == ZERO) {
		if (memcmp(p, zero_page, PAGE) == 0)
			return;
	} else {
		expected(buf, page, gen);
		if (memcmp(p, buf, PAGE) == 0)
			return;
	}
	if (bad < 5)
		fprintf(stderr, "mixfill: page %lu generation %lu: wrong contents\n",
			(unsigned long)page, (unsigned long)gen);
	bad++;
}

static size_t pct(size_t n, size_t of)
{
	return (n * 100 + of / 2) / of;
}

static void print_mix(size_t pages, const char *what)
{
	size_t n[3] = {0, 0, 0};

	for (size_t p = 0; p < pages; p++)
		n[kind_of(p)]++;
	printf("mixfill: %s %zu pages (%zu MiB): text %zu (%zu%%), random %zu (%zu%%), zero %zu (%zu%%)\n",
	       what, pages, pages * PAGE >> 20, n[TEXT], pct(n[TEXT], pages),
	       n[RANDOM], pct(n[RANDOM], pages), n[ZERO], pct(n[ZERO], pages));
	fflush(stdout);
}

static int anon(size_t pages, unsigned long gens)
{
	char *mem, *buf = malloc(PAGE);

	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || !buf) {
		perror("mixfill: mmap");
		return 2;
	}
	print_mix(pages, "anonymous memory,");
	for (size_t p = 0; p < pages; p++)
		expected(mem + p * PAGE, p, 1);
	for (unsigned long g = 2; g <= gens; g++) {
		for (size_t p = 0; p < pages; p++) {
			check(mem + p * PAGE, p, g - 1, buf);
			expected(mem + p * PAGE, p, g);
		}
	}
	for (size_t p = 0; p < pages; p++)
		check(mem + p * PAGE, p, gens, buf);
	printf("mixfill: %lu generations, every page checked %lu times, mismatches=%zu\n",
	       gens, gens, bad);
	return bad ? 1 : 0;
}

static int file_write(const char *path, size_t pages)
{
	char *buf = malloc(CHUNK);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf) {
		perror(path);
		return 2;
	}
	for (size_t p = 0; p < pages;) {
		size_t n = 0, len;

		for (; n < CHUNK / PAGE && p < pages; n++, p++)
			expected(buf + n * PAGE, p, 1);
		len = n * PAGE;
		for (size_t off = 0; off < len;) {
			ssize_t w = write(fd, buf + off, len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				perror(path);
				return 2;
			}
			off += w;
		}
	}
	if (close(fd) != 0) {
		perror(path);
		return 2;
	}
	return 0;
}

static int file_check(const char *path, size_t pages)
{
	char *buf = malloc(CHUNK), *exp = malloc(PAGE);
	int fd = open(path, O_RDONLY);
	size_t p = 0;

	if (fd < 0 || !buf || !exp) {
		perror(path);
		return 2;
	}
	for (;;) {
		size_t len = 0;
		ssize_t r = 0;

		while (len < CHUNK) {
			r = read(fd, buf + len, CHUNK - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += r;
		}
		if (r < 0) {
			perror(path);
			return 2;
		}
		for (size_t off = 0; off + PAGE <= len; off += PAGE, p++)
			check(buf + off, p, 1, exp);
		if (len < CHUNK)
			break;
	}
	close(fd);
	if (p != pages) {
		fprintf(stderr, "mixfill: %s: %zu pages, expected %zu\n", path, p, pages);
		bad++;
	}
	if (bad)
		printf("mixfill: %s: mismatches=%zu\n", path, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *wfile = NULL, *cfile = NULL;
	unsigned long gens = 2;
	size_t mib = 64, pages;
	int opt, dry = 0;

	while ((opt = getopt(argc, argv, "m:g:t:r:s:w:c:n")) != -1) {
		switch (opt) {
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'g': gens = strtoul(optarg, NULL, 0); break;
		case 't': text_pct = strtoul(optarg, NULL, 0); break;
		case 'r': random_pct = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'w': wfile = optarg; break;
		case 'c': cfile = optarg; break;
		case 'n': dry = 1; break;
		default:
			fprintf(stderr, "usage: mixfill -m MIB [-g GENS] [-t TEXT%%] [-r RANDOM%%] [-s SEED] [-w FILE | -c FILE | -n]\n");
			return 2;
		}
	}
	if (text_pct + random_pct > 100 || gens < 1 || mib < 1) {
		fprintf(stderr, "mixfill: bad arguments\n");
		return 2;
	}
	pages = mib * 1024 * 1024 / PAGE;
	if (dry) {
		print_mix(pages, "anonymous memory,");
		return 0;
	}
	text_pool = malloc(TEXT_POOL + PAGE);
	rand_pool = malloc(RAND_POOL);
	if (!text_pool || !rand_pool)
		return 2;
	make_text_pool();
	make_rand_pool();
	if (wfile)
		return file_write(wfile, pages);
	if (cfile)
		return file_check(cfile, pages);
	return anon(pages, gens);
}
