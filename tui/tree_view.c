// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tui/frame_label.h"
#include "tui/scroll.h"
#include "tui/tree_view.h"

#define COL_TREE NUMBERS_COLUMNS
#define GUIDE_COLUMNS 2  /* per level: "| ", "|-", "`-" */
#define MARKER_COLUMNS 4 /* "[-] ", "[+] ", "--- " */

int tree_pane__init(struct tree_pane *tp, const struct stack_trie *t)
{
	memset(tp, 0, sizeof(*tp));
	tp->trie = t;
	return path_set__init(&tp->states);
}

void tree_pane__free(struct tree_pane *tp)
{
	path_set__free(&tp->states);
	free(tp->rows);
	free(tp->keys);
	memset(tp, 0, sizeof(*tp));
}

void tree_pane__forget(struct tree_pane *tp)
{
	path_set__clear(&tp->states);
	tp->all_expanded = false;
	tp->seeded = false;
	tp->sel.n = 0;
	tp->sel_row = tp->top = 0;
}

int tree_pane__rebuilt(struct tree_pane *tp)
{
	const struct stack_trie *t = tp->trie;

	if (t->n > tp->keys_cap) {
		uint64_t *keys = realloc(tp->keys, t->n * sizeof(*keys));

		if (!keys) {
			tp->nrows = 0;
			return -ENOMEM;
		}
		tp->keys = keys;
		tp->keys_cap = t->n;
	}
	/* A parent is always stored before its children. */
	if (t->n)
		tp->keys[TRIE_ROOT] = PATH_KEY_ROOT;
	for (size_t i = 1; i < t->n; i++)
		tp->keys[i] = path_key(tp->keys[t->nodes[i].parent], t->nodes[i].frame);
	return 0;
}

bool tree_pane__expanded(const struct tree_pane *tp, uint32_t node)
{
	switch (path_set__get(&tp->states, tp->keys[node])) {
	case PATH_EXPANDED:
		return true;
	case PATH_COLLAPSED:
		return false;
	default:
		return node == TRIE_ROOT || tp->all_expanded;
	}
}

int tree_pane__set_expanded(struct tree_pane *tp, uint32_t node, bool expanded)
{
	if (expanded && tp->nrows && tp->rows[tp->sel_row].node == node)
		tp->show_subtree = true;
	return path_set__set(&tp->states, tp->keys[node], expanded ? PATH_EXPANDED : PATH_COLLAPSED);
}

int tree_pane__expand_hottest(struct tree_pane *tp, uint32_t node)
{
	const struct trie_node *nodes = tp->trie->nodes;

	for (; nodes[node].first_child != TRIE_NONE; node = nodes[node].first_child) {
		if (tree_pane__set_expanded(tp, node, true))
			return -ENOMEM;
	}
	return 0;
}

int tree_pane__set_all(struct tree_pane *tp, bool expanded)
{
	path_set__clear(&tp->states);
	tp->all_expanded = expanded;
	return tree_pane__set_expanded(tp, TRIE_ROOT, true);
}

void tree_pane__select(struct tree_pane *tp, uint32_t node)
{
	frame_path__set(&tp->sel, tp->trie, node);
	tp->sel_node = node;
}

int tree_pane__reveal(struct tree_pane *tp, uint32_t node)
{
	tree_pane__select(tp, node);
	while (node != TRIE_ROOT) {
		node = tp->trie->nodes[node].parent;
		if (tree_pane__set_expanded(tp, node, true))
			return -ENOMEM;
	}
	return 0;
}

void tree_pane__move(struct tree_pane *tp, long delta)
{
	long row = (long)tp->sel_row + delta;

	if (!tp->nrows)
		return;
	if (row < 0)
		row = 0;
	if (row >= (long)tp->nrows)
		row = (long)tp->nrows - 1;
	tree_pane__select(tp, tp->rows[row].node);
	tp->sel_row = row;
}

/* The deepest last descendant of @node: the last node of its subtree in depth-first order. */
static uint32_t last_descendant(const struct stack_trie *t, uint32_t node)
{
	for (;;) {
		uint32_t c = t->nodes[node].first_child;

		if (c == TRIE_NONE)
			return node;
		while (t->nodes[c].next_sibling != TRIE_NONE)
			c = t->nodes[c].next_sibling;
		node = c;
	}
}

uint32_t tree_pane__step(const struct tree_pane *tp, uint32_t node, int dir)
{
	const struct stack_trie *t = tp->trie;
	uint32_t prev;

	if (dir > 0) {
		if (t->nodes[node].first_child != TRIE_NONE)
			return t->nodes[node].first_child;
		while (node != TRIE_ROOT && t->nodes[node].next_sibling == TRIE_NONE)
			node = t->nodes[node].parent;
		return node == TRIE_ROOT ? TRIE_ROOT : t->nodes[node].next_sibling;
	}
	if (node == TRIE_ROOT)
		return last_descendant(t, TRIE_ROOT);
	prev = t->nodes[t->nodes[node].parent].first_child;
	if (prev == node)
		return t->nodes[node].parent;
	while (t->nodes[prev].next_sibling != node)
		prev = t->nodes[prev].next_sibling;
	return last_descendant(t, prev);
}

static int add_row(struct tree_pane *tp, uint32_t node, uint32_t depth)
{
	const struct trie_node *n = &tp->trie->nodes[node];
	uint8_t flags = 0;

	if (array__grow((void **)&tp->rows, &tp->rows_cap, tp->nrows + 1, sizeof(*tp->rows), 256))
		return -ENOMEM;
	if (n->next_sibling == TRIE_NONE)
		flags |= ROW_LAST;
	if (n->first_child != TRIE_NONE)
		flags |= ROW_HAS_CHILDREN;
	if (flags & ROW_HAS_CHILDREN && tree_pane__expanded(tp, node))
		flags |= ROW_EXPANDED;
	tp->rows[tp->nrows++] = (struct tree_row){ node, depth, flags };
	return 0;
}

/* One row per node whose ancestors are all expanded, in depth-first order. */
static int flatten(struct tree_pane *tp)
{
	const struct trie_node *nodes = tp->trie->nodes;
	uint32_t node = TRIE_ROOT, depth = 0;

	tp->nrows = 0;
	while (node != TRIE_NONE) {
		if (add_row(tp, node, depth))
			return -ENOMEM;
		if (tp->rows[tp->nrows - 1].flags & ROW_EXPANDED) {
			node = nodes[node].first_child;
			depth++;
			continue;
		}
		while (node != TRIE_ROOT && nodes[node].next_sibling == TRIE_NONE) {
			node = nodes[node].parent;
			depth--;
		}
		node = node == TRIE_ROOT ? TRIE_NONE : nodes[node].next_sibling;
	}
	return 0;
}

/* The node that shows the selection: the selected node, or its shallowest collapsed ancestor. */
static uint32_t visible_selection(const struct tree_pane *tp)
{
	uint32_t shown = tp->sel_node;

	for (uint32_t n = tp->sel_node; n != TRIE_ROOT;) {
		n = tp->trie->nodes[n].parent;
		if (!tree_pane__expanded(tp, n))
			shown = n;
	}
	return shown;
}

/* Scrolls down, as far as the selection stays on top, to show the rows below it. */
static void show_subtree(struct tree_pane *tp, long h)
{
	size_t end = tp->sel_row + 1;

	while (end < tp->nrows && tp->rows[end].depth > tp->rows[tp->sel_row].depth)
		end++;
	if ((long)end > (long)tp->top + h)
		tp->top = end - h < tp->sel_row ? end - h : tp->sel_row;
	tp->show_subtree = false;
}

/*
 * Keeps the selection where it was on screen (@offset rows below the top)
 * when it was on screen, then scrolls as little as needed to show it.
 */
static void scroll(struct tree_pane *tp, long offset)
{
	tp->top = scroll_top(tp->sel_row, tp->top, tp->nrows, tp->height, offset);
	if (tp->show_subtree)
		show_subtree(tp, tp->height > 0 ? tp->height : 1);
}

int tree_pane__refresh(struct tree_pane *tp)
{
	const struct stack_trie *t = tp->trie;
	long offset = (long)tp->sel_row - (long)tp->top;
	uint32_t shown;

	if (!t->n || tp->keys_cap < t->n) {
		tp->nrows = 0;
		return t->n ? -ENOMEM : 0;
	}
	if (!tp->seeded && t->nodes[TRIE_ROOT].total) {
		if (tree_pane__expand_hottest(tp, TRIE_ROOT))
			return -ENOMEM;
		tp->seeded = true;
	}
	tp->sel_node = frame_path__resolve(&tp->sel, t);
	if (flatten(tp))
		return -ENOMEM;
	shown = visible_selection(tp);
	tp->sel_row = 0;
	while (tp->sel_row < tp->nrows && tp->rows[tp->sel_row].node != shown)
		tp->sel_row++;
	if (tp->sel_row == tp->nrows)
		tp->sel_row = 0;
	scroll(tp, offset);
	return 0;
}

/*
 * Draws the guides of @row from @col in @width columns: "| " or "  " for each
 * ancestor level (whether that ancestor has a next sibling), then "|-" or
 * "`-". Levels that do not fit in half the width give way to a leading "..".
 * Returns the columns used.
 */
static int draw_guides(struct screen *s, int row, int col, int width, const struct tree_pane *tp,
		       const struct tree_row *r)
{
	const struct cell_style st = { .role = ROLE_GUIDE };
	uint32_t levels = r->depth, shown = levels, node = r->node;
	int budget = width / 2 / GUIDE_COLUMNS;
	int x;

	if (levels == 0)
		return 0;
	if (budget < 2)
		budget = 2;
	if (levels > (uint32_t)budget)
		shown = budget - 1; /* one level's columns hold ".." */
	x = col + (levels > shown ? GUIDE_COLUMNS : 0) + (int)(shown - 1) * GUIDE_COLUMNS;
	screen__put(s, row, x, GUIDE_COLUMNS, r->flags & ROW_LAST ? "`-" : "|-", st, 0);
	for (uint32_t i = 1; i < shown; i++) {
		node = tp->trie->nodes[node].parent;
		x -= GUIDE_COLUMNS;
		if (tp->trie->nodes[node].next_sibling != TRIE_NONE)
			screen__put(s, row, x, 1, "|", st, 0);
	}
	if (levels > shown)
		screen__put(s, row, col, GUIDE_COLUMNS, "..", st, 0);
	return (int)(shown + (levels > shown)) * GUIDE_COLUMNS;
}

static const char *marker(uint8_t flags)
{
	if (!(flags & ROW_HAS_CHILDREN))
		return "--- ";
	return flags & ROW_EXPANDED ? "[-] " : "[+] ";
}

static void draw_row(struct screen *s, int row, struct screen_rect r, const struct tree_pane *tp,
		     const struct tree_row *tr, const struct tree_draw *d)
{
	const struct trie_node *n = &tp->trie->nodes[tr->node];
	int x = r.col + COL_TREE, end = r.col + r.w;

	numbers__draw(s, row, r.col, n->total,
		      d->show_self ? stack_trie__self(tp->trie, tr->node) : NO_SHARE, n->total,
		      d->base);
	x += draw_guides(s, row, x, end - x, tp, tr);
	x += screen__put(s, row, x, end - x, marker(tr->flags), (struct cell_style){ .role = ROLE_GUIDE },
			 0);
	if (tr->node == TRIE_ROOT)
		screen__put(s, row, x, end - x, d->root_label,
			    (struct cell_style){ .attr = ATTR_BOLD }, PUT_DOTS);
	else
		frame_label__draw(s, row, x, end - x, d->prof, n->frame, d->match, 0);
	if (tr->node == tp->rows[tp->sel_row].node)
		screen__add_attr(s, row, r.col, r.w,
				 ATTR_SELECTED | (d->focused ? ATTR_BOLD : ATTR_DIM));
}

void tree_pane__draw(struct screen *s, const struct tree_pane *tp, struct screen_rect r,
		     const struct tree_draw *d)
{
	struct cell_style title = { .role = ROLE_TITLE, .attr = d->focused ? ATTR_BOLD : 0 };

	if (r.h <= 0)
		return;
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	numbers__title(s, r.row, r.col, "Total%", d->show_self ? "Self%" : "", "Count", title);
	screen__put(s, r.row, r.col + COL_TREE, r.w - COL_TREE, d->title, title, PUT_DOTS);
	if (!tp->nrows || !tp->trie->nodes[TRIE_ROOT].total) {
		screen__put(s, r.row + 1, r.col + COL_TREE, r.w - COL_TREE, d->empty,
			    (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
		return;
	}
	for (int i = 1; i < r.h && tp->top + i - 1 < tp->nrows; i++)
		draw_row(s, r.row + i, r, tp, &tp->rows[tp->top + i - 1], d);
}
