/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotation: what the annotate view (and --annotate) shows of one
 * function: its source lines with the samples at each (self) and the time
 * through the calls made there (calls), its instructions with theirs, and
 * what could not be shown, in one line each. Plain data, made by a line
 * source: native code's from addresses (annotate.h); any source that knows
 * a frame's lines may fill one. Every string in it is sanitized.
 *
 * Both front ends show it as rows (annotation__rows()): the lines view,
 * one row per line with counts, and the instructions view, each
 * instruction after the source line it comes from, as perf annotate
 * interleaves them.
 */
#ifndef FLAMETOP_ANNOTATION_H
#define FLAMETOP_ANNOTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/disasm.h"

#define ANN_NONE UINT32_MAX
#define ANN_NOTE_MAX 256
#define ANN_BUILD_ID_MAX 129

/* A source line the function's code comes from. */
struct ann_line {
	uint32_t file;	      /* annotation.files[file] */
	uint32_t line;	      /* from 1 */
	uint64_t self, calls; /* at its addresses */
	char *text;	      /* its text, or NULL where not shown */
};

/* An instruction of the function. */
struct ann_insn {
	uint64_t addr;
	uint64_t self, calls;
	uint32_t src;		    /* its ann_line, or ANN_NONE */
	char text[DISASM_TEXT_MAX]; /* "" where the code could not be read: the address alone */
};

struct annotation {
	char *function; /* its name */
	char *object;	/* the file it is in, "[kernel]", "[jit] (pid 12)" */
	char build_id[ANN_BUILD_ID_MAX]; /* lower-case hex, or "" */
	uint64_t start, end; /* where its code lies (the addresses its instructions show) */
	uint64_t self, calls; /* every count of the function (its sites') */
	uint64_t no_line;     /* of those, at addresses no line was found for */
	uint64_t folded;      /* at sites folded away (--max-stacks): no address */
	uint64_t outside;     /* at addresses outside [start, end) */
	char **files;	      /* the lines' files, as the line table names them */
	size_t nfiles;
	struct ann_line *lines; /* by file, then line */
	size_t nlines;
	struct ann_insn *insns; /* by address */
	size_t ninsns;
	bool has_lines;			/* line information was found */
	bool lines_only;		/* code without instructions (Python's): lines alone */
	char lines_note[ANN_NOTE_MAX];	/* why lines (or their text) are missing; "" */
	char insns_note[ANN_NOTE_MAX];	/* why instructions are missing; "" */
};

/* The two ways of showing an annotation. */
enum ann_mode {
	ANN_LINES,
	ANN_INSNS,
};

/* A row of a view of an annotation. */
struct ann_row {
	uint8_t kind;	/* enum ann_row_kind */
	uint32_t index; /* into lines (ROW_LINE, ROW_SOURCE) or insns (ROW_INSN) */
};

enum ann_row_kind {
	ROW_LINE,   /* a line and its counts (the lines view) */
	ROW_SOURCE, /* a line's text above its instructions (the instructions view) */
	ROW_INSN,   /* an instruction and its counts */
};

/*
 * annotation__rows() writes the rows of @a in @mode into a new array *@rows
 * (NULL when none) and returns their number, or -ENOMEM: the lines with
 * counts, or every instruction after the source line it comes from when
 * that differs from the one before's.
 */
long annotation__rows(const struct annotation *a, enum ann_mode mode, struct ann_row **rows);

/* The counts of row @r (0 for a source row). */
uint64_t annotation__row_count(const struct annotation *a, const struct ann_row *r);

/* The base name of @a's file @file, as a row names it ("msort.c"). */
const char *annotation__file_name(const struct annotation *a, uint32_t file);

/* Frees what @a holds; @a is then empty. */
void annotation__free(struct annotation *a);

#endif
