/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cold_stacks: the samples whose user stack the BPF walk could not finish
 * and copied instead (bpf/cold_stack.bpf.h), walked in user space with the
 * same tables (unwind/stack_walk.h) once they are in: at once when they
 * are, else kept and tried again at each drain until they are, or until
 * COLD_MAX_AGE seconds have passed (then passed on as far as they walk:
 * cut where the table was missing, as the BPF walk would have cut them).
 * A process with samples kept is kept described by the unwinder, though
 * it exited.
 */
#ifndef FLAMETOP_COLD_STACKS_H
#define FLAMETOP_COLD_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/capture.h"
#include "live/unwinder.h"

#define COLD_MAX_AGE 5.0      /* seconds a sample waits for its tables at most */
#define COLD_MAX_BYTES (64u << 20) /* copies kept at most; older ones go first beyond it */

/* How the walks of copies ended: enum unwind_end, then the copy's own ends. */
enum {
	COLD_COPY_SHORT = UNWIND_END_NR, /* the stack went on above the copy */
	COLD_WALK_NR,
};

struct cold_stats {
	uint64_t walks[COLD_WALK_NR]; /* walks of copies, by how they ended (one per event) */
	uint64_t waited;              /* samples kept for their tables at least once */
	uint64_t gave_up;             /* ... passed on cut after waiting COLD_MAX_AGE (or at the end) */
	size_t kept, bytes;           /* kept now, and their memory */
};

struct cold_stacks;

/* cold_stacks__new() returns an empty set, or NULL when out of memory. */
struct cold_stacks *cold_stacks__new(void);

/*
 * cold_stacks__take() walks the copied user stack of @st (st->ucopy) with
 * @u's tables and passes @st to @fn with @ctx, its user side as walked;
 * when a table it needs is not in yet, it keeps a copy of @st instead (the
 * kernel side too) for cold_stacks__retry(). @now is the time, in seconds.
 */
void cold_stacks__take(struct cold_stacks *c, struct unwinder *u, const struct capture_stack *st,
		       double now, capture_stack_fn fn, void *ctx);

/*
 * cold_stacks__retry() walks the kept samples again, passing those whose
 * tables are in to @fn; those kept COLD_MAX_AGE seconds, those of a
 * process that ended before it was described, or all of them with @final,
 * are passed as far as they walk. It then tells @u which
 * processes it still keeps samples of (unwinder__keep_process()). Once a
 * drain, before unwinder__pass().
 */
void cold_stacks__retry(struct cold_stacks *c, struct unwinder *u, double now, bool final,
			capture_stack_fn fn, void *ctx);

void cold_stacks__stats(const struct cold_stacks *c, struct cold_stats *st);

/* cold_stacks__free(NULL) is a no-op. */
void cold_stacks__free(struct cold_stacks *c);

#endif
