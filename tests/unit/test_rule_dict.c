// SPDX-License-Identifier: GPL-2.0
/*
 * rule_dict: the two fixed ids, one id per distinct rule (its pad ignored),
 * ids that never change, and a full dictionary.
 */
#include "tests/unit/unit.h"

#include "unwind/rule_dict.h"

/* A rule no test interns by chance: CFA = rsp + @k. */
static struct unwind_rule sp_rule(int32_t k)
{
	return (struct unwind_rule){.kind = UNWIND_RULE_CFA_SP, .cfa_off = k, .ra_off = -8};
}

static void assert_same_rule(const struct unwind_rule *a, const struct unwind_rule *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->plt_split, b->plt_split);
	assert_int_equal(a->fp_off, b->fp_off);
	assert_int_equal(a->cfa_off, b->cfa_off);
	assert_int_equal(a->ra_off, b->ra_off);
}

static void test_fixed_ids(void **state)
{
	const struct unwind_rule none = {.kind = UNWIND_RULE_NONE};
	const struct unwind_rule unsupported = {.kind = UNWIND_RULE_UNSUPPORTED};
	struct rule_dict *d = rule_dict__new();

	(void)state;
	assert_non_null(d);
	assert_int_equal(rule_dict__count(d), 2);
	assert_int_equal(UNWIND_RULE_ID_NONE, 0);
	assert_int_equal(UNWIND_RULE_ID_UNSUPPORTED, 1);
	assert_same_rule(rule_dict__get(d, UNWIND_RULE_ID_NONE), &none);
	assert_same_rule(rule_dict__get(d, UNWIND_RULE_ID_UNSUPPORTED), &unsupported);
	/* Interned again, they keep their ids and add nothing. */
	assert_int_equal(rule_dict__intern(d, &none), UNWIND_RULE_ID_NONE);
	assert_int_equal(rule_dict__intern(d, &unsupported), UNWIND_RULE_ID_UNSUPPORTED);
	assert_int_equal(rule_dict__count(d), 2);
	rule_dict__free(d);
	rule_dict__free(NULL);
}

static void test_one_id_per_rule(void **state)
{
	const struct unwind_rule rules[] = {
	    sp_rule(8),
	    sp_rule(16),
	    {.kind = UNWIND_RULE_CFA_SP, .cfa_off = 16, .ra_off = -8, .fp_off = -16},
	    {.kind = UNWIND_RULE_CFA_FP, .cfa_off = 16, .ra_off = -8, .fp_off = -16},
	    {.kind = UNWIND_RULE_PLT, .cfa_off = 8, .ra_off = -8, .plt_split = 11},
	    {.kind = UNWIND_RULE_PLT, .cfa_off = 8, .ra_off = -8, .plt_split = 10},
	    {.kind = UNWIND_RULE_SIGNAL, .cfa_off = 160, .ra_off = 168, .fp_off = 120},
	    {.kind = UNWIND_RULE_OUTERMOST},
	};
	const size_t n = sizeof(rules) / sizeof(rules[0]);
	uint32_t ids[sizeof(rules) / sizeof(rules[0])];
	struct rule_dict *d = rule_dict__new();

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < n; i++) {
		ids[i] = rule_dict__intern(d, &rules[i]);
		/* New ids in order, after the two fixed ones. */
		assert_int_equal(ids[i], 2 + i);
	}
	assert_int_equal(rule_dict__count(d), 2 + n);
	/* The same rules again, in another order: the same ids, nothing added. */
	for (size_t i = n; i-- > 0;) {
		struct unwind_rule copy = rules[i];

		assert_int_equal(rule_dict__intern(d, &copy), ids[i]);
		assert_same_rule(rule_dict__get(d, ids[i]), &rules[i]);
	}
	assert_int_equal(rule_dict__count(d), 2 + n);
	rule_dict__free(d);
}

static void test_pad_ignored(void **state)
{
	struct unwind_rule padded = sp_rule(24), plain = sp_rule(24);
	struct rule_dict *d = rule_dict__new();
	uint32_t id;

	(void)state;
	assert_non_null(d);
	padded.pad = 0xdeadbeef;
	id = rule_dict__intern(d, &padded);
	assert_int_equal(rule_dict__intern(d, &plain), id);
	padded.pad = 1;
	assert_int_equal(rule_dict__intern(d, &padded), id);
	assert_int_equal(rule_dict__count(d), 3);
	/* What is stored has pad 0, as the table format says. */
	assert_int_equal(rule_dict__get(d, id)->pad, 0);
	/* A padded NONE is still id 0. */
	padded = (struct unwind_rule){.kind = UNWIND_RULE_NONE, .pad = 7};
	assert_int_equal(rule_dict__intern(d, &padded), UNWIND_RULE_ID_NONE);
	rule_dict__free(d);
}

static void test_full_dictionary(void **state)
{
	struct rule_dict *d = rule_dict__new();
	struct unwind_rule r;

	(void)state;
	assert_non_null(d);
	for (uint32_t i = 2; i < UNWIND_MAX_RULES; i++) {
		r = sp_rule((int32_t)i * 8);
		assert_int_equal(rule_dict__intern(d, &r), i);
	}
	assert_int_equal(rule_dict__count(d), UNWIND_MAX_RULES);
	/* Full: a new rule is unsupported, and nothing is added. */
	r = sp_rule(-8);
	assert_int_equal(rule_dict__intern(d, &r), UNWIND_RULE_ID_UNSUPPORTED);
	r = (struct unwind_rule){.kind = UNWIND_RULE_SIGNAL, .cfa_off = 160};
	assert_int_equal(rule_dict__intern(d, &r), UNWIND_RULE_ID_UNSUPPORTED);
	assert_int_equal(rule_dict__count(d), UNWIND_MAX_RULES);
	/* The rules already in keep their ids, the first and the last alike. */
	for (uint32_t i = 2; i < UNWIND_MAX_RULES; i += 1021) {
		r = sp_rule((int32_t)i * 8);
		assert_int_equal(rule_dict__intern(d, &r), i);
		assert_same_rule(rule_dict__get(d, i), &r);
	}
	r = sp_rule((UNWIND_MAX_RULES - 1) * 8);
	assert_int_equal(rule_dict__intern(d, &r), UNWIND_MAX_RULES - 1);
	r = (struct unwind_rule){.kind = UNWIND_RULE_NONE};
	assert_int_equal(rule_dict__intern(d, &r), UNWIND_RULE_ID_NONE);
	assert_int_equal(rule_dict__count(d), UNWIND_MAX_RULES);
	rule_dict__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixed_ids),
	    cmocka_unit_test(test_one_id_per_rule),
	    cmocka_unit_test(test_pad_ignored),
	    cmocka_unit_test(test_full_dictionary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
