// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/flat.h"

/* What the frames count for, besides a function's entry index. */
#define NOT_SHOWN UINT32_MAX       /* hidden by the trie's filter */
#define NOT_A_FUNCTION (UINT32_MAX - 1) /* a process frame */
/* How far ahead of the stack it counts flat_list__build() asks for a stack's frames. */
#define STACKS_AHEAD 8

/* Per-frame and per-entry bookkeeping while the stacks are read. */
struct flat_walk {
	const struct stack_trie *t;
	uint32_t *entry_of;   /* frame id -> entry index, NOT_SHOWN or NOT_A_FUNCTION */
	uint32_t *seen;       /* entry -> 1 + the last stack counted in it, or 0 */
	uint64_t *self, *total; /* entry -> its counts */
};

/* Gives every function @t shows an entry: 0 or -ENOMEM. */
static int make_entries(struct flat_walk *w, struct flat_list *fl, const struct profile *p,
			size_t nframes)
{
	w->entry_of = malloc(nframes * sizeof(*w->entry_of) + 1);
	w->seen = calloc(nframes + 1, sizeof(*w->seen));
	w->self = calloc(nframes + 1, sizeof(*w->self));
	w->total = calloc(nframes + 1, sizeof(*w->total));
	if (!w->entry_of || !w->seen || !w->self || !w->total)
		return -ENOMEM;
	for (uint32_t f = 0; f < nframes; f++) {
		if (!stack_trie__shows(w->t, f)) {
			w->entry_of[f] = NOT_SHOWN;
		} else if (profile__frame_info(p, f)->kind == FRAME_PROCESS) {
			w->entry_of[f] = NOT_A_FUNCTION;
		} else {
			w->entry_of[f] = (uint32_t)fl->n;
			fl->entries[fl->n++] = (struct flat_entry){ .frame = f };
		}
	}
	return 0;
}

/*
 * Counts stack @i: its count in the total of every function it shows, once
 * each (a recursive function counts once), and in the self of the last.
 */
static void count_stack(struct flat_walk *w, uint32_t i)
{
	const struct trie_stack *s = stack_trie__stack(w->t, i);
	uint32_t leaf = NOT_A_FUNCTION;

	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t e = w->entry_of[s->frames[k]];

		if (e == NOT_SHOWN)
			continue;
		leaf = e;
		if (e == NOT_A_FUNCTION || w->seen[e] == i + 1)
			continue;
		w->seen[e] = i + 1;
		w->total[e] = count__add(w->total[e], s->count);
	}
	if (leaf != NOT_A_FUNCTION)
		w->self[leaf] = count__add(w->self[leaf], s->count);
}

/* Keeps the entries of the functions some stack went through, with their counts. */
static void keep_counted(struct flat_walk *w, struct flat_list *fl)
{
	size_t n = 0;

	for (size_t e = 0; e < fl->n; e++) {
		if (!w->total[e])
			continue;
		fl->entries[n] = fl->entries[e];
		fl->entries[n].self = w->self[e];
		fl->entries[n++].total = w->total[e];
	}
	fl->n = n;
}

/* Larger first; 0 on a tie. */
static int larger_first(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a < b ? 1 : -1;
}

static int by_name_then_id(const struct profile *p, const struct flat_entry *x,
			   const struct flat_entry *y)
{
	int by_name = strcmp(profile__frame_name(p, x->frame), profile__frame_name(p, y->frame));

	return by_name ? by_name : x->frame < y->frame ? -1 : 1;
}

static int by_self_then_total(const void *a, const void *b, void *arg)
{
	const struct flat_entry *x = a, *y = b;

	return larger_first(x->self, y->self) ?: larger_first(x->total, y->total) ?:
	       by_name_then_id(arg, x, y);
}

static int by_total_then_self(const void *a, const void *b, void *arg)
{
	const struct flat_entry *x = a, *y = b;

	return larger_first(x->total, y->total) ?: larger_first(x->self, y->self) ?:
	       by_name_then_id(arg, x, y);
}

int flat_list__build(struct flat_list *fl, const struct stack_trie *t, const struct profile *p,
		     enum flat_order order)
{
	struct flat_walk w = { .t = t };
	size_t nframes = profile__nframes(p), nstacks = stack_trie__nstacks(t);
	int err = -ENOMEM;

	fl->n = 0;
	if (nframes > fl->cap) {
		struct flat_entry *e = realloc(fl->entries, nframes * sizeof(*e));

		if (!e)
			return -ENOMEM;
		fl->entries = e;
		fl->cap = nframes;
	}
	if (!make_entries(&w, fl, p, nframes)) {
		for (size_t i = 0; i < nstacks; i++) {
			/* The stacks lie all over memory: their frames are asked for early. */
			if (i + STACKS_AHEAD < nstacks)
				__builtin_prefetch(stack_trie__stack(t, i + STACKS_AHEAD)->frames);
			count_stack(&w, (uint32_t)i);
		}
		keep_counted(&w, fl);
		if (fl->n > 1) /* an empty list has no array: qsort_r() takes none */
			qsort_r(fl->entries, fl->n, sizeof(*fl->entries),
				order == FLAT_BY_TOTAL ? by_total_then_self : by_self_then_total,
				(void *)p);
		err = 0;
	}
	if (err)
		fl->n = 0;
	free(w.entry_of);
	free(w.seen);
	free(w.self);
	free(w.total);
	return err;
}

long flat_list__find(const struct flat_list *fl, uint32_t frame)
{
	for (size_t i = 0; i < fl->n; i++) {
		if (fl->entries[i].frame == frame)
			return (long)i;
	}
	return -1;
}

void flat_list__free(struct flat_list *fl)
{
	free(fl->entries);
	memset(fl, 0, sizeof(*fl));
}
