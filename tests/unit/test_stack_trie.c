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

#include "array.h"
#include "profile/flat.h"

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
	assert_int_equal(stack_trie__depth(t, node), depth);
	assert_int_equal(stack_trie__self(t, node), self);
	assert_int_equal(n->total, total);
}

/* @node's children, in sibling order, are exactly @kids[0..n). */
static void check_children(const struct stack_trie *t, uint32_t node, const uint32_t *kids,
			   size_t n)
{
	size_t i = 0;

	for (uint32_t c = stack_trie__first_child(t, node); c != TRIE_NONE;
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

/*
 * A trie that keeps its order sorts siblings a sample apart as its last
 * build did; further apart, and in a trie that does not keep its order, by
 * total: no row shows above a sibling counted more than a sample more
 * (the square root of the larger, which this rule replaced, let 6 stay
 * above 8). Siblings new to the build come after the known ones of their
 * run.
 */
static void test_keeps_order_within_a_sample(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	struct stack_trie plain;
	uint32_t zsh = frame(f->p, "zsh", FRAME_PROCESS), bmain;

	assert_int_equal(stack_trie__init(&plain), 0);
	stack_trie__keep_order(&f->t, NULL);
	trie_build(f, &all); /* bash 6, sleep 5 */
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->bash), child(t, TRIE_ROOT, f->sleep));

	ADD(f->p, 200, 2, f->sleep, f->main); /* sleep 7, bash 6: a sample apart */
	trie_build(f, &all);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->bash), child(t, TRIE_ROOT, f->sleep));
	assert_int_equal(stack_trie__build(&plain, f->p, &all), 0);
	CHILDREN(&plain, TRIE_ROOT, child(&plain, TRIE_ROOT, f->sleep),
		 child(&plain, TRIE_ROOT, f->bash));

	ADD(f->p, 200, 1, f->sleep, f->main); /* sleep 8, bash 6: two apart */
	trie_build(f, &all);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->sleep), child(t, TRIE_ROOT, f->bash));

	ADD(f->p, 100, 1, f->bash, f->main); /* bash 7, sleep 8: sleep stays first */
	ADD(f->p, 300, 8, zsh, f->main);     /* new, as big as sleep: after the known ones */
	trie_build(f, &all);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->sleep), child(t, TRIE_ROOT, f->bash),
		 child(t, TRIE_ROOT, zsh));

	/* Deeper too: bash;main's bar 5 and foo 5 keep foo first; bash 11 leads now. */
	ADD(f->p, 100, 4, f->bash, f->main, f->bar);
	trie_build(f, &all);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, f->bash), child(t, TRIE_ROOT, f->sleep),
		 child(t, TRIE_ROOT, zsh));
	bmain = child(t, child(t, TRIE_ROOT, f->bash), f->main);
	CHILDREN(t, bmain, child(t, bmain, f->foo), child(t, bmain, f->bar));
	ADD(f->p, 100, 2, f->bash, f->main, f->bar); /* bar 7, foo 5 */
	trie_build(f, &all);
	bmain = child(t, child(t, TRIE_ROOT, f->bash), f->main);
	CHILDREN(t, bmain, child(t, bmain, f->bar), child(t, bmain, f->foo));
	stack_trie__free(&plain);
}

/* A count shown to hundreds: the screen tells no two counts apart within 50 of each other. */
static uint64_t shown_in_hundreds(uint64_t count)
{
	(void)count;
	return 100;
}

/*
 * Beyond one sample, siblings hold still only within what the screen can't
 * tell apart: half the unit of the count's last digit, and half a 0.1%
 * share of the root, the less of the two.
 */
static void test_jitter_is_what_the_screen_hides(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;

	stack_trie__keep_order(&f->t, NULL);
	trie_build(f, &all); /* 11 samples */
	assert_int_equal(stack_trie__jitter(t, 6), 1);
	stack_trie__keep_order(&f->t, shown_in_hundreds);
	trie_build(f, &all); /* a 0.1% share is no sample: one sample it is */
	assert_int_equal(stack_trie__jitter(t, 6), 1);
	ADD(f->p, 200, 39989, f->sleep, f->main); /* 40000: half of 0.1% is 20 */
	trie_build(f, &all);
	assert_int_equal(stack_trie__jitter(t, 6), 20);
	ADD(f->p, 200, 160000, f->sleep, f->main); /* 200000: 100, but the counts show 50 */
	trie_build(f, &all);
	assert_int_equal(stack_trie__jitter(t, 6), 50);
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

/*
 * Grouped by process, the first level is the group frames, each over its
 * stacks though they are not neighbours in the sorted order (stacks of the
 * same frames are, whatever their process), and a callers trie ends with
 * them too.
 */
static void test_grouped_by_process(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter by_pid = {.window = WINDOW_CUMULATIVE, .group = GROUP_PID};
	const struct stack_trie *t = &f->t;
	struct stack_trie callers;
	uint32_t b100, b101, s200, m101, main_callers;

	ADD(f->p, 101, 4, f->bash, f->main, f->bar);
	assert_int_equal(profile__sort(f->p), 0);
	assert_int_equal(profile__group(f->p, GROUP_PID), 0);
	b100 = frame(f->p, "bash [100]", FRAME_PROCESS);
	b101 = frame(f->p, "bash [101]", FRAME_PROCESS);
	s200 = frame(f->p, "sleep [200]", FRAME_PROCESS);
	trie_build(f, &by_pid);
	CHILDREN(t, TRIE_ROOT, child(t, TRIE_ROOT, b100), child(t, TRIE_ROOT, s200),
		 child(t, TRIE_ROOT, b101));
	check_node(t, child(t, TRIE_ROOT, b100), TRIE_ROOT, 1, 0, 6);
	check_node(t, child(t, child(t, child(t, TRIE_ROOT, b100), f->main), f->bar),
		   child(t, child(t, TRIE_ROOT, b100), f->main), 3, 1, 1);
	m101 = child(t, child(t, TRIE_ROOT, b101), f->main);
	check_node(t, m101, child(t, TRIE_ROOT, b101), 2, 0, 4);
	CHILDREN(t, m101, child(t, m101, f->bar));
	check_node(t, child(t, m101, f->bar), m101, 3, 4, 4);

	stack_trie__init(&callers);
	assert_int_equal(stack_trie__build_callers(&callers, t, f->p, f->bar), 0);
	main_callers = child(&callers, TRIE_ROOT, f->main);
	check_node(&callers, main_callers, TRIE_ROOT, 1, 0, 5);
	CHILDREN(&callers, main_callers, child(&callers, main_callers, b101),
		 child(&callers, main_callers, b100));
	check_node(&callers, child(&callers, main_callers, b100), main_callers, 2, 1, 1);
	stack_trie__free(&callers);
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
	c = stack_trie__first_child(t, w);
	for (int i = 0; i < WIDE; i++) {
		assert_int_equal(child(t, w, leaf[i]), c);
		check_node(t, c, w, 2, 1, 1);
		c = t->nodes[c].next_sibling;
	}
	assert_int_equal(c, TRIE_NONE);
	free(leaf);
}

/* Any order of the same stacks: the same trie */

/* Node @node's place among siblings: larger total first, then name, then frame id. */
static bool sibling_before(const struct stack_trie *t, const struct profile *p, uint32_t a,
			   uint32_t b)
{
	const struct trie_node *x = &t->nodes[a], *y = &t->nodes[b];
	int c = strcmp(profile__frame_name(p, x->frame), profile__frame_name(p, y->frame));

	if (x->total != y->total)
		return x->total > y->total;
	return c ? c < 0 : x->frame < y->frame;
}

/*
 * The layout stack_trie.h promises: every node's parent comes before it,
 * one level up; a node's children are consecutive, from its first child
 * on, in their order.
 */
static void check_layout(const struct stack_trie *t, const struct profile *p)
{
	for (uint32_t i = 1; i < t->n; i++) {
		uint32_t parent = t->nodes[i].parent, next = t->nodes[i].next_sibling;

		assert_true(parent < i);
		assert_int_equal(stack_trie__depth(t, i), stack_trie__depth(t, parent) + 1);
		assert_true(stack_trie__depth(t, i) <= t->max_depth);
		if (next != TRIE_NONE) {
			assert_int_equal(next, i + 1);
			assert_int_equal(t->nodes[next].parent, parent);
			assert_true(sibling_before(t, p, i, next));
		}
		if (stack_trie__first_child(t, parent) != i)
			assert_int_equal(t->nodes[i - 1].next_sibling, i);
	}
}

/* @a and @b are the same trie, node by node in sibling order (node numbers aside). */
static void check_same_subtree(const struct stack_trie *a, uint32_t na, const struct stack_trie *b,
			       uint32_t nb)
{
	uint32_t ca = stack_trie__first_child(a, na), cb = stack_trie__first_child(b, nb);

	assert_int_equal(a->nodes[na].frame, b->nodes[nb].frame);
	assert_int_equal(stack_trie__depth(a, na), stack_trie__depth(b, nb));
	assert_int_equal(stack_trie__self(a, na), stack_trie__self(b, nb));
	assert_int_equal(a->nodes[na].total, b->nodes[nb].total);
	for (; ca != TRIE_NONE && cb != TRIE_NONE;
	     ca = a->nodes[ca].next_sibling, cb = b->nodes[cb].next_sibling)
		check_same_subtree(a, ca, b, cb);
	assert_int_equal(ca, TRIE_NONE);
	assert_int_equal(cb, TRIE_NONE);
}

static void check_same_trie(const struct stack_trie *a, const struct stack_trie *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->max_depth, b->max_depth);
	check_same_subtree(a, TRIE_ROOT, b, TRIE_ROOT);
}

/*
 * The counts, worked out from the profile's stacks one by one: each kept
 * stack's shown frames lead from the root to a node (found with
 * stack_trie__child()) that counts it as self, and every node on the way
 * counts it in its total. No node counts what no stack brought.
 */
static void check_counts(const struct stack_trie *t, const struct profile *p,
			 const struct view_filter *f)
{
	uint64_t *self = calloc(t->n, sizeof(*self)), *total = calloc(t->n, sizeof(*total));

	assert_non_null(self);
	assert_non_null(total);
	for (size_t i = 0; i < profile__nstacks(p); i++) {
		struct profile_stack s;
		uint64_t count;
		uint32_t node = TRIE_ROOT;

		profile__stack(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		if (!count || !view_filter__keeps(f, p, &s))
			continue;
		total[TRIE_ROOT] += count;
		for (uint32_t k = 0; k < s.n; k++) {
			uint8_t kind = profile__frame_info(p, s.frames[k])->kind;

			if ((f->hide_kernel && kind == FRAME_KERNEL) ||
			    (f->hide_user && kind == FRAME_USER))
				continue;
			node = child(t, node, s.frames[k]);
			total[node] += count;
		}
		self[node] += count;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		assert_int_equal(stack_trie__self(t, i), self[i]);
		assert_int_equal(t->nodes[i].total, total[i]);
		assert_true(i == TRIE_ROOT || total[i] > 0);
	}
	free(self);
	free(total);
}

/*
 * The flat list of @t (see flat.h) against the profile's stacks walked one
 * by one: a function's self is what the stacks ending in it counted, its
 * total what the stacks through it counted, once per stack.
 */
static void check_flat(const struct stack_trie *t, const struct profile *p,
		       const struct view_filter *f)
{
	size_t nframes = profile__nframes(p), listed = 0;
	uint64_t *self = calloc(nframes, sizeof(*self)), *total = calloc(nframes, sizeof(*total));
	bool *seen = calloc(nframes, sizeof(*seen));
	struct flat_list fl = {0};

	assert_non_null(self);
	assert_non_null(total);
	assert_non_null(seen);
	for (size_t i = 0; i < profile__nstacks(p); i++) {
		struct profile_stack s;
		uint64_t count;
		uint32_t last = PROFILE_NONE;

		profile__stack(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		if (!count || !view_filter__keeps(f, p, &s))
			continue;
		memset(seen, 0, nframes * sizeof(*seen));
		for (uint32_t k = 0; k < s.n; k++) {
			uint8_t kind = profile__frame_info(p, s.frames[k])->kind;

			if ((f->hide_kernel && kind == FRAME_KERNEL) ||
			    (f->hide_user && kind == FRAME_USER))
				continue;
			last = s.frames[k];
			if (kind != FRAME_PROCESS && !seen[last])
				total[last] += count;
			seen[last] = true;
		}
		if (profile__frame_info(p, last)->kind != FRAME_PROCESS)
			self[last] += count;
	}
	assert_int_equal(flat_list__build(&fl, t, p, FLAT_BY_SELF), 0);
	for (size_t i = 0; i < fl.n; i++) {
		assert_int_equal(fl.entries[i].self, self[fl.entries[i].frame]);
		assert_int_equal(fl.entries[i].total, total[fl.entries[i].frame]);
	}
	for (size_t i = 0; i < nframes; i++)
		listed += total[i] > 0;
	assert_int_equal(fl.n, listed);
	flat_list__free(&fl);
	free(self);
	free(total);
	free(seen);
}

/* The frames random_samples() draws from. */
struct sample_frames {
	uint32_t procs[3], user[6], kernel[4];
};
#define SAMPLE_FRAMES 13 /* all of them */

static void sample_frames(struct profile *p, struct sample_frames *sf)
{
	const char *procs[] = {"bash", "sleep", "awk"};
	const char *user[] = {"main", "read", "parse", "run", "loop", "lib.so+0x1f"};
	const char *kernel[] = {"read", "vfs_read", "do_syscall_64", "entry_SYSCALL_64"};

	for (int i = 0; i < 3; i++)
		sf->procs[i] = frame(p, procs[i], FRAME_PROCESS);
	for (int i = 0; i < 6; i++)
		sf->user[i] = frame(p, user[i], FRAME_USER);
	for (int i = 0; i < 4; i++) /* "read" again: a kernel frame of a user frame's name */
		sf->kernel[i] = frame(p, kernel[i], FRAME_KERNEL);
}

#define NSAMPLES 3000
#define SAMPLE_MAX 12

struct random_sample {
	int32_t tgid;
	uint32_t n, count;
	uint32_t frames[SAMPLE_MAX];
};

/*
 * Stacks that share prefixes a lot and begin one another: a process, 0 to
 * 5 user frames, 0 to 3 kernel frames, and for one in eight a user frame
 * after the kernel ones (hiding kernel frames then leaves a gap).
 */
static void random_samples(struct random_sample *out, size_t n, const struct sample_frames *sf,
			   uint32_t *seed)
{
	for (size_t i = 0; i < n; i++) {
		struct random_sample *r = &out[i];
		uint32_t proc = next_random(seed) % 3, nu = next_random(seed) % 6;
		uint32_t nk = next_random(seed) % 4;

		r->tgid = (int32_t)(100 * (proc + 1) + next_random(seed) % 2);
		r->count = 1 + next_random(seed) % 5;
		r->n = 0;
		r->frames[r->n++] = sf->procs[proc];
		for (uint32_t k = 0; k < nu; k++)
			r->frames[r->n++] = sf->user[next_random(seed) % 6];
		for (uint32_t k = 0; k < nk; k++)
			r->frames[r->n++] = sf->kernel[next_random(seed) % 4];
		if (next_random(seed) % 8 == 0)
			r->frames[r->n++] = sf->user[next_random(seed) % 6];
	}
}

static void shuffle(struct random_sample *r, size_t n, uint32_t *seed)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = next_random(seed) % i;
		struct random_sample tmp = r[i - 1];

		r[i - 1] = r[j];
		r[j] = tmp;
	}
}

/* Adds @r[0, @n) to @p, sorting after every @sort_every stacks (never when 0). */
static void add_samples(struct profile *p, const struct random_sample *r, size_t n,
			size_t sort_every)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(add_stack(p, r[i].tgid, r[i].frames, r[i].n, r[i].count), 0);
		if (sort_every && (i + 1) % sort_every == 0)
			assert_int_equal(profile__sort(p), 0);
	}
}

/*
 * Two intervals of @r, in three ways: as they come, sorted at the end;
 * shuffled and sorted in batches; shuffled and never sorted.
 */
static void fill_three_ways(struct profile **p, struct random_sample *r, size_t n, uint32_t *seed)
{
	add_samples(p[0], r, n / 2, 0);
	profile__close_interval(p[0]);
	add_samples(p[0], r + n / 2, n - n / 2, 0);
	assert_int_equal(profile__sort(p[0]), 0);

	shuffle(r, n / 2, seed);
	shuffle(r + n / 2, n - n / 2, seed);
	add_samples(p[1], r, n / 2, 97);
	profile__close_interval(p[1]);
	add_samples(p[1], r + n / 2, n - n / 2, 97);
	add_samples(p[2], r, n / 2, 0);
	profile__close_interval(p[2]);
	add_samples(p[2], r + n / 2, n - n / 2, 0);
	assert_int_equal(profile__nsorted(p[2]), 0);
}

/* Every filter: the three profiles give the same trie, with the right counts, laid out right. */
static void check_three_ways(struct profile **p, const struct sample_frames *sf)
{
	const int32_t tgids[] = {101, 300};
	const struct view_filter filters[] = {
	    {.window = WINDOW_CUMULATIVE},
	    {.window = WINDOW_RECENT},
	    {.window = WINDOW_CUMULATIVE, .hide_kernel = true},
	    {.window = WINDOW_CUMULATIVE, .hide_user = true},
	    {.window = WINDOW_RECENT, .hide_kernel = true, .hide_user = true},
	    {.window = WINDOW_CUMULATIVE, .tgids = tgids, .ntgids = 2},
	    {.window = WINDOW_RECENT, .comm = "sleep", .hide_kernel = true},
	    {.window = WINDOW_CUMULATIVE, .text = "read"},
	};
	struct stack_trie t[3], callers[3];

	for (int k = 0; k < 3; k++) {
		assert_int_equal(stack_trie__init(&t[k]), 0);
		assert_int_equal(stack_trie__init(&callers[k]), 0);
	}
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		for (int k = 0; k < 3; k++) {
			assert_int_equal(stack_trie__build(&t[k], p[k], &filters[i]), 0);
			make_all(&t[k]);
			assert_true(t[k].n > 1);
			check_layout(&t[k], p[k]);
			check_counts(&t[k], p[k], &filters[i]);
			check_flat(&t[k], p[k], &filters[i]);
			assert_int_equal(
			    stack_trie__build_callers(&callers[k], &t[k], p[k], sf->kernel[0]), 0);
			make_all(&callers[k]);
			check_layout(&callers[k], p[k]);
		}
		check_same_trie(&t[0], &t[1]);
		check_same_trie(&t[0], &t[2]);
		check_same_trie(&callers[0], &callers[1]);
		check_same_trie(&callers[0], &callers[2]);
	}
	for (int k = 0; k < 3; k++) {
		stack_trie__free(&t[k]);
		stack_trie__free(&callers[k]);
	}
}

/*
 * The same stacks in the sorted order, sorted in batches, or not sorted at
 * all make the same trie under every filter, and the flat list built from
 * it is right; so do other stacks after a reset.
 */
static void test_any_order_same_trie(void **state)
{
	struct random_sample *r = malloc(NSAMPLES * sizeof(*r));
	struct profile *p[3] = {profile__new(), profile__new(), profile__new()};
	struct sample_frames sf[3];
	uint32_t seed = 2024;

	(void)state;
	assert_non_null(r);
	for (int k = 0; k < 3; k++) {
		assert_non_null(p[k]);
		sample_frames(p[k], &sf[k]);
		assert_memory_equal(&sf[k], &sf[0], sizeof(sf[0]));
	}
	random_samples(r, NSAMPLES, &sf[0], &seed);
	fill_three_ways(p, r, NSAMPLES, &seed);
	check_three_ways(p, &sf[0]);

	for (int k = 0; k < 3; k++)
		profile__reset(p[k]);
	random_samples(r, NSAMPLES / 3, &sf[0], &seed);
	fill_three_ways(p, r, NSAMPLES / 3, &seed);
	check_three_ways(p, &sf[0]);

	for (int k = 0; k < 3; k++)
		profile__free(p[k]);
	free(r);
}

/* Stacks that begin one another, sorted or not: a node for each prefix, counted once. */
static void test_prefix_stacks(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	struct stack_trie unsorted;
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo;

	ADD(f->p, 100, 1, f->bash);
	ADD(f->p, 100, 4, f->bash, f->main);
	ADD(f->p, 101, 7, f->bash, f->main);
	assert_int_equal(stack_trie__init(&unsorted), 0);
	assert_int_equal(stack_trie__build(&unsorted, f->p, &all), 0);
	make_all(&unsorted);
	assert_int_equal(profile__sort(f->p), 0);
	trie_build(f, &all);
	check_layout(t, f->p);
	check_same_trie(t, &unsorted);
	/* The fixture's 11 and the 12 above; no node besides the 8 of the full trie. */
	assert_int_equal(t->n, 8);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 23);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	check_node(t, bash, TRIE_ROOT, 1, 1, 18);
	check_node(t, bmain, bash, 2, 11, 17);
	check_node(t, foo, bmain, 3, 3, 5);
	check_node(t, child(t, foo, f->sys_read), foo, 4, 2, 2);
	stack_trie__free(&unsorted);
}

/*
 * A shown frame after a hidden one: with kernel frames hidden,
 * "bash;main;sys_read;foo" goes through main's foo, like "bash;main;foo",
 * though in the sorted order it comes after "bash;main;sys_read", far from
 * "bash;main;foo": the order no longer keeps the stacks of a node together.
 */
static void test_shown_frame_after_hidden(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter flt = {.window = WINDOW_CUMULATIVE, .hide_kernel = true};
	const struct stack_trie *t = &f->t;
	uint32_t bash, bmain, foo;

	ADD(f->p, 100, 2, f->bash, f->main, f->sys_read);
	ADD(f->p, 100, 4, f->bash, f->main, f->sys_read, f->foo);
	assert_int_equal(profile__sort(f->p), 0);
	trie_build(f, &flt);
	check_layout(t, f->p);
	bash = child(t, TRIE_ROOT, f->bash);
	bmain = child(t, bash, f->main);
	foo = child(t, bmain, f->foo);
	CHILDREN(t, bmain, foo, child(t, bmain, f->bar));
	check_node(t, foo, bmain, 3, 9, 9);
	check_node(t, bmain, bash, 2, 2, 12);
	NO_CHILDREN(t, foo);
}

/* Children are made when they are first asked for, and not before. */
static void test_children_made_when_asked(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	const struct stack_trie *t = &f->t;
	uint32_t bash, sleep, smain;

	assert_int_equal(stack_trie__build(&f->t, f->p, &all), 0);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->max_depth, 4);
	check_node(t, TRIE_ROOT, TRIE_NONE, 0, 0, 11);
	assert_true(stack_trie__has_children(t, TRIE_ROOT));
	bash = stack_trie__first_child(t, TRIE_ROOT);
	assert_int_equal(t->n, 3);
	sleep = t->nodes[bash].next_sibling;
	assert_int_equal(t->nodes[bash].frame, f->bash);
	assert_int_equal(t->nodes[sleep].frame, f->sleep);
	assert_int_equal(t->nodes[sleep].next_sibling, TRIE_NONE);
	/* Their counts and whether they have children are known before theirs are made. */
	check_node(t, bash, TRIE_ROOT, 1, 0, 6);
	check_node(t, sleep, TRIE_ROOT, 1, 0, 5);
	assert_true(stack_trie__has_children(t, sleep));
	assert_int_equal(stack_trie__first_child(t, TRIE_ROOT), bash);
	assert_int_equal(t->n, 3);
	smain = stack_trie__first_child(t, sleep);
	assert_int_equal(t->n, 4);
	check_node(t, smain, sleep, 2, 5, 5);
	assert_false(stack_trie__has_children(t, smain));
	assert_int_equal(stack_trie__first_child(t, smain), TRIE_NONE);
	assert_int_equal(t->n, 4);
	assert_int_equal(stack_trie__error(t), 0);
	make_all(t);
	check_full_trie(f);
}

/*
 * The trie shows the stacks and counts of its build while the profile
 * grows (live capture goes on between refreshes): the frames it borrows
 * stay where they were, and counts added later are not its.
 */
static void test_view_kept_while_profile_grows(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t frames[3] = {f->bash, f->main, 0};
	char name[32];

	assert_int_equal(stack_trie__build(&f->t, f->p, &all), 0);
	ADD(f->p, 100, 40, f->bash, f->main, f->foo);
	for (int i = 0; i < 200000; i++) {
		snprintf(name, sizeof(name), "grown_%d", i % 5000);
		frames[2] = frame(f->p, name, FRAME_USER);
		assert_int_equal(add_stack(f->p, 100 + i / 5000, frames, 3, 1), 0);
	}
	make_all(&f->t);
	check_full_trie(f);
}

/* A node, as a walk or a recursion over the children met it. */
struct seen_node {
	uint32_t frame, depth;
	uint64_t total, self;
};

struct seen_nodes {
	struct seen_node *v;
	size_t n, cap;
	uint32_t prune_below; /* a walk goes no deeper than this */
	size_t most_made;     /* the most nodes in memory during a walk */
	size_t chains;        /* chains seen whole */
};

static void see(struct seen_nodes *s, const struct stack_trie *t, uint32_t node)
{
	const struct trie_node *x = &t->nodes[node];

	assert_int_equal(array__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 256), 0);
	s->v[s->n++] = (struct seen_node){x->frame, x->depth, x->total, x->self};
}

/* Every node below @node, a node before its children, siblings in order. */
static void see_subtree(struct seen_nodes *s, const struct stack_trie *t, uint32_t node)
{
	see(s, t, node);
	for (uint32_t c = stack_trie__first_child(t, node); c != TRIE_NONE;
	     c = t->nodes[c].next_sibling)
		see_subtree(s, t, c);
}

/* A chain, seen as the nodes it stands for. */
static void see_chain(void *ctx, const struct stack_trie *t, uint32_t above,
		      const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct seen_nodes *s = ctx;

	assert_true(n > 0);
	assert_int_equal(t->nodes[above].hi - t->nodes[above].lo, 1);
	for (uint32_t k = 0; k < n; k++) {
		assert_int_equal(array__grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 256),
				 0);
		s->v[s->n++] = (struct seen_node){frames[k], t->nodes[above].depth + 1 + k, count,
						  k + 1 == n ? count : 0};
	}
	s->chains++;
}

static bool see_walked(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct seen_nodes *s = ctx;

	see(s, t, node);
	/* The path and the siblings on it only: at most every frame at each level. */
	assert_true(t->n <= 1 + (size_t)SAMPLE_FRAMES * t->nodes[node].depth);
	if (t->n > s->most_made)
		s->most_made = t->n;
	return t->nodes[node].depth < s->prune_below;
}

/*
 * A walk meets the nodes of the whole trie in the order of a recursion over
 * their children, node by node or with its chains whole, leaves out what is
 * below a node it was told not to enter, keeps the path in memory, not the
 * trie, and leaves the trie its root alone, as it was built.
 */
static void test_walk(void **state)
{
	struct random_sample *r = malloc(NSAMPLES * sizeof(*r));
	struct profile *p = profile__new();
	const struct view_filter filters[] = {
	    {.window = WINDOW_CUMULATIVE},
	    {.window = WINDOW_CUMULATIVE, .hide_kernel = true},
	    {.window = WINDOW_CUMULATIVE, .hide_user = true},
	};
	struct stack_trie walked, whole;
	struct sample_frames sf;
	uint32_t seed = 77;

	(void)state;
	assert_non_null(r);
	assert_non_null(p);
	sample_frames(p, &sf);
	random_samples(r, NSAMPLES, &sf, &seed);
	add_samples(p, r, NSAMPLES, 0);
	/* Long stacks of their own, whose ends no other stack shares: chains. */
	for (int i = 0; i < 30; i++) {
		uint32_t frames[SAMPLE_MAX + 8];

		frames[0] = sf.procs[i % 3];
		for (int k = 1; k < SAMPLE_MAX + 8; k++)
			frames[k] = k % 3 ? sf.user[next_random(&seed) % 6]
					  : sf.kernel[next_random(&seed) % 4];
		assert_int_equal(add_stack(p, 9000 + i, frames, SAMPLE_MAX + 8, 1 + i), 0);
	}
	stack_trie__init(&walked);
	stack_trie__init(&whole);
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		struct seen_nodes want = {0}, got = {0}, pruned = {0}, chained = {0};

		assert_int_equal(stack_trie__build(&whole, p, &filters[i]), 0);
		assert_int_equal(stack_trie__build(&walked, p, &filters[i]), 0);
		see_subtree(&want, &whole, TRIE_ROOT);
		got.prune_below = UINT32_MAX / 64;
		assert_int_equal(stack_trie__walk(&walked,
						  &(struct trie_visitor){.node = see_walked,
									 .ctx = &got}),
				 0);
		assert_int_equal(got.n, want.n);
		assert_int_equal(got.n, whole.n);
		assert_true(got.most_made * 4 < whole.n); /* never much of the trie */
		assert_memory_equal(got.v, want.v, want.n * sizeof(*want.v));
		assert_int_equal(walked.n, 1);
		pruned.prune_below = 2;
		assert_int_equal(stack_trie__walk(&walked,
						  &(struct trie_visitor){.node = see_walked,
									 .ctx = &pruned}),
				 0);
		for (size_t k = 0, j = 0; k < want.n; k++) {
			if (want.v[k].depth > 2)
				continue;
			assert_true(j < pruned.n);
			assert_memory_equal(&pruned.v[j++], &want.v[k], sizeof(want.v[k]));
		}
		chained.prune_below = UINT32_MAX / 64;
		assert_int_equal(stack_trie__walk(&walked,
						  &(struct trie_visitor){see_walked, see_chain,
									 &chained}),
				 0);
		assert_true(chained.chains > 0);
		assert_int_equal(chained.n, want.n);
		assert_memory_equal(chained.v, want.v, want.n * sizeof(*want.v));
		make_all(&walked);
		check_same_trie(&walked, &whole);
		free(want.v);
		free(got.v);
		free(pruned.v);
		free(chained.v);
	}
	stack_trie__free(&walked);
	stack_trie__free(&whole);
	profile__free(p);
	free(r);
}

/* Marks frame @frame alone, in @marks of @n frames. */
static const uint8_t *mark_one(uint8_t *marks, size_t n, uint32_t frame)
{
	memset(marks, 0, n);
	marks[frame] = 1;
	return marks;
}

/* Whether a node below another has a marked frame, its children made or not. */
static void test_below_has(void **state)
{
	struct trie_fixture *f = *state;
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	struct view_filter no_kernel = {.window = WINDOW_CUMULATIVE, .hide_kernel = true};
	const struct stack_trie *t = &f->t;
	uint8_t marks[16];
	uint32_t bash, foo;

	assert_true(profile__nframes(f->p) <= sizeof(marks));
	for (int made = 0; made < 2; made++) {
		assert_int_equal(stack_trie__build(&f->t, f->p, &all), 0);
		if (made)
			make_all(t);
		mark_one(marks, sizeof(marks), f->sys_read);
		assert_true(stack_trie__below_has(t, TRIE_ROOT, marks));
		bash = child(t, TRIE_ROOT, f->bash);
		assert_true(stack_trie__below_has(t, bash, marks));
		foo = child(t, child(t, bash, f->main), f->foo);
		assert_true(stack_trie__below_has(t, foo, marks));
		assert_false(stack_trie__below_has(t, child(t, foo, f->sys_read), marks));
		assert_false(stack_trie__below_has(t, child(t, TRIE_ROOT, f->sleep), marks));
		/* A node's own frame is not below it. */
		mark_one(marks, sizeof(marks), f->bash);
		assert_false(stack_trie__below_has(t, bash, marks));
		assert_true(stack_trie__below_has(t, TRIE_ROOT, marks));
		mark_one(marks, sizeof(marks), f->main);
		assert_true(stack_trie__below_has(t, TRIE_ROOT, marks));
	}
	/* A hidden frame is in no node. */
	assert_int_equal(stack_trie__build(&f->t, f->p, &no_kernel), 0);
	assert_false(stack_trie__below_has(t, TRIE_ROOT,
					   mark_one(marks, sizeof(marks), f->sys_read)));
}

/*
 * Packed (profile__pack()), the stacks' frames lie in the sorted order, one
 * after the other, and every view is the same.
 */
static void test_pack_keeps_views(void **state)
{
	struct random_sample *r = malloc(NSAMPLES * sizeof(*r));
	struct profile *p[2] = {profile__new(), profile__new()};
	struct sample_frames sf;
	struct stack_trie t[2];
	const struct view_filter filters[] = {
	    {.window = WINDOW_CUMULATIVE},
	    {.window = WINDOW_RECENT, .hide_kernel = true},
	    {.window = WINDOW_CUMULATIVE, .hide_user = true, .text = "read"},
	};
	uint32_t seed = 5;

	(void)state;
	assert_non_null(r);
	for (int k = 0; k < 2; k++) {
		assert_non_null(p[k]);
		sample_frames(p[k], &sf);
		stack_trie__init(&t[k]);
	}
	random_samples(r, NSAMPLES, &sf, &seed);
	for (int k = 0; k < 2; k++) {
		add_samples(p[k], r, NSAMPLES / 2, 0);
		profile__close_interval(p[k]);
		add_samples(p[k], r + NSAMPLES / 2, NSAMPLES - NSAMPLES / 2, 0);
	}
	assert_int_equal(profile__sort(p[1]), 0);
	assert_int_equal(profile__pack(p[1]), 0);
	for (size_t i = 1; i < profile__nstacks(p[1]); i++) {
		struct profile_stack a, b, c;

		profile__stack_sorted(p[1], i - 1, &a);
		profile__stack_sorted(p[1], i, &b);
		assert_ptr_equal(b.frames, a.frames + a.n);
		profile__stack(p[1], i, &c); /* renumbered by rank */
		assert_ptr_equal(c.frames, b.frames);
	}
	/* The stacks are found again when they come again: both profiles count them. */
	for (int k = 0; k < 2; k++) {
		size_t n = profile__nstacks(p[k]);

		add_samples(p[k], r, NSAMPLES / 4, 0);
		assert_int_equal(profile__nstacks(p[k]), n);
	}
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		for (int k = 0; k < 2; k++) {
			assert_int_equal(stack_trie__build(&t[k], p[k], &filters[i]), 0);
			make_all(&t[k]);
			check_counts(&t[k], p[k], &filters[i]);
		}
		check_same_trie(&t[0], &t[1]);
	}
	for (int k = 0; k < 2; k++) {
		stack_trie__free(&t[k]);
		profile__free(p[k]);
	}
	free(r);
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
	    cmocka_unit_test_setup_teardown(test_keeps_order_within_a_sample, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_jitter_is_what_the_screen_hides, setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_same_comm_merges_and_bare_process, setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_grouped_by_process, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_rebuild_leaves_nothing_behind, setup,
					    trie_teardown),
	    cmocka_unit_test_setup_teardown(test_empty_profile, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_wide_trie, setup, trie_teardown),
	    cmocka_unit_test(test_any_order_same_trie),
	    cmocka_unit_test_setup_teardown(test_prefix_stacks, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_shown_frame_after_hidden, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_children_made_when_asked, setup, trie_teardown),
	    cmocka_unit_test_setup_teardown(test_view_kept_while_profile_grows, setup,
					    trie_teardown),
	    cmocka_unit_test(test_walk),
	    cmocka_unit_test_setup_teardown(test_below_has, setup, trie_teardown),
	    cmocka_unit_test(test_pack_keeps_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
