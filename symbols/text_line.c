// SPDX-License-Identifier: GPL-2.0
/*
 * text_line: bounded line reading and number parsing for untrusted text files.
 */
#include "symbols/text_line.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int text_line__read(FILE *f, char *buf, size_t size, size_t *len)
{
	bool too_long = false, has_nul = false;
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (c == '\0')
			has_nul = true;
		if (n + 1 < size)
			buf[n++] = (char)c;
		else
			too_long = true;
	}
	buf[n] = '\0';
	*len = n;
	if (ferror(f))
		return -EIO;
	if (c == EOF && n == 0 && !too_long && !has_nul)
		return 0;
	if (too_long)
		return -ENOBUFS;
	return has_nul ? -EINVAL : 1;
}

/* Hands the line of @len bytes at @s (room for a NUL after it) to @t, or skips it. */
static int text_lines__take(struct text_lines *t, char *s, size_t len)
{
	if (len >= t->line_max || memchr(s, '\0', len)) {
		t->skipped++;
		return 0;
	}
	s[len] = '\0';
	return t->line(t->ctx, s, len);
}

/*
 * Takes the whole lines of the @len bytes at @buf, the rest of a line too
 * long to keep being skipped first (*@skipping). Sets *@used to the bytes
 * taken (those after the last newline are not); returns as @t->line.
 */
static int text_lines__block(struct text_lines *t, char *buf, size_t len, bool *skipping,
			     size_t *used)
{
	char *s = buf, *end = buf + len, *nl;
	int rc = 0;

	while (!rc && (nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
		if (!*skipping)
			rc = text_lines__take(t, s, (size_t)(nl - s));
		*skipping = false;
		s = nl + 1;
	}
	*used = (size_t)(s - buf);
	return rc;
}

int text_lines__read(int fd, struct text_lines *t)
{
	size_t cap = t->line_max + t->block, len = 0, total = 0, used;
	char *buf = malloc(cap + 1);
	bool skipping = false;
	ssize_t n;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : len && !skipping ? text_lines__take(t, buf, len) : 0;
			break;
		}
		total += (size_t)n;
		if (t->max_bytes && total > t->max_bytes) {
			rc = -EFBIG;
			break;
		}
		rc = text_lines__block(t, buf, len + (size_t)n, &skipping, &used);
		if (rc)
			break;
		len = len + (size_t)n - used;
		memmove(buf, buf + used, len);
		if (len >= t->line_max) { /* not ended yet, and too long already */
			t->skipped += !skipping;
			skipping = true;
			len = 0;
		}
	}
	free(buf);
	return rc;
}

/* Each byte's value as a hex digit, plus one; 0 for a byte that is not a digit. */
static const unsigned char digit_plus_one[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int digit_value(char c)
{
	return (int)digit_plus_one[(unsigned char)c] - 1;
}

int text_line__parse_u64(const char **s, unsigned int base, uint64_t *val)
{
	const uint64_t most = UINT64_MAX / base, last = UINT64_MAX % base; /* most * base + last */
	const char *p = *s;
	uint64_t v = 0;
	int d;

	while ((d = digit_value(*p)) >= 0 && (unsigned int)d < base) {
		if (v > most || (v == most && (uint64_t)d > last))
			return -EINVAL;
		v = v * base + (uint64_t)d;
		p++;
	}
	if (p == *s)
		return -EINVAL;
	*s = p;
	*val = v;
	return 0;
}
