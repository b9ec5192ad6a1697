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

/* Parses the line of @len bytes at @s; a NUL inside or an overlong line is skipped. */
static int perf_map__text_line(struct perf_map *pm, const char *s, size_t len)
{
	char line[PERF_MAP_LINE_MAX];

	if (len >= sizeof(line) || memchr(s, '\0', len))
		return -EINVAL;
	memcpy(line, s, len);
	line[len] = '\0';
	return perf_map__line(pm, line, len);
}

int perf_map__parse(const char *text, size_t len, struct perf_map **out, size_t *bad)
{
	struct perf_map *pm = calloc(1, sizeof(*pm));
	const char *s = text, *end = text + len;
	size_t n_bad = 0;
	int rc = 0;

	*out = NULL;
	if (!pm)
		return -ENOMEM;
	while (s < end && pm->n < PERF_MAP_MAX_ENTRIES) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;

		rc = perf_map__text_line(pm, s, (size_t)(eol - s));
		if (rc == -ENOMEM)
			break;
		if (rc)
			n_bad++;
		rc = 0;
		s = eol + 1;
	}
	if (bad)
		*bad = n_bad;
	if (rc) {
		perf_map__free(pm);
		return rc;
	}
	perf_map__sort(pm);
	*out = pm;
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

/* Makes room for one more read in @buf, never beyond @max + 1 bytes. */
static int grow_bounded(char **buf, size_t *cap, size_t max)
{
	size_t want = *cap ? *cap * 2 : 64 * 1024;
	char *p;

	if (*cap > max)
		return -EFBIG;
	if (want > max + 1)
		want = max + 1;
	p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

/* Reads all of @fd, at most @max bytes, into a new buffer; returns its length or -errno. */
static ssize_t read_bounded(int fd, size_t max, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n = 0;
	int err = 0;

	while (!err) {
		if (len == cap && (err = grow_bounded(&buf, &cap, max)) != 0)
			break;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (!err && n < 0)
		err = -errno;
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return (ssize_t)len;
}

int perf_map__open(const char *proc_root, uint32_t pid, struct perf_map_id *id,
		   struct perf_map **out)
{
	struct perf_map_id now;
	int fd = perf_map__open_checked(proc_root, pid, id, &now), err;
	char *text = NULL;
	ssize_t len;

	*out = NULL;
	if (fd < 0)
		return fd;
	len = read_bounded(fd, PERF_MAP_MAX_BYTES, &text);
	close(fd);
	if (len < 0)
		return (int)len;
	err = perf_map__parse(text, (size_t)len, out, NULL);
	free(text);
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
	size_t i = perf_map__upper(pm, addr);

	if (!i || addr >= pm->v[i - 1].end)
		return NULL;
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
