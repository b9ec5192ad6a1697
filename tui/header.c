// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/actions.h"
#include "tui/frame_label.h"
#include "tui/header.h"
#include "tui/view.h"

#define LINE_MAX_BYTES 1024
#define HELP_COLUMN_WIDTH 40
#define HELP_LABEL_WIDTH 8

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

static bool has_walks(const struct view *v)
{
	return v->live && v->info.walks && v->info.walks[0];
}

static bool has_notes(const struct view *v)
{
	return v->live && v->info.notes && v->info.notes[0];
}

int header__rows(const struct view *v)
{
	return 2 + has_walks(v) + has_notes(v);
}

static void source_line(struct line *l, const struct view *v)
{
	const struct header_info *h = &v->info;

	if (!v->live) {
		line_add(l, "file: %s | %" PRIu64 " stacks, ", h->file, h->stacks);
		if (h->bad)
			line_add(l, "%" PRIu64 " malformed line%s skipped (first: line %" PRIu64 ", %s)",
				 h->bad, h->bad == 1 ? "" : "s", h->first_bad_line,
				 h->first_bad_why ? h->first_bad_why : "malformed");
		else
			line_add(l, "no malformed line");
		return;
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
}

static void filter_line(struct line *l, const struct view *v)
{
	uint64_t total = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0;
	const char *sep = "";

	if (v->window == WINDOW_RECENT)
		line_add(l, "window: recent (last %.1f s)", v->delay);
	else
		line_add(l, "window: cumulative");
	line_add(l, ", %" PRIu64 " %s | filters:", total, v->info.unit);
	if (v->ntgids) {
		line_add(l, " pid ");
		for (size_t i = 0; i < v->ntgids; i++)
			line_add(l, "%s%d", i ? "," : "", v->tgids[i]);
	}
	if (v->comm[0])
		line_add(l, " comm %s", v->comm);
	if (v->text[0])
		line_add(l, " text \"%s\"", v->text);
	if (!view__filtered(v))
		line_add(l, " none");
	if (v->hide_kernel || v->hide_user) {
		line_add(l, " | hidden:");
		if (v->hide_kernel) {
			line_add(l, " kernel frames");
			sep = ",";
		}
		if (v->hide_user)
			line_add(l, "%s user frames", sep);
	}
}

void header__filters(const struct view *v, char *buf, size_t size)
{
	struct line l = { .len = 0 };

	filter_line(&l, v);
	snprintf(buf, size, "%.*s", (int)l.len, l.text);
}

void header__draw(struct screen *s, const struct view *v)
{
	const struct cell_style st = { .role = ROLE_HEADER };
	const char *state = !v->live ? "FILE" : v->paused ? "PAUSED" : "LIVE";
	int state_w = (int)strlen(state) + 1;
	struct line l = { .len = 0 };

	for (int row = 0; row < header__rows(v); row++)
		screen__fill(s, row, 0, s->w, ' ', st);
	source_line(&l, v);
	screen__put(s, 0, 0, s->w - state_w - 1, l.text, st, PUT_DOTS);
	screen__put(s, 0, s->w - state_w, state_w, state,
		    (struct cell_style){ .role = v->paused ? ROLE_ERROR : ROLE_HEADER,
					 .attr = ATTR_BOLD },
		    0);
	l.len = 0;
	filter_line(&l, v);
	screen__put(s, 1, 0, s->w, l.text, st, PUT_DOTS);
	if (has_walks(v))
		screen__put(s, 2, 0, s->w, v->info.walks, st, PUT_DOTS);
	if (has_notes(v)) {
		l.len = 0;
		line_add(&l, "hook: %s, as better ones failed: %s", v->info.hook, v->info.notes);
		screen__put(s, 1 + header__rows(v) - 2, 0, s->w, l.text, st, PUT_DOTS);
	}
}

static const char *prompt_label(enum prompt_kind kind)
{
	switch (kind) {
	case PROMPT_PID:
		return "Only pids (comma-separated; empty: all): ";
	case PROMPT_COMM:
		return "Only the command named (empty: all): ";
	case PROMPT_SEARCH:
		return "Only stacks with a frame containing (empty: all): ";
	case PROMPT_DELAY:
		return "Refresh every (seconds, 0.1 to 3600): ";
	case PROMPT_SAVE:
		return "Save as (.folded, .svg flame graph, .pb.gz pprof): ";
	default:
		return "";
	}
}

struct hint {
	const char *key, *what;
	bool live_only;
};

static const struct hint hints[] = {
	{ "?", "Help", false },	  { "q", "Quit", false },     { "Tab", "View", false },
	{ "/", "Search", false }, { "p", "Pid", false },      { "c", "Comm", false },
	{ "K", "Kernel", false }, { "U", "User", false },     { "m", "Mode", true },
	{ "Space", "Pause", true }, { "z", "Window", true }, { "s", "Save", false },
};

/* The main keys, as many as fit whole. */
static void draw_hints(struct screen *s, const struct view *v, int row)
{
	const struct cell_style key = { .role = ROLE_KEY, .attr = ATTR_BOLD };
	const struct cell_style what = { .role = ROLE_STATUS };
	int x = 0;

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		int width = text__columns(hints[i].key) + 1 + text__columns(hints[i].what);

		if (hints[i].live_only && !v->live)
			continue;
		if (x + width > s->w)
			break;
		x += screen__put(s, row, x, width, hints[i].key, key, 0);
		x += screen__put(s, row, x, 1, " ", what, 0);
		x += screen__put(s, row, x, width, hints[i].what, what, 0);
		x += screen__put(s, row, x, 2, "  ", what, 0);
	}
}

void status__draw(struct screen *s, const struct view *v, int row)
{
	struct cell_style st = { .role = ROLE_STATUS };
	int x;

	screen__fill(s, row, 0, s->w, ' ', st);
	if (v->prompt != PROMPT_NONE) {
		int room;

		x = screen__put(s, row, 0, s->w, prompt_label(v->prompt), st, 0);
		/* Input is printable ASCII: one column a byte. Its end stays in sight. */
		room = s->w - x - 1 > 0 ? s->w - x - 1 : 0;
		x += screen__put(s, row, x, room,
				 v->input + (v->input_len > (size_t)room ? v->input_len - room : 0), st,
				 0);
		screen__fill(s, row, x, 1, ' ', (struct cell_style){ ROLE_STATUS, 0, ATTR_SELECTED });
		return;
	}
	if (v->message[0]) {
		st.role = v->message_is_error ? ROLE_ERROR : ROLE_STATUS;
		screen__put(s, row, 0, s->w, v->message, st, PUT_DOTS);
		return;
	}
	draw_hints(s, v, row);
}

static const char *const legend[] = {
	"name [k], {name} in the icicle: a kernel frame",
	"[+] collapsed, [-] expanded, --- a leaf",
	"Total%: the stacks through a frame; Self%: ending in it",
};

void help__draw(struct screen *s, struct screen_rect r, bool live)
{
	const struct cell_style title = { .role = ROLE_TITLE, .attr = ATTR_BOLD };
	const struct cell_style key = { .role = ROLE_KEY, .attr = ATTR_BOLD };
	size_t n, shown = 0, nlegend = sizeof(legend) / sizeof(legend[0]);
	const struct key_binding *b = actions__bindings(&n);
	int columns = r.w / HELP_COLUMN_WIDTH > 0 ? r.w / HELP_COLUMN_WIDTH : 1;
	int rows = r.h - 2 - (int)nlegend, per_column;

	screen__fill(s, r.row, r.col, r.w, ' ', title);
	screen__put(s, r.row, r.col, r.w, "Keys (any key closes this help)", title, PUT_DOTS);
	for (size_t i = 0; i < n; i++)
		shown += live || !b[i].live_only;
	per_column = (int)(shown + columns - 1) / columns;
	if (rows < 1)
		rows = 1;
	if (per_column > rows)
		per_column = rows;
	shown = 0;
	for (size_t i = 0; i < n; i++) {
		int row, col;

		if (!live && b[i].live_only)
			continue;
		row = r.row + 1 + (int)shown % per_column;
		col = r.col + (int)shown / per_column * HELP_COLUMN_WIDTH;
		shown++;
		if (col + HELP_COLUMN_WIDTH > r.col + r.w && col > r.col)
			break;
		screen__put(s, row, col + 1, HELP_LABEL_WIDTH, b[i].label, key, 0);
		screen__put(s, row, col + 2 + HELP_LABEL_WIDTH, HELP_COLUMN_WIDTH - 3 - HELP_LABEL_WIDTH,
			    b[i].what,
			    (struct cell_style){ 0 }, PUT_DOTS);
	}
	for (size_t i = 0; i < nlegend; i++)
		screen__put(s, r.row + r.h - (int)(nlegend - i), r.col + 1, r.w - 1, legend[i],
			    (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
}
