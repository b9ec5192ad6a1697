/* SPDX-License-Identifier: GPL-2.0 */
/*
 * textbuf: a line of text made piece by piece in a fixed buffer, with the
 * lists in it ("(a: 1, b: 2)"): how every layer writes its one-line
 * reports. What does not fit is cut; nothing is written past the buffer.
 * It sits below every layer, as array.h does.
 */
#ifndef FLAMETOP_TEXTBUF_H
#define FLAMETOP_TEXTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct textbuf {
	char *buf;
	size_t size, len;
	const char *sep; /* written before the open list's next item */
	bool items;      /* the open list has one */
};

/* textbuf__init() goes on from the NUL-terminated text in the @size bytes at @buf (size > 0). */
static inline void textbuf__init(struct textbuf *t, char *buf, size_t size)
{
	*t = (struct textbuf){ .buf = buf, .size = size, .len = strnlen(buf, size - 1), .sep = "" };
	buf[t->len] = '\0';
}

/* textbuf__start() starts an empty text in the @size bytes at @buf (size > 0). */
static inline void textbuf__start(struct textbuf *t, char *buf, size_t size)
{
	buf[0] = '\0';
	textbuf__init(t, buf, size);
}

static inline void textbuf__vadd(struct textbuf *t, const char *fmt, va_list ap)
{
	int n;

	if (t->len + 1 >= t->size)
		return;
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

/* textbuf__add() appends printf(@fmt, ...). */
static inline void __attribute__((format(printf, 2, 3)))
textbuf__add(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	textbuf__vadd(t, fmt, ap);
	va_end(ap);
}

/* textbuf__list() opens a list: its first item comes after @open, the others after ", ". */
static inline void textbuf__list(struct textbuf *t, const char *open)
{
	t->sep = open;
	t->items = false;
}

/* textbuf__item() appends an item, printf(@fmt, ...), to the open list. */
static inline void __attribute__((format(printf, 2, 3)))
textbuf__item(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;

	textbuf__add(t, "%s", t->sep);
	t->sep = ", ";
	t->items = true;
	va_start(ap, fmt);
	textbuf__vadd(t, fmt, ap);
	va_end(ap);
}

/* textbuf__end_list() closes the open list with @close, when it has an item. */
static inline void textbuf__end_list(struct textbuf *t, const char *close)
{
	if (t->items)
		textbuf__add(t, "%s", close);
	t->items = false;
}

#endif
