/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_table: the stacks the BPF side sent (bpf/stack_store.bpf.h), by
 * hash, in the loader's memory: kernel, user and Python stacks, and the
 * copies of user stacks the walk could not finish (bpf/cold_stack.bpf.h),
 * which the counts' keys refer to.
 */
#ifndef FLAMETOP_STACK_TABLE_H
#define FLAMETOP_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/capture.h"
#include "profile/hash_index.h" /* a generic index: no profile type comes with it */

/* One stack received. */
struct stack_entry {
	uint64_t hash;
	size_t off;     /* into stack_table.arena */
	uint32_t nr;
	uint16_t epoch; /* the table's epoch when it was last sent (mod 2^16) */
	uint16_t end;   /* enum unwind_end (a Python stack's: enum py_end), or a copy's mark */
	bool drained;   /* a copy's: passed on by a drain before */
};

/*
 * The stacks counts may refer to, by hash: every stack the BPF side sent.
 * When the seen map in use is 3/4 full, a drain switches to the other one
 * (empty) and starts a new epoch: the BPF side sends the stacks it meets
 * again, and the next drain, once the counts of the interval that
 * straddled the change are read, forgets the stacks not sent since.
 */
struct stack_table {
	struct stack_entry *entries;
	size_t n, cap;
	size_t current; /* entries sent in this epoch: as many hashes as the seen map holds */
	struct hash_index index;
	uint64_t *arena;
	size_t arena_len, arena_cap;
	size_t copied; /* words of copied stacks added in this epoch */
	uint16_t epoch;
	bool sweep; /* forget the stacks of past epochs at the end of the next drain */
};

/*
 * Words of copied stacks (16 KiB each at most) an epoch may add before it
 * ends: a copy is walked at the drain that reads it, and kept after only
 * while counts still refer to it (an open wait), so that the table does not
 * hold a copy of every cold sample until the seen map fills.
 */
#define TABLE_COPIED_MAX (512 * 1024)

/* stack_table__init() makes @t empty; 0 or -ENOMEM. stack_table__free() releases it. */
int stack_table__init(struct stack_table *t);
void stack_table__free(struct stack_table *t);

/*
 * stack_table__add() adds a stack just sent (@nr addresses at @ips), or
 * marks it sent again in this epoch. Returns 0 or -ENOMEM; a stack left out
 * is reported missing by the counts that refer to it.
 */
int stack_table__add(struct stack_table *t, uint64_t hash, const uint64_t *ips, uint32_t nr,
		     uint16_t end);

/* stack_table__add_copy() adds the copied user stack @c (@size bytes as sent). */
void stack_table__add_copy(struct stack_table *t, const struct sent_cold *c, size_t size);

/* stack_table__new_epoch() starts a new epoch: the caller empties the seen map. */
void stack_table__new_epoch(struct stack_table *t);

/* stack_table__keep() marks the stack of @hash, when known, as sent in this epoch: the sweep keeps it. */
void stack_table__keep(struct stack_table *t, uint64_t hash);

/*
 * stack_table__sweep() forgets the stacks not sent in this epoch, keeping
 * the others in order; past TABLE_KEEP frames, arena memory the kept ones
 * do not need goes back.
 */
void stack_table__sweep(struct stack_table *t);

/*
 * stack_table__stack() fills @st with the stacks key @k refers to, counted
 * @v: each side's frames and how its walk ended, or why it has none; a
 * copied user stack as st->ucopy (st->ucopy_new the first time it is
 * passed on). Its frames point into @t until the next sweep.
 */
void stack_table__stack(struct stack_table *t, const struct stack_key *k,
			const struct stack_value *v, struct capture_stack *st);

#endif
