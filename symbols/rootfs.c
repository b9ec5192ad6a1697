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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
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

/* A rootfs__run_as() call, for the thread that makes it. */
struct run_as {
	const struct proc_creds *as;
	int (*fn)(void *arg);
	void *arg;
	int ret;
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

static void *run_as_thread(void *arg)
{
	struct run_as *r = arg;

	r->ret = take_creds(r->as);
	if (!r->ret)
		r->ret = r->fn(r->arg);
	return NULL;
}

int rootfs__run_as(const struct proc_creds *as, int (*fn)(void *arg), void *arg)
{
	struct run_as r = { .as = as, .fn = fn, .arg = arg };
	pthread_t thread;
	int err;

	err = thread_start(&thread, run_as_thread, &r);
	if (err)
		return -err;
	pthread_join(thread, NULL);
	return r.ret;
}

/* An open to make as another process: rootfs__open_file() or, without a path, rootfs__reopen(). */
struct open_call {
	int root_fd, path_fd, flags;
	const char *path;
	const struct stat *look; /* rootfs__reopen()'s */
	struct stat *st;
};

static int open_call(void *arg)
{
	struct open_call *o = arg;

	if (!o->path)
		return rootfs__reopen(o->path_fd, o->look, o->flags);
	return rootfs__open_file(o->root_fd, o->path, o->flags, o->st);
}

int rootfs__open_file_as(const struct proc_creds *as, int root_fd, const char *path, int flags,
			 struct stat *st)
{
	struct open_call o = { .root_fd = root_fd, .path = path, .flags = flags, .st = st };

	return rootfs__run_as(as, open_call, &o);
}

int rootfs__reopen_as(const struct proc_creds *as, int path_fd, const struct stat *st, int flags)
{
	struct open_call o = { .path_fd = path_fd, .look = st, .flags = flags };

	return rootfs__run_as(as, open_call, &o);
}

bool rootfs__open_to_all(int fd, const struct stat *st)
{
	const mode_t all = S_IRUSR | S_IRGRP | S_IROTH;

	if ((st->st_mode & all) != all)
		return false;
	/* An access ACL may take from some what the mode bits give: none may be there. */
	return fgetxattr(fd, "system.posix_acl_access", NULL, 0) < 0 &&
	       (errno == ENODATA || errno == ENOTSUP);
}

#define READ_ACCESS_SEEN 4 /* credentials remembered per file: the users that map it, mostly one */

struct read_access_seen {
	struct proc_creds creds[READ_ACCESS_SEEN];
	bool may[READ_ACCESS_SEEN];
	unsigned int n, next; /* filled, and the one to replace next */
};

void read_access__init(struct read_access *a, int fd, const struct stat *st)
{
	a->to_all = rootfs__open_to_all(fd, st);
	a->seen = NULL;
}

int read_access__known(const struct read_access *a, const struct proc_creds *c)
{
	if (a->to_all || (c && c->uid == 0)) /* root reads what it will */
		return 1;
	if (!c)
		return 0;
	for (unsigned int i = 0; a->seen && i < a->seen->n; i++)
		if (proc_creds__equal(&a->seen->creds[i], c))
			return a->seen->may[i];
	return -1;
}

bool read_access__check(struct read_access *a, const struct proc_creds *c, int path_fd,
			const struct stat *st)
{
	int fd = rootfs__reopen_as(c, path_fd, st, O_RDONLY);
	struct read_access_seen *s = a->seen;
	bool may = fd >= 0;

	if (fd >= 0)
		close(fd);
	else if (fd != -EACCES && fd != -EPERM)
		return false; /* not known: asked again next time */
	if (!s && (s = a->seen = calloc(1, sizeof(*s))) == NULL)
		return may;
	s->creds[s->next] = *c;
	s->may[s->next] = may;
	s->next = (s->next + 1) % READ_ACCESS_SEEN;
	if (s->n < READ_ACCESS_SEEN)
		s->n++;
	return may;
}

void read_access__free(struct read_access *a)
{
	free(a->seen);
	a->seen = NULL;
}
