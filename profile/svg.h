/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg: a view trie as a flame graph, one self-contained SVG file (no
 * network, no external script) that a browser shows and lets people
 * explore: hovering a frame shows its name, count and share; clicking it
 * zooms in (the frames below it stretch to the full width, its callers
 * stay below it), "Reset Zoom" zooms out; the search box highlights the
 * frames whose name contains its text and shows the share of the stacks
 * through them. The page's address can carry "?s=TEXT" (search on load)
 * and "?z=NAME" (zoom into the widest frame named NAME on load).
 *
 * The root is at the bottom. A frame's width is its share of the root's
 * total, to a millionth of a pixel; frames narrower than SVG_MIN_WIDTH
 * pixels are left out, and the title line says how many. Processes, user
 * frames and kernel frames are coloured apart (grey-violet, warm, blue)
 * and carry the classes "p", "u" and "k"; every frame is a <g class="f">
 * holding a <title> ("name" and "N samples, P%" on two lines), a <rect>
 * and a <text>, and has its count in data-n.
 */
#ifndef FLAMETOP_SVG_H
#define FLAMETOP_SVG_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

#define SVG_WIDTH 1200     /* pixels */
#define SVG_PAD 10         /* left and right of the frames */
#define SVG_MIN_WIDTH 0.1  /* pixels */

struct svg_info {
	const char *title;    /* the first line, e.g. "flametop: sample mode, 99 Hz, 10.0 s" */
	const char *subtitle; /* the second, e.g. the filters; NULL for none */
	const char *unit;     /* what a count counts: "samples", "reads", "bytes", "off-CPU time" */
	const char *count_unit; /* its unit: "count", "bytes"; "microseconds" or "nanoseconds"
				 * make counts times, written in µs, ms or s */
};

/*
 * svg__write() draws @t (built from @p) to @out, walking it twice (see
 * stack_trie__walk()). Returns the number of frames drawn, or -errno on a
 * write error or when out of memory.
 */
long svg__write(FILE *out, struct stack_trie *t, const struct profile *p,
		const struct svg_info *info);

#endif
