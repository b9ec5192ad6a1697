/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icicle_view: a flame graph drawn root at the top, one row per depth, in
 * plain ASCII: each frame is a box as wide as its share of its parent.
 *
 * Column arithmetic, exact and in integers: the top frame (the zoom) gets
 * the whole width W. A frame of total T drawn in W columns from column X
 * gives its children, hottest first, the columns
 *
 *	[X + floor(W * S_before / T), X + floor(W * S_after / T))
 *
 * where S_before and S_after are the sums of the totals of the children
 * before it and up to it. Widths are computed from running sums, so rounding
 * never accumulates and children never pass their parent's edge. A child
 * narrower than one column (W * total < T) is not drawn, nor is any after it
 * (they are sorted), and its share stays in the parent's remainder, the blank
 * after the last child, which also holds the parent's self count.
 *
 * Live, counts jitter by a sample between refreshes, and exact edges with
 * them: so a box whose right edge was drawn where the arithmetic would put
 * it now were the running sum a jitter off (stack_trie__jitter(): a sample,
 * or what the screen can't tell apart) keeps that edge (its path's place in
 * an icicle_memo of the last drawing), as long as it stays inside its
 * parent and at least a column wide.
 *
 * A box reads "[name   ]" for a process or a user frame and "{name   }" for a
 * kernel frame, so that kernel frames stand out without colours too; a name
 * that does not fit ends with "..", and a box one column wide is "|" (":"
 * for a kernel frame). Colours: by kind (user, kernel, unknown) and by heat
 * (share of the top frame's total).
 */
#ifndef FLAMETOP_ICICLE_VIEW_H
#define FLAMETOP_ICICLE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "tui/screen.h"

struct icicle_box {
	uint32_t node;
	int x, w;
	uint64_t key; /* its node's stack_trie__path_key() */
};

/* Where a drawing put its boxes, by path, sorted by key (icicle__remember()). */
struct icicle_spot {
	uint64_t key;
	int x, w;
};

struct icicle_memo {
	struct icicle_spot *spots;
	size_t n, cap;
};

struct icicle_layout {
	struct icicle_box *boxes; /* level by level, left to right */
	size_t nboxes, cap;
	size_t *level_start;      /* level L: boxes [level_start[L], level_start[L + 1]) */
	uint32_t levels;          /* levels laid out; level 0 is the top frame */
};

/*
 * icicle__layout() lays out @levels levels of @t from node @top in @width
 * columns into @l (its memory is reused; start from a zeroed struct),
 * keeping the edges of @memo's boxes where they are near (NULL: exact).
 * Returns 0 or -ENOMEM.
 */
int icicle__layout(struct icicle_layout *l, const struct stack_trie *t, uint32_t top, int width,
		   uint32_t levels, const struct icicle_memo *memo);

/* Frees the layout's memory. */
void icicle_layout__free(struct icicle_layout *l);

/*
 * icicle__shown() returns the deepest node of @sel and its ancestors that has
 * a box in @l, or TRIE_NONE; its level goes to *@level.
 */
uint32_t icicle__shown(const struct icicle_layout *l, const struct stack_trie *t, uint32_t sel,
		       uint32_t *level);

struct icicle_draw {
	const struct profile *prof;
	uint32_t top;           /* the zoom: the node drawn full width */
	uint32_t sel;           /* the selected node (its deepest drawn ancestor is shown) */
	const char *title;
	const char *root_label; /* the name of the trie's root */
	bool focused;
	const struct icicle_memo *memo; /* the last drawing's places, or NULL */
};

/*
 * icicle__draw() draws the title line and the chart into @r. When the
 * selection lies deeper than the rows can show, the chart starts lower so
 * that it is on screen. Returns 0 or -ENOMEM (the chart is then blank).
 */
int icicle__draw(struct screen *s, const struct stack_trie *t, struct screen_rect r,
		 const struct icicle_draw *d);

/*
 * icicle__neighbor() returns the frame drawn left (@dir < 0) or right
 * (@dir > 0) of the shown selection (see icicle__shown()) at its depth, in a
 * chart of @width columns from @top laid out with @memo; the shown selection itself when there
 * is none that way, or @top when nothing of the selection is shown.
 */
uint32_t icicle__neighbor(const struct stack_trie *t, uint32_t top, int width, uint32_t sel,
			  int dir, const struct icicle_memo *memo);

/*
 * icicle__remember() lays out the chart icicle__draw() draws of @d in @r,
 * and keeps where its boxes are in @m for the drawings after (@d->memo,
 * which may be @m, is read first). Returns 0, or -ENOMEM (@m is then
 * empty).
 */
int icicle__remember(struct icicle_memo *m, const struct stack_trie *t, struct screen_rect r,
		     const struct icicle_draw *d);

/* Frees @m's memory; @m is then empty. */
void icicle_memo__free(struct icicle_memo *m);

#endif
