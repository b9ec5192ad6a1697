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

/*
 * How much a line may leave out to fit the screen's width, each level more
 * than the one before; the figures stay, the lost events the last.
 * header__draw() takes the first level that fits.
 */
enum compact {
	COMPACT_NONE,
	COMPACT_LABELS,  /* the hook, "window:" and "filters:" go */
	COMPACT_UNIT,    /* and the unit after the window's count */
	COMPACT_SPAN,    /* and the time the window spans, the folds, the rate's CPUs */
	COMPACT_WORDS,   /* and the words of the shares' base and of the side shown */
	COMPACT_NR,
};

/*
 * Line 1: where the data come from; the lost events are the last to go
 * ("sample: perf_event cpu-clock, 99 Hz, 2 CPUs | 197 samples/s, 0 lost",
 * then without the hook, then without the rate and the CPUs).
 */
static bool source_line(struct line *l, const struct header_state *st, int compact)
{
	const struct header_info *h = st->info;
	const struct header_window *w = &h->win[st->window];

	if (!st->live) {
		file_source(l, h);
		return true;
	}
	line_add(l, "%s", h->mode);
	if (compact == COMPACT_NONE)
		line_add(l, ": %s", h->hook);
	if (h->freq && compact < COMPACT_SPAN)
		line_add(l, ", %u Hz", h->freq);
	if (compact < COMPACT_SPAN)
		line_add(l, ", %d CPUs", h->ncpus);
	line_add(l, " | ");
	if (w->rate < 0)
		line_add(l, "- %s/s", h->event);
	else
		line_add(l, "%.0f %s/s", w->rate, h->event);
	line_add(l, ", %" PRIu64 " lost", w->lost);
	if (w->undrained)
		line_add(l, " (%" PRIu64 " not drained)", w->undrained);
	return true;
}

/* A count of the window's unit: "395", or "1.234 s" of off-CPU time. */
static void count_part(struct line *l, const struct header_info *h, uint64_t count)
{
	if (h->time_us)
		line_add(l, "%.3f s", (double)count / 1e6);
	else
		line_add(l, "%" PRIu64, count);
}

static bool filtered(const struct header_state *st)
{
	return st->ntgids || st->comm || st->text;
}

/*
 * The window, the time it spans and what it counted: through the filters,
 * and of all when they leave some out ("395 of 1020 samples").
 */
static void window_part(struct line *l, const struct header_state *st, int compact)
{
	const struct header_info *h = st->info;

	line_add(l, "%s", compact ? "" : "window: ");
	if (st->window == WINDOW_RECENT && h->span > 0 && compact < COMPACT_SPAN)
		line_add(l, "recent (last %.1f s)", h->span);
	else if (st->window == WINDOW_RECENT)
		line_add(l, "recent%s", h->span > 0 ? "" : " (collecting)");
	else if (st->live && h->covered > 0 && compact < COMPACT_SPAN)
		line_add(l, "cumulative (%.1f s)", h->covered);
	else
		line_add(l, "cumulative");
	line_add(l, ", ");
	count_part(l, h, st->total);
	if (filtered(st) && st->whole != st->total) {
		line_add(l, " of ");
		count_part(l, h, st->whole);
	}
	if (compact < COMPACT_UNIT)
		line_add(l, " %s", h->unit);
	if (st->live && h->folded && compact < COMPACT_SPAN)
		line_add(l, ", %" PRIu64 " stacks folded (max %zu)", h->folded, h->max_stacks);
}

/* The pid filter. */
static void pids_part(struct line *l, const struct header_state *st)
{
	line_add(l, " pid ");
	for (size_t i = 0; i < st->ntgids; i++)
		line_add(l, "%s%d", i ? "," : "", st->tgids[i]);
}

/* The pid filter's processes that have exited ("pid 34 exited", "pids 12,34 exited"). */
static void exited_part(struct line *l, const struct header_state *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->ntgids && i < 64; i++)
		n += st->exited >> i & 1;
	if (!n)
		return;
	line_add(l, " | pid%s ", n > 1 ? "s" : "");
	for (size_t i = 0, k = 0; i < st->ntgids && i < 64; i++) {
		if (st->exited >> i & 1)
			line_add(l, "%s%d", k++ ? "," : "", st->tgids[i]);
	}
	line_add(l, " exited");
}

/*
 * The filters in force (and that shares are of what they keep), and the
 * side of the stacks shown when one only.
 */
static void filter_part(struct line *l, const struct header_state *st, int compact)
{
	if (!filtered(st)) {
		line_add(l, " | %s", compact ? "no filter" : "filters: none");
	} else {
		line_add(l, " |%s", compact ? "" : " filters:");
		if (st->ntgids)
			pids_part(l, st);
		if (st->comm)
			line_add(l, " comm %s", st->comm);
		if (st->text)
			line_add(l, " text \"%s\"", st->text);
		exited_part(l, st);
		line_add(l, " | %% of the filtered%s%s", compact < COMPACT_WORDS ? " " : "",
			 compact < COMPACT_WORDS ? st->info->unit : "");
	}
	if (st->hide_kernel != st->hide_user)
		line_add(l, " | %s %s", st->hide_user ? "kernel" : "user",
			 compact < COMPACT_WORDS ? "frames only" : "only");
}

/*
 * Line 2: the window and the filters ("window: recent (last 2.0 s), 395 of
 * 1020 samples | filters: pid 12 | % of the filtered samples | kernel
 * frames only").
 */
static bool window_line(struct line *l, const struct header_state *st, int compact)
{
	window_part(l, st, compact);
	filter_part(l, st, compact);
	return true;
}

void header__window_line(const struct header_state *h, char *buf, size_t size)
{
	struct line l = { .len = 0 };

	window_line(&l, h, COMPACT_NONE);
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

/* Live: how user stacks are walked, and how the window's walks ended. */
static bool walks_line(struct line *l, const struct header_state *st, int compact)
{
	(void)compact;
	return live_text(l, st, st->info->win[st->window].walks);
}

/* Live in off-CPU mode: how long the window's waits lasted, in which states. */
static bool offcpu_line(struct line *l, const struct header_state *st, int compact)
{
	(void)compact;
	return live_text(l, st, st->info->win[st->window].offcpu);
}

/* Live, when something kept frames from being named: what (perf maps dropped, files not opened). */
static bool symbols_line(struct line *l, const struct header_state *st, int compact)
{
	(void)compact;
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
static bool hook_line(struct line *l, const struct header_state *st, int compact)
{
	(void)compact;
	if (!st->live)
		return false;
	l->len = header__hook_line(st->info, l->text, sizeof(l->text));
	return l->len > 0;
}

/* The header's lines, top to bottom; one that returns false is not shown. */
static bool (*const header_lines[])(struct line *l, const struct header_state *st, int compact) = {
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
		rows += header_lines[i](&l, h, COMPACT_NONE);
	}
	return rows;
}

/* Makes line @i of @h in @l, as whole as fits in @width columns; false when not shown. */
static bool fitted_line(struct line *l, size_t i, const struct header_state *h, int width)
{
	for (int compact = COMPACT_NONE; compact < COMPACT_NR; compact++) {
		l->len = 0;
		if (!header_lines[i](l, h, compact))
			return false;
		if (text__columns(l->text) <= width)
			break;
	}
	return true;
}

void header__draw(struct screen *s, const struct header_state *h)
{
	const struct cell_style st = { .role = ROLE_HEADER };
	const char *state = !h->live ? "FILE" : h->paused ? "PAUSED" : "LIVE";
	int state_w = (int)strlen(state) + 1, row = 0;
	struct line l;

	for (size_t i = 0; i < NLINES; i++) {
		int width = row ? s->w : s->w - state_w - 1;

		if (!fitted_line(&l, i, h, width))
			continue;
		screen__fill(s, row, 0, s->w, ' ', st);
		screen__put(s, row, 0, width, l.text, st, PUT_DOTS);
		row++;
	}
	screen__put(s, 0, s->w - state_w, state_w, state,
		    (struct cell_style){ .role = h->paused ? ROLE_ERROR : ROLE_HEADER,
					 .attr = ATTR_BOLD },
		    0);
}
