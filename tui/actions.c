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
#define KEYS_PER_BINDING (sizeof(((struct key_binding *)0)->keys) / sizeof(int))

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
	return reveal(v, icicle__neighbor(&v->trie, v->zoom_node, v->width, v->tree.sel_node, dir,
					  &v->icicle_memo));
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

/* x: the pid, comm and text filters go, those of the command line too. */
static unsigned int act_clear_filters(struct view *v)
{
	if (!view__filtered(v)) {
		view__say(v, false, "no filter to clear");
		return ACT_REDRAW;
	}
	v->ntgids = 0;
	v->comm[0] = '\0';
	v->text[0] = '\0';
	view__say(v, false, "filters cleared: every stack shown");
	return ACT_REBUILD | ACT_FILTER;
}

/* Leaves a sub-view: the callers, then a zoom of the icicle. Returns 0 when there is none. */
static unsigned int back(struct view *v)
{
	if (v->focus == FOCUS_FLAT && v->flat.callers_open) {
		flat_pane__close_callers(&v->flat);
		return ACT_REDRAW;
	}
	if (v->layout != LAYOUT_TREE && v->layout != LAYOUT_FLAT && view__unzoom(v, false))
		return ACT_REDRAW;
	return 0;
}

/* Esc: back from a sub-view, then the search ends; the filters stay (x clears them). */
static unsigned int act_escape(struct view *v)
{
	unsigned int flags = back(v);

	if (flags)
		return flags;
	if (v->search[0]) {
		view__search_end(v);
		view__say(v, false, "search ended");
		return ACT_REDRAW;
	}
	if (!view__filtered(v))
		return 0;
	view__say(v, false, "the filters stay: x clears them");
	return ACT_REDRAW;
}

static unsigned int act_quit(struct view *v)
{
	return back(v) ?: ACT_QUIT;
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
	/* The keys that follow before the next refresh act on the list: it is made now. */
	if (view__flat_ready(v))
		view__say(v, true, "no memory for the flat list");
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

/*
 * K and U, as -K and -U: only kernel frames, only user frames; the same key
 * again shows both sides.
 */
static unsigned int only_side(struct view *v, bool kernel)
{
	bool *hide_other = kernel ? &v->hide_user : &v->hide_kernel;
	bool on = !*hide_other || (kernel ? v->hide_kernel : v->hide_user);

	v->hide_user = kernel && on;
	v->hide_kernel = !kernel && on;
	if (on)
		view__say(v, false, "%s frames only (%c again: all frames)",
			  kernel ? "kernel" : "user", kernel ? 'K' : 'U');
	else
		view__say(v, false, "all frames: kernel and user");
	return ACT_REBUILD;
}

static unsigned int act_kernel_only(struct view *v)
{
	return only_side(v, true);
}

static unsigned int act_user_only(struct view *v)
{
	return only_side(v, false);
}

static unsigned int act_toggle_interp(struct view *v)
{
	v->hide_interp = !v->hide_interp;
	view__say(v, false, "interpreter frames under Python frames %s",
		  v->hide_interp ? "hidden" : "shown");
	return ACT_REBUILD;
}

/* Keys that only mean something live say so in the file viewer. */
static bool live_only(struct view *v)
{
	if (!v->live)
		view__say(v, false, "not in the file viewer: there is no live capture");
	return v->live;
}

/* Keys that change the capture wait while the display is paused. */
static bool not_paused(struct view *v)
{
	if (v->paused)
		view__say(v, false, "the display is paused: Space resumes it first");
	return !v->paused;
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
	if (!live_only(v) || !not_paused(v))
		return ACT_REDRAW;
	view__say(v, false, "counts reset: collecting from now on");
	return ACT_RESET | ACT_REBUILD;
}

static unsigned int act_pause(struct view *v)
{
	if (!live_only(v))
		return ACT_REDRAW;
	v->paused = !v->paused;
	view__say(v, false, "%s", v->paused ? "display paused: capture goes on (Space resumes)"
					    : "display resumed");
	return ACT_PAUSE | ACT_REBUILD;
}

static unsigned int act_swap_mode(struct view *v)
{
	if (!live_only(v) || !not_paused(v))
		return ACT_REDRAW;
	return ACT_SWAP_MODE | ACT_REBUILD;
}


/* a: the annotate pane on the selected function (the app makes its annotation). */
static unsigned int act_annotate(struct view *v)
{
	uint32_t frame = view__selected_frame(v);

	if (frame == PROFILE_NONE) {
		view__say(v, false, "a: select a function first");
		return ACT_REDRAW;
	}
	annotate_pane__open(&v->annotate, v->prof, frame);
	return ACT_ANNOTATE | ACT_REDRAW;
}

static unsigned int act_help(struct view *v)
{
	v->help = true;
	v->help_top = 0;
	return ACT_REDRAW;
}

/* Does the view's data name processes? The file viewer's may not; then says so. */
static bool has_pids(struct view *v, const char *key)
{
	if (v->live || profile__has_tgids(v->prof))
		return true;
	view__say(v, true,
		  "%s: this file names no process ids (only names such as perf's comm-PID do)",
		  key);
	return false;
}

static const char *const group_names[GROUP_NR] = {
	[GROUP_COMM] = "command",
	[GROUP_PID] = "process",
	[GROUP_TID] = "thread",
};

static unsigned int act_group(struct view *v)
{
	enum profile_group next = (v->group + 1) % GROUP_NR;

	if (next != GROUP_COMM && !has_pids(v, "P"))
		next = GROUP_COMM;
	else
		view__say(v, false, "the tree's first level: by %s", group_names[next]);
	if (next == v->group)
		return ACT_REDRAW;
	v->group = next;
	view__forget(v); /* the first level's frames change */
	return ACT_REBUILD;
}

static unsigned int act_flat_order(struct view *v)
{
	v->flat_order = v->flat_order == FLAT_BY_SELF ? FLAT_BY_TOTAL : FLAT_BY_SELF;
	view__say(v, false, "functions by %s", v->flat_order == FLAT_BY_SELF ? "self" : "total");
	return ACT_REBUILD;
}

static unsigned int find(struct view *v, int dir)
{
	if (!v->search[0])
		view__say(v, false, "no search: press / first");
	else if (!view__find(v, dir))
		view__say(v, false, "no frame shown contains \"%s\"", v->search);
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

/* Opens a prompt holding @initial: the first character typed replaces it. */
static unsigned int prompt(struct view *v, enum prompt_kind kind, const char *initial)
{
	v->prompt = kind;
	prompt_input__start(&v->input, initial);
	return ACT_REDRAW;
}

/* Writes @n pids as "12,34" into @buf. */
static void format_pids(char *buf, size_t size, const int32_t *pids, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? "," : "", pids[i]);
}

/* p: the selected row's process (its pids when grouped by command), else the filter's. */
static unsigned int act_prompt_pid(struct view *v)
{
	int32_t pids[VIEW_MAX_PIDS];
	char comm[VIEW_COMM_MAX], text[PROMPT_INPUT_MAX];
	long n;

	if (!has_pids(v, "p"))
		return ACT_REDRAW;
	n = view__selected_process(v, pids, VIEW_MAX_PIDS, comm);
	if (n > 0)
		format_pids(text, sizeof(text), pids, (size_t)n);
	else
		format_pids(text, sizeof(text), v->tgids, v->ntgids);
	return prompt(v, PROMPT_PID, text);
}

/* c: the selected row's command, else the filter's. */
static unsigned int act_prompt_comm(struct view *v)
{
	int32_t pids[VIEW_MAX_PIDS];
	char comm[VIEW_COMM_MAX];

	if (view__selected_process(v, pids, VIEW_MAX_PIDS, comm) < 0 || !comm[0])
		snprintf(comm, sizeof(comm), "%s", v->comm);
	return prompt(v, PROMPT_COMM, comm);
}

static unsigned int act_prompt_search(struct view *v)
{
	view__search_begin(v);
	return prompt(v, PROMPT_SEARCH, v->search);
}

/* A backslash: only the stacks with a frame holding a text. */
static unsigned int act_prompt_filter(struct view *v)
{
	return prompt(v, PROMPT_FILTER, v->text);
}

/* s: the file name, a new one after the clock, to edit; its extension picks the format. */
static unsigned int act_prompt_save(struct view *v)
{
	char name[PROMPT_INPUT_MAX];

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
		errno = 0;
		pid = strtol(s, &end, 10);
		if (end == s || errno || pid < 1 || pid > MAX_PID ||
		    (*end && *end != ',' && *end != ' ')) {
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

/* The live screen's check that each of @n pids is a process, as the command line's -p. */
static bool pids_exist(struct view *v, const int32_t *pids, long n)
{
	for (long i = 0; v->pid_exists && i < n; i++) {
		if (!v->pid_exists(pids[i])) {
			view__say(v, true, "p %d: no such process", pids[i]);
			return false;
		}
	}
	return true;
}

static unsigned int apply_pids(struct view *v)
{
	int32_t pids[VIEW_MAX_PIDS];
	long n = parse_pids(v, v->input.text, pids);

	if (n < 0 || !pids_exist(v, pids, n))
		return ACT_REDRAW;
	memcpy(v->tgids, pids, n * sizeof(*pids));
	v->ntgids = (size_t)n;
	return ACT_REBUILD | ACT_FILTER;
}

static unsigned int apply_comm(struct view *v)
{
	if (v->input.len >= sizeof(v->comm)) {
		view__say(v, true, "c: a command name has at most %zu bytes", sizeof(v->comm) - 1);
		return ACT_REDRAW;
	}
	memcpy(v->comm, v->input.text, v->input.len + 1);
	return ACT_REBUILD | ACT_FILTER;
}

/* Whether the prompt's text fits a text of @size bytes; says so when not. */
static bool text_fits(struct view *v, size_t size)
{
	if (v->input.len < size)
		return true;
	view__say(v, true, "%s: at most %zu characters", v->prompt == PROMPT_SEARCH ? "/" : "\\",
		  size - 1);
	return false;
}

/* The search as typed so far marks and selects at once (incremental, as less and vim). */
static unsigned int search_as_typed(struct view *v)
{
	if (text_fits(v, sizeof(v->search)) && strcmp(v->search, v->input.text) != 0)
		view__search_typed(v, v->input.text);
	return ACT_REDRAW;
}

static unsigned int apply_search(struct view *v)
{
	unsigned int flags = search_as_typed(v);

	if (v->search[0] && !v->search_frames)
		view__say(v, false, "no frame shown contains \"%s\"", v->search);
	return flags;
}

static unsigned int apply_text(struct view *v)
{
	if (!text_fits(v, sizeof(v->text)))
		return ACT_REDRAW;
	memcpy(v->text, v->input.text, v->input.len + 1);
	return ACT_REBUILD;
}

static unsigned int apply_delay(struct view *v)
{
	const char *in = v->input.text;
	char *end;
	double d = strtod(in, &end);

	if (end == in || *end || !isfinite(d) || d < 0.1 || d > 3600 ||
	    in[strspn(in, "0123456789.")]) {
		view__say(v, true, "d: '%s' is not a delay between 0.1 and 3600 seconds", in);
		return ACT_REDRAW;
	}
	v->delay = d;
	view__say(v, false, "refreshing every %g s", d);
	return ACT_DELAY | ACT_REDRAW;
}

static unsigned int apply_save(struct view *v)
{
	if (!v->input.len) {
		view__say(v, false, "s: nothing saved: no file name");
		return ACT_REDRAW;
	}
	memcpy(v->save_path, v->input.text, v->input.len + 1);
	return ACT_SAVE | ACT_REDRAW;
}

static unsigned int prompt_enter(struct view *v)
{
	enum prompt_kind kind = v->prompt;
	unsigned int flags;

	switch (kind) {
	case PROMPT_SEARCH: /* it says its own errors */
		flags = apply_search(v);
		v->prompt = PROMPT_NONE;
		return flags;
	case PROMPT_FILTER:
		flags = apply_text(v);
		v->prompt = PROMPT_NONE;
		return flags;
	default:
		break;
	}
	v->prompt = PROMPT_NONE;
	switch (kind) {
	case PROMPT_PID:
		return apply_pids(v);
	case PROMPT_COMM:
		return apply_comm(v);
	case PROMPT_DELAY:
		return apply_delay(v);
	case PROMPT_SAVE:
		return apply_save(v);
	default:
		return ACT_REDRAW;
	}
}

/* Esc: the prompt closes; a search goes back to the text and selection it started from. */
static unsigned int prompt_cancel(struct view *v)
{
	bool search = v->prompt == PROMPT_SEARCH;

	v->prompt = PROMPT_NONE;
	if (search)
		view__search_cancel(v);
	return ACT_REDRAW;
}

/* After an edit: a search applies what it holds now. */
static unsigned int edited(struct view *v)
{
	return v->prompt == PROMPT_SEARCH ? search_as_typed(v) : ACT_REDRAW;
}

static unsigned int edit_backspace(struct view *v)
{
	prompt_input__backspace(&v->input);
	return edited(v);
}

static unsigned int edit_delete(struct view *v)
{
	prompt_input__delete(&v->input);
	return edited(v);
}

static unsigned int edit_left(struct view *v)
{
	prompt_input__move(&v->input, -1);
	return ACT_REDRAW;
}

static unsigned int edit_right(struct view *v)
{
	prompt_input__move(&v->input, 1);
	return ACT_REDRAW;
}

static unsigned int edit_home(struct view *v)
{
	prompt_input__home(&v->input);
	return ACT_REDRAW;
}

static unsigned int edit_end(struct view *v)
{
	prompt_input__end(&v->input);
	return ACT_REDRAW;
}

static unsigned int edit_kill_before(struct view *v)
{
	prompt_input__kill_before(&v->input);
	return edited(v);
}

static unsigned int edit_kill_after(struct view *v)
{
	prompt_input__kill_after(&v->input);
	return edited(v);
}

/* An open prompt's keys; printable characters are typed in. */
static const struct key_binding prompt_bindings[] = {
	{ { TK_ENTER, '\r' }, "Enter", "apply", false, prompt_enter },
	{ { TK_ESC, TK_CTRL('g') }, "Esc", "cancel", false, prompt_cancel },
	{ { TK_BACKSPACE, 127, TK_CTRL('h') }, "Backspace", "delete back", false, edit_backspace },
	{ { TK_DELETE, TK_CTRL('d') }, "Delete", "delete under", false, edit_delete },
	{ { TK_LEFT, TK_CTRL('b') }, "Left", "cursor left", false, edit_left },
	{ { TK_RIGHT, TK_CTRL('f') }, "Right", "cursor right", false, edit_right },
	{ { TK_HOME, TK_CTRL('a') }, "Home", "to the start", false, edit_home },
	{ { TK_END, TK_CTRL('e') }, "End", "to the end", false, edit_end },
	{ { TK_CTRL('u') }, "Ctrl-U", "delete to the start", false, edit_kill_before },
	{ { TK_CTRL('k') }, "Ctrl-K", "delete to the end", false, edit_kill_after },
};

static unsigned int help_close(struct view *v)
{
	v->help = false;
	return ACT_REDRAW;
}

/* Scrolls the help by @delta rows (the view keeps it within its rows). */
static unsigned int help_scroll(struct view *v, long delta)
{
	long top = v->help_top + delta;

	v->help_top = top < 0 ? 0 : top > INT32_MAX / 2 ? INT32_MAX / 2 : (int)top;
	return ACT_REDRAW;
}

static unsigned int help_up(struct view *v)
{
	return help_scroll(v, -1);
}

static unsigned int help_down(struct view *v)
{
	return help_scroll(v, 1);
}

static unsigned int help_page_up(struct view *v)
{
	return help_scroll(v, -(v->height > 6 ? v->height - 5 : 1));
}

static unsigned int help_page_down(struct view *v)
{
	return help_scroll(v, v->height > 6 ? v->height - 5 : 1);
}

static unsigned int help_home(struct view *v)
{
	return help_scroll(v, -v->help_top);
}

static unsigned int help_end(struct view *v)
{
	return help_scroll(v, view__help_rows(v));
}

static unsigned int ann_move(struct view *v, long delta)
{
	annotate_pane__move(&v->annotate, delta);
	return ACT_REDRAW;
}

static unsigned int ann_up(struct view *v)
{
	return ann_move(v, -1);
}

static unsigned int ann_down(struct view *v)
{
	return ann_move(v, 1);
}

static unsigned int ann_page_up(struct view *v)
{
	return ann_move(v, -(long)v->annotate.height);
}

static unsigned int ann_page_down(struct view *v)
{
	return ann_move(v, v->annotate.height);
}

static unsigned int ann_home(struct view *v)
{
	return ann_move(v, -TREE_MOVE_ALL);
}

static unsigned int ann_end(struct view *v)
{
	return ann_move(v, TREE_MOVE_ALL);
}

static unsigned int ann_hot(struct view *v, int dir)
{
	if (!annotate_pane__hot(&v->annotate, dir))
		view__say(v, false, "no row holds a count");
	return ACT_REDRAW;
}

static unsigned int ann_next_hot(struct view *v)
{
	return ann_hot(v, 1);
}

static unsigned int ann_prev_hot(struct view *v)
{
	return ann_hot(v, -1);
}

static unsigned int ann_toggle(struct view *v)
{
	int err;

	if (v->annotate.loading)
		return 0;
	err = annotate_pane__toggle(&v->annotate);
	if (err == -EOPNOTSUPP)
		view__say(v, false, "i: %s", v->annotate.ann.insns_note);
	else if (err)
		view__say(v, true, "out of memory");
	return ACT_REDRAW;
}

static unsigned int ann_close(struct view *v)
{
	annotate_pane__close(&v->annotate);
	return ACT_REDRAW;
}

/* The annotate pane's keys; the help opens over it, and the rest are not keys here. */
static const struct key_binding annotate_bindings[] = {
	{ { TK_UP, 'k' }, "Up k", "up", false, ann_up },
	{ { TK_DOWN, 'j' }, "Down j", "down", false, ann_down },
	{ { TK_PGUP, TK_CTRL('b') }, "PgUp", "page up", false, ann_page_up },
	{ { TK_PGDN, TK_CTRL('f'), ' ' }, "PgDn", "page down", false, ann_page_down },
	{ { TK_HOME, 'g' }, "Home g", "first row", false, ann_home },
	{ { TK_END, 'G' }, "End G", "last row", false, ann_end },
	{ { 'n', TK_TAB }, "n Tab", "next hot row (cooler)", false, ann_next_hot },
	{ { 'N', TK_BACKTAB }, "N S-Tab", "previous hot row (hotter)", false, ann_prev_hot },
	{ { 'i' }, "i", "source lines / instructions", false, ann_toggle },
	{ { 'q', TK_ESC, 'a', TK_F(10) }, "q Esc", "back", false, ann_close },
	{ { '?', 'h', TK_F1 }, "? h F1", "the help", false, act_help },
};

/* The help's keys; any other key closes it too. */
static const struct key_binding help_bindings[] = {
	{ { TK_UP, 'k' }, "Up k", "scroll up", false, help_up },
	{ { TK_DOWN, 'j' }, "Down j", "scroll down", false, help_down },
	{ { TK_PGUP, TK_CTRL('b') }, "PgUp", "page up", false, help_page_up },
	{ { TK_PGDN, TK_CTRL('f'), ' ' }, "PgDn", "page down", false, help_page_down },
	{ { TK_HOME, 'g' }, "Home g", "top", false, help_home },
	{ { TK_END, 'G' }, "End G", "bottom", false, help_end },
};

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
	{ { TK_ESC }, "Esc", "back; zoom out; end search", false, act_escape },
	{ { '+', '=' }, "+", "expand", false, act_expand },
	{ { '-' }, "-", "collapse", false, act_collapse },
	{ { 'e' }, "e", "expand the hottest path", false, act_expand_hottest },
	{ { 'E' }, "E", "expand all", false, act_expand_all },
	{ { 'C' }, "C", "collapse all", false, act_collapse_all },
	{ { TK_TAB }, "Tab", "next pane and layout", false, act_tab },
	{ { TK_BACKTAB }, "S-Tab", "previous pane and layout", false, act_backtab },
	{ { 'K' }, "K", "kernel frames only / all", false, act_kernel_only },
	{ { 'U' }, "U", "user frames only / all", false, act_user_only },
	{ { 'I' }, "I", "hide/show interpreter frames", false, act_toggle_interp },
	{ { 'p' }, "p", "only these pids", false, act_prompt_pid },
	{ { 'c' }, "c", "only this command", false, act_prompt_comm },
	{ { '\\', TK_F(4) }, "\\ F4", "only stacks with this text", false, act_prompt_filter },
	{ { 'x' }, "x", "clear the filters: p, c, \\", false, act_clear_filters },
	{ { '/', TK_F(3) }, "/ F3", "search: mark the matches", false, act_prompt_search },
	{ { 'n' }, "n", "next match", false, act_next_match },
	{ { 'N' }, "N", "previous match", false, act_prev_match },
	{ { 'P' }, "P", "tree by command/pid/thread", false, act_group },
	{ { 'o' }, "o", "flat list by self/total", false, act_flat_order },
	{ { 'z' }, "z", "recent/cumulative window", true, act_window },
	{ { 'r' }, "r", "reset the counts", true, act_reset },
	{ { 'm' }, "m", "mode: sample, read, offcpu", true, act_swap_mode },
	{ { ' ' }, "Space", "pause/resume display", true, act_pause },
	{ { 'd' }, "d", "refresh delay", true, act_prompt_delay },
	{ { 's' }, "s", "save: folded, SVG or pprof", false, act_prompt_save },
	{ { 'a' }, "a", "annotate: its hot lines", false, act_annotate },
	{ { '?', 'h', TK_F1 }, "? h F1", "this help", false, act_help },
	{ { 'q', TK_F(10) }, "q F10", "back; quit", false, act_quit },
};

#define NBINDINGS (sizeof(bindings) / sizeof(bindings[0]))

const struct key_binding *actions__bindings(size_t *n)
{
	*n = NBINDINGS;
	return bindings;
}

/* A table of bindings, and keys[key] = its binding, made on first use. */
struct key_table {
	const struct key_binding *b;
	size_t n;
	const struct key_binding *keys[TK_NR];
	bool filled;
};

static struct key_table screen_keys = { bindings, NBINDINGS, { NULL }, false };
static struct key_table help_keys = { help_bindings,
				      sizeof(help_bindings) / sizeof(help_bindings[0]),
				      { NULL },
				      false };
static struct key_table annotate_keys = {
	annotate_bindings, sizeof(annotate_bindings) / sizeof(annotate_bindings[0]), { NULL }, false
};
static struct key_table prompt_keys = { prompt_bindings,
					sizeof(prompt_bindings) / sizeof(prompt_bindings[0]),
					{ NULL },
					false };

/* The binding of @key in @t, or NULL. */
static const struct key_binding *lookup(struct key_table *t, int key)
{
	for (size_t i = 0; !t->filled && i < t->n; i++) {
		for (size_t k = 0; k < KEYS_PER_BINDING; k++) {
			if (t->b[i].keys[k])
				t->keys[t->b[i].keys[k]] = &t->b[i];
		}
	}
	t->filled = true;
	return key >= 0 && key < TK_NR ? t->keys[key] : NULL;
}

static unsigned int prompt_key(struct view *v, int key)
{
	const struct key_binding *b = lookup(&prompt_keys, key);

	if (b)
		return b->act(v);
	if (key < ' ' || key > '~')
		return 0;
	prompt_input__type(&v->input, (char)key);
	return edited(v);
}

static unsigned int help_key(struct view *v, int key)
{
	const struct key_binding *b = lookup(&help_keys, key);

	return b ? b->act(v) : help_close(v);
}

static unsigned int unbound(struct view *v, int key)
{
	char name[16];

	key__name(key, name, sizeof(name));
	view__say(v, false, "%s: not a key here (? lists the keys)", name);
	return ACT_REDRAW;
}

unsigned int actions__key(struct view *v, int key)
{
	const struct key_binding *b;

	if (v->prompt != PROMPT_NONE)
		return prompt_key(v, key);
	v->message[0] = '\0';
	if (v->help)
		return help_key(v, key);
	if (v->annotate.open) {
		b = lookup(&annotate_keys, key);
		return b ? b->act(v) : unbound(v, key);
	}
	b = lookup(&screen_keys, key);
	if (!b)
		return unbound(v, key);
	/* Without rows (out of memory) only the help and quitting work. */
	if (!v->tree.nrows && b->act != act_quit && b->act != act_help)
		return 0;
	return b->act(v);
}
