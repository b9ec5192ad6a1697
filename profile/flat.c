// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/flat.h"

#define NO_ENTRY UINT32_MAX

/* Per-frame bookkeeping while the trie is walked. */
struct flat_walk {
	const struct stack_trie *t;
	const struct profile *p;
	struct flat_list *fl;
	uint32_t *entry_of; /* frame id -> entry index, or NO_ENTRY */
	uint32_t *on_path;  /* frame id -> how often it is on the path from the root */
};

static void enter(struct flat_walk *w, uint32_t node)
{
	const struct trie_node *n = &w->t->nodes[node];
	struct flat_entry *e;

	if (profile__frame_info(w->p, n->frame)->kind == FRAME_PROCESS)
		return;
	if (w->entry_of[n->frame] == NO_ENTRY) {
		w->entry_of[n->frame] = w->fl->n;
		w->fl->entries[w->fl->n++] = (struct flat_entry){ .frame = n->frame };
	}
	e = &w->fl->entries[w->entry_of[n->frame]];
	e->self += n->self;
	if (w->on_path[n->frame]++ == 0)
		e->total += n->total; /* the outermost call: each stack counts once */
}

static void leave(struct flat_walk *w, uint32_t node)
{
	const struct trie_node *n = &w->t->nodes[node];

	if (profile__frame_info(w->p, n->frame)->kind != FRAME_PROCESS)
		w->on_path[n->frame]--;
}

/* Depth first over every node below the root, entering and leaving each. */
static void walk(struct flat_walk *w)
{
	const struct trie_node *nodes = w->t->nodes;
	uint32_t node = w->t->n ? nodes[TRIE_ROOT].first_child : TRIE_NONE;

	while (node != TRIE_NONE) {
		enter(w, node);
		if (nodes[node].first_child != TRIE_NONE) {
			node = nodes[node].first_child;
			continue;
		}
		for (;;) {
			leave(w, node);
			if (nodes[node].next_sibling != TRIE_NONE) {
				node = nodes[node].next_sibling;
				break;
			}
			node = nodes[node].parent;
			if (node == TRIE_ROOT) {
				node = TRIE_NONE;
				break;
			}
		}
	}
}

static int by_self_then_total(const void *a, const void *b, void *arg)
{
	const struct flat_entry *x = a, *y = b;
	const struct profile *p = arg;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(profile__frame_name(p, x->frame), profile__frame_name(p, y->frame));
}

int flat_list__build(struct flat_list *fl, const struct stack_trie *t, const struct profile *p)
{
	struct flat_walk w = { t, p, fl, NULL, NULL };
	uint32_t nframes = 0;
	int err = -ENOMEM;

	fl->n = 0;
	for (size_t i = 1; i < t->n; i++) {
		if (t->nodes[i].frame >= nframes)
			nframes = t->nodes[i].frame + 1;
	}
	if (nframes > fl->cap) {
		struct flat_entry *e = realloc(fl->entries, nframes * sizeof(*e));

		if (!e)
			return -ENOMEM;
		fl->entries = e;
		fl->cap = nframes;
	}
	w.entry_of = malloc(nframes * sizeof(*w.entry_of) + 1);
	w.on_path = calloc(nframes + 1, sizeof(*w.on_path));
	if (w.entry_of && w.on_path) {
		memset(w.entry_of, 0xff, nframes * sizeof(*w.entry_of));
		walk(&w);
		qsort_r(fl->entries, fl->n, sizeof(*fl->entries), by_self_then_total, (void *)p);
		err = 0;
	}
	free(w.entry_of);
	free(w.on_path);
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
