// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/header.h"

#define LINE_MAX_BYTES 1024

/* A line of text built piece by piece; what does not fit is dropped. */
struct line {
	char text[LINE_MAX_BYTES];
	size_t len;
};

static void __attribute__((format(printf, 2, 3))) line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->text) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->text) - l->len ? (size_t)n : sizeof(l->text) - 1 - l->len;
}

/* The file's stacks and malformed lines. */
static void file_source(struct line *l, const struct header_info *h)
{
	line_add(l, "file: %s | %" PRIu64 " stacks, ", h->file, h->stacks);
	if (h->bad)
		line_add(l, "%" PRIu64 " malformed line%s skipped (first: line %" PRIu64 ", %s)",
			 h->bad, h->bad == 1 ? "" : "s", h->first_bad_line,
			 h->first_bad_why ? h->first_bad_why : "malformed");
	else
		line_add(l, "no malformed line");
}

/* Line 1: where the data come from. */
static bool source_line(struct line *l, const struct header_state *st)
{
	const struct header_info *h = st->info;

	if (!st->live) {
		file_source(l, h);
		return true;
	}
	line_add(l, "%s: %s", h->mode, h->hook);
	if (h->freq)
		line_add(l, ", %u Hz", h->freq);
	line_add(l, ", %d CPUs | ", h->ncpus);
	if (h->rate < 0)
		line_add(l, "- %s/s", h->event);
	else
		line_add(l, "%.0f %s/s", h->rate, h->event);
	line_add(l, ", %" PRIu64 " lost", h->lost);
	if (h->undrained)
		line_add(l, " (%" PRIu64 " not drained)", h->undrained);
	return true;
}

/* The window and the time it spans. */
static void window_part(struct line *l, const struct header_state *st)
{
	const struct header_info *h = st->info;

	if (st->window == WINDOW_RECENT && h->span > 0)
		line_add(l, "window: recent (last %.1f s)", h->span);
	else if (st->window == WINDOW_RECENT)
		line_add(l, "window: recent (collecting)");
	else if (st->live && h->covered > 0)
		line_add(l, "window: cumulative (%.1f s)", h->covered);
	else
		line_add(l, "window: cumulative");
	if (h->time_us)
		line_add(l, ", %.3f s %s", (double)st->total / 1e6, h->unit);
	else
		line_add(l, ", %" PRIu64 " %s", st->total, h->unit);
	if (st->live && h->folded)
		line_add(l, ", %" PRIu64 " stacks folded (max %zu)", h->folded, h->max_stacks);
}

/* The filters in force and the frames hidden. */
static void filter_part(struct line *l, const struct header_state *st)
{
	line_add(l, " | filters:");
	if (st->ntgids) {
		line_add(l, " pid ");
		for (size_t i = 0; i < st->ntgids; i++)
			line_add(l, "%s%d", i ? "," : "", st->tgids[i]);
	}
	if (st->comm)
		line_add(l, " comm %s", st->comm);
	if (st->text)
		line_add(l, " text \"%s\"", st->text);
	if (!st->ntgids && !st->comm && !st->text)
		line_add(l, " none");
	if (st->hide_kernel && st->hide_user)
		line_add(l, " | hidden: kernel frames, user frames");
	else if (st->hide_kernel || st->hide_user)
		line_add(l, " | hidden: %s frames", st->hide_kernel ? "kernel" : "user");
}

/* Line 2: the window and the filters. */
static bool window_line(struct line *l, const struct header_state *st)
{
	window_part(l, st);
	filter_part(l, st);
	return true;
}

void header__window_line(const struct header_state *h, char *buf, size_t size)
{
	struct line l = { .len = 0 };

	window_line(&l, h);
	snprintf(buf, size, "%.*s", (int)l.len, l.text);
}

/* A live line holding @text, when there is any. */
static bool live_text(struct line *l, const struct header_state *st, const char *text)
{
	if (!st->live || !text || !text[0])
		return false;
	line_add(l, "%s", text);
	return true;
}

/* Line 3, live: how user stacks are walked, and how the last interval's walks ended. */
static bool walks_line(struct line *l, const struct header_state *st)
{
	return live_text(l, st, st->info->walks);
}

/* Line 3, live in off-CPU mode: how long the last interval's waits lasted, in which states. */
static bool offcpu_line(struct line *l, const struct header_state *st)
{
	return live_text(l, st, st->info->offcpu);
}

/* Live, when something kept frames from being named: what (perf maps dropped, files not opened). */
static bool symbols_line(struct line *l, const struct header_state *st)
{
	return live_text(l, st, st->info->symbols);
}

size_t header__hook_line(const struct header_info *info, char *buf, size_t size)
{
	int n = 0;

	if (info->notes && info->notes[0])
		n = snprintf(buf, size, "hook: %s, as better ones failed: %s", info->hook,
			     info->notes);
	else if (size)
		buf[0] = '\0';
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
}

/* The last line, live when a better hook failed: which, and why (in full in the help). */
static bool hook_line(struct line *l, const struct header_state *st)
{
	if (!st->live)
		return false;
	l->len = header__hook_line(st->info, l->text, sizeof(l->text));
	return l->len > 0;
}

/* The header's lines, top to bottom; one that returns false is not shown. */
static bool (*const header_lines[])(struct line *l, const struct header_state *st) = {
	source_line,
	window_line,
	offcpu_line,
	walks_line,
	symbols_line,
	hook_line,
};

#define NLINES (sizeof(header_lines) / sizeof(header_lines[0]))

int header__rows(const struct header_state *h)
{
	struct line l;
	int rows = 0;

	for (size_t i = 0; i < NLINES; i++) {
		l.len = 0;
		rows += header_lines[i](&l, h);
	}
	return rows;
}

void header__draw(struct screen *s, const struct header_state *h)
{
	const struct cell_style st = { .role = ROLE_HEADER };
	const char *state = !h->live ? "FILE" : h->paused ? "PAUSED" : "LIVE";
	int state_w = (int)strlen(state) + 1, row = 0;
	struct line l;

	for (size_t i = 0; i < NLINES; i++) {
		l.len = 0;
		if (!header_lines[i](&l, h))
			continue;
		screen__fill(s, row, 0, s->w, ' ', st);
		screen__put(s, row, 0, row ? s->w : s->w - state_w - 1, l.text, st, PUT_DOTS);
		row++;
	}
	screen__put(s, 0, s->w - state_w, state_w, state,
		    (struct cell_style){ .role = h->paused ? ROLE_ERROR : ROLE_HEADER,
					 .attr = ATTR_BOLD },
		    0);
}
