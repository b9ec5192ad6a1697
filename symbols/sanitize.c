// SPDX-License-Identifier: GPL-2.0
/*
 * sanitize: names from outside, made safe for a terminal and for folded output.
 *
 * The input is read as a run of units: one well-formed UTF-8 character, or
 * one byte that cannot start one, or the longest prefix of a character that
 * breaks off early (Unicode's "maximal subpart"). A unit that is not a
 * printable character becomes a single '?'.
 */
#include "symbols/sanitize.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One unit of input: where it starts, how many bytes it takes, and if it is kept. */
struct utf8_unit {
	const unsigned char *bytes;
	size_t len;
	bool valid;
};

/*
 * utf8_unit__second_range() gives the bytes allowed right after lead byte @c
 * (Unicode table 3-7) and returns the number of bytes of the whole character,
 * or 0 when @c cannot start a multibyte character.
 */
static size_t utf8_unit__second_range(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			*lo = 0xa0; /* no overlong forms */
		if (c == 0xed)
			*hi = 0x9f; /* no surrogates */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			*lo = 0x90; /* no overlong forms */
		if (c == 0xf4)
			*hi = 0x8f; /* nothing above U+10FFFF */
		return 4;
	}
	return 0;
}

/*
 * Is the character at @s (@len bytes) a Unicode bidirectional embedding,
 * override or isolate control (U+202A..U+202E, U+2066..U+2069)? They
 * reorder what a terminal shows after them ("Trojan Source"): a name could
 * show as another.
 */
static bool utf8_unit__is_bidi_control(const unsigned char *s, size_t len)
{
	return len == 3 && s[0] == 0xe2 &&
	       ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
		(s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/* utf8_unit__next() reads the unit at @s, which has @avail (>= 1) bytes left. */
static struct utf8_unit utf8_unit__next(const unsigned char *s, size_t avail)
{
	struct utf8_unit u = {.bytes = s, .len = 1, .valid = false};
	unsigned char lo, hi;
	size_t need;

	if (s[0] < 0x80) {
		u.valid = s[0] >= 0x20 && s[0] != 0x7f;
		return u;
	}
	need = utf8_unit__second_range(s[0], &lo, &hi);
	if (!need)
		return u;
	while (u.len < need && u.len < avail && s[u.len] >= lo && s[u.len] <= hi) {
		u.len++;
		lo = 0x80;
		hi = 0xbf;
	}
	/*
	 * A complete character, but not a C1 control (U+0080..U+009F), a bidi
	 * control, nor U+FFFE or U+FFFF (not characters, nor allowed in XML).
	 */
	u.valid = u.len == need && !(s[0] == 0xc2 && s[1] <= 0x9f) &&
		  !utf8_unit__is_bidi_control(s, u.len) &&
		  !(u.len == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe);
	return u;
}

/* Writes the "..": as much of it as fits in @room bytes at @dst. */
static size_t sanitize__ellipsis(char *dst, size_t room)
{
	size_t n = room < 2 ? room : 2;

	memset(dst, '.', n);
	return n;
}

/* The number of printable ASCII bytes (each a unit kept as it is) at @s, at most @max. */
static size_t ascii_run(const unsigned char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] >= 0x20 && s[n] < 0x7f)
		n++;
	return n;
}

size_t sanitize_name(char *dst, size_t size, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t cap = size - 1; /* bytes available before the NUL */
	size_t out = 0, keep = 0, pos = 0;

	len = strnlen(src, len);
	while (pos < len) {
		/* Printable ASCII that leaves room for "..", copied at once (the common case). */
		size_t room = out + 2 <= cap ? cap - out - 2 : 0;
		size_t run = ascii_run(s + pos, len - pos < room ? len - pos : room);
		struct utf8_unit u;
		size_t w;

		if (run) {
			memcpy(dst + out, s + pos, run);
			out += run;
			keep = out;
			pos += run;
			continue;
		}
		u = utf8_unit__next(s + pos, len - pos);
		w = u.valid ? u.len : 1;
		if (out + w > cap) {
			/* Cut after the last unit that leaves room for "..". */
			out = keep + sanitize__ellipsis(dst + keep, cap - keep);
			break;
		}
		if (u.valid)
			memcpy(dst + out, u.bytes, u.len);
		else
			dst[out] = '?';
		out += w;
		if (out + 2 <= cap)
			keep = out;
		pos += u.len;
	}
	dst[out] = '\0';
	return out;
}

/* FNV-1a over the @len bytes at @s: which name was cut, in 64 bits. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

#define UNIQUE_TAIL 19 /* "..#" and 16 hex digits */

size_t sanitize_name_unique(char *dst, size_t size, const char *src, size_t len)
{
	size_t n;

	len = strnlen(src, len);
	if (len < size || size < 64) /* sanitized, no name grows; too small a room for a tail */
		return sanitize_name(dst, size, src, len);
	n = sanitize_name(dst, size - UNIQUE_TAIL + 2, src, len); /* ends in ".." */
	n -= 2;
	return n + (size_t)snprintf(dst + n, size - n, "..#%016llx",
				    (unsigned long long)name_hash(src, len));
}
