// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "python/frame_names.h"
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

int flat_pane__rebuilt(struct flat_pane *fp, const struct stack_trie *t, const struct profile *p,
		       enum flat_order order)
{
	long offset = (long)fp->sel - (long)fp->top;
	long row;

	if (flat_list__build(&fp->list, t, p, order))
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

void flat_pane__renumber(struct flat_pane *fp, const struct profile *p)
{
	fp->sel_frame = profile__renumbered(p, fp->sel_frame);
	fp->callers_frame = profile__renumbered(p, fp->callers_frame);
	if (fp->callers_frame == PROFILE_NONE)
		fp->callers_open = false;
	tree_pane__renumber(&fp->callers_tree, p);
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
		.time_us = d->time_us,
	};
	tree_pane__draw(s, &fp->callers_tree, r, &td);
}

/* "[module]" of a kernel frame named "func [module]", or "[kernel]". */
static const char *kernel_object(const char *name)
{
	const char *open = strrchr(name, '[');
	size_t len = strlen(name);

	return open && open > name && open[-1] == ' ' && name[len - 1] == ']' ? open : "[kernel]";
}

void frame_object(const struct profile *p, uint32_t frame, char *buf, size_t size)
{
	const struct frame *f = profile__frame_info(p, frame);
	const char *object = profile__frame_object(p, frame);
	const char *name = profile__frame_name(p, frame);
	const char *plus = strstr(name, "+0x");
	struct py_frame_parts parts;

	if (object)
		snprintf(buf, size, "%s", object);
	else if (f->kind == FRAME_PYTHON && py_frame_name_split(name, strlen(name), &parts))
		snprintf(buf, size, "%.*s", (int)parts.file_len, name + parts.file_at);
	else if (f->kind == FRAME_KERNEL)
		snprintf(buf, size, "%s", kernel_object(name));
	else if (!f->named && plus)
		snprintf(buf, size, "%.*s", (int)(plus - name), name);
	else
		snprintf(buf, size, "%s", f->named ? "" : "[unknown]");
}

/* The shared-object column's width: a quarter of the row, 10 to 24 columns. */
static int object_columns(int w)
{
	int c = (w - NUMBERS_COLUMNS) / 4;

	return c < 10 ? 10 : c > 24 ? 24 : c;
}

static void draw_entry(struct screen *s, int row, struct screen_rect r, const struct flat_entry *e,
		       const struct flat_draw *d)
{
	int objw = object_columns(r.w), x = r.col + NUMBERS_COLUMNS;
	char object[256];

	if (d->order == FLAT_BY_TOTAL)
		numbers__draw(s, row, r.col, e->total, e->self, e->total, d->base, d->time_us);
	else
		numbers__draw(s, row, r.col, e->self, e->total, e->self, d->base, d->time_us);
	frame_object(d->prof, e->frame, object, sizeof(object));
	screen__put(s, row, x, objw - 1, object, (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
	frame_label__draw(s, row, x + objw, r.w - NUMBERS_COLUMNS - objw, d->prof, e->frame,
			  d->match, 0);
}

void flat_pane__draw(struct screen *s, const struct flat_pane *fp, struct screen_rect r,
		     const struct flat_draw *d)
{
	struct cell_style title = { .role = ROLE_TITLE, .attr = d->focused ? ATTR_BOLD : 0 };
	int objw = object_columns(r.w), x = r.col + NUMBERS_COLUMNS;

	if (r.h <= 0)
		return;
	if (fp->callers_open) {
		draw_callers(s, fp, r, d);
		return;
	}
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	/* The first column is the one the list is sorted by. */
	if (d->order == FLAT_BY_TOTAL)
		numbers__title(s, r.row, r.col, "Total%", "Self%", "Total", title);
	else
		numbers__title(s, r.row, r.col, "Self%", "Total%", "Self", title);
	screen__put(s, r.row, x, objw - 1, objw > 14 ? "Shared Object" : "Object", title, PUT_DOTS);
	screen__put(s, r.row, x + objw, r.w - NUMBERS_COLUMNS - objw, "Function (Enter: callers)",
		    title, PUT_DOTS);
	if (!fp->list.n)
		screen__put(s, r.row + 1, x, r.w - NUMBERS_COLUMNS, d->empty,
			    (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
	for (int i = 1; i < r.h && fp->top + i - 1 < fp->list.n; i++) {
		int row = r.row + i;

		draw_entry(s, row, r, &fp->list.entries[fp->top + i - 1], d);
		if (fp->top + i - 1 == fp->sel)
			screen__add_attr(s, row, r.col, r.w,
					 ATTR_SELECTED | (d->focused ? ATTR_BOLD : ATTR_DIM));
	}
}
