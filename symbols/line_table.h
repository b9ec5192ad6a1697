/* SPDX-License-Identifier: GPL-2.0 */
/*
 * line_table: which source line each address of one function comes from,
 * from DWARF's line table (.debug_line) read with libdw: the rows of the
 * compilation unit that holds the function (found by .debug_aranges, else
 * by a walk of the units), those within the function, with their files'
 * paths made whole with the unit's directory and normalized lexically
 * ("./a/../b.c" is "b.c"). The table is untrusted: rows outside the
 * function are left out, and at most LINE_TABLE_MAX_ROWS rows and
 * LINE_TABLE_MAX_FILES files are kept; line numbers are kept as the table
 * says them, for the reader of the source to check.
 */
#ifndef FLAMETOP_LINE_TABLE_H
#define FLAMETOP_LINE_TABLE_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_TABLE_MAX_ROWS (1u << 20)
#define LINE_TABLE_MAX_FILES 4096
#define LINE_NO_FILE UINT32_MAX

/* From @addr up to the next row's address, the code comes from @file's line @line. */
struct line_row {
	uint64_t addr;
	uint32_t file; /* index into line_table.files; LINE_NO_FILE past a sequence's end */
	uint32_t line; /* from 1; 0 where the table names none */
};

struct line_table {
	struct line_row *rows; /* by address, one per address (the last the table gives) */
	size_t n;
	char **files; /* raw paths, as the table names them (not sanitized) */
	size_t nfiles;
};

/*
 * line_table__read() reads into @out the rows of @dw covering the
 * addresses [@lo, @hi) (a row at or below @lo included). Returns 0,
 * -ENOENT when no unit holds @lo or its unit has no line table, -E2BIG
 * past the limits above, or -ENOMEM (@out is then empty).
 */
int line_table__read(Dwarf *dw, uint64_t lo, uint64_t hi, struct line_table *out);

/* The row covering @addr, or NULL (before the first row, or past a sequence's end). */
const struct line_row *line_table__find(const struct line_table *t, uint64_t addr);

/*
 * path__normalize() rewrites @path in place without "." and empty
 * components, each ".." taking the name before it away: "/a/./b/../c" is
 * "/a/c". A ".." above "/" goes ("/../etc" is "/etc", as the kernel reads
 * it); a relative path's leading ".." stay.
 */
void path__normalize(char *path);

/* Frees what @t holds; @t is then empty. */
void line_table__free(struct line_table *t);

#endif
