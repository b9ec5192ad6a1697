// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hash_index.h"
#include "profile/text_match.h"
#include "tui/frame_label.h"
#include "tui/help_view.h"
#include "tui/icicle_view.h"
#include "tui/status_line.h"
#include "tui/view.h"

#define ROOT_LABEL "all"

int view__init(struct view *v, bool live, double delay, const struct key_binding *keys,
	       size_t nkeys)
{
	memset(v, 0, sizeof(*v));
	v->live = live;
	v->window = live ? WINDOW_RECENT : WINDOW_CUMULATIVE;
	v->delay = delay;
	v->keys = keys;
	v->nkeys = nkeys;
	v->info.win[WINDOW_CUMULATIVE].rate = v->info.win[WINDOW_RECENT].rate = -1;
	v->info.notes = "";
	if (stack_trie__init(&v->trie))
		return -ENOMEM;
	annotate_pane__init(&v->annotate);
	if (tree_pane__init(&v->tree, &v->trie) || flat_pane__init(&v->flat)) {
		view__free(v);
		return -ENOMEM;
	}
	return 0;
}

void view__free(struct view *v)
{
	annotate_pane__free(&v->annotate);
	icicle_memo__free(&v->icicle_memo);
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
	annotate_pane__close(&v->annotate);
}

void view__renumber(struct view *v, const struct profile *p)
{
	uint32_t zoom_n = v->zoom.n;

	tree_pane__renumber(&v->tree, p);
	flat_pane__renumber(&v->flat, p);
	frame_path__renumber(&v->zoom, p);
	if (v->zoom.n != zoom_n)
		v->nzoom_back = 0; /* the earlier zooms were along the part cut */
	frame_path__renumber(&v->search_from, p);
	v->search_from_frame = profile__renumbered(p, v->search_from_frame);
	annotate_pane__renumber(&v->annotate, p);
}

void view__filter(const struct view *v, struct view_filter *f)
{
	*f = (struct view_filter){
		.window = v->window,
		.hide_kernel = v->hide_kernel,
		.hide_user = v->hide_user,
		.hide_interp = v->hide_interp,
		.tgids = v->ntgids ? v->tgids : NULL,
		.ntgids = v->ntgids,
		.comm = v->comm[0] ? v->comm : NULL,
		.text = v->text[0] ? v->text : NULL,
		.group = v->group,
	};
}

/* What the header shows of @v. */
static void header_state(const struct view *v, struct header_state *h)
{
	*h = (struct header_state){
		.info = &v->info,
		.live = v->live,
		.paused = v->paused,
		.window = v->window,
		.total = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0,
		.whole = v->prof ? profile__total(v->prof, v->window) : 0,
		.tgids = v->tgids,
		.ntgids = v->ntgids,
		.exited = v->exited,
		.comm = v->comm[0] ? v->comm : NULL,
		.text = v->text[0] ? v->text : NULL,
		.hide_kernel = v->hide_kernel,
		.hide_user = v->hide_user,
	};
}

void view__window_line(const struct view *v, char *buf, size_t size)
{
	struct header_state h;

	header_state(v, &h);
	header__window_line(&h, buf, size);
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
 * trie (settled: settle_icicle()), at most half of @body (the tree takes
 * the rest), at least four when that is not more than half.
 */
static int icicle_rows(const struct view *v, int body)
{
	int want = v->icicle_want;
	int least = body / 2 < 4 ? body / 2 : 4;

	if (want > body / 2)
		want = body / 2;
	return want < least ? least : want;
}

void view__geometry(const struct view *v, struct view_geometry *g)
{
	int body, top;

	struct header_state h;

	memset(g, 0, sizeof(*g));
	g->too_small = v->width < VIEW_MIN_WIDTH || v->height < VIEW_MIN_HEIGHT;
	if (g->too_small)
		return;
	header_state(v, &h);
	g->header_rows = header__rows(&h);
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

/* What the help shows. */
static void help_content(const struct view *v, struct help_content *c, char *hook, size_t size)
{
	header__hook_line(&v->info, hook, size);
	*c = (struct help_content){ .keys = v->keys, .nkeys = v->nkeys, .live = v->live,
				    .hook_line = v->live ? hook : NULL };
}

int view__help_rows(const struct view *v)
{
	struct help_content c;
	char hook[VIEW_MESSAGE_MAX * 2];

	help_content(v, &c, hook, sizeof(hook));
	return help__rows(&c, v->width);
}

/* Keeps the help's first row where the last page still fills the screen. */
static void clamp_help(struct view *v, const struct view_geometry *g)
{
	int page = g->status_row - g->header_rows - 1;
	int last = view__help_rows(v) - (page > 0 ? page : 1);

	if (v->help_top > last)
		v->help_top = last;
	if (v->help_top < 0)
		v->help_top = 0;
}

int view__flat_ready(struct view *v)
{
	if (v->layout != LAYOUT_FLAT || !v->flat.stale || !v->prof)
		return 0;
	return flat_pane__rebuilt(&v->flat, &v->trie, v->prof, v->flat_order);
}

int view__refresh(struct view *v)
{
	struct view_geometry g;

	view__geometry(v, &g);
	clamp_help(v, &g);
	annotate_pane__layout(&v->annotate, g.status_row - g.header_rows);
	v->tree.height = pane_rows(g.tree.h);
	v->flat.height = pane_rows(g.flat.h);
	v->flat.callers_tree.height = v->flat.height;
	if (view__flat_ready(v))
		return -ENOMEM;
	flat_pane__scroll(&v->flat);
	if (tree_pane__refresh(&v->tree))
		return -ENOMEM;
	return v->flat.callers_open ? tree_pane__refresh(&v->flat.callers_tree) : 0;
}

void view__search_begin(struct view *v)
{
	snprintf(v->search_before, sizeof(v->search_before), "%s", v->search);
	v->search_from = v->tree.sel;
	v->search_from_frame = v->flat.sel_frame;
}

/* Selects what was selected when the search began. */
static void select_search_origin(struct view *v)
{
	v->tree.sel = v->search_from;
	v->tree.sel_node = v->trie.n ? frame_path__resolve(&v->tree.sel, &v->trie) : TRIE_ROOT;
	if (v->search_from_frame != PROFILE_NONE)
		flat_pane__select_frame(&v->flat, v->search_from_frame);
}

void view__search_typed(struct view *v, const char *text)
{
	snprintf(v->search, sizeof(v->search), "%s", text);
	select_search_origin(v);
	if (v->search[0])
		view__find(v, 1);
	view__search_share(v);
}

void view__search_cancel(struct view *v)
{
	memcpy(v->search, v->search_before, sizeof(v->search));
	select_search_origin(v);
	view__search_share(v);
}

void view__search_end(struct view *v)
{
	v->search[0] = '\0';
	view__search_share(v);
}

/* A digest of what decides which stacks @f keeps, from the profile of live mode @mode (or NULL). */
static uint64_t filter_digest(const struct view_filter *f, const char *mode)
{
	const char *text[] = { mode ? mode : "", f->comm ? f->comm : "", f->text ? f->text : "" };
	uint32_t w[5 + 2 * 3] = { f->window, f->hide_kernel, f->hide_user, f->group,
				  f->hide_interp };

	for (size_t i = 0; i < 3; i++) {
		uint64_t h = hash_bytes(text[i], strlen(text[i]));

		w[5 + 2 * i] = (uint32_t)h;
		w[6 + 2 * i] = (uint32_t)(h >> 32);
	}
	return hash_words((const uint32_t *)f->tgids, f->ntgids,
			  hash_words(w, sizeof(w) / sizeof(w[0]), 0));
}

/*
 * Sizes the icicle for the trie just built with filters @f: at once when
 * it is deeper, or the filters or the live mode changed; when shallower, only after
 * VIEW_ICICLE_SETTLE rebuilds in a row, so that the panes do not move at every
 * refresh as short-lived deep stacks come and go.
 */
static void settle_icicle(struct view *v, const struct view_filter *f)
{
	int want = v->trie.n ? (int)v->trie.max_depth + 2 : 0;
	uint64_t filters = filter_digest(f, v->info.mode);

	if (want >= v->icicle_want || filters != v->icicle_filters ||
	    ++v->icicle_shallower >= VIEW_ICICLE_SETTLE) {
		v->icicle_want = want;
		v->icicle_shallower = 0;
	}
	v->icicle_filters = filters;
}

/* What the icicle draws, titled @title. */
static struct icicle_draw icicle_of(const struct view *v, const char *title)
{
	return (struct icicle_draw){
		.prof = v->prof,
		.top = v->zoom_node,
		.sel = v->tree.sel_node,
		.title = title,
		.root_label = ROOT_LABEL,
		.focused = v->focus == FOCUS_ICICLE,
		.memo = &v->icicle_memo,
	};
}

/*
 * Live, keeps where the icicle's boxes are after a rebuild, so that the
 * next refreshes draw them alike where counts moved by a sample or two (see
 * icicle_view.h). Without the memory for it, they are drawn exact.
 */
static void remember_icicle(struct view *v)
{
	struct view_geometry g;
	struct icicle_draw d = icicle_of(v, "");

	view__geometry(v, &g);
	if (!v->live || g.too_small || g.icicle.h <= 0)
		v->icicle_memo.n = 0;
	else
		icicle__remember(&v->icicle_memo, &v->trie, g.icicle, &d);
}

int view__rebuild(struct view *v, const struct profile *p)
{
	struct view_filter f;
	int err;

	v->prof = p;
	view__filter(v, &f);
	if (v->live) /* refreshes: siblings a sample apart stay put */
		stack_trie__keep_order(&v->trie,
				       v->info.time_us ? time_shown_unit : count_shown_unit);
	err = stack_trie__build(&v->trie, p, &f);
	if (!err)
		settle_icicle(v, &f);
	if (!err)
		err = tree_pane__rebuilt(&v->tree);
	v->flat.stale = true;
	v->zoom_node = v->trie.n ? frame_path__resolve(&v->zoom, &v->trie) : TRIE_ROOT;
	if (!err)
		err = view__refresh(v);
	if (!err)
		remember_icicle(v);
	view__search_share(v);
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

/* Marks, a byte per frame id of the profile, the frames whose name holds the search; or NULL. */
static uint8_t *search_marks(const struct view *v)
{
	size_t n = profile__nframes(v->prof);
	uint8_t *marks = malloc(n ? n : 1);

	for (size_t i = 0; marks && i < n; i++)
		marks[i] = text_match(profile__frame_name(v->prof, (uint32_t)i), v->search) != NULL;
	return marks;
}

/* Steps through the flat list from the selection, wrapping around. */
static bool find_in_list(struct view *v, int dir, const uint8_t *marks)
{
	size_t n = v->flat.list.n;

	for (size_t i = 1; i <= n; i++) {
		size_t row = (v->flat.sel + n + (dir > 0 ? i : n - i)) % n;

		if (marks[v->flat.list.entries[row].frame]) {
			flat_pane__move(&v->flat, (long)row - (long)v->flat.sel);
			return true;
		}
	}
	return false;
}

/*
 * Finds the next match in @tp's trie, in depth-first order from the
 * selection, wrapping around: the trie steps over subtrees without a
 * marked frame.
 */
static bool find_in_tree(struct tree_pane *tp, int dir, const uint8_t *marks)
{
	uint32_t node = tree_pane__find(tp, dir, marks);

	return node != TRIE_NONE && tree_pane__reveal(tp, node) == 0;
}

bool view__find(struct view *v, int dir)
{
	uint8_t *marks;
	bool found;

	if (!v->prof || !v->trie.n || !v->search[0] || !(marks = search_marks(v)))
		return false;
	if (v->focus != FOCUS_FLAT)
		found = find_in_tree(&v->tree, dir, marks);
	else if (v->flat.callers_open)
		found = find_in_tree(&v->flat.callers_tree, dir, marks);
	else
		found = find_in_list(v, dir, marks);
	free(marks);
	return found;
}

/* Bits of search_marks()'s bytes: the frame matches; it was met in a stack shown. */
#define MATCH 1
#define MATCH_MET 2

void view__search_share(struct view *v)
{
	uint8_t *marks = NULL;
	size_t n;

	v->search_count = 0;
	v->search_frames = 0;
	if (!v->prof || !v->trie.n || !v->search[0] || !(marks = search_marks(v)))
		return;
	n = stack_trie__nstacks(&v->trie);
	for (size_t i = 0; i < n; i++) {
		const struct trie_stack *s = stack_trie__stack(&v->trie, i);
		bool through = false;

		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t frame = trie_stack__frame(&v->trie, s, k);

			if (!(marks[frame] & MATCH) || !stack_trie__shows(&v->trie, frame))
				continue;
			v->search_frames += !(marks[frame] & MATCH_MET);
			marks[frame] |= MATCH_MET;
			through = true;
		}
		if (through)
			v->search_count = count__add(v->search_count, s->count);
	}
	free(marks);
}

uint32_t view__selected_frame(const struct view *v)
{
	const struct tree_pane *tp = v->focus != FOCUS_FLAT ? &v->tree
				     : v->flat.callers_open ? &v->flat.callers_tree
							    : NULL;
	uint32_t node;

	if (!tp)
		return v->flat.list.n ? v->flat.sel_frame : PROFILE_NONE;
	/* The icicle's selected box; the tree's selected row. */
	node = v->focus == FOCUS_ICICLE ? tp->sel_node : tree_pane__selected_row(tp);
	return node < tp->trie->n ? tp->trie->nodes[node].frame : PROFILE_NONE;
}

/* The first-level frame of @node (TRIE_ROOT for the root). */
static uint32_t first_level(const struct stack_trie *t, uint32_t node)
{
	while (node != TRIE_ROOT && t->nodes[node].parent != TRIE_ROOT)
		node = t->nodes[node].parent;
	return node;
}

/* Adds @pid to the ascending @pids[0, *@n) when it is not there and there is room. */
static void add_pid(int32_t *pids, size_t *n, size_t max, int32_t pid)
{
	size_t i = 0;

	while (i < *n && pids[i] < pid)
		i++;
	if ((i < *n && pids[i] == pid) || *n == max)
		return;
	memmove(pids + i + 1, pids + i, (*n - i) * sizeof(*pids));
	pids[i] = pid;
	(*n)++;
}

long view__selected_process(const struct view *v, int32_t *pids, size_t max, char *comm)
{
	struct view_filter f;
	uint32_t group, comm_frame = PROFILE_NONE;
	bool several = false;
	size_t n = 0;

	if (v->focus == FOCUS_FLAT || !v->trie.n || v->tree.sel_node == TRIE_ROOT)
		return -ENOENT;
	group = v->trie.nodes[first_level(&v->trie, v->tree.sel_node)].frame;
	view__filter(v, &f);
	for (size_t i = 0; i < profile__nstacks(v->prof); i++) {
		struct profile_stack s;

		profile__stack(v->prof, i, &s);
		if (!(f.window == WINDOW_RECENT ? s.recent : s.total) ||
		    profile__stack_group(v->prof, s.id, v->group) != group ||
		    !view_filter__keeps(&f, v->prof, &s))
			continue;
		if (s.tgid != TGID_UNKNOWN)
			add_pid(pids, &n, max, s.tgid);
		several |= comm_frame != PROFILE_NONE && comm_frame != s.frames[0];
		comm_frame = s.frames[0];
	}
	comm[0] = '\0';
	if (comm_frame != PROFILE_NONE && !several &&
	    strlen(profile__frame_name(v->prof, comm_frame)) < VIEW_COMM_MAX)
		strcpy(comm, profile__frame_name(v->prof, comm_frame));
	return (long)n;
}

/* What an empty pane says. */
static const char *empty_text(const struct view *v)
{
	if (view__filtered(v))
		return "no stack matches the filters (x clears them)";
	if (!v->live)
		return "the file holds no stack";
	if (v->window == WINDOW_RECENT && v->info.span > 0)
		return "no samples in the last interval";
	return "collecting samples...";
}

static const char *const tree_titles[GROUP_NR] = {
	[GROUP_COMM] = "Call tree",
	[GROUP_PID] = "Call tree, by process",
	[GROUP_TID] = "Call tree, by thread",
};

static void draw_tree(struct screen *s, const struct view *v, struct screen_rect r)
{
	struct tree_draw d = {
		.prof = v->prof,
		.base = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0,
		.title = tree_titles[v->group],
		.root_label = ROOT_LABEL,
		.match = v->search[0] ? v->search : v->text,
		.empty = empty_text(v),
		.focused = v->focus == FOCUS_TREE,
		.show_self = true,
		.time_us = v->info.time_us,
	};

	tree_pane__draw(s, &v->tree, r, &d);
}

static void draw_icicle(struct screen *s, const struct view *v, struct screen_rect r)
{
	char title[VIEW_MESSAGE_MAX];
	struct icicle_draw d = icicle_of(v, title);

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
		.match = v->search[0] ? v->search : v->text,
		.empty = empty_text(v),
		.focused = v->focus == FOCUS_FLAT,
		.order = v->flat_order,
		.time_us = v->info.time_us,
	};

	flat_pane__draw(s, &v->flat, r, &d);
}

/*
 * Below the smallest size: the longest of these that fits on one line says
 * so, the size needed always in it; where none fits, the shortest wraps.
 */
static void draw_too_small(struct screen *s, const struct view *v)
{
	char lines[4][96];
	const char *text;
	size_t len, at = 0;
	int row = 0, i = 0;

	snprintf(lines[0], sizeof(lines[0]), "terminal too small (%dx%d, needs %dx%d)", v->width,
		 v->height, VIEW_MIN_WIDTH, VIEW_MIN_HEIGHT);
	snprintf(lines[1], sizeof(lines[1]), "too small: needs %dx%d", VIEW_MIN_WIDTH,
		 VIEW_MIN_HEIGHT);
	snprintf(lines[2], sizeof(lines[2]), "needs %dx%d", VIEW_MIN_WIDTH, VIEW_MIN_HEIGHT);
	snprintf(lines[3], sizeof(lines[3]), "%dx%d", VIEW_MIN_WIDTH, VIEW_MIN_HEIGHT);
	if (s->w <= 0)
		return;
	while (i < 3 && (int)strlen(lines[i]) > s->w)
		i++;
	text = lines[i];
	len = strlen(text);
	for (; row < s->h && at < len; row++, at += (size_t)s->w) {
		char part[96];

		snprintf(part, sizeof(part), "%.*s", s->w, text + at);
		screen__put(s, row, 0, s->w, part, (struct cell_style){ .role = ROLE_ERROR }, 0);
	}
}

/* A count of the view's as the search's line shows it: "321", "1.920 s". */
static void count_text(const struct view *v, uint64_t n, char *buf, size_t size)
{
	if (v->info.time_us)
		snprintf(buf, size, "%.3f s", (double)n / 1e6);
	else
		snprintf(buf, size, "%" PRIu64, n);
}

void view__amount(const struct view *v, uint64_t n, char *buf, size_t size)
{
	char count[32];

	count_text(v, n, count, sizeof(count));
	snprintf(buf, size, v->info.time_us ? "%s of %s" : "%s %s", count,
		 v->info.unit ? v->info.unit : "samples");
}

/*
 * What the search's matches hold, for the status line: "/leaf: 16.3% of the
 * samples (321) pass through 4 frames ...", shares as the tree's.
 */
static void search_line(const struct view *v, char *buf, size_t size)
{
	uint64_t base = v->trie.n ? v->trie.nodes[TRIE_ROOT].total : 0;
	char count[32];

	count_text(v, v->search_count, count, sizeof(count));
	snprintf(buf, size,
		 "/%s: %.1f%% of the %s (%s) pass through %zu frame%s | n N: next, previous | "
		 "Esc: end",
		 v->search, base ? 100.0 * (double)v->search_count / (double)base : 0.0,
		 v->info.unit ? v->info.unit : "samples", count, v->search_frames,
		 v->search_frames == 1 ? "" : "s");
}

/* The status line: the prompt, a message, what the search matches, or the keys. */
static void draw_status(struct screen *s, const struct view *v, int row)
{
	static const char *const questions[] = {
		[PROMPT_PID] = "Only pids (comma-separated; empty: all): ",
		[PROMPT_COMM] = "Only the command named (empty: all): ",
		[PROMPT_FILTER] = "Only stacks with a frame containing (empty: all): ",
		[PROMPT_SEARCH] = "Search frames containing (n N: next, previous): ",
		[PROMPT_DELAY] = "Refresh every (seconds, 0.1 to 3600): ",
		[PROMPT_SAVE] = "Save as (.folded, .svg flame graph, .pb.gz or .pprof): ",
	};
	char search[VIEW_MESSAGE_MAX];
	struct status_state st = {
		.prompt = v->prompt != PROMPT_NONE ? questions[v->prompt] : NULL,
		.input = &v->input,
		.message = v->message,
		.error = v->message_is_error,
		.live = v->live,
	};

	if (!v->message[0] && v->search[0]) {
		search_line(v, search, sizeof(search));
		st.message = search;
	}
	status__draw(s, row, &st);
}

void view__draw(struct screen *s, const struct view *v)
{
	struct view_geometry g;
	struct header_state h;

	screen__clear(s);
	view__geometry(v, &g);
	if (g.too_small) {
		draw_too_small(s, v);
		return;
	}
	header_state(v, &h);
	header__draw(s, &h);
	if (v->help) {
		struct help_content c;
		char hook[VIEW_MESSAGE_MAX * 2];

		help_content(v, &c, hook, sizeof(hook));
		help__draw(s,
			   (struct screen_rect){ g.header_rows, 0, v->width,
						 g.status_row - g.header_rows },
			   &c, v->help_top);
	} else if (v->annotate.open) {
		/* Its counts are cumulative (live: since the start or r), whatever the window. */
		struct annotate_draw d = { v->info.event ? v->info.event : "samples", v->info.time_us,
					   v->live };

		annotate_pane__draw(s,
				    (struct screen_rect){ g.header_rows, 0, v->width,
							  g.status_row - g.header_rows },
				    &v->annotate, &d);
	} else if (v->prof && v->trie.n) {
		draw_tree(s, v, g.tree);
		draw_icicle(s, v, g.icicle);
		draw_flat(s, v, g.flat);
	}
	draw_status(s, v, g.status_row);
}
