// SPDX-License-Identifier: GPL-2.0
/*
 * perfmap: a sorted array of ranges and one arena of sanitized names.
 */
#include "symbols/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/addr_sort.h"
#include "symbols/procinfo.h"
#include "symbols/rootfs.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

#define PERF_MAP_LINE_MAX 4096
#define PERF_MAP_BLOCK (64 * 1024) /* bytes read at once */

struct perf_map_entry {
	uint64_t start, end;
	uint32_t name; /* arena offset */
	uint32_t line; /* order in the file, to let the later of two entries win */
};

struct perf_map {
	struct perf_map_entry *v;
	size_t n, cap;
	char *arena;
	size_t arena_len, arena_cap;
};

/* Parses a hex number with an optional 0x prefix. */
static int parse_hex(const char **s, uint64_t *v)
{
	if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X'))
		*s += 2;
	return text_line__parse_u64(s, 16, v);
}

static int perf_map__add_name(struct perf_map *pm, const char *name, size_t len, uint32_t *off)
{
	char clean[NAME_MAX_BYTES + 1];
	size_t n = sanitize_name(clean, sizeof(clean), name, len);

	/* Offsets into the arena are uint32_t. */
	if (array__grow_max((void **)&pm->arena, &pm->arena_cap, pm->arena_len + n + 1, 1, 4096,
			    UINT32_MAX))
		return -ENOMEM;
	memcpy(pm->arena + pm->arena_len, clean, n + 1);
	*off = (uint32_t)pm->arena_len;
	pm->arena_len += n + 1;
	return 0;
}

static int perf_map__push(struct perf_map *pm, const struct perf_map_entry *e)
{
	if (array__grow((void **)&pm->v, &pm->cap, pm->n + 1, sizeof(*pm->v), 256))
		return -ENOMEM;
	pm->v[pm->n++] = *e;
	return 0;
}

/* Takes one line; returns 0, -EINVAL for a line to skip, or -ENOMEM. */
static int perf_map__line(struct perf_map *pm, const char *s, size_t len)
{
	const char *end = s + len;
	struct perf_map_entry e;
	uint64_t size;

	if (parse_hex(&s, &e.start) || *s++ != ' ' || parse_hex(&s, &size) || *s++ != ' ')
		return -EINVAL;
	if (!size || e.start + size < e.start || s >= end)
		return -EINVAL;
	e.end = e.start + size;
	e.line = (uint32_t)pm->n;
	if (perf_map__add_name(pm, s, (size_t)(end - s), &e.name))
		return -ENOMEM;
	return perf_map__push(pm, &e);
}

/* By start; at one start the later line first, so that it is the one kept. */
static int perf_map_entry__cmp(const void *a, const void *b, void *unused)
{
	const struct perf_map_entry *x = a, *y = b;

	(void)unused;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line > y->line ? -1 : x->line < y->line;
}

static void perf_map__sort(struct perf_map *pm)
{
	pm->n = addr_sort__unique(pm->v, pm->n, sizeof(*pm->v), offsetof(struct perf_map_entry, start),
				  perf_map_entry__cmp, NULL);
}

/* A map being read, and what may still go into it. */
struct perf_map_reader {
	struct perf_map *pm;
	size_t max_bytes; /* the most perf_map__bytes() may come to */
	size_t bad;	  /* lines that did not parse */
};

/*
 * Takes one line (text_lines.line). Returns 0, 1 once the map holds
 * PERF_MAP_MAX_ENTRIES (the rest is ignored), -ENOSPC once it holds more
 * than the reader allows, or -ENOMEM.
 */
static int perf_map_reader__line(void *ctx, char *s, size_t len)
{
	struct perf_map_reader *r = ctx;
	int rc = perf_map__line(r->pm, s, len);

	if (rc == -ENOMEM)
		return rc;
	if (rc)
		r->bad++;
	if (perf_map__bytes(r->pm) > r->max_bytes)
		return -ENOSPC;
	return r->pm->n >= PERF_MAP_MAX_ENTRIES;
}

/*
 * Reads the lines of @fd into @r, PERF_MAP_BLOCK bytes at a time (lines of
 * PERF_MAP_LINE_MAX bytes or more are skipped, and counted). Stops when the
 * map no longer fits (-ENOSPC), at PERF_MAP_MAX_ENTRIES, or at the end of
 * the file; a file that grows past PERF_MAP_MAX_BYTES as it is read is
 * given up (-EFBIG).
 */
static int perf_map_reader__fd(struct perf_map_reader *r, int fd)
{
	struct text_lines t = { .block = PERF_MAP_BLOCK, .line_max = PERF_MAP_LINE_MAX,
				.max_bytes = PERF_MAP_MAX_BYTES, .line = perf_map_reader__line,
				.ctx = r };
	int err = text_lines__read(fd, &t);

	r->bad += t.skipped;
	return err > 0 ? 0 : err;
}

int perf_map__read(int fd, size_t max_bytes, struct perf_map **out, size_t *bad)
{
	struct perf_map_reader r = {.pm = calloc(1, sizeof(*r.pm)), .max_bytes = max_bytes};
	int err;

	*out = NULL;
	if (!r.pm)
		return -ENOMEM;
	err = perf_map_reader__fd(&r, fd);
	if (bad)
		*bad = r.bad;
	if (err) {
		perf_map__free(r.pm);
		return err;
	}
	perf_map__sort(r.pm);
	*out = r.pm;
	return 0;
}

/*
 * Opens "/tmp/perf-PID.map" in the root @root of a process with status @st,
 * as that process would (see perf_map__open()); fills *@sb.
 */
static int perf_map__open_as(int root, const struct proc_status *st, struct stat *sb)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", st->ns_pid);
	fd = rootfs__open_file_as(&st->creds, root, path, O_RDONLY | O_NOFOLLOW, sb);
	if (fd == -EOPNOTSUPP) {
		fd = rootfs__open_file(root, path, O_RDONLY | O_NOFOLLOW, sb);
		if (fd >= 0 && sb->st_uid != st->creds.uid) {
			close(fd);
			fd = -EPERM;
		}
	}
	return fd == -ELOOP ? -EPERM : fd;
}

static struct perf_map_id perf_map_id__of(const struct stat *sb)
{
	return (struct perf_map_id){.dev = sb->st_dev,
				    .ino = sb->st_ino,
				    .size = (uint64_t)sb->st_size,
				    .mtime = sb->st_mtim};
}

static bool perf_map_id__equal(const struct perf_map_id *a, const struct perf_map_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/*
 * Opens the perf map of @pid and checks what it is; returns an fd and its
 * version in *@now, or -EALREADY when it is version *@known (NULL: none).
 */
static int perf_map__open_checked(const char *proc_root, uint32_t pid,
				  const struct perf_map_id *known, struct perf_map_id *now)
{
	struct proc_status st;
	struct stat sb;
	int root, fd, err;

	err = proc_info__status(proc_root, pid, &st);
	if (err)
		return err;
	root = rootfs__open_root(proc_root, pid);
	if (root < 0)
		return root;
	fd = perf_map__open_as(root, &st, &sb);
	close(root);
	if (fd < 0)
		return fd;
	if ((sb.st_uid != st.creds.uid && sb.st_uid != 0) ||
	    (uint64_t)sb.st_size > PERF_MAP_MAX_BYTES) {
		close(fd);
		return -EPERM;
	}
	*now = perf_map_id__of(&sb);
	if (known && perf_map_id__equal(known, now)) {
		close(fd);
		return -EALREADY;
	}
	return fd;
}

int perf_map__open(const char *proc_root, uint32_t pid, struct perf_map_id *id, size_t max_bytes,
		   struct perf_map **out)
{
	struct perf_map_id now;
	int fd = perf_map__open_checked(proc_root, pid, id, &now), err;

	*out = NULL;
	if (fd < 0)
		return fd;
	err = perf_map__read(fd, max_bytes, out, NULL);
	close(fd);
	if (!err && id)
		*id = now;
	return err;
}

/* Index of the last entry starting at or below @addr, plus one; 0 when none. */
static size_t perf_map__upper(const struct perf_map *pm, uint64_t addr)
{
	return addr_search__count(pm->v, pm->n, sizeof(*pm->v),
				  offsetof(struct perf_map_entry, start), addr);
}

const char *perf_map__lookup(const struct perf_map *pm, uint64_t addr)
{
	uint64_t start, end;

	return perf_map__extent(pm, addr, &start, &end);
}

const char *perf_map__extent(const struct perf_map *pm, uint64_t addr, uint64_t *start,
			     uint64_t *end)
{
	size_t i = perf_map__upper(pm, addr);

	if (!i || addr >= pm->v[i - 1].end)
		return NULL;
	*start = pm->v[i - 1].start;
	*end = pm->v[i - 1].end;
	return pm->arena + pm->v[i - 1].name;
}

bool perf_map__covers(const struct perf_map *pm, uint64_t start, uint64_t end)
{
	/* The first entry starting at or above @start: after those at or below start - 1. */
	size_t lo = start ? perf_map__upper(pm, start - 1) : 0;

	return lo < pm->n && pm->v[lo].start < end;
}

size_t perf_map__count(const struct perf_map *pm)
{
	return pm->n;
}

size_t perf_map__bytes(const struct perf_map *pm)
{
	return sizeof(*pm) + pm->cap * sizeof(*pm->v) + pm->arena_cap;
}

void perf_map__free(struct perf_map *pm)
{
	if (!pm)
		return;
	free(pm->v);
	free(pm->arena);
	free(pm);
}
