// SPDX-License-Identifier: GPL-2.0
/*
 * line_table: the unit's rows in libdw's order, those of the function kept
 * and sorted by address (stably: of the rows at one address the last the
 * table gives wins, as addr2line reads them).
 */
#include "symbols/line_table.h"

#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "symbols/addr_search.h"

/* Is the @len bytes at @name the component ".."? */
static bool is_dotdot(const char *name, size_t len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

void path__normalize(char *path)
{
	bool absolute = path[0] == '/';
	size_t out = absolute, kept = 0; /* names written that a ".." may take away */
	const char *in = path;
	char buf[PATH_MAX];

	buf[0] = '/';
	while (*in) {
		size_t len = strcspn(in, "/");

		if (is_dotdot(in, len) && kept) {
			while (out > absolute && buf[out - 1] != '/')
				out--;
			out -= out > absolute; /* the '/' before the name */
			kept--;
		} else if (len && !(len == 1 && in[0] == '.') &&
			   !(is_dotdot(in, len) && absolute) && out + len + 1 < sizeof(buf)) {
			if (out > absolute)
				buf[out++] = '/';
			memcpy(buf + out, in, len);
			out += len;
			kept += !is_dotdot(in, len);
		}
		in += len;
		in += *in == '/';
	}
	memcpy(path, buf, out);
	path[out] = '\0';
}

/* The unit holding @addr: by .debug_aranges, else by each unit's ranges. */
static int unit_of(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t header;

	if (dwarf_addrdie(dw, addr, cu))
		return 0;
	while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + header, cu) && dwarf_haspc(cu, addr) > 0)
			return 0;
		off = next;
	}
	return -ENOENT;
}

/* The index of @path (raw) in @t's files, added when new; LINE_NO_FILE when it can't be. */
static uint32_t file_index(struct line_table *t, size_t *cap, const char *path)
{
	char *copy;

	for (size_t i = t->nfiles; i-- > 0;) {
		if (!strcmp(t->files[i], path))
			return (uint32_t)i;
	}
	if (t->nfiles >= LINE_TABLE_MAX_FILES ||
	    array__grow((void **)&t->files, cap, t->nfiles + 1, sizeof(*t->files), 8))
		return LINE_NO_FILE;
	copy = strdup(path);
	if (!copy)
		return LINE_NO_FILE;
	t->files[t->nfiles] = copy;
	return (uint32_t)t->nfiles++;
}

/*
 * The path of @line, normalized. libdw joins a file's name to its
 * directory's, the unit's own included (directory 0): a path still relative
 * is under the unit's directory @comp_dir unless it starts with it already
 * (a relative @comp_dir, as a build with -fdebug-prefix-map makes them:
 * glibc's "./stdlib" and "./stdlib/msort.c").
 */
static void line_path(Dwarf_Line *line, const char *comp_dir, char *buf, size_t size)
{
	const char *src = dwarf_linesrc(line, NULL, NULL);
	size_t len = comp_dir ? strlen(comp_dir) : 0;

	if (!src)
		src = "?";
	if (src[0] != '/' && len && !(strncmp(src, comp_dir, len) == 0 && src[len] == '/'))
		snprintf(buf, size, "%s/%s", comp_dir, src);
	else
		snprintf(buf, size, "%s", src);
	path__normalize(buf);
}

/* A row as read, with its place in the table: of the rows at one address, the last wins. */
struct read_row {
	struct line_row r;
	uint32_t order;
};

/* Row order: by address, then as the table gave them. */
static int by_addr(const void *a, const void *b)
{
	const struct read_row *x = a, *y = b;

	if (x->r.addr != y->r.addr)
		return x->r.addr < y->r.addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Adds @r to the @n rows read (room @cap) as the next in the table's order. */
static int add_row(struct read_row **rows, size_t *n, size_t *cap, const struct line_row *r)
{
	if (*n >= LINE_TABLE_MAX_ROWS)
		return -E2BIG;
	if (array__grow((void **)rows, cap, *n + 1, sizeof(**rows), 64))
		return -ENOMEM;
	(*rows)[*n] = (struct read_row){ *r, (uint32_t)*n };
	++*n;
	return 0;
}

/* Gives @t the @n rows read, by address, the last of each address only. */
static int keep_rows(struct line_table *t, struct read_row *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), by_addr);
	t->rows = malloc((n ? n : 1) * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (t->n && t->rows[t->n - 1].addr == rows[i].r.addr)
			t->n--;
		t->rows[t->n++] = rows[i].r;
	}
	return 0;
}

/* The address of @line and whether it ends a sequence; -EINVAL when unreadable. */
static int line_addr(Dwarf_Line *line, uint64_t *addr, bool *end)
{
	Dwarf_Addr a;

	*end = false;
	if (!line || dwarf_lineaddr(line, &a) || dwarf_lineendsequence(line, end))
		return -EINVAL;
	*addr = a;
	return 0;
}

/* The row of @line at @addr, its file's path interned in @t. */
static struct line_row row_of(Dwarf_Line *line, uint64_t addr, bool end, const char *comp_dir,
			      struct line_table *t, size_t *files_cap)
{
	struct line_row r = { .addr = addr, .file = LINE_NO_FILE };
	char path[PATH_MAX];
	int lineno = 0;

	if (end)
		return r;
	dwarf_lineno(line, &lineno);
	r.line = lineno > 0 ? (uint32_t)lineno : 0;
	line_path(line, comp_dir, path, sizeof(path));
	r.file = file_index(t, files_cap, path);
	return r;
}

/*
 * Reads the rows of unit @cu covering [@lo, @hi) into @t: those in it, and
 * the last below @lo as a row at @lo (first in order: one the table has
 * there wins; past a sequence's end when there is none).
 */
static int read_unit(Dwarf_Die *cu, uint64_t lo, uint64_t hi, struct line_table *t)
{
	size_t n, nrows = 0, rows_cap = 0, files_cap = 0, before = SIZE_MAX;
	Dwarf_Attribute attr;
	const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	struct line_row r = { .addr = lo, .file = LINE_NO_FILE };
	uint64_t addr, before_addr = 0;
	struct read_row *rows = NULL;
	Dwarf_Lines *lines;
	bool end;
	int err;

	if (dwarf_getsrclines(cu, &lines, &n))
		return -ENOENT;
	err = add_row(&rows, &nrows, &rows_cap, &r); /* the row before @lo's place */
	for (size_t i = 0; i < n && !err; i++) {
		Dwarf_Line *line = dwarf_onesrcline(lines, i);

		if (line_addr(line, &addr, &end))
			continue;
		if (addr < lo && (before == SIZE_MAX || addr >= before_addr)) {
			before = i;
			before_addr = addr;
		} else if (addr >= lo && addr < hi) {
			r = row_of(line, addr, end, comp_dir, t, &files_cap);
			err = add_row(&rows, &nrows, &rows_cap, &r);
		}
	}
	if (!err && before != SIZE_MAX) {
		Dwarf_Line *line = dwarf_onesrcline(lines, before);

		line_addr(line, &addr, &end);
		rows[0].r = row_of(line, lo, end, comp_dir, t, &files_cap);
	}
	if (!err)
		err = keep_rows(t, rows, nrows);
	free(rows);
	return err;
}

int line_table__read(Dwarf *dw, uint64_t lo, uint64_t hi, struct line_table *out)
{
	Dwarf_Die cu;
	int err;

	*out = (struct line_table){ 0 };
	if (!dw || unit_of(dw, lo, &cu))
		return -ENOENT;
	err = read_unit(&cu, lo, hi, out);
	if (!err && !out->nfiles) /* not one row with a line */
		err = -ENOENT;
	if (err)
		line_table__free(out);
	return err;
}

const struct line_row *line_table__find(const struct line_table *t, uint64_t addr)
{
	size_t n = addr_search__count(t->rows, t->n, sizeof(*t->rows),
				      offsetof(struct line_row, addr), addr);

	return n && t->rows[n - 1].file != LINE_NO_FILE ? &t->rows[n - 1] : NULL;
}

void line_table__free(struct line_table *t)
{
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	*t = (struct line_table){ 0 };
}
