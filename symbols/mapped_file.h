/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapped_file: the file behind a process's mapping, opened or looked at as
 * the process sees it, and flametop's own vDSO image. For the readers of a
 * mapped file's contents: its symbols (elf_cache) and its unwind table.
 */
#ifndef FLAMETOP_MAPPED_FILE_H
#define FLAMETOP_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "symbols/procinfo.h"
#include "symbols/procmaps.h"
#include "symbols/rootfs.h"

/*
 * mapped_file__open() opens the file behind mapping @m of process @tgid:
 * through "@proc_root/tgid/map_files/start-end" (the mapped file itself,
 * even when deleted or replaced), else "@proc_root/tgid/root/path", else
 * the host path. A candidate is taken only when it is a regular file with
 * the mapping's inode, and its device too unless it came through map_files
 * (btrfs shows a subvolume's device number there), which is checked before
 * it is opened (rootfs__look()): whatever else has taken the path since,
 * a FIFO or a device node, is never opened. Returns an fd, -EMFILE when
 * some candidate could not be looked at for want of file descriptors, or
 * -ENOENT.
 */
int mapped_file__open(const char *proc_root, uint32_t tgid, const struct proc_map *m);

/*
 * mapped_file__may_read() tells whether process @tgid, of credentials @c
 * (NULL: unknown), may read the file behind its mapping @m, whose access
 * @a remembers: only then is the file read for it (symbols, CFI). An
 * execute-only binary (mode 0711) is mapped by a process that may not read
 * it: flametop reaches it through map_files, and must not read it for that
 * process. Asked of the kernel, the file reopened through map_files with
 * @c's credentials, once per file and credentials (rootfs.h's read_access).
 */
bool mapped_file__may_read(struct read_access *a, const char *proc_root, uint32_t tgid,
			   const struct proc_map *m, const struct proc_creds *c);

/*
 * mapped_file__stat() is stat(2) of the file behind mapping @m of @tgid,
 * reached through map_files without opening it. Returns 0 or -errno.
 */
int mapped_file__stat(const char *proc_root, uint32_t tgid, const struct proc_map *m,
		      struct stat *st);

/*
 * mapped_file__own_vdso() finds flametop's own vDSO image (its address from
 * the aux vector, its size from its maps). Returns 0 with *@image and *@len
 * set, or -ENOENT.
 */
int mapped_file__own_vdso(const void **image, size_t *len);

#endif
