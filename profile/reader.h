/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader: what the readers of profile files share (folded.c, perf_script.c,
 * pprof.c, bpftrace.c): what a read made of its input, the lines of a text
 * format, and frames interned from outside names. Names are sanitized here,
 * where they enter; malformed lines of a text format are counted and
 * skipped, never fatal. input.c tells the formats apart and calls the
 * reader of each.
 */
#ifndef FLAMETOP_READER_H
#define FLAMETOP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/line_reader.h"
#include "profile/profile.h"

enum input_format {
	INPUT_FOLDED,
	INPUT_PERF_SCRIPT,
	INPUT_PPROF,
	INPUT_BPFTRACE,
};

/* What a read made of its input. */
struct input_stats {
	enum input_format format;
	uint64_t lines;            /* lines read, blank ones included (text formats) */
	uint64_t stacks;           /* stacks added to the profile (lines, samples) */
	uint64_t bad;              /* malformed lines, skipped */
	uint64_t first_bad_line;   /* 1-based number of the first malformed line, or 0 */
	const char *first_bad_why; /* why it was malformed (a static string), or NULL */
	const char *error;         /* with -EBADMSG: why the input is not a profile (static) */
	char unit[64];             /* what a count counts: "samples", or a pprof sample type */
	char count_unit[64];       /* its unit: "count", or a pprof sample type's ("nanoseconds") */
};

/* A malformed line (the reader's current one, @st->lines): counted, the first one remembered. */
void reader__bad_line(struct input_stats *st, const char *why);

/*
 * reader__each_line() hands @line_fn every line of @r that may hold data:
 * without its '\r' and its newline, NUL-terminated, @len bytes (blank ones
 * too). Lines over 1 MiB and lines with control bytes are counted in @st as
 * malformed instead. Returns 0, the first nonzero @line_fn returned, or -EIO.
 */
int reader__each_line(struct line_reader *r, struct input_stats *st,
		      int (*line_fn)(void *ctx, char *line, size_t len), void *ctx);

/* Any C0 control byte but a tab, or DEL: binary garbage, not text. */
bool reader__has_control_bytes(const char *s, size_t len);

/*
 * reader__frame() sanitizes the @len bytes of a name at @s and interns them
 * as a frame of @kind: named unless it is a placeholder ("[unknown]",
 * "[vdso]", "lib.so+0x1f"). Returns the frame id, or PROFILE_NONE when out
 * of memory.
 */
uint32_t reader__frame(struct profile *p, const char *s, size_t len, enum frame_kind kind);

#endif
