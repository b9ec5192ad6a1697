// SPDX-License-Identifier: GPL-2.0
/*
 * text_line: bounded line reading and number parsing for untrusted text files.
 */
#include "symbols/text_line.h"

#include <errno.h>
#include <stdbool.h>

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

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
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
