// SPDX-License-Identifier: GPL-2.0
/*
 * textbuf: lines made piece by piece, their lists opened and closed only
 * around items, and text that does not fit cut at the buffer's end.
 */
#include "tests/unit/unit.h"

#include "textbuf.h"

static void test_list_with_items(void **state)
{
	char buf[64] = "lost 3";
	struct textbuf t;

	(void)state;
	textbuf__init(&t, buf, sizeof(buf)); /* goes on from what is there */
	textbuf__list(&t, " (");
	textbuf__item(&t, "%s: %d", "full", 2);
	textbuf__item(&t, "%s: %d", "busy", 1);
	textbuf__end_list(&t, ")");
	assert_string_equal(buf, "lost 3 (full: 2, busy: 1)");
}

static void test_empty_list_writes_nothing(void **state)
{
	char buf[32] = "an earlier line";
	struct textbuf t;

	(void)state;
	textbuf__start(&t, buf, sizeof(buf)); /* starts empty */
	textbuf__add(&t, "%d whole", 7);
	textbuf__list(&t, " (");
	textbuf__end_list(&t, ")");
	assert_string_equal(buf, "7 whole");
}

static void test_cut_at_the_end(void **state)
{
	char buf[12];
	struct textbuf t;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	buf[0] = '\0';
	textbuf__init(&t, buf, 8); /* the last 4 bytes are not the line's */
	textbuf__add(&t, "%s", "abcdef");
	textbuf__list(&t, ": ");
	textbuf__item(&t, "%d", 12345);
	textbuf__item(&t, "%d", 6);
	textbuf__end_list(&t, ")");
	assert_string_equal(buf, "abcdef:");
	assert_int_equal(t.len, 7);
	for (size_t i = 8; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_with_items),
		cmocka_unit_test(test_empty_list_writes_nothing),
		cmocka_unit_test(test_cut_at_the_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
