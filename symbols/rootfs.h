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

#endif
