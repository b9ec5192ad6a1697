// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/flat.h"

#define NO_ENTRY UINT32_MAX
#define NOT_A_FUNCTION (UINT32_MAX - 1) /* a process frame */

/* Per-frame bookkeeping while the trie is walked. */
struct flat_walk {
	const struct stack_trie *t;
	const struct profile *p;
	struct flat_list *fl;
	uint32_t *entry_of; /* frame id -> entry index, NO_ENTRY or NOT_A_FUNCTION */
	uint32_t *on_path;  /* frame id -> how often it is on the path from the root */
	uint32_t *path;     /* the nodes on that path, depth 1 first */
};

/* The entry of @frame, made on first sight; NOT_A_FUNCTION for a process frame. */
static uint32_t entry_of(struct flat_walk *w, uint32_t frame)
{
	if (w->entry_of[frame] == NO_ENTRY) {
		if (profile__frame_info(w->p, frame)->kind == FRAME_PROCESS) {
			w->entry_of[frame] = NOT_A_FUNCTION;
		} else {
			w->entry_of[frame] = w->fl->n;
			w->fl->entries[w->fl->n++] = (struct flat_entry){ .frame = frame };
		}
	}
	return w->entry_of[frame];
}

static void enter(struct flat_walk *w, uint32_t node)
{
	const struct trie_node *n = &w->t->nodes[node];
	uint32_t i = entry_of(w, n->frame);
	struct flat_entry *e;

	if (i == NOT_A_FUNCTION)
		return;
	e = &w->fl->entries[i];
	e->self += stack_trie__self(w->t, node);
	if (w->on_path[n->frame]++ == 0)
		e->total += n->total; /* the outermost call: each stack counts once */
}

static void leave(struct flat_walk *w, uint32_t node)
{
	uint32_t frame = w->t->nodes[node].frame;

	if (w->entry_of[frame] != NOT_A_FUNCTION)
		w->on_path[frame]--;
}

/*
 * Every node below the root, entering and leaving each: in index order,
 * which is depth-first (see stack_trie.h), so memory is read in order.
 */
static void walk(struct flat_walk *w)
{
	const struct trie_node *nodes = w->t->nodes;
	uint32_t len = 0; /* nodes on the path */

	for (uint32_t node = 1; node < w->t->n; node++) {
		while (len && w->path[len - 1] != nodes[node].parent)
			leave(w, w->path[--len]);
		enter(w, node);
		w->path[len++] = node;
	}
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
	struct flat_walk w = { t, p, fl, NULL, NULL, NULL };
	size_t nframes = profile__nframes(p);
	int err = -ENOMEM;

	fl->n = 0;
	if (nframes > fl->cap) {
		struct flat_entry *e = realloc(fl->entries, nframes * sizeof(*e));

		if (!e)
			return -ENOMEM;
		fl->entries = e;
		fl->cap = nframes;
	}
	w.entry_of = malloc(nframes * sizeof(*w.entry_of) + 1);
	w.on_path = calloc(nframes + 1, sizeof(*w.on_path));
	w.path = malloc((t->max_depth + 1) * sizeof(*w.path));
	if (w.entry_of && w.on_path && w.path) {
		memset(w.entry_of, 0xff, nframes * sizeof(*w.entry_of));
		walk(&w);
		qsort_r(fl->entries, fl->n, sizeof(*fl->entries),
			order == FLAT_BY_TOTAL ? by_total_then_self : by_self_then_total,
			(void *)p);
		err = 0;
	}
	free(w.entry_of);
	free(w.on_path);
	free(w.path);
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
