/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_sort: the order the profile keeps its stacks in. Stacks compare by
 * their frame ids as strings of numbers (a stack comes before the longer
 * stacks it begins), then by tgid, so stacks that share a prefix are
 * neighbours, as in a sorted folded file.
 *
 * Stacks share long prefixes, so a comparison sort would compare the same
 * frames over and over; stack_sort() is a multikey quicksort instead
 * (Bentley and Sedgewick): it partitions the stacks on two frames at a
 * time, then the stacks that agree on them on the next two, and so reads
 * each frame of a stack about once.
 */
#ifndef FLAMETOP_STACK_SORT_H
#define FLAMETOP_STACK_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * A stack being sorted: its frames (borrowed; ids below UINT32_MAX) and
 * tgid, and the caller's id for it.
 */
struct stack_key {
	const uint32_t *frames;
	uint32_t n;
	int32_t tgid;
	uint32_t id;
};

/* stack_key__compare() returns <0, 0 or >0 as @a comes before, with or after @b. */
int stack_key__compare(const struct stack_key *a, const struct stack_key *b);

/*
 * stack_sort() sorts @keys[0, @n) in that order. Returns 0, or -ENOMEM with
 * @keys unchanged.
 */
int stack_sort(struct stack_key *keys, size_t n);

#endif
