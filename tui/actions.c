// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/actions.h"
#include "tui/icicle_view.h"
#include "tui/snapshot.h"

#define MAX_PID 0x3fffffff

/* The tree the keys act on: the call tree, or the callers in the flat view. */
static struct tree_pane *focused_tree(struct view *v)
{
	if (v->focus != FOCUS_FLAT)
		return &v->tree;
	return v->flat.callers_open && v->flat.callers_tree.nrows ? &v->flat.callers_tree : NULL;
}

/* The flat list, when it has the focus (without the callers open). */
static struct flat_pane *focused_list(struct view *v)
{
	return v->focus == FOCUS_FLAT && !v->flat.callers_open ? &v->flat : NULL;
}

static const struct trie_node *node_of(const struct tree_pane *tp, uint32_t node)
{
	return &tp->trie->nodes[node];
}

/* The node of the selected row: the selection, or its ancestor that has a row. */
static uint32_t selected_row(const struct tree_pane *tp)
{
	return tree_pane__selected_row(tp);
}

/* Rows a page key moves: the focused pane's height. */
static long page(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);
	int h = tp ? tp->height : v->flat.height;

	return h > 1 ? h - 1 : 1;
}

static unsigned int move(struct view *v, long delta)
{
	struct tree_pane *tp = focused_tree(v);

	if (focused_list(v))
		flat_pane__move(&v->flat, delta);
	else if (tp)
		tree_pane__move(tp, delta);
	return ACT_REDRAW;
}

/* Selects @node in the call tree (the icicle's selection too), showing its row. */
static unsigned int reveal(struct view *v, uint32_t node)
{
	if (tree_pane__reveal(&v->tree, node))
		view__say(v, true, "out of memory");
	return ACT_REDRAW;
}

static unsigned int act_up(struct view *v)
{
	uint32_t sel = v->tree.sel_node;

	if (v->focus != FOCUS_ICICLE)
		return move(v, -1);
	if (sel == TRIE_ROOT)
		return 0;
	if (sel == v->zoom_node) /* above the zoom: zoom out with it */
		view__unzoom(v, true);
	return reveal(v, node_of(&v->tree, sel)->parent);
}

static unsigned int act_down(struct view *v)
{
	uint32_t child;

	if (v->focus != FOCUS_ICICLE)
		return move(v, 1);
	child = stack_trie__first_child(&v->trie, v->tree.sel_node);
	return child == TRIE_NONE ? 0 : reveal(v, child);
}

static unsigned int icicle_step(struct view *v, int dir)
{
	return reveal(v, icicle__neighbor(&v->trie, v->zoom_node, v->width, v->tree.sel_node, dir));
}

static unsigned int set_expanded(struct view *v, struct tree_pane *tp, uint32_t node,
				 bool expanded)
{
	if (tree_pane__set_expanded(tp, node, expanded))
		view__say(v, true, "out of memory");
	return ACT_REDRAW;
}

static unsigned int act_left(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);
	uint32_t sel;

	if (v->focus == FOCUS_ICICLE)
		return icicle_step(v, -1);
	if (!tp)
		return 0;
	sel = selected_row(tp);
	if (stack_trie__has_children(tp->trie, sel) && tree_pane__expanded(tp, sel))
		return set_expanded(v, tp, sel, false);
	if (sel != TRIE_ROOT)
		tree_pane__select(tp, node_of(tp, sel)->parent);
	return ACT_REDRAW;
}

static unsigned int act_right(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);
	uint32_t sel;

	if (v->focus == FOCUS_ICICLE)
		return icicle_step(v, 1);
	if (focused_list(v))
		return flat_pane__open_callers(&v->flat, &v->trie, v->prof) == 0 ? ACT_REDRAW : 0;
	if (!tp)
		return 0;
	sel = selected_row(tp);
	if (!stack_trie__has_children(tp->trie, sel))
		return 0;
	if (!tree_pane__expanded(tp, sel))
		return set_expanded(v, tp, sel, true);
	tree_pane__select(tp, stack_trie__first_child(tp->trie, sel));
	return ACT_REDRAW;
}

static unsigned int act_enter(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);
	uint32_t sel;

	if (v->focus == FOCUS_ICICLE) {
		view__zoom(v, v->tree.sel_node);
		return ACT_REDRAW;
	}
	if (focused_list(v))
		return act_right(v);
	if (!tp)
		return 0;
	sel = selected_row(tp);
	if (!stack_trie__has_children(tp->trie, sel))
		return 0;
	return set_expanded(v, tp, sel, !tree_pane__expanded(tp, sel));
}

static unsigned int act_page_up(struct view *v)
{
	return move(v, -page(v));
}

static unsigned int act_page_down(struct view *v)
{
	return move(v, page(v));
}

static unsigned int act_home(struct view *v)
{
	return move(v, -TREE_MOVE_ALL);
}

static unsigned int act_end(struct view *v)
{
	return move(v, TREE_MOVE_ALL);
}

static unsigned int clear_filters(struct view *v)
{
	v->ntgids = 0;
	v->comm[0] = '\0';
	v->text[0] = '\0';
	view__say(v, false, "filters cleared");
	return ACT_REBUILD | ACT_FILTER;
}

static unsigned int act_escape(struct view *v)
{
	if (v->focus == FOCUS_FLAT && v->flat.callers_open) {
		flat_pane__close_callers(&v->flat);
		return ACT_REDRAW;
	}
	if (v->layout != LAYOUT_TREE && v->layout != LAYOUT_FLAT && view__unzoom(v, false))
		return ACT_REDRAW;
	return view__filtered(v) ? clear_filters(v) : 0;
}

static unsigned int act_expand(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);

	return tp ? set_expanded(v, tp, selected_row(tp), true) : 0;
}

static unsigned int act_collapse(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);
	uint32_t sel;

	if (!tp)
		return 0;
	sel = selected_row(tp);
	if (!stack_trie__has_children(tp->trie, sel) || !tree_pane__expanded(tp, sel)) {
		if (sel == TRIE_ROOT)
			return 0;
		sel = node_of(tp, sel)->parent; /* a leaf or a collapsed row: fold its parent */
		tree_pane__select(tp, sel);
	}
	return set_expanded(v, tp, sel, false);
}

static unsigned int act_expand_hottest(struct view *v)
{
	struct tree_pane *tp = focused_tree(v);

	if (tp && tree_pane__expand_hottest(tp, selected_row(tp)))
		view__say(v, true, "out of memory");
	return tp ? ACT_REDRAW : 0;
}

static unsigned int set_all(struct view *v, bool expanded)
{
	struct tree_pane *tp = focused_tree(v);

	if (tp && tree_pane__set_all(tp, expanded))
		view__say(v, true, "out of memory");
	return tp ? ACT_REDRAW : 0;
}

static unsigned int act_expand_all(struct view *v)
{
	return set_all(v, true);
}

static unsigned int act_collapse_all(struct view *v)
{
	return set_all(v, false);
}

/* Tab's cycle: (layout, focus) pairs. */
static const struct {
	enum view_layout layout;
	enum view_focus focus;
} cycle[] = {
	{ LAYOUT_SPLIT, FOCUS_TREE }, { LAYOUT_SPLIT, FOCUS_ICICLE }, { LAYOUT_TREE, FOCUS_TREE },
	{ LAYOUT_ICICLE, FOCUS_ICICLE }, { LAYOUT_FLAT, FOCUS_FLAT },
};

#define NCYCLE (sizeof(cycle) / sizeof(cycle[0]))

static unsigned int cycle_view(struct view *v, size_t step)
{
	size_t i = 0;

	while (i < NCYCLE && (cycle[i].layout != v->layout || cycle[i].focus != v->focus))
		i++;
	i = (i + step) % NCYCLE;
	v->layout = cycle[i].layout;
	v->focus = cycle[i].focus;
	if (v->focus == FOCUS_FLAT && v->tree.sel_node != TRIE_ROOT)
		flat_pane__select_frame(&v->flat, v->trie.nodes[v->tree.sel_node].frame);
	return ACT_REDRAW;
}

static unsigned int act_tab(struct view *v)
{
	return cycle_view(v, 1);
}

static unsigned int act_backtab(struct view *v)
{
	return cycle_view(v, NCYCLE - 1);
}

static unsigned int act_toggle_kernel(struct view *v)
{
	v->hide_kernel = !v->hide_kernel;
	view__say(v, false, "kernel frames %s", v->hide_kernel ? "hidden" : "shown");
	return ACT_REBUILD;
}

static unsigned int act_toggle_user(struct view *v)
{
	v->hide_user = !v->hide_user;
	view__say(v, false, "user frames %s", v->hide_user ? "hidden" : "shown");
	return ACT_REBUILD;
}

/* Keys that only mean something live say so in the file viewer. */
static bool live_only(struct view *v)
{
	if (!v->live)
		view__say(v, false, "not in the file viewer: there is no live capture");
	return v->live;
}

static unsigned int act_window(struct view *v)
{
	if (!live_only(v))
		return ACT_REDRAW;
	v->window = v->window == WINDOW_RECENT ? WINDOW_CUMULATIVE : WINDOW_RECENT;
	view__say(v, false, "window: %s",
		  v->window == WINDOW_RECENT ? "recent (the last interval)" : "cumulative");
	return ACT_REBUILD;
}

static unsigned int act_reset(struct view *v)
{
	if (!live_only(v))
		return ACT_REDRAW;
	view__say(v, false, "counts reset");
	return ACT_RESET | ACT_REBUILD;
}

static unsigned int act_pause(struct view *v)
{
	if (!live_only(v))
		return ACT_REDRAW;
	v->paused = !v->paused;
	view__say(v, false, "%s", v->paused ? "display paused: capture goes on (Space resumes)"
					    : "display resumed");
	return v->paused ? ACT_REDRAW : ACT_REBUILD;
}

static unsigned int act_swap_mode(struct view *v)
{
	return live_only(v) ? ACT_SWAP_MODE | ACT_REBUILD : ACT_REDRAW;
}


static unsigned int act_quit(struct view *v)
{
	(void)v;
	return ACT_QUIT;
}

static unsigned int act_help(struct view *v)
{
	v->help = true;
	return ACT_REDRAW;
}

static unsigned int find(struct view *v, int dir)
{
	if (!v->text[0])
		view__say(v, false, "no search text: press / first");
	else if (!view__find(v, dir))
		view__say(v, false, "no frame contains \"%s\"", v->text);
	return ACT_REDRAW;
}

static unsigned int act_next_match(struct view *v)
{
	return find(v, 1);
}

static unsigned int act_prev_match(struct view *v)
{
	return find(v, -1);
}

/* Opens a prompt holding @initial. */
static unsigned int prompt(struct view *v, enum prompt_kind kind, const char *initial)
{
	v->prompt = kind;
	snprintf(v->input, sizeof(v->input), "%s", initial);
	v->input_len = strlen(v->input);
	return ACT_REDRAW;
}

static unsigned int act_prompt_pid(struct view *v)
{
	char pids[VIEW_INPUT_MAX] = "";
	size_t len = 0;

	for (size_t i = 0; i < v->ntgids && len < sizeof(pids); i++)
		len += snprintf(pids + len, sizeof(pids) - len, "%s%d", i ? "," : "", v->tgids[i]);
	return prompt(v, PROMPT_PID, pids);
}

static unsigned int act_prompt_comm(struct view *v)
{
	return prompt(v, PROMPT_COMM, v->comm);
}

static unsigned int act_prompt_search(struct view *v)
{
	return prompt(v, PROMPT_SEARCH, v->text);
}

/* s: the file name, a new one after the clock, to edit; its extension picks the format. */
static unsigned int act_prompt_save(struct view *v)
{
	char name[VIEW_INPUT_MAX];

	if (snapshot__default_name(time(NULL), name, sizeof(name)))
		name[0] = '\0';
	return prompt(v, PROMPT_SAVE, name);
}

static unsigned int act_prompt_delay(struct view *v)
{
	char delay[32];

	if (!live_only(v))
		return ACT_REDRAW;
	snprintf(delay, sizeof(delay), "%g", v->delay);
	return prompt(v, PROMPT_DELAY, delay);
}

/* Parses "12,34 56" into @out; returns the count, or -EINVAL / -E2BIG with a message. */
static long parse_pids(struct view *v, const char *s, int32_t *out)
{
	long n = 0;

	while (*s) {
		char *end;
		long pid;

		s += strspn(s, ", ");
		if (!*s)
			break;
		pid = strtol(s, &end, 10);
		if (end == s || pid < 1 || pid > MAX_PID || (*end && *end != ',' && *end != ' ')) {
			view__say(v, true, "p: '%.*s' is not a process id", (int)strcspn(s, ", "), s);
			return -EINVAL;
		}
		if (n == VIEW_MAX_PIDS) {
			view__say(v, true, "p: at most %d processes", VIEW_MAX_PIDS);
			return -E2BIG;
		}
		out[n++] = (int32_t)pid;
		s = end;
	}
	return n;
}

static unsigned int apply_pids(struct view *v)
{
	int32_t pids[VIEW_MAX_PIDS];
	long n = parse_pids(v, v->input, pids);

	if (n < 0)
		return ACT_REDRAW;
	memcpy(v->tgids, pids, n * sizeof(*pids));
	v->ntgids = (size_t)n;
	return ACT_REBUILD | ACT_FILTER;
}

static unsigned int apply_comm(struct view *v)
{
	if (v->input_len >= sizeof(v->comm)) {
		view__say(v, true, "c: a command name has at most %zu bytes", sizeof(v->comm) - 1);
		return ACT_REDRAW;
	}
	memcpy(v->comm, v->input, v->input_len + 1);
	return ACT_REBUILD | ACT_FILTER;
}

static unsigned int apply_search(struct view *v)
{
	if (v->input_len >= sizeof(v->text)) {
		view__say(v, true, "/: at most %zu characters", sizeof(v->text) - 1);
		return ACT_REDRAW;
	}
	memcpy(v->text, v->input, v->input_len + 1);
	v->search_pending = v->text[0] != '\0';
	return ACT_REBUILD;
}

static unsigned int apply_delay(struct view *v)
{
	char *end;
	double d = strtod(v->input, &end);

	if (end == v->input || *end || !isfinite(d) || d < 0.1 || d > 3600 ||
	    v->input[strspn(v->input, "0123456789.")]) {
		view__say(v, true, "d: '%s' is not a delay between 0.1 and 3600 seconds", v->input);
		return ACT_REDRAW;
	}
	v->delay = d;
	view__say(v, false, "refreshing every %g s", d);
	return ACT_DELAY | ACT_REDRAW;
}

static unsigned int apply_save(struct view *v)
{
	if (!v->input_len) {
		view__say(v, false, "s: nothing saved: no file name");
		return ACT_REDRAW;
	}
	memcpy(v->save_path, v->input, v->input_len + 1);
	return ACT_SAVE | ACT_REDRAW;
}

static unsigned int prompt_done(struct view *v)
{
	enum prompt_kind kind = v->prompt;

	v->prompt = PROMPT_NONE;
	switch (kind) {
	case PROMPT_PID:
		return apply_pids(v);
	case PROMPT_COMM:
		return apply_comm(v);
	case PROMPT_SEARCH:
		return apply_search(v);
	case PROMPT_DELAY:
		return apply_delay(v);
	case PROMPT_SAVE:
		return apply_save(v);
	default:
		return ACT_REDRAW;
	}
}

/* A key while a prompt is open: edit, apply (Enter) or cancel (Esc). */
static unsigned int prompt_key(struct view *v, int key)
{
	if (key == TK_ENTER || key == '\r')
		return prompt_done(v);
	if (key == TK_ESC) {
		v->prompt = PROMPT_NONE;
		return ACT_REDRAW;
	}
	if (key == TK_BACKSPACE || key == 127 || key == TK_CTRL('h')) {
		if (v->input_len)
			v->input[--v->input_len] = '\0';
	} else if (key == TK_CTRL('u')) {
		v->input_len = 0;
		v->input[0] = '\0';
	} else if (key >= ' ' && key < 127 && v->input_len + 1 < sizeof(v->input)) {
		v->input[v->input_len++] = (char)key;
		v->input[v->input_len] = '\0';
	}
	return ACT_REDRAW;
}

static const struct key_binding bindings[] = {
	{ { TK_UP, 'k' }, "Up k", "up; icicle: to the caller", false, act_up },
	{ { TK_DOWN, 'j' }, "Down j", "down; icicle: to the callee", false, act_down },
	{ { TK_LEFT }, "Left", "collapse; icicle: frame left", false, act_left },
	{ { TK_RIGHT }, "Right", "expand; icicle: frame right", false, act_right },
	{ { TK_PGUP, TK_CTRL('b') }, "PgUp", "page up", false, act_page_up },
	{ { TK_PGDN, TK_CTRL('f') }, "PgDn", "page down", false, act_page_down },
	{ { TK_HOME, 'g' }, "Home g", "first row", false, act_home },
	{ { TK_END, 'G' }, "End G", "last row", false, act_end },
	{ { TK_ENTER, '\r' }, "Enter", "expand; zoom in; callers", false, act_enter },
	{ { TK_ESC }, "Esc", "back; zoom out; no filters", false, act_escape },
	{ { '+', '=' }, "+", "expand", false, act_expand },
	{ { '-' }, "-", "collapse", false, act_collapse },
	{ { 'e' }, "e", "expand the hottest path", false, act_expand_hottest },
	{ { 'E' }, "E", "expand all", false, act_expand_all },
	{ { 'C' }, "C", "collapse all", false, act_collapse_all },
	{ { TK_TAB }, "Tab", "next pane and layout", false, act_tab },
	{ { TK_BACKTAB }, "S-Tab", "previous pane and layout", false, act_backtab },
	{ { 'K' }, "K", "hide/show kernel frames", false, act_toggle_kernel },
	{ { 'U' }, "U", "hide/show user frames", false, act_toggle_user },
	{ { 'p' }, "p", "only these pids", false, act_prompt_pid },
	{ { 'c' }, "c", "only this command", false, act_prompt_comm },
	{ { '/' }, "/", "only stacks with this text", false, act_prompt_search },
	{ { 'n' }, "n", "next match", false, act_next_match },
	{ { 'N' }, "N", "previous match", false, act_prev_match },
	{ { 'z' }, "z", "recent/cumulative window", true, act_window },
	{ { 'r' }, "r", "reset the counts", true, act_reset },
	{ { 'm' }, "m", "swap sample/read mode", true, act_swap_mode },
	{ { ' ' }, "Space", "pause/resume display", true, act_pause },
	{ { 'd' }, "d", "refresh delay", true, act_prompt_delay },
	{ { 's' }, "s", "save: .folded, .svg or .pb.gz", false, act_prompt_save },
	{ { '?', 'h', TK_F1 }, "? h F1", "this help", false, act_help },
	{ { 'q', TK_F10 }, "q F10", "quit", false, act_quit },
};

#define NBINDINGS (sizeof(bindings) / sizeof(bindings[0]))

const struct key_binding *actions__bindings(size_t *n)
{
	*n = NBINDINGS;
	return bindings;
}

/* keys[key] = its binding, made from the table on first use. */
static const struct key_binding *keys[TK_NR];

static void fill_keys(void)
{
	for (size_t i = 0; i < NBINDINGS; i++) {
		for (size_t k = 0; k < sizeof(bindings[i].keys) / sizeof(bindings[i].keys[0]); k++) {
			if (bindings[i].keys[k])
				keys[bindings[i].keys[k]] = &bindings[i];
		}
	}
}

unsigned int actions__key(struct view *v, int key)
{
	const struct key_binding *b;

	if (!keys['q'])
		fill_keys();
	if (v->prompt != PROMPT_NONE)
		return prompt_key(v, key);
	v->message[0] = '\0';
	if (v->help) {
		v->help = false;
		return ACT_REDRAW;
	}
	b = key >= 0 && key < TK_NR ? keys[key] : NULL;
	if (!b)
		return 0;
	/* Without rows (out of memory) only the help and quitting work. */
	if (!v->tree.nrows && b->act != act_quit && b->act != act_help)
		return 0;
	return b->act(v);
}
