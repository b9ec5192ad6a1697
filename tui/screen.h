/* SPDX-License-Identifier: GPL-2.0 */
/*
 * screen: a plain in-memory screen of W x H cells, each one printable
 * character and a style. Views draw into it; tui/term.c copies it to the
 * terminal, and tests read it back as text. No curses here.
 *
 * Text enters as UTF-8 and is decoded once, here: a byte that is not part of
 * valid UTF-8, a control character (C0, DEL, C1) and a character that takes
 * no column of its own (combining marks, zero-width and bidirectional
 * controls) is stored as '?', so that no cell can ever make the terminal do
 * anything but print. A character two columns wide (CJK) takes two cells,
 * the second one holding SCREEN_WIDE_TAIL.
 */
#ifndef FLAMETOP_SCREEN_H
#define FLAMETOP_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCREEN_WIDE_TAIL 0 /* the right half of a two-column character */
#define HEAT_LEVELS 5      /* heat 0 (cool) .. HEAT_LEVELS - 1 (hottest) */

/* What a cell shows; the terminal picks a colour for each (see term.c). */
enum screen_role {
	ROLE_TEXT,    /* plain text */
	ROLE_HEADER,  /* the header lines */
	ROLE_TITLE,   /* a pane's column titles */
	ROLE_STATUS,  /* the status line */
	ROLE_KEY,     /* a key name in the status line or the help */
	ROLE_ERROR,   /* a message that something failed */
	ROLE_GUIDE,   /* tree guides and expand markers */
	ROLE_PERCENT, /* a share, coloured by heat */
	ROLE_PROCESS, /* frames by kind: the process (comm) ... */
	ROLE_USER,
	ROLE_KERNEL,
	ROLE_PYTHON,  /* a Python function */
	ROLE_UNKNOWN, /* a frame without a name ("[unknown]", "lib.so+0x1f") */
	ROLE_NR,
};

enum screen_attr {
	ATTR_BOLD = 1 << 0,
	ATTR_SELECTED = 1 << 1,  /* the selection: reverse video */
	ATTR_DIM = 1 << 2,
	ATTR_UNDERLINE = 1 << 3, /* a search match */
	ATTR_BLOCK = 1 << 4,     /* an icicle box: the colour fills the background */
};

struct cell_style {
	uint8_t role; /* enum screen_role */
	uint8_t heat; /* 0 .. HEAT_LEVELS - 1, for ROLE_PERCENT and frames in blocks */
	uint8_t attr; /* enum screen_attr bits */
};

struct screen_cell {
	uint32_t ch; /* a printable Unicode code point, or SCREEN_WIDE_TAIL */
	struct cell_style style;
};

/* A part of the screen: a pane. */
struct screen_rect {
	int row, col, w, h;
};

struct screen {
	int w, h;
	struct screen_cell *cells; /* row-major, w * h */
};

/* screen__put() flags */
enum {
	PUT_DOTS = 1 << 0, /* text that does not fit ends with ".." */
};

/*
 * screen__resize() makes @s an empty (blank) screen of @w x @h cells
 * (either may be 0). Returns 0, or -ENOMEM with @s unchanged.
 */
int screen__resize(struct screen *s, int w, int h);

/* Frees the cells; @s is then a 0 x 0 screen. */
void screen__free(struct screen *s);

/* Blanks every cell (a space in the default style). */
void screen__clear(struct screen *s);

/*
 * screen__put() writes @text (UTF-8, any bytes) at @row, @col in @style,
 * using at most @width columns and never past the screen's edge; with
 * PUT_DOTS, text that does not fit is cut and ends with "..". A two-column
 * character that would straddle the limit is replaced by a space. Returns
 * the number of columns written.
 */
int screen__put(struct screen *s, int row, int col, int width, const char *text,
		struct cell_style style, unsigned int flags);

/* Like screen__put(), right-aligned in the @width columns from @col. */
int screen__put_right(struct screen *s, int row, int col, int width, const char *text,
		      struct cell_style style);

/* Fills @width cells from @row, @col with the printable ASCII @ch in @style (clipped). */
void screen__fill(struct screen *s, int row, int col, int width, char ch, struct cell_style style);

/* Adds @attr to the style of @width cells from @row, @col (clipped). */
void screen__add_attr(struct screen *s, int row, int col, int width, uint8_t attr);

/* The cell at @row, @col, which must be on the screen. */
const struct screen_cell *screen__cell(const struct screen *s, int row, int col);

/*
 * screen__to_text() returns the screen as UTF-8 text, one line per row
 * ending in '\n', trailing spaces trimmed; the caller frees it. NULL when out
 * of memory.
 */
char *screen__to_text(const struct screen *s);

/* The number of columns screen__put() would use for @text without a limit. */
int text__columns(const char *text);

/* The same for @len bytes of @text. */
int text__columns_n(const char *text, size_t len);

#endif
