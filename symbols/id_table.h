/* SPDX-License-Identifier: GPL-2.0 */
/*
 * id_table: a hash table of caller-allocated nodes keyed by an identity of
 * two 64-bit words (a pid; a device and inode). Nodes are chained through a
 * link embedded in the caller's struct; the table never allocates a node.
 */
#ifndef FLAMETOP_ID_TABLE_H
#define FLAMETOP_ID_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct id_node {
	struct id_node *next;
	uint64_t key[2];
};

struct id_table {
	struct id_node **buckets;
	size_t n_buckets; /* 0 or a power of two */
	size_t n;
};

/* id_table__find() returns the node with key {@k0, @k1}, or NULL. */
struct id_node *id_table__find(const struct id_table *t, uint64_t k0, uint64_t k1);

/*
 * id_table__insert() adds @node, whose key is set and not yet in @t, growing
 * the bucket array as needed. Returns 0, or -ENOMEM with @t unchanged.
 */
int id_table__insert(struct id_table *t, struct id_node *node);

/* id_table__remove() takes @node, which is in @t, out of it. */
void id_table__remove(struct id_table *t, struct id_node *node);

/*
 * id_table__clear() calls @release (unless NULL) on every node, then leaves
 * @t empty; its buckets are kept when @keep_buckets is true and freed
 * otherwise.
 */
void id_table__clear(struct id_table *t, void (*release)(struct id_node *node), bool keep_buckets);

#endif
