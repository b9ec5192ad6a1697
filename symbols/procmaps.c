// SPDX-License-Identifier: GPL-2.0
/*
 * procmaps: parse /proc/PID/maps.
 *
 * A line reads "start-end perms offset major:minor inode [path]", numbers in
 * hex except the inode. The path is the rest of the line after the padding
 * spaces, so it may itself contain spaces.
 */
#include "symbols/procmaps.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

/* Room for a PATH_MAX path after the fixed fields. */
#define MAPS_LINE_MAX (PATH_MAX + 256)

static const char deleted_suffix[] = " (deleted)";

static int expect(const char **s, char c)
{
	if (**s != c)
		return -EINVAL;
	(*s)++;
	return 0;
}

/* Parses "rwxp": each position is its letter or '-', the last 'p' or 's'. */
static int parse_perms(const char **s, uint8_t *perms)
{
	static const char letters[] = "rwx";
	static const uint8_t bits[] = {MAP_PERM_R, MAP_PERM_W, MAP_PERM_X};
	const char *p = *s;
	int i;

	*perms = 0;
	for (i = 0; i < 3; i++) {
		if (p[i] == letters[i])
			*perms |= bits[i];
		else if (p[i] != '-')
			return -EINVAL;
	}
	if (p[3] == 'p')
		*perms |= MAP_PERM_P;
	else if (p[3] != 's')
		return -EINVAL;
	*s = p + 4;
	return 0;
}

static int parse_dev(const char **s, struct proc_map *m)
{
	uint64_t major, minor;

	if (text_line__parse_u64(s, 16, &major) || expect(s, ':') ||
	    text_line__parse_u64(s, 16, &minor))
		return -EINVAL;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	return 0;
}

static enum map_kind map_kind__of(const char *path, size_t len)
{
	static const struct {
		const char *name;
		enum map_kind kind;
	} named[] = {
	    {"[heap]", MAP_HEAP},
	    {"[stack]", MAP_STACK},
	    {"[vdso]", MAP_VDSO},
	    {"[vsyscall]", MAP_VSYSCALL},
	};
	size_t i;

	if (!len)
		return MAP_ANON;
	if (path[0] != '[' || path[len - 1] != ']')
		return MAP_FILE;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!strcmp(path, named[i].name))
			return named[i].kind;
	}
	return MAP_SPECIAL;
}

size_t proc_map__clean_name(struct proc_map *m, const char *name, size_t len, char *clean)
{
	size_t suffix = sizeof(deleted_suffix) - 1;

	m->deleted = len > suffix && !memcmp(name + len - suffix, deleted_suffix, suffix);
	if (m->deleted)
		len -= suffix;
	len = sanitize_name(clean, PROC_MAP_NAME_MAX, name, len);
	m->kind = (uint8_t)map_kind__of(clean, len);
	return len;
}

int proc_map__set_name(struct proc_map *m, const char *name, size_t len)
{
	char clean[PROC_MAP_NAME_MAX];

	proc_map__clean_name(m, name, len, clean);
	m->path = strdup(clean);
	return m->path ? 0 : -ENOMEM;
}

/*
 * Splits the path off the rest of a line: drops the padding, and sets the
 * rest as the mapping's name (proc_map__set_name()). Returns 0, -EINVAL or
 * -ENOMEM.
 */
static int proc_map__set_path(struct proc_map *m, const char *rest)
{
	if (*rest && *rest != ' ')
		return -EINVAL;
	rest += strspn(rest, " ");
	return proc_map__set_name(m, rest, strlen(rest));
}

/* Parses one maps line into @m. Returns 0, -EINVAL for a malformed line, or -ENOMEM. */
static int proc_map__parse(const char *s, struct proc_map *m)
{
	memset(m, 0, sizeof(*m));
	if (text_line__parse_u64(&s, 16, &m->start) || expect(&s, '-') ||
	    text_line__parse_u64(&s, 16, &m->end) || expect(&s, ' ') ||
	    parse_perms(&s, &m->perms) || expect(&s, ' ') ||
	    text_line__parse_u64(&s, 16, &m->pgoff) || expect(&s, ' ') || parse_dev(&s, m) ||
	    expect(&s, ' ') || text_line__parse_u64(&s, 10, &m->inode))
		return -EINVAL;
	if (m->start >= m->end)
		return -EINVAL;
	return proc_map__set_path(m, s);
}

static int proc_maps__push(struct proc_maps *pm, size_t *cap, const struct proc_map *m)
{
	if (array__grow((void **)&pm->maps, cap, pm->n + 1, sizeof(*pm->maps), 64))
		return -ENOMEM;
	pm->maps[pm->n++] = *m;
	return 0;
}

static int proc_map__cmp(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

int proc_maps__parse(FILE *f, struct proc_maps *out, size_t *bad)
{
	char line[MAPS_LINE_MAX];
	struct proc_map m;
	size_t cap = 0, len, n_bad = 0;
	int rc, err = 0;

	out->maps = NULL;
	out->n = 0;
	while (!err && (rc = text_line__read(f, line, sizeof(line), &len)) != 0) {
		if (rc == -EIO) {
			err = -EIO;
			break;
		}
		if (rc == 1)
			rc = proc_map__parse(line, &m);
		if (rc == -ENOMEM)
			err = -ENOMEM;
		else if (rc < 0)
			n_bad++;
		else if ((err = proc_maps__push(out, &cap, &m)) != 0)
			free(m.path);
	}
	if (bad)
		*bad = n_bad;
	if (err) {
		proc_maps__free(out);
		return err;
	}
	if (out->n)
		qsort(out->maps, out->n, sizeof(*out->maps), proc_map__cmp);
	return 0;
}

/*
 * The stdio buffer a maps file is read through: /proc says a block is 1 KiB,
 * and each read() of the file walks the process's mappings again under its
 * lock (a Python process's 10 KiB took eleven reads, and an fstat()); most
 * maps files fit in one.
 */
#define MAPS_READ_BUF (16 * 1024)

int proc_maps__read(const char *proc_root, int pid, struct proc_maps *out)
{
	char path[PATH_MAX], buf[MAPS_READ_BUF];
	FILE *f;
	int err;

	out->maps = NULL;
	out->n = 0;
	if (snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	err = proc_maps__parse(f, out, NULL);
	fclose(f);
	return err;
}

const struct proc_map *proc_maps__find(const struct proc_maps *pm, uint64_t addr)
{
	size_t lo = addr_search__count(pm->maps, pm->n, sizeof(*pm->maps),
				       offsetof(struct proc_map, start), addr);

	if (!lo || addr >= pm->maps[lo - 1].end)
		return NULL;
	return &pm->maps[lo - 1];
}

static bool proc_map__equal(const struct proc_map *x, const struct proc_map *y)
{
	return x->start == y->start && x->end == y->end && x->pgoff == y->pgoff &&
	       x->inode == y->inode && x->dev_major == y->dev_major &&
	       x->dev_minor == y->dev_minor && x->perms == y->perms && x->kind == y->kind &&
	       x->deleted == y->deleted && !strcmp(x->path, y->path);
}

bool proc_maps__equal(const struct proc_maps *a, const struct proc_maps *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		if (!proc_map__equal(&a->maps[i], &b->maps[i]))
			return false;
	}
	return true;
}

void proc_maps__free(struct proc_maps *pm)
{
	size_t i;

	for (i = 0; i < pm->n; i++)
		free(pm->maps[i].path);
	free(pm->maps);
	pm->maps = NULL;
	pm->n = 0;
}
