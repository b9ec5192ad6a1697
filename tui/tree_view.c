// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tui/frame_label.h"
#include "tui/tree_view.h"

#define COL_TREE NUMBERS_COLUMNS
#define GUIDE_COLUMNS 2	 /* per level: "| ", "|-", "`-" */
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
	memset(tp, 0, sizeof(*tp));
}

void tree_pane__forget(struct tree_pane *tp)
{
	path_set__clear(&tp->states);
	tp->all_expanded = false;
	tp->seeded = false;
	tp->sel.n = 0;
	tp->sel_node = TRIE_ROOT;
	tp->sel_offset = 0;
}

void tree_pane__renumber(struct tree_pane *tp, const struct profile *p)
{
	path_set__clear(&tp->states);
	tp->seeded = false;
	frame_path__renumber(&tp->sel, p);
}

int tree_pane__rebuilt(struct tree_pane *tp)
{
	tp->nrows = 0;
	tp->sel_node = tp->trie->n ? frame_path__resolve(&tp->sel, tp->trie) : TRIE_ROOT;
	return stack_trie__error(tp->trie);
}

/* Is the node with path key @key expanded? */
static bool expanded_by_key(const struct tree_pane *tp, uint32_t node, uint64_t key)
{
	switch (path_set__get(&tp->states, key)) {
	case PATH_EXPANDED:
		return true;
	case PATH_COLLAPSED:
		return false;
	default:
		return node == TRIE_ROOT || tp->all_expanded;
	}
}

bool tree_pane__expanded(const struct tree_pane *tp, uint32_t node)
{
	return expanded_by_key(tp, node, stack_trie__path_key(tp->trie, node));
}

uint32_t tree_pane__selected_row(const struct tree_pane *tp)
{
	const struct stack_trie *t = tp->trie;
	uint32_t shown = tp->sel_node, node = tp->sel_node;
	uint64_t key = stack_trie__path_key(t, node);

	/* Up to the root: the shallowest collapsed ancestor hides the rows below it. */
	while (node != TRIE_ROOT) {
		key = path_key(key, t->nodes[node].depth, t->nodes[node].frame);
		node = t->nodes[node].parent;
		if (!expanded_by_key(tp, node, key))
			shown = node;
	}
	return shown;
}

int tree_pane__set_expanded(struct tree_pane *tp, uint32_t node, bool expanded)
{
	if (expanded && tp->trie->n && tree_pane__selected_row(tp) == node)
		tp->show_subtree = true;
	return path_set__set(&tp->states, stack_trie__path_key(tp->trie, node),
			     expanded ? PATH_EXPANDED : PATH_COLLAPSED);
}

int tree_pane__expand_hottest(struct tree_pane *tp, uint32_t node)
{
	while (node != TRIE_NONE && stack_trie__has_children(tp->trie, node)) {
		if (tree_pane__set_expanded(tp, node, true))
			return -ENOMEM;
		node = stack_trie__first_child(tp->trie, node);
	}
	return stack_trie__error(tp->trie);
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

/* Are @node's children shown? */
static bool shows_children(const struct tree_pane *tp, uint32_t node)
{
	return stack_trie__has_children(tp->trie, node) && tree_pane__expanded(tp, node);
}

/* The last of @node's children (made when they were not). */
static uint32_t last_child(const struct stack_trie *t, uint32_t node)
{
	uint32_t c = stack_trie__first_child(t, node);

	while (c != TRIE_NONE && t->nodes[c].next_sibling != TRIE_NONE)
		c = t->nodes[c].next_sibling;
	return c;
}

/* The row after @node's, or TRIE_NONE after the last. */
static uint32_t next_row(const struct tree_pane *tp, uint32_t node)
{
	const struct stack_trie *t = tp->trie;

	if (shows_children(tp, node))
		return stack_trie__first_child(t, node);
	while (node != TRIE_ROOT && t->nodes[node].next_sibling == TRIE_NONE)
		node = t->nodes[node].parent;
	return node == TRIE_ROOT ? TRIE_NONE : t->nodes[node].next_sibling;
}

/* The last row of @node's rows: its own, or its last child's last row when shown. */
static uint32_t last_row(const struct tree_pane *tp, uint32_t node)
{
	while (shows_children(tp, node)) {
		uint32_t c = last_child(tp->trie, node);

		if (c == TRIE_NONE)
			break;
		node = c;
	}
	return node;
}

/* The row before @node's, or TRIE_NONE before the first. */
static uint32_t prev_row(const struct tree_pane *tp, uint32_t node)
{
	const struct stack_trie *t = tp->trie;
	uint32_t parent;

	if (node == TRIE_ROOT)
		return TRIE_NONE;
	parent = t->nodes[node].parent;
	/* Siblings are consecutive: the one before is node - 1. */
	return stack_trie__first_child(t, parent) == node ? parent : last_row(tp, node - 1);
}

/* Adds @by to *@offset, the result kept between -1 and @height (enough to scroll). */
static void add_offset(long *offset, long by, int height)
{
	long h = height > 0 ? height : 1;

	if (by < -h - 1)
		by = -h - 1;
	if (by > h + 1)
		by = h + 1;
	*offset += by;
	if (*offset < -1)
		*offset = -1;
	if (*offset > h)
		*offset = h;
}

void tree_pane__move(struct tree_pane *tp, long delta)
{
	uint32_t node, next;
	long moved = 0;

	if (!tp->trie->n)
		return;
	node = tree_pane__selected_row(tp);
	if (delta <= -TREE_MOVE_ALL || delta >= TREE_MOVE_ALL) {
		node = delta < 0 ? TRIE_ROOT : last_row(tp, TRIE_ROOT);
		moved = delta;
	}
	for (; moved < delta && (next = next_row(tp, node)) != TRIE_NONE; moved++)
		node = next;
	for (; moved > delta && (next = prev_row(tp, node)) != TRIE_NONE; moved--)
		node = next;
	tree_pane__select(tp, node);
	add_offset(&tp->sel_offset, moved, tp->height);
}

/* Is @node's frame marked? (The root has none.) */
static bool marked(const struct stack_trie *t, uint32_t node, const uint8_t *marks)
{
	return node != TRIE_ROOT && marks[t->nodes[node].frame];
}

/*
 * The node after @node in depth-first order, the root after the last one;
 * a subtree with no marked frame below its top is stepped over.
 */
static uint32_t next_candidate(const struct stack_trie *t, uint32_t node, const uint8_t *marks)
{
	uint32_t c;

	if (stack_trie__has_children(t, node) && stack_trie__below_has(t, node, marks) &&
	    (c = stack_trie__first_child(t, node)) != TRIE_NONE)
		return c;
	while (node != TRIE_ROOT && t->nodes[node].next_sibling == TRIE_NONE)
		node = t->nodes[node].parent;
	return node == TRIE_ROOT ? TRIE_ROOT : t->nodes[node].next_sibling;
}

/* The node before @node in depth-first order, the last one before the root; as above. */
static uint32_t prev_candidate(const struct stack_trie *t, uint32_t node, const uint8_t *marks)
{
	if (node != TRIE_ROOT) {
		uint32_t parent = t->nodes[node].parent;

		if (stack_trie__first_child(t, parent) == node)
			return parent;
		node--; /* the sibling before */
	}
	while (stack_trie__has_children(t, node) && stack_trie__below_has(t, node, marks)) {
		uint32_t c = last_child(t, node);

		if (c == TRIE_NONE)
			break;
		node = c;
	}
	return node;
}

uint32_t tree_pane__find(const struct tree_pane *tp, int dir, const uint8_t *marks)
{
	const struct stack_trie *t = tp->trie;
	uint32_t node = tp->sel_node;

	/* Every marked node is reached: the subtrees above it are never stepped over. */
	if (!t->n || !stack_trie__below_has(t, TRIE_ROOT, marks))
		return TRIE_NONE;
	do {
		node = dir > 0 ? next_candidate(t, node, marks) : prev_candidate(t, node, marks);
		if (marked(t, node, marks))
			return node;
	} while (node != tp->sel_node && !stack_trie__error(t));
	return TRIE_NONE;
}

static int add_row(struct tree_pane *tp, uint32_t node)
{
	const struct trie_node *n = &tp->trie->nodes[node];
	uint8_t flags = 0;

	if (array__grow((void **)&tp->rows, &tp->rows_cap, tp->nrows + 1, sizeof(*tp->rows), 64))
		return -ENOMEM;
	if (n->next_sibling == TRIE_NONE)
		flags |= ROW_LAST;
	if (stack_trie__has_children(tp->trie, node))
		flags |= ROW_HAS_CHILDREN;
	if (flags & ROW_HAS_CHILDREN && tree_pane__expanded(tp, node))
		flags |= ROW_EXPANDED;
	tp->rows[tp->nrows++] = (struct tree_row){node, n->depth, flags};
	return 0;
}

/* Puts the row of @node first, above the others. */
static int add_row_on_top(struct tree_pane *tp, uint32_t node)
{
	struct tree_row row;

	if (add_row(tp, node))
		return -ENOMEM;
	row = tp->rows[tp->nrows - 1];
	memmove(tp->rows + 1, tp->rows, (tp->nrows - 1) * sizeof(*tp->rows));
	tp->rows[0] = row;
	return 0;
}

/* How many rows below @node's are @node's descendants', up to @max. */
static long rows_below(const struct tree_pane *tp, uint32_t node, long max)
{
	uint32_t depth = tp->trie->nodes[node].depth, n = next_row(tp, node);
	long below = 0;

	while (below < max && n != TRIE_NONE && tp->trie->nodes[n].depth > depth) {
		below++;
		n = next_row(tp, n);
	}
	return below;
}

/*
 * The rows on screen: @offset rows above @shown (fewer near the first row),
 * then down to the bottom; when the last row comes before it, more rows
 * above, so that the screen stays full.
 */
static int lay_out(struct tree_pane *tp, uint32_t shown, long offset, long h)
{
	uint32_t top = shown, node;

	for (long i = 0; i < offset && (node = prev_row(tp, top)) != TRIE_NONE; i++)
		top = node;
	tp->nrows = 0;
	for (node = top; node != TRIE_NONE && (long)tp->nrows < h; node = next_row(tp, node)) {
		if (add_row(tp, node))
			return -ENOMEM;
	}
	while ((long)tp->nrows < h && (node = prev_row(tp, tp->rows[0].node)) != TRIE_NONE) {
		if (add_row_on_top(tp, node))
			return -ENOMEM;
	}
	tp->sel_row = 0;
	while (tp->sel_row + 1 < tp->nrows && tp->rows[tp->sel_row].node != shown)
		tp->sel_row++;
	return 0;
}

int tree_pane__refresh(struct tree_pane *tp)
{
	const struct stack_trie *t = tp->trie;
	long h = tp->height > 0 ? tp->height : 1, offset = tp->sel_offset;
	uint32_t shown;

	tp->nrows = 0;
	if (!t->n)
		return 0;
	tp->sel_node = frame_path__resolve(&tp->sel, t);
	if (!tp->seeded && t->nodes[TRIE_ROOT].total) {
		if (tree_pane__expand_hottest(tp, TRIE_ROOT))
			return -ENOMEM;
		tp->seeded = true;
	}
	shown = tree_pane__selected_row(tp);
	offset = offset < 0 ? 0 : offset >= h ? h - 1 : offset;
	if (tp->show_subtree) {
		/* Scrolls down, as far as the selection stays on top, to show the rows below it. */
		long below = rows_below(tp, shown, h);

		if (offset + 1 + below > h)
			offset = h - 1 - below > 0 ? h - 1 - below : 0;
		tp->show_subtree = false;
	}
	if (lay_out(tp, shown, offset, h))
		return -ENOMEM;
	tp->sel_offset = (long)tp->sel_row;
	return stack_trie__error(t);
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
	const struct cell_style st = {.role = ROLE_GUIDE};
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
		      d->base, d->time_us);
	x += draw_guides(s, row, x, end - x, tp, tr);
	x += screen__put(s, row, x, end - x, marker(tr->flags),
			 (struct cell_style){.role = ROLE_GUIDE}, 0);
	if (tr->node == TRIE_ROOT)
		screen__put(s, row, x, end - x, d->root_label,
			    (struct cell_style){.attr = ATTR_BOLD}, PUT_DOTS);
	else
		frame_label__draw(s, row, x, end - x, d->prof, n->frame, d->match, 0);
	if (tr->node == tp->rows[tp->sel_row].node)
		screen__add_attr(s, row, r.col, r.w,
				 ATTR_SELECTED | (d->focused ? ATTR_BOLD : ATTR_DIM));
}

void tree_pane__draw(struct screen *s, const struct tree_pane *tp, struct screen_rect r,
		     const struct tree_draw *d)
{
	struct cell_style title = {.role = ROLE_TITLE, .attr = d->focused ? ATTR_BOLD : 0};

	if (r.h <= 0)
		return;
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	numbers__title(s, r.row, r.col, "Total%", d->show_self ? "Self%" : "",
		       d->time_us ? "Time" : "Count", title);
	screen__put(s, r.row, r.col + COL_TREE, r.w - COL_TREE, d->title, title, PUT_DOTS);
	if (!tp->nrows || !tp->trie->nodes[TRIE_ROOT].total) {
		screen__put(s, r.row + 1, r.col + COL_TREE, r.w - COL_TREE, d->empty,
			    (struct cell_style){.attr = ATTR_DIM}, PUT_DOTS);
		return;
	}
	for (int i = 1; i < r.h && (size_t)i - 1 < tp->nrows; i++)
		draw_row(s, r.row + i, r, tp, &tp->rows[i - 1], d);
}
