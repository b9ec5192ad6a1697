/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_annotate: the annotate view's source of lines for Python frames
 * (annotate_source.h). A Python frame is named for the line it ran at,
 * "qualname (file:LINE)", so one Python function is as many frames of the
 * profile as lines it was seen at: its annotation gathers every frame of
 * the same qualname and file (in whatever process ran it) into one row
 * per line. No address is needed: a profile read from a file has them too.
 *
 * A stack through the function counts once, at its innermost frame of it
 * (as native functions' sites count, addr_counts.h): as the line's self
 * where that frame ends the stack (what the profile counts as its self),
 * else as its calls (the C it called at that line, the Python functions
 * it called, the kernel). So the lines add up to the stacks through the
 * function.
 *
 * The lines' text comes from the function's file (source_text.h): read
 * as a process that ran it would (its credentials and root directory),
 * the one of the profile's stacks through it with the most counts still
 * running; a profile read from a file names no process that may be
 * trusted, and its sources are read only under --source-dir. A name
 * Python gives code that is in no file ("<string>", "<frozen ...>") is
 * not looked for.
 */
#ifndef FLAMETOP_PYTHON_ANNOTATE_H
#define FLAMETOP_PYTHON_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "live/annotate_source.h"
#include "profile/profile.h"

#define PY_ANNOTATE_TGIDS 4 /* processes kept to read the function's file as */

/* A line of a Python function and the counts of the stacks through it there. */
struct py_line_count {
	uint32_t line;
	uint64_t self, calls;
};

/* A Python function's lines, as a profile counts them. */
struct py_function_lines {
	char *qualname, *file;	    /* as its frames name them (sanitized) */
	struct py_line_count *lines; /* by line; only lines with counts */
	size_t nlines;
	uint64_t self, calls; /* the function's: the sums of its lines' */
	/* Processes that ran it, the most counted first; TGID_UNKNOWN past the last. */
	int32_t tgids[PY_ANNOTATE_TGIDS];
};

/*
 * py_function_lines__count() fills @out with the lines of the Python
 * function frame @frame of @prof is a line of, counted in @prof's stacks
 * (their cumulative counts, as frozen). Returns 0, -EINVAL when @frame is
 * not named as a Python frame (a placeholder such as "[python: ...]"), or
 * -ENOMEM (@out empty either way).
 */
int py_function_lines__count(const struct profile *prof, uint32_t frame,
			     struct py_function_lines *out);

/* Frees what @fl holds; @fl is then empty. */
void py_function_lines__free(struct py_function_lines *fl);

/*
 * python_annotate__job() is the annotate job of Python frame @frame of
 * @ctx->prof (annotate_source__job()'s contract): its lines counted now,
 * their text read when the job runs.
 */
struct annotate_job *python_annotate__job(const struct annotate_ctx *ctx, uint32_t frame,
					  char *why, size_t size);

/*
 * python_annotate__names() is true when @name names Python frame @frame
 * of @prof's function: its whole name "qualname (file:LINE)", its
 * "qualname (file)", or its qualname alone.
 */
bool python_annotate__names(const struct profile *prof, uint32_t frame, const char *name);

/* python_annotate__count() is the count of the stacks through @frame's function (0: none). */
uint64_t python_annotate__count(const struct profile *prof, uint32_t frame);

#endif
