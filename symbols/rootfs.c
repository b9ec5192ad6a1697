// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs: openat2(RESOLVE_IN_ROOT) keeps ".." and absolute symlinks from
 * leaving the process's root; magic links (/proc/self/...) are refused.
 */
#include "symbols/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROOTFS_FLAGS (O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

int rootfs__open_root(const char *proc_root, uint32_t pid)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%" PRIu32 "/root", proc_root, pid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool rootfs__is_host(int root_fd)
{
	struct stat a, b;

	return !fstat(root_fd, &a) && !stat("/", &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int rootfs__open(int root_fd, const char *path, int flags)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | ROOTFS_FLAGS),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (root_fd < 0) {
		fd = open(path, flags | ROOTFS_FLAGS);
		return fd < 0 ? -errno : (int)fd;
	}
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		while (*path == '/')
			path++;
		fd = openat(root_fd, *path ? path : ".", flags | ROOTFS_FLAGS);
	}
	return fd < 0 ? -errno : (int)fd;
}
