// SPDX-License-Identifier: GPL-2.0
/*
 * The screen without a terminal: small profiles built by hand, key
 * sequences fed to the action layer, views rendered into the in-memory
 * screen at given sizes and compared with golden files written by hand
 * (tests/golden/, each one's reasoning in the test that uses it).
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "profile/flat.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "symbols/sanitize.h"
#include "tui/actions.h"
#include "tui/icicle_view.h"
#include "tui/prompt_input.h"
#include "tui/screen.h"
#include "tui/snapshot.h"
#include "tui/view.h"

#define GOLDEN "tests/golden"

/* A header's window figures, the same for both windows. */
#define BOTH(...) .win = { { __VA_ARGS__ }, { __VA_ARGS__ } }

/* Interns one frame as an entry point would: sanitized, "_[k]" kernel, "[...]" unnamed. */
static uint32_t frame(struct profile *p, const char *raw, size_t len, bool process)
{
	char name[NAME_MAX_BYTES + 1];
	enum frame_kind kind = process ? FRAME_PROCESS : FRAME_USER;
	size_t n;

	if (!process && len > 4 && memcmp(raw + len - 4, "_[k]", 4) == 0) {
		kind = FRAME_KERNEL;
		len -= 4;
	}
	n = sanitize_name(name, sizeof(name), raw, len);
	return profile__frame(p, name, n, kind, process || name[0] != '[');
}

/* Adds "PID comm;frame;...;frame COUNT" to @p. */
static void add(struct profile *p, const char *line)
{
	const char *stack = strchr(line, ' ') + 1, *count = strrchr(line, ' ') + 1;
	uint32_t frames[64];
	struct sample s = { .tgid = atoi(line), .frames = frames, .count = strtoull(count, NULL, 10) };

	for (const char *f = stack; f < count - 1;) {
		size_t len = strcspn(f, ";");

		if (f + len > count - 1)
			len = (size_t)(count - 1 - f);
		frames[s.n] = frame(p, f, len, s.n == 0);
		assert_int_not_equal(frames[s.n], PROFILE_NONE);
		s.n++;
		f += len + 1;
	}
	assert_int_equal(profile__add(p, &s), 0);
}

static struct profile *profile_of(const char *const *lines)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	for (; *lines; lines++)
		add(p, *lines);
	return p;
}

/* Two processes, user and kernel frames, an unnamed one; 100 samples in all. */
static const char *const P1[] = {
	"100 cpu_split;main;work;leaf_a 60",
	"100 cpu_split;main;work;leaf_b 20",
	"100 cpu_split;main;setup 5",
	"200 bash;main;readline;read_[k];vfs_read_[k] 10",
	"200 bash;[unknown] 5",
	NULL,
};

struct fixture {
	struct profile *prof;
	struct view view;
	struct screen screen;
};

/* A file viewer over @lines at @w x @h, with the header a file "t.folded" of @stacks lines gives. */
static void open_view(struct fixture *f, const char *const *lines, int w, int h, bool live)
{
	size_t stacks = 0, nkeys;
	const struct key_binding *keys = actions__bindings(&nkeys);

	while (lines[stacks])
		stacks++;
	memset(f, 0, sizeof(*f));
	f->prof = profile_of(lines);
	assert_int_equal(view__init(&f->view, live, 2.0, keys, nkeys), 0);
	f->view.info = (struct header_info){ .file = "t.folded", .stacks = stacks, .unit = "samples",
					     .notes = "", BOTH(.rate = -1) };
	f->view.window = WINDOW_CUMULATIVE;
	view__resize(&f->view, w, h);
	assert_int_equal(screen__resize(&f->screen, w, h), 0);
	assert_int_equal(view__rebuild(&f->view, f->prof), 0);
}

/* open_view() at 40 x 12 of a file, showing the icicle chart with the focus in it. */
static void open_icicle(struct fixture *f, const char *const *lines)
{
	open_view(f, lines, 40, 12, false);
	f->view.layout = LAYOUT_ICICLE;
	f->view.focus = FOCUS_ICICLE;
}

static void close_view(struct fixture *f)
{
	view__free(&f->view);
	screen__free(&f->screen);
	profile__free(f->prof);
}

/* Does what the app does with an action's flags, minus the capture. */
static unsigned int press(struct fixture *f, int key)
{
	unsigned int flags = actions__key(&f->view, key);

	if (flags & ACT_REBUILD)
		assert_int_equal(view__rebuild(&f->view, f->prof), 0);
	else if (flags & ACT_REDRAW)
		assert_int_equal(view__refresh(&f->view), 0);
	return flags;
}

/* Presses each character of @keys in turn; returns the flags of all. */
static unsigned int type(struct fixture *f, const char *keys)
{
	unsigned int flags = 0;

	for (; *keys; keys++)
		flags |= press(f, (unsigned char)*keys);
	return flags;
}

static char *render(struct fixture *f)
{
	char *text;

	view__draw(&f->screen, &f->view);
	text = screen__to_text(&f->screen);
	assert_non_null(text);
	return text;
}

static char *read_file(const char *path)
{
	FILE *in = fopen(path, "re");
	char *buf;
	long n;

	if (!in)
		fail_msg("%s: %s", path, strerror(errno));
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	rewind(in);
	buf = calloc(1, n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, in), n);
	fclose(in);
	return buf;
}

/*
 * The screen's text equals tests/golden/@name.txt; on a difference what it
 * shows is written to build/tests/got/@name.txt, to compare.
 */
static void assert_golden(struct fixture *f, const char *name)
{
	char path[256], got_path[256];
	char *want, *got = render(f);
	FILE *out;

	snprintf(path, sizeof(path), GOLDEN "/%s.txt", name);
	want = read_file(path);
	if (strcmp(want, got) != 0) {
		mkdir("build/tests/got", 0755);
		snprintf(got_path, sizeof(got_path), "build/tests/got/%s.txt", name);
		out = fopen(got_path, "w");
		if (out) {
			fputs(got, out);
			fclose(out);
		}
		fail_msg("the screen differs from %s: see %s", path, got_path);
	}
	free(want);
	free(got);
}

/* The name of the frame selected in the call tree ("all" for the root). */
static const char *selected(const struct fixture *f)
{
	uint32_t n = f->view.tree.sel_node;

	return n == TRIE_ROOT ? "all"
			      : profile__frame_name(f->prof, f->view.trie.nodes[n].frame);
}

/* The screen rows whose first cell is drawn selected. */
static int selected_rows(struct fixture *f, int *rows, int max)
{
	int n = 0;

	for (int r = 0; r < f->screen.h && n < max; r++) {
		if (screen__cell(&f->screen, r, 0)->style.attr & ATTR_SELECTED)
			rows[n++] = r;
	}
	return n;
}

/* Every cell holds a printable character: no control byte can reach the terminal. */
static void assert_printable(const struct screen *s)
{
	for (int r = 0; r < s->h; r++) {
		for (int c = 0; c < s->w; c++) {
			uint32_t ch = screen__cell(s, r, c)->ch;

			if (ch == SCREEN_WIDE_TAIL)
				continue;
			if (ch < 0x20 || (ch >= 0x7f && ch < 0xa0))
				fail_msg("cell %d,%d holds U+%04X", r, c, ch);
		}
	}
}

/* screen */

static void test_screen_put_clips_and_dots(void **state)
{
	struct screen s = { 0 };
	char *text;

	(void)state;
	assert_int_equal(screen__resize(&s, 12, 3), 0);
	assert_int_equal(screen__put(&s, 0, 0, 12, "hello world!", (struct cell_style){ 0 }, 0), 12);
	assert_int_equal(screen__put(&s, 1, 2, 6, "abcdefgh", (struct cell_style){ 0 }, PUT_DOTS), 6);
	assert_int_equal(screen__put(&s, 2, 8, 10, "abcdefgh", (struct cell_style){ 0 }, 0), 4);
	text = screen__to_text(&s);
	assert_string_equal(text, "hello world!\n  abcd..\n        abcd\n");
	free(text);
	screen__free(&s);
}

static void test_screen_never_stores_control_bytes(void **state)
{
	struct screen s = { 0 };
	char *text;

	(void)state;
	assert_int_equal(screen__resize(&s, 20, 2), 0);
	/* ESC, a lone C1 byte, C1 U+009B in UTF-8, an invalid byte, DEL, a bidi override. */
	screen__put(&s, 0, 0, 20, "a\x1b[2Jb\x9b\xc2\x9b" "c\xff\x7f\xe2\x80\xae!", (struct cell_style){ 0 }, 0);
	/* Two-column characters take two cells; one that does not fit becomes a space. */
	screen__put(&s, 1, 0, 5, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2", (struct cell_style){ 0 }, 0);
	assert_printable(&s);
	text = screen__to_text(&s);
	assert_string_equal(text, "a?[2Jb??c??" "?!\n\xe6\xbc\xa2\xe5\xad\x97\n");
	assert_int_equal(text__columns("\xe6\xbc\xa2\xe5\xad\x97" "ab"), 6);
	free(text);
	screen__free(&s);
}

/* tree */

/*
 * tests/golden/tree_initial.txt, 60x17: P1 in the viewer. The hottest path
 * (all > cpu_split > main > work > leaf_a) is expanded on the first draw;
 * bash stays collapsed. Shares are of 100.
 */
static void test_tree_hottest_path_expanded_first(void **state)
{
	struct fixture f;
	int rows[4];

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(view__refresh(&f.view), 0);
	assert_golden(&f, "tree_initial");
	assert_string_equal(selected(&f), "all");
	assert_int_equal(selected_rows(&f, rows, 4), 1);
	assert_int_equal(rows[0], 3);
	close_view(&f);
}

/*
 * tree_collapsed.txt: j selects cpu_split, - folds it. tree_expand_all.txt:
 * E opens every row (bash > main > readline > read > vfs_read, [unknown]). C
 * folds all back but the root: the collapsed screen again. e under
 * cpu_split opens its hottest path: the first screen again.
 */
static void test_tree_expand_collapse(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(type(&f, "j-"), ACT_REDRAW);
	assert_string_equal(selected(&f), "cpu_split");
	assert_golden(&f, "tree_collapsed");
	type(&f, "E");
	assert_golden(&f, "tree_expand_all");
	type(&f, "C");
	assert_golden(&f, "tree_collapsed");
	type(&f, "e");
	assert_golden(&f, "tree_initial");
	assert_string_equal(selected(&f), "cpu_split");
	close_view(&f);
}

/* Right opens a row, then steps into it; Left steps out, then folds; Enter toggles. */
static void test_tree_arrows(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	press(&f, TK_END);
	assert_string_equal(selected(&f), "bash");
	press(&f, TK_RIGHT);
	assert_true(tree_pane__expanded(&f.view.tree, f.view.tree.sel_node));
	press(&f, TK_RIGHT);
	assert_string_equal(selected(&f), "main");
	press(&f, TK_LEFT);
	assert_string_equal(selected(&f), "bash");
	press(&f, TK_LEFT);
	assert_false(tree_pane__expanded(&f.view.tree, f.view.tree.sel_node));
	press(&f, TK_ENTER);
	assert_true(tree_pane__expanded(&f.view.tree, f.view.tree.sel_node));
	press(&f, TK_HOME);
	assert_string_equal(selected(&f), "all");
	close_view(&f);
}

/* The name of the frame on row @i of the call tree's rows on screen ("all" for the root). */
static const char *row_name(const struct fixture *f, size_t i)
{
	uint32_t n = f->view.tree.rows[i].node;

	assert_true(i < f->view.tree.nrows);
	return n == TRIE_ROOT ? "all" : profile__frame_name(f->prof, f->view.trie.nodes[n].frame);
}

/*
 * Expanding the selected row scrolls its new rows into sight. At 60x10 the
 * tree shows 6 of the 8 first rows; G selects bash (row 7: the screen shows
 * rows 2 to 7, main to bash); e opens its hottest path: bash and its 5 rows
 * below (main, readline, read, vfs_read, [unknown]) fill the pane, bash on
 * top.
 */
static void test_tree_expand_scrolls_new_rows_into_sight(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 10, false);
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(view__refresh(&f.view), 0);
	type(&f, "G");
	assert_int_equal(f.view.tree.nrows, 6);
	assert_int_equal(f.view.tree.sel_row, 5);
	assert_string_equal(row_name(&f, 0), "main");
	assert_string_equal(row_name(&f, 5), "bash");
	type(&f, "e");
	assert_int_equal(f.view.tree.nrows, 6);
	assert_int_equal(f.view.tree.sel_row, 0);
	assert_string_equal(row_name(&f, 0), "bash");
	assert_string_equal(row_name(&f, 4), "vfs_read");
	assert_string_equal(row_name(&f, 5), "[unknown]");
	close_view(&f);
}

/*
 * K and U as -K and -U: kernel frames only, user frames only; the same key
 * again shows both. tree_user_only.txt: E, then U: bash's stack ends in
 * readline, now a leaf with self 10. tree_kernel_only.txt: then K: cpu_split
 * keeps only its process frame (self 85), bash goes straight to read [k];
 * the unnamed user frame goes too, leaving bash self 5. The header says
 * which side is shown.
 */
static void test_tree_kernel_or_user_only(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	type(&f, "E");
	assert_int_equal(type(&f, "U"), ACT_REBUILD);
	assert_golden(&f, "tree_user_only");
	type(&f, "K");
	assert_golden(&f, "tree_kernel_only");
	type(&f, "K"); /* again: both */
	assert_false(f.view.hide_kernel || f.view.hide_user);
	assert_string_equal(f.view.message, "all frames: kernel and user");
	text = render(&f);
	assert_non_null(strstr(text, "| filters: none\n"));
	free(text);
	type(&f, "UU");
	assert_false(f.view.hide_kernel || f.view.hide_user);
	close_view(&f);
}

/*
 * The selection stays on the same frame when rows move. E then G select
 * g (the last row). Then "two" gets hotter than "one" and moves above it:
 * g is now the fourth row, still selected (tree_follow.txt).
 */
static void test_selection_follows_frame_across_refresh(void **state)
{
	static const char *const lines[] = { "1 one;main;f 50", "2 two;main;g 30", NULL };
	struct fixture f;
	int rows[4];

	(void)state;
	open_view(&f, lines, 60, 17, true);
	f.view.layout = LAYOUT_TREE;
	type(&f, "EG");
	assert_string_equal(selected(&f), "g");
	assert_int_equal(f.view.tree.sel_row, 6);
	add(f.prof, "2 two;main;g 40");
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_string_equal(selected(&f), "g");
	assert_int_equal(f.view.tree.sel_row, 3);
	f.view.info = (struct header_info){ .mode = "sample", .hook = "perf_event cpu-clock",
					    .notes = "", .freq = 99, .ncpus = 2, BOTH(.rate = 60),
					    .event = "samples", .unit = "samples" };
	assert_golden(&f, "tree_follow");
	assert_int_equal(selected_rows(&f, rows, 4), 1);
	assert_int_equal(rows[0], 3 + 3); /* two header lines, the title, then row 3 */
	close_view(&f);
}

/* A frame that went away leaves the selection on its deepest ancestor still there. */
static void test_selection_falls_back_to_ancestor(void **state)
{
	static const char *const before[] = { "1 one;main;f 50", "1 one;main;h 10", NULL };
	struct fixture f;

	(void)state;
	open_view(&f, before, 60, 17, true);
	type(&f, "G");
	assert_string_equal(selected(&f), "h");
	profile__reset(f.prof);
	add(f.prof, "1 one;main;f 50");
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_string_equal(selected(&f), "main");
	add(f.prof, "1 one;main;h 10");
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_string_equal(selected(&f), "h"); /* back when it comes back */
	close_view(&f);
}

/*
 * The profile renumbers its frames (a fold that left most of them unused):
 * the selection and the icicle's zoom stay on the same frames, by their new
 * ids; the selected function of the flat list too.
 */
static void test_selection_kept_through_renumbering(void **state)
{
	struct fixture f;
	uint32_t leaf_a, renumbered_from;
	char name[32];

	(void)state;
	open_icicle(&f, P1);
	/* The profile again, after 70,000 frames no stack will use: its own get new ids. */
	profile__free(f.prof);
	f.prof = profile__new();
	for (int i = 0; i < 70000; i++) {
		snprintf(name, sizeof(name), "gone_%d", i);
		frame(f.prof, name, strlen(name), false);
	}
	for (const char *const *line = P1; *line; line++)
		add(f.prof, *line);
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	press(&f, TK_DOWN);
	press(&f, TK_DOWN);
	press(&f, TK_DOWN);
	press(&f, TK_ENTER); /* zoom on cpu_split;main;work */
	press(&f, TK_DOWN);
	assert_string_equal(selected(&f), "leaf_a");
	assert_int_equal(f.view.zoom.n, 3);
	leaf_a = f.view.tree.sel.frames[3];
	f.view.flat.sel_frame = leaf_a;
	/* A fold (over a limit of 4 stacks): renumbered. */
	renumbered_from = (uint32_t)profile__frames_gen(f.prof);
	assert_true(profile__fold(f.prof, 4, NULL, NULL) > 0);
	assert_int_not_equal(profile__frames_gen(f.prof), renumbered_from);
	assert_true(profile__nframes(f.prof) < 100);
	view__renumber(&f.view, f.prof);
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_string_equal(selected(&f), "leaf_a");
	assert_int_equal(f.view.zoom.n, 3);
	assert_string_equal(profile__frame_name(f.prof, f.view.zoom.frames[2]), "work");
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "leaf_a");
	close_view(&f);
}

/* filters */

/*
 * filter_pid.txt: p 200 Enter keeps bash's stacks (15): shares of them,
 * as the header says. Then c cpu_split Enter: nothing is both
 * (filter_none.txt). Esc leaves both (a filter is cleared on purpose, or
 * one the command line set would go by accident): x clears them.
 */
static void test_pid_and_comm_filters(void **state)
{
	struct fixture f;
	unsigned int flags;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(type(&f, "p200"), ACT_REDRAW);
	assert_int_equal(f.view.prompt, PROMPT_PID);
	flags = press(&f, TK_ENTER);
	assert_true(flags & ACT_FILTER);
	assert_true(flags & ACT_REBUILD);
	assert_int_equal(f.view.ntgids, 1);
	assert_int_equal(f.view.tgids[0], 200);
	assert_golden(&f, "filter_pid");
	flags = type(&f, "ccpu_split\n");
	assert_true(flags & ACT_FILTER);
	assert_string_equal(f.view.comm, "cpu_split");
	assert_golden(&f, "filter_none");
	flags = press(&f, TK_ESC);
	assert_false(flags & ACT_FILTER);
	assert_int_equal(f.view.ntgids, 1);
	assert_string_equal(f.view.comm, "cpu_split");
	assert_string_equal(f.view.message, "the filters stay: x clears them");
	flags = press(&f, 'x');
	assert_true(flags & ACT_FILTER);
	assert_int_equal(f.view.ntgids, 0);
	assert_string_equal(f.view.comm, "");
	assert_int_equal(f.view.trie.nodes[TRIE_ROOT].total, 100);
	close_view(&f);
}

/* The prompt edits, cancels, and refuses what is not a pid list. */
static void test_prompt_editing(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "p12x");
	press(&f, TK_BACKSPACE);
	assert_string_equal(f.view.input.text, "12");
	press(&f, TK_ESC);
	assert_int_equal(f.view.prompt, PROMPT_NONE);
	assert_int_equal(f.view.ntgids, 0);
	assert_int_equal(type(&f, "p12,ab\n"), ACT_REDRAW);
	assert_int_equal(f.view.ntgids, 0);
	assert_true(f.view.message_is_error);
	assert_non_null(strstr(f.view.message, "'ab' is not a process id"));
	assert_int_equal(type(&f, "c0123456789abcdef\n"), ACT_REDRAW);
	assert_string_equal(f.view.comm, "");
	assert_true(f.view.message_is_error);
	close_view(&f);
}

/*
 * / lea Enter marks the frames containing "lea" (leaf_a, leaf_b) and
 * selects the first match; every stack stays, and the shares stay those of
 * all 100 samples (perf top's), while the status line says what the matches
 * hold: 80 samples, 80.0%, through 2 frames (search.txt). n and N step
 * between matches, wrapping. Matches are underlined. Esc ends the search.
 * The filter (a backslash) keeps only the stacks with a match instead:
 * then the shares are of those, as the header says.
 */
static void test_search_marks_and_jumps(void **state)
{
	struct fixture f;
	int rows[4];
	char *text;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	f.view.layout = LAYOUT_TREE;
	type(&f, "/lea\n");
	assert_string_equal(f.view.search, "lea");
	assert_string_equal(f.view.text, "");
	assert_int_equal(f.view.trie.nodes[TRIE_ROOT].total, 100);
	assert_int_equal(f.view.search_count, 80);
	assert_int_equal(f.view.search_frames, 2);
	assert_string_equal(selected(&f), "leaf_a");
	type(&f, "n");
	assert_string_equal(selected(&f), "leaf_b");
	type(&f, "n");
	assert_string_equal(selected(&f), "leaf_a");
	type(&f, "N");
	assert_string_equal(selected(&f), "leaf_b");
	assert_golden(&f, "search");
	assert_int_equal(selected_rows(&f, rows, 4), 1);
	/* leaf_b is at depth 4: its name starts at column 25 + 8 + 4; "lea" is underlined. */
	for (int c = 33; c < 44; c++)
		assert_int_equal(!!(screen__cell(&f.screen, rows[0], c)->style.attr & ATTR_UNDERLINE),
				 c >= 37 && c < 40);
	assert_int_equal(press(&f, TK_ESC), ACT_REDRAW);
	assert_string_equal(f.view.search, "");
	assert_int_equal(f.view.search_count, 0);
	/*
	 * The filter: the stacks through leaf_a and leaf_b, 80 of 100, are 100% now;
	 * at 60 columns the header says it in its fewest words.
	 */
	assert_true(type(&f, "\\lea\n") & ACT_REBUILD);
	assert_string_equal(f.view.text, "lea");
	assert_int_equal(f.view.trie.nodes[TRIE_ROOT].total, 80);
	text = render(&f);
	assert_non_null(
		strstr(text, "\ncumulative, 80 of 100 | text \"lea\" | % of the filtered\n"));
	free(text);
	close_view(&f);
}

/* icicle */

/* Exact widths: see the comment above test_icicle_widths(). */
static const char *const P2[] = {
	"1 app;main;alpha;sys_read_[k] 20",
	"1 app;main;alpha 31",
	"1 app;main;beta;b1 29",
	"1 app;main;beta 1",
	"1 app;main;gamma;tiny 2",
	"1 app;main;gamma 11",
	"1 app;main;delta 2",
	"1 app;main 1",
	NULL,
};

/*
 * icicle_widths.txt, 40 columns, P2 (97 samples). A child of a frame drawn
 * in W columns from X, of total T, takes [X + floor(W*S0/T), X +
 * floor(W*S1/T)), S0 and S1 the running sums before and with it; one with
 * W*total < T is not drawn.
 *   all, app, main: 97 of 97: [0,40).
 *   main's children, T=97, W=40, running sums 51, 81, 94:
 *     alpha 51: [0, floor(2040/97)=21)          21 columns
 *     beta  30: [21, floor(3240/97)=33)         12 columns
 *     gamma 13: [33, floor(3760/97)=38)          5 columns: "[g..]"
 *     delta  2: 40*2 = 80 < 97: not drawn; columns 38-39 stay blank.
 *   alpha's child sys_read [k] 20, T=51, W=21: [0, floor(420/51)=8): "{sys_..}".
 *   beta's child b1 29, T=30, W=12: [21, 21 + floor(348/30)=32): 11 columns.
 *   gamma's child tiny 2, T=13, W=5: 10 < 13: not drawn.
 */
static void test_icicle_widths(void **state)
{
	struct fixture f;
	struct icicle_layout l = { 0 };

	(void)state;
	open_icicle(&f, P2);
	assert_int_equal(view__refresh(&f.view), 0);
	assert_golden(&f, "icicle_widths");
	assert_int_equal(icicle__layout(&l, &f.view.trie, TRIE_ROOT, 40, 10, NULL), 0);
	assert_int_equal(l.levels, 5);
	assert_int_equal(l.level_start[4] - l.level_start[3], 3);
	assert_int_equal(l.boxes[l.level_start[3] + 0].x, 0);
	assert_int_equal(l.boxes[l.level_start[3] + 0].w, 21);
	assert_int_equal(l.boxes[l.level_start[3] + 1].x, 21);
	assert_int_equal(l.boxes[l.level_start[3] + 1].w, 12);
	assert_int_equal(l.boxes[l.level_start[3] + 2].x, 33);
	assert_int_equal(l.boxes[l.level_start[3] + 2].w, 5);
	icicle_layout__free(&l);
	close_view(&f);
}

/*
 * In the chart, Down goes to the hottest child, Right to the next frame at
 * that depth, Enter zooms (icicle_zoom.txt: beta fills the width, b1 takes
 * floor(40*29/30) = 38 columns), Esc goes back to the chart before the
 * zoom, with beta (columns 21-32 of row 6) highlighted.
 */
static void test_icicle_navigation_and_zoom(void **state)
{
	struct fixture f;

	(void)state;
	open_icicle(&f, P2);
	press(&f, TK_DOWN);
	press(&f, TK_DOWN);
	press(&f, TK_DOWN);
	assert_string_equal(selected(&f), "alpha");
	press(&f, TK_RIGHT);
	assert_string_equal(selected(&f), "beta");
	press(&f, TK_RIGHT);
	assert_string_equal(selected(&f), "gamma");
	press(&f, TK_RIGHT); /* gamma is the last drawn: it stays */
	assert_string_equal(selected(&f), "gamma");
	press(&f, TK_LEFT);
	press(&f, TK_ENTER);
	assert_golden(&f, "icicle_zoom");
	press(&f, TK_ESC);
	assert_golden(&f, "icicle_widths");
	for (int c = 0; c < 40; c++)
		assert_int_equal(!!(screen__cell(&f.screen, 6, c)->style.attr & ATTR_SELECTED),
				 c >= 21 && c < 33);
	/* Up from the top of a zoom zooms out with it, one level. */
	press(&f, TK_ENTER);
	assert_int_equal(f.view.zoom.n, 3);
	press(&f, TK_UP);
	assert_string_equal(selected(&f), "main");
	assert_int_equal(f.view.zoom.n, 2);
	assert_int_equal(f.view.zoom_node, f.view.tree.sel_node);
	close_view(&f);
}

/*
 * A frame one column wide is a sliver: "|", or ":" for a kernel frame. At 40
 * columns, of 80 samples: x 76 takes [0, floor(40*76/80)=38); k [k] and y,
 * 2 each, go by name on a tie: k takes [38, floor(40*78/80)=39), y [39, 40).
 */
static void test_icicle_slivers(void **state)
{
	static const char *const lines[] = { "1 a;x 76", "1 a;y 2", "1 a;k_[k] 2", NULL };
	struct fixture f;
	char *text;

	(void)state;
	open_icicle(&f, lines);
	assert_int_equal(view__refresh(&f.view), 0);
	text = render(&f);
	/* "[x" and 35 blanks fill x's 38 columns with its "]". */
	assert_non_null(strstr(text, "\n[x                                   ]:|\n"));
	free(text);
	close_view(&f);
}

/* Esc undoes zooms one at a time, back to the whole chart. */
static void test_icicle_zoom_history(void **state)
{
	struct fixture f;

	(void)state;
	open_icicle(&f, P2);
	press(&f, TK_DOWN);
	press(&f, TK_DOWN);
	press(&f, TK_ENTER);
	assert_int_equal(f.view.zoom.n, 2); /* app > main */
	press(&f, TK_DOWN);
	press(&f, TK_RIGHT);
	press(&f, TK_ENTER);
	assert_int_equal(f.view.zoom.n, 3); /* app > main > beta */
	assert_int_equal(press(&f, TK_ESC), ACT_REDRAW);
	assert_int_equal(f.view.zoom.n, 2);
	assert_int_equal(press(&f, TK_ESC), ACT_REDRAW);
	assert_int_equal(f.view.zoom.n, 0);
	assert_int_equal(press(&f, TK_ESC), 0); /* nothing left to undo, no filter */
	close_view(&f);
}

/* sizes */

static void test_tiny_sizes(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 39, 10, false);
	assert_golden(&f, "too_small_39x10");
	view__resize(&f.view, 40, 9);
	assert_int_equal(screen__resize(&f.screen, 40, 9), 0);
	assert_int_equal(view__refresh(&f.view), 0);
	assert_golden(&f, "too_small_40x9");
	view__resize(&f.view, 40, 10);
	assert_int_equal(screen__resize(&f.screen, 40, 10), 0);
	assert_int_equal(view__refresh(&f.view), 0);
	assert_golden(&f, "smallest_40x10");
	close_view(&f);
}

/*
 * Below 40x10, at any size down to 1x1, the screen says it is too small
 * and names the size it needs, as much of it as fits: the whole sentence,
 * shorter ones, or "40x10" wrapped over the rows; never more than the
 * screen holds.
 */
static void test_too_small_fits_any_size(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 40, 10, false);
	for (int w = 1; w <= 45; w++) {
		for (int h = 1; h <= 12; h++) {
			char *text, flat[512] = "";
			size_t n = 0;

			if (w >= 40 && h >= 10)
				continue;
			view__resize(&f.view, w, h);
			assert_int_equal(screen__resize(&f.screen, w, h), 0);
			assert_int_equal(view__refresh(&f.view), 0);
			text = render(&f);
			for (const char *c = text; *c && n + 1 < sizeof(flat); c++)
				if (*c != '\n' && *c != ' ')
					flat[n++] = *c;
			flat[n] = '\0';
			if (w * h >= 5 && !strstr(flat, "40x10"))
				fail_msg("%dx%d: the size needed is not all there: %s", w, h, text);
			if (w >= 40 && !strstr(text, "terminal too small ("))
				fail_msg("%dx%d: not the whole sentence: %s", w, h, text);
			free(text);
		}
	}
	close_view(&f);
}

/* A name with ESC and BEL enters sanitized, and the screen holds only printable cells. */
static void test_escape_in_name_is_harmless(void **state)
{
	static const char *const lines[] = {
		"7 evil;\x1b[31mred\x1b[2J\x07;leaf\x1b[0m 5",
		NULL,
	};
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, lines, 60, 12, false);
	text = render(&f);
	assert_printable(&f.screen);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\x07'));
	assert_non_null(strstr(text, "?[31mred?[2J?"));
	assert_non_null(strstr(text, "leaf?[0m"));
	free(text);
	close_view(&f);
}

/* flat */

/*
 * flat.txt: P1's functions by self count. main is in both processes:
 * total 85 + 10 = 95. Ties in self go by total, then name ('[' < 's').
 * The Object column (10 wide at 60 columns: the Shared Object's title
 * needs 14): a file names no object, so kernel frames are "[kernel]", the
 * unnamed frame "[unknown]", named user frames blank.
 * flat_callers.txt: j x5 selects main, Enter lists its callers (both
 * processes, shares of all 100 samples). Esc is back to the list.
 */
static void test_flat_list_and_callers(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "\t\t\t\t");
	assert_int_equal(f.view.layout, LAYOUT_FLAT);
	assert_int_equal(f.view.focus, FOCUS_FLAT);
	assert_golden(&f, "flat");
	type(&f, "jjjjj\n");
	assert_true(f.view.flat.callers_open);
	assert_golden(&f, "flat_callers");
	press(&f, TK_ESC);
	assert_false(f.view.flat.callers_open);
	assert_golden(&f, "flat");
	close_view(&f);
}

/*
 * The live screen starts with an empty profile: every layout of it draws
 * (the flat list of no function sorts nothing; the sanitized build of this
 * test stops at a qsort_r() of a NULL array).
 */
static void test_empty_profile_every_layout(void **state)
{
	static const char *const none[] = { NULL };
	struct fixture f;

	(void)state;
	open_view(&f, none, 60, 17, true);
	for (int i = 0; i < 4; i++) {
		free(render(&f));
		type(&f, "\t");
	}
	assert_int_equal(f.view.layout, LAYOUT_FLAT);
	assert_int_equal(f.view.flat.list.n, 0);
	close_view(&f);
}

/*
 * In the flat view, / and n step through the functions in the list's
 * order, from the selection; the list keeps every function: by self,
 * leaf_a 60, leaf_b 20, vfs_read 10, [unknown] 5, setup 5, then the self 0
 * ones by total: main 95, work 80, read 10, readline 10.
 */
static void test_flat_search(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "\t\t\t\t/read\n");
	assert_int_equal(f.view.flat.list.n, 9);
	assert_int_equal(f.view.flat.sel, 2);
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "vfs_read");
	type(&f, "n");
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "read");
	type(&f, "n");
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "readline");
	type(&f, "n");
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "vfs_read");
	type(&f, "N");
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "readline");
	close_view(&f);
}

/*
 * The flat list is made when it is shown, from the trie as it is then:
 * after K in the tree, Tab to the list shows no kernel frame (readline now
 * ends bash's stacks) and selects the frame the tree had selected.
 */
static void test_flat_list_made_when_shown(void **state)
{
	static const char *const want[] = { "leaf_a", "leaf_b", "readline", "[unknown]", "setup",
					    "main", "work" };
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "Ujjj");
	assert_string_equal(selected(&f), "work");
	type(&f, "\t\t\t\t");
	assert_int_equal(f.view.layout, LAYOUT_FLAT);
	assert_int_equal(f.view.flat.list.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < f.view.flat.list.n; i++)
		assert_string_equal(profile__frame_name(f.prof, f.view.flat.list.entries[i].frame),
				    want[i]);
	assert_int_equal(f.view.flat.list.entries[2].self, 10);
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.sel_frame), "work");
	assert_int_equal(f.view.flat.sel, 6);
	close_view(&f);
}

/*
 * Keys read together act before the screen is refreshed, as the app reads
 * them: Tab to the flat list then Enter opens the callers of its first row.
 */
static void test_keys_after_tab_act_on_the_list(void **state)
{
	struct fixture f;
	unsigned int flags = 0;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	for (const char *k = "\t\t\t\t\n"; *k; k++)
		flags |= actions__key(&f.view, *k);
	assert_true(f.view.flat.callers_open);
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.callers_frame), "leaf_a");
	assert_int_equal(flags & ACT_REBUILD, 0);
	assert_int_equal(view__refresh(&f.view), 0);
	close_view(&f);
}

/* A function that recurses counts each stack once in its total. */
static void test_flat_recursion_counts_once(void **state)
{
	static const char *const lines[] = { "1 r;f;f;f;g 10", "1 r;f 5", NULL };
	struct profile *p = profile_of(lines);
	struct view_filter vf = { .window = WINDOW_CUMULATIVE };
	struct stack_trie t, callers;
	struct flat_list fl = { 0 };

	(void)state;
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__init(&callers), 0);
	assert_int_equal(stack_trie__build(&t, p, &vf), 0);
	assert_int_equal(flat_list__build(&fl, &t, p, FLAT_BY_SELF), 0);
	assert_int_equal(fl.n, 2);
	assert_string_equal(profile__frame_name(p, fl.entries[0].frame), "g");
	assert_int_equal(fl.entries[0].self, 10);
	assert_string_equal(profile__frame_name(p, fl.entries[1].frame), "f");
	assert_int_equal(fl.entries[1].self, 5);
	assert_int_equal(fl.entries[1].total, 15);
	/* The callers of f: its outermost calls only, both from r. */
	assert_int_equal(stack_trie__build_callers(&callers, &t, p, fl.entries[1].frame), 0);
	assert_int_equal(callers.nodes[TRIE_ROOT].total, 15);
	assert_int_equal(callers.nodes[stack_trie__first_child(&callers, TRIE_ROOT)].total, 15);
	flat_list__free(&fl);
	stack_trie__free(&callers);
	stack_trie__free(&t);
	profile__free(p);
}

/* header, help, keys */

/*
 * header_read.txt, 80x12: read mode through the syscall tracepoint, with
 * why fentry failed on a third line, 1234.4 reads/s shown as 1234, the
 * recent window's 2.04 s as 2.0.
 * header_paused.txt: sample mode, paused, user frames only.
 */
static void test_live_header(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 80, 12, true);
	f.view.window = WINDOW_RECENT;
	f.view.info = (struct header_info){ .mode = "read", .hook = "syscall-entry tracepoint",
					    .notes = "fentry/vfs_read: Operation not permitted",
					    .ncpus = 2, BOTH(.rate = 1234.4, .lost = 7),
					    .event = "reads", .unit = "reads", .span = 2.04 };
	f.view.layout = LAYOUT_TREE;
	profile__close_interval(f.prof); /* the recent window: everything so far */
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_golden(&f, "header_read");
	f.view.info = (struct header_info){ .mode = "sample", .hook = "perf_event cpu-clock",
					    .notes = "", .freq = 99, .ncpus = 2, BOTH(.rate = -1),
					    .event = "samples", .unit = "samples" };
	f.view.window = WINDOW_CUMULATIVE;
	type(&f, " U");
	assert_true(f.view.paused);
	assert_golden(&f, "header_paused");
	close_view(&f);
}


/* The split layout's icicle rows, after a rebuild with the recent window being @line's stack. */
static int icicle_rows_after(struct fixture *f, const char *line)
{
	struct view_geometry g;

	add(f->prof, line);
	profile__close_interval(f->prof);
	assert_int_equal(view__rebuild(&f->view, f->prof), 0);
	view__geometry(&f->view, &g);
	return g.icicle.h;
}

/*
 * The icicle grows at once for a deeper stack, but shrinks back only
 * after VIEW_ICICLE_SETTLE refreshes in a row without one, so that the
 * panes do not move up and down as short deep stacks come and go; a
 * change of filters or of mode sizes it at once.
 */
static void test_icicle_height_settles(void **state)
{
	static const char *const none[] = { NULL };
	const char *deep = "1 a;main;f1;f2;f3_[k];f4_[k];f5_[k];f6_[k];f7_[k];f8_[k] 1";
	const char *shallow = "1 a;main;f1 1";
	struct fixture f;
	int deep_rows, shallow_rows;

	(void)state;
	open_view(&f, none, 80, 40, true);
	f.view.window = WINDOW_RECENT;
	shallow_rows = icicle_rows_after(&f, shallow);
	assert_int_equal(shallow_rows, 3 + 2); /* a;main;f1 and the title, the root */
	deep_rows = icicle_rows_after(&f, deep);
	assert_int_equal(deep_rows, 10 + 2);
	for (int i = 1; i < VIEW_ICICLE_SETTLE; i++)
		assert_int_equal(icicle_rows_after(&f, shallow), deep_rows);
	assert_int_equal(icicle_rows_after(&f, shallow), shallow_rows);
	assert_int_equal(icicle_rows_after(&f, deep), deep_rows);
	/* K hides the kernel frames: the deep stack is now 4 frames, at once. */
	f.view.hide_kernel = true;
	assert_int_equal(icicle_rows_after(&f, deep), 4 + 2);
	/* Another live mode's profile is sized at once too. */
	f.view.hide_kernel = false;
	assert_int_equal(icicle_rows_after(&f, deep), deep_rows);
	f.view.info.mode = "read";
	assert_int_equal(icicle_rows_after(&f, shallow), shallow_rows);
	close_view(&f);
}

/* A live refresh: @lines are the stacks of the recent window. */
static void refresh_live(struct fixture *f, const char *const *lines)
{
	for (; *lines; lines++)
		add(f->prof, *lines);
	profile__close_interval(f->prof);
	assert_int_equal(view__rebuild(&f->view, f->prof), 0);
}

/* The name of the first process in @f's trie. */
static const char *first_process(const struct fixture *f)
{
	uint32_t c = stack_trie__first_child(&f->view.trie, TRIE_ROOT);

	assert_int_not_equal(c, TRIE_NONE);
	return profile__frame_name(f->prof, f->view.trie.nodes[c].frame);
}

/* Where process @name's box starts in @f's chart laid out with @memo; -1 when not drawn. */
static int process_box_x(const struct fixture *f, const char *name, const struct icicle_memo *memo)
{
	struct icicle_layout l = { 0 };
	int x = -1;

	assert_int_equal(icicle__layout(&l, &f->view.trie, TRIE_ROOT, f->view.width, 2, memo), 0);
	for (size_t i = l.level_start[1]; i < l.level_start[2]; i++) {
		const struct trie_node *n = &f->view.trie.nodes[l.boxes[i].node];

		if (strcmp(profile__frame_name(f->prof, n->frame), name) == 0)
			x = l.boxes[i].x;
	}
	icicle_layout__free(&l);
	return x;
}

/*
 * Live, counts that jitter by a sample move nothing in the chart: siblings
 * a sample apart keep their order, and an edge drawn where a running sum a
 * sample off would put it stays; counts further apart are drawn as they
 * are at once (a row never above a sibling two samples hotter; an edge
 * never held where no sample's jitter puts it).
 */
static void test_icicle_steady_live(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const even[] = { "1 a;f 100", "2 b;f 100", NULL };
	static const char *const near[] = { "1 a;f 100", "2 b;f 101", NULL };
	static const char *const apart[] = { "1 a;f 99", "2 b;f 101", NULL };
	static const char *const step1[] = { "1 a;f 99", "2 b;f 61", NULL };
	static const char *const step2[] = { "1 a;f 100", "2 b;f 60", NULL };
	static const char *const step3[] = { "1 a;f 101", "2 b;f 59", NULL };
	struct view_geometry g;
	struct fixture f;

	(void)state;
	open_view(&f, none, 80, 20, true);
	f.view.window = WINDOW_RECENT;
	f.view.layout = LAYOUT_ICICLE;
	refresh_live(&f, even);
	assert_string_equal(first_process(&f), "a"); /* a tie: by name */
	assert_int_equal(process_box_x(&f, "b", &f.view.icicle_memo), 40);
	/*
	 * b 101, a 100: a stays first; a's exact edge, floor(80 * 100 / 201), is 39,
	 * floor(80 * 101 / 201) a sample on is 40, where it was: it stays.
	 */
	refresh_live(&f, near);
	assert_string_equal(first_process(&f), "a");
	assert_int_equal(process_box_x(&f, "b", NULL), 39);
	assert_int_equal(process_box_x(&f, "b", &f.view.icicle_memo), 40);
	view__geometry(&f.view, &g);
	view__draw(&f.screen, &f.view); /* drawn so: the processes' row is under the title and all */
	assert_int_equal(screen__cell(&f.screen, g.icicle.row + 2, 39)->ch, ']');
	assert_int_equal(screen__cell(&f.screen, g.icicle.row + 2, 40)->ch, '[');
	/* b 101, a 99: two samples apart, b goes first. */
	refresh_live(&f, apart);
	assert_string_equal(first_process(&f), "b");
	/* a 99 of 160: its edge at floor(80 * 99 / 160) = 49. */
	refresh_live(&f, step1);
	assert_string_equal(first_process(&f), "a");
	assert_int_equal(process_box_x(&f, "b", &f.view.icicle_memo), 49);
	/* a 100: exact 50, but 49 is where 99 puts it: a sample's jitter, it stays. */
	refresh_live(&f, step2);
	assert_int_equal(process_box_x(&f, "b", &f.view.icicle_memo), 49);
	/* a 101: exact 50, 100 and 102 put it at 50 and 51: it moves. */
	refresh_live(&f, step3);
	assert_int_equal(process_box_x(&f, "b", &f.view.icicle_memo), 50);
	close_view(&f);
}

/* Off-CPU waits, in microseconds: 4.56 s, 12.3 ms and 850 us of them. */
static const char *const P_WAITS[] = {
	"100 sleeper;main;wait_a;nanosleep 4560000",
	"100 sleeper;main;wait_b;nanosleep 12300",
	"100 sleeper;main;lock;futex_wait_[k] 850",
	NULL,
};

/*
 * Counts that are microseconds (off-CPU mode) show as times, in a Time
 * column, in the tree and the flat list; the header gives the window's
 * total in seconds and the off-CPU line.
 */
static void test_offcpu_times(void **state)
{
	struct fixture f;
	char *page;

	(void)state;
	open_view(&f, P_WAITS, 100, 24, true);
	f.view.info = (struct header_info){ .mode = "offcpu", .hook = "sched_switch BTF tracepoint",
					    .notes = "", .ncpus = 2, .event = "waits",
					    BOTH(.rate = 3,
						 .offcpu = "off-CPU 4.573 s: 100% sleeping"),
					    .unit = "off-CPU time", .time_us = true };
	f.view.window = WINDOW_CUMULATIVE;
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	page = render(&f);
	assert_non_null(strstr(page, "offcpu: sched_switch BTF tracepoint, 2 CPUs | 3 waits/s"));
	assert_non_null(strstr(page, "window: cumulative, 4.573 s off-CPU time"));
	assert_non_null(strstr(page, "\noff-CPU 4.573 s: 100% sleeping"));
	assert_non_null(strstr(page, "Time  Call tree"));
	assert_non_null(strstr(page, " 4.57s  [-] all"));
	assert_non_null(strstr(page, "99.7%   0.0%     4.56s      |-[-] wait_a"));
	assert_non_null(strstr(page, "12.3ms"));
	assert_non_null(strstr(page, "850us"));
	free(page);
	f.view.layout = LAYOUT_FLAT; /* the flat list: nanosleep's self time is both waits' */
	f.view.focus = FOCUS_FLAT;
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	page = render(&f);
	assert_non_null(strstr(page, "4.57s"));
	assert_non_null(strstr(page, "850us"));
	free(page);
	close_view(&f);
}

/*
 * Every header line speaks of the window shown: the rate, the losses, the
 * walks and the off-CPU states of the last interval in the recent window,
 * those since the start in the cumulative one, z going from one to the
 * other.
 */
static void test_header_lines_follow_the_window(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P_WAITS, 100, 20, true);
	f.view.info = (struct header_info){
		.mode = "offcpu", .hook = "sched_switch BTF tracepoint", .notes = "", .ncpus = 2,
		.event = "waits", .unit = "off-CPU time", .time_us = true, .span = 2.0,
		.covered = 60.0,
		.win[WINDOW_RECENT] = { .rate = 40, .lost = 0,
					.walks = "user stacks by unwind tables: none walked",
					.offcpu = "off-CPU 2.000 s: 100% sleeping" },
		.win[WINDOW_CUMULATIVE] = { .rate = 35, .lost = 12,
					    .walks = "user stacks by unwind tables: 97.0% whole",
					    .offcpu = "off-CPU 60.000 s: 90% sleeping" },
	};
	f.view.window = WINDOW_RECENT;
	profile__close_interval(f.prof);
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	text = render(&f);
	assert_non_null(strstr(text, "| 40 waits/s, 0 lost"));
	assert_non_null(strstr(text, "\nwindow: recent (last 2.0 s), "));
	assert_non_null(strstr(text, "\noff-CPU 2.000 s: 100% sleeping\n"));
	assert_non_null(strstr(text, "\nuser stacks by unwind tables: none walked\n"));
	free(text);
	assert_int_equal(type(&f, "z"), ACT_REBUILD);
	text = render(&f);
	assert_non_null(strstr(text, "| 35 waits/s, 12 lost"));
	assert_non_null(strstr(text, "\nwindow: cumulative (60.0 s), "));
	assert_non_null(strstr(text, "\noff-CPU 60.000 s: 90% sleeping\n"));
	assert_non_null(strstr(text, "\nuser stacks by unwind tables: 97.0% whole\n"));
	assert_null(strstr(text, "none walked"));
	free(text);
	close_view(&f);
}

/* A live profile that folded stacks says how many, and over which limit, on the window line. */
static void test_live_header_folded(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P1, 100, 12, true);
	f.view.info = (struct header_info){ .mode = "sample", .hook = "perf_event cpu-clock",
					    .notes = "", .freq = 99, .ncpus = 2, BOTH(.rate = -1),
					    .event = "samples", .unit = "samples", .folded = 1234,
					    .max_stacks = 32768 };
	text = render(&f);
	assert_non_null(strstr(text, "samples, 1234 stacks folded (max 32768) | filters: none"));
	free(text);
	close_view(&f);
}

/* The text of the help's body, every page of it: scrolled with Down until it moves no more. */
static char *help_pages(struct fixture *f)
{
	size_t cap = 1 << 16, len = 0;
	char *all = calloc(1, cap);
	int last = -1;

	assert_non_null(all);
	while (f->view.help_top != last) {
		char *page = render(f);

		assert_true(len + strlen(page) < cap);
		strcpy(all + len, page);
		len += strlen(page);
		free(page);
		last = f->view.help_top;
		press(f, TK_PGDN);
	}
	return all;
}

/*
 * The help lists every key, scrolled page by page at 80x20 (it needs more
 * rows than it has); the file viewer leaves out the live ones.
 */
static void test_help_lists_every_key(void **state)
{
	struct fixture f;
	size_t n;
	const struct key_binding *b = actions__bindings(&n);
	char *text;

	(void)state;
	for (int live = 0; live <= 1; live++) {
		open_view(&f, P1, 80, 20, live);
		assert_int_equal(type(&f, "?"), ACT_REDRAW);
		text = help_pages(&f);
		assert_true(f.view.help_top > 0); /* it did scroll */
		for (size_t i = 0; i < n; i++) {
			bool shown = live || !b[i].live_only;

			if ((strstr(text, b[i].what) != NULL) != shown)
				fail_msg("%s: '%s' %s", live ? "live" : "viewer", b[i].what,
					 shown ? "missing" : "shown");
		}
		free(text);
		assert_int_equal(type(&f, "x"), ACT_REDRAW); /* any other key closes it */
		assert_false(f.view.help);
		close_view(&f);
	}
}

/* Keys ask the app for what only it can do; in the viewer, live keys only explain. */
static void test_keys_ask_the_app(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 80, 24, true);
	assert_int_equal(type(&f, "m"), ACT_SWAP_MODE | ACT_REBUILD);
	assert_int_equal(type(&f, "r"), ACT_RESET | ACT_REBUILD);
	/* s asks for the file name, a new one after the clock; Enter saves there. */
	assert_int_equal(type(&f, "s"), ACT_REDRAW);
	assert_int_equal(f.view.prompt, PROMPT_SAVE);
	assert_int_equal(strncmp(f.view.input.text, "flametop-", 9), 0);
	assert_non_null(strstr(f.view.input.text, ".folded"));
	assert_int_equal(type(&f, "\x15" "out.svg\n"), ACT_SAVE | ACT_REDRAW);
	assert_string_equal(f.view.save_path, "out.svg");
	assert_int_equal(type(&f, "s\x15\n"), ACT_REDRAW); /* no name: nothing saved */
	assert_int_equal(type(&f, "z"), ACT_REBUILD);
	assert_int_equal(f.view.window, WINDOW_RECENT);
	/* The prompt holds the delay now (2); Ctrl-U empties it. */
	assert_int_equal(type(&f, "d\x15" "0.5\n"), ACT_DELAY | ACT_REDRAW);
	assert_true(f.view.delay == 0.5);
	assert_int_equal(type(&f, "d\x15" "0.01\n"), ACT_REDRAW);
	assert_true(f.view.delay == 0.5);
	assert_int_equal(type(&f, "q"), ACT_QUIT);
	close_view(&f);
	open_view(&f, P1, 80, 24, false);
	assert_int_equal(type(&f, "m"), ACT_REDRAW);
	assert_non_null(strstr(f.view.message, "file viewer"));
	assert_int_equal(type(&f, "z"), ACT_REDRAW);
	assert_int_equal(f.view.window, WINDOW_CUMULATIVE);
	assert_int_equal(type(&f, " "), ACT_REDRAW);
	assert_false(f.view.paused);
	close_view(&f);
}

/* prompts */

/* Pre-filled text is replaced by the first character typed; editing keys keep it. */
static void test_prompt_input_replaces_then_edits(void **state)
{
	struct prompt_input in;

	(void)state;
	prompt_input__start(&in, "2");
	prompt_input__type(&in, '0');
	prompt_input__type(&in, '.');
	prompt_input__type(&in, '5');
	assert_string_equal(in.text, "0.5"); /* not "20.5" */
	prompt_input__start(&in, "4242");
	prompt_input__move(&in, -2);
	prompt_input__type(&in, '9');
	assert_string_equal(in.text, "42942");
	prompt_input__home(&in);
	prompt_input__delete(&in);
	assert_string_equal(in.text, "2942");
	prompt_input__end(&in);
	prompt_input__backspace(&in);
	assert_string_equal(in.text, "294");
	prompt_input__move(&in, -1);
	prompt_input__kill_after(&in);
	assert_string_equal(in.text, "29");
	prompt_input__kill_before(&in);
	assert_string_equal(in.text, "");
	prompt_input__start(&in, "leaf");
	prompt_input__backspace(&in); /* an editing key: the text stays, less one */
	prompt_input__type(&in, 'x');
	assert_string_equal(in.text, "leax");
	prompt_input__type(&in, '\x1b'); /* not printable: ignored */
	assert_string_equal(in.text, "leax");
}

/* Through the keys: d 0.5 gives 0.5 s; p opens on the filter's pids and typing replaces them. */
static void test_prompts_prefilled(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 80, 24, true);
	assert_true(type(&f, "d0.5\n") & ACT_DELAY);
	assert_true(f.view.delay == 0.5);
	type(&f, "p100\n");
	assert_int_equal(f.view.tgids[0], 100);
	press(&f, 'p');
	assert_string_equal(f.view.input.text, "100");
	type(&f, "200\n");
	assert_int_equal(f.view.ntgids, 1);
	assert_int_equal(f.view.tgids[0], 200);
	close_view(&f);
}

static bool no_process_but_100(int32_t pid)
{
	return pid == 100;
}

/* Live, p refuses a pid that does not exist, as -p does, and keeps the filter it had. */
static void test_pid_must_exist(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 80, 24, true);
	f.view.pid_exists = no_process_but_100;
	assert_int_equal(type(&f, "p1073741000\n"), ACT_REDRAW);
	assert_true(f.view.message_is_error);
	assert_string_equal(f.view.message, "p 1073741000: no such process");
	assert_int_equal(f.view.ntgids, 0);
	assert_true(type(&f, "p100\n") & ACT_FILTER);
	assert_int_equal(f.view.tgids[0], 100);
	close_view(&f);
}

/* p and c start from the selected row's process and command; a file without pids says so. */
static void test_prompts_start_from_selection(void **state)
{
	static const char *const no_pids[] = { "-1 sh;main 5", NULL };
	struct fixture f;

	(void)state;
	open_view(&f, P1, 80, 24, false);
	type(&f, "G"); /* bash, pid 200 */
	press(&f, 'p');
	assert_string_equal(f.view.input.text, "200");
	press(&f, TK_ESC);
	type(&f, "gj"); /* cpu_split */
	press(&f, 'c');
	assert_string_equal(f.view.input.text, "cpu_split");
	press(&f, TK_ESC);
	close_view(&f);
	open_view(&f, no_pids, 80, 24, false);
	assert_int_equal(type(&f, "p"), ACT_REDRAW);
	assert_int_equal(f.view.prompt, PROMPT_NONE);
	assert_non_null(strstr(f.view.message, "this file names no process ids"));
	assert_int_equal(type(&f, "P"), ACT_REDRAW);
	assert_int_equal(f.view.group, GROUP_COMM);
	close_view(&f);
}

/* P groups by process, then thread, then command again; the tree's title says which. */
static void test_group_key(void **state)
{
	static const char *const two_shs[] = { "10 sh;main 5", "11 sh;main 3", NULL };
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, two_shs, 80, 24, false);
	assert_int_equal(f.view.trie.nodes[stack_trie__first_child(&f.view.trie, TRIE_ROOT)].total,
			 8);
	assert_true(type(&f, "P") & ACT_REBUILD);
	assert_int_equal(profile__group(f.prof, f.view.group), 0); /* as the app does */
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	text = render(&f);
	assert_non_null(strstr(text, "Call tree, by process"));
	assert_non_null(strstr(text, "`-[+] sh [11]") ?: strstr(text, "-[-] sh [10]"));
	assert_non_null(strstr(text, "sh [11]"));
	free(text);
	type(&f, "gj"); /* sh [10], the hotter */
	press(&f, 'p');
	assert_string_equal(f.view.input.text, "10");
	press(&f, TK_ESC);
	type(&f, "PP");
	assert_int_equal(f.view.group, GROUP_COMM);
	close_view(&f);
}

/* q and Esc leave the callers and a zoom before q quits; an unbound key says so. */
static void test_q_backs_out_first(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "\t\t\t\t\n"); /* the flat list, the callers of leaf_a */
	assert_true(f.view.flat.callers_open);
	assert_int_equal(press(&f, 'q'), ACT_REDRAW);
	assert_false(f.view.flat.callers_open);
	type(&f, "\t\t"); /* tree above icicle, icicle focused */
	press(&f, TK_DOWN);
	press(&f, TK_ENTER);
	assert_int_not_equal(f.view.zoom.n, 0);
	assert_int_equal(press(&f, 'q'), ACT_REDRAW);
	assert_int_equal(f.view.zoom.n, 0);
	type(&f, "?");
	assert_int_equal(press(&f, 'q'), ACT_REDRAW);
	assert_false(f.view.help);
	assert_int_equal(press(&f, 'y'), ACT_REDRAW);
	assert_string_equal(f.view.message, "y: not a key here (? lists the keys)");
	assert_int_equal(press(&f, TK_F(5)), ACT_REDRAW); /* a key named, whatever it is */
	assert_string_equal(f.view.message, "F5: not a key here (? lists the keys)");
	key__name_other("S-Up");
	assert_int_equal(press(&f, TK_OTHER), ACT_REDRAW);
	assert_string_equal(f.view.message, "S-Up: not a key here (? lists the keys)");
	assert_int_equal(press(&f, TK_F(10)), ACT_QUIT);
	close_view(&f);
}

/*
 * / marks and selects as it is typed, from where it began, every stack
 * kept; a capital makes it match case; Esc goes back to the search and the
 * selection before.
 */
static void test_search_as_typed(void **state)
{
	struct fixture f;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "j"); /* cpu_split */
	assert_int_equal(type(&f, "/lea"), ACT_REDRAW);
	assert_int_equal(f.view.prompt, PROMPT_SEARCH);
	assert_string_equal(f.view.search, "lea");
	assert_int_equal(f.view.trie.nodes[TRIE_ROOT].total, 100); /* every stack stays */
	assert_int_equal(f.view.search_count, 80);
	assert_string_equal(selected(&f), "leaf_a");
	type(&f, "f_b");
	assert_string_equal(selected(&f), "leaf_b");
	prompt_input__kill_before(&f.view.input);
	type(&f, "LEAF");
	assert_int_equal(f.view.search_count, 0); /* exact case: none */
	assert_string_equal(selected(&f), "cpu_split");
	press(&f, TK_ESC);
	assert_string_equal(f.view.search, "");
	assert_string_equal(selected(&f), "cpu_split");
	type(&f, "/READ\n");
	assert_int_equal(f.view.search_count, 0);
	assert_string_equal(f.view.message, "no frame shown contains \"READ\"");
	type(&f, "/read\n"); /* read, readline, vfs_read: bash's stacks but [unknown] */
	assert_int_equal(f.view.search_count, 10);
	assert_int_equal(f.view.search_frames, 3);
	assert_string_equal(selected(&f), "readline");
	close_view(&f);
}

/*
 * A paused screen keeps its data whatever the keys do: the app shows a
 * picture of the counts (profile__freeze()) taken at each refresh, and
 * takes none while paused.
 */
static void test_paused_screen_keeps_its_data(void **state)
{
	struct fixture f;
	char *before, *after;

	(void)state;
	open_view(&f, P1, 60, 17, true);
	f.view.layout = LAYOUT_TREE;
	assert_int_equal(profile__freeze(f.prof), 0); /* a refresh */
	assert_int_equal(view__rebuild(&f.view, f.prof), 0);
	assert_true(type(&f, " ") & ACT_PAUSE);
	f.view.message[0] = '\0';
	before = render(&f);
	add(f.prof, "100 cpu_split;main;work;leaf_a 40"); /* capture goes on */
	add(f.prof, "300 sleep;main 40");
	type(&f, "KK");
	type(&f, "ccpu_split");
	press(&f, TK_ESC);
	type(&f, "/x");
	press(&f, TK_ESC);
	f.view.message[0] = '\0';
	after = render(&f);
	assert_string_equal(after, before);
	free(after);
	free(before);
	assert_int_equal(type(&f, "r"), ACT_REDRAW); /* r waits until it resumes */
	assert_non_null(strstr(f.view.message, "Space resumes"));
	close_view(&f);
}

/* The header says the span of the window it shows. */
static void test_header_window_span(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P1, 100, 20, true);
	f.view.info = (struct header_info){ .mode = "sample", .hook = "perf_event cpu-clock",
					    .notes = "", .freq = 99, .ncpus = 2, BOTH(.rate = 99.3),
					    .event = "samples", .unit = "samples", .span = 6.27,
					    .covered = 12.94 };
	f.view.window = WINDOW_RECENT;
	text = render(&f);
	assert_non_null(strstr(text, "\nwindow: recent (last 6.3 s), 100 samples |"));
	assert_non_null(strstr(text, "| 99 samples/s, 0 lost"));
	free(text);
	f.view.window = WINDOW_CUMULATIVE;
	text = render(&f);
	assert_non_null(strstr(text, "\nwindow: cumulative (12.9 s), 100 samples |"));
	free(text);
	f.view.info.span = 0;
	f.view.window = WINDOW_RECENT;
	text = render(&f);
	assert_non_null(strstr(text, "\nwindow: recent (collecting), 100 samples |"));
	free(text);
	close_view(&f);
}

/* What kept frames from being named gets a header line of its own, only when something did. */
static void test_header_says_what_kept_names_away(void **state)
{
	static const char symbols[] = "symbols: 2 perf maps dropped (over their 64 MiB budget)";
	struct fixture f;
	char *text;
	int rows;

	(void)state;
	open_view(&f, P1, 100, 20, true);
	f.view.info = (struct header_info){ .mode = "sample", .hook = "perf_event cpu-clock",
					    .notes = "", .freq = 99, .ncpus = 2, BOTH(.rate = 99.3),
					    .event = "samples", .unit = "samples", .symbols = "" };
	text = render(&f);
	rows = header__rows(&(struct header_state){ .info = &f.view.info, .live = true });
	assert_null(strstr(text, "symbols:"));
	free(text);
	f.view.info.symbols = symbols;
	text = render(&f);
	assert_non_null(strstr(text, "\nsymbols: 2 perf maps dropped (over their 64 MiB budget)"));
	assert_int_equal(header__rows(&(struct header_state){ .info = &f.view.info, .live = true }),
			 rows + 1);
	free(text);
	close_view(&f);
}

/* The help shows the hook line the header cuts, whole. */
static void test_help_shows_the_hook_line(void **state)
{
	static const char notes[] = "fentry/vfs_read: Operation not permitted; kprobe/vfs_read: "
				    "this kernel was built without kprobes (CONFIG_KPROBES)";
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P1, 60, 40, true);
	f.view.info = (struct header_info){ .mode = "read", .hook = "syscall-entry tracepoint",
					    .notes = notes, .ncpus = 2, BOTH(.rate = -1),
					    .event = "reads", .unit = "reads" };
	type(&f, "?");
	type(&f, "G");
	text = render(&f);
	assert_non_null(strstr(text, "(CONFIG_KPROBES)"));
	assert_non_null(strstr(text, "kprobe/vfs_read:"));
	free(text);
	close_view(&f);
}

/* The flat list sorted by total: its first column becomes Total%. */
static void test_flat_by_total(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	open_view(&f, P1, 60, 17, false);
	type(&f, "\t\t\t\to");
	assert_int_equal(f.view.flat_order, FLAT_BY_TOTAL);
	assert_string_equal(profile__frame_name(f.prof, f.view.flat.list.entries[0].frame), "main");
	text = render(&f);
	assert_non_null(strstr(text, "\nTotal%  Self%     Total  Object    Function"));
	assert_non_null(strstr(text, "\n 95.0%   0.0%        95            main\n"));
	free(text);
	close_view(&f);
}

/* snapshot */

static void test_snapshot_new_name_never_follows_symlink(void **state)
{
	static const char *const lines[] = { "1 app;main;f_[k] 3", "1 app;g 2", NULL };
	struct profile *p = profile_of(lines);
	struct view_filter vf = { .window = WINDOW_CUMULATIVE };
	struct output_info info = { .title = "t", .type = "samples", .unit = "count" };
	char path[512], want[512], saved[512], target[512], link[512], name[64];
	time_t when = 1700000000;
	uint64_t events;
	char *text;
	struct tm tm;
	char stamp[32];

	(void)state;
	localtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	assert_int_equal(snapshot__default_name(when, name, sizeof(name)), 0);
	snprintf(want, sizeof(want), "flametop-%s.folded", stamp);
	assert_string_equal(name, want);
	snprintf(path, sizeof(path), "%s/%s", unit_tmpdir(), name);
	assert_int_equal(snapshot__save(path, p, &vf, &info, saved, sizeof(saved), &events), 2);
	assert_string_equal(saved, path);
	text = read_file(saved);
	assert_string_equal(text, "app;main;f_[k] 3\napp;g 2\n");
	free(text);
	/* -1 is a symlink to a file outside: taken, never written through. */
	snprintf(target, sizeof(target), "%s/target", unit_tmpdir());
	snprintf(link, sizeof(link), "%s/flametop-%s-1.folded", unit_tmpdir(), stamp);
	close(open(target, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(snapshot__save(path, p, &vf, &info, saved, sizeof(saved), &events), 2);
	snprintf(want, sizeof(want), "%s/flametop-%s-2.folded", unit_tmpdir(), stamp);
	assert_string_equal(saved, want);
	text = read_file(target);
	assert_string_equal(text, "");
	free(text);
	profile__free(p);
}

/* The extension picks the format; a taken name gets its number before ".pb.gz". */
static void test_snapshot_format_by_extension(void **state)
{
	static const char *const lines[] = { "1 app;main;f_[k] 3", "1 app;g 2", NULL };
	struct profile *p = profile_of(lines);
	struct view_filter vf = { .window = WINDOW_CUMULATIVE };
	struct output_info info = { .title = "t", .type = "samples", .unit = "count" };
	char path[512], saved[512], want[512];
	uint64_t events;
	char *text;

	(void)state;
	snprintf(path, sizeof(path), "%s/view.svg", unit_tmpdir());
	/* root, process, main, f, g: five frames drawn */
	assert_int_equal(snapshot__save(path, p, &vf, &info, saved, sizeof(saved), &events), 5);
	text = read_file(saved);
	assert_int_equal(strncmp(text, "<?xml", 5), 0);
	assert_non_null(strstr(text, "<svg"));
	free(text);
	snprintf(path, sizeof(path), "%s/view.pb.gz", unit_tmpdir());
	assert_int_equal(snapshot__save(path, p, &vf, &info, saved, sizeof(saved), &events), 2);
	assert_int_equal(snapshot__save(path, p, &vf, &info, saved, sizeof(saved), &events), 2);
	assert_int_equal(events, 5); /* the samples saved, 3 + 2, whatever the stacks */
	snprintf(want, sizeof(want), "%s/view-1.pb.gz", unit_tmpdir());
	assert_string_equal(saved, want);
	text = read_file(saved);
	assert_int_equal((unsigned char)text[0], 0x1f); /* gzip */
	free(text);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen_put_clips_and_dots),
		cmocka_unit_test(test_empty_profile_every_layout),
		cmocka_unit_test(test_live_header_folded),
		cmocka_unit_test(test_screen_never_stores_control_bytes),
		cmocka_unit_test(test_tree_hottest_path_expanded_first),
		cmocka_unit_test(test_tree_expand_collapse),
		cmocka_unit_test(test_tree_arrows),
		cmocka_unit_test(test_tree_expand_scrolls_new_rows_into_sight),
		cmocka_unit_test(test_tree_kernel_or_user_only),
		cmocka_unit_test(test_selection_follows_frame_across_refresh),
		cmocka_unit_test(test_selection_falls_back_to_ancestor),
		cmocka_unit_test(test_selection_kept_through_renumbering),
		cmocka_unit_test(test_pid_and_comm_filters),
		cmocka_unit_test(test_prompt_editing),
		cmocka_unit_test(test_search_marks_and_jumps),
		cmocka_unit_test(test_icicle_widths),
		cmocka_unit_test(test_icicle_navigation_and_zoom),
		cmocka_unit_test(test_icicle_zoom_history),
		cmocka_unit_test(test_icicle_steady_live),
		cmocka_unit_test(test_icicle_height_settles),
		cmocka_unit_test(test_icicle_slivers),
		cmocka_unit_test(test_tiny_sizes),
		cmocka_unit_test(test_too_small_fits_any_size),
		cmocka_unit_test(test_escape_in_name_is_harmless),
		cmocka_unit_test(test_flat_list_and_callers),
		cmocka_unit_test(test_flat_search),
		cmocka_unit_test(test_flat_list_made_when_shown),
		cmocka_unit_test(test_keys_after_tab_act_on_the_list),
		cmocka_unit_test(test_flat_recursion_counts_once),
		cmocka_unit_test(test_live_header),
		cmocka_unit_test(test_header_lines_follow_the_window),
		cmocka_unit_test(test_offcpu_times),
		cmocka_unit_test(test_help_lists_every_key),
		cmocka_unit_test(test_keys_ask_the_app),
		cmocka_unit_test(test_prompt_input_replaces_then_edits),
		cmocka_unit_test(test_prompts_prefilled),
		cmocka_unit_test(test_pid_must_exist),
		cmocka_unit_test(test_prompts_start_from_selection),
		cmocka_unit_test(test_group_key),
		cmocka_unit_test(test_q_backs_out_first),
		cmocka_unit_test(test_search_as_typed),
		cmocka_unit_test(test_paused_screen_keeps_its_data),
		cmocka_unit_test(test_header_window_span),
		cmocka_unit_test(test_header_says_what_kept_names_away),
		cmocka_unit_test(test_help_shows_the_hook_line),
		cmocka_unit_test(test_flat_by_total),
		cmocka_unit_test(test_snapshot_new_name_never_follows_symlink),
		cmocka_unit_test(test_snapshot_format_by_extension),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
