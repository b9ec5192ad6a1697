/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rootfs: opening files as a process sees them. A process in a container
 * has its own root directory (/proc/PID/root); a path it names is looked up
 * there, with every symlink resolved inside that root, never on the host.
 *
 * A path another process names may lead to a FIFO or a device node, whose
 * very opening has effects (a writer waiting on the FIFO goes on, a tape
 * rewinds): such files are looked at without being opened (O_PATH), and
 * only regular files are opened.
 */
#ifndef FLAMETOP_ROOTFS_H
#define FLAMETOP_ROOTFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "symbols/procinfo.h"

/*
 * rootfs__open_root() opens the root directory of process @pid,
 * "@proc_root/@pid/root", as an O_PATH descriptor. Returns it, or -errno.
 */
int rootfs__open_root(const char *proc_root, uint32_t pid);

/* True when directory @root_fd is the host's own root, "/". */
bool rootfs__is_host(int root_fd);

/*
 * rootfs__open() opens absolute @path inside directory @root_fd as if it
 * were "/" (openat2 with RESOLVE_IN_ROOT; where the kernel lacks openat2,
 * relative to it), or on the host when @root_fd is negative. @flags are
 * open(2) flags; O_CLOEXEC is always added, and O_NOCTTY and O_NONBLOCK (no
 * wait on a FIFO) too unless @flags has O_PATH. Returns an fd, or -errno.
 */
int rootfs__open(int root_fd, const char *path, int flags);

/*
 * rootfs__look() looks up @path as rootfs__open() does (@flags may add
 * O_NOFOLLOW) without opening the file: it returns an O_PATH descriptor
 * and the file's stat(2) in *@st, or -errno.
 */
int rootfs__look(int root_fd, const char *path, int flags, struct stat *st);

/*
 * rootfs__reopen() opens the file O_PATH descriptor @path_fd stands for,
 * described by @st (rootfs__look()), with open(2) @flags (O_CLOEXEC,
 * O_NOCTTY and O_NONBLOCK added), when it is a regular file. It is the same
 * file, even when its path has changed since. Returns an fd, -EPERM for
 * anything but a regular file (not opened), or -errno.
 */
int rootfs__reopen(int path_fd, const struct stat *st, int flags);

/*
 * rootfs__open_file() is rootfs__look() then rootfs__reopen(): it opens
 * @path only when it is a regular file, and fills *@st. Returns an fd, or
 * -errno (-EPERM for anything but a regular file).
 */
int rootfs__open_file(int root_fd, const char *path, int flags, struct stat *st);

/*
 * rootfs__run_as() runs @fn(@arg) with the file-system uid, gid and
 * supplementary groups of @as instead of flametop's own: every file it
 * opens, the kernel grants as it would to that process, no more (and no
 * override a root flametop has). The credentials are taken by a thread of
 * its own that ends with @fn. Returns what @fn returned, -EOPNOTSUPP when
 * flametop may not take them (it lacks CAP_SETUID or CAP_SETGID; @fn was
 * not run), or -errno when no thread could be started.
 */
int rootfs__run_as(const struct proc_creds *as, int (*fn)(void *arg), void *arg);

/*
 * rootfs__open_file_as() is rootfs__open_file() done with the file-system
 * uid, gid and supplementary groups of @as instead of flametop's own: the
 * kernel then grants what it would grant that process, no more (and no
 * override a root flametop has). The credentials are taken by a thread of
 * its own that ends with the open. Returns an fd, -EOPNOTSUPP when
 * flametop may not take them (it lacks CAP_SETUID or CAP_SETGID), or as
 * rootfs__open_file() (-EACCES where the process may not read the file).
 */
int rootfs__open_file_as(const struct proc_creds *as, int root_fd, const char *path, int flags,
			 struct stat *st);

/*
 * rootfs__reopen_as() is rootfs__reopen() done with @as's credentials, as
 * rootfs__open_file_as() opens: the file @path_fd stands for, opened only
 * if @as may open it so (a file flametop reached through another process's
 * /proc entries, its map_files). Returns an fd, -EOPNOTSUPP, or as
 * rootfs__reopen() (-EACCES where @as may not).
 */
int rootfs__reopen_as(const struct proc_creds *as, int path_fd, const struct stat *st, int flags);

/*
 * rootfs__open_to_all() is true when every user may read the file open on
 * @fd, described by @st: its owner, its group and others all have read
 * permission, and no access ACL says otherwise. What it says holds for
 * anyone, so no one's credentials need taking to read it for them.
 */
bool rootfs__open_to_all(int fd, const struct stat *st);

/* Who may read a file, as far as it was asked: every user, or the credentials asked about. */
struct read_access {
	bool to_all;		     /* rootfs__open_to_all() */
	struct read_access_seen *seen; /* the answers for other credentials, the last few */
};

/* read_access__init() sets @a for the file open on @fd, which @st describes. */
void read_access__init(struct read_access *a, int fd, const struct stat *st);

/*
 * read_access__known() answers from @a alone whether credentials @c may
 * read the file: 1 yes, 0 no, -1 not known (read_access__check() asks).
 * NULL credentials (a process gone) may read only what every user may.
 */
int read_access__known(const struct read_access *a, const struct proc_creds *c);

/*
 * read_access__check() asks the kernel whether @c may read the file
 * @path_fd (O_PATH, described by @st) stands for: it is reopened with
 * @c's credentials (rootfs__reopen_as()). The answer is remembered in @a
 * unless it could not be had (flametop may not take credentials, or is
 * out of descriptors), in which case the answer is no.
 */
bool read_access__check(struct read_access *a, const struct proc_creds *c, int path_fd,
			const struct stat *st);

/* read_access__free() releases what @a remembers; it is then as read_access__init() left it. */
void read_access__free(struct read_access *a);

#endif
