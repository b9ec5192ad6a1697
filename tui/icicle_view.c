// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tui/frame_label.h"
#include "tui/icicle_view.h"

/* A box laid out, and its level. */
struct placed {
	struct icicle_box box;
	uint32_t level;
};

/* A list of placed boxes: the layout's to-do stack, and what it laid out. */
struct placed_list {
	struct placed *v;
	size_t n, cap;
};

static int place(struct placed_list *pl, struct icicle_box box, uint32_t level)
{
	if (array__grow((void **)&pl->v, &pl->cap, pl->n + 1, sizeof(*pl->v), 256))
		return -ENOMEM;
	pl->v[pl->n++] = (struct placed){ box, level };
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct icicle_spot *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Where @memo's drawing put the box of path @key, or NULL. */
static const struct icicle_spot *spot_of(const struct icicle_memo *memo, uint64_t key)
{
	struct icicle_spot want = { .key = key };

	if (!memo || !memo->n)
		return NULL;
	return bsearch(&want, memo->spots, memo->n, sizeof(*memo->spots), by_key);
}

/* Where an edge may be drawn: exactly at @exact, or anywhere in [@lo, @hi]. */
struct edge {
	int exact, lo, hi;
};

/*
 * The right edge of the box of path @key from @left, at most @end: the one
 * @memo's drawing gave it when that lies in @e's range and leaves the box a
 * column at least; else @e's exact one, or @left + 1 when the box's left
 * edge moved there.
 */
static int right_edge(const struct icicle_memo *memo, uint64_t key, int left, struct edge e,
		      int end)
{
	const struct icicle_spot *was = spot_of(memo, key);
	int kept = was ? was->x + was->w : e.exact;

	if (kept >= e.lo && kept <= e.hi && kept > left && kept <= end)
		return kept;
	return e.exact > left ? e.exact : left + 1;
}

/*
 * The right edge of a box from @x in @w columns whose siblings up to it sum
 * to @sum of @total: exact, and where it would be were @sum a jitter off
 * (stack_trie__jitter(): a sample, or what the screen can't tell apart).
 */
static struct edge edge_of(const struct stack_trie *t, int x, unsigned __int128 w,
			   unsigned __int128 sum, unsigned __int128 total)
{
	unsigned __int128 j = stack_trie__jitter(t, (uint64_t)sum);
	unsigned __int128 lo = sum > j ? sum - j : 0, hi = sum + j < total ? sum + j : total;

	return (struct edge){ x + (int)(w * sum / total), x + (int)(w * lo / total),
			      x + (int)(w * hi / total) };
}

/*
 * Puts the children of @parent (see the column arithmetic in icicle_view.h)
 * on @todo, the rightmost first, so that the leftmost is laid out next.
 */
static int lay_children(struct placed_list *todo, const struct stack_trie *t,
			const struct placed *parent, const struct icicle_memo *memo)
{
	unsigned __int128 w = (unsigned)parent->box.w, total = t->nodes[parent->box.node].total;
	unsigned __int128 sum = 0;
	size_t first = todo->n;
	int left = parent->box.x, end = parent->box.x + parent->box.w;

	for (uint32_t c = stack_trie__first_child(t, parent->box.node); c != TRIE_NONE;
	     c = t->nodes[c].next_sibling) {
		const struct trie_node *n = &t->nodes[c];
		uint64_t ct = n->total, key = path_key(parent->box.key, n->depth, n->frame);
		int right;

		if (w * ct < total)
			break; /* narrower than a column: left in the parent's remainder */
		sum += ct;
		right = right_edge(memo, key, left, edge_of(t, parent->box.x, w, sum, total), end);
		if (right > end)
			break; /* no column left for it */
		if (place(todo, (struct icicle_box){ c, left, right - left, key }, parent->level + 1))
			return -ENOMEM;
		left = right;
	}
	for (size_t i = first, j = todo->n; i + 1 < j; i++, j--) {
		struct placed swap = todo->v[i];

		todo->v[i] = todo->v[j - 1];
		todo->v[j - 1] = swap;
	}
	return 0;
}

/* Puts the boxes of @done, level by level, left to right, into @l. 0 or -ENOMEM. */
static int by_level(struct icicle_layout *l, const struct placed_list *done, uint32_t levels)
{
	size_t *start = l->level_start;

	if (array__grow((void **)&l->boxes, &l->cap, done->n, sizeof(*l->boxes), 256))
		return -ENOMEM;
	memset(start, 0, (levels + 2) * sizeof(*start));
	for (size_t i = 0; i < done->n; i++)
		start[done->v[i].level + 1]++;
	for (uint32_t lv = 0; lv < levels; lv++) {
		if (start[lv + 1])
			l->levels = lv + 1;
		start[lv + 1] += start[lv];
	}
	/* Depth first meets the boxes of a level left to right. */
	for (size_t i = 0; i < done->n; i++)
		l->boxes[start[done->v[i].level]++] = done->v[i].box;
	for (uint32_t lv = levels; lv > 0; lv--)
		start[lv] = start[lv - 1];
	start[0] = 0;
	l->nboxes = done->n;
	return 0;
}

/*
 * The layout goes depth first (a box's children right after it), not level
 * by level: the children of the nodes of a big trie are made from their
 * stacks, and depth first a node's stacks are still in the cache when its
 * children's children are made.
 */
int icicle__layout(struct icicle_layout *l, const struct stack_trie *t, uint32_t top, int width,
		   uint32_t levels, const struct icicle_memo *memo)
{
	size_t *start = realloc(l->level_start, (levels + 2) * sizeof(*start));
	struct placed_list todo = { 0 }, done = { 0 };
	int err = 0;

	if (!start)
		return -ENOMEM;
	l->level_start = start;
	l->nboxes = 0;
	l->levels = 0;
	start[0] = 0;
	if (!levels || !t->n || width <= 0 || !t->nodes[top].total)
		return 0;
	err = place(&todo, (struct icicle_box){ top, 0, width, stack_trie__path_key(t, top) }, 0);
	while (!err && todo.n) {
		struct placed p = todo.v[--todo.n];

		err = place(&done, p.box, p.level);
		if (!err && p.level + 1 < levels)
			err = lay_children(&todo, t, &p, memo);
	}
	if (!err)
		err = by_level(l, &done, levels);
	free(todo.v);
	free(done.v);
	return err;
}

void icicle_layout__free(struct icicle_layout *l)
{
	free(l->boxes);
	free(l->level_start);
	memset(l, 0, sizeof(*l));
}

/* The index of @node's box at @level, or -1. */
static long find_box(const struct icicle_layout *l, uint32_t level, uint32_t node)
{
	if (level >= l->levels)
		return -1;
	for (size_t i = l->level_start[level]; i < l->level_start[level + 1]; i++) {
		if (l->boxes[i].node == node)
			return (long)i;
	}
	return -1;
}

uint32_t icicle__shown(const struct icicle_layout *l, const struct stack_trie *t, uint32_t sel,
		       uint32_t *level)
{
	uint32_t top_depth, depth;

	if (!l->levels)
		return TRIE_NONE;
	top_depth = stack_trie__depth(t, l->boxes[0].node);
	depth = stack_trie__depth(t, sel);
	for (uint32_t n = sel; n != TRIE_NONE && depth >= top_depth;
	     n = t->nodes[n].parent, depth--) {
		if (find_box(l, depth - top_depth, n) >= 0) {
			*level = depth - top_depth;
			return n;
		}
	}
	return TRIE_NONE;
}

/* Levels to lay out so that @sel, when below @top, is among them: at least @rows. */
static uint32_t levels_for(const struct stack_trie *t, uint32_t top, uint32_t sel, uint32_t rows)
{
	uint32_t sel_depth = stack_trie__depth(t, sel), top_depth = stack_trie__depth(t, top);
	uint32_t below = sel_depth - top_depth, n = sel;

	if (sel_depth < top_depth)
		return rows;
	for (uint32_t d = sel_depth; d > top_depth; d--)
		n = t->nodes[n].parent;
	return n == top && below >= rows ? below + 1 : rows;
}

static void draw_box(struct screen *s, int row, int col, const struct icicle_box *b,
		     const struct stack_trie *t, const struct icicle_draw *d)
{
	const struct trie_node *n = &t->nodes[b->node];
	bool kernel = b->node != TRIE_ROOT &&
		      profile__frame_info(d->prof, n->frame)->kind == FRAME_KERNEL;
	struct cell_style st = {
		.role = b->node == TRIE_ROOT ? ROLE_PROCESS : frame_role(d->prof, n->frame),
		.heat = heat_level(n->total, t->nodes[d->top].total),
		.attr = ATTR_BLOCK,
	};
	char buf[FRAME_LABEL_MAX];
	const char *name = b->node == TRIE_ROOT ? d->root_label
						: frame_label__text(d->prof, n->frame, buf, sizeof(buf));

	screen__fill(s, row, col + b->x, b->w, ' ', st);
	if (b->w == 1) { /* a sliver */
		screen__put(s, row, col + b->x, 1, kernel ? ":" : "|", st, 0);
		return;
	}
	screen__put(s, row, col + b->x, 1, kernel ? "{" : "[", st, 0);
	screen__put(s, row, col + b->x + b->w - 1, 1, kernel ? "}" : "]", st, 0);
	if (b->w >= 3)
		screen__put(s, row, col + b->x + 1, b->w - 2, name, st, PUT_DOTS);
}

int icicle__draw(struct screen *s, const struct stack_trie *t, struct screen_rect r,
		 const struct icicle_draw *d)
{
	struct cell_style title = { .role = ROLE_TITLE, .attr = d->focused ? ATTR_BOLD : 0 };
	struct icicle_layout l = { 0 };
	uint32_t rows = r.h > 1 ? (uint32_t)r.h - 1 : 0, first = 0, level = 0, shown;

	if (r.h <= 0)
		return 0;
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	screen__put(s, r.row, r.col, r.w, d->title, title, PUT_DOTS);
	if (!t->n ||
	    icicle__layout(&l, t, d->top, r.w, levels_for(t, d->top, d->sel, rows), d->memo)) {
		icicle_layout__free(&l);
		return t->n ? -ENOMEM : 0;
	}
	shown = icicle__shown(&l, t, d->sel, &level);
	if (shown != TRIE_NONE && level >= rows)
		first = level - rows + 1;
	for (uint32_t lv = first; lv < l.levels && lv < first + rows; lv++) {
		int row = r.row + 1 + (int)(lv - first);

		for (size_t i = l.level_start[lv]; i < l.level_start[lv + 1]; i++) {
			draw_box(s, row, r.col, &l.boxes[i], t, d);
			if (l.boxes[i].node == shown)
				screen__add_attr(s, row, r.col + l.boxes[i].x, l.boxes[i].w,
						 ATTR_SELECTED | (d->focused ? ATTR_BOLD : ATTR_DIM));
		}
	}
	icicle_layout__free(&l);
	return 0;
}

uint32_t icicle__neighbor(const struct stack_trie *t, uint32_t top, int width, uint32_t sel,
			  int dir, const struct icicle_memo *memo)
{
	struct icicle_layout l = { 0 };
	uint32_t level = 0, shown, next;
	long i;

	if (icicle__layout(&l, t, top, width, levels_for(t, top, sel, 1), memo)) {
		icicle_layout__free(&l);
		return top;
	}
	shown = icicle__shown(&l, t, sel, &level);
	next = shown == TRIE_NONE ? top : shown;
	i = shown == TRIE_NONE ? -1 : find_box(&l, level, shown) + (dir < 0 ? -1 : 1);
	if (i >= (long)l.level_start[level] && i < (long)l.level_start[level + 1])
		next = l.boxes[i].node;
	icicle_layout__free(&l);
	return next;
}

int icicle__remember(struct icicle_memo *m, const struct stack_trie *t, struct screen_rect r,
		     const struct icicle_draw *d)
{
	struct icicle_layout l = { 0 };
	uint32_t rows = r.h > 1 ? (uint32_t)r.h - 1 : 0;
	int err = t->n ? icicle__layout(&l, t, d->top, r.w, levels_for(t, d->top, d->sel, rows),
					 d->memo)
		       : 0;

	if (!err && array__grow((void **)&m->spots, &m->cap, l.nboxes, sizeof(*m->spots), 64))
		err = -ENOMEM;
	m->n = 0;
	for (size_t i = 0; !err && i < l.nboxes; i++)
		m->spots[m->n++] = (struct icicle_spot){ l.boxes[i].key, l.boxes[i].x, l.boxes[i].w };
	if (m->n > 1)
		qsort(m->spots, m->n, sizeof(*m->spots), by_key);
	icicle_layout__free(&l);
	return err;
}

void icicle_memo__free(struct icicle_memo *m)
{
	free(m->spots);
	memset(m, 0, sizeof(*m));
}
