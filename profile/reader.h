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

#include "profile/frame_cache.h"
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
	uint64_t lines;		   /* lines read, blank ones included (text formats) */
	uint64_t stacks;	   /* stacks added to the profile (lines, samples) */
	uint64_t bad;		   /* malformed lines, skipped */
	uint64_t first_bad_line;   /* 1-based number of the first malformed line, or 0 */
	const char *first_bad_why; /* why it was malformed (a static string), or NULL */
	const char *error;	   /* with -EBADMSG: why the input is not a profile (static) */
	char unit[64];		   /* what a count counts: "samples", or a pprof sample type */
	char count_unit[64];	   /* its unit: "count", or a pprof sample type's ("nanoseconds") */
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
 * "[vdso]", "lib.so+0x1f"); a user frame named as a Python frame is
 * ("qualname (file:LINE)", py_frame_name_is_python()) becomes one
 * (FRAME_PYTHON). Returns the frame id, or PROFILE_NONE when out
 * of memory.
 */
uint32_t reader__frame(struct profile *p, const char *s, size_t len, enum frame_kind kind);

/*
 * reader__cached_frame() is reader__frame() through @fc (its class: the
 * kind), so that a name seen before is not sanitized and interned again.
 * Returns the frame id, or PROFILE_NONE when out of memory.
 */
uint32_t reader__cached_frame(struct frame_cache *fc, struct profile *p, const char *s, size_t len,
			      enum frame_kind kind);

/*
 * A frame as perf script and bpftrace's perf-style stacks print it,
 * "\tADDRESS SYMBOL+0xOFF (DSO)", or as bpftrace's own stacks do,
 * "    SYMBOL+OFF": the parts point into the line.
 */
struct printed_frame {
	bool has_addr;
	uint64_t addr;
	const char *sym, *dso; /* @dso is NULL when the line names none */
	size_t sym_len, dso_len;
};

/*
 * reader__frame_line() reads @line (@len bytes): blanks, a hexadecimal
 * address when @with_addr, blanks, a symbol, and a "(DSO)" at the end when
 * there is one (a symbol may hold parentheses). Returns 0, or 1 when the
 * line is not such a frame (no blank before, no address, no symbol).
 */
int reader__frame_line(const char *line, size_t len, bool with_addr, struct printed_frame *f);

/*
 * reader__frame_name() names @f as flametop names frames live, into @buf
 * (capacity @size): the symbol without its offset ("+0x1f", or bpftrace's
 * "+31"); a kernel module's "symbol [module]"; a symbol the tool could not
 * name ("[unknown]", or an address such as "0x7f3a...") "[DSO file name]",
 * or "[unknown]" without a DSO. Returns its length.
 */
size_t reader__frame_name(char *buf, size_t size, const struct printed_frame *f, bool kernel);

#endif
