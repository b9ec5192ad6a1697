/* SPDX-License-Identifier: GPL-2.0 */
/*
 * actions: what each key does. Keys reach here as TK_* codes or ASCII
 * (tui/term.c translates the terminal's); tables bind them to actions,
 * htop style (keys['+'] = expand). An action changes the view's state and
 * returns what the caller must do next (ACT_* flags); it never draws, never
 * talks to the terminal and never touches the capture: the app does, from
 * the flags. The screen's table feeds the help, so every key is listed.
 */
#ifndef FLAMETOP_ACTIONS_H
#define FLAMETOP_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/keys.h"
#include "tui/view.h"

/* What the caller does after an action. */
enum action_flags {
	ACT_REDRAW = 1 << 0,    /* refresh the view's rows and draw */
	ACT_REBUILD = 1 << 1,   /* rebuild the view trie from the profile, then draw */
	ACT_QUIT = 1 << 2,
	ACT_FILTER = 1 << 3,    /* push the pid and comm filters into the capture */
	ACT_SWAP_MODE = 1 << 4, /* the next mode: sample, read, offcpu, sample */
	ACT_RESET = 1 << 5,     /* forget the profile's counts */
	ACT_SAVE = 1 << 6,      /* save the view to save_path (format by its extension) */
	ACT_DELAY = 1 << 7,     /* the refresh delay changed */
	ACT_PAUSE = 1 << 8,     /* the display was paused or resumed (see view.paused) */
	ACT_ANNOTATE = 1 << 9,  /* the annotate pane wants its annotation made (want_job) */
};

/*
 * actions__key() applies @key (a TK_* code or an ASCII character) to @v and
 * returns ACT_* flags. Four tables bind keys: the screen's, the help's
 * (scrolling; q, Esc and the help keys close it, any other key too), the
 * annotate pane's (moving, n/N by heat, i lines or instructions, q and Esc
 * back), and an open prompt's (editing; Enter applies, Esc cancels; a
 * search applies as it is typed). A key bound to nothing says so on the
 * status line.
 */
unsigned int actions__key(struct view *v, int key);

/* actions__bindings() returns the screen's bindings, in the help's order, and their number. */
const struct key_binding *actions__bindings(size_t *n);

#endif
