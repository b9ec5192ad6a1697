// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tui/frame_label.h"
#include "tui/icicle_view.h"

static int push_box(struct icicle_layout *l, uint32_t node, int x, int w)
{
	if (array__grow((void **)&l->boxes, &l->cap, l->nboxes + 1, sizeof(*l->boxes), 256))
		return -ENOMEM;
	l->boxes[l->nboxes++] = (struct icicle_box){ node, x, w };
	return 0;
}

/* Lays out the children of @parent (see the column arithmetic in icicle_view.h). */
static int lay_children(struct icicle_layout *l, const struct stack_trie *t,
			struct icicle_box parent)
{
	unsigned __int128 w = (unsigned)parent.w, total = t->nodes[parent.node].total, sum = 0;

	for (uint32_t c = stack_trie__first_child(t, parent.node); c != TRIE_NONE;
	     c = t->nodes[c].next_sibling) {
		uint64_t ct = t->nodes[c].total;
		int x0, x1;

		if (w * ct < total)
			break; /* narrower than a column: left in the parent's remainder */
		x0 = parent.x + (int)(w * sum / total);
		sum += ct;
		x1 = parent.x + (int)(w * sum / total);
		if (push_box(l, c, x0, x1 - x0))
			return -ENOMEM;
	}
	return 0;
}

int icicle__layout(struct icicle_layout *l, const struct stack_trie *t, uint32_t top, int width,
		   uint32_t levels)
{
	size_t *start = realloc(l->level_start, (levels + 2) * sizeof(*start));

	if (!start)
		return -ENOMEM;
	l->level_start = start;
	l->nboxes = 0;
	l->levels = 0;
	start[0] = 0;
	if (!levels || !t->n || width <= 0 || !t->nodes[top].total)
		return 0;
	if (push_box(l, top, 0, width))
		return -ENOMEM;
	start[1] = 1;
	l->levels = 1;
	while (l->levels < levels && start[l->levels] > start[l->levels - 1]) {
		for (size_t i = start[l->levels - 1]; i < start[l->levels]; i++) {
			if (lay_children(l, t, l->boxes[i]))
				return -ENOMEM;
		}
		if (l->nboxes == start[l->levels])
			break;
		start[++l->levels] = l->nboxes;
	}
	return 0;
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
	const char *name = b->node == TRIE_ROOT ? d->root_label : profile__frame_name(d->prof, n->frame);

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
	if (!t->n || icicle__layout(&l, t, d->top, r.w, levels_for(t, d->top, d->sel, rows))) {
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
			  int dir)
{
	struct icicle_layout l = { 0 };
	uint32_t level = 0, shown, next;
	long i;

	if (icicle__layout(&l, t, top, width, levels_for(t, top, sel, 1))) {
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
