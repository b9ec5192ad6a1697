/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text_line: reading untrusted line-oriented text (/proc files, fixtures)
 * into a fixed buffer, so that no line can make a reader allocate without
 * bound, and parsing the numbers in it.
 */
#ifndef FLAMETOP_TEXT_LINE_H
#define FLAMETOP_TEXT_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * text_line__read() reads the next line of @f into @buf (capacity @size >= 2)
 * without its newline, NUL-terminates it and stores its length in *@len.
 * Returns 1 for a line, 0 at end of file, -ENOBUFS when the line did not fit
 * (the rest of it has been skipped), -EINVAL when it contained a NUL byte, or
 * -EIO on a read error. After -ENOBUFS or -EINVAL the next call reads the next
 * line.
 */
int text_line__read(FILE *f, char *buf, size_t size, size_t *len);

/* How text_lines__read() reads a file, and what it found. */
struct text_lines {
	size_t block;	  /* bytes a read asks for */
	size_t line_max;  /* a line this long or longer is skipped */
	size_t max_bytes; /* a file that comes to more is given up (-EFBIG); 0: no limit */
	/* Takes a line: returns 0 to go on; anything else stops the reading and is returned. */
	int (*line)(void *ctx, char *line, size_t len);
	void *ctx;
	size_t skipped; /* lines skipped, too long or holding a NUL byte; counted on */
};

/*
 * text_lines__read() reads @fd to its end, @t->block bytes at a time, and
 * hands each line to @t->line: in place, without its newline,
 * NUL-terminated (the last line may have no newline). Returns 0 at the end,
 * what @t->line returned when it stopped the reading, -EFBIG, -ENOMEM, or
 * -errno when a read fails.
 */
int text_lines__read(int fd, struct text_lines *t);

/*
 * text_line__parse_u64() parses the digits in @base (10 or 16, no prefix) at
 * *@s into *@val and advances *@s past them. Returns 0, or -EINVAL when there
 * is no digit or the value does not fit in 64 bits (nothing is changed then).
 */
int text_line__parse_u64(const char **s, unsigned int base, uint64_t *val);

#endif
