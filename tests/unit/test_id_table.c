// SPDX-License-Identifier: GPL-2.0
/*
 * id_table: finds, inserts and removals against a plain array that knows
 * which nodes are in, after every step, with keys that crowd one run of
 * slots (removals shift the run back) and runs that wrap past the end.
 */
#include "tests/unit/unit.h"

#include <stdlib.h>

#include "symbols/id_table.h"

#define NODES 2000

struct item {
	struct id_node node;
	bool in;
};

/* Every node is found exactly when it is in, and the table counts them. */
static void check_all(const struct id_table *t, const struct item *it, size_t n)
{
	size_t in = 0, seen = 0, i = 0;
	struct id_node *node;

	for (size_t k = 0; k < n; k++) {
		struct id_node *got = id_table__find(t, it[k].node.key[0], it[k].node.key[1]);

		assert_ptr_equal(got, it[k].in ? &it[k].node : NULL);
		in += it[k].in;
	}
	assert_int_equal(t->n, in);
	while ((node = id_table__next(t, &i)) != NULL) {
		assert_true(((const struct item *)node)->in);
		seen++;
	}
	assert_int_equal(seen, in);
}

static void test_empty(void **state)
{
	struct id_table t = {0};
	struct item a = {.node.key = {1, 2}};
	size_t i = 0;

	(void)state;
	assert_null(id_table__find(&t, 1, 2));
	assert_null(id_table__next(&t, &i));
	id_table__remove(&t, &a.node); /* not in: nothing happens */
	assert_int_equal(t.n, 0);
	id_table__clear(&t, NULL, false);
}

static void test_keys_differ_in_either_word(void **state)
{
	struct item a = {.node.key = {7, 0}}, b = {.node.key = {7, 1}}, c = {.node.key = {0, 7}};
	struct id_table t = {0};

	(void)state;
	assert_int_equal(id_table__insert(&t, &a.node), 0);
	assert_int_equal(id_table__insert(&t, &b.node), 0);
	assert_int_equal(id_table__insert(&t, &c.node), 0);
	assert_ptr_equal(id_table__find(&t, 7, 0), &a.node);
	assert_ptr_equal(id_table__find(&t, 7, 1), &b.node);
	assert_ptr_equal(id_table__find(&t, 0, 7), &c.node);
	assert_null(id_table__find(&t, 0, 0));
	id_table__clear(&t, NULL, false);
}

/*
 * A node of the same key as one in the table, but not itself in it, is
 * not removed in its place.
 */
static void test_remove_only_that_node(void **state)
{
	struct item a = {.node.key = {5, 5}}, twin = {.node.key = {5, 5}};
	struct id_table t = {0};

	(void)state;
	assert_int_equal(id_table__insert(&t, &a.node), 0);
	id_table__remove(&t, &twin.node);
	assert_ptr_equal(id_table__find(&t, 5, 5), &a.node);
	assert_int_equal(t.n, 1);
	id_table__clear(&t, NULL, false);
}

/* Random inserts and removals of many nodes, checked against what is in after each batch. */
static void test_churn(void **state)
{
	struct item *it = calloc(NODES, sizeof(*it));
	struct id_table t = {0};

	(void)state;
	assert_non_null(it);
	srand(33);
	for (size_t k = 0; k < NODES; k++) /* pids: small, close together */
		it[k].node.key[0] = 1000 + k;
	for (int round = 0; round < 40; round++) {
		for (int step = 0; step < 500; step++) {
			struct item *x = &it[rand() % NODES];

			if (x->in)
				id_table__remove(&t, &x->node);
			else
				assert_int_equal(id_table__insert(&t, &x->node), 0);
			x->in = !x->in;
		}
		check_all(&t, it, NODES);
	}
	id_table__clear(&t, NULL, true);
	for (size_t k = 0; k < NODES; k++)
		it[k].in = false;
	check_all(&t, it, NODES);
	id_table__clear(&t, NULL, false);
	free(it);
}

/* The slot key {@k0, 0} takes in a table of 64 slots holding nothing else. */
static size_t home_of(uint64_t k0)
{
	struct item x = {.node.key = {k0, 0}};
	struct id_table t = {0};
	size_t at = 0;

	assert_int_equal(id_table__insert(&t, &x.node), 0);
	assert_int_equal(t.n_slots, 64);
	while (t.slots[at].node != &x.node)
		at++;
	id_table__clear(&t, NULL, false);
	return at;
}

/*
 * A run of slots that wraps past the end of the table (nodes whose probes
 * start in its last two slots and its first two), emptied in many orders:
 * each removal must leave every other node where its probe finds it.
 */
static void test_run_wraps_past_the_end(void **state)
{
	const size_t homes[] = {62, 62, 62, 63, 63, 0, 0, 1, 1, 62, 63, 0};
	enum { N = sizeof(homes) / sizeof(homes[0]) };
	struct item it[N];
	uint64_t k0 = 1;

	(void)state;
	for (size_t k = 0; k < N; k++) {
		while (home_of(k0) != homes[k])
			k0++;
		it[k] = (struct item){.node.key = {k0++, 0}};
	}
	srand(62);
	for (int order = 0; order < 200; order++) {
		struct id_table t = {0};

		for (size_t k = 0; k < N; k++) {
			assert_int_equal(id_table__insert(&t, &it[k].node), 0);
			it[k].in = true;
		}
		assert_int_equal(t.n_slots, 64);
		for (size_t left = N; left > 0; left--) {
			size_t pick = (size_t)rand() % left, k = 0;

			for (;; k++) /* the pick-th node still in */
				if (it[k].in && pick-- == 0)
					break;
			id_table__remove(&t, &it[k].node);
			it[k].in = false;
			check_all(&t, it, N);
		}
		id_table__clear(&t, NULL, false);
	}
}

static int released;

static void count_release(struct id_node *node)
{
	(void)node;
	released++;
}

static void test_clear_releases_each_once(void **state)
{
	struct item it[100] = {0};
	struct id_table t = {0};

	(void)state;
	for (int k = 0; k < 100; k++) {
		it[k].node.key[1] = (uint64_t)k << 40;
		assert_int_equal(id_table__insert(&t, &it[k].node), 0);
	}
	released = 0;
	id_table__clear(&t, count_release, false);
	assert_int_equal(released, 100);
	assert_int_equal(t.n, 0);
	assert_null(id_table__find(&t, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_keys_differ_in_either_word),
	    cmocka_unit_test(test_remove_only_that_node),
	    cmocka_unit_test(test_churn),
	    cmocka_unit_test(test_run_wraps_past_the_end),
	    cmocka_unit_test(test_clear_releases_each_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
