/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate_view: perf top's annotate, for one function: its source lines
 * with the share of its samples at each (Self%) and of the time through
 * the calls made there (Calls%), or with `i` its instructions, each after
 * the source line it comes from. The pane holds the function's last
 * annotation (annotation.h, made off the screen's thread and handed in)
 * and what the user chose: the view, the selection, the scroll. Drawing
 * is a pure function of the pane and the screen's size.
 *
 * It opens on the hottest line, or on the instructions when the code has
 * no line information; `n` and `N` go to the next and previous row by
 * heat (hottest first, as perf annotate's Tab); a new annotation of the
 * same function (a refresh) keeps the selected line or instruction.
 */
#ifndef FLAMETOP_ANNOTATE_VIEW_H
#define FLAMETOP_ANNOTATE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbols/annotation.h"
#include "tui/screen.h"

struct annotate_pane {
	bool open;
	bool loading;		/* no annotation of the function yet: it is being made */
	bool want_job;		/* the caller is to start making one (then job_started()) */
	uint32_t frame;		/* the function, a frame of the profile */
	char name[256];		/* its name, for the loading row */
	uint64_t ticket;	/* the newest job asked for, by the caller's numbering */
	enum ann_mode mode;
	struct annotation ann;	/* the last one made */
	struct ann_row *rows;	/* of @ann in @mode */
	size_t nrows, sel, top;
	int height;		/* screen rows for the rows (annotate_pane__layout()) */
};

/* What the pane's counts are, for its drawing. */
struct annotate_draw {
	const char *event; /* "samples", "reads" */
	bool time_us;	   /* counts are microseconds (off-CPU time) */
	bool live;	   /* they are the live screen's: since the start or r */
};

/* annotate_pane__init() makes a closed pane. */
void annotate_pane__init(struct annotate_pane *p);

/* Frees what the pane holds; it is then closed. */
void annotate_pane__free(struct annotate_pane *p);

/*
 * annotate_pane__open() opens the pane on @frame of @prof, loading: the
 * caller makes a job for it (want_job) and hands in its annotation.
 */
void annotate_pane__open(struct annotate_pane *p, const struct profile *prof, uint32_t frame);

/* annotate_pane__close() closes the pane and drops its annotation. */
void annotate_pane__close(struct annotate_pane *p);

/* annotate_pane__job_started() notes that job @ticket makes the pane's annotation. */
void annotate_pane__job_started(struct annotate_pane *p, uint64_t ticket);

/*
 * annotate_pane__take() takes @ann (moved: @ann is emptied) as the pane's
 * annotation, made by job @ticket: one older than the newest asked for,
 * or for a closed pane, is dropped. The first selects the hottest row (of
 * the instructions when there are no lines); later ones keep the
 * selection. Returns 0, or -ENOMEM (the pane shows nothing then).
 */
int annotate_pane__take(struct annotate_pane *p, uint64_t ticket, struct annotation *ann);

/* Moves the selection by @delta rows, within the rows. */
void annotate_pane__move(struct annotate_pane *p, long delta);

/*
 * annotate_pane__hot() selects the next row by heat (@dir > 0: the next
 * cooler one, wrapping to the hottest; < 0: the next hotter). False when
 * no row has a count.
 */
bool annotate_pane__hot(struct annotate_pane *p, int dir);

/*
 * annotate_pane__toggle() switches between the lines and the
 * instructions, selecting the hottest instruction of the selected line
 * (the hottest line of the selected instruction). Returns 0, -ENOMEM, or
 * -EOPNOTSUPP for code with lines alone (Python's: annotation.lines_only),
 * nothing changed: its insns_note says why.
 */
int annotate_pane__toggle(struct annotate_pane *p);

/*
 * annotate_pane__renumber() follows @prof's renumbering of its frames; a
 * function dropped closes the pane.
 */
void annotate_pane__renumber(struct annotate_pane *p, const struct profile *prof);

/*
 * annotate_pane__layout() fits the pane into @height screen rows: its rows
 * scroll in what is left.
 */
void annotate_pane__layout(struct annotate_pane *p, int height);

/* annotate_pane__draw() draws the pane into @r: its header, its rows, its keys. */
void annotate_pane__draw(struct screen *s, struct screen_rect r, const struct annotate_pane *p,
			 const struct annotate_draw *d);

/*
 * annotate_text() returns @a in @mode as the pane draws it, every row, no
 * selection, in lines of at most @width columns (the caller frees it), for
 * --annotate's output; NULL when out of memory.
 */
char *annotate_text(const struct annotation *a, enum ann_mode mode, const struct annotate_draw *d,
		    int width);

#endif
