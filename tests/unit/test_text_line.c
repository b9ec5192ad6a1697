// SPDX-License-Identifier: GPL-2.0
/*
 * text_line: numbers parsed up to the last value that fits in 64 bits, and
 * no further; a file's lines handed out whole across the blocks it is read
 * in, those too long or holding a NUL skipped and counted.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

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

/* The lines handed out, joined with '|'; stops after the line "stop". */
struct seen {
	char text[512];
	size_t lines;
};

static int see_line(void *ctx, char *line, size_t len)
{
	struct seen *s = ctx;
	size_t used = strlen(s->text);

	assert_int_equal(strlen(line), len);
	snprintf(s->text + used, sizeof(s->text) - used, "%s%s", s->lines++ ? "|" : "", line);
	return strcmp(line, "stop") ? 0 : 7;
}

/* text_lines__read() of @text in blocks of @block bytes, lines under @line_max. */
static int read_lines(const char *text, size_t len, size_t block, size_t line_max,
		      size_t max_bytes, struct seen *s, size_t *skipped)
{
	struct text_lines t = { .block = block, .line_max = line_max, .max_bytes = max_bytes,
				.line = see_line, .ctx = s };
	int fd = unit_text_fd(text, len), rc;

	memset(s, 0, sizeof(*s));
	rc = text_lines__read(fd, &t);
	close(fd);
	*skipped = t.skipped;
	return rc;
}

static void test_lines_across_blocks(void **state)
{
	static const char text[] = "ab\n\ncdefgh\nijklmnopqrstuvwxyz\nxy\0z\nlast";
	struct seen s;
	size_t skipped;

	(void)state;
	/* Blocks of 1, 4, 12 and 36 bytes: the same lines; the 18-byte one and the NUL one skipped. */
	for (size_t block = 1; block <= 64; block = block * 3 + (block == 1)) {
		assert_int_equal(read_lines(text, sizeof(text) - 1, block, 8, 0, &s, &skipped), 0);
		assert_string_equal(s.text, "ab||cdefgh|last");
		assert_int_equal(s.lines, 4);
		assert_int_equal(skipped, 2);
	}
	/* A line of line_max bytes is too long; one byte less is not. */
	assert_int_equal(read_lines("1234567\n12345678\n", 17, 4, 8, 0, &s, &skipped), 0);
	assert_string_equal(s.text, "1234567");
	assert_int_equal(skipped, 1);
	/* An empty file hands out nothing. */
	assert_int_equal(read_lines("", 0, 4, 8, 0, &s, &skipped), 0);
	assert_int_equal(s.lines, 0);
}

static void test_lines_stop(void **state)
{
	static const char text[] = "one\nstop\nnever\n";
	struct seen s;
	size_t skipped;

	(void)state;
	/* The line's value stops the reading and is returned. */
	assert_int_equal(read_lines(text, sizeof(text) - 1, 2, 16, 0, &s, &skipped), 7);
	assert_string_equal(s.text, "one|stop");
	assert_int_equal(skipped, 0);
	/* What follows in the block is never met, however long. */
	assert_int_equal(read_lines("stop\n0123456789abcdefghij", 25, 64, 16, 0, &s, &skipped), 7);
	assert_int_equal(skipped, 0);
	/* A file longer than max_bytes is given up. */
	assert_int_equal(read_lines(text, sizeof(text) - 1, 4, 16, 8, &s, &skipped), -EFBIG);
	assert_int_equal(read_lines(text, sizeof(text) - 1, 4, 16, sizeof(text) - 1, &s, &skipped),
			 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_u64_limits),
	    cmocka_unit_test(test_lines_across_blocks),
	    cmocka_unit_test(test_lines_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
