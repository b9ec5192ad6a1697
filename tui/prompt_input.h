/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prompt_input: the line a prompt edits, as htop's and readline's prompts
 * do. It opens holding the current value, all of it "pristine": the first
 * character typed replaces it, while an editing key (an arrow, Home, End,
 * Backspace, Delete, Ctrl-U, Ctrl-K) keeps it and edits from the cursor.
 * Printable ASCII only, so a byte is a column.
 */
#ifndef FLAMETOP_PROMPT_INPUT_H
#define FLAMETOP_PROMPT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#define PROMPT_INPUT_MAX 256 /* bytes, the NUL included */

struct prompt_input {
	char text[PROMPT_INPUT_MAX];
	size_t len;
	size_t cursor;  /* 0 .. len: characters go in before text[cursor] */
	bool pristine;  /* as it opened: the next character typed replaces it */
};

/* Opens @in holding @text (cut to fit), pristine, the cursor at its end. */
void prompt_input__start(struct prompt_input *in, const char *text);

/* Types printable ASCII @c: it replaces pristine text, else goes in at the cursor if it fits. */
void prompt_input__type(struct prompt_input *in, char c);

/* Deletes the character before the cursor (Backspace) or under it (Delete). */
void prompt_input__backspace(struct prompt_input *in);
void prompt_input__delete(struct prompt_input *in);

/* Moves the cursor by @delta characters, within the text. */
void prompt_input__move(struct prompt_input *in, long delta);

/* Moves the cursor to the start or the end. */
void prompt_input__home(struct prompt_input *in);
void prompt_input__end(struct prompt_input *in);

/* Deletes everything before the cursor (Ctrl-U) or from it on (Ctrl-K). */
void prompt_input__kill_before(struct prompt_input *in);
void prompt_input__kill_after(struct prompt_input *in);

#endif
