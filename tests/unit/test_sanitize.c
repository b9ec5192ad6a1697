// SPDX-License-Identifier: GPL-2.0
/*
 * sanitize_name(): what reaches the terminal from a name taken from outside.
 */
#include "tests/unit/unit.h"

#include "symbols/sanitize.h"

/* Sanitizes @src (a C string) into a buffer of @size and checks result and length. */
static void check(const char *src, size_t size, const char *want)
{
	char dst[64];
	size_t n;

	assert_true(size <= sizeof(dst));
	memset(dst, 'X', sizeof(dst));
	n = sanitize_name(dst, size, src, strlen(src));
	assert_string_equal(dst, want);
	assert_int_equal(n, strlen(want));
}

static void test_plain_ascii_kept(void **state)
{
	(void)state;
	check("do_sys_openat2", 64, "do_sys_openat2");
	check("a b~{}[]<>", 64, "a b~{}[]<>");
	check("", 64, "");
}

static void test_c0_and_esc_replaced(void **state)
{
	(void)state;
	check("\x1b[31mred\x1b[0m", 64, "?[31mred?[0m");
	check("tab\there", 64, "tab?here");
	check("nl\nr\r\x01\x1f", 64, "nl?r???");
}

/* U+FFFE and U+FFFF are not characters, and XML refuses them; U+FFFD is kept. */
static void test_noncharacters_replaced(void **state)
{
	(void)state;
	check("a\xef\xbf\xbe\xef\xbf\xbf" "b\xef\xbf\xbd", 64, "a??b\xef\xbf\xbd");
}

static void test_del_replaced(void **state)
{
	(void)state;
	check("a\x7f-b", 64, "a?-b");
}

static void test_c1_replaced(void **state)
{
	(void)state;
	/* U+0080, U+009B (CSI) and U+009F are controls; U+00A0 is not. */
	check("x\xc2\x80y\xc2\x9bz\xc2\x9f", 64, "x?y?z?");
	check("\xc2\xa0", 64, "\xc2\xa0");
}

/*
 * Bidirectional embedding, override and isolate controls (U+202A..U+202E,
 * U+2066..U+2069) would reorder what follows them on a terminal: each is
 * one '?'. Their neighbours (U+2029, U+202F, U+2065, U+206A) and the marks
 * U+200E/U+200F are ordinary characters here.
 */
static void test_bidi_controls_replaced(void **state)
{
	(void)state;
	check("a\xe2\x80\xaa" "b", 64, "a?b");       /* U+202A LRE */
	check("\xe2\x80\xae" "evil", 64, "?evil");    /* U+202E RLO */
	check("x\xe2\x81\xa6y\xe2\x81\xa9", 64, "x?y?"); /* U+2066 LRI, U+2069 PDI */
	check("\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x81\xa7\xe2\x81\xa8", 64, "?????");
	check("\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 64,
	      "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
}

static void test_lone_continuation_replaced(void **state)
{
	(void)state;
	check("a\x80.b\xbf\xbf.c", 64, "a?.b??.c");
}

static void test_truncated_sequence_replaced(void **state)
{
	(void)state;
	/* The broken-off prefix of one character is one '?'. */
	check("a\xe2\x82-b", 64, "a?-b");
	check("a\xf0\x9f\x98", 64, "a?");
	check("\xc3", 64, "?");
}

static void test_overlong_replaced(void **state)
{
	(void)state;
	/* C0 and C1 never start a character; E0 80 is the start of an overlong form. */
	check("\xc0\xaf", 64, "??");
	check("\xc1\xbf", 64, "??");
	check("\xe0\x80\xaf", 64, "???");
	check("\xf0\x80\x80\xaf", 64, "????");
}

static void test_surrogates_replaced(void **state)
{
	(void)state;
	check("\xed\xa0\x80", 64, "???");
	check("\xed\xbf\xbf", 64, "???");
	check("\xed\x9f\xbf", 64, "\xed\x9f\xbf"); /* U+D7FF is fine */
}

static void test_above_max_code_point_replaced(void **state)
{
	(void)state;
	check("\xf4\x90\x80\x80", 64, "????");
	check("\xf5\x80\x80\x80", 64, "????");
	check("\xff", 64, "?");
	check("\xf4\x8f\xbf\xbf", 64, "\xf4\x8f\xbf\xbf"); /* U+10FFFF is fine */
}

static void test_valid_multibyte_kept(void **state)
{
	(void)state;
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 64,
	      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
}

static void test_len_and_nul_bound_input(void **state)
{
	char dst[16];

	(void)state;
	assert_int_equal(sanitize_name(dst, sizeof(dst), "abcdef", 3), 3);
	assert_string_equal(dst, "abc");
	assert_int_equal(sanitize_name(dst, sizeof(dst), "ab\0cd", 5), 2);
	assert_string_equal(dst, "ab");
	/* A character cut off by len is a broken one. */
	assert_int_equal(sanitize_name(dst, sizeof(dst), "\xe2\x82\xac", 2), 1);
	assert_string_equal(dst, "?");
}

static void test_cut_with_dots(void **state)
{
	(void)state;
	check("abcdef", 7, "abcdef");
	check("abcdefg", 7, "abcd..");
	check("abcd", 4, "a..");
	/* Never inside a character: "ab" + ".." fits in 5 bytes, "ab\xe2\x82" would not. */
	check("ab\xe2\x82\xac-d", 7, "ab..");
	check("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 9, "\xe2\x82\xac\xe2\x82\xac..");
	check("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 8, "\xe2\x82\xac..");
	/* Exactly full is not cut. */
	check("\xe2\x82\xac\xe2\x82\xac", 7, "\xe2\x82\xac\xe2\x82\xac");
}

/*
 * At every size, a name that does not fit is its whole sanitized form cut
 * at the last character boundary that leaves room for "..", then "..".
 * Runs of plain ASCII, controls and multibyte characters meet the cut in
 * every position.
 */
static void test_cut_at_every_size(void **state)
{
	static const char src[] = "ab\x1b"
				  "cd\xe2\x82\xac"
				  "efgh\xc3\xa9"
				  "ij\x7f"
				  "k\xf0\x9f\x98\x80"
				  "lmnopqrstu\xe2\x80\xae"
				  "vw";
	char whole[128], dst[128], want[128];
	size_t n = sanitize_name(whole, sizeof(whole), src, strlen(src));

	(void)state;
	assert_string_equal(whole, "ab?cd\xe2\x82\xac"
				   "efgh\xc3\xa9"
				   "ij?k\xf0\x9f\x98\x80"
				   "lmnopqrstu?vw");
	for (size_t size = 1; size <= n + 3; size++) {
		size_t cap = size - 1, k = 0;

		if (n <= cap) {
			strcpy(want, whole);
		} else {
			for (size_t i = 0; i + 2 <= cap;
			     i++) /* boundaries: not continuation bytes */
				if (((unsigned char)whole[i] & 0xc0) != 0x80)
					k = i;
			memcpy(want, whole, k);
			memcpy(want + k, "..", 2);
			want[k + (cap - k < 2 ? cap - k : 2)] = '\0';
		}
		memset(dst, 'X', sizeof(dst));
		assert_int_equal(sanitize_name(dst, size, src, strlen(src)), strlen(want));
		if (strcmp(dst, want))
			fail_msg("size %zu: got \"%s\", wanted \"%s\"", size, dst, want);
		assert_int_equal(dst[size], 'X');
	}
}

static void test_tiny_buffers(void **state)
{
	(void)state;
	check("abc", 1, "");
	check("", 1, "");
	check("abc", 2, ".");
	check("a", 2, "a");
	check("abc", 3, "..");
	check("ab", 3, "ab");
	check("\xe2\x82\xac", 3, "..");
	check("\x1b", 2, "?");
}

static void test_terminates_without_reading_past_nul_or_writing_past_size(void **state)
{
	char dst[8] = "XXXXXXX";

	(void)state;
	assert_int_equal(sanitize_name(dst, 4, "hello", 5), 3);
	assert_string_equal(dst, "h..");
	assert_int_equal(dst[4], 'X');
}

/*
 * Names that stand for functions stay apart when cut: two that differ only
 * past the cut end in different hashes; one that fits is left as it is.
 */
static void test_unique_cut(void **state)
{
	char a[300], b[300], out_a[128], out_b[128], out_c[128];
	size_t n;

	(void)state;
	memset(a, 'x', sizeof(a));
	memcpy(b, a, sizeof(b));
	b[sizeof(b) - 1] = 'y'; /* differs past any cut */
	n = sanitize_name_unique(out_a, sizeof(out_a), a, sizeof(a));
	assert_int_equal(n, strlen(out_a));
	assert_true(n < sizeof(out_a));
	sanitize_name_unique(out_b, sizeof(out_b), b, sizeof(b));
	assert_string_not_equal(out_a, out_b);
	assert_memory_equal(out_a, out_b, n - 16); /* the same cut, before the hashes */
	assert_non_null(strstr(out_a, "..#"));
	/* The same name cut twice is the same name. */
	sanitize_name_unique(out_c, sizeof(out_c), a, sizeof(a));
	assert_string_equal(out_a, out_c);
	/* A name that fits is kept whole, control bytes replaced as sanitize_name() does. */
	sanitize_name_unique(out_c, sizeof(out_c), "spin\x1b[2J", 9);
	assert_string_equal(out_c, "spin?[2J");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_ascii_kept),
	    cmocka_unit_test(test_c0_and_esc_replaced),
	    cmocka_unit_test(test_noncharacters_replaced),
	    cmocka_unit_test(test_del_replaced),
	    cmocka_unit_test(test_c1_replaced),
	    cmocka_unit_test(test_bidi_controls_replaced),
	    cmocka_unit_test(test_lone_continuation_replaced),
	    cmocka_unit_test(test_truncated_sequence_replaced),
	    cmocka_unit_test(test_overlong_replaced),
	    cmocka_unit_test(test_surrogates_replaced),
	    cmocka_unit_test(test_above_max_code_point_replaced),
	    cmocka_unit_test(test_valid_multibyte_kept),
	    cmocka_unit_test(test_len_and_nul_bound_input),
	    cmocka_unit_test(test_cut_with_dots),
	    cmocka_unit_test(test_unique_cut),
	    cmocka_unit_test(test_cut_at_every_size),
	    cmocka_unit_test(test_tiny_buffers),
	    cmocka_unit_test(test_terminates_without_reading_past_nul_or_writing_past_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
