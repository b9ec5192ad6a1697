/* SPDX-License-Identifier: GPL-2.0 */
/*
 * actions: what each key does. Keys reach here as TK_* codes or ASCII
 * (tui/term.c translates the terminal's); a table binds them to actions,
 * htop style (keys['+'] = expand). An action changes the view's state and
 * returns what the caller must do next (ACT_* flags); it never draws, never
 * talks to the terminal and never touches the capture: the app does, from
 * the flags. The same table feeds the help screen, so every key is listed.
 */
#ifndef FLAMETOP_ACTIONS_H
#define FLAMETOP_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/view.h"

/* Keys beyond ASCII; Enter is '\n', Tab '\t', Esc 27. */
enum tui_key {
	TK_ENTER = '\n',
	TK_TAB = '\t',
	TK_ESC = 27,
	TK_UP = 0x100,
	TK_DOWN,
	TK_LEFT,
	TK_RIGHT,
	TK_PGUP,
	TK_PGDN,
	TK_HOME,
	TK_END,
	TK_BACKTAB,
	TK_BACKSPACE,
	TK_F1,
	TK_F10,
	TK_NR,
};

#define TK_CTRL(c) ((c) & 0x1f)

/* What the caller does after an action. */
enum action_flags {
	ACT_REDRAW = 1 << 0,    /* refresh the view's rows and draw */
	ACT_REBUILD = 1 << 1,   /* rebuild the view trie from the profile, then draw */
	ACT_QUIT = 1 << 2,
	ACT_FILTER = 1 << 3,    /* push the pid and comm filters into the capture */
	ACT_SWAP_MODE = 1 << 4, /* swap sample and read mode */
	ACT_RESET = 1 << 5,     /* forget the profile's counts */
	ACT_SAVE = 1 << 6,      /* save the view to save_path (format by its extension) */
	ACT_DELAY = 1 << 7,     /* the refresh delay changed */
};

/*
 * actions__key() applies @key (a TK_* code or an ASCII character) to @v and
 * returns ACT_* flags. With the help shown, any key closes it; with a
 * prompt open, keys edit it (Enter applies, Esc cancels). Unbound keys do
 * nothing and return 0.
 */
unsigned int actions__key(struct view *v, int key);

/* A binding: its keys, the action, and its line in the help. */
struct key_binding {
	int keys[4];       /* unused slots are 0 */
	const char *label; /* the keys, as the help shows them */
	const char *what;
	bool live_only;    /* meaningless in the file viewer */
	unsigned int (*act)(struct view *v);
};

/* actions__bindings() returns every binding, in the help's order, and their number. */
const struct key_binding *actions__bindings(size_t *n);

#endif
