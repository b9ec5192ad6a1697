/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status_line: the last line of the screen, drawn from plain data: a
 * prompt being edited (its text shown selected while the first character
 * typed would replace it, the cursor a highlighted cell), else a message,
 * else the main keys.
 */
#ifndef FLAMETOP_STATUS_LINE_H
#define FLAMETOP_STATUS_LINE_H

#include <stdbool.h>

#include "tui/prompt_input.h"
#include "tui/screen.h"

struct status_state {
	const char *prompt;               /* the prompt's question, or NULL: no prompt */
	const struct prompt_input *input; /* what it holds, with a prompt */
	const char *message;              /* a message, or "" */
	bool error;                       /* the message says something failed */
	bool live;                        /* the live screen's keys, not the viewer's */
};

/* status__draw() writes the status line at @row of @s. */
void status__draw(struct screen *s, int row, const struct status_state *st);

#endif
