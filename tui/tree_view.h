/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tree_view: a collapsible call tree over a view trie. The model (which
 * rows are expanded, the selection, where it is on screen) is kept by
 * frame paths, so it survives rebuilds of the trie: the selection stays on
 * the same frame when rows move. tree_pane__refresh() lays out the rows on
 * screen (depth, last-child flag, expand flags) around the selection, and
 * only those: with every row expanded, a big trie has millions of rows;
 * tree_pane__draw() only reads them. The same pane shows the main call
 * tree and the callers of a function in the flat view.
 */
#ifndef FLAMETOP_TREE_VIEW_H
#define FLAMETOP_TREE_VIEW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "tui/frame_path.h"
#include "tui/path_set.h"
#include "tui/screen.h"

/* A move this many rows or more goes to the first (or last) row at once. */
#define TREE_MOVE_ALL (LONG_MAX / 2)

enum tree_row_flags {
	ROW_LAST = 1 << 0,     /* the last child of its parent */
	ROW_EXPANDED = 1 << 1, /* its children are shown */
	ROW_HAS_CHILDREN = 1 << 2,
};

struct tree_row {
	uint32_t node;
	uint32_t depth; /* the root is 0 */
	uint8_t flags;	/* enum tree_row_flags */
};

struct tree_pane {
	const struct stack_trie *trie; /* borrowed */
	struct path_set states;	       /* rows expanded or collapsed by hand */
	bool all_expanded;	       /* how rows not in @states are shown */
	bool seeded;		       /* the hottest path has been expanded */
	struct frame_path sel;	       /* the selected frame */
	uint32_t sel_node;	       /* @sel's node, or its deepest ancestor present */
	long sel_offset;	       /* the selection's row on screen (0: the first); a
					* move changes it, a refresh brings it on screen */
	int height;		       /* rows on screen, set by the layout */
	bool show_subtree; /* the next refresh scrolls the selection's rows into sight */

	/* Derived by tree_pane__refresh(): */
	struct tree_row *rows; /* the rows on screen, the first one on top */
	size_t nrows, rows_cap;
	size_t sel_row; /* the row of the selection (tree_pane__selected_row()) */
};

/* tree_pane__init() makes a pane over @t (borrowed); returns 0 or -ENOMEM. */
int tree_pane__init(struct tree_pane *tp, const struct stack_trie *t);

/* Frees the pane's memory. */
void tree_pane__free(struct tree_pane *tp);

/*
 * tree_pane__rebuilt() must be called after the trie was rebuilt, before
 * anything else: it finds the selection in it. Returns 0 or -ENOMEM.
 */
int tree_pane__rebuilt(struct tree_pane *tp);

/*
 * tree_pane__refresh() brings the rows up to date after the trie was
 * rebuilt or rows were expanded or collapsed: finds the selection again
 * (keeping it at the same place on screen when rows moved), expands the
 * hottest path the first time the trie holds data, and lays out the rows
 * around the selection, with as few rows above it as keep it where it was
 * and the screen full. Returns 0 or -ENOMEM.
 */
int tree_pane__refresh(struct tree_pane *tp);

/* Forgets the expanded rows and the selection (the root); the next refresh seeds again. */
void tree_pane__forget(struct tree_pane *tp);

/*
 * tree_pane__renumber() keeps the selection through @p's renumbering of its
 * frames (up to its first dropped frame); the rows expanded by hand are
 * forgotten (they are kept by a hash of their frames), and the next
 * refresh seeds again.
 */
void tree_pane__renumber(struct tree_pane *tp, const struct profile *p);

/* tree_pane__select() selects @node of the trie (refresh to see it). */
void tree_pane__select(struct tree_pane *tp, uint32_t node);

/*
 * tree_pane__reveal() selects @node and expands its ancestors so that it has
 * a row. Returns 0 or -ENOMEM.
 */
int tree_pane__reveal(struct tree_pane *tp, uint32_t node);

/* The node of the selected row: the selection, or its shallowest collapsed ancestor. */
uint32_t tree_pane__selected_row(const struct tree_pane *tp);

/*
 * Moves the selection by @delta rows, stopping at the first and last row
 * (at once from TREE_MOVE_ALL rows on), and its row on screen with it.
 */
void tree_pane__move(struct tree_pane *tp, long delta);

/* Is @node expanded? */
bool tree_pane__expanded(const struct tree_pane *tp, uint32_t node);

/*
 * tree_pane__set_expanded() expands or collapses @node; expanding the
 * selected row brings its new rows into sight at the next refresh. Returns
 * 0 or -ENOMEM.
 */
int tree_pane__set_expanded(struct tree_pane *tp, uint32_t node, bool expanded);

/*
 * tree_pane__expand_hottest() expands @node and, from it down, each node's
 * hottest child (the first: siblings are sorted) to a leaf, as
 * tree_pane__set_expanded() does. Returns 0 or -ENOMEM.
 */
int tree_pane__expand_hottest(struct tree_pane *tp, uint32_t node);

/* Expands (or collapses) every row; the root stays expanded. Returns 0 or -ENOMEM. */
int tree_pane__set_all(struct tree_pane *tp, bool expanded);

/*
 * tree_pane__find() returns the next (@dir > 0) or previous node after the
 * selection, in depth-first order and wrapping around, whose frame is
 * marked in @marks (a byte per frame id); TRIE_NONE when no node has one.
 * Subtrees with no marked frame are stepped over whole.
 */
uint32_t tree_pane__find(const struct tree_pane *tp, int dir, const uint8_t *marks);

struct tree_draw {
	const struct profile *prof;
	uint64_t base;		/* the count shown as 100% */
	const char *title;	/* the pane's column title after the numbers */
	const char *root_label; /* the root's name */
	const char *match;	/* underlined in names, or NULL */
	const char *empty;	/* shown when the root counted nothing */
	bool focused;		/* the selection is drawn in full, not dimmed */
	bool show_self;		/* the Self% column (meaningless for callers) */
	bool time_us;		/* counts are microseconds (off-CPU time) */
};

/*
 * tree_pane__draw() draws the title line and the rows on screen into @r:
 * Total%, Self%, count, then the tree guides ("|-", "`-"), the expand
 * marker ("[-]", "[+]", "---" for a leaf) and the frame's name.
 */
void tree_pane__draw(struct screen *s, const struct tree_pane *tp, struct screen_rect r,
		     const struct tree_draw *d);

#endif
