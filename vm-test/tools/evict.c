// SPDX-License-Identifier: GPL-2.0
/*
 * evict: write a file back, then drop its clean pages from the page cache
 * (fsync, then POSIX_FADV_DONTNEED on the whole file: the removal path of
 * drop_caches, so the pages are offered to precache), for each FILE.
 *
 *   evict FILE...
 *
 * One process instead of "sync FILE" and "dd iflag=nocache count=0": in
 * the test guest every process started costs about 0.3 s.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i, fd, err, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: evict FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		if (fsync(fd)) {
			perror(argv[i]);
			rc = 1;
		}
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err) {
			fprintf(stderr, "%s: posix_fadvise: %s\n", argv[i],
				strerror(err));
			rc = 1;
		}
		close(fd);
	}
	return rc;
}
