/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header: the lines around the panes. The header says where the data come
 * from (live: mode, hook, rate, CPUs, events per second, lost events; file:
 * its name, stacks and malformed lines), the window, the filters in force,
 * and whether the display is live or paused. The status line holds a
 * prompt, a message, or the main keys. The help lists every key.
 */
#ifndef FLAMETOP_HEADER_H
#define FLAMETOP_HEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "tui/screen.h"

/* What the front end knows about its source, filled in by the app. */
struct header_info {
	/* live */
	const char *mode;  /* "sample", "read" */
	const char *hook;  /* e.g. "perf_event cpu-clock" */
	const char *notes; /* why better hooks failed, or "" */
	unsigned int freq; /* sample mode: per CPU per second */
	int ncpus;
	double rate;       /* events per second over the last interval; < 0: not known yet */
	const char *event; /* what an event is: "samples", "reads" */
	uint64_t lost;     /* events not counted since the capture opened */
	const char *unit;  /* what a count counts: "samples", "reads", "bytes" */
	const char *walks; /* how user stacks are walked and how the walks ended, or NULL */
	/* the file viewer */
	const char *file;
	uint64_t stacks;   /* lines read into the profile */
	uint64_t bad;      /* malformed lines skipped */
	uint64_t first_bad_line;
	const char *first_bad_why;
};

struct view;

/* The number of header lines @v needs. */
int header__rows(const struct view *v);

/* header__draw() writes the header in the first header__rows() lines of @s. */
void header__draw(struct screen *s, const struct view *v);

/*
 * header__filters() writes the header's second line, the window and the
 * filters ("window: cumulative, 500 samples | filters: pid 12 | hidden:
 * kernel frames"), to @buf (capacity @size): what a saved view says it shows.
 */
void header__filters(const struct view *v, char *buf, size_t size);

/* status__draw() writes the status line at @row: a prompt, a message or the main keys. */
void status__draw(struct screen *s, const struct view *v, int row);

/* help__draw() writes the list of every key, and what the marks mean, into @r. */
void help__draw(struct screen *s, struct screen_rect r, bool live);

#endif
