// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "tui/prompt_input.h"

void prompt_input__start(struct prompt_input *in, const char *text)
{
	snprintf(in->text, sizeof(in->text), "%s", text);
	in->len = strlen(in->text);
	in->cursor = in->len;
	in->pristine = true;
}

/* Removes text[from, to). */
static void cut(struct prompt_input *in, size_t from, size_t to)
{
	memmove(in->text + from, in->text + to, in->len - to + 1);
	in->len -= to - from;
	in->cursor = from;
	in->pristine = false;
}

void prompt_input__type(struct prompt_input *in, char c)
{
	if (c < ' ' || c > '~')
		return;
	if (in->pristine)
		cut(in, 0, in->len);
	if (in->len + 1 >= sizeof(in->text))
		return;
	memmove(in->text + in->cursor + 1, in->text + in->cursor, in->len - in->cursor + 1);
	in->text[in->cursor++] = c;
	in->len++;
}

void prompt_input__backspace(struct prompt_input *in)
{
	cut(in, in->cursor ? in->cursor - 1 : 0, in->cursor);
}

void prompt_input__delete(struct prompt_input *in)
{
	cut(in, in->cursor, in->cursor < in->len ? in->cursor + 1 : in->cursor);
}

void prompt_input__move(struct prompt_input *in, long delta)
{
	long at = (long)in->cursor + delta;

	in->cursor = at < 0 ? 0 : at > (long)in->len ? in->len : (size_t)at;
	in->pristine = false;
}

void prompt_input__home(struct prompt_input *in)
{
	prompt_input__move(in, -(long)in->len);
}

void prompt_input__end(struct prompt_input *in)
{
	prompt_input__move(in, (long)in->len);
}

void prompt_input__kill_before(struct prompt_input *in)
{
	cut(in, 0, in->cursor);
}

void prompt_input__kill_after(struct prompt_input *in)
{
	cut(in, in->cursor, in->len);
}
