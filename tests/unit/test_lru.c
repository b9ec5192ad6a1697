// SPDX-License-Identifier: GPL-2.0
/*
 * lru: order of use and byte accounting, checked after every step.
 */
#include "tests/unit/unit.h"

#include "symbols/lru.h"

struct item {
	int id;
	struct lru_node node;
};

static int oldest_id(const struct lru *l)
{
	struct lru_node *n = lru__oldest(l);

	return n ? lru_entry(n, struct item, node)->id : -1;
}

static void test_empty(void **state)
{
	struct lru l;
	struct item a = {.id = 1};

	(void)state;
	lru__init(&l);
	assert_null(lru__oldest(&l));
	assert_int_equal(l.n, 0);
	assert_int_equal(l.bytes, 0);
	assert_false(lru__linked(&a.node));
	lru__remove(&l, &a.node); /* not on the list: nothing happens */
	assert_int_equal(l.n, 0);
}

static void test_order_of_use(void **state)
{
	struct item it[4] = {{.id = 0}, {.id = 1}, {.id = 2}, {.id = 3}};
	struct lru l;

	(void)state;
	lru__init(&l);
	for (int i = 0; i < 4; i++)
		lru__add(&l, &it[i].node, 10);
	assert_int_equal(oldest_id(&l), 0);
	lru__touch(&l, &it[0].node);
	assert_int_equal(oldest_id(&l), 1);
	lru__touch(&l, &it[0].node); /* already the most recent */
	assert_int_equal(oldest_id(&l), 1);
	lru__touch(&l, &it[2].node);
	lru__remove(&l, &it[1].node);
	assert_int_equal(oldest_id(&l), 3);
	lru__remove(&l, &it[3].node);
	assert_int_equal(oldest_id(&l), 0);
	lru__remove(&l, &it[0].node);
	assert_int_equal(oldest_id(&l), 2);
	lru__remove(&l, &it[2].node);
	assert_null(lru__oldest(&l));
}

static void test_byte_accounting(void **state)
{
	struct item a = {.id = 1}, b = {.id = 2}, c = {.id = 3};
	struct lru l;

	(void)state;
	lru__init(&l);
	lru__add(&l, &a.node, 100);
	lru__add(&l, &b.node, 250);
	lru__add(&l, &c.node, 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.bytes, 350);
	lru__resize(&l, &b.node, 50);
	assert_int_equal(l.bytes, 150);
	lru__touch(&l, &a.node);
	assert_int_equal(l.bytes, 150);
	lru__remove(&l, &a.node);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.bytes, 50);
	assert_false(lru__linked(&a.node));
	lru__remove(&l, &a.node); /* twice: counted once */
	assert_int_equal(l.bytes, 50);
	lru__add(&l, &a.node, 7);
	assert_int_equal(l.bytes, 57);
	assert_int_equal(oldest_id(&l), 2);
}

/* Evicting the oldest until a budget holds, as the caches do. */
static void test_evict_to_budget(void **state)
{
	struct item it[10];
	struct lru l;
	struct lru_node *n;

	(void)state;
	lru__init(&l);
	for (int i = 0; i < 10; i++) {
		it[i].id = i;
		lru__add(&l, &it[i].node, (size_t)(i + 1) * 10);
	}
	lru__touch(&l, &it[0].node);
	while (l.bytes > 200 && (n = lru__oldest(&l)) != NULL)
		lru__remove(&l, n);
	/* 550 bytes, oldest first 1, 2, ..., 9, 0: dropping 1 to 7 leaves 8, 9, 0 = 200. */
	assert_int_equal(l.bytes, 200);
	assert_int_equal(l.n, 3);
	assert_int_equal(oldest_id(&l), 8);
	assert_true(lru__linked(&it[0].node));
	assert_false(lru__linked(&it[7].node));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_order_of_use),
	    cmocka_unit_test(test_byte_accounting),
	    cmocka_unit_test(test_evict_to_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
