/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rootfs: opening files as a process sees them. A process in a container
 * has its own root directory (/proc/PID/root); a path it names is looked up
 * there, with every symlink resolved inside that root, never on the host.
 */
#ifndef FLAMETOP_ROOTFS_H
#define FLAMETOP_ROOTFS_H

#include <stdbool.h>
#include <stdint.h>

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
 * open(2) flags; O_CLOEXEC, O_NOCTTY and O_NONBLOCK (no wait on a FIFO) are
 * always added. Returns an fd, or -errno.
 */
int rootfs__open(int root_fd, const char *path, int flags);

#endif
