/* SPDX-License-Identifier: GPL-2.0 */
/*
 * help_view: the help screen, drawn from plain data: every key binding (in
 * columns as the width allows), what the marks mean, and the lines the
 * header has to cut (the hook and why better ones failed), in full. It
 * scrolls: its title stays, the rest starts at a given row.
 */
#ifndef FLAMETOP_HELP_VIEW_H
#define FLAMETOP_HELP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tui/keys.h"
#include "tui/screen.h"

struct help_content {
	const struct key_binding *keys; /* the bindings, in the help's order */
	size_t nkeys;
	bool live;                      /* list the live-only keys too */
	const char *hook_line;          /* shown in full, wrapped; NULL or "": none */
};

/* The number of rows the help's body needs in @width columns (its title not counted). */
int help__rows(const struct help_content *c, int width);

/* help__draw() writes the title and the body from row @top of it into @r. */
void help__draw(struct screen *s, struct screen_rect r, const struct help_content *c, int top);

/*
 * help__print_keys() writes the @nkeys bindings @keys to @out as --help
 * lists them: a title, then a line each, its keys and what they do
 * ("  ? h F1    this help"), the live screen's own marked "(live)"; then
 * the keys the terminal makes signals of (Ctrl-C, Ctrl-Z).
 */
void help__print_keys(FILE *out, const struct key_binding *keys, size_t nkeys);

#endif
