// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/icicle_view.h"
#include "tui/view.h"

#define ROOT_LABEL "all"

int view__init(struct view *v, bool live, double delay)
{
	memset(v, 0, sizeof(*v));
	v->live = live;
	v->window = live ? WINDOW_RECENT : WINDOW_CUMULATIVE;
	v->delay = delay;
	v->info.rate = -1;
	v->info.notes = "";
	if (stack_trie__init(&v->trie))
		return -ENOMEM;
	if (tree_pane__init(&v->tree, &v->trie) || flat_pane__init(&v->flat)) {
		view__free(v);
		return -ENOMEM;
	}
	return 0;
}

void view__free(struct view *v)
{
	flat_pane__free(&v->flat);
	tree_pane__free(&v->tree);
	stack_trie__free(&v->trie);
}

void view__forget(struct view *v)
{
	tree_pane__forget(&v->tree);
	flat_pane__close_callers(&v->flat);
	v->flat.sel_frame = PROFILE_NONE;
	v->zoom.n = 0;
	v->nzoom_back = 0;
}

void view__filter(const struct view *v, struct view_filter *f)
{
	*f = (struct view_filter){
		.window = v->window,
		.hide_kernel = v->hide_kernel,
		.hide_user = v->hide_user,
		.tgids = v->ntgids ? v->tgids : NULL,
		.ntgids = v->ntgids,
		.comm = v->comm[0] ? v->comm : NULL,
		.text = v->text[0] ? v->text : NULL,
	};
}

bool view__filtered(const struct view *v)
{
	return v->ntgids || v->comm[0] || v->text[0];
}

void view__say(struct view *v, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->message, sizeof(v->message), fmt, ap);
	va_end(ap);
	v->message_is_error = error;
}

void view__resize(struct view *v, int width, int height)
{
	v->width = width;
	v->height = height;
}

/*
 * Lines for the icicle below the tree: a title and one per depth of the
 * trie, at most half of @body (the tree takes the rest), at least four
 * when that is not more than half.
 */
static int icicle_rows(const struct view *v, int body)
{
	int want = v->trie.n ? (int)v->trie.max_depth + 2 : 0;
	int least = body / 2 < 4 ? body / 2 : 4;

	if (want > body / 2)
		want = body / 2;
	return want < least ? least : want;
}

void view__geometry(const struct view *v, struct view_geometry *g)
{
	int body, top;

	memset(g, 0, sizeof(*g));
	g->too_small = v->width < VIEW_MIN_WIDTH || v->height < VIEW_MIN_HEIGHT;
	if (g->too_small)
		return;
	g->header_rows = header__rows(v);
	g->status_row = v->height - 1;
	top = g->header_rows;
	body = g->status_row - top;
	switch (v->layout) {
	case LAYOUT_SPLIT:
		g->icicle.h = icicle_rows(v, body);
		g->tree = (struct screen_rect){ top, 0, v->width, body - g->icicle.h };
		g->icicle = (struct screen_rect){ top + g->tree.h, 0, v->width, g->icicle.h };
		break;
	case LAYOUT_TREE:
		g->tree = (struct screen_rect){ top, 0, v->width, body };
		break;
	case LAYOUT_ICICLE:
		g->icicle = (struct screen_rect){ top, 0, v->width, body };
		break;
	case LAYOUT_FLAT:
		g->flat = (struct screen_rect){ top, 0, v->width, body };
		break;
	}
}

/* Rows a pane of @h lines shows below its title. */
static int pane_rows(int h)
{
	return h > 1 ? h - 1 : 1;
}

int view__refresh(struct view *v)
{
	struct view_geometry g;

	view__geometry(v, &g);
	v->tree.height = pane_rows(g.tree.h);
	v->flat.height = pane_rows(g.flat.h);
	v->flat.callers_tree.height = v->flat.height;
	/* The list is made when shown: from a big profile it takes a while. */
	if (v->layout == LAYOUT_FLAT && v->flat.stale && v->prof &&
	    flat_pane__rebuilt(&v->flat, &v->trie, v->prof))
		return -ENOMEM;
	flat_pane__scroll(&v->flat);
	if (tree_pane__refresh(&v->tree))
		return -ENOMEM;
	return v->flat.callers_open ? tree_pane__refresh(&v->flat.callers_tree) : 0;
}

int view__rebuild(struct view *v, const struct profile *p)
{
	struct view_filter f;
	int err;

	v->prof = p;
	view__filter(v, &f);
	err = stack_trie__build(&v->trie, p, &f);
	if (!err)
		err = tree_pane__rebuilt(&v->tree);
	v->flat.stale = true;
	v->zoom_node = v->trie.n ? frame_path__resolve(&v->zoom, &v->trie) : TRIE_ROOT;
	if (!err)
		err = view__refresh(v);
	if (!err && v->search_pending) {
		v->search_pending = false;
		view__find(v, 1);
		err = view__refresh(v);
	}
	return err;
}

/* Is @node the node @ancestor or below it? */
static bool descends(const struct stack_trie *t, uint32_t node, uint32_t ancestor)
{
	while (node != ancestor && node != TRIE_ROOT)
		node = t->nodes[node].parent;
	return node == ancestor;
}

void view__zoom(struct view *v, uint32_t node)
{
	uint32_t back = v->zoom.n;

	if (!descends(&v->trie, node, v->zoom_node)) {
		v->nzoom_back = 0; /* elsewhere: Esc leads back to the whole chart */
		back = 0;
	}
	if (v->nzoom_back == VIEW_ZOOM_BACK)
		memmove(v->zoom_back, v->zoom_back + 1, --v->nzoom_back * sizeof(*v->zoom_back));
	frame_path__set(&v->zoom, &v->trie, node);
	v->zoom_node = node;
	if (v->zoom.n > back)
		v->zoom_back[v->nzoom_back++] = back;
}

bool view__unzoom(struct view *v, bool one_level)
{
	if (!v->zoom.n)
		return false;
	if (one_level)
		v->zoom.n--;
	else
		v->zoom.n = v->nzoom_back ? v->zoom_back[--v->nzoom_back] : 0;
	while (v->nzoom_back && v->zoom_back[v->nzoom_back - 1] >= v->zoom.n)
		v->nzoom_back--;
	v->zoom_node = frame_path__resolve(&v->zoom, &v->trie);
	return true;
}

static bool name_matches(const struct view *v, uint32_t frame)
{
	return strstr(profile__frame_name(v->prof, frame), v->text) != NULL;
}

/* Steps through the flat list from the selection, wrapping around. */
static bool find_in_list(struct view *v, int dir)
{
	size_t n = v->flat.list.n;

	for (size_t i = 1; i <= n; i++) {
		size_t row = (v->flat.sel + n + (dir > 0 ? i : n - i)) % n;

		if (name_matches(v, v->flat.list.entries[row].frame)) {
			flat_pane__move(&v->flat, (long)row - (long)v->flat.sel);
			return true;
		}
	}
	return false;
}

/*
 * Finds the next match in @tp's trie, in depth-first order from the
 * selection, wrapping around: the frames whose name holds the search text
 * are marked once, and the trie steps over subtrees without one.
 */
static bool find_in_tree(struct view *v, struct tree_pane *tp, int dir)
{
	size_t n = profile__nframes(v->prof);
	uint8_t *marks = malloc(n ? n : 1);
	uint32_t node;

	if (!marks)
		return false;
	for (size_t i = 0; i < n; i++)
		marks[i] = name_matches(v, (uint32_t)i);
	node = tree_pane__find(tp, dir, marks);
	free(marks);
	return node != TRIE_NONE && tree_pane__reveal(tp, node) == 0;
}

bool view__find(struct view *v, int dir)
{
	if (!v->prof || !v->trie.n)
		return false;
	if (v->focus != FOCUS_FLAT)
		return find_in_tree(v, &v->tree, dir);
	if (v->flat.callers_open)
		return find_in_tree(v, &v->flat.callers_tree, dir);
	return find_in_list(v, dir);
}

/* What an empty pane says. */
static const char *empty_text(const struct view *v)
{
	if (view__filtered(v))
		return "no stack matches the filters (Esc clears them)";
	if (!v->live)
		return "the file holds no stack";
	if (v->window == WINDOW_RECENT)
		return "no samples in the last interval yet";
	return "waiting for samples...";
}

static void draw_tree(struct screen *s, const struct view *v, struct screen_rect r)
{
	struct tree_draw d = {
		.prof = v->prof,
		.base = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0,
		.title = "Call tree",
		.root_label = ROOT_LABEL,
		.match = v->text,
		.empty = empty_text(v),
		.focused = v->focus == FOCUS_TREE,
		.show_self = true,
	};

	tree_pane__draw(s, &v->tree, r, &d);
}

static void draw_icicle(struct screen *s, const struct view *v, struct screen_rect r)
{
	char title[VIEW_MESSAGE_MAX];
	struct icicle_draw d = {
		.prof = v->prof,
		.top = v->zoom_node,
		.sel = v->tree.sel_node,
		.title = title,
		.root_label = ROOT_LABEL,
		.focused = v->focus == FOCUS_ICICLE,
	};

	if (v->zoom_node == TRIE_ROOT)
		snprintf(title, sizeof(title), "Icicle (Enter: zoom in)");
	else
		snprintf(title, sizeof(title), "Icicle zoomed on %s (Esc: zoom out)",
			 profile__frame_name(v->prof, v->trie.nodes[v->zoom_node].frame));
	if (!v->trie.n || !v->trie.nodes[TRIE_ROOT].total) {
		screen__put(s, r.row, r.col, r.w, title, (struct cell_style){ .role = ROLE_TITLE }, PUT_DOTS);
		return;
	}
	icicle__draw(s, &v->trie, r, &d);
}

static void draw_flat(struct screen *s, const struct view *v, struct screen_rect r)
{
	struct flat_draw d = {
		.prof = v->prof,
		.base = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0,
		.match = v->text,
		.empty = empty_text(v),
		.focused = v->focus == FOCUS_FLAT,
	};

	flat_pane__draw(s, &v->flat, r, &d);
}

static void draw_too_small(struct screen *s, const struct view *v)
{
	char line[96];

	snprintf(line, sizeof(line), "terminal too small (%dx%d, needs %dx%d)", v->width,
		 v->height, VIEW_MIN_WIDTH, VIEW_MIN_HEIGHT);
	screen__put(s, 0, 0, s->w, line, (struct cell_style){ .role = ROLE_ERROR }, PUT_DOTS);
}

void view__draw(struct screen *s, const struct view *v)
{
	struct view_geometry g;

	screen__clear(s);
	view__geometry(v, &g);
	if (g.too_small) {
		draw_too_small(s, v);
		return;
	}
	header__draw(s, v);
	if (v->help) {
		help__draw(s, (struct screen_rect){ g.header_rows, 0, v->width,
						    g.status_row - g.header_rows },
			   v->live);
	} else if (v->prof && v->trie.n) {
		draw_tree(s, v, g.tree);
		draw_icicle(s, v, g.icicle);
		draw_flat(s, v, g.flat);
	}
	status__draw(s, v, g.status_row);
}
