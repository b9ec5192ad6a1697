// SPDX-License-Identifier: GPL-2.0
/*
 * The annotate view without a terminal: an annotation made here by hand
 * (a caller whose two call lines and one line of its own hold 30, 60 and
 * 10 of its 100 samples), handed to the pane as the worker would, moved
 * through with its keys and drawn into the in-memory screen; and `a` from
 * the screen's panes.
 */
#include "tests/unit/unit.h"

#include "profile/profile.h"
#include "tui/actions.h"
#include "tui/annotate_view.h"
#include "tui/screen.h"
#include "tui/view.h"

static const struct annotate_draw draw = { "samples", false, false };

/* The caller: lines 10 (calls 30), 11 (calls 60), 12 (self 10), 13 (none); five instructions. */
static void caller_annotation(struct annotation *a, uint64_t dear)
{
	static const struct {
		uint32_t line;
		uint64_t self, calls;
		const char *text;
	} lines[] = {
		{ 10, 0, 30, "        cheap();" }, { 11, 0, 60, "        dear();" },
		{ 12, 10, 0, "        x++;" },     { 13, 0, 0, "}" },
	};
	static const struct {
		uint64_t addr, self, calls;
		uint32_t src;
		const char *text;
	} insns[] = {
		{ 0x100, 0, 30, 0, "call   0x200" }, { 0x105, 0, 60, 1, "call   0x300" },
		{ 0x10a, 4, 0, 2, "add    $1, %rax" }, { 0x10e, 6, 0, 2, "inc    %rbx" },
		{ 0x112, 0, 0, 3, "ret" },
	};

	memset(a, 0, sizeof(*a));
	a->function = strdup("caller");
	a->object = strdup("/bin/prog");
	snprintf(a->build_id, sizeof(a->build_id), "abcd");
	a->files = calloc(1, sizeof(*a->files));
	a->files[0] = strdup("/src/prog/a.c");
	a->nfiles = 1;
	a->lines = calloc(4, sizeof(*a->lines));
	a->insns = calloc(5, sizeof(*a->insns));
	for (size_t i = 0; i < 4; i++)
		a->lines[i] = (struct ann_line){ 0, lines[i].line, lines[i].self, lines[i].calls,
						 strdup(lines[i].text) };
	for (size_t i = 0; i < 5; i++) {
		a->insns[i] = (struct ann_insn){ .addr = insns[i].addr, .self = insns[i].self,
						 .calls = insns[i].calls, .src = insns[i].src };
		snprintf(a->insns[i].text, sizeof(a->insns[i].text), "%s", insns[i].text);
	}
	a->lines[1].calls = a->insns[1].calls = dear;
	a->nlines = 4;
	a->ninsns = 5;
	a->has_lines = true;
	a->self = 10;
	a->calls = 30 + dear;
	a->start = 0x100;
	a->end = 0x113;
}

/* A profile with one stack through caller (frame 2), for the pane's name. */
static struct profile *caller_profile(uint32_t *caller)
{
	struct profile *p = profile__new();
	uint32_t frames[3];
	struct sample s = { .tgid = 1, .frames = frames, .n = 3, .count = 1 };

	frames[0] = profile__frame(p, "prog", 4, FRAME_PROCESS, true);
	frames[1] = profile__frame(p, "main", 4, FRAME_USER, true);
	frames[2] = profile__frame(p, "caller", 6, FRAME_USER, true);
	assert_int_equal(profile__add(p, &s), 0);
	*caller = frames[2];
	return p;
}

/* Opens @pane on caller and hands it the annotation of job 7 (dear's line: @dear). */
static struct profile *open_caller(struct annotate_pane *pane, uint64_t dear)
{
	struct annotation a;
	struct profile *p;
	uint32_t caller;

	p = caller_profile(&caller);
	annotate_pane__init(pane);
	annotate_pane__open(pane, p, caller);
	assert_true(pane->open && pane->loading && pane->want_job);
	annotate_pane__job_started(pane, 7);
	assert_false(pane->want_job);
	caller_annotation(&a, dear);
	assert_int_equal(annotate_pane__take(pane, 7, &a), 0);
	assert_null(a.function); /* taken */
	annotate_pane__layout(pane, 20);
	return p;
}

/* The line the selected row is of (its own, or its instruction's). */
static uint32_t selected_line(const struct annotate_pane *p)
{
	const struct ann_row *r = &p->rows[p->sel];

	return p->ann.lines[r->kind == ROW_INSN ? p->ann.insns[r->index].src : r->index].line;
}

static void test_opens_on_the_hottest_line(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);

	(void)state;
	assert_false(pane.loading);
	assert_int_equal(pane.mode, ANN_LINES);
	assert_int_equal(pane.nrows, 3); /* the lines with counts */
	assert_int_equal(selected_line(&pane), 11);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* n: the next cooler row, around to the hottest; N the other way. */
static void test_hot_rows(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);
	static const uint32_t down[] = { 10, 12, 11 }, up[] = { 12, 10, 11 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_true(annotate_pane__hot(&pane, 1));
		assert_int_equal(selected_line(&pane), down[i]);
	}
	for (size_t i = 0; i < 3; i++) {
		assert_true(annotate_pane__hot(&pane, -1));
		assert_int_equal(selected_line(&pane), up[i]);
	}
	annotate_pane__free(&pane);
	profile__free(p);
}

/* i: the instructions under their lines, the selected line's instruction selected; and back. */
static void test_toggle(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);

	(void)state;
	assert_int_equal(annotate_pane__toggle(&pane), 0);
	assert_int_equal(pane.mode, ANN_INSNS);
	assert_int_equal(pane.nrows, 9); /* 5 instructions, 4 lines above them */
	assert_int_equal(pane.rows[0].kind, ROW_SOURCE);
	assert_int_equal(pane.rows[pane.sel].kind, ROW_INSN);
	assert_int_equal(pane.ann.insns[pane.rows[pane.sel].index].addr, 0x105);
	/* Line 12's hottest instruction, then back to line 12. */
	annotate_pane__toggle(&pane);
	annotate_pane__hot(&pane, 1);
	annotate_pane__hot(&pane, 1);
	assert_int_equal(selected_line(&pane), 12);
	annotate_pane__toggle(&pane);
	assert_int_equal(pane.ann.insns[pane.rows[pane.sel].index].addr, 0x10e);
	annotate_pane__toggle(&pane);
	assert_int_equal(selected_line(&pane), 12);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* A refresh's annotation keeps the selection; an older job's is dropped. */
static void test_refresh_keeps_selection(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);
	struct annotation a;

	(void)state;
	annotate_pane__hot(&pane, 1); /* line 10 */
	annotate_pane__job_started(&pane, 8);
	caller_annotation(&a, 5); /* now line 12 is the hottest */
	assert_int_equal(annotate_pane__take(&pane, 7, &a), 0); /* not the one asked for */
	assert_null(a.function);
	assert_int_equal(pane.ann.lines[1].calls, 60);
	caller_annotation(&a, 5);
	assert_int_equal(annotate_pane__take(&pane, 8, &a), 0);
	assert_int_equal(pane.ann.lines[1].calls, 5);
	assert_int_equal(selected_line(&pane), 10);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* Code without line information opens on its instructions. */
static void test_no_lines_opens_instructions(void **state)
{
	struct annotate_pane pane;
	struct annotation a;
	struct profile *p;
	uint32_t caller;

	(void)state;
	p = caller_profile(&caller);
	annotate_pane__init(&pane);
	annotate_pane__open(&pane, p, caller);
	annotate_pane__job_started(&pane, 1);
	caller_annotation(&a, 60);
	for (size_t i = 0; i < a.ninsns; i++)
		a.insns[i].src = ANN_NONE;
	a.has_lines = false;
	assert_int_equal(annotate_pane__take(&pane, 1, &a), 0);
	assert_int_equal(pane.mode, ANN_INSNS);
	assert_int_equal(pane.nrows, 5);
	assert_int_equal(pane.ann.insns[pane.rows[pane.sel].index].addr, 0x105);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* Draws @pane at @w x @h and returns the text. */
static char *drawn(const struct annotate_pane *pane, int w, int h)
{
	struct screen s = { 0 };
	char *text;

	assert_int_equal(screen__resize(&s, w, h), 0);
	annotate_pane__draw(&s, (struct screen_rect){ 0, 0, w, h }, pane, &draw);
	text = screen__to_text(&s);
	screen__free(&s);
	return text;
}

static void test_draw(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);
	char *text = drawn(&pane, 80, 12);

	(void)state;
	assert_string_equal(text,
			    "Annotate caller in /bin/prog | build-id abcd\n"
			    "100 samples: 10 in it, 90 through its calls; its lines hold 100.0%\n"
			    "\n"
			    " Self% Calls%     Count  Line    Source\n"
			    "  0.0%  30.0%        30  a.c:10          cheap();\n"
			    "  0.0%  60.0%        60  a.c:11          dear();\n"
			    " 10.0%   0.0%        10  a.c:12          x++;\n"
			    "\n\n\n\n"
			    "n/N next/previous hot row  i instructions  q/Esc back\n");
	free(text);
	annotate_pane__toggle(&pane);
	text = drawn(&pane, 60, 16);
	assert_non_null(strstr(text, " Self% Calls%     Count  Address  Instruction\n"
				     "                         a.c:10          cheap();\n"
				     "  0.0%  30.0%        30  100:     call   0x200\n"));
	assert_non_null(strstr(text, "i source lines"));
	free(text);
	annotate_pane__free(&pane);
	profile__free(p);
}

static void test_draw_loading(void **state)
{
	struct annotate_pane pane;
	struct profile *p;
	uint32_t caller;
	char *text;

	(void)state;
	p = caller_profile(&caller);
	annotate_pane__init(&pane);
	annotate_pane__open(&pane, p, caller);
	text = drawn(&pane, 70, 5);
	assert_string_equal(text, "Annotate caller: loading its lines and instructions...\n\n\n\n"
				  "n/N next/previous hot row  i instructions  q/Esc back\n");
	free(text);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* --annotate's text: every row, no selection, no keys. */
static void test_text(void **state)
{
	struct annotation a;
	char *text;

	(void)state;
	caller_annotation(&a, 60);
	snprintf(a.lines_note, sizeof(a.lines_note), "source text of a.c not shown: not found");
	text = annotate_text(&a, ANN_LINES, &draw, 100);
	assert_string_equal(text,
			    "Annotate caller in /bin/prog | build-id abcd\n"
			    "100 samples: 10 in it, 90 through its calls; its lines hold 100.0%\n"
			    "source text of a.c not shown: not found\n"
			    " Self% Calls%     Count  Line    Source\n"
			    "  0.0%  30.0%        30  a.c:10          cheap();\n"
			    "  0.0%  60.0%        60  a.c:11          dear();\n"
			    " 10.0%   0.0%        10  a.c:12          x++;\n");
	free(text);
	/* Off-CPU time: counts in microseconds, said as times. */
	text = annotate_text(&a, ANN_LINES, &(struct annotate_draw){ "waits", true, false }, 100);
	assert_non_null(strstr(text, "\n100us off the CPU: 10us in it, 90us through its calls; "
				     "its lines hold 100.0%\n"));
	assert_non_null(strstr(text, "\n  0.0%  60.0%      60us  a.c:11 "));
	free(text);
	annotation__free(&a);
}

/* The profile dropped the frame the pane annotates: it closes. */
static void test_renumber_closes(void **state)
{
	struct annotate_pane pane;
	struct profile *p = open_caller(&pane, 60);
	uint32_t frames[2] = { profile__frame(p, "other", 5, FRAME_PROCESS, true) };
	struct sample s = { .tgid = 2, .frames = frames, .n = 1, .count = 1 };

	(void)state;
	for (int i = 0; i < 70000; i++) { /* enough unused frames for a renumbering */
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		profile__frame(p, name, strlen(name), FRAME_USER, true);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(profile__add(p, &s), 0);
	assert_true(profile__fold(p, 1, NULL, NULL) > 0); /* caller's stack folds into [other] */
	annotate_pane__renumber(&pane, p);
	assert_false(pane.open);
	annotate_pane__free(&pane);
	profile__free(p);
}

/* a: from the tree's selected row; nothing on the root; the pane's keys then; q back. */
static void test_a_key(void **state)
{
	size_t nkeys;
	const struct key_binding *keys = actions__bindings(&nkeys);
	struct profile *p;
	struct view v;
	uint32_t caller;

	(void)state;
	p = caller_profile(&caller);
	assert_int_equal(view__init(&v, true, 1.0, keys, nkeys), 0);
	view__resize(&v, 80, 24);
	v.window = WINDOW_CUMULATIVE;
	assert_int_equal(profile__sort(p), 0);
	assert_int_equal(view__rebuild(&v, p), 0);
	assert_int_equal(actions__key(&v, 'g'), ACT_REDRAW); /* the root */
	assert_int_equal(actions__key(&v, 'a'), ACT_REDRAW);
	assert_false(v.annotate.open);
	assert_string_equal(v.message, "a: select a function first");
	actions__key(&v, 'E');
	while (view__selected_frame(&v) != caller)
		assert_int_equal(actions__key(&v, 'j'), ACT_REDRAW);
	assert_int_equal(actions__key(&v, 'a'), ACT_ANNOTATE | ACT_REDRAW);
	assert_true(v.annotate.open && v.annotate.want_job);
	assert_int_equal(v.annotate.frame, caller);
	assert_int_equal(actions__key(&v, 'x'), ACT_REDRAW); /* not a key of the pane */
	assert_true(v.annotate.open);
	assert_int_equal(actions__key(&v, 'q'), ACT_REDRAW);
	assert_false(v.annotate.open);
	view__free(&v);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opens_on_the_hottest_line),
		cmocka_unit_test(test_hot_rows),
		cmocka_unit_test(test_toggle),
		cmocka_unit_test(test_refresh_keeps_selection),
		cmocka_unit_test(test_no_lines_opens_instructions),
		cmocka_unit_test(test_draw),
		cmocka_unit_test(test_draw_loading),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_renumber_closes),
		cmocka_unit_test(test_a_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
