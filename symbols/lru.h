/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lru: an intrusive least-recently-used list that keeps a byte total, so
 * that a cache can be bounded by the memory its entries hold. Nodes live in
 * the caller's structs; the list never allocates.
 */
#ifndef FLAMETOP_LRU_H
#define FLAMETOP_LRU_H

#include <stdbool.h>
#include <stddef.h>

struct lru_node {
	struct lru_node *prev, *next; /* NULL when not on a list */
	size_t bytes;
};

struct lru {
	struct lru_node head; /* head.next is the most recent, head.prev the oldest */
	size_t n, bytes;
};

/* The struct holding lru_node @node as its @member. */
#define lru_entry(node, type, member) ((type *)((char *)(node)-offsetof(type, member)))

/* lru__init() makes @l empty. */
void lru__init(struct lru *l);

/* lru__add() puts @node, not on any list, first (most recent), counting @bytes. */
void lru__add(struct lru *l, struct lru_node *node, size_t bytes);

/* lru__touch() moves @node, on @l, to the front. */
void lru__touch(struct lru *l, struct lru_node *node);

/* lru__resize() changes the bytes counted for @node, on @l. */
void lru__resize(struct lru *l, struct lru_node *node, size_t bytes);

/* lru__remove() takes @node off @l and uncounts its bytes; a node on no list is left alone. */
void lru__remove(struct lru *l, struct lru_node *node);

/* lru__oldest() returns the least recently used node, or NULL when @l is empty. */
struct lru_node *lru__oldest(const struct lru *l);

/*
 * lru__newer() returns the node used just after @node, on @l, or NULL when
 * @node is the most recent: from lru__oldest() on, it visits the list from
 * the oldest. A visitor that removes @node asks for the newer one first.
 */
struct lru_node *lru__newer(const struct lru *l, const struct lru_node *node);

/* True when @node is on a list. */
bool lru__linked(const struct lru_node *node);

#endif
