// SPDX-License-Identifier: GPL-2.0
/*
 * mmapwrite: copy a file into another file at an offset through a shared
 * mapping, then msync(MS_SYNC), so the precache tests can change a file the
 * way a program that maps it does (no write() call involved).
 *
 *   mmapwrite FILE OFFSET SOURCE
 *
 * OFFSET must be page aligned and OFFSET + size of SOURCE must not be past
 * the end of FILE (the mapping does not extend files).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat fst, sst;
	char *dst, *src;
	off_t off;
	int fd, sfd;

	if (argc != 4) {
		fprintf(stderr, "usage: mmapwrite FILE OFFSET SOURCE\n");
		return 2;
	}
	off = strtoll(argv[2], NULL, 0);
	fd = open(argv[1], O_RDWR);
	sfd = open(argv[3], O_RDONLY);
	if (fd < 0 || sfd < 0 || fstat(fd, &fst) || fstat(sfd, &sst)) {
		perror("mmapwrite: open");
		return 2;
	}
	if (off % sysconf(_SC_PAGESIZE) || off + sst.st_size > fst.st_size) {
		fprintf(stderr, "mmapwrite: offset not page aligned or past EOF\n");
		return 2;
	}
	dst = mmap(NULL, sst.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	src = mmap(NULL, sst.st_size, PROT_READ, MAP_PRIVATE, sfd, 0);
	if (dst == MAP_FAILED || src == MAP_FAILED) {
		perror("mmapwrite: mmap");
		return 2;
	}
	memcpy(dst, src, sst.st_size);
	if (msync(dst, sst.st_size, MS_SYNC)) {
		perror("mmapwrite: msync");
		return 2;
	}
	munmap(dst, sst.st_size);
	munmap(src, sst.st_size);
	return 0;
}
