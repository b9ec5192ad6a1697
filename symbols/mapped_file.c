// SPDX-License-Identifier: GPL-2.0
#include "symbols/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/rootfs.h"

/*
 * True when the file @st describes is the one mapping @m names: a regular
 * file with its inode, and its device unless @via_map_files. A file reached
 * through map_files is the mapped one, and btrfs shows another device
 * number for it (its subvolume's) than the maps file does.
 */
static bool mapped_file__matches(const struct stat *st, const struct proc_map *m,
				 bool via_map_files)
{
	if (!S_ISREG(st->st_mode) || st->st_ino != m->inode)
		return false;
	return via_map_files ||
	       (major(st->st_dev) == m->dev_major && minor(st->st_dev) == m->dev_minor);
}

/*
 * Opens @path in @root_fd (rootfs__open()) when it is the file of @m,
 * which is checked before it is opened: a FIFO or a device node put in
 * its place is never opened. Returns an fd or -errno (-ENOENT when it is
 * not the file).
 */
static int mapped_file__try(int root_fd, const char *path, const struct proc_map *m,
			    bool via_map_files)
{
	struct stat st;
	int path_fd = rootfs__look(root_fd, path, 0, &st), fd = -ENOENT;

	if (path_fd < 0)
		return path_fd;
	if (mapped_file__matches(&st, m, via_map_files))
		fd = rootfs__reopen(path_fd, &st, O_RDONLY);
	close(path_fd);
	return fd;
}

/* True when @err says that flametop is out of file descriptors. */
static bool out_of_fds(int err)
{
	return err == -EMFILE || err == -ENFILE;
}

/* "@proc_root/@tgid/map_files/start-end" into @path; false when it does not fit. */
static bool map_files_path(char *path, size_t size, const char *proc_root, uint32_t tgid,
			   const struct proc_map *m)
{
	int n = snprintf(path, size, "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, proc_root,
			 tgid, m->start, m->end);

	return n > 0 && (size_t)n < size;
}

int mapped_file__open(const char *proc_root, uint32_t tgid, const struct proc_map *m)
{
	char path[PATH_MAX];
	int fd = -ENOENT, root;
	bool no_fds = false;

	if (map_files_path(path, sizeof(path), proc_root, tgid, m))
		fd = mapped_file__try(-1, path, m, true);
	no_fds |= out_of_fds(fd);
	if (fd < 0 && m->path[0] == '/') {
		root = rootfs__open_root(proc_root, tgid);
		no_fds |= out_of_fds(root);
		if (root >= 0) {
			fd = mapped_file__try(root, m->path, m, false);
			no_fds |= out_of_fds(fd);
			close(root);
		}
	}
	if (fd < 0 && m->path[0] == '/') {
		fd = mapped_file__try(-1, m->path, m, false);
		no_fds |= out_of_fds(fd);
	}
	if (fd < 0)
		return no_fds ? -EMFILE : -ENOENT;
	return fd;
}

bool mapped_file__may_read(struct read_access *a, const char *proc_root, uint32_t tgid,
			   const struct proc_map *m, const struct proc_creds *c)
{
	int known = read_access__known(a, c), path_fd;
	char path[PATH_MAX];
	struct stat st;
	bool may;

	if (known >= 0)
		return known;
	if (!map_files_path(path, sizeof(path), proc_root, tgid, m) ||
	    (path_fd = rootfs__look(-1, path, 0, &st)) < 0)
		return false;
	may = mapped_file__matches(&st, m, true) && read_access__check(a, c, path_fd, &st);
	close(path_fd);
	return may;
}

int mapped_file__stat(const char *proc_root, uint32_t tgid, const struct proc_map *m,
		      struct stat *st)
{
	char path[PATH_MAX];

	if (!map_files_path(path, sizeof(path), proc_root, tgid, m))
		return -ENAMETOOLONG;
	return stat(path, st) ? -errno : 0;
}

int mapped_file__own_vdso(const void **image, size_t *len)
{
	uint64_t start = getauxval(AT_SYSINFO_EHDR);
	const struct proc_map *m;
	struct proc_maps maps;
	int err = -ENOENT;

	if (!start || proc_maps__read("/proc", getpid(), &maps))
		return -ENOENT;
	m = proc_maps__find(&maps, start);
	if (m && m->kind == MAP_VDSO && m->start == start) {
		*image = (const void *)(uintptr_t)start;
		*len = m->end - m->start;
		err = 0;
	}
	proc_maps__free(&maps);
	return err;
}
