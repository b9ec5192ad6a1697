// SPDX-License-Identifier: GPL-2.0
/*
 * linetable: CPython's own lookups (Objects/codeobject.c,
 * PyCode_Addr2Line()), restated over a bounded table.
 */
#include "python/linetable.h"

#include <limits.h>
#include <stdbool.h>

#define NO_LINE (-1)

/*
 * A line summed from a hostile table's deltas (64 bits: no delta sum of a
 * bounded table overflows them), as an int; NO_LINE outside an int's range.
 */
static int as_line(int64_t line)
{
	return line < INT_MIN || line > INT_MAX ? NO_LINE : (int)line;
}

/* 3.10: (bytecode delta in bytes, line delta; -128: no line) pairs from the first line. */
static int line_310(const uint8_t *t, size_t len, int first, int64_t addr)
{
	int64_t start, end = 0, line = first;
	int at = NO_LINE;

	for (size_t i = 0; i + 1 < len; i += 2) {
		int8_t ldelta = (int8_t)t[i + 1];

		start = end;
		end += t[i];
		if (ldelta == -128) {
			at = NO_LINE;
		} else {
			line += ldelta;
			at = as_line(line);
		}
		if (start <= addr && addr < end)
			return at;
	}
	return NO_LINE;
}

/* An unsigned varint of 6-bit chunks at t[*i], bit 6 set while more follow; *@i moves past it. */
static uint32_t varint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*i >= len || shift > 30)
			return v;
		b = t[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int svarint(const uint8_t *t, size_t len, size_t *i)
{
	uint32_t v = varint(t, len, i);

	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

/* The line delta of the entry whose first byte is t[at] (code @code). */
static int line_delta(const uint8_t *t, size_t len, size_t at, int code)
{
	size_t i = at + 1;

	switch (code) {
	case 13: /* no columns */
	case 14: /* long form */
		return svarint(t, len, &i);
	case 11: /* one line, +1 */
		return 1;
	case 12: /* one line, +2 */
		return 2;
	default: /* 15: no location; 10: one line, +0; 0-9: short forms, the same line */
		return 0;
	}
}

/* 3.11+: location entries, each a first byte with bit 7 set: code << 3 | (units - 1). */
static int line_311(const uint8_t *t, size_t len, int first, int64_t addr)
{
	int64_t start, end = 0, line = first;

	for (size_t i = 0; i < len;) {
		int code = (t[i] >> 3) & 15;

		if (!(t[i] & 0x80))
			return NO_LINE; /* not an entry's first byte: the table is malformed */
		start = end;
		end += ((t[i] & 7) + 1) * 2;
		line += line_delta(t, len, i, code);
		if (start <= addr && addr < end)
			return code == 15 ? NO_LINE : as_line(line);
		for (i++; i < len && !(t[i] & 0x80); i++)
			;
	}
	return NO_LINE;
}

int py_line(uint32_t version, const uint8_t *table, size_t len, int firstlineno, int64_t lasti)
{
	int line;

	if (lasti < 0 || !table)
		return firstlineno;
	line = version == 0x030a ? line_310(table, len, firstlineno, lasti * 2)
				 : line_311(table, len, firstlineno, lasti * 2);
	return line == NO_LINE ? firstlineno : line;
}
