// SPDX-License-Identifier: GPL-2.0
/*
 * addr_sort: the radix sort keeps, at each address, the element the
 * comparator prefers, in address order: checked against qsort() followed by
 * a pass keeping the first of each address, on tables shaped like those of
 * a library (small addresses, aliases), the kernel (high addresses) and a
 * hostile file (thousands of entries at one address).
 */
#include "tests/unit/unit.h"

#include "symbols/addr_sort.h"

struct entry {
	uint32_t rank; /* preferred: lower */
	uint64_t addr;
	uint32_t id;   /* unique: makes the order total */
};

static int compared_across_keys;

static int entry_cmp(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;

	if (arg && x->addr != y->addr)
		compared_across_keys++;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The reference: qsort_r with the whole comparator, then the first at each address. */
static size_t reference(struct entry *v, size_t n)
{
	size_t i, kept = 0;

	qsort_r(v, n, sizeof(*v), entry_cmp, NULL);
	for (i = 0; i < n; i++)
		if (kept == 0 || v[kept - 1].addr != v[i].addr)
			v[kept++] = v[i];
	return kept;
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* @n entries at @base + a random offset below @spread, ranks below @ranks. */
static struct entry *make_table(size_t n, uint64_t base, uint64_t spread, uint32_t ranks,
				uint64_t seed)
{
	struct entry *v = calloc(n ? n : 1, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct entry){ .addr = base + next_random(&seed) % spread,
				       .rank = (uint32_t)(next_random(&seed) % ranks),
				       .id = (uint32_t)i };
	return v;
}

static void check_against_reference(size_t n, uint64_t base, uint64_t spread, uint32_t ranks,
				    uint64_t seed)
{
	struct entry *got = make_table(n, base, spread, ranks, seed);
	struct entry *want = make_table(n, base, spread, ranks, seed);
	size_t kept, want_kept = reference(want, n);

	compared_across_keys = 0;
	kept = addr_sort__unique(got, n, sizeof(*got), offsetof(struct entry, addr), entry_cmp,
				 &compared_across_keys);
	assert_int_equal(kept, want_kept);
	for (size_t i = 0; i < kept; i++) {
		assert_int_equal(got[i].addr, want[i].addr);
		assert_int_equal(got[i].id, want[i].id);
	}
	assert_int_equal(compared_across_keys, 0);
	free(got);
	free(want);
}

static void test_empty_and_one(void **state)
{
	struct entry one = { .addr = 7, .id = 1 };

	(void)state;
	assert_int_equal(addr_sort__unique(NULL, 0, sizeof(one), offsetof(struct entry, addr),
					   entry_cmp, NULL), 0);
	assert_int_equal(addr_sort__unique(&one, 1, sizeof(one), offsetof(struct entry, addr),
					   entry_cmp, NULL), 1);
	assert_int_equal(one.addr, 7);
}

/* A library: addresses within 2 MiB, one in three an alias of another. */
static void test_library_table(void **state)
{
	(void)state;
	check_against_reference(20000, 0x1000, 0x200000, 4, 1);
	check_against_reference(20000, 0x1000, 12000, 4, 2); /* most addresses shared */
}

/* The kernel's text: every byte of the address but the top ones differs. */
static void test_kernel_addresses(void **state)
{
	(void)state;
	check_against_reference(50000, 0xffffffff81000000ull, 0x3f000000, 3, 3);
	check_against_reference(5000, 0, UINT64_MAX, 2, 4); /* all 64 bits */
}

/* A hostile file: thousands of entries at one address, or runs of hundreds. */
static void test_long_runs(void **state)
{
	(void)state;
	check_against_reference(3000, 0x400000, 1, 1000, 5);
	check_against_reference(4000, 0x1000, 9, 5, 6);
}

static void test_presorted_and_reversed(void **state)
{
	struct entry v[1000];

	(void)state;
	for (uint32_t i = 0; i < 1000; i++)
		v[i] = (struct entry){ .addr = 1000 - i / 2, .rank = i % 3, .id = i };
	assert_int_equal(addr_sort__unique(v, 1000, sizeof(*v), offsetof(struct entry, addr),
					   entry_cmp, NULL), 500);
	for (uint32_t i = 0; i < 500; i++) {
		/* address 501 + i came from input entries 2k and 2k + 1, k = 499 - i */
		uint32_t k = 499 - i, first = 2 * k, second = 2 * k + 1;
		uint32_t preferred = second % 3 < first % 3 ? second : first;

		assert_int_equal(v[i].addr, 501 + i);
		assert_int_equal(v[i].id, preferred);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_library_table),
		cmocka_unit_test(test_kernel_addresses),
		cmocka_unit_test(test_long_runs),
		cmocka_unit_test(test_presorted_and_reversed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
