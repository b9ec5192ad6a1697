/* SPDX-License-Identifier: GPL-2.0 */
/*
 * path_set: remembers a state per path of frames (root's child first), such
 * as "expanded" for a tree row. A path is named by its key (path_key() in
 * stack_trie.h), so a row keeps its state across rebuilds of the trie even
 * when its node number changes. Two different paths share a
 * key with a chance of about n^2 / 2^64: a wrong expand marker at worst.
 */
#ifndef FLAMETOP_PATH_SET_H
#define FLAMETOP_PATH_SET_H

#include <stddef.h>
#include <stdint.h>

#include "profile/hash_index.h"

enum path_state {
	PATH_UNSET,     /* never set, or cleared */
	PATH_EXPANDED,
	PATH_COLLAPSED,
};

struct path_entry {
	uint64_t key;
	uint8_t state; /* enum path_state */
};

struct path_set {
	struct path_entry *entries;
	size_t n, cap;
	struct hash_index index;
};

/* path_set__init() makes an empty set; returns 0 or -ENOMEM. */
int path_set__init(struct path_set *s);

/* The state of the path with @key: PATH_UNSET when never set. */
enum path_state path_set__get(const struct path_set *s, uint64_t key);

/* path_set__set() records @state for @key; returns 0 or -ENOMEM (nothing changed). */
int path_set__set(struct path_set *s, uint64_t key, enum path_state state);

/* Forgets every path (keeping the memory). */
void path_set__clear(struct path_set *s);

/* Frees the memory; the set must be re-initialized before reuse. */
void path_set__free(struct path_set *s);

#endif
