/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flat_view: the hot-function list, perf top's main view: one row per
 * function with its self and total share and its shared object, sorted by
 * self or by total. Enter opens the
 * callers of the selected function, an inverted call tree drawn by
 * tree_view; Esc goes back. The selection follows the same function across
 * refreshes.
 */
#ifndef FLAMETOP_FLAT_VIEW_H
#define FLAMETOP_FLAT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/flat.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "tui/screen.h"
#include "tui/tree_view.h"

struct flat_pane {
	uint32_t sel_frame;         /* the selected function, or PROFILE_NONE */
	size_t sel, top;            /* its row, and the first row on screen */
	int height;                 /* rows on screen, set by the layout */
	bool callers_open;          /* showing the callers of @callers_frame */
	uint32_t callers_frame;

	/* Derived by flat_pane__rebuilt(), unless @stale: */
	bool stale;                 /* the trie was rebuilt since (the list is made when shown) */
	struct flat_list list;
	struct stack_trie callers;
	struct tree_pane callers_tree;
};

/* flat_pane__init() makes an empty pane; returns 0 or -ENOMEM. */
int flat_pane__init(struct flat_pane *fp);

/* Frees the pane's memory. */
void flat_pane__free(struct flat_pane *fp);

/*
 * flat_pane__rebuilt() brings the list (sorted in @order) and the callers,
 * when open, up to date with @t, rebuilt from @p, finding the selected
 * function again; it is no longer @stale. Returns 0 or -ENOMEM.
 */
int flat_pane__rebuilt(struct flat_pane *fp, const struct stack_trie *t, const struct profile *p,
		       enum flat_order order);

/* Scrolls as little as needed to show the selection in @fp->height rows. */
void flat_pane__scroll(struct flat_pane *fp);

/* Moves the selection by @delta rows, stopping at the first and last. */
void flat_pane__move(struct flat_pane *fp, long delta);

/* Selects the row of @frame, when it has one (in a @stale list, once it is made). */
void flat_pane__select_frame(struct flat_pane *fp, uint32_t frame);

/*
 * flat_pane__open_callers() shows the callers of the selected function in
 * @t. Returns 0, -ENOENT when the list is empty, or -ENOMEM.
 */
int flat_pane__open_callers(struct flat_pane *fp, const struct stack_trie *t,
			    const struct profile *p);

/* Back to the list. */
void flat_pane__close_callers(struct flat_pane *fp);

/*
 * flat_pane__renumber() keeps the selected function, and the one whose
 * callers are open, through @p's renumbering of its frames; a function
 * dropped is no longer selected, and its callers close.
 */
void flat_pane__renumber(struct flat_pane *fp, const struct profile *p);

struct flat_draw {
	const struct profile *prof;
	uint64_t base;     /* the count shown as 100% */
	const char *match; /* underlined in names, or NULL */
	const char *empty; /* shown when there is no function */
	bool focused;
	enum flat_order order; /* how the list is sorted, for its title */
	bool time_us;          /* counts are microseconds (off-CPU time) */
};

/*
 * flat_pane__draw() draws the list, or the callers, into @r. A row shows
 * the function's shares and count, the sort key's first (self or total),
 * its shared object (see frame_object()) and its name.
 */
void flat_pane__draw(struct screen *s, const struct flat_pane *fp, struct screen_rect r,
		     const struct flat_draw *d);

/*
 * frame_object() writes the shared object of @frame into @buf: the one its
 * entry point named; for a kernel frame "[module]" from "func [module]",
 * else "[kernel]"; for a placeholder "lib.so+0x1f" its file ("[vdso]" for
 * "[vdso]+0x1f"), for another "[unknown]"; else "" (a named user frame read
 * from a folded file).
 */
void frame_object(const struct profile *p, uint32_t frame, char *buf, size_t size);

#endif
