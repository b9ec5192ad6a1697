/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procmaps: a snapshot of one process's /proc/PID/maps.
 */
#ifndef FLAMETOP_PROCMAPS_H
#define FLAMETOP_PROCMAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum map_kind {
	MAP_FILE,     /* backed by a file: path is its name */
	MAP_ANON,     /* no name */
	MAP_HEAP,     /* [heap] */
	MAP_STACK,    /* [stack] */
	MAP_VDSO,     /* [vdso] */
	MAP_VSYSCALL, /* [vsyscall] */
	MAP_SPECIAL,  /* any other [name], e.g. [vvar] or [anon:foo] */
};

#define MAP_PERM_R 1
#define MAP_PERM_W 2
#define MAP_PERM_X 4
#define MAP_PERM_P 8 /* private (copy on write) */

struct proc_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint8_t perms;       /* MAP_PERM_* */
	uint8_t kind;        /* enum map_kind */
	bool deleted;        /* the path ended in " (deleted)", removed from path */
	char *path;          /* sanitized; "" for anonymous mappings */
};

struct proc_maps {
	struct proc_map *maps; /* sorted by start */
	size_t n;
};

/*
 * proc_maps__parse() reads maps-format lines from @f into @out (which it
 * initializes). Paths may contain spaces. Malformed lines are skipped and
 * counted in *@bad when @bad is not NULL. Returns 0, or -errno (out is then
 * empty).
 */
int proc_maps__parse(FILE *f, struct proc_maps *out, size_t *bad);

/*
 * proc_map__set_name() sets @m's path, kind and deleted flag from the @len
 * bytes at @name, named as a maps line names a mapping: "" when anonymous,
 * "[vdso]" and the like, or a path, which may end in " (deleted)" (taken
 * off). The path is a sanitized copy (free()d by proc_maps__free()).
 * Returns 0 or -ENOMEM.
 */
int proc_map__set_name(struct proc_map *m, const char *name, size_t len);

/* Room for a mapping's sanitized name and its NUL (proc_map__clean_name()). */
#define PROC_MAP_NAME_MAX (PATH_MAX + 256)

/*
 * proc_map__clean_name() is proc_map__set_name() without the copy: it sets
 * @m's kind and deleted flag, writes the sanitized path into @clean (room
 * for PROC_MAP_NAME_MAX bytes), leaves m->path alone and returns the
 * path's length.
 */
size_t proc_map__clean_name(struct proc_map *m, const char *name, size_t len, char *clean);

/* proc_maps__read() is proc_maps__parse() of "@proc_root/@pid/maps". */
int proc_maps__read(const char *proc_root, int pid, struct proc_maps *out);

/* proc_maps__find() returns the mapping containing @addr, or NULL. */
const struct proc_map *proc_maps__find(const struct proc_maps *pm, uint64_t addr);

/* True when @a and @b hold the same mappings, paths included. */
bool proc_maps__equal(const struct proc_maps *a, const struct proc_maps *b);

/* Releases what @pm holds and leaves it empty; safe on an empty set. */
void proc_maps__free(struct proc_maps *pm);

#endif
