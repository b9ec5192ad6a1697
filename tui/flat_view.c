// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "tui/flat_view.h"
#include "tui/frame_label.h"
#include "tui/scroll.h"

int flat_pane__init(struct flat_pane *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp->sel_frame = PROFILE_NONE;
	if (stack_trie__init(&fp->callers))
		return -ENOMEM;
	if (tree_pane__init(&fp->callers_tree, &fp->callers)) {
		stack_trie__free(&fp->callers);
		return -ENOMEM;
	}
	return 0;
}

void flat_pane__free(struct flat_pane *fp)
{
	flat_list__free(&fp->list);
	tree_pane__free(&fp->callers_tree);
	stack_trie__free(&fp->callers);
}

/* Scrolls as little as needed to show the selection, keeping it where it was on screen. */
static void scroll(struct flat_pane *fp, long offset)
{
	fp->top = scroll_top(fp->sel, fp->top, fp->list.n, fp->height, offset);
}

void flat_pane__scroll(struct flat_pane *fp)
{
	scroll(fp, -1);
}

static void select_row(struct flat_pane *fp, size_t row)
{
	fp->sel = row;
	fp->sel_frame = row < fp->list.n ? fp->list.entries[row].frame : PROFILE_NONE;
}

void flat_pane__move(struct flat_pane *fp, long delta)
{
	long row = (long)fp->sel + delta;

	if (row >= (long)fp->list.n)
		row = (long)fp->list.n - 1;
	if (row < 0)
		row = 0;
	select_row(fp, (size_t)row);
	scroll(fp, -1);
}

void flat_pane__select_frame(struct flat_pane *fp, uint32_t frame)
{
	long row;

	if (fp->stale) {
		fp->sel_frame = frame; /* flat_pane__rebuilt() finds it */
		return;
	}
	row = flat_list__find(&fp->list, frame);
	if (row >= 0) {
		select_row(fp, (size_t)row);
		scroll(fp, -1);
	}
}

/* Builds the callers of @fp->callers_frame, then its rows. */
static int build_callers(struct flat_pane *fp, const struct stack_trie *t, const struct profile *p)
{
	if (stack_trie__build_callers(&fp->callers, t, p, fp->callers_frame) ||
	    tree_pane__rebuilt(&fp->callers_tree))
		return -ENOMEM;
	return tree_pane__refresh(&fp->callers_tree);
}

int flat_pane__rebuilt(struct flat_pane *fp, const struct stack_trie *t, const struct profile *p)
{
	long offset = (long)fp->sel - (long)fp->top;
	long row;

	if (flat_list__build(&fp->list, t, p))
		return -ENOMEM;
	fp->stale = false;
	row = fp->sel_frame == PROFILE_NONE ? -1 : flat_list__find(&fp->list, fp->sel_frame);
	if (row >= 0)
		fp->sel = (size_t)row;
	else if (fp->sel >= fp->list.n)
		fp->sel = fp->list.n ? fp->list.n - 1 : 0;
	if (row < 0)
		select_row(fp, fp->sel); /* the function is gone: select what took its row */
	scroll(fp, offset);
	return fp->callers_open ? build_callers(fp, t, p) : 0;
}

int flat_pane__open_callers(struct flat_pane *fp, const struct stack_trie *t,
			    const struct profile *p)
{
	if (fp->sel >= fp->list.n)
		return -ENOENT;
	fp->callers_open = true;
	fp->callers_frame = fp->list.entries[fp->sel].frame;
	tree_pane__forget(&fp->callers_tree);
	return build_callers(fp, t, p);
}

void flat_pane__close_callers(struct flat_pane *fp)
{
	fp->callers_open = false;
}

static void draw_callers(struct screen *s, const struct flat_pane *fp, struct screen_rect r,
			 const struct flat_draw *d)
{
	struct tree_draw td = {
		.prof = d->prof,
		.base = d->base,
		.title = "Callers (Esc: back to the list)",
		.root_label = profile__frame_name(d->prof, fp->callers_frame),
		.match = d->match,
		.empty = "no stack passes through this function now",
		.focused = d->focused,
	};
	tree_pane__draw(s, &fp->callers_tree, r, &td);
}

void flat_pane__draw(struct screen *s, const struct flat_pane *fp, struct screen_rect r,
		     const struct flat_draw *d)
{
	struct cell_style title = { .role = ROLE_TITLE, .attr = d->focused ? ATTR_BOLD : 0 };

	if (r.h <= 0)
		return;
	if (fp->callers_open) {
		draw_callers(s, fp, r, d);
		return;
	}
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	numbers__title(s, r.row, r.col, "Self%", "Total%", "Self", title);
	screen__put(s, r.row, r.col + NUMBERS_COLUMNS, r.w - NUMBERS_COLUMNS,
		    "Function (Enter: callers)", title, PUT_DOTS);
	if (!fp->list.n)
		screen__put(s, r.row + 1, r.col + NUMBERS_COLUMNS, r.w - NUMBERS_COLUMNS, d->empty,
			    (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
	for (int i = 1; i < r.h && fp->top + i - 1 < fp->list.n; i++) {
		const struct flat_entry *e = &fp->list.entries[fp->top + i - 1];
		int row = r.row + i;

		numbers__draw(s, row, r.col, e->self, e->total, e->self, d->base);
		frame_label__draw(s, row, r.col + NUMBERS_COLUMNS, r.w - NUMBERS_COLUMNS, d->prof,
				  e->frame, d->match, 0);
		if (fp->top + i - 1 == fp->sel)
			screen__add_attr(s, row, r.col, r.w,
					 ATTR_SELECTED | (d->focused ? ATTR_BOLD : ATTR_DIM));
	}
}
