/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_label: how every view writes a frame's name, a count and a share.
 *
 * A kernel frame is told apart by its colour and by the marker " [k]" after
 * its name, which survives --no-color and a terminal without colours (the
 * icicle chart, short of room, draws kernel boxes in braces instead).
 */
#ifndef FLAMETOP_FRAME_LABEL_H
#define FLAMETOP_FRAME_LABEL_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "tui/screen.h"

#define KERNEL_MARK " [k]"
#define COUNT_COLUMNS 8   /* format_count() never writes more */
#define PERCENT_COLUMNS 6 /* "100.0%" */
#define NUMBERS_COLUMNS 25 /* two shares, a count and a gap: where names start */
#define NO_SHARE UINT64_MAX

/* The role of frame @frame: process, user, kernel, Python or unknown (no name). */
enum screen_role frame_role(const struct profile *p, uint32_t frame);

/* The most bytes frame_label__text() writes, with its NUL. */
#define FRAME_LABEL_MAX 1100

/*
 * frame_label__text() is the name of frame @frame as the screen shows it:
 * its name; a Python frame's, "qualname (file:LINE)", with the base name
 * of its file (the whole path is in the flat list's object column and in
 * the outputs). Returns the name, or @buf (@size bytes) holding it.
 */
const char *frame_label__text(const struct profile *p, uint32_t frame, char *buf, size_t size);

/*
 * heat_level() maps the share @part / @whole to 0 .. HEAT_LEVELS - 1; the
 * levels start at 5%, 15%, 35% and 65%.
 */
uint8_t heat_level(uint64_t part, uint64_t whole);

/*
 * format_count() writes @v in at most COUNT_COLUMNS characters: digits up to
 * 99999999, then one decimal and a k, M, G, T or P suffix.
 */
void format_count(char buf[COUNT_COLUMNS + 1], uint64_t v);

/*
 * format_time_us() writes the time @us (microseconds) in at most
 * COUNT_COLUMNS characters, in the unit that fits it: "850us", "12.3ms",
 * "4.56s", "812.5h".
 */
void format_time_us(char buf[COUNT_COLUMNS + 1], uint64_t us);

/*
 * The unit of the last digit format_count() (count_shown_unit()) or
 * format_time_us() (time_shown_unit(), in microseconds) shows @v in: 1 for
 * a count written whole, 100000 for "123.4M", 10000 for "4.56s".
 */
uint64_t count_shown_unit(uint64_t v);
uint64_t time_shown_unit(uint64_t us);

/* format_percent() writes @part / @whole as "56.4%" (at most PERCENT_COLUMNS). */
void format_percent(char buf[PERCENT_COLUMNS + 1], uint64_t part, uint64_t whole);

/*
 * numbers__draw() writes the two shares @first and @second of @base (as
 * percentages coloured by heat; NO_SHARE leaves one blank) and @count (a
 * time in microseconds when @time_us) in the NUMBERS_COLUMNS columns from
 * @row, @col.
 */
void numbers__draw(struct screen *s, int row, int col, uint64_t first, uint64_t second,
		   uint64_t count, uint64_t base, bool time_us);

/* numbers__title() writes the three column titles above numbers__draw()'s columns. */
void numbers__title(struct screen *s, int row, int col, const char *first, const char *second,
		    const char *count, struct cell_style style);

/*
 * frame_label__draw() writes frame @frame's name at @row, @col in at most
 * @width columns in its role's colour, followed by KERNEL_MARK for a kernel
 * frame; a name that does not fit is cut with ".." and keeps the marker.
 * Every occurrence of @match (when not NULL or empty) is underlined; @attr
 * is added to every cell. Returns the columns written.
 */
int frame_label__draw(struct screen *s, int row, int col, int width, const struct profile *p,
		      uint32_t frame, const char *match, uint8_t attr);

#endif
