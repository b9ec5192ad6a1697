// SPDX-License-Identifier: GPL-2.0
/*
 * stack_trie: the view built from a profile through a view_filter.
 *
 * The fixture profile, in folded form (tgid in brackets):
 *   bash[100];main;foo 3
 *   bash[100];main;bar 1
 *   bash[100];main;foo;sys_read[k] 2
 *   sleep[200];main 5
 * so with no filter the trie is
 *   root 11
 *     bash 6            (before sleep: 6 > 5)
 *       main 6
 *         foo 5, self 3
 *           sys_read 2, self 2
 *         bar 1, self 1
 *     sleep 5
 *       main 5, self 5
 */
#include "tests/unit/profile_fixture.h"

static int setup(void **state)
{
	struct trie_fixture *f;

	if (trie_setup(state))
		return -1;
	f = *state;
	small_profile_frames(f);
	ADD(f->p, 100, 3, f->bash, f->main, f->foo);
	ADD(f->p, 100, 1, f->bash, f->main, f->bar);
	ADD(f->p, 100, 2, f->bash, f->main, f->foo, f->sys_read);
	ADD(f->p, 200, 5, f->sleep, f->main);
	return 0;
}

/* Follows @parent's child for @frame; fails the test when there is none. */
static uint32_t child(const struct stack_trie *t, uint32_t parent, uint32_t frame)
{
	uint32_t c = stack_trie__child(t, parent, frame);

	assert_int_not_equal(c, TRIE_NONE);
	assert_true(c < t->n);
	return c;
}

static void check_node(const struct stack_trie *t, uint32_t node, uint32_t parent, uint32_t depth,
		       uint64_t self, uint64_t total)
{
	const struct trie_node *n = &t->nodes[node];

	assert_int_equal(n->parent, parent);
	assert_int_equal(n->depth, depth);
	assert_int_equal(n->self, self);
	assert_int_equal(n->total, total);
}

/* @node's children, in sibling order, are exactly @kids[0..n). */
static void check_children(const struct stack_trie *t, uint32_t node, const uint32_t *kids,
			   size_t n)
{
	size_t i = 0;

	for (uint32_t c = t->nodes[node].first_child; c != TRIE_NONE;
	     c = t->nodes[c].next_sibling) {
		assert_true(i < n);
		assert_int_equal(c, kids[i]);
		assert_int_equal(t->nodes[c].parent, node);
		i++;
	}
	assert_int_equal(i, n);
}

#define CHILDREN(t, node, ...)                                                                     \
	do {                                                                                       \
		const uint32_t kids__[] = {__VA_ARGS__};                                           \
		check_children(t, node, kids__, sizeof(kids__) / sizeof(uint32_t));                \
	} while (0)

#define NO_CHILDREN(t, node) check_children(t, node, NULL, 0)

static void check_full_trie(const struct trie_fixture *f)
{
	const struct stack_trie *t = &f->t;
	uint32_t bash, sleep, bmain, smain, foo, bar, sys_read;

	assert_int_equal(t->n, 8);
	assert_int_equal(t->max_depth, 4);
	assert_int_equal(t->nodes[TRIE_ROOT].frame, PROFILE_NONE);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 11);

	bash = child(t, TRIE_ROOT, f->bash);
	sleep = child(t, TRIE_ROOT, f->sleep);
	bmain = child(t, bash, f->main);
	smain = child(t, sleep, f->main);
	foo = child(t, bmain, f->foo);
	bar = child(t, bmain, f->bar);
	sys_read = child(t, foo, f->sys_read);

	assert_int_equal(t->nodes[bash].frame, f->bash);
	assert_int_equal(t->nodes[bmain].frame, f->main);
	assert_int_equal(t->nodes[smain].frame, f->main);
	assert_int_equal(t->nodes[sys_read].frame, f->sys_read);
	assert_int_not_equal(bmain, smain);

	check_node(t, bash, TRIE_ROOT, 1, 0, 6);
	check_node(t, bmain, bash, 2, 0, 6);
	check_node(t, foo, bmain, 3, 3, 5);
	check_node(t, sys_read, foo, 4, 2, 2);
	check_node(t, bar, bmain, 3, 1, 1);
	check_node(t, sleep, TRIE_ROOT, 1, 0, 5);
	check_node(t, smain, sleep, 2, 5, 5);

	CHILDREN(t, TRIE_ROOT, bash, sleep);
	CHILDREN(t, bash, bmain);
	CHILDREN(t, bmain, foo, bar);
	CHILDREN(t, foo, sys_read);
	NO_CHILDREN(t, sys_read);
	NO_CHILDREN(t, bar);
	CHILDREN(t, sleep, smain);
	NO_CHILDREN(t, smain);
}

static void test_full_view(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};

	trie_build(f, &all);
	check_full_trie(f);
}

static void test_child_lookups(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo;

	trie_build(f, &all);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	/* Only the path that exists. */
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, f->main), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, f->foo), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, bash, f->foo), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, bmain, f->sys_read), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, foo, f->foo), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, child(t, TRIE_ROOT, f->sleep), f->foo), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, PROFILE_NONE), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, 12345), TRIE_NONE);
}

static void test_child_of_fresh_trie(void **state)
{
	struct stack_trie t;

	(void)state;
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__child(&t, TRIE_ROOT, 0), TRIE_NONE);
	stack_trie__free(&t);
}

/* Hidden kernel frames: "bash;main;foo;sys_read 2" counts as foo's own. */
static void test_hide_kernel(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .hide_kernel = true};
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo, bar;

	trie_build(f, &flt);
	assert_int_equal(t->n, 7);
	assert_int_equal(t->max_depth, 3);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 11);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	bar = child(t, bmain, f->bar);
	check_node(t, foo, bmain, 3, 5, 5);
	check_node(t, bar, bmain, 3, 1, 1);
	NO_CHILDREN(t, foo);
	assert_int_equal(stack_trie__child(t, foo, f->sys_read), TRIE_NONE);
	check_node(t, child(t, child(t, TRIE_ROOT, f->sleep), f->main),
		   child(t, TRIE_ROOT, f->sleep), 2, 5, 5);
}

/*
 * Hidden user frames leave the process and kernel frames: "bash;sys_read 2";
 * stacks left with only their process frame count as the process's own.
 */
static void test_hide_user(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .hide_user = true};
	const struct stack_trie *t = &f->t;
	uint32_t bash, sleep, sys_read;

	trie_build(f, &flt);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->max_depth, 2);
	bash = child(t, TRIE_ROOT, f->bash);
	sleep = child(t, TRIE_ROOT, f->sleep);
	sys_read = child(t, bash, f->sys_read);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 11);
	check_node(t, bash, TRIE_ROOT, 1, 4, 6);
	check_node(t, sys_read, bash, 2, 2, 2);
	check_node(t, sleep, TRIE_ROOT, 1, 5, 5);
	CHILDREN(t, TRIE_ROOT, bash, sleep);
	CHILDREN(t, bash, sys_read);
	NO_CHILDREN(t, sleep);
	assert_int_equal(stack_trie__child(t, bash, f->main), TRIE_NONE);
}

static void test_hide_both_leaves_processes(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {
	    .window = WINDOW_CUMULATIVE, .hide_kernel = true, .hide_user = true};
	const struct stack_trie *t = &f->t;
	uint32_t bash, sleep;

	trie_build(f, &flt);
	assert_int_equal(t->n, 3);
	assert_int_equal(t->max_depth, 1);
	bash = child(t, TRIE_ROOT, f->bash);
	sleep = child(t, TRIE_ROOT, f->sleep);
	check_node(t, bash, TRIE_ROOT, 1, 6, 6);
	check_node(t, sleep, TRIE_ROOT, 1, 5, 5);
	CHILDREN(t, TRIE_ROOT, bash, sleep);
	NO_CHILDREN(t, bash);
}

static void test_tgid_filter(void **state)
{
	struct trie_fixture *f = *state;
	const int32_t only_sleep[] = {200};
	const int32_t bash_and_absent[] = {300, 100};
	const int32_t absent[] = {999};
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .tgids = only_sleep, .ntgids = 1};
	const struct stack_trie *t = &f->t;
	uint32_t sleep, bash;

	trie_build(f, &flt);
	assert_int_equal(t->n, 3);
	sleep = child(t, TRIE_ROOT, f->sleep);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 5);
	CHILDREN(t, TRIE_ROOT, sleep);
	check_node(t, child(t, sleep, f->main), sleep, 2, 5, 5);

	flt.tgids = bash_and_absent;
	flt.ntgids = 2;
	trie_build(f, &flt);
	assert_int_equal(t->n, 6);
	assert_int_equal(t->max_depth, 4);
	bash = child(t, TRIE_ROOT, f->bash);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 6);
	CHILDREN(t, TRIE_ROOT, bash);
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, f->sleep), TRIE_NONE);

	flt.tgids = absent;
	flt.ntgids = 1;
	trie_build(f, &flt);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->max_depth, 0);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 0);
	NO_CHILDREN(t, TRIE_ROOT);

	/* ntgids == 0 means no pid filter, whatever tgids points to. */
	flt.ntgids = 0;
	trie_build(f, &flt);
	check_full_trie(f);
}

static void test_comm_filter_exact(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .comm = "bash"};
	/* A prefix, a longer name, another case, a frame that is no process. */
	const char *misses[] = {"bas", "bashx", "Bash", "sleep ", "main", ""};
	const struct stack_trie *t = &f->t;

	trie_build(f, &flt);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 6);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->bash));

	flt.comm = "sleep";
	trie_build(f, &flt);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 5);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->sleep));

	for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
		flt.comm = misses[i];
		trie_build(f, &flt);
		assert_int_equal(t->n, 1);
		check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 0);
	}
}

static void test_text_filter(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .text = "read"};
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo, sleep;

	/* Only "bash;main;foo;sys_read 2" has a frame containing "read". */
	trie_build(f, &flt);
	assert_int_equal(t->n, 5);
	assert_int_equal(t->max_depth, 4);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 2);
	check_node(t, bash, TRIE_ROOT, 1, 0, 2);
	check_node(t, foo, bmain, 3, 0, 2);
	check_node(t, child(t, foo, f->sys_read), foo, 4, 2, 2);
	assert_int_equal(stack_trie__child(t, bmain, f->bar), TRIE_NONE);

	/* "oo" is in foo: two stacks. */
	flt.text = "oo";
	trie_build(f, &flt);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 5);
	foo = child(t, child(t, child(t, TRIE_ROOT, f->bash), f->main), f->foo);
	check_node(t, foo, t->nodes[foo].parent, 3, 3, 5);

	/* The process frame counts too: "lee" is in sleep. */
	flt.text = "lee";
	trie_build(f, &flt);
	sleep = child(t, TRIE_ROOT, f->sleep);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 5);
	CHILDREN(t, TRIE_ROOT, sleep);

	/* "ai" is in main, which every stack has. */
	flt.text = "ai";
	trie_build(f, &flt);
	check_full_trie(f);

	flt.text = "zzz";
	trie_build(f, &flt);
	assert_int_equal(t->n, 1);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 0);

	/* Filters combine: comm and text. */
	flt.text = "a";
	flt.comm = "sleep";
	trie_build(f, &flt);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 5);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->sleep));
}

/*
 * Recent window: the fixture's counts are closed into the recent window;
 * then "bash;main;bar 10" goes into the open interval.
 */
static void test_recent_window(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter recent = {.window = WINDOW_RECENT};
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo, bar;

	/* Nothing closed yet: the recent view is empty. */
	trie_build(f, &recent);
	assert_int_equal(t->n, 1);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 0);

	profile__close_interval(f->p);
	ADD(f->p, 100, 10, f->bash, f->main, f->bar);
	trie_build(f, &recent);
	check_full_trie(f);

	/* Cumulative: bar 11 now comes before foo 5; bash 16 before sleep 5. */
	trie_build(f, &all);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	bar = child(t, bmain, f->bar);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 21);
	check_node(t, bash, TRIE_ROOT, 1, 0, 16);
	check_node(t, bar, bmain, 3, 11, 11);
	CHILDREN(t, bmain, bar, foo);
	CHILDREN(t, TRIE_ROOT, bash, child(t, TRIE_ROOT, f->sleep));

	/* Next interval: only bar's 10; stacks with no recent count leave no node. */
	profile__close_interval(f->p);
	trie_build(f, &recent);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->max_depth, 3);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	bar = child(t, bmain, f->bar);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 10);
	check_node(t, bar, bmain, 3, 10, 10);
	CHILDREN(t, bmain, bar);
	assert_int_equal(stack_trie__child(t, TRIE_ROOT, f->sleep), TRIE_NONE);
	assert_int_equal(stack_trie__child(t, bmain, f->foo), TRIE_NONE);
}

/* Ties in total are broken by name, at every level. */
static void test_ties_by_name(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t zsh = frame(f->p, "zsh", FRAME_PROCESS);
	uint32_t awk = frame(f->p, "awk", FRAME_PROCESS);
	uint32_t beta = frame(f->p, "beta", FRAME_USER);
	uint32_t alpha = frame(f->p, "alpha", FRAME_USER);
	uint32_t gamma = frame(f->p, "gamma", FRAME_USER);
	uint32_t z;

	profile__reset(f->p);
	/* Neither this order nor its reverse is the sorted one among zsh's children. */
	ADD(f->p, 2, 5, awk);
	ADD(f->p, 1, 1, zsh, alpha);
	ADD(f->p, 1, 1, zsh, gamma);
	ADD(f->p, 1, 2, zsh, beta);
	ADD(f->p, 1, 1, zsh, beta, beta);
	trie_build(f, &all);
	z = child(t, TRIE_ROOT, zsh);
	/* zsh 5 and awk 5 tie: awk first. */
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, awk), z);
	/* beta 3, then alpha 1 and gamma 1 by name. */
	CHILDREN(t, z, child(t, z, beta), child(t, z, alpha), child(t, z, gamma));
	check_node(t, child(t, z, beta), z, 2, 2, 3);
	check_node(t, child(t, TRIE_ROOT, awk), TRIE_ROOT, 1, 5, 5);
}

/* One process node per comm, whatever the tgids; a stack of only a process frame. */
static void test_same_comm_merges_and_bare_process(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t idle = frame(f->p, "idle", FRAME_PROCESS);
	uint32_t bash;

	ADD(f->p, 101, 4, f->bash, f->main, f->foo);
	ADD(f->p, 0, 7, idle);
	trie_build(f, &all);
	assert_int_equal(t->n, 9);
	bash = child(t, TRIE_ROOT, f->bash);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 22);
	check_node(t, bash, TRIE_ROOT, 1, 0, 10);
	check_node(t, child(t, child(t, bash, f->main), f->foo), child(t, bash, f->main), 3, 7, 9);
	check_node(t, child(t, TRIE_ROOT, idle), TRIE_ROOT, 1, 7, 7);
	NO_CHILDREN(t, child(t, TRIE_ROOT, idle));
	CHILDREN(t, TRIE_ROOT, bash, child(t, TRIE_ROOT, idle), child(t, TRIE_ROOT, f->sleep));
}

/* Rebuilding replaces everything: the same view twice gives the same nodes. */
static void test_rebuild_leaves_nothing_behind(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	struct view_filter narrow = {
	    .window = WINDOW_CUMULATIVE, .hide_kernel = true, .comm = "sleep"};
	struct trie_node first[8];

	trie_build(f, &all);
	check_full_trie(f);
	memcpy(first, f->t.nodes, sizeof(first));
	trie_build(f, &all);
	check_full_trie(f);
	assert_memory_equal(f->t.nodes, first, sizeof(first));

	trie_build(f, &narrow);
	assert_int_equal(f->t.n, 3);
	assert_int_equal(f->t.max_depth, 2);
	assert_int_equal(stack_trie__child(&f->t, TRIE_ROOT, f->bash), TRIE_NONE);

	trie_build(f, &all);
	check_full_trie(f);
	assert_memory_equal(f->t.nodes, first, sizeof(first));
}

static void test_empty_profile(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};

	profile__reset(f->p);
	trie_build(f, &all);
	assert_int_equal(f->t.n, 1);
	assert_int_equal(f->t.max_depth, 0);
	check_node(&f->t, TRIE_ROOT, TRIE_NONE, 0, 0, 0);
	NO_CHILDREN(&f->t, TRIE_ROOT);
	assert_int_equal(stack_trie__child(&f->t, TRIE_ROOT, f->bash), TRIE_NONE);
}

#define WIDE 10000

/* Many siblings: node array and child index grow; equal totals sort by name. */
static void test_wide_trie(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t *leaf = malloc(WIDE * sizeof(*leaf));
	uint32_t proc = frame(f->p, "wide", FRAME_PROCESS);
	uint32_t w, c;
	char name[16];

	assert_non_null(leaf);
	profile__reset(f->p);
	for (int i = 0; i < WIDE; i++) {
		snprintf(name, sizeof(name), "f%05d", i);
		leaf[i] = frame(f->p, name, FRAME_USER);
		ADD(f->p, 1, 1, proc, leaf[i]);
	}
	trie_build(f, &all);
	assert_int_equal(t->n, WIDE + 2);
	w = child(t, TRIE_ROOT, proc);
	check_node(t, w, TRIE_ROOT, 1, 0, WIDE);
	c = t->nodes[w].first_child;
	for (int i = 0; i < WIDE; i++) {
		assert_int_equal(child(t, w, leaf[i]), c);
		check_node(t, c, w, 2, 1, 1);
		c = t->nodes[c].next_sibling;
	}
	assert_int_equal(c, TRIE_NONE);
	free(leaf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_full_view, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_child_lookups, setup, trie_teardown),
	    cmocka_unit_test(test_child_of_fresh_trie),
	    cmocka_unit_test_setup_teardown(test_hide_kernel, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_hide_user, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_hide_both_leaves_processes, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_tgid_filter, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_comm_filter_exact, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_text_filter, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_recent_window, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_ties_by_name, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_same_comm_merges_and_bare_process, setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_rebuild_leaves_nothing_behind, setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_empty_profile, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_wide_trie, setup, trie_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
