/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input: a profile read from a file, in whichever format it is: folded
 * stacks, the text of `perf script`, or a pprof profile (gzip-compressed or
 * not), told apart by their content. Every reader feeds profile__add(), as
 * the live capture does, and shares the helpers below: names are sanitized
 * here, where they enter; malformed lines of a text format are counted and
 * skipped, never fatal.
 */
#ifndef FLAMETOP_INPUT_H
#define FLAMETOP_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

enum input_format {
	INPUT_FOLDED,
	INPUT_PERF_SCRIPT,
	INPUT_PPROF,
};

/* What input__read() made of its input. */
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

/* The format's name, for messages: "folded", "perf script", "pprof". */
const char *input__format_name(enum input_format f);

/*
 * input__read() reads every stack of @in into @p, whatever the format,
 * leaving them in the order they came (a view groups them as it makes its
 * nodes, and then reads the stacks in the order they lie in memory).
 * Returns 0; -EBADMSG for a binary input that is not a profile, with @st->error
 * saying why; -EFBIG for a pprof profile over 1 GiB; or -errno on a read
 * error or when memory runs out. What was read stays in @p.
 */
int input__read(FILE *in, struct profile *p, struct input_stats *st);

/* For the readers. */

/* A malformed line (the reader's current one, @st->lines): counted, the first one remembered. */
void input__bad_line(struct input_stats *st, const char *why);

/*
 * input__each_line() hands @line_fn every line of @r that may hold data:
 * without its '\r' and its newline, NUL-terminated, @len bytes (blank ones
 * too). Lines over 1 MiB and lines with control bytes are counted in @st as
 * malformed instead. Returns 0, the first nonzero @line_fn returned, or -EIO.
 */
struct line_reader;
int input__each_line(struct line_reader *r, struct input_stats *st,
		     int (*line_fn)(void *ctx, char *line, size_t len), void *ctx);

/* Any C0 control byte but a tab, or DEL: binary garbage, not text. */
bool input__has_control_bytes(const char *s, size_t len);

/*
 * input__frame() sanitizes the @len bytes of a name at @s and interns them
 * as a frame of @kind: named unless it is a placeholder ("[unknown]",
 * "[vdso]", "lib.so+0x1f"). A user frame named as flametop and py-spy name
 * Python frames, "qualname (file:LINE)" (python/frame_names.h), is a
 * Python frame. Returns the frame id, or PROFILE_NONE when out of memory.
 */
uint32_t input__frame(struct profile *p, const char *s, size_t len, enum frame_kind kind);

#endif
