/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view: everything the screen shows, as state (what the user chose: layout,
 * focus, filters, toggles, window, zoom, selection, expanded rows, prompt)
 * and as data derived from a profile (the view trie, the tree's rows, the
 * flat list). Key actions (actions.h) change the state; view__rebuild()
 * and view__refresh() derive the data; view__draw() is a pure function of
 * both and the screen's size. Nothing here touches the terminal.
 */
#ifndef FLAMETOP_VIEW_H
#define FLAMETOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/flat.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "tui/annotate_view.h"
#include "tui/flat_view.h"
#include "tui/frame_path.h"
#include "tui/header.h"
#include "tui/icicle_view.h"
#include "tui/keys.h"
#include "tui/prompt_input.h"
#include "tui/screen.h"
#include "tui/tree_view.h"

#define VIEW_MAX_PIDS 64 /* as many as the kernel filter takes */
#define VIEW_COMM_MAX 16 /* a comm and its NUL */
#define VIEW_TEXT_MAX 128
#define VIEW_MESSAGE_MAX 512
#define VIEW_MIN_WIDTH 40
#define VIEW_MIN_HEIGHT 10
#define VIEW_ZOOM_BACK 64
#define VIEW_ICICLE_SETTLE 15 /* rebuilds in a row with a shallower trie before the icicle shrinks */

enum view_layout {
	LAYOUT_SPLIT,  /* the tree above the icicle */
	LAYOUT_TREE,
	LAYOUT_ICICLE,
	LAYOUT_FLAT,
};

enum view_focus {
	FOCUS_TREE,
	FOCUS_ICICLE,
	FOCUS_FLAT,
};

enum prompt_kind {
	PROMPT_NONE,
	PROMPT_PID,
	PROMPT_COMM,
	PROMPT_FILTER,
	PROMPT_SEARCH,
	PROMPT_DELAY,
	PROMPT_SAVE,
};

struct view {
	/* State: what the user chose. */
	enum view_layout layout;
	enum view_focus focus;
	bool help;                     /* the help is shown ... */
	int help_top;                  /* ... from this row of its body */
	struct annotate_pane annotate; /* a function's hot lines, when open (over the panes) */
	bool live;                     /* false in the file viewer */
	bool paused;                   /* the display is frozen; capture goes on */
	enum profile_window window;
	enum profile_group group;      /* the tree's first level */
	enum flat_order flat_order;    /* the flat list's sort key */
	bool hide_kernel, hide_user;
	bool hide_interp;              /* the interpreter's frames under Python frames (I) */
	int32_t tgids[VIEW_MAX_PIDS];  /* pid filter, when ntgids > 0 */
	size_t ntgids;
	uint64_t exited;               /* bit i: tgids[i] has exited (the app looks, live) */
	char comm[VIEW_COMM_MAX];      /* comm filter, when not empty */
	char text[VIEW_TEXT_MAX];      /* frame-text filter (\), when not empty */
	char search[VIEW_TEXT_MAX];    /* the search (/): its matches marked, n and N step */
	char search_before[VIEW_TEXT_MAX]; /* the search when its prompt opened, for Esc */
	struct frame_path search_from; /* the selection then (the flat list's: the frame below): */
	uint32_t search_from_frame;    /* a search as typed looks from there, and Esc goes back */
	double delay;                  /* seconds between refreshes */
	struct frame_path zoom;        /* the icicle's top frame */
	uint32_t zoom_back[VIEW_ZOOM_BACK]; /* earlier zooms: depths along @zoom, for Esc */
	size_t nzoom_back;
	enum prompt_kind prompt;       /* the status line is asking for ... */
	struct prompt_input input;     /* ... this, typed so far */
	char save_path[PROMPT_INPUT_MAX]; /* where "s" saves, with ACT_SAVE */
	char message[VIEW_MESSAGE_MAX]; /* the status line's message, when not empty */
	bool message_is_error;
	int width, height;             /* the screen's size */
	struct header_info info;       /* where the data come from, for the header */
	const struct key_binding *keys; /* every binding, for the help */
	size_t nkeys;
	bool (*pid_exists)(int32_t pid); /* live: is there such a process? NULL: not checked */

	/* Derived from the profile by view__rebuild() and view__refresh(). */
	const struct profile *prof;
	struct stack_trie trie;
	struct tree_pane tree;         /* the call tree; its selection is the icicle's too */
	struct flat_pane flat;
	uint32_t zoom_node;            /* @zoom resolved: its deepest node present */
	int icicle_want;               /* the icicle's rows in the split layout, but for the cap */
	int icicle_shallower;          /* rebuilds in a row that wanted fewer */
	uint64_t icicle_filters;       /* a digest of the filters it was sized with */
	struct icicle_memo icicle_memo; /* where the chart's boxes were after the last rebuild */
	uint64_t search_count;         /* the count of the stacks through a match of @search */
	size_t search_frames;          /* the frames that match, among the stacks shown */
};

/* The parts of the screen, from view__geometry(). A pane of height 0 is not shown. */
struct view_geometry {
	bool too_small;
	int header_rows;
	struct screen_rect tree, icicle, flat;
	int status_row;
};

/*
 * view__init() sets the defaults for the live screen (@live) or the file
 * viewer: tree above icicle, recent window when live, cumulative otherwise,
 * @delay seconds between refreshes; the help lists the @nkeys bindings
 * @keys (borrowed). Returns 0 or -ENOMEM.
 */
int view__init(struct view *v, bool live, double delay, const struct key_binding *keys,
	       size_t nkeys);

/* Frees what the view holds (not the profile). */
void view__free(struct view *v);

/*
 * view__forget() drops what names frames of the current profile (the
 * selection, expanded rows, zoom, selected function, the annotated one):
 * for a swap to a profile whose frames are numbered differently.
 */
void view__forget(struct view *v);

/*
 * view__renumber() carries what names frames of @p (the selection, the
 * zoom, the selected function, the annotated one, where a search began) through @p's last
 * renumbering of its frames (profile__frames_gen()), as far as their
 * frames were kept; rows expanded by hand are forgotten.
 */
void view__renumber(struct view *v, const struct profile *p);

/* view__filter() fills @f with the view's window, toggles and filters. */
void view__filter(const struct view *v, struct view_filter *f);

/*
 * view__window_line() writes the header's second line (the window and the
 * filters) into @buf: what a saved view says it shows.
 */
void view__window_line(const struct view *v, char *buf, size_t size);

/* True when a pid, comm or text filter is set. */
bool view__filtered(const struct view *v);

/*
 * view__rebuild() builds the view trie from @p (borrowed until the next
 * rebuild) through the view's filters, finds the selection, the zoom and the
 * selected function again, then refreshes. Returns 0 or -ENOMEM.
 */
int view__rebuild(struct view *v, const struct profile *p);

/*
 * view__refresh() brings the rows up to date after an action changed the
 * state without a rebuild (expanded rows, selection, size). Returns 0 or
 * -ENOMEM.
 */
int view__refresh(struct view *v);

/*
 * view__flat_ready() makes the flat list when the layout shows it and it is
 * older than the trie (it is made only then: from a big profile it takes a
 * while), so that keys act on it. Returns 0 or -ENOMEM.
 */
int view__flat_ready(struct view *v);

/* view__resize() records the screen's new size (then refresh). */
void view__resize(struct view *v, int width, int height);

/* view__geometry() splits the screen of @v's size between the header, panes and status line. */
void view__geometry(const struct view *v, struct view_geometry *g);

/*
 * view__find() selects the next (@dir > 0) or previous frame whose name
 * contains the search text, in depth-first order from the selection, in the
 * focused pane; its ancestors are expanded. Returns true when one was found.
 */
bool view__find(struct view *v, int dir);

/*
 * A search (/) marks the frames whose name holds its text and steps between
 * them; it keeps every stack, so shares stay those of the view.
 * view__search_begin() remembers the search and the selection as its prompt
 * opens; view__search_typed() applies the text typed so far: from the
 * remembered selection it selects the first match after it, as vim's
 * incremental search does; view__search_cancel() goes back to the search and
 * the selection before (Esc); view__search_end() ends the search.
 */
void view__search_begin(struct view *v);
void view__search_typed(struct view *v, const char *text);
void view__search_cancel(struct view *v);
void view__search_end(struct view *v);

/*
 * view__search_share() counts what the search's matches hold in the view:
 * the count of the stacks through a matching frame (each stack once,
 * however many it holds) into search_count, and the matching frames into
 * search_frames. The rebuild calls it; so does a change of the search.
 */
void view__search_share(struct view *v);

/*
 * view__zoom() makes @node the icicle's top frame. Zooming into a frame
 * below the current top remembers the current one for view__unzoom().
 */
void view__zoom(struct view *v, uint32_t node);

/*
 * view__unzoom() goes back to the zoom before the last view__zoom(), or,
 * with @one_level, to the top frame's parent. Returns false when the chart
 * was not zoomed.
 */
bool view__unzoom(struct view *v, bool one_level);

/*
 * view__selected_process() finds the process of the selected row: the
 * stacks under its first-level ancestor (a command, process or thread,
 * as grouped), in the window and through the filters. Writes their
 * distinct pids (known ones, at most @max, ascending) to @pids and their
 * command to @comm (capacity VIEW_COMM_MAX; "" when they have several).
 * Returns the number of pids, or -ENOENT when no row below the root is
 * selected (the root, the flat list, the callers).
 */
long view__selected_process(const struct view *v, int32_t *pids, size_t max, char *comm);

/* The number of rows the help's body has at the view's width. */
int view__help_rows(const struct view *v);

/*
 * view__amount() writes @n of the view's counts as an amount of what they
 * count into @buf (capacity @size): "321 samples", "4096 bytes", "1.920 s
 * of off-CPU time".
 */
void view__amount(const struct view *v, uint64_t n, char *buf, size_t size);

/* view__say() sets the status line's message (printf-style). */
void view__say(struct view *v, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * view__selected_frame() returns the frame of the focused pane's selected
 * row (the tree's and the icicle's, the flat list's, the callers'), or
 * PROFILE_NONE when none is (the root, an empty pane).
 */
uint32_t view__selected_frame(const struct view *v);

/*
 * view__draw() draws the whole screen for @v into @s, whose size must be
 * @v's: header, panes by layout, status line; or the help; or the
 * annotate pane over the panes; or, below
 * VIEW_MIN_WIDTH x VIEW_MIN_HEIGHT, one line saying the terminal is too small.
 */
void view__draw(struct screen *s, const struct view *v);

#endif
