/* SPDX-License-Identifier: GPL-2.0 */
/*
 * line_reader: the lines of an input stream (a file, a pipe), read in large
 * blocks and handed out in place, without a copy or an allocation per line.
 * A line longer than LINE_READER_MAX is skipped whole. The first block can
 * be looked at before any line is taken (to tell formats apart), and the
 * rest of a binary input taken whole.
 */
#ifndef FLAMETOP_LINE_READER_H
#define FLAMETOP_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define LINE_READER_MAX (1u << 20)
#define LINE_READER_BLOCK (256u << 10) /* the most a read takes, beyond a line left over */

struct line_reader {
	FILE *in;
	char *buf;
	size_t start, end; /* the unread bytes are buf[start, end) */
	bool eof;
	unsigned long long lines; /* lines handed out so far, skipped ones included */
	/* reads of more input that moved what was left: a line handed out stays where it is,
	 * unchanged, until the next one */
	unsigned long long fills;
};

/* line_reader__init() starts reading @in; returns 0 or -ENOMEM. */
int line_reader__init(struct line_reader *r, FILE *in);

/*
 * line_reader__peek() reads the first block (up to 256 KiB, less only at
 * the end of the input) and points *@data at the unread bytes, *@len long.
 * Returns 0 or -EIO.
 */
int line_reader__peek(struct line_reader *r, const char **data, size_t *len);

/*
 * line_reader__next() hands out the next line: returns 1 with *@line (NUL-
 * terminated in place of its newline; a trailing '\r' is kept) and *@len set,
 * valid until the next call; 0 at the end; -ENOBUFS for a line over
 * LINE_READER_MAX (skipped); -EIO on a read error. The 8 bytes after a
 * line's NUL can be read (they hold something, never a fault), so that a
 * parser can read the line a word at a time.
 */
int line_reader__next(struct line_reader *r, char **line, size_t *len);

/*
 * line_reader__rest() moves every unread byte, up to @max, into one buffer
 * it hands to the caller (*@data, to free(); *@len bytes). Returns 0,
 * -EFBIG when the input is longer than @max, -ENOMEM or -EIO.
 */
int line_reader__rest(struct line_reader *r, size_t max, char **data, size_t *len);

/* Frees the reader's buffer (not the stream). */
void line_reader__free(struct line_reader *r);

#endif
