/* SPDX-License-Identifier: GPL-2.0 */
/*
 * header: the lines above the panes, drawn from plain data. They say where
 * the data come from (live: mode, hook, rate, CPUs, events per second, lost
 * events; file: its name, stacks and malformed lines), the window and the
 * time it spans, the filters in force (and that shares are of what they
 * keep), the side of the stacks shown, and whether the display is live or
 * paused; in off-CPU mode, how long the waits lasted and in which states;
 * how user stacks are walked and how the walks ended; what kept frames
 * from being named, when something did; in read mode, why better hooks
 * failed. Every figure is of the window shown (recent or cumulative). A
 * line shortens to fit the screen's width, the lost events the last to go.
 * Each line is one function in header.c's list: a new line is one more
 * entry there.
 */
#ifndef FLAMETOP_HEADER_H
#define FLAMETOP_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "tui/screen.h"

/* What the live source counted in a window (enum profile_window). */
struct header_window {
	double rate;        /* events per second; < 0: not known yet */
	uint64_t lost;      /* events not counted */
	uint64_t undrained; /* of those, events counted but not read in time (drains cut short) */
	const char *walks;  /* how user stacks are walked and how the walks ended, or NULL */
	const char *offcpu; /* off-CPU mode: how long the waits lasted, in which states; or NULL */
};

/* What the front end knows about its source, filled in by the app. */
struct header_info {
	/* live */
	const char *mode;  /* "sample", "read" */
	const char *hook;  /* e.g. "perf_event cpu-clock" */
	const char *notes; /* why better hooks failed, or "" */
	unsigned int freq; /* sample mode: per CPU per second */
	int ncpus;
	const char *event; /* what an event is: "samples", "reads" */
	struct header_window win[2]; /* by enum profile_window: cumulative, recent */
	double span;       /* seconds the recent window spans; 0: none closed yet */
	double covered;    /* seconds of capture the cumulative window holds */
	uint64_t folded;   /* stacks folded into others to keep within max_stacks */
	size_t max_stacks;
	const char *symbols; /* what kept frames from being named (live__symbols_text()), or NULL */
	/* both */
	const char *unit;  /* what a count counts: "samples", "reads", "bytes", "off-CPU time" */
	bool time_us;      /* counts are microseconds (off-CPU time) */
	/* the file viewer */
	const char *file;
	uint64_t stacks;   /* lines read into the profile */
	uint64_t bad;      /* malformed lines skipped */
	uint64_t first_bad_line;
	const char *first_bad_why;
};

/* What the header shows besides the source: the view's state. */
struct header_state {
	const struct header_info *info;
	bool live, paused;
	enum profile_window window;
	uint64_t total;            /* counted in the window, through the filters */
	uint64_t whole;            /* counted in the window, all stacks */
	const int32_t *tgids;      /* the pid filter ... */
	size_t ntgids;             /* ... when not 0 */
	uint64_t exited;           /* bit i: tgids[i] has exited (live) */
	const char *comm, *text;   /* the comm and text filters, when not empty */
	bool hide_kernel, hide_user;
};

/* The number of header lines @h needs. */
int header__rows(const struct header_state *h);

/* header__draw() writes the header in the first header__rows() lines of @s. */
void header__draw(struct screen *s, const struct header_state *h);

/*
 * header__window_line() writes the header's second line, the window and the
 * filters ("window: cumulative, 500 samples | filters: pid 12 | hidden:
 * kernel frames"), into @buf (capacity @size): what a saved view says it
 * shows.
 */
void header__window_line(const struct header_state *h, char *buf, size_t size);

/*
 * header__hook_line() writes the line naming the hook and why better ones
 * failed (in full: the header cuts it at the screen's width) into @buf, or
 * "" when no hook failed. Returns its length.
 */
size_t header__hook_line(const struct header_info *info, char *buf, size_t size);

#endif
