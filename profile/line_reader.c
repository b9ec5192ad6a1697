// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/line_reader.h"

#define READ_BLOCK LINE_READER_BLOCK
#define READER_BYTES (LINE_READER_MAX + READ_BLOCK + 1)
/* Readable bytes after the buffer's end, zeros (line_reader.h). */
#define READER_TAIL 8

int line_reader__init(struct line_reader *r, FILE *in)
{
	*r = (struct line_reader){.in = in, .buf = calloc(1, READER_BYTES + READER_TAIL)};
	return r->buf ? 0 : -ENOMEM;
}

void line_reader__free(struct line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* Reads more input after moving what is left to the front; -EIO on error. */
static int fill(struct line_reader *r)
{
	size_t got;

	r->fills++;
	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
	got = fread(r->buf + r->end, 1, READER_BYTES - 1 - r->end, r->in);
	r->end += got;
	if (got == 0) {
		if (ferror(r->in))
			return -EIO;
		r->eof = true;
	}
	return 0;
}

int line_reader__peek(struct line_reader *r, const char **data, size_t *len)
{
	while (!r->eof && r->end - r->start < READ_BLOCK) {
		if (fill(r))
			return -EIO;
	}
	*data = r->buf + r->start;
	*len = r->end - r->start;
	return 0;
}

int line_reader__next(struct line_reader *r, char **line, size_t *len)
{
	bool too_long = false;

	for (;;) {
		char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		size_t have = (nl ? (size_t)(nl - r->buf) : r->end) - r->start;

		if (nl || (r->eof && have)) {
			*line = r->buf + r->start;
			*len = have;
			(*line)[have] = '\0';
			r->start += have + (nl != NULL);
			r->lines++;
			if (!too_long && have <= LINE_READER_MAX)
				return 1;
			return -ENOBUFS;
		}
		if (r->eof) {
			r->lines += too_long;
			return too_long ? -ENOBUFS : 0;
		}
		if (have > LINE_READER_MAX) { /* keep only the line's tail: it is skipped anyway */
			too_long = true;
			r->start = r->end;
		}
		if (fill(r))
			return -EIO;
	}
}

int line_reader__rest(struct line_reader *r, size_t max, char **data, size_t *len)
{
	size_t n = r->end - r->start, cap = n + READ_BLOCK;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	memcpy(buf, r->buf + r->start, n);
	r->start = r->end;
	while (!r->eof) {
		size_t got;

		if (n > max) {
			free(buf);
			return -EFBIG;
		}
		if (array__grow((void **)&buf, &cap, n + READ_BLOCK, 1, READ_BLOCK)) {
			free(buf);
			return -ENOMEM;
		}
		got = fread(buf + n, 1, cap - n, r->in);
		n += got;
		if (got == 0 && ferror(r->in)) {
			free(buf);
			return -EIO;
		}
		r->eof = got == 0;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	*data = buf;
	*len = n;
	return 0;
}
