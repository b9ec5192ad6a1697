// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "tui/help_view.h"

#define COLUMN_WIDTH 40
#define LABEL_WIDTH 8
#define MAX_TEXT_LINES 64
#define MAX_LINE_BYTES 1024

static const char *const legend[] = {
	"name [k], {name} in the icicle: a kernel frame",
	"[+] collapsed, [-] expanded, --- a leaf",
	"Total%: the stacks through a frame; Self%: ending in it",
	"python3 [1234]: a process; python3 [1234/1240]: a thread (P groups)",
	"a annotates a function: Self% the samples at a line, Calls% its calls' time;",
	"  there n/N go to the next/previous hot row, i to its instructions, q back",
	"outer (app.py:12): a Python function at that line (a: all its lines, no i);",
	"  under Python frames the interpreter's own (_PyEval_EvalFrameDefault,",
	"  *_Vectorcall...) hide until I",
	"Ctrl-C quits at once (as SIGTERM, SIGHUP); Ctrl-Z stops, fg draws again",
};

/* Keys the terminal makes signals of: not bound, but --help lists them with the others. */
static const struct {
	const char *label, *what;
} signal_keys[] = {
	{ "Ctrl-C", "quit at once (SIGTERM, SIGHUP too)" },
	{ "Ctrl-Z", "stop; fg draws the screen again" },
};

#define NLEGEND (sizeof(legend) / sizeof(legend[0]))

/* A line of text below the keys: @len bytes of @text. */
struct text_line {
	const char *text;
	int len;
};

static bool shown(const struct help_content *c, size_t i)
{
	return c->live || !c->keys[i].live_only;
}

static int columns_of(int width)
{
	return width / COLUMN_WIDTH > 0 ? width / COLUMN_WIDTH : 1;
}

/* Rows of keys, in columns of COLUMN_WIDTH. */
static int key_rows(const struct help_content *c, int width)
{
	int n = 0;

	for (size_t i = 0; i < c->nkeys; i++)
		n += shown(c, i);
	return (n + columns_of(width) - 1) / columns_of(width);
}

/* Cuts @text into lines of at most @width bytes, at a blank where there is one. */
static int wrap(const char *text, int width, struct text_line *out, int max)
{
	int n = 0, len = (int)strlen(text);

	while (len > 0 && n < max) {
		int cut = len;

		if (cut > width) {
			cut = width;
			while (cut > width / 2 && text[cut] != ' ')
				cut--;
			if (text[cut] != ' ')
				cut = width;
		}
		out[n++] = (struct text_line){ text, cut };
		while (cut < len && text[cut] == ' ')
			cut++;
		text += cut;
		len -= cut;
	}
	return n;
}

/* The lines below the keys: a blank, the legend, then the hook line wrapped. */
static int text_lines(const struct help_content *c, int width, struct text_line *out)
{
	int n = 0;

	out[n++] = (struct text_line){ "", 0 };
	for (size_t i = 0; i < NLEGEND; i++)
		out[n++] = (struct text_line){ legend[i], (int)strlen(legend[i]) };
	if (c->hook_line && c->hook_line[0]) {
		int w = width - 2 < MAX_LINE_BYTES - 1 ? width - 2 : MAX_LINE_BYTES - 1;

		out[n++] = (struct text_line){ "", 0 };
		n += wrap(c->hook_line, w > 1 ? w : 1, out + n, MAX_TEXT_LINES - n);
	}
	return n;
}

int help__rows(const struct help_content *c, int width)
{
	struct text_line lines[MAX_TEXT_LINES];

	return key_rows(c, width) + text_lines(c, width, lines);
}

/* Draws binding @b at body row @row, column @col of @r (rows above @r's body are skipped). */
static void draw_key(struct screen *s, struct screen_rect r, int row, int col,
		     const struct key_binding *b)
{
	const struct cell_style key = { .role = ROLE_KEY, .attr = ATTR_BOLD };
	int x = r.col + col * COLUMN_WIDTH;

	if (row < r.row + 1 || row >= r.row + r.h)
		return;
	screen__put(s, row, x + 1, LABEL_WIDTH, b->label, key, 0);
	screen__put(s, row, x + 2 + LABEL_WIDTH, COLUMN_WIDTH - 3 - LABEL_WIDTH, b->what,
		    (struct cell_style){ 0 }, PUT_DOTS);
}

void help__draw(struct screen *s, struct screen_rect r, const struct help_content *c, int top)
{
	const struct cell_style title = { .role = ROLE_TITLE, .attr = ATTR_BOLD };
	struct text_line lines[MAX_TEXT_LINES];
	int krows = key_rows(c, r.w), nlines = text_lines(c, r.w, lines), k = 0;

	if (r.h <= 0)
		return;
	screen__fill(s, r.row, r.col, r.w, ' ', title);
	screen__put(s, r.row, r.col, r.w, "Keys (q or Esc closes this help; arrows scroll it)",
		    title, PUT_DOTS);
	for (size_t i = 0; i < c->nkeys; i++) {
		if (!shown(c, i))
			continue;
		draw_key(s, r, r.row + 1 + k % krows - top, k / krows, &c->keys[i]);
		k++;
	}
	for (int i = 0; i < nlines; i++) {
		int row = r.row + 1 + krows + i - top;
		char buf[MAX_LINE_BYTES];

		if (row < r.row + 1 || row >= r.row + r.h)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", lines[i].len, lines[i].text);
		screen__put(s, row, r.col + 1, r.w - 1, buf,
			    (struct cell_style){ .attr = ATTR_DIM }, PUT_DOTS);
	}
}

void help__print_keys(FILE *out, const struct key_binding *keys, size_t nkeys)
{
	fputs("\nKeys on the screen (? shows them there; man flametop tells each):\n", out);
	for (size_t i = 0; i < nkeys; i++)
		fprintf(out, "  %-*s  %s%s\n", LABEL_WIDTH, keys[i].label, keys[i].what,
			keys[i].live_only ? " (live)" : "");
	for (size_t i = 0; i < sizeof(signal_keys) / sizeof(signal_keys[0]); i++)
		fprintf(out, "  %-*s  %s\n", LABEL_WIDTH, signal_keys[i].label,
			signal_keys[i].what);
}
