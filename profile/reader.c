// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "profile/reader.h"
#include "symbols/sanitize.h"

void reader__bad_line(struct input_stats *st, const char *why)
{
	if (!st->bad++) {
		st->first_bad_line = st->lines;
		st->first_bad_why = why;
	}
}

static bool control_byte(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/*
 * The bytes of @w that may be control bytes: below 0x20, or DEL (exact for
 * bytes below 0x80; bytes from 0x80 up only make a word look closer).
 */
static uint64_t maybe_control(uint64_t w)
{
	uint64_t d = w ^ 0x7f * ONES;

	return ((w - 0x20 * ONES) & ~w & HIGHS) | ((d - ONES) & ~d & HIGHS);
}

/* Does @s[0, @n) hold a control byte? A byte at a time. */
static bool control_in(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (control_byte((unsigned char)s[i]))
			return true;
	}
	return false;
}

/*
 * 32 bytes at a time, then 8: a block none of whose words may hold a
 * control byte needs no look at each byte; text is almost all such blocks.
 * The last bytes are read in the word that ends the text (it overlaps
 * bytes already seen, which hold none).
 */
bool reader__has_control_bytes(const char *s, size_t len)
{
	size_t i = 0;
	uint64_t w[4];

	for (; i + 32 <= len; i += 32) {
		memcpy(w, s + i, sizeof(w));
		if ((maybe_control(w[0]) | maybe_control(w[1]) | maybe_control(w[2]) |
		     maybe_control(w[3])) &&
		    control_in(s + i, 32))
			return true;
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(w, s + i, 8);
		if (maybe_control(w[0]) && control_in(s + i, 8))
			return true;
	}
	if (i == len)
		return false;
	if (len < 8)
		return control_in(s, len);
	memcpy(w, s + len - 8, 8);
	return maybe_control(w[0]) && control_in(s + len - 8, 8);
}

int reader__each_line(struct line_reader *r, struct input_stats *st,
		     int (*line_fn)(void *ctx, char *line, size_t len), void *ctx)
{
	int err = 0, got;
	size_t len;
	char *line;

	while (!err && (got = line_reader__next(r, &line, &len)) != 0) {
		st->lines = r->lines;
		if (got == -EIO)
			return -EIO;
		if (got == -ENOBUFS) {
			reader__bad_line(st, "a line over 1 MiB");
			continue;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (reader__has_control_bytes(line, len))
			reader__bad_line(st, "control or NUL bytes");
		else
			err = line_fn(ctx, line, len);
	}
	return err;
}

/* Placeholders rather than function names: "[unknown]", "[vdso]", "lib.so+0x1f". */
static bool looks_unnamed(const char *s, size_t len)
{
	const char *plus = memmem(s, len, "+0x", 3);

	if (len && s[0] == '[')
		return true;
	if (!plus)
		return false;
	for (const char *p = plus + 3; p < s + len; p++) {
		if (!isxdigit((unsigned char)*p))
			return false;
	}
	return plus + 3 < s + len;
}

uint32_t reader__frame(struct profile *p, const char *s, size_t len, enum frame_kind kind)
{
	char clean[NAME_MAX_BYTES + 1];
	size_t n = sanitize_name(clean, sizeof(clean), s, len);

	return profile__frame(p, clean, n, kind, kind == FRAME_PROCESS || !looks_unnamed(clean, n));
}
