/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmap: the symbols a JIT writes for its generated code into
 * /tmp/perf-PID.map, one "START SIZE name" line per function (hex numbers,
 * with or without 0x), as perf defined the format.
 */
#ifndef FLAMETOP_PERFMAP_H
#define FLAMETOP_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Largest perf map read, and most entries kept: a bigger file is refused. */
#define PERF_MAP_MAX_BYTES (64UL << 20)
#define PERF_MAP_MAX_ENTRIES (1UL << 21)

struct perf_map;

/*
 * perf_map__read() reads the perf-map lines of @fd from where it is, a
 * block at a time, and stops as soon as the map they make holds more than
 * @max_bytes (perf_map__bytes()): it cannot fit, and the file is read no
 * further (-ENOSPC). At most PERF_MAP_MAX_ENTRIES entries are kept (the
 * lines after them are not parsed), and a file that grows past PERF_MAP_MAX_BYTES
 * as it is read is given up (-EFBIG). Malformed lines, lines longer than
 * 4 KiB, lines with a NUL, zero sizes and ranges that wrap around are
 * skipped and counted in *@bad when @bad is not NULL. Names are sanitized
 * and capped where they are read. When two entries start at one address
 * the later line wins (a JIT reusing memory). Returns 0 and a map in *@out
 * (possibly empty), or -errno.
 */
int perf_map__read(int fd, size_t max_bytes, struct perf_map **out, size_t *bad);

/* The version of a perf map file read: a file with all four the same is not read again. */
struct perf_map_id {
	uint64_t dev, ino, size;
	struct timespec mtime;
};

/*
 * perf_map__open() reads the perf map of process @pid as the process sees
 * it, "/tmp/perf-<its pid in its own namespace>.map" inside its root
 * "@proc_root/@pid/root", and with no more access than the process has:
 * the file is looked up and opened under the process's file-system uid,
 * gid and groups (rootfs__open_file_as()); where flametop may not take
 * those, only a file owned by the process's own uid is read. The file must
 * be a regular file (a symlink is not followed, a FIFO or device is not
 * opened) of at most PERF_MAP_MAX_BYTES, owned by the process's uid or by
 * root (a map another user planted in a shared /tmp is not the process's).
 *
 * When @id is not NULL it names the version read last (zeroed: none):
 * the same file with the same size and modification time is not read
 * again (-EALREADY); *@id is updated when the file is read. The file is
 * read by perf_map__read() with @max_bytes: -ENOSPC when its map is larger.
 * Returns 0 and the map in *@out, -ENOENT when there is none, -EPERM or
 * -EACCES when it is refused, -EALREADY, -ENOSPC, or another -errno.
 */
int perf_map__open(const char *proc_root, uint32_t pid, struct perf_map_id *id, size_t max_bytes,
		   struct perf_map **out);

/*
 * perf_map__lookup() returns the name of the entry holding @addr (in
 * [start, start + size)), or NULL. The string lives until perf_map__free().
 */
const char *perf_map__lookup(const struct perf_map *pm, uint64_t addr);

/*
 * perf_map__extent() is perf_map__lookup() giving the entry's range too,
 * [*@start, *@end). Returns its name, or NULL.
 */
const char *perf_map__extent(const struct perf_map *pm, uint64_t addr, uint64_t *start,
			     uint64_t *end);

/* True when some entry starts in [@start, @end). */
bool perf_map__covers(const struct perf_map *pm, uint64_t start, uint64_t end);

/* Number of entries kept, and the heap bytes they hold. */
size_t perf_map__count(const struct perf_map *pm);
size_t perf_map__bytes(const struct perf_map *pm);

/* perf_map__free(NULL) is a no-op. */
void perf_map__free(struct perf_map *pm);

#endif
