// SPDX-License-Identifier: GPL-2.0
#include "tui/annotate_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"
#include "tui/frame_label.h"
#include "tui/scroll.h"

#define HEAD_ROWS 4  /* the title, the summary, the note, the column titles */
#define WHERE_MAX 40 /* the widest "file:line" column */
#define NO_ROW SIZE_MAX

void annotate_pane__init(struct annotate_pane *p)
{
	memset(p, 0, sizeof(*p));
}

void annotate_pane__free(struct annotate_pane *p)
{
	annotation__free(&p->ann);
	free(p->rows);
	annotate_pane__init(p);
}

void annotate_pane__close(struct annotate_pane *p)
{
	annotate_pane__free(p);
}

void annotate_pane__open(struct annotate_pane *p, const struct profile *prof, uint32_t frame)
{
	annotate_pane__free(p);
	p->open = true;
	p->loading = true;
	p->want_job = true;
	p->frame = frame;
	p->mode = ANN_LINES;
	snprintf(p->name, sizeof(p->name), "%s", profile__frame_name(prof, frame));
}

void annotate_pane__job_started(struct annotate_pane *p, uint64_t ticket)
{
	p->want_job = false;
	p->ticket = ticket;
}

/* The count of row @i. */
static uint64_t row_count(const struct annotate_pane *p, size_t i)
{
	return annotation__row_count(&p->ann, &p->rows[i]);
}

/* The row with the most counts (the first of equals), or 0. */
static size_t hottest_row(const struct annotate_pane *p)
{
	size_t best = 0;

	for (size_t i = 1; i < p->nrows; i++) {
		if (row_count(p, i) > row_count(p, best))
			best = i;
	}
	return best;
}

/* Scrolls as little as needed to show the selection. */
static void scroll(struct annotate_pane *p)
{
	p->top = scroll_top(p->sel, p->top, p->nrows, p->height, -1);
}

/* Lays out the rows of the pane's annotation in its mode. */
static int make_rows(struct annotate_pane *p)
{
	long n;

	free(p->rows);
	p->rows = NULL;
	p->nrows = p->sel = p->top = 0;
	n = annotation__rows(&p->ann, p->mode, &p->rows);
	if (n < 0)
		return (int)n;
	p->nrows = (size_t)n;
	return 0;
}

/* What the selected row is, to find it in another annotation of the function. */
struct row_key {
	uint8_t kind;
	uint64_t addr;	  /* an instruction's */
	char file[1024];  /* a line's */
	uint32_t line;
};

static void key_of(const struct annotate_pane *p, size_t row, struct row_key *k)
{
	const struct ann_row *r = &p->rows[row];

	memset(k, 0, sizeof(*k));
	k->kind = r->kind;
	if (r->kind == ROW_INSN) {
		k->addr = p->ann.insns[r->index].addr;
		return;
	}
	snprintf(k->file, sizeof(k->file), "%s", p->ann.files[p->ann.lines[r->index].file]);
	k->line = p->ann.lines[r->index].line;
}

/* The row @k names in the pane's rows, or NO_ROW. */
static size_t find_key(const struct annotate_pane *p, const struct row_key *k)
{
	for (size_t i = 0; i < p->nrows; i++) {
		const struct ann_row *r = &p->rows[i];
		const struct ann_line *l;

		if (r->kind != k->kind)
			continue;
		if (r->kind == ROW_INSN) {
			if (p->ann.insns[r->index].addr == k->addr)
				return i;
			continue;
		}
		l = &p->ann.lines[r->index];
		if (l->line == k->line && !strcmp(p->ann.files[l->file], k->file))
			return i;
	}
	return NO_ROW;
}

int annotate_pane__take(struct annotate_pane *p, uint64_t ticket, struct annotation *ann)
{
	bool first = p->loading;
	struct row_key key;
	size_t row;
	int err;

	if (!p->open || ticket != p->ticket) {
		annotation__free(ann);
		return 0;
	}
	if (!first && p->sel < p->nrows)
		key_of(p, p->sel, &key);
	annotation__free(&p->ann);
	p->ann = *ann;
	*ann = (struct annotation){ 0 };
	p->loading = false;
	if (first && !p->ann.has_lines)
		p->mode = ANN_INSNS; /* nothing to read but the instructions */
	err = make_rows(p);
	if (err)
		return err;
	row = first ? NO_ROW : find_key(p, &key);
	p->sel = row != NO_ROW ? row : hottest_row(p);
	scroll(p);
	return 0;
}

void annotate_pane__move(struct annotate_pane *p, long delta)
{
	long row = (long)p->sel + delta;

	if (row >= (long)p->nrows)
		row = (long)p->nrows - 1;
	p->sel = row < 0 ? 0 : (size_t)row;
	scroll(p);
}

/* Is row @a hotter than row @b (more counts; of equals, the one above)? */
static bool hotter(const struct annotate_pane *p, size_t a, size_t b)
{
	uint64_t ca = row_count(p, a), cb = row_count(p, b);

	return ca > cb || (ca == cb && a < b);
}

bool annotate_pane__hot(struct annotate_pane *p, int dir)
{
	size_t best = NO_ROW, sel = p->sel;
	bool sel_counted = sel < p->nrows && row_count(p, sel);

	/* The row next to the selection in heat order: nearest below it (above for dir < 0). */
	for (size_t i = 0; i < p->nrows; i++) {
		if (!row_count(p, i) || i == sel)
			continue;
		if (sel_counted && (dir > 0 ? !hotter(p, sel, i) : !hotter(p, i, sel)))
			continue;
		if (best == NO_ROW || (dir > 0 ? hotter(p, i, best) : hotter(p, best, i)))
			best = i;
	}
	if (best == NO_ROW) { /* past the coolest (the hottest): around to the other end */
		for (size_t i = 0; i < p->nrows; i++) {
			if (row_count(p, i) && (best == NO_ROW || (dir > 0 ? hotter(p, i, best)
									    : hotter(p, best, i))))
				best = i;
		}
	}
	if (best == NO_ROW)
		return false;
	p->sel = best;
	scroll(p);
	return true;
}

/* The line of the selected row, or ANN_NONE. */
static uint32_t selected_line(const struct annotate_pane *p)
{
	const struct ann_row *r = p->sel < p->nrows ? &p->rows[p->sel] : NULL;

	if (!r)
		return ANN_NONE;
	return r->kind == ROW_INSN ? p->ann.insns[r->index].src : r->index;
}

/* The hottest row of line @line in the pane's rows (its instructions, or itself), or NO_ROW. */
static size_t row_of_line(const struct annotate_pane *p, uint32_t line)
{
	size_t best = NO_ROW;

	for (size_t i = 0; line != ANN_NONE && i < p->nrows; i++) {
		const struct ann_row *r = &p->rows[i];
		uint32_t of = r->kind == ROW_INSN ? p->ann.insns[r->index].src : r->index;

		if (r->kind != ROW_SOURCE && of == line && (best == NO_ROW || hotter(p, i, best)))
			best = i;
	}
	return best;
}

int annotate_pane__toggle(struct annotate_pane *p)
{
	uint32_t line = selected_line(p);
	size_t row;
	int err;

	if (p->ann.lines_only)
		return -EOPNOTSUPP;
	p->mode = p->mode == ANN_LINES ? ANN_INSNS : ANN_LINES;
	err = make_rows(p);
	if (err)
		return err;
	row = row_of_line(p, line);
	p->sel = row != NO_ROW ? row : hottest_row(p);
	scroll(p);
	return 0;
}

void annotate_pane__renumber(struct annotate_pane *p, const struct profile *prof)
{
	if (!p->open)
		return;
	p->frame = profile__renumbered(prof, p->frame);
	if (p->frame == PROFILE_NONE)
		annotate_pane__close(p);
}

void annotate_pane__layout(struct annotate_pane *p, int height)
{
	p->height = height - HEAD_ROWS - 1 > 0 ? height - HEAD_ROWS - 1 : 1;
	scroll(p);
}

/* How an annotation is drawn: the rows, which is selected, from which. */
struct draw_rows {
	const struct annotation *a;
	enum ann_mode mode;
	const struct ann_row *rows;
	size_t nrows, top, sel; /* sel NO_ROW: none */
	int where_w;		/* the "file:line" or address column's width */
};

/* "msort.c:47" of line @l, into @buf. */
static void line_where(const struct annotation *a, const struct ann_line *l, char *buf,
		       size_t size)
{
	snprintf(buf, size, "%s:%" PRIu32, annotation__file_name(a, l->file), l->line);
}

/* The width of the rows' address or "file:line" column, its title's at least. */
static int where_width(const struct annotation *a, enum ann_mode mode, const struct ann_row *rows,
		       size_t n)
{
	char buf[WHERE_MAX * 4];
	int w = text__columns(mode == ANN_LINES ? "Line" : "Address");

	for (size_t i = 0; i < n; i++) {
		int len;

		if (rows[i].kind == ROW_INSN)
			snprintf(buf, sizeof(buf), "%" PRIx64 ":", a->insns[rows[i].index].addr);
		else
			line_where(a, &a->lines[rows[i].index], buf, sizeof(buf));
		len = text__columns(buf);
		if (rows[i].kind != ROW_SOURCE && len > w)
			w = len;
	}
	return w < WHERE_MAX ? w : WHERE_MAX;
}

/* Draws row @i of @dr at screen row @row of @r. */
static void draw_row(struct screen *s, struct screen_rect r, int row, const struct draw_rows *dr,
		     size_t i, const struct annotate_draw *d)
{
	const struct ann_row *ar = &dr->rows[i];
	const struct annotation *a = dr->a;
	struct cell_style text = { .role = ROLE_TEXT };
	int x = r.col + NUMBERS_COLUMNS;
	char where[WHERE_MAX * 4];

	if (ar->kind == ROW_SOURCE) { /* the line above its instructions */
		line_where(a, &a->lines[ar->index], where, sizeof(where));
		text.attr = ATTR_DIM;
		x += screen__put(s, row, x, r.w - NUMBERS_COLUMNS, where, text, PUT_DOTS);
		x += screen__put(s, row, x, 2, "  ", text, 0);
		screen__put(s, row, x, r.col + r.w - x, a->lines[ar->index].text ?: "", text,
			    PUT_DOTS);
	} else {
		uint64_t self = ar->kind == ROW_LINE ? a->lines[ar->index].self
						     : a->insns[ar->index].self;
		uint64_t calls = ar->kind == ROW_LINE ? a->lines[ar->index].calls
						      : a->insns[ar->index].calls;
		const char *body = ar->kind == ROW_LINE ? a->lines[ar->index].text ?: ""
							: a->insns[ar->index].text;

		numbers__draw(s, row, r.col, self, calls, self + calls, a->self + a->calls,
			      d->time_us);
		if (ar->kind == ROW_LINE)
			line_where(a, &a->lines[ar->index], where, sizeof(where));
		else
			snprintf(where, sizeof(where), "%" PRIx64 ":", a->insns[ar->index].addr);
		screen__put(s, row, x, dr->where_w, where, (struct cell_style){ .attr = ATTR_DIM },
			    PUT_DOTS);
		x += dr->where_w + 2;
		screen__put(s, row, x, r.col + r.w - x, body, text, PUT_DOTS);
	}
	if (i == dr->sel)
		screen__add_attr(s, row, r.col, r.w, ATTR_SELECTED);
}

/* A count as the view says it: a time with @d->time_us, else the number. */
static void amount(char *buf, uint64_t v, const struct annotate_draw *d)
{
	if (d->time_us)
		format_time_us(buf, v);
	else
		snprintf(buf, COUNT_COLUMNS + 1, "%" PRIu64, v);
}

/* The counts the rows of @mode hold. */
static uint64_t rows_count(const struct annotation *a, enum ann_mode mode)
{
	uint64_t sum = 0;

	if (mode == ANN_LINES) {
		for (size_t i = 0; i < a->nlines; i++)
			sum += a->lines[i].self + a->lines[i].calls;
	} else {
		for (size_t i = 0; i < a->ninsns; i++)
			sum += a->insns[i].self + a->insns[i].calls;
	}
	return sum;
}

/*
 * What the view accounts for, into @buf: "1234 samples: 200 in it, 1034
 * through its calls; its lines hold 99.5% (6 at addresses with no line)".
 */
static void summary(const struct annotation *a, enum ann_mode mode, const struct annotate_draw *d,
		    char *buf, size_t size)
{
	uint64_t total = a->self + a->calls, shown = rows_count(a, mode);
	char all[COUNT_COLUMNS + 1], self[COUNT_COLUMNS + 1], calls[COUNT_COLUMNS + 1];
	struct textbuf t;

	amount(all, total, d);
	amount(self, a->self, d);
	amount(calls, a->calls, d);
	textbuf__start(&t, buf, size);
	textbuf__add(&t, "%s %s%s: %s in it, %s through its calls", all,
		     d->time_us ? "off the CPU" : d->event, d->live ? " (since the start or r)" : "",
		     self, calls);
	if (!total)
		return;
	textbuf__add(&t, "; its %s hold %.1f%%", mode == ANN_LINES ? "lines" : "instructions",
		     100.0 * (double)shown / (double)total);
	textbuf__list(&t, " (");
	if (mode == ANN_LINES && a->no_line)
		textbuf__item(&t, "%" PRIu64 " at addresses with no line", a->no_line);
	if (a->outside)
		textbuf__item(&t, "%" PRIu64 " outside its code", a->outside);
	if (a->folded)
		textbuf__item(&t, "%" PRIu64 " at addresses folded away (--max-stacks)", a->folded);
	textbuf__end_list(&t, ")");
}

/* The one line of explanation the mode shows, or "". */
static const char *note_of(const struct annotation *a, enum ann_mode mode)
{
	if (mode == ANN_INSNS && a->insns_note[0])
		return a->insns_note;
	return a->lines_note;
}

/* Draws the title, the summary, the note and the column titles from @r's first row. */
static void draw_head(struct screen *s, struct screen_rect r, const struct draw_rows *dr,
		      const struct annotate_draw *d)
{
	struct cell_style title = { .role = ROLE_TITLE, .attr = ATTR_BOLD };
	const struct annotation *a = dr->a;
	char line[1024];

	snprintf(line, sizeof(line), "Annotate %s in %s%s%s", a->function, a->object,
		 a->build_id[0] ? " | build-id " : "", a->build_id);
	screen__put(s, r.row, r.col, r.w, line, title, PUT_DOTS);
	summary(a, dr->mode, d, line, sizeof(line));
	screen__put(s, r.row + 1, r.col, r.w, line, (struct cell_style){ .role = ROLE_TEXT },
		    PUT_DOTS);
	screen__put(s, r.row + 2, r.col, r.w, note_of(a, dr->mode),
		    (struct cell_style){ .role = ROLE_ERROR }, PUT_DOTS);
	title.attr = 0;
	numbers__title(s, r.row + 3, r.col, "Self%", "Calls%", d->time_us ? "Time" : "Count",
		       title);
	screen__put(s, r.row + 3, r.col + NUMBERS_COLUMNS, dr->where_w + 2,
		    dr->mode == ANN_LINES ? "Line" : "Address", title, PUT_DOTS);
	screen__put(s, r.row + 3, r.col + NUMBERS_COLUMNS + dr->where_w + 2,
		    r.w - NUMBERS_COLUMNS - dr->where_w - 2,
		    dr->mode == ANN_LINES ? "Source" : "Instruction", title, PUT_DOTS);
}

/* The pane's keys, on its last row (i but for code with lines alone). */
static void draw_keys(struct screen *s, int row, struct screen_rect r, enum ann_mode mode,
		      bool lines_only)
{
	const struct cell_style key = { .role = ROLE_KEY, .attr = ATTR_BOLD };
	const struct cell_style what = { .role = ROLE_STATUS };
	const char *hints[][2] = {
		{ "n/N", "next/previous hot row" },
		{ "i", mode == ANN_LINES ? "instructions" : "source lines" },
		{ "q/Esc", "back" },
	};
	int x = r.col;

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		if (lines_only && !strcmp(hints[i][0], "i"))
			continue;
		x += screen__put(s, row, x, r.col + r.w - x, hints[i][0], key, 0);
		x += screen__put(s, row, x, r.col + r.w - x, " ", what, 0);
		x += screen__put(s, row, x, r.col + r.w - x, hints[i][1], what, 0);
		x += screen__put(s, row, x, r.col + r.w - x, "  ", what, 0);
	}
}

/* Draws @dr's rows from @r's row @from, as many as fit in @height. */
static void draw_rows(struct screen *s, struct screen_rect r, int from, int height,
		      const struct draw_rows *dr, const struct annotate_draw *d)
{
	for (int k = 0; k < height && dr->top + (size_t)k < dr->nrows; k++)
		draw_row(s, r, from + k, dr, dr->top + (size_t)k, d);
}

void annotate_pane__draw(struct screen *s, struct screen_rect r, const struct annotate_pane *p,
			 const struct annotate_draw *d)
{
	struct draw_rows dr = { &p->ann, p->mode, p->rows, p->nrows, p->top, p->sel, 0 };
	char line[512];

	if (r.h <= 0)
		return;
	if (p->loading) {
		snprintf(line, sizeof(line), "Annotate %s: loading its lines and instructions...",
			 p->name);
		screen__put(s, r.row, r.col, r.w, line, (struct cell_style){ .role = ROLE_TITLE },
			    PUT_DOTS);
		draw_keys(s, r.row + r.h - 1, r, p->mode, p->ann.lines_only);
		return;
	}
	dr.where_w = where_width(&p->ann, p->mode, p->rows, p->nrows);
	draw_head(s, r, &dr, d);
	if (!p->nrows)
		screen__put(s, r.row + HEAD_ROWS, r.col, r.w,
			    p->mode == ANN_LINES ? "no line holds a count (i: the instructions)"
						 : "no instruction to show",
			    (struct cell_style){ .role = ROLE_TEXT }, PUT_DOTS);
	draw_rows(s, r, r.row + HEAD_ROWS, r.h - HEAD_ROWS - 1, &dr, d);
	draw_keys(s, r.row + r.h - 1, r, p->mode, p->ann.lines_only);
}

char *annotate_text(const struct annotation *a, enum ann_mode mode, const struct annotate_draw *d,
		    int width)
{
	struct draw_rows dr = { a, mode, NULL, 0, 0, NO_ROW, 0 };
	struct screen s = { 0 };
	long n = annotation__rows(a, mode, (struct ann_row **)&dr.rows);
	char *text = NULL;
	int height;

	if (n < 0)
		return NULL;
	dr.nrows = (size_t)n;
	dr.where_w = where_width(a, mode, dr.rows, dr.nrows);
	height = HEAD_ROWS + (n ? (int)n : 1);
	if (!screen__resize(&s, width, height)) {
		struct screen_rect r = { 0, 0, width, height };

		draw_head(&s, r, &dr, d);
		draw_rows(&s, r, HEAD_ROWS, height - HEAD_ROWS, &dr, d);
		text = screen__to_text(&s);
	}
	screen__free(&s);
	free((void *)dr.rows);
	return text;
}
