/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flat: the hot-function list (perf top's main view) of a view trie. A
 * function is a frame id; its self count is what the stacks ending in it
 * counted, its total what every stack through it counted, once per stack
 * even when it recurses. Process frames are not functions and are left out.
 */
#ifndef FLAMETOP_FLAT_H
#define FLAMETOP_FLAT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

struct flat_entry {
	uint32_t frame;
	uint64_t self;
	uint64_t total;
};

/* How the list is sorted: by self, then total (perf top's order), or by total, then self. */
enum flat_order {
	FLAT_BY_SELF,
	FLAT_BY_TOTAL,
};

struct flat_list {
	struct flat_entry *entries; /* sorted as asked, largest first, then by name, then by
				     * frame id */
	size_t n, cap;
};

/*
 * flat_list__build() replaces @fl's entries with the functions of @t (a trie
 * of stack_trie__build(), not of callers), whose frames belong to @p,
 * counted from the stacks @t keeps, sorted in @order. Returns 0 or -ENOMEM
 * (@fl is then
 * empty).
 */
int flat_list__build(struct flat_list *fl, const struct stack_trie *t, const struct profile *p,
		     enum flat_order order);

/* The index of @frame's entry, or -1. */
long flat_list__find(const struct flat_list *fl, uint32_t frame);

/* Frees the entries; @fl is then an empty list. */
void flat_list__free(struct flat_list *fl);

#endif
