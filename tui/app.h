/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app: the screen's loop. Waits on the keyboard, the live source's events
 * and two clocks: every second it drains the capture into the profile, and
 * every refresh delay it closes an interval, takes a still picture of the
 * counts (profile__freeze()) and redraws from it; a paused screen keeps its
 * picture while capture goes on. Keys go through
 * actions.c; what they ask for (filters pushed into the kernel, a mode
 * swap, a reset, a save) is done here. The file viewer runs the same loop
 * over a profile read from a folded file, without the clocks.
 */
#ifndef FLAMETOP_APP_H
#define FLAMETOP_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/capture.h"
#include "live/live.h"
#include "profile/input.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

struct app_config {
	struct capture_opts capture;   /* the mode to start in, its rate, filters, sizes */
	enum live_weight weight;       /* read mode's weight */
	struct symbolizer_opts symbols;
	struct unwinder_opts unwind;
	bool unwind_fp;                /* user stacks by frame pointer only (--unwind fp) */
	bool python;                   /* walk Python processes' Python frames (--python on) */
	double delay;                  /* seconds between refreshes */
	size_t max_stacks;             /* stacks a live profile keeps; more fold (live__fold()) */
	bool color;
	bool hide_kernel, hide_user;   /* start with these frames hidden */
	bool hide_interp;              /* ... and the interpreter's under Python frames */
	enum profile_group group;      /* the tree's first level to start with */
	const char *const *source_dirs; /* --source-dir: where else the annotate view looks */
	size_t nsource_dirs;
};

/*
 * app__run_live() captures as @c says and runs the live screen until the
 * user quits or a stop signal arrives. Returns 0, or -errno with one line
 * in @err (the terminal is restored by then).
 */
int app__run_live(const struct app_config *c, char *err, size_t err_size);

/*
 * app__run_file() runs the viewer over @p, read from @file as @st says (it
 * names @p's processes and threads when the view groups by them). Only
 * @c's delay-free parts are used: colours, filters, hidden frames,
 * grouping. Returns 0, or -errno with one line in @err.
 */
int app__run_file(const struct app_config *c, struct profile *p, const char *file,
		  const struct input_stats *st, char *err, size_t err_size);

#endif
