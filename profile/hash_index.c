// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hash_index.h"

int hash_index__init(struct hash_index *h, size_t min_slots)
{
	size_t n = 16;

	while (n < min_slots)
		n <<= 1;
	h->slots = calloc(n, sizeof(*h->slots));
	if (!h->slots)
		return -ENOMEM;
	h->mask = n - 1;
	h->used = 0;
	return 0;
}

struct hash_slot *hash_index__find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq,
				   const void *ctx)
{
	uint32_t tag = hash >> 32;
	size_t i = hash & h->mask;

	for (;; i = (i + 1) & h->mask) {
		struct hash_slot *s = &h->slots[i];

		if (!s->entry1 || (s->tag == tag && eq(ctx, s->entry1 - 1)))
			return s;
	}
}

static int grow(struct hash_index *h, hash_of_fn rehash, const void *ctx)
{
	size_t n = (h->mask + 1) * 2;
	struct hash_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i <= h->mask; i++) {
		uint32_t e1 = h->slots[i].entry1;
		size_t j;

		if (!e1)
			continue;
		j = rehash(ctx, e1 - 1) & (n - 1);
		while (slots[j].entry1)
			j = (j + 1) & (n - 1);
		slots[j] = h->slots[i];
	}
	free(h->slots);
	h->slots = slots;
	h->mask = n - 1;
	return 0;
}

int hash_index__insert(struct hash_index *h, uint64_t hash, uint32_t entry, hash_of_fn rehash,
		       const void *ctx)
{
	size_t i;

	/* Keep at least a quarter of the slots empty, so probes stay short. */
	if ((h->used + 1) * 4 > (h->mask + 1) * 3 && grow(h, rehash, ctx))
		return -ENOMEM;
	for (i = hash & h->mask; h->slots[i].entry1; i = (i + 1) & h->mask)
		;
	h->slots[i].entry1 = entry + 1;
	h->slots[i].tag = hash >> 32;
	h->used++;
	return 0;
}

struct key64_table {
	const char *entries;
	size_t stride, key_offset;
	uint64_t key;
};

static uint64_t key64_of(const struct key64_table *t, uint32_t entry)
{
	uint64_t key;

	memcpy(&key, t->entries + entry * t->stride + t->key_offset, sizeof(key));
	return key;
}

static bool same_key64(const void *ctx, uint32_t entry)
{
	const struct key64_table *t = ctx;

	return key64_of(t, entry) == t->key;
}

static uint64_t rehash_key64(const void *ctx, uint32_t entry)
{
	return key64_of(ctx, entry);
}

uint32_t hash_index__find_key64(const struct hash_index *h, uint64_t key, const void *entries,
				size_t stride, size_t key_offset)
{
	struct key64_table t = { entries, stride, key_offset, key };
	struct hash_slot *slot = hash_index__find(h, key, same_key64, &t);

	return slot->entry1 ? slot->entry1 - 1 : HASH_NONE;
}

int hash_index__insert_key64(struct hash_index *h, uint64_t key, uint32_t entry,
			     const void *entries, size_t stride, size_t key_offset)
{
	struct key64_table t = { entries, stride, key_offset, key };

	return hash_index__insert(h, key, entry, rehash_key64, &t);
}

void hash_index__clear(struct hash_index *h)
{
	memset(h->slots, 0, (h->mask + 1) * sizeof(*h->slots));
	h->used = 0;
}

void hash_index__free(struct hash_index *h)
{
	free(h->slots);
	h->slots = NULL;
	h->mask = 0;
	h->used = 0;
}
