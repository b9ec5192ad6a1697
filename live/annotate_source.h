/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate_source: where the annotation of a frame (annotation.h) comes
 * from, chosen by the frame's kind. A source makes a job from the profile
 * on the caller's thread (a copy of what it needs: the profile goes on
 * changing), and the job makes the annotation wherever it is run: the
 * screen runs it in a worker thread (annotate_worker.h), --annotate in
 * the main thread after the run.
 *
 * Native frames (user and kernel functions) have the native source: the
 * sites the profile kept inside the function (addr_counts.h), read
 * against its code, line table and instructions (symbols/annotate.h).
 * Python frames, which name their own file and line, have theirs
 * (python_annotate.h): the profile's frames of the function, one per
 * line. Each is a row in annotate_sources[] of annotate_source.c, its jobs
 * filling the same annotation. A kind with no source (a process frame)
 * says so.
 */
#ifndef FLAMETOP_ANNOTATE_SOURCE_H
#define FLAMETOP_ANNOTATE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbols/annotate.h"
#include "symbols/annotation.h"

/* What a source reads a frame's lines with. */
struct annotate_ctx {
	const struct profile *prof;
	const char *proc_root;		/* "/proc" */
	const char *debug_root;		/* "/usr/lib/debug" */
	const char *const *source_dirs; /* --source-dir */
	size_t nsource_dirs;
};

/* A frame's annotation to make: plain data, owned by whoever runs it. */
struct annotate_job {
	/*
	 * Makes the annotation into @out, reading code and debug information
	 * through @cache (used by one thread at a time). Returns 0 or -ENOMEM.
	 */
	int (*run)(struct annotate_job *job, struct annotate_cache *cache, struct annotation *out);
	void (*free)(struct annotate_job *job);
};

/*
 * annotate_source__job() makes the job annotating @frame of @ctx->prof,
 * by its kind's source. Returns NULL with one line in @why (capacity
 * @size) when there is nothing to annotate: a kind without a source, a
 * profile without addresses (read from a file), a frame none was kept for.
 */
struct annotate_job *annotate_source__job(const struct annotate_ctx *ctx, uint32_t frame,
					  char *why, size_t size);

/*
 * annotate_source__find() returns the frame of @prof named @name that has a
 * source of lines, or PROFILE_NONE: a native frame by its name exactly (as
 * shown), a Python frame by its qualname, its "qualname (file)" or its whole
 * name (python_annotate__names()). When several are, the one whose
 * function has the most counts (the same name in two objects, or in two
 * Python files).
 */
uint32_t annotate_source__find(const struct profile *prof, const char *name);

/* annotate_job__free(NULL) is a no-op. */
void annotate_job__free(struct annotate_job *job);

#endif
