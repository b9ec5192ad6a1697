// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "profile/reader.h"
#include "python/frame_names.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

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

	if (kind == FRAME_USER && py_frame_name_is_python(clean, n))
		kind = FRAME_PYTHON;
	return profile__frame(p, clean, n, kind, kind == FRAME_PROCESS || !looks_unnamed(clean, n));
}

uint32_t reader__cached_frame(struct frame_cache *fc, struct profile *p, const char *s, size_t len,
			      enum frame_kind kind)
{
	uint32_t *slot = frame_cache__slot(fc, kind, s, len);

	if (!slot)
		return PROFILE_NONE;
	if (*slot == PROFILE_NONE)
		*slot = reader__frame(p, s, len, kind);
	return *slot;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Where the blanks before @end end, back to @start. */
static const char *skip_back_blanks(const char *start, const char *end)
{
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

int reader__frame_line(const char *line, size_t len, bool with_addr, struct printed_frame *f)
{
	const char *end = line + len, *s = skip_blanks(line, end), *sym;

	*f = (struct printed_frame){0};
	if (s == line)
		return 1;
	if (with_addr) {
		if (text_line__parse_u64(&s, 16, &f->addr) || (*s != ' ' && *s != '\t'))
			return 1;
		f->has_addr = true;
	}
	sym = skip_blanks(s, end);
	end = skip_back_blanks(sym, end);
	if (end > sym && end[-1] == ')') { /* "(DSO)" at the end; a symbol may hold parentheses */
		const char *open = end - 1;

		while (open > sym && !(open[0] == '(' && (open[-1] == ' ' || open[-1] == '\t')))
			open--;
		if (open > sym) {
			f->dso = open + 1;
			f->dso_len = (size_t)(end - 1 - f->dso);
			end = skip_back_blanks(sym, open);
		}
	}
	f->sym = sym;
	f->sym_len = (size_t)(end - sym);
	return end == sym;
}

/* Is @s (@len bytes) "0x" and hexadecimal digits: an address a tool could not name? */
static bool is_address(const char *s, size_t len)
{
	return len > 2 && s[0] == '0' && s[1] == 'x' &&
	       strspn(s + 2, "0123456789abcdefABCDEF") >= len - 2;
}

/* @sym's length without its offset: "+0x" and hex digits, or "+" and decimal digits, at its end. */
static size_t without_offset(const char *sym, size_t len)
{
	size_t digits = 0;

	while (digits < len && isxdigit((unsigned char)sym[len - 1 - digits]))
		digits++;
	if (digits && digits + 3 <= len && memcmp(sym + len - digits - 3, "+0x", 3) == 0)
		return len - digits - 3;
	digits = 0;
	while (digits < len && isdigit((unsigned char)sym[len - 1 - digits]))
		digits++;
	if (digits && digits + 1 < len && sym[len - digits - 1] == '+')
		return len - digits - 1;
	return len;
}

size_t reader__frame_name(char *buf, size_t size, const struct printed_frame *f, bool kernel)
{
	const char *dso = f->dso ? f->dso : "", *base = memrchr(dso, '/', f->dso_len);
	size_t sym_len = without_offset(f->sym, f->sym_len), dso_len = f->dso_len, base_len;
	bool unnamed =
	    (sym_len == 9 && memcmp(f->sym, "[unknown]", 9) == 0) || is_address(f->sym, sym_len);
	int n;

	base = base ? base + 1 : dso;
	base_len = dso_len - (size_t)(base - dso);
	if (unnamed && base_len && !(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0))
		n = base[0] == '[' ? snprintf(buf, size, "%.*s", (int)base_len, base)
				   : snprintf(buf, size, "[%.*s]", (int)base_len, base);
	else if (unnamed)
		n = snprintf(buf, size, "[unknown]");
	else if (kernel && dso_len > 2 && dso[0] == '[' && strncmp(dso, "[kernel.", 8) != 0 &&
		 strncmp(dso, "[guest.kernel.", 14) != 0)
		n = snprintf(buf, size, "%.*s %.*s", (int)sym_len, f->sym, (int)dso_len, dso);
	else
		n = snprintf(buf, size, "%.*s", (int)sym_len, f->sym);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
