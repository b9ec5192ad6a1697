/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate_worker: runs annotate jobs (annotate_source.h) in a thread of
 * its own, one at a time, so that reading a line table, a debug file or
 * source text never holds up the screen. A job submitted while another
 * waits takes its place (the screen wants the newest); a result waits to
 * be taken, and a descriptor polls readable meanwhile. The worker owns the
 * cache of code and debug information its jobs read through.
 */
#ifndef FLAMETOP_ANNOTATE_WORKER_H
#define FLAMETOP_ANNOTATE_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "live/annotate_source.h"
#include "symbols/annotation.h"

struct annotate_worker;

/* annotate_worker__new() returns an idle worker (its thread starts with the first job), or NULL. */
struct annotate_worker *annotate_worker__new(void);

/*
 * annotate_worker__submit() hands @job (taken: the worker frees it) to
 * the worker under @ticket, the caller's number for it; a job waiting and
 * not started yet is dropped. Returns 0, or -errno (the job is freed) when
 * no thread could be started.
 */
int annotate_worker__submit(struct annotate_worker *w, struct annotate_job *job, uint64_t ticket);

/* The descriptor that polls readable while a result waits to be taken. */
int annotate_worker__fd(const struct annotate_worker *w);

/*
 * annotate_worker__take() moves the result waiting (the last job run) into
 * @out and its ticket into *@ticket, and returns true (*@err: 0, or the
 * job's -errno with @out empty); false when none waits.
 */
bool annotate_worker__take(struct annotate_worker *w, uint64_t *ticket, struct annotation *out,
			   int *err);

/*
 * annotate_worker__free() ends the thread (after the job it runs) and frees
 * all; NULL is a no-op.
 */
void annotate_worker__free(struct annotate_worker *w);

#endif
