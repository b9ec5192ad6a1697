// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/folded.h"
#include "profile/input.h"
#include "profile/line_reader.h"
#include "profile/perf_script.h"
#include "profile/pprof.h"
#include "python/frame_names.h"
#include "symbols/sanitize.h"

#define PPROF_MAX_BYTES (1ul << 30)

const char *input__format_name(enum input_format f)
{
	switch (f) {
	case INPUT_PERF_SCRIPT:
		return "perf script";
	case INPUT_PPROF:
		return "pprof";
	default:
		return "folded";
	}
}

void input__bad_line(struct input_stats *st, const char *why)
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
bool input__has_control_bytes(const char *s, size_t len)
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

int input__each_line(struct line_reader *r, struct input_stats *st,
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
			input__bad_line(st, "a line over 1 MiB");
			continue;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (input__has_control_bytes(line, len))
			input__bad_line(st, "control or NUL bytes");
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

uint32_t input__frame(struct profile *p, const char *s, size_t len, enum frame_kind kind)
{
	char clean[NAME_MAX_BYTES + 1];
	size_t n = sanitize_name(clean, sizeof(clean), s, len);

	if (kind == FRAME_USER && py_frame_name_is_python(clean, n))
		kind = FRAME_PYTHON;
	return profile__frame(p, clean, n, kind, kind == FRAME_PROCESS || !looks_unnamed(clean, n));
}

/* A gzip stream, or a bare profile.proto: its first field is a sample type (field 1, bytes). */
static bool looks_like_pprof(const char *data, size_t len)
{
	const unsigned char *u = (const unsigned char *)data;

	if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b)
		return true;
	if (len < 2 || u[0] != 0x0a)
		return false;
	for (size_t i = 1; i < len && i < 256; i++) {
		if ((u[i] < 0x20 && u[i] != '\t' && u[i] != '\n' && u[i] != '\r') || u[i] == 0x7f)
			return true;
	}
	return false;
}

/* Is @line, @len bytes, a frame line of `perf script`: blanks, a hex address, a blank? */
static bool perf_frame_line(const char *line, size_t len)
{
	size_t i = 0, digits;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == 0)
		return false;
	for (digits = 0; i < len && isxdigit((unsigned char)line[i]); i++)
		digits++;
	return digits && i < len && line[i] == ' ';
}

/*
 * `perf script` text: in the first block, the first line that is not blank
 * nor a '#' comment starts a sample, and the line after it is a frame.
 */
static bool looks_like_perf_script(const char *data, size_t len)
{
	const char *end = data + len, *line = data;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = (size_t)((nl ? nl : end) - line);

		if (n && line[0] != '#' && strspn(line, " \t\r") < n) {
			const char *next = nl ? nl + 1 : end;
			const char *next_nl = memchr(next, '\n', (size_t)(end - next));

			return !isspace((unsigned char)line[0]) &&
			       perf_frame_line(next, (size_t)((next_nl ? next_nl : end) - next));
		}
		line = nl ? nl + 1 : end;
	}
	return false;
}

static int read_pprof(struct line_reader *r, struct profile *p, struct input_stats *st)
{
	char *data;
	size_t len;
	int err = line_reader__rest(r, PPROF_MAX_BYTES, &data, &len);

	if (err)
		return err;
	err = pprof__read(data, len, p, st);
	free(data);
	return err;
}

int input__read(FILE *in, struct profile *p, struct input_stats *st)
{
	struct line_reader r;
	const char *head;
	size_t len;
	int err;

	memset(st, 0, sizeof(*st));
	snprintf(st->unit, sizeof(st->unit), "samples");
	snprintf(st->count_unit, sizeof(st->count_unit), "count");
	err = line_reader__init(&r, in) ?: line_reader__peek(&r, &head, &len);
	if (!err && looks_like_pprof(head, len)) {
		st->format = INPUT_PPROF;
		err = read_pprof(&r, p, st);
	} else if (!err && looks_like_perf_script(head, len)) {
		st->format = INPUT_PERF_SCRIPT;
		err = perf_script__read(&r, p, st);
	} else if (!err) {
		st->format = INPUT_FOLDED;
		err = folded__read(&r, p, st);
	}
	line_reader__free(&r);
	return err;
}
