/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output: the formats a profile is written in, chosen by a file name's
 * extension: folded stacks (folded.h), an SVG flame graph (svg.h) or a
 * gzip-compressed pprof profile (pprof.h). The command line's --folded,
 * --svg and --pprof and the screen's "s" key all write through here, so
 * every format shows the same view: the window, filters and hidden frames
 * the caller chose.
 */
#ifndef FLAMETOP_OUTPUT_H
#define FLAMETOP_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

enum output_format {
	OUTPUT_FOLDED,
	OUTPUT_SVG,
	OUTPUT_PPROF,
};

/* Where the profile came from, for the formats that say so. */
struct output_info {
	const char *title;    /* SVG: the first line */
	const char *subtitle; /* SVG: the second (filters, hidden frames), or NULL */
	const char *type;     /* what a count counts: "samples", "reads", "bytes", "cpu" */
	const char *unit;     /* its unit: "count", "bytes", "nanoseconds" */
	uint64_t period_ns;   /* pprof: CPU time a count stands for (sample mode), or 0 */
	int64_t time_ns;      /* pprof: when the profile began (Unix time), or 0 */
	int64_t duration_ns;  /* pprof: how long it ran, or 0 */
};

/*
 * output__format_of() tells the format by @path's extension: ".svg" is
 * SVG; ".pb.gz", ".pb", ".pprof" and ".prof" are pprof; anything else is
 * folded.
 */
enum output_format output__format_of(const char *path);

/* "folded", "SVG" or "pprof". */
const char *output__format_name(enum output_format f);

/*
 * output__write() writes @t, the view of @p built through @f, to @out in
 * @format (pprof reads @p through @f itself, to keep each stack's pid);
 * folded stacks and SVG walk @t (see stack_trie__walk()).
 * Returns the number of lines, frames or samples written, or -errno.
 */
long output__write(FILE *out, enum output_format format, struct stack_trie *t,
		   const struct profile *p, const struct view_filter *f,
		   const struct output_info *info);

#endif
