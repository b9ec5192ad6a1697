// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "profile/folded.h"
#include "tui/snapshot.h"

#define MAX_TRIES 1000

/* Creates the first free name; returns the descriptor or -errno. */
static int create_new(const char *dir, time_t when, char *path, size_t size)
{
	char stamp[32];
	struct tm tm;

	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	for (int i = 0; i < MAX_TRIES; i++) {
		int fd, n;

		if (i)
			n = snprintf(path, size, "%s/flametop-%s-%d.folded", dir, stamp, i);
		else
			n = snprintf(path, size, "%s/flametop-%s.folded", dir, stamp);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

long snapshot__save(const char *dir, time_t when, const struct stack_trie *t,
		    const struct profile *p, char *path, size_t size)
{
	int fd = create_new(dir, when, path, size);
	FILE *f;
	long lines;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		lines = -errno;
		close(fd);
		unlink(path);
		return lines;
	}
	lines = folded__write(f, t, p);
	if (fclose(f) && lines >= 0)
		lines = -(errno ? errno : EIO);
	if (lines < 0)
		unlink(path);
	return lines;
}
