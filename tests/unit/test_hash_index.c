// SPDX-License-Identifier: GPL-2.0
/*
 * hash_index: entry numbers found by hash and equality, through growth,
 * clearing and colliding hashes; hash_bytes() and hash_words().
 */
#include "tests/unit/unit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "profile/hash_index.h"

/* The caller's side of an index: an array of keys, and the key looked for. */
struct table {
	uint64_t *keys;
	uint64_t probe;
	uint64_t (*hash)(uint64_t key);
};

static uint64_t good_hash(uint64_t key)
{
	uint32_t w[2] = {(uint32_t)key, (uint32_t)(key >> 32)};

	return hash_words(w, 2, 0);
}

/* Every key in the same bucket with the same tag: only eq tells them apart. */
static uint64_t constant_hash(uint64_t key)
{
	(void)key;
	return 0x1234567800000005ull;
}

/* Same bucket (low bits 5), tags differ: the tag alone tells them apart. */
static uint64_t same_bucket_hash(uint64_t key)
{
	return (key << 32) | 5;
}

/* Same tag, buckets differ. */
static uint64_t same_tag_hash(uint64_t key)
{
	return 0xABCD000000000000ull | key;
}

static bool table_eq(const void *ctx, uint32_t entry)
{
	const struct table *t = ctx;

	return t->keys[entry] == t->probe;
}

static uint64_t table_rehash(const void *ctx, uint32_t entry)
{
	const struct table *t = ctx;

	return t->hash(t->keys[entry]);
}

static struct hash_slot *table_find(struct hash_index *h, struct table *t, uint64_t key)
{
	t->probe = key;
	return hash_index__find(h, t->hash(key), table_eq, t);
}

/* Stores @key as entry @entry and indexes it; fails the test on error. */
static void table_insert(struct hash_index *h, struct table *t, uint32_t entry, uint64_t key)
{
	t->keys[entry] = key;
	assert_int_equal(hash_index__insert(h, t->hash(key), entry, table_rehash, t), 0);
}

static size_t count_used_slots(const struct hash_index *h)
{
	size_t n = 0;

	for (size_t i = 0; i <= h->mask; i++)
		n += h->slots[i].entry1 != 0;
	return n;
}

static void test_init_rounds_up_to_a_power_of_two(void **state)
{
	struct hash_index h;

	(void)state;
	assert_int_equal(hash_index__init(&h, 0), 0);
	assert_int_equal(h.mask, 15); /* at least 16 slots */
	assert_int_equal(h.used, 0);
	assert_int_equal(count_used_slots(&h), 0);
	hash_index__free(&h);

	assert_int_equal(hash_index__init(&h, 17), 0);
	assert_int_equal(h.mask, 31);
	hash_index__free(&h);

	assert_int_equal(hash_index__init(&h, 1024), 0);
	assert_int_equal(h.mask, 1023);
	hash_index__free(&h);

	assert_int_equal(hash_index__init(&h, 1025), 0);
	assert_int_equal(h.mask, 2047);
	hash_index__free(&h);
	assert_null(h.slots);
	assert_int_equal(h.mask, 0);
	assert_int_equal(h.used, 0);
}

static void test_find_in_empty_index_gives_empty_slot(void **state)
{
	uint64_t keys[1] = {0};
	struct table t = {keys, 0, good_hash};
	struct hash_index h;

	(void)state;
	assert_int_equal(hash_index__init(&h, 0), 0);
	for (uint64_t k = 0; k < 100; k++) {
		struct hash_slot *s = table_find(&h, &t, k);

		assert_non_null(s);
		assert_int_equal(s->entry1, 0);
	}
	hash_index__free(&h);
}

/* Grows only when an insert would leave less than a quarter of the slots empty. */
static void test_growth_keeps_a_quarter_empty(void **state)
{
	uint64_t keys[64];
	struct table t = {keys, 0, good_hash};
	struct hash_index h;

	(void)state;
	assert_int_equal(hash_index__init(&h, 16), 0);
	/* 12 of 16 slots used is exactly three quarters: no growth yet. */
	for (uint32_t i = 0; i < 12; i++)
		table_insert(&h, &t, i, 1000 + i);
	assert_int_equal(h.mask, 15);
	assert_int_equal(h.used, 12);
	/* The 13th would make 13 * 4 = 52 > 48: 32 slots. */
	table_insert(&h, &t, 12, 1012);
	assert_int_equal(h.mask, 31);
	assert_int_equal(h.used, 13);
	assert_int_equal(count_used_slots(&h), 13);
	for (uint32_t i = 0; i < 13; i++)
		assert_int_equal(table_find(&h, &t, 1000 + i)->entry1, i + 1);
	hash_index__free(&h);
}

#define MANY 100000

static void test_many_entries_through_growth(void **state)
{
	struct table t = {calloc(MANY, sizeof(uint64_t)), 0, good_hash};
	struct hash_index h;

	(void)state;
	assert_non_null(t.keys);
	assert_int_equal(hash_index__init(&h, 0), 0);
	for (uint32_t i = 0; i < MANY; i++) {
		uint64_t key = (uint64_t)i * 7919 + 1; /* all == 1 mod 7919 */

		assert_int_equal(table_find(&h, &t, key)->entry1, 0);
		table_insert(&h, &t, i, key);
	}
	assert_int_equal(h.used, MANY);
	assert_int_equal(count_used_slots(&h), MANY);
	/*
	 * Doubling from 16: 131072 slots take at most 98304 entries, so the
	 * 98305th insert grew the index to 262144.
	 */
	assert_int_equal(h.mask + 1, 262144);
	for (uint32_t i = 0; i < MANY; i++) {
		struct hash_slot *s = table_find(&h, &t, (uint64_t)i * 7919 + 1);

		assert_int_equal(s->entry1, i + 1);
		assert_int_equal(s->tag, (uint32_t)(good_hash((uint64_t)i * 7919 + 1) >> 32));
	}
	/* Keys == 2 mod 7919 were never inserted. */
	for (uint32_t i = 0; i < MANY; i++)
		assert_int_equal(table_find(&h, &t, (uint64_t)i * 7919 + 2)->entry1, 0);
	hash_index__free(&h);
	free(t.keys);
}

/* Inserts @n keys with @hash through growth and finds each by eq. */
static void check_collisions(uint64_t (*hash)(uint64_t), uint32_t n)
{
	struct table t = {calloc(n, sizeof(uint64_t)), 0, hash};
	struct hash_index h;

	assert_non_null(t.keys);
	assert_int_equal(hash_index__init(&h, 0), 0);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(table_find(&h, &t, i + 1)->entry1, 0);
		table_insert(&h, &t, i, i + 1);
	}
	assert_true(h.mask + 1 > n); /* it grew past the 16 it started with */
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(table_find(&h, &t, i + 1)->entry1, i + 1);
	assert_int_equal(table_find(&h, &t, 0)->entry1, 0);
	assert_int_equal(table_find(&h, &t, n + 1)->entry1, 0);
	assert_int_equal(table_find(&h, &t, 1ull << 40)->entry1, 0);
	hash_index__free(&h);
	free(t.keys);
}

static void test_equal_hashes_resolved_by_eq(void **state)
{
	(void)state;
	check_collisions(constant_hash, 2000);
}

static void test_same_bucket_different_tags(void **state)
{
	(void)state;
	check_collisions(same_bucket_hash, 2000);
}

static void test_same_tag_different_buckets(void **state)
{
	(void)state;
	check_collisions(same_tag_hash, 2000);
}

static void test_clear_empties_and_keeps_memory(void **state)
{
	uint64_t keys[200];
	struct table t = {keys, 0, good_hash};
	struct hash_index h;
	struct hash_slot *slots;
	size_t mask;

	(void)state;
	assert_int_equal(hash_index__init(&h, 0), 0);
	for (uint32_t i = 0; i < 100; i++)
		table_insert(&h, &t, i, i);
	slots = h.slots;
	mask = h.mask;
	hash_index__clear(&h);
	assert_ptr_equal(h.slots, slots);
	assert_int_equal(h.mask, mask);
	assert_int_equal(h.used, 0);
	assert_int_equal(count_used_slots(&h), 0);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(table_find(&h, &t, i)->entry1, 0);

	/* Usable again: entry numbers restart, old keys stay absent. */
	for (uint32_t i = 0; i < 100; i++)
		table_insert(&h, &t, i, 500 + i);
	assert_int_equal(h.used, 100);
	for (uint32_t i = 0; i < 100; i++) {
		assert_int_equal(table_find(&h, &t, 500 + i)->entry1, i + 1);
		assert_int_equal(table_find(&h, &t, i)->entry1, 0);
	}
	hash_index__free(&h);
}

static void test_free_then_init_again(void **state)
{
	uint64_t keys[4];
	struct table t = {keys, 0, good_hash};
	struct hash_index h;

	(void)state;
	assert_int_equal(hash_index__init(&h, 0), 0);
	table_insert(&h, &t, 0, 42);
	hash_index__free(&h);
	hash_index__free(&h); /* slots are NULL now: a second free is harmless */
	assert_int_equal(hash_index__init(&h, 0), 0);
	assert_int_equal(table_find(&h, &t, 42)->entry1, 0);
	table_insert(&h, &t, 0, 43);
	assert_int_equal(table_find(&h, &t, 43)->entry1, 1);
	hash_index__free(&h);
}

/*
 * hash_bytes() reads exactly @n bytes (the buffers are heap blocks of that
 * size, so ASan catches a read past them) and depends on every one of them.
 */
static void test_hash_bytes_reads_n_bytes_and_each_counts(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 24; n++) {
		unsigned char *a = malloc(n), *b = malloc(n);

		assert_non_null(a);
		assert_non_null(b);
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = (unsigned char)('a' + i);
		assert_true(hash_bytes(a, n) == hash_bytes(b, n));
		for (size_t i = 0; i < n; i++) {
			b[i] ^= 1;
			assert_true(hash_bytes(a, n) != hash_bytes(b, n));
			b[i] ^= 1;
		}
		/* A shorter prefix is another string. */
		assert_true(hash_bytes(a, n) != hash_bytes(a, n - 1));
		free(a);
		free(b);
	}
	/* The length is part of the hash: "" and "\0" differ. */
	assert_true(hash_bytes("", 0) != hash_bytes("\0", 1));
}

static void test_hash_words_depends_on_order_count_and_seed(void **state)
{
	uint32_t w[5] = {1, 2, 3, 4, 5};
	uint32_t r[5] = {2, 1, 3, 4, 5};
	uint32_t *heap = malloc(3 * sizeof(*heap));

	(void)state;
	assert_non_null(heap);
	memcpy(heap, w, 3 * sizeof(*heap));
	assert_true(hash_words(heap, 3, 7) == hash_words(w, 3, 7)); /* reads only 3 words */
	assert_true(hash_words(w, 5, 0) != hash_words(r, 5, 0));
	assert_true(hash_words(w, 5, 0) != hash_words(w, 4, 0));
	assert_true(hash_words(w, 5, 0) != hash_words(w, 5, 1));
	assert_true(hash_words(w, 3, 0) != hash_words(w, 2, 0)); /* the odd last word counts */
	assert_true(hash_words(w, 0, 0) != hash_words(w, 0, 1));
	free(heap);
}

/* Entries keyed by a 64-bit hash of their own, somewhere inside each element. */
struct keyed {
	uint32_t tag;
	uint64_t key;
	uint32_t value;
};

#define KEYED sizeof(struct keyed), offsetof(struct keyed, key)

static void test_key64_entries_found_through_growth(void **state)
{
	enum { N = 3000 };
	struct keyed *v = calloc(N, sizeof(*v));
	struct hash_index h;

	(void)state;
	assert_non_null(v);
	assert_int_equal(hash_index__init(&h, 16), 0);
	for (uint32_t i = 0; i < N; i++) {
		/* Keys that share their low bits in pairs: the tags tell them apart. */
		uint64_t key = ((uint64_t)(i / 2) << 32 | (i % 2)) * 0x9E3779B97F4A7C15ull;

		assert_int_equal(hash_index__find_key64(&h, key, v, KEYED), HASH_NONE);
		v[i] = (struct keyed){ .tag = 7, .key = key, .value = i };
		assert_int_equal(hash_index__insert_key64(&h, key, i, v, KEYED), 0);
	}
	assert_true(h.mask + 1 >= N); /* it grew, rehashing from the keys in the elements */
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(v[hash_index__find_key64(&h, v[i].key, v, KEYED)].value, i);
	assert_int_equal(hash_index__find_key64(&h, 12345, v, KEYED), HASH_NONE);
	hash_index__free(&h);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_rounds_up_to_a_power_of_two),
	    cmocka_unit_test(test_key64_entries_found_through_growth),
	    cmocka_unit_test(test_find_in_empty_index_gives_empty_slot),
	    cmocka_unit_test(test_growth_keeps_a_quarter_empty),
	    cmocka_unit_test(test_many_entries_through_growth),
	    cmocka_unit_test(test_equal_hashes_resolved_by_eq),
	    cmocka_unit_test(test_same_bucket_different_tags),
	    cmocka_unit_test(test_same_tag_different_buckets),
	    cmocka_unit_test(test_clear_empties_and_keeps_memory),
	    cmocka_unit_test(test_free_then_init_again),
	    cmocka_unit_test(test_hash_bytes_reads_n_bytes_and_each_counts),
	    cmocka_unit_test(test_hash_words_depends_on_order_count_and_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
