/* SPDX-License-Identifier: GPL-2.0 */
/*
 * id_table: a hash table of caller-allocated nodes keyed by an identity of
 * two 64-bit words (a pid; a device and inode). The table holds each node's
 * key beside a pointer to it, so that a lookup reads the table alone, never
 * a node it does not return: under process churn the nodes are thousands,
 * scattered and cold. The table never allocates a node.
 */
#ifndef FLAMETOP_ID_TABLE_H
#define FLAMETOP_ID_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct id_node {
	uint64_t key[2];
};

struct id_slot {
	uint64_t key[2];
	struct id_node *node; /* NULL: empty */
};

struct id_table {
	struct id_slot *slots;
	size_t n_slots; /* 0 or a power of two */
	size_t n;
};

/* id_table__find() returns the node with key {@k0, @k1}, or NULL. */
struct id_node *id_table__find(const struct id_table *t, uint64_t k0, uint64_t k1);

/*
 * id_table__insert() adds @node, whose key is set and not yet in @t, growing
 * the table as needed. Returns 0, or -ENOMEM with @t unchanged.
 */
int id_table__insert(struct id_table *t, struct id_node *node);

/* id_table__remove() takes @node out of @t; nothing when it is not in it. */
void id_table__remove(struct id_table *t, struct id_node *node);

/*
 * id_table__next() returns the first node in slot *@i or after it, and
 * moves *@i past it; NULL once there is none.
 * `for (size_t i = 0; (n = id_table__next(t, &i));)` visits every node, when
 * none is inserted or removed meanwhile.
 */
struct id_node *id_table__next(const struct id_table *t, size_t *i);

/*
 * id_table__clear() calls @release (unless NULL) on every node, then leaves
 * @t empty; its slots are kept when @keep_slots is true and freed
 * otherwise.
 */
void id_table__clear(struct id_table *t, void (*release)(struct id_node *node), bool keep_slots);

#endif
