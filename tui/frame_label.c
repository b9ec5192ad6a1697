// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/text_match.h"
#include "python/frame_names.h"
#include "tui/frame_label.h"

enum screen_role frame_role(const struct profile *p, uint32_t frame)
{
	const struct frame *f = profile__frame_info(p, frame);

	if (f->kind == FRAME_PROCESS)
		return ROLE_PROCESS;
	if (!f->named)
		return ROLE_UNKNOWN;
	if (f->kind == FRAME_PYTHON)
		return ROLE_PYTHON;
	return f->kind == FRAME_KERNEL ? ROLE_KERNEL : ROLE_USER;
}

const char *frame_label__text(const struct profile *p, uint32_t frame, char *buf, size_t size)
{
	const char *name = profile__frame_name(p, frame), *file, *slash;
	struct py_frame_parts parts;

	if (profile__frame_info(p, frame)->kind != FRAME_PYTHON ||
	    !py_frame_name_split(name, strlen(name), &parts))
		return name;
	file = name + parts.file_at;
	slash = memrchr(file, '/', parts.file_len);
	if (!slash)
		return name;
	snprintf(buf, size, "%.*s(%s", (int)parts.file_at - 1, name, slash + 1);
	return buf;
}

uint8_t heat_level(uint64_t part, uint64_t whole)
{
	static const unsigned int permille[HEAT_LEVELS - 1] = { 50, 150, 350, 650 };
	uint8_t level = 0;

	if (!whole)
		return 0;
	while (level < HEAT_LEVELS - 1 &&
	       (unsigned __int128)part * 1000 >= (unsigned __int128)whole * permille[level])
		level++;
	return level;
}

void format_count(char buf[COUNT_COLUMNS + 1], uint64_t v)
{
	static const char suffix[] = "kMGTPE";
	double d = (double)v;
	int i = -1;

	if (v <= 99999999) {
		snprintf(buf, COUNT_COLUMNS + 1, "%" PRIu64, v);
		return;
	}
	while (d >= 999999.5 && i < 5) {
		d /= 1000;
		i++;
	}
	snprintf(buf, COUNT_COLUMNS + 1, "%.1f%c", d / 1000, suffix[i + 1]);
}

uint64_t count_shown_unit(uint64_t v)
{
	uint64_t scale = 1000; /* what format_count() divides by, then shows to a tenth */
	double d = (double)v;

	if (v <= 99999999)
		return 1;
	for (int i = -1; d >= 999999.5 && i < 5; i++) {
		d /= 1000;
		scale *= 1000;
	}
	return scale / 10;
}

uint64_t time_shown_unit(uint64_t us)
{
	double d = (double)us;

	if (us < 1000)
		return 1;
	if (d < 999950)
		return 100;
	return d < 999995000.0 ? 10000 : 360000000;
}

void format_time_us(char buf[COUNT_COLUMNS + 1], uint64_t us)
{
	double d = (double)us;

	if (us < 1000)
		snprintf(buf, COUNT_COLUMNS + 1, "%" PRIu64 "us", us);
	else if (d < 999950)
		snprintf(buf, COUNT_COLUMNS + 1, "%.1fms", d / 1e3);
	else if (d < 999995000.0)
		snprintf(buf, COUNT_COLUMNS + 1, "%.2fs", d / 1e6);
	else
		snprintf(buf, COUNT_COLUMNS + 1, "%.1fh", d / 3.6e9 < 99999 ? d / 3.6e9 : 99999);
}

void format_percent(char buf[PERCENT_COLUMNS + 1], uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	snprintf(buf, PERCENT_COLUMNS + 1, "%.1f%%", pct > 100 ? 100 : pct);
}

/* Columns of numbers__draw(): a share, a share, a count, then a gap of two. */
#define COL_FIRST 0
#define COL_SECOND (PERCENT_COLUMNS + 1)
#define COL_COUNT (COL_SECOND + PERCENT_COLUMNS + 1)
#define COUNT_WIDTH (NUMBERS_COLUMNS - 2 - COL_COUNT)

static void put_share(struct screen *s, int row, int col, uint64_t part, uint64_t base)
{
	struct cell_style st = { .role = ROLE_PERCENT, .heat = heat_level(part, base) };
	char buf[PERCENT_COLUMNS + 1];

	if (part == NO_SHARE)
		return;
	format_percent(buf, part, base);
	screen__put_right(s, row, col, PERCENT_COLUMNS, buf, st);
}

void numbers__draw(struct screen *s, int row, int col, uint64_t first, uint64_t second,
		   uint64_t count, uint64_t base, bool time_us)
{
	char buf[COUNT_COLUMNS + 1];

	put_share(s, row, col + COL_FIRST, first, base);
	put_share(s, row, col + COL_SECOND, second, base);
	if (time_us)
		format_time_us(buf, count);
	else
		format_count(buf, count);
	screen__put_right(s, row, col + COL_COUNT, COUNT_WIDTH, buf, (struct cell_style){ 0 });
}

void numbers__title(struct screen *s, int row, int col, const char *first, const char *second,
		    const char *count, struct cell_style style)
{
	screen__put_right(s, row, col + COL_FIRST, PERCENT_COLUMNS, first, style);
	screen__put_right(s, row, col + COL_SECOND, PERCENT_COLUMNS, second, style);
	screen__put_right(s, row, col + COL_COUNT, COUNT_WIDTH, count, style);
}

/* Underlines each match of @match in @name (text_match()), drawn from @col in @width columns. */
static void underline_matches(struct screen *s, int row, int col, int width, const char *name,
			      const char *match)
{
	size_t mlen = strlen(match);

	for (const char *m = text_match(name, match); m; m = text_match(m + mlen, match)) {
		int start = text__columns_n(name, (size_t)(m - name));
		int len = text__columns_n(m, mlen);

		if (start >= width)
			break;
		screen__add_attr(s, row, col + start, len < width - start ? len : width - start,
				 ATTR_UNDERLINE);
	}
}

int frame_label__draw(struct screen *s, int row, int col, int width, const struct profile *p,
		      uint32_t frame, const char *match, uint8_t attr)
{
	struct cell_style st = { .role = frame_role(p, frame), .attr = attr };
	char buf[FRAME_LABEL_MAX];
	const char *name = frame_label__text(p, frame, buf, sizeof(buf));
	bool kernel = profile__frame_info(p, frame)->kind == FRAME_KERNEL;
	int mark = kernel ? (int)strlen(KERNEL_MARK) : 0;
	int name_width = width - mark > 2 ? width - mark : width;
	int used;

	if (profile__frame_info(p, frame)->kind == FRAME_PROCESS)
		st.attr |= ATTR_BOLD;
	used = screen__put(s, row, col, name_width, name, st, PUT_DOTS);
	if (match && *match)
		underline_matches(s, row, col, used, name, match);
	if (kernel)
		used += screen__put(s, row, col + used, width - used, KERNEL_MARK, st, 0);
	return used;
}
