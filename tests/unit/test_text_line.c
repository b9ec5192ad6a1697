// SPDX-License-Identifier: GPL-2.0
/*
 * text_line: numbers parsed up to the last value that fits in 64 bits, and
 * no further.
 */
#include "tests/unit/unit.h"

#include <errno.h>

#include "symbols/text_line.h"

/* Parses @text in @base: expects @want and @rest left, or (@fits false) -EINVAL and nothing moved.
 */
static void expect_u64(const char *text, unsigned int base, bool fits, uint64_t want,
		       const char *rest)
{
	const char *s = text;
	uint64_t v = 42;

	if (!fits) {
		assert_int_equal(text_line__parse_u64(&s, base, &v), -EINVAL);
		assert_ptr_equal(s, text);
		assert_int_equal(v, 42);
		return;
	}
	assert_int_equal(text_line__parse_u64(&s, base, &v), 0);
	if (v != want)
		fail_msg("%s in base %u: got %ju, wanted %ju", text, base, (uintmax_t)v,
			 (uintmax_t)want);
	assert_string_equal(s, rest);
}

static void test_parse_u64_limits(void **state)
{
	(void)state;
	expect_u64("0", 10, true, 0, "");
	expect_u64("123 x", 10, true, 123, " x");
	expect_u64("7fA0:", 16, true, 0x7fa0, ":");
	expect_u64("18446744073709551615", 10, true, UINT64_MAX, "");
	expect_u64("18446744073709551609", 10, true, UINT64_MAX - 6, "");
	expect_u64("18446744073709551616", 10, false, 0, NULL);
	expect_u64("18446744073709551620", 10, false, 0, NULL);
	expect_u64("99999999999999999999", 10, false, 0, NULL);
	expect_u64("184467440737095516150", 10, false, 0, NULL);
	expect_u64("ffffffffffffffff", 16, true, UINT64_MAX, "");
	expect_u64("0000ffffffffffffffff", 16, true, UINT64_MAX, "");
	expect_u64("10000000000000000", 16, false, 0, NULL);
	expect_u64("fffffffffffffffff", 16, false, 0, NULL);
	expect_u64("x1", 16, false, 0, NULL);
	expect_u64("", 10, false, 0, NULL);
	expect_u64("f", 10, false, 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_u64_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
