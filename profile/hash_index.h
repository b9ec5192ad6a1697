/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hash_index: an open-addressing index over entries that live in the
 * caller's own array. The index stores entry numbers, never entries, so one
 * piece serves the string table, the frame table, the stack table and the
 * trie's child lookup.
 */
#ifndef FLAMETOP_HASH_INDEX_H
#define FLAMETOP_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct hash_slot {
	uint32_t entry1; /* entry number + 1; 0 marks an empty slot */
	uint32_t tag;    /* high bits of the hash, to skip most comparisons */
};

struct hash_index {
	struct hash_slot *slots;
	size_t mask; /* slots - 1; slots is a power of two */
	size_t used;
};

/* Is entry @entry the one looked for? */
typedef bool (*hash_eq_fn)(const void *ctx, uint32_t entry);
/* The hash of entry @entry, to move it when the index grows. */
typedef uint64_t (*hash_of_fn)(const void *ctx, uint32_t entry);

/* hash_index__init() makes an empty index; returns 0 or -ENOMEM. */
int hash_index__init(struct hash_index *h, size_t min_slots);

/*
 * hash_index__find() returns the slot holding the entry with @hash for which
 * @eq is true, or an empty slot when there is none. The pointer is valid
 * until the next insert.
 */
struct hash_slot *hash_index__find(const struct hash_index *h, uint64_t hash, hash_eq_fn eq,
				   const void *ctx);

/*
 * hash_index__insert() records @entry, which has @hash and is not in the
 * index yet, growing the index first when it is getting full (using
 * @rehash). Slot pointers from hash_index__find() are then stale. Returns 0,
 * or -ENOMEM with nothing changed.
 */
int hash_index__insert(struct hash_index *h, uint64_t hash, uint32_t entry, hash_of_fn rehash,
		       const void *ctx);

/*
 * Entries that carry a well-mixed uint64_t key (a hash already, such as a
 * stack's or a path's), at byte @key_offset of each @stride-byte element of
 * @entries: the key is its own hash, and these two spare the caller the
 * probe and rehash callbacks.
 *
 * hash_index__find_key64() returns the number of the entry with @key, or
 * HASH_NONE. hash_index__insert_key64() records @entry, which has @key and
 * is not in the index yet (hash_index__insert() otherwise).
 */
#define HASH_NONE UINT32_MAX
uint32_t hash_index__find_key64(const struct hash_index *h, uint64_t key, const void *entries,
				size_t stride, size_t key_offset);
int hash_index__insert_key64(struct hash_index *h, uint64_t key, uint32_t entry,
			     const void *entries, size_t stride, size_t key_offset);

/* Empties the index, keeping its memory. */
void hash_index__clear(struct hash_index *h);

/* Frees the slots; the index is then empty and must be re-initialized. */
void hash_index__free(struct hash_index *h);

#endif
