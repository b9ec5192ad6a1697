// SPDX-License-Identifier: GPL-2.0
/*
 * folded__write(): a stack trie as folded stacks, one line per node with a
 * self count, root to leaf, in the trie's order.
 */
#include "tests/unit/profile_fixture.h"

#include <errno.h>

#include "profile/folded.h"

/*
 * bash;main;foo 3, bash;main;bar 1, bash;main;foo;sys_read[k] 2, sleep;main 5
 * (the stacks go in out of order: the output follows the trie, not them).
 */
static void add_small_profile(struct trie_fixture *f)
{
	small_profile_frames(f);
	ADD(f->p, 1, 5, f->sleep, f->main);
	ADD(f->p, 1, 1, f->bash, f->main, f->bar);
	ADD(f->p, 1, 2, f->bash, f->main, f->foo, f->sys_read);
	ADD(f->p, 1, 3, f->bash, f->main, f->foo);
}

/* Writes @f's trie to memory and checks the text and the line count. */
static void check_output(struct trie_fixture *f, const char *want, long want_lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	long lines;

	assert_non_null(out);
	lines = folded__write(out, &f->t, f->p, GROUP_COMM);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(lines, want_lines);
	free(buf);
}

static void test_small_profile(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};

	add_small_profile(f);
	trie_build(f, &all);
	/* bash (6) before sleep (5), foo (5) before bar (1); bash and main have no line. */
	check_output(f,
		     "bash;main;foo 3\n"
		     "bash;main;foo;sys_read_[k] 2\n"
		     "bash;main;bar 1\n"
		     "sleep;main 5\n",
		     4);
}

static void test_hidden_kernel_folds_into_caller(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .hide_kernel = true};

	add_small_profile(f);
	trie_build(f, &flt);
	check_output(f,
		     "bash;main;foo 5\n"
		     "bash;main;bar 1\n"
		     "sleep;main 5\n",
		     3);
}

/* A node with a self count and children: its line comes before theirs. */
static void test_hidden_user_process_lines(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .hide_user = true};

	add_small_profile(f);
	trie_build(f, &flt);
	check_output(f,
		     "bash 4\n"
		     "bash;sys_read_[k] 2\n"
		     "sleep 5\n",
		     3);
}

/*
 * What would not read back as the same frame is written escaped: ';' (it
 * would split the frame) and '\\' as "\\x3b" and "\\x5c", a last blank
 * (read as the count's), the ']' of a user frame ending "_[k]" (read as a
 * kernel frame), an empty name (an empty frame is malformed).
 */
static void test_escaped_names(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t proc = frame(f->p, "a;b", FRAME_PROCESS);
	uint32_t user = frame(f->p, ";x;", FRAME_USER);
	uint32_t kern = frame(f->p, "k;1", FRAME_KERNEL);
	uint32_t like_kern = frame(f->p, "x_[k]", FRAME_USER);
	uint32_t blank = frame(f->p, "b  ", FRAME_USER);
	uint32_t slash = frame(f->p, "c\\d", FRAME_USER);
	uint32_t empty = frame(f->p, "", FRAME_USER);

	ADD(f->p, 1, 7, proc, user, kern);
	ADD(f->p, 1, 5, proc, like_kern, blank, slash, empty);
	trie_build(f, &all);
	check_output(f,
		     "a\\x3bb;\\x3bx\\x3b;k\\x3b1_[k] 7\n"
		     "a\\x3bb;x_[k\\x5d;b \\x20;c\\x5cd;\\x00 5\n",
		     2);
}

/* Only kernel frames get the suffix: a user frame named like a kernel one does not. */
static void test_kernel_suffix_by_kind(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t proc = frame(f->p, "cat", FRAME_PROCESS);
	uint32_t user = frame(f->p, "read", FRAME_USER);
	uint32_t kern = frame(f->p, "read", FRAME_KERNEL);

	ADD(f->p, 1, 2, proc, user, kern);
	ADD(f->p, 1, 1, proc, kern);
	trie_build(f, &all);
	check_output(f,
		     "cat;read;read_[k] 2\n"
		     "cat;read_[k] 1\n",
		     2);
}

static void test_empty_trie_writes_nothing(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};

	/* Never built. */
	check_output(f, "", 0);
	/* Built from an empty profile. */
	trie_build(f, &all);
	check_output(f, "", 0);
	/* Built through a filter that keeps nothing. */
	add_small_profile(f);
	all.comm = "nobody";
	trie_build(f, &all);
	check_output(f, "", 0);
}

#define NLINES 5000

/* More output than a stdio buffer holds; counts are written in full. */
static void test_many_lines(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t proc = frame(f->p, "p", FRAME_PROCESS);
	size_t cap = NLINES * 40;
	char *want = malloc(cap), *w = want;
	char name[32];

	assert_non_null(want);
	/* Count 10^12 + i: distinct totals, largest first, so the order is known. */
	for (int i = NLINES - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "fn%d", i);
		ADD(f->p, 1, 1000000000000ull + i, proc, frame(f->p, name, FRAME_USER));
	}
	for (int i = NLINES - 1; i >= 0; i--)
		w += sprintf(w, "p;fn%d %llu\n", i, 1000000000000ull + i);
	trie_build(f, &all);
	check_output(f, want, NLINES);
	free(want);
}

/* A full device: the error comes back as -ENOSPC, short output or long. */
static void test_write_error(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	FILE *out = fopen("/dev/full", "w");
	uint32_t proc, fn;
	char name[32];

	assert_non_null(out);
	add_small_profile(f);
	trie_build(f, &all);
	errno = 0;
	assert_int_equal(folded__write(out, &f->t, f->p, GROUP_COMM), -ENOSPC);
	fclose(out);

	proc = frame(f->p, "p", FRAME_PROCESS);
	for (int i = 0; i < NLINES; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		fn = frame(f->p, name, FRAME_USER);
		ADD(f->p, 1, 1, proc, fn);
	}
	trie_build(f, &all);
	out = fopen("/dev/full", "w");
	assert_non_null(out);
	errno = 0;
	assert_int_equal(folded__write(out, &f->t, f->p, GROUP_COMM), -ENOSPC);
	fclose(out);
}

/* A stream opened for reading only: writing fails, and the error is reported. */
static void test_read_only_stream(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	FILE *in = fopen("/dev/null", "r");
	long ret;

	assert_non_null(in);
	add_small_profile(f);
	trie_build(f, &all);
	errno = 0;
	ret = folded__write(in, &f->t, f->p, GROUP_COMM);
	assert_true(ret < 0);
	fclose(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_small_profile, trie_setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_hidden_kernel_folds_into_caller, trie_setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_hidden_user_process_lines, trie_setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_escaped_names, trie_setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_kernel_suffix_by_kind, trie_setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_empty_trie_writes_nothing, trie_setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_many_lines, trie_setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_write_error, trie_setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_read_only_stream, trie_setup, trie_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
