// SPDX-License-Identifier: GPL-2.0
#include "tui/status_line.h"

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
static void draw_hints(struct screen *s, int row, bool live)
{
	const struct cell_style key = { .role = ROLE_KEY, .attr = ATTR_BOLD };
	const struct cell_style what = { .role = ROLE_STATUS };
	int x = 0;

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		int width = text__columns(hints[i].key) + 1 + text__columns(hints[i].what);

		if (hints[i].live_only && !live)
			continue;
		if (x + width > s->w)
			break;
		x += screen__put(s, row, x, width, hints[i].key, key, 0);
		x += screen__put(s, row, x, 1, " ", what, 0);
		x += screen__put(s, row, x, width, hints[i].what, what, 0);
		x += screen__put(s, row, x, 2, "  ", what, 0);
	}
}

/*
 * The prompt's text from column @x: the part around the cursor that fits
 * (its end in sight while the cursor is there), selected while pristine,
 * and the cursor's cell highlighted.
 */
static void draw_input(struct screen *s, int row, int x, const struct prompt_input *in)
{
	const struct cell_style st = { .role = ROLE_STATUS,
				       .attr = in->pristine ? ATTR_SELECTED : 0 };
	int room = s->w - x - 1 > 0 ? s->w - x - 1 : 0;
	size_t from = in->cursor > (size_t)room ? in->cursor - (size_t)room : 0;

	screen__put(s, row, x, room, in->text + from, st, 0);
	screen__add_attr(s, row, x + (int)(in->cursor - from), 1, ATTR_SELECTED);
}

void status__draw(struct screen *s, int row, const struct status_state *st)
{
	struct cell_style style = { .role = ROLE_STATUS };

	screen__fill(s, row, 0, s->w, ' ', style);
	if (st->prompt) {
		draw_input(s, row, screen__put(s, row, 0, s->w, st->prompt, style, 0), st->input);
		return;
	}
	if (st->message[0]) {
		style.role = st->error ? ROLE_ERROR : ROLE_STATUS;
		screen__put(s, row, 0, s->w, st->message, style, PUT_DOTS);
		return;
	}
	draw_hints(s, row, st->live);
}
