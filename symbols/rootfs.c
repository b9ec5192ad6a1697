// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs: openat2(RESOLVE_IN_ROOT) keeps ".." and absolute symlinks from
 * leaving the process's root; magic links (/proc/self/...) are refused.
 * A file is looked at through an O_PATH descriptor, which opens nothing,
 * and opened from it through /proc/self/fd (the one way Linux has to turn
 * an O_PATH descriptor into an open file).
 */
#include "symbols/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread.h"

#define ROOTFS_FLAGS (O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* What rootfs__open() adds to @flags: only O_CLOEXEC goes with O_PATH (openat2 refuses more). */
static int rootfs_flags(int flags)
{
	return flags | (flags & O_PATH ? O_CLOEXEC : ROOTFS_FLAGS);
}

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
	    .flags = (uint64_t)rootfs_flags(flags),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (root_fd < 0) {
		fd = open(path, rootfs_flags(flags));
		return fd < 0 ? -errno : (int)fd;
	}
	fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		while (*path == '/')
			path++;
		fd = openat(root_fd, *path ? path : ".", rootfs_flags(flags));
	}
	return fd < 0 ? -errno : (int)fd;
}

int rootfs__look(int root_fd, const char *path, int flags, struct stat *st)
{
	int fd = rootfs__open(root_fd, path, O_PATH | (flags & O_NOFOLLOW));

	if (fd >= 0 && fstat(fd, st)) {
		close(fd);
		return -errno;
	}
	return fd;
}

int rootfs__reopen(int path_fd, const struct stat *st, int flags)
{
	char self[64];
	int fd;

	if (!S_ISREG(st->st_mode))
		return -EPERM;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	/* The magic link is followed whatever @flags say: it leads to the file looked at. */
	fd = open(self, (flags & ~O_NOFOLLOW) | ROOTFS_FLAGS);
	return fd < 0 ? -errno : fd;
}

int rootfs__open_file(int root_fd, const char *path, int flags, struct stat *st)
{
	int path_fd = rootfs__look(root_fd, path, flags, st), fd;

	if (path_fd < 0)
		return path_fd;
	fd = rootfs__reopen(path_fd, st, flags);
	close(path_fd);
	return fd;
}

/* An rootfs__open_file_as() call, for the thread that makes it. */
struct open_as {
	const struct proc_creds *as;
	int root_fd, flags, ret;
	const char *path;
	struct stat *st;
};

/*
 * Gives the calling thread alone the file-system credentials @c. The raw
 * system calls are per thread (glibc's setgroups() would change every
 * thread); the uid goes last, as leaving uid 0 drops the capabilities
 * that let the others be set. Returns 0, or -EOPNOTSUPP when not allowed.
 */
static int take_creds(const struct proc_creds *c)
{
	gid_t groups[PROC_GROUPS_MAX];
	size_t i;

	for (i = 0; i < c->n_groups; i++)
		groups[i] = c->groups[i];
	if (syscall(SYS_setgroups, c->n_groups, groups))
		return -EOPNOTSUPP;
	/* setfsgid and setfsuid say nothing of failure: (uid_t)-1 asks what is in force now. */
	syscall(SYS_setfsgid, c->gid);
	if ((uint32_t)syscall(SYS_setfsgid, -1) != c->gid)
		return -EOPNOTSUPP;
	syscall(SYS_setfsuid, c->uid);
	if ((uint32_t)syscall(SYS_setfsuid, -1) != c->uid)
		return -EOPNOTSUPP;
	return 0;
}

static void *open_as_thread(void *arg)
{
	struct open_as *o = arg;

	o->ret = take_creds(o->as);
	if (!o->ret)
		o->ret = rootfs__open_file(o->root_fd, o->path, o->flags, o->st);
	return NULL;
}

int rootfs__open_file_as(const struct proc_creds *as, int root_fd, const char *path, int flags,
			 struct stat *st)
{
	struct open_as o = {.as = as, .root_fd = root_fd, .flags = flags, .path = path, .st = st};
	pthread_t thread;
	int err;

	err = thread_start(&thread, open_as_thread, &o);
	if (err)
		return -err;
	pthread_join(thread, NULL);
	return o.ret;
}
