// SPDX-License-Identifier: GPL-2.0
/*
 * tree_view: the rows on screen, the moves and the search, over random
 * tries, against the same worked out the plain way: every node of the trie
 * made, its rows listed by a recursion over the expanded nodes, its nodes
 * in depth-first order.
 */
#include "tests/unit/profile_fixture.h"

#include "array.h"
#include "tui/tree_view.h"

#define NPROCS 3
#define NFUNCS 12
#define NSTACKS 400
#define HEIGHT 7

/* A profile of NSTACKS random stacks: a process, then 0 to 8 frames of NFUNCS, some kernel. */
static struct profile *random_profile(uint32_t seed)
{
	struct profile *p = profile__new();
	uint32_t procs[NPROCS], funcs[NFUNCS], frames[10];
	char name[32];

	assert_non_null(p);
	for (int i = 0; i < NPROCS; i++) {
		snprintf(name, sizeof(name), "proc%d", i);
		procs[i] = frame(p, name, FRAME_PROCESS);
	}
	for (int i = 0; i < NFUNCS; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		funcs[i] = frame(p, name, i < NFUNCS / 3 ? FRAME_KERNEL : FRAME_USER);
	}
	for (int i = 0; i < NSTACKS; i++) {
		uint32_t n = 0, depth = next_random(&seed) % 9;

		frames[n++] = procs[next_random(&seed) % NPROCS];
		while (n <= depth)
			frames[n++] = funcs[next_random(&seed) % NFUNCS];
		assert_int_equal(add_stack(p, 1, frames, n, 1 + next_random(&seed) % 9), 0);
	}
	return p;
}

struct node_list {
	uint32_t *v;
	size_t n, cap;
};

static void list_add(struct node_list *l, uint32_t node)
{
	assert_int_equal(array__grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64), 0);
	l->v[l->n++] = node;
}

/* The rows of @node and below it: its own, then its children's when it is expanded. */
static void list_rows(const struct tree_pane *tp, uint32_t node, struct node_list *rows)
{
	list_add(rows, node);
	if (!stack_trie__has_children(tp->trie, node) || !tree_pane__expanded(tp, node))
		return;
	for (uint32_t c = stack_trie__first_child(tp->trie, node); c != TRIE_NONE;
	     c = tp->trie->nodes[c].next_sibling)
		list_rows(tp, c, rows);
}

/* Every node below @node, depth first. */
static void list_nodes(const struct stack_trie *t, uint32_t node, struct node_list *nodes)
{
	list_add(nodes, node);
	for (uint32_t c = stack_trie__first_child(t, node); c != TRIE_NONE;
	     c = t->nodes[c].next_sibling)
		list_nodes(t, c, nodes);
}

/*
 * After a refresh, the selection is row @at of @rows, and the screen shows
 * the rows around it: its rows are a run of @rows holding it, HEIGHT long
 * (or all of them), and its row is the selection's.
 */
static void check_screen(struct tree_pane *tp, const struct node_list *rows, size_t at)
{
	size_t first;

	assert_int_equal(tree_pane__refresh(tp), 0);
	assert_int_equal(tree_pane__selected_row(tp), rows->v[at]);
	assert_int_equal(tp->nrows, rows->n < HEIGHT ? rows->n : HEIGHT);
	assert_true(tp->sel_row <= at);
	first = at - tp->sel_row;
	assert_true(first + tp->nrows <= rows->n);
	for (size_t i = 0; i < tp->nrows; i++)
		assert_int_equal(tp->rows[i].node, rows->v[first + i]);
	assert_int_equal(tp->rows[tp->sel_row].node, rows->v[at]);
}

/* Expands or collapses nodes at random (the root stays expanded). */
static void random_states(struct tree_pane *tp, const struct node_list *nodes, uint32_t *seed)
{
	for (size_t i = 1; i < nodes->n; i++) {
		if (next_random(seed) % 3 == 0)
			assert_int_equal(
			    tree_pane__set_expanded(tp, nodes->v[i], next_random(seed) % 2), 0);
	}
}

/*
 * Row by row down and up, page by page, to either end at once: the rows
 * on screen are a window on the rows a recursion lists, the selection in
 * it, under random expanded and collapsed rows and with every row expanded.
 */
static void test_rows_and_moves(void **state)
{
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t seed = 9;

	(void)state;
	for (int round = 0; round < 4; round++) {
		struct profile *p = random_profile(seed + (uint32_t)round);
		struct node_list rows = {0}, nodes = {0};
		struct stack_trie t;
		struct tree_pane tp;

		stack_trie__init(&t);
		assert_int_equal(stack_trie__build(&t, p, &all), 0);
		assert_int_equal(tree_pane__init(&tp, &t), 0);
		tp.height = HEIGHT;
		assert_int_equal(tree_pane__refresh(&tp), 0);
		list_nodes(&t, TRIE_ROOT, &nodes);
		if (round % 2)
			assert_int_equal(tree_pane__set_all(&tp, true), 0);
		else
			random_states(&tp, &nodes, &seed);
		list_rows(&tp, TRIE_ROOT, &rows);
		assert_true(rows.n > 3 * HEIGHT);
		tree_pane__move(&tp, -TREE_MOVE_ALL);
		check_screen(&tp, &rows, 0);
		for (size_t i = 1; i < rows.n; i++) {
			tree_pane__move(&tp, 1);
			check_screen(&tp, &rows, i);
		}
		tree_pane__move(&tp, 1); /* past the last row: stays */
		check_screen(&tp, &rows, rows.n - 1);
		for (size_t i = rows.n - 1; i-- > 0;) {
			tree_pane__move(&tp, -1);
			check_screen(&tp, &rows, i);
		}
		tree_pane__move(&tp, HEIGHT - 1);
		tree_pane__move(&tp, HEIGHT - 1); /* twice before a refresh, as keys come */
		check_screen(&tp, &rows, 2 * (HEIGHT - 1));
		tree_pane__move(&tp, TREE_MOVE_ALL);
		check_screen(&tp, &rows, rows.n - 1);
		tree_pane__move(&tp, -(HEIGHT - 1));
		check_screen(&tp, &rows, rows.n - HEIGHT);
		assert_int_equal(tp.sel_row, 0);
		/* Selected from the top of the screen (a search does), the last row stays
		 * where the screen keeps full. */
		tree_pane__move(&tp, -TREE_MOVE_ALL);
		check_screen(&tp, &rows, 0);
		tree_pane__select(&tp, rows.v[rows.n - 2]);
		check_screen(&tp, &rows, rows.n - 2);
		assert_int_equal(tp.sel_row, HEIGHT - 2);
		tree_pane__free(&tp);
		stack_trie__free(&t);
		profile__free(p);
		free(rows.v);
		free(nodes.v);
	}
}

/* The marked node after (@dir > 0) or before @at in @nodes, wrapping around; TRIE_NONE for none. */
static uint32_t next_marked(const struct stack_trie *t, const struct node_list *nodes, size_t at,
			    int dir, const uint8_t *marks)
{
	for (size_t k = 1; k <= nodes->n; k++) {
		size_t i = (at + (dir > 0 ? k : nodes->n - k)) % nodes->n;

		if (nodes->v[i] != TRIE_ROOT && marks[t->nodes[nodes->v[i]].frame])
			return nodes->v[i];
	}
	return TRIE_NONE;
}

/*
 * A search from every node, both ways, finds the marked node depth-first
 * order puts next, as a plain look at every node does, however few frames
 * are marked; the trie's children made as it goes, or all made first.
 */
static void test_find(void **state)
{
	struct view_filter all = {.window = WINDOW_CUMULATIVE};
	uint32_t seed = 31;

	(void)state;
	for (int round = 0; round < 6; round++) {
		struct profile *p = random_profile(seed + (uint32_t)round);
		size_t nframes = profile__nframes(p);
		uint8_t *marks = calloc(nframes, 1);
		struct node_list nodes = {0};
		struct stack_trie t, fresh;
		struct tree_pane tp;

		assert_non_null(marks);
		/* One frame, three, or none marked. */
		for (int m = 0; m < (round % 3 == 2 ? 0 : round % 3 == 0 ? 1 : 3); m++)
			marks[NPROCS + next_random(&seed) % NFUNCS] = 1;
		stack_trie__init(&t);
		stack_trie__init(&fresh);
		assert_int_equal(stack_trie__build(&t, p, &all), 0);
		assert_int_equal(tree_pane__init(&tp, &fresh), 0);
		list_nodes(&t, TRIE_ROOT, &nodes);
		for (size_t i = 0; i < nodes.n; i++) {
			for (int dir = -1; dir <= 1; dir += 2) {
				uint32_t want = next_marked(&t, &nodes, i, dir, marks), got;
				struct frame_path path;

				/* The same node in a trie of its own, made only as the search goes.
				 */
				assert_int_equal(stack_trie__build(&fresh, p, &all), 0);
				frame_path__set(&path, &t, nodes.v[i]);
				tp.sel_node = frame_path__resolve(&path, &fresh);
				got = tree_pane__find(&tp, dir, marks);
				assert_int_equal(got == TRIE_NONE, want == TRIE_NONE);
				if (want == TRIE_NONE)
					continue;
				frame_path__set(&path, &fresh, got);
				assert_int_equal(frame_path__resolve(&path, &t), want);
			}
		}
		tree_pane__free(&tp);
		stack_trie__free(&t);
		stack_trie__free(&fresh);
		profile__free(p);
		free(nodes.v);
		free(marks);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows_and_moves),
	    cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
