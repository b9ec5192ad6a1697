// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/stack_trie.h"

int stack_trie__init(struct stack_trie *t)
{
	memset(t, 0, sizeof(*t));
	return hash_index__init(&t->children, 1024);
}

void stack_trie__free(struct stack_trie *t)
{
	free(t->nodes);
	free(t->last_path);
	hash_index__free(&t->children);
	memset(t, 0, sizeof(*t));
}

static uint64_t edge_hash(uint32_t parent, uint32_t frame)
{
	uint32_t w[2] = { parent, frame };

	return hash_words(w, 2, 0x7F4A7C15);
}

struct edge_probe {
	const struct stack_trie *t;
	uint32_t parent, frame;
};

static bool same_edge(const void *ctx, uint32_t i)
{
	const struct edge_probe *e = ctx;

	return e->t->nodes[i].parent == e->parent && e->t->nodes[i].frame == e->frame;
}

static uint64_t rehash_edge(const void *ctx, uint32_t i)
{
	const struct stack_trie *t = ctx;

	return edge_hash(t->nodes[i].parent, t->nodes[i].frame);
}

uint32_t stack_trie__child(const struct stack_trie *t, uint32_t parent, uint32_t frame)
{
	struct edge_probe probe = { t, parent, frame };
	struct hash_slot *slot =
		hash_index__find(&t->children, edge_hash(parent, frame), same_edge, &probe);

	return slot->entry1 ? slot->entry1 - 1 : TRIE_NONE;
}

static uint32_t add_node(struct stack_trie *t, uint32_t parent, uint32_t frame)
{
	struct trie_node *n;

	if (array__grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 4096))
		return TRIE_NONE;
	n = &t->nodes[t->n];
	*n = (struct trie_node){ .frame = frame, .parent = parent, .first_child = TRIE_NONE,
				 .next_sibling = TRIE_NONE };
	if (parent != TRIE_NONE) {
		n->depth = t->nodes[parent].depth + 1;
		n->next_sibling = t->nodes[parent].first_child;
		t->nodes[parent].first_child = t->n;
		if (n->depth > t->max_depth)
			t->max_depth = n->depth;
		if (hash_index__insert(&t->children, edge_hash(parent, frame), t->n, rehash_edge,
				       t))
			return TRIE_NONE;
	}
	return t->n++;
}

static uint32_t child_or_new(struct stack_trie *t, uint32_t parent, uint32_t frame)
{
	uint32_t c = stack_trie__child(t, parent, frame);

	return c != TRIE_NONE ? c : add_node(t, parent, frame);
}

static bool has_frame_with(const struct profile *p, const struct profile_stack *s,
			   const char *text)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (strstr(profile__frame_name(p, s->frames[i]), text))
			return true;
	}
	return false;
}

/* @name is @comm, or @comm with a "-PID" or "-PID/TID" suffix (perf's folded files). */
static bool comm_matches(const char *name, const char *comm)
{
	size_t n = strlen(comm);

	if (strncmp(name, comm, n) != 0)
		return false;
	name += n;
	if (!*name)
		return true;
	if (*name++ != '-' || !isdigit((unsigned char)*name))
		return false;
	name += strspn(name, "0123456789");
	if (*name == '/' && isdigit((unsigned char)name[1]))
		name += 1 + strspn(name + 1, "0123456789");
	return !*name;
}

bool view_filter__keeps(const struct view_filter *f, const struct profile *p,
			const struct profile_stack *s)
{
	if (f->ntgids) {
		size_t i = 0;

		while (i < f->ntgids && f->tgids[i] != s->tgid)
			i++;
		if (i == f->ntgids)
			return false;
	}
	if (f->comm && !comm_matches(profile__frame_name(p, s->frames[0]), f->comm))
		return false;
	return !f->text || has_frame_with(p, s, f->text);
}

static bool frame_hidden(const struct view_filter *f, const struct frame *fr)
{
	return (f->hide_kernel && fr->kind == FRAME_KERNEL) ||
	       (f->hide_user && fr->kind == FRAME_USER);
}

/*
 * Adds one stack. Stacks often share a prefix with the one before (a folded
 * file is sorted), so the nodes of that prefix are taken from the previous
 * path instead of being looked up again.
 */
static int add_stack(struct stack_trie *t, const struct profile *p, const struct view_filter *f,
		     const struct profile_stack *s, uint64_t count)
{
	uint32_t node = TRIE_ROOT;
	size_t depth = 0;
	bool same = true;

	if (array__grow((void **)&t->last_path, &t->last_cap, s->n, sizeof(*t->last_path), 256))
		return -ENOMEM;
	t->nodes[TRIE_ROOT].total += count;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t frame = s->frames[i];

		if (frame_hidden(f, profile__frame_info(p, frame)))
			continue;
		if (same && depth < t->last_len && t->nodes[t->last_path[depth]].frame == frame) {
			node = t->last_path[depth];
		} else {
			same = false;
			node = child_or_new(t, node, frame);
			if (node == TRIE_NONE)
				return -ENOMEM;
		}
		t->last_path[depth++] = node;
		t->nodes[node].total += count;
	}
	t->last_len = depth;
	t->nodes[node].self += count;
	return 0;
}

struct sort_ctx {
	const struct stack_trie *t;
	const struct profile *p;
};

/* Siblings: larger total first, then by name. */
static int by_total_then_name(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct trie_node *x = &c->t->nodes[*(const uint32_t *)a];
	const struct trie_node *y = &c->t->nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(profile__frame_name(c->p, x->frame), profile__frame_name(c->p, y->frame));
}

static int sort_siblings(struct stack_trie *t, const struct profile *p)
{
	uint32_t *kids = malloc(t->n * sizeof(*kids));
	struct sort_ctx ctx = { t, p };

	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = 0;

		for (uint32_t c = t->nodes[i].first_child; c != TRIE_NONE;
		     c = t->nodes[c].next_sibling)
			kids[k++] = c;
		if (k < 2)
			continue;
		qsort_r(kids, k, sizeof(*kids), by_total_then_name, &ctx);
		t->nodes[i].first_child = kids[0];
		for (size_t j = 0; j + 1 < k; j++)
			t->nodes[kids[j]].next_sibling = kids[j + 1];
		t->nodes[kids[k - 1]].next_sibling = TRIE_NONE;
	}
	free(kids);
	return 0;
}

static void clear(struct stack_trie *t)
{
	t->n = 0;
	t->last_len = 0;
	t->max_depth = 0;
	hash_index__clear(&t->children);
	add_node(t, TRIE_NONE, PROFILE_NONE); /* the root needs no index entry */
}

int stack_trie__build(struct stack_trie *t, const struct profile *p, const struct view_filter *f)
{
	size_t n = profile__nstacks(p);
	int err = 0;

	clear(t);
	if (t->n == 0)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		struct profile_stack s;
		uint64_t count;

		profile__stack(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		if (count && view_filter__keeps(f, p, &s))
			err = add_stack(t, p, f, &s, count);
	}
	if (!err)
		err = sort_siblings(t, p);
	if (err)
		clear(t);
	return err;
}

/* True when an ancestor of @node (the root excluded) is frame @frame too. */
static bool has_ancestor_frame(const struct stack_trie *t, uint32_t node, uint32_t frame)
{
	for (node = t->nodes[node].parent; node != TRIE_ROOT; node = t->nodes[node].parent) {
		if (t->nodes[node].frame == frame)
			return true;
	}
	return false;
}

/* Adds the callers of @node, nearest first, carrying @node's total. */
static int add_callers(struct stack_trie *out, const struct stack_trie *t, uint32_t node)
{
	uint64_t count = t->nodes[node].total;
	uint32_t at = TRIE_ROOT;

	out->nodes[TRIE_ROOT].total += count;
	for (node = t->nodes[node].parent; node != TRIE_ROOT; node = t->nodes[node].parent) {
		at = child_or_new(out, at, t->nodes[node].frame);
		if (at == TRIE_NONE)
			return -ENOMEM;
		out->nodes[at].total += count;
	}
	out->nodes[at].self += count;
	return 0;
}

int stack_trie__build_callers(struct stack_trie *out, const struct stack_trie *t,
			      const struct profile *p, uint32_t frame)
{
	int err = 0;

	clear(out);
	if (out->n == 0)
		return -ENOMEM;
	for (uint32_t n = 1; n < t->n && !err; n++) {
		if (t->nodes[n].frame == frame && !has_ancestor_frame(t, n, frame))
			err = add_callers(out, t, n);
	}
	if (!err)
		err = sort_siblings(out, p);
	if (err)
		clear(out);
	return err;
}
