// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/process_name.h"
#include "profile/stack_trie.h"
#include "profile/text_match.h"

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
	uint32_t c = t->n ? t->nodes[parent].first_child : TRIE_NONE;

	while (c != TRIE_NONE && t->nodes[c].frame != frame)
		c = t->nodes[c].next_sibling;
	return c;
}

uint32_t stack_trie__depth(const struct stack_trie *t, uint32_t node)
{
	uint32_t depth = 0;

	for (; node != TRIE_ROOT; node = t->nodes[node].parent)
		depth++;
	return depth;
}

uint64_t stack_trie__self(const struct stack_trie *t, uint32_t node)
{
	uint64_t self = t->nodes[node].total;

	for (uint32_t c = t->nodes[node].first_child; c != TRIE_NONE; c = t->nodes[c].next_sibling)
		self -= t->nodes[c].total;
	return self;
}

/*
 * A new node of @frame below @parent, @depth deep, counting nothing yet;
 * TRIE_NONE when out of memory.
 */
static uint32_t add_node(struct stack_trie *t, uint32_t parent, uint32_t frame, uint32_t depth)
{
	struct trie_node *n;

	if (array__grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 4096))
		return TRIE_NONE;
	n = &t->nodes[t->n];
	*n = (struct trie_node){ .frame = frame, .parent = parent, .first_child = TRIE_NONE,
				 .next_sibling = TRIE_NONE };
	if (parent != TRIE_NONE) {
		n->next_sibling = t->nodes[parent].first_child;
		t->nodes[parent].first_child = t->n;
		if (depth > t->max_depth)
			t->max_depth = depth;
	}
	return t->n++;
}

/*
 * The child index is filled only when a lookup needs it: first with every
 * node made so far, then with the nodes made since the last lookup.
 */
static int index_new_nodes(struct stack_trie *t)
{
	for (; t->indexed < t->n; t->indexed++) {
		const struct trie_node *n = &t->nodes[t->indexed];

		if (hash_index__insert(&t->children, edge_hash(n->parent, n->frame),
				       (uint32_t)t->indexed, rehash_edge, t))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The child of @parent (@depth - 1 deep) for @frame, made when there is
 * none; TRIE_NONE when out of memory.
 */
static uint32_t child_or_new(struct stack_trie *t, uint32_t parent, uint32_t frame,
			     uint32_t depth)
{
	struct edge_probe probe = { t, parent, frame };
	struct hash_slot *slot;

	if (index_new_nodes(t))
		return TRIE_NONE;
	slot = hash_index__find(&t->children, edge_hash(parent, frame), same_edge, &probe);
	return slot->entry1 ? slot->entry1 - 1 : add_node(t, parent, frame, depth);
}

static bool has_frame_with(const struct profile *p, const struct profile_stack *s,
			   const char *text)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (text_match(profile__frame_name(p, s->frames[i]), text))
			return true;
	}
	return false;
}

/* @name is @comm, or @comm with the ids process_name.h reads ("-PID", " [PID/TID]"). */
static bool comm_matches(const char *name, const char *comm)
{
	size_t n = strlen(comm);
	struct process_name pn;

	if (strncmp(name, comm, n) != 0)
		return false;
	process_name__parse(name, strlen(name), &pn);
	return !name[n] || pn.comm_len == n;
}

/* The pid and comm filters of @f. */
static bool keeps_process(const struct view_filter *f, const struct profile *p,
			  const struct profile_stack *s)
{
	if (f->ntgids) {
		size_t i = 0;

		while (i < f->ntgids && f->tgids[i] != s->tgid)
			i++;
		if (i == f->ntgids)
			return false;
	}
	return !f->comm || comm_matches(profile__frame_name(p, s->frames[0]), f->comm);
}

bool view_filter__keeps(const struct view_filter *f, const struct profile *p,
			const struct profile_stack *s)
{
	return keeps_process(f, p, s) && (!f->text || has_frame_with(p, s, f->text));
}

/*
 * The frames whose names hold @text, one byte per frame id: a build looks
 * each name up once, not once per stack it is in. NULL when out of memory.
 */
static uint8_t *frames_matching(const struct profile *p, const char *text)
{
	size_t n = profile__nframes(p);
	uint8_t *m = malloc(n ? n : 1);

	for (size_t i = 0; m && i < n; i++)
		m[i] = text_match(profile__frame_name(p, (uint32_t)i), text) != NULL;
	return m;
}

static bool has_matching_frame(const uint8_t *matching, const struct profile_stack *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (matching[s->frames[i]])
			return true;
	}
	return false;
}

static bool frame_hidden(const struct view_filter *f, const struct frame *fr)
{
	return (f->hide_kernel && fr->kind == FRAME_KERNEL) ||
	       (f->hide_user && fr->kind == FRAME_USER);
}

/* What stack_trie__build() knows while it adds stacks. */
struct trie_build {
	struct stack_trie *t;
	const struct profile *p;
	const struct view_filter *f;
	bool hiding;  /* the filter hides kernel or user frames */
	const uint8_t *matching; /* with a text filter: frames_matching() */
	/*
	 * Every stack so far came in the profile's sorted order, and the frames
	 * it kept are a prefix of it. The stacks below any node are then
	 * neighbours: once a stack leaves the previous stack's path, no node
	 * it needs exists yet, and nothing has to be looked up.
	 */
	bool grouped;
	const uint32_t *prev_frames; /* the stack added last, whose path is t->last_path */
	uint32_t prev_n;
	uint32_t prev_first;         /* its first-level frame (see view_filter.group) */
};

/* How many frames @a and @b, both @n long or longer, share from the start. */
static uint32_t shared_frames(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	uint32_t i = 0;

	for (; i + 2 <= n; i += 2) { /* two at a time: most stacks share most frames */
		uint64_t x, y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* How many steps of the previous path come from its first @frames frames. */
static size_t steps_within(const struct stack_trie *t, uint32_t frames)
{
	size_t lo = 0, hi = t->last_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->last_path[mid].at < frames)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Adds one stack's @count to the node its path of shown frames ends at. The
 * frames it shares with the previous stack give the first nodes of the
 * previous path, found without a look at each frame; the shown frames after
 * them are compared with the rest of that path while they match. Below a
 * node this stack made, every node is new; other nodes are looked up,
 * unless the stacks came grouped.
 */
static int add_stack(struct trie_build *b, const struct profile_stack *s, uint32_t first,
		     uint64_t count)
{
	struct stack_trie *t = b->t;
	uint32_t common = s->n < b->prev_n ? s->n : b->prev_n;
	uint32_t shared = first != b->prev_first ? 0
						 : shared_frames(s->frames, b->prev_frames, common);
	size_t depth = steps_within(t, shared);
	uint32_t node = depth ? t->last_path[depth - 1].node : TRIE_ROOT;
	uint32_t first_new = (uint32_t)t->n;
	bool same = true, skipped = depth < shared; /* a shared frame was hidden */

	if (array__grow((void **)&t->last_path, &t->last_cap, s->n, sizeof(*t->last_path), 256))
		return -ENOMEM;
	for (uint32_t i = shared; i < s->n; i++) {
		uint32_t frame = i ? s->frames[i] : first;

		if (b->hiding && frame_hidden(b->f, profile__frame_info(b->p, frame))) {
			skipped = true;
			continue;
		}
		b->grouped &= !skipped;
		if (same && depth < t->last_len && t->last_path[depth].frame == frame) {
			node = t->last_path[depth].node;
			t->last_path[depth++].at = i;
			continue;
		}
		same = false;
		node = node >= first_new || b->grouped ? add_node(t, node, frame, depth + 1)
						       : child_or_new(t, node, frame, depth + 1);
		if (node == TRIE_NONE)
			return -ENOMEM;
		t->last_path[depth++] = (struct trie_step){ frame, node, i };
	}
	t->last_len = depth;
	b->prev_frames = s->frames;
	b->prev_n = s->n;
	b->prev_first = first;
	t->nodes[node].total += count;
	return 0;
}

/* Does sibling @a go before @b? Larger total first, then by name, then by frame id. */
static bool goes_before(const struct stack_trie *t, const struct profile *p, uint32_t a,
			uint32_t b)
{
	const struct trie_node *x = &t->nodes[a], *y = &t->nodes[b];
	int by_name;

	if (x->total != y->total)
		return x->total > y->total;
	by_name = strcmp(profile__frame_name(p, x->frame), profile__frame_name(p, y->frame));
	return by_name ? by_name < 0 : x->frame < y->frame;
}

/* Merges the sorted sibling lists @a and @b into one; returns its head. */
static uint32_t merge_siblings(struct stack_trie *t, const struct profile *p, uint32_t a,
			       uint32_t b)
{
	uint32_t head = TRIE_NONE, *tail = &head;

	while (a != TRIE_NONE && b != TRIE_NONE) {
		uint32_t *from = goes_before(t, p, b, a) ? &b : &a;

		*tail = *from;
		tail = &t->nodes[*from].next_sibling;
		*from = *tail;
	}
	*tail = a != TRIE_NONE ? a : b;
	return head;
}

/* Sorts the @n siblings from @head on, a merge sort of the list itself; returns the new head. */
static uint32_t sort_sibling_list(struct stack_trie *t, const struct profile *p, uint32_t head,
				  size_t n)
{
	uint32_t last = head, second;

	if (n < 2)
		return head;
	for (size_t i = 1; i < n / 2; i++)
		last = t->nodes[last].next_sibling;
	second = t->nodes[last].next_sibling;
	t->nodes[last].next_sibling = TRIE_NONE;
	return merge_siblings(t, p, sort_sibling_list(t, p, head, n / 2),
			      sort_sibling_list(t, p, second, n - n / 2));
}

static size_t count_children(const struct stack_trie *t, uint32_t node)
{
	size_t k = 0;

	for (uint32_t c = t->nodes[node].first_child; c != TRIE_NONE; c = t->nodes[c].next_sibling)
		k++;
	return k;
}

/* Sorts @node's children; most nodes have one or none, sorted already. */
static void sort_children(struct stack_trie *t, const struct profile *p, uint32_t node)
{
	uint32_t first = t->nodes[node].first_child;

	if (first != TRIE_NONE && t->nodes[first].next_sibling != TRIE_NONE)
		t->nodes[node].first_child = sort_sibling_list(t, p, first, count_children(t, node));
}

/*
 * Sums the totals and sorts the siblings, from the last node back: a node
 * always comes after its parent, so when a node is reached its children's
 * totals are whole. Before, a node's total is what ended at it.
 */
static void sum_and_sort(struct stack_trie *t, const struct profile *p)
{
	for (uint32_t i = (uint32_t)t->n; i-- > 0;) {
		sort_children(t, p, i);
		if (i != TRIE_ROOT)
			t->nodes[t->nodes[i].parent].total += t->nodes[i].total;
	}
}

/* The node after @node in depth-first order along the sibling lists, or TRIE_NONE. */
static uint32_t next_depth_first(const struct stack_trie *t, uint32_t node)
{
	if (t->nodes[node].first_child != TRIE_NONE)
		return t->nodes[node].first_child;
	while (node != TRIE_ROOT && t->nodes[node].next_sibling == TRIE_NONE)
		node = t->nodes[node].parent;
	return node == TRIE_ROOT ? TRIE_NONE : t->nodes[node].next_sibling;
}

static uint32_t renamed(const uint32_t *new_of, uint32_t node)
{
	return node == TRIE_NONE ? TRIE_NONE : new_of[node];
}

/*
 * Renumbers the nodes in depth-first order, siblings in list order, in
 * place: the links first, then the nodes, each swap putting one where it
 * belongs.
 */
static int renumber_depth_first(struct stack_trie *t)
{
	uint32_t *new_of = malloc(t->n * sizeof(*new_of));
	uint32_t next = 0;

	if (!new_of)
		return -ENOMEM;
	for (uint32_t node = TRIE_ROOT; node != TRIE_NONE; node = next_depth_first(t, node))
		new_of[node] = next++;
	for (uint32_t node = 0; node < t->n; node++) {
		struct trie_node *n = &t->nodes[node];

		n->parent = renamed(new_of, n->parent);
		n->first_child = renamed(new_of, n->first_child);
		n->next_sibling = renamed(new_of, n->next_sibling);
	}
	for (uint32_t node = 0; node < t->n; node++) {
		while (new_of[node] != node) {
			uint32_t to = new_of[node];
			struct trie_node moved = t->nodes[to];

			t->nodes[to] = t->nodes[node];
			t->nodes[node] = moved;
			new_of[node] = new_of[to];
			new_of[to] = to;
		}
	}
	free(new_of);
	return 0;
}

static void clear(struct stack_trie *t)
{
	t->n = 0;
	t->last_len = 0;
	t->max_depth = 0;
	t->indexed = 1; /* the root needs no index entry */
	if (t->children.used)
		hash_index__clear(&t->children);
	add_node(t, TRIE_NONE, PROFILE_NONE, 0);
}

/*
 * The last steps of every build: totals, sibling order, and depth-first
 * order for nodes that were not made in it (see stack_trie.h). Stacks that
 * came @grouped made their nodes in depth-first order.
 */
static int finish(struct stack_trie *t, const struct profile *p, bool grouped)
{
	sum_and_sort(t, p);
	return grouped ? 0 : renumber_depth_first(t);
}

/* Does stack @s pass @b's filter? */
static bool build_keeps(const struct trie_build *b, const struct profile_stack *s)
{
	return keeps_process(b->f, b->p, s) && (!b->matching || has_matching_frame(b->matching, s));
}

int stack_trie__build(struct stack_trie *t, const struct profile *p, const struct view_filter *f)
{
	/* Stacks come sorted by frames, not by process: grouped only by command. */
	struct trie_build b = { .t = t, .p = p, .f = f, .hiding = f->hide_kernel || f->hide_user,
				.grouped = f->group == GROUP_COMM, .prev_first = PROFILE_NONE };
	size_t n = profile__nstacks(p), nsorted = profile__nsorted(p);
	uint8_t *matching = f->text ? frames_matching(p, f->text) : NULL;
	int err = f->text && !matching ? -ENOMEM : 0;

	b.matching = matching;
	clear(t);
	if (t->n == 0)
		err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		struct profile_stack s;
		uint64_t count;

		profile__stack_sorted(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		b.grouped &= i < nsorted;
		if (count && build_keeps(&b, &s))
			err = add_stack(&b, &s, profile__stack_group(p, s.id, f->group), count);
	}
	free(matching);
	if (!err)
		err = finish(t, p, b.grouped);
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
	uint32_t at = TRIE_ROOT, depth = 0;

	for (node = t->nodes[node].parent; node != TRIE_ROOT; node = t->nodes[node].parent) {
		at = child_or_new(out, at, t->nodes[node].frame, ++depth);
		if (at == TRIE_NONE)
			return -ENOMEM;
	}
	out->nodes[at].total += count;
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
		err = finish(out, p, false);
	if (err)
		clear(out);
	return err;
}
