// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui/screen.h"

#define REPLACEMENT '?'

int screen__resize(struct screen *s, int w, int h)
{
	struct screen_cell *cells = NULL;

	if (w < 0 || h < 0)
		return -EINVAL;
	if (w && h) {
		cells = calloc((size_t)w * h, sizeof(*cells));
		if (!cells)
			return -ENOMEM;
	}
	free(s->cells);
	s->cells = cells;
	s->w = cells ? w : 0;
	s->h = cells ? h : 0;
	screen__clear(s);
	return 0;
}

void screen__free(struct screen *s)
{
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

void screen__clear(struct screen *s)
{
	for (int i = 0; i < s->w * s->h; i++)
		s->cells[i] = (struct screen_cell){ .ch = ' ' };
}

const struct screen_cell *screen__cell(const struct screen *s, int row, int col)
{
	return &s->cells[row * s->w + col];
}

/*
 * Decodes one UTF-8 character at *@p (before @end) and advances past it. A
 * byte that does not start a valid, shortest-form sequence of a scalar value
 * decodes to REPLACEMENT and advances by one byte.
 */
static uint32_t utf8_next(const unsigned char **p, const unsigned char *end)
{
	const unsigned char *s = *p;
	uint32_t cp, min;
	int n;

	if (s[0] < 0x80) {
		*p = s + 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 1, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 2, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 3, cp = s[0] & 0x07, min = 0x10000;
	} else {
		*p = s + 1;
		return REPLACEMENT;
	}
	if (end - s <= n) {
		*p = s + 1;
		return REPLACEMENT;
	}
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*p = s + 1;
			return REPLACEMENT;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*p = s + 1;
		return REPLACEMENT;
	}
	*p = s + n + 1;
	return cp;
}

struct cp_range {
	uint32_t first, last;
};

/* Characters that take no column of their own, or steer the terminal's layout. */
static const struct cp_range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x2028, 0x202e }, { 0x2060, 0x206f },
	{ 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
	{ 0xfff9, 0xfffb }, { 0xe0000, 0xe0fff },
};

/* East Asian wide and fullwidth characters, and the common emoji blocks. */
static const struct cp_range double_width[] = {
	{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },  { 0x3400, 0x4dbf },
	{ 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },   { 0xac00, 0xd7a3 },  { 0xf900, 0xfaff },
	{ 0xfe30, 0xfe4f },   { 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },  { 0x1f300, 0x1f64f },
	{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static bool in_ranges(uint32_t cp, const struct cp_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (cp >= r[i].first && cp <= r[i].last)
			return true;
	}
	return false;
}

/* Makes @cp safe to print; returns it (or REPLACEMENT) and its width, 1 or 2. */
static uint32_t printable(uint32_t cp, int *width)
{
	*width = 1;
	if (cp >= 0x20 && cp < 0x7f) /* most of a screen: no table to look in */
		return cp;
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xad || (cp >= 0xfdd0 && cp <= 0xfdef) ||
	    (cp & 0xfffe) == 0xfffe || (cp >= 0xe000 && cp <= 0xf8ff) ||
	    in_ranges(cp, zero_width, sizeof(zero_width) / sizeof(zero_width[0])))
		return REPLACEMENT;
	if (in_ranges(cp, double_width, sizeof(double_width) / sizeof(double_width[0])))
		*width = 2;
	return cp;
}

int text__columns_n(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	int cols = 0, w;

	while (p < end) {
		printable(utf8_next(&p, end), &w);
		cols += w;
	}
	return cols;
}

int text__columns(const char *text)
{
	return text__columns_n(text, strlen(text));
}

static struct screen_cell *cell_at(struct screen *s, int row, int col)
{
	return &s->cells[row * s->w + col];
}

/*
 * Stores @c at @row, @col. Half of a two-column character that @c
 * overwrites would be left alone on the screen: it becomes a space.
 */
static void store(struct screen *s, int row, int col, struct screen_cell c)
{
	struct screen_cell *at = cell_at(s, row, col);

	if (at->ch == SCREEN_WIDE_TAIL && c.ch != SCREEN_WIDE_TAIL && col > 0)
		cell_at(s, row, col - 1)->ch = ' ';
	if (at->ch != SCREEN_WIDE_TAIL && col + 1 < s->w &&
	    cell_at(s, row, col + 1)->ch == SCREEN_WIDE_TAIL)
		cell_at(s, row, col + 1)->ch = ' ';
	*at = c;
}

/* Writes @len bytes of @text in at most @limit columns from @col; returns columns used. */
static int put_clipped(struct screen *s, int row, int col, int limit, const char *text, size_t len,
		       struct cell_style style)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	int used = 0, w;

	while (p < end && used < limit) {
		uint32_t ch = printable(utf8_next(&p, end), &w);

		if (used + w > limit) {
			store(s, row, col + used++, (struct screen_cell){ ' ', style });
			break;
		}
		store(s, row, col + used++, (struct screen_cell){ ch, style });
		if (w == 2)
			store(s, row, col + used++, (struct screen_cell){ SCREEN_WIDE_TAIL, style });
	}
	return used;
}

int screen__put(struct screen *s, int row, int col, int width, const char *text,
		struct cell_style style, unsigned int flags)
{
	size_t len = strlen(text);
	int limit = width;

	if (row < 0 || row >= s->h || col < 0 || col >= s->w || width <= 0)
		return 0;
	if (limit > s->w - col)
		limit = s->w - col;
	if (!(flags & PUT_DOTS) || limit < 2 || text__columns_n(text, len) <= limit)
		return put_clipped(s, row, col, limit, text, len, style);
	limit = put_clipped(s, row, col, limit - 2, text, len, style);
	return limit + put_clipped(s, row, col + limit, 2, "..", 2, style);
}

int screen__put_right(struct screen *s, int row, int col, int width, const char *text,
		      struct cell_style style)
{
	int len = text__columns(text);

	return screen__put(s, row, col + (len < width ? width - len : 0), width, text, style, 0);
}

void screen__fill(struct screen *s, int row, int col, int width, char ch, struct cell_style style)
{
	uint32_t c = ch > ' ' && ch < 0x7f ? (uint32_t)ch : ' ';

	if (row < 0 || row >= s->h || col < 0)
		return;
	for (int i = col; i < col + width && i < s->w; i++)
		store(s, row, i, (struct screen_cell){ c, style });
}

void screen__add_attr(struct screen *s, int row, int col, int width, uint8_t attr)
{
	if (row < 0 || row >= s->h || col < 0)
		return;
	for (int i = col; i < col + width && i < s->w; i++)
		cell_at(s, row, i)->style.attr |= attr;
}

/* Appends @cp as UTF-8 at @out; returns the bytes written (1..4). */
static int utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | (cp >> 6 & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | (cp >> 12 & 0x3f);
	out[2] = 0x80 | (cp >> 6 & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

char *screen__to_text(const struct screen *s)
{
	char *text = malloc((size_t)s->w * s->h * 4 + s->h + 1), *p = text;

	if (!text)
		return NULL;
	for (int row = 0; row < s->h; row++) {
		char *line = p;

		for (int col = 0; col < s->w; col++) {
			uint32_t ch = screen__cell(s, row, col)->ch;

			if (ch != SCREEN_WIDE_TAIL)
				p += utf8_put(p, ch);
		}
		while (p > line && p[-1] == ' ')
			p--;
		*p++ = '\n';
	}
	*p = '\0';
	return text;
}
