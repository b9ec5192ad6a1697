/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keys: the keys the screen knows, as tui/term.c reads them (TK_* codes
 * beyond ASCII), and the shape of a key binding: the keys, the action,
 * and its line in the help. The tables themselves are in actions.c; the
 * help (help_view.h) only reads them. Leaf header: no other tui module.
 */
#ifndef FLAMETOP_KEYS_H
#define FLAMETOP_KEYS_H

#include <stdbool.h>
#include <stddef.h>

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
	TK_DELETE,
	TK_INSERT,
	TK_F1,
	TK_F12 = TK_F1 + 11, /* F1 to F12: TK_F(n) */
	TK_OTHER, /* any other key beyond ASCII: key__name() says the last one read */
	TK_NR,
};

#define TK_F(n) (TK_F1 + (n) - 1)

#define TK_CTRL(c) ((c) & 0x1f)

struct view;

/* A binding: its keys, the action, and its line in the help. */
struct key_binding {
	int keys[4];       /* unused slots are 0 */
	const char *label; /* the keys, as the help shows them */
	const char *what;
	bool live_only;    /* meaningless in the file viewer */
	unsigned int (*act)(struct view *v);
};

/* key__name() writes how @key reads ("x", "Ctrl-X", "F1", "Up") into @buf (at least 16 bytes). */
void key__name(int key, char *buf, size_t size);

/*
 * key__name_other() sets what key__name() calls TK_OTHER: the name of the
 * last such key read (tui/term.c knows it: "S-Up", "kLFT5"); NULL: "that key".
 */
void key__name_other(const char *name);

#endif
