// SPDX-License-Identifier: GPL-2.0
/*
 * lru: a circular doubly linked list around a sentinel head.
 */
#include "symbols/lru.h"

void lru__init(struct lru *l)
{
	l->head.prev = l->head.next = &l->head;
	l->head.bytes = 0;
	l->n = 0;
	l->bytes = 0;
}

static void lru__link_first(struct lru *l, struct lru_node *node)
{
	node->prev = &l->head;
	node->next = l->head.next;
	l->head.next->prev = node;
	l->head.next = node;
}

static void lru__unlink(struct lru_node *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->prev = node->next = NULL;
}

void lru__add(struct lru *l, struct lru_node *node, size_t bytes)
{
	node->bytes = bytes;
	lru__link_first(l, node);
	l->n++;
	l->bytes += bytes;
}

void lru__touch(struct lru *l, struct lru_node *node)
{
	if (l->head.next == node)
		return;
	lru__unlink(node);
	lru__link_first(l, node);
}

void lru__resize(struct lru *l, struct lru_node *node, size_t bytes)
{
	l->bytes = l->bytes - node->bytes + bytes;
	node->bytes = bytes;
}

void lru__remove(struct lru *l, struct lru_node *node)
{
	if (!lru__linked(node))
		return;
	lru__unlink(node);
	l->n--;
	l->bytes -= node->bytes;
	node->bytes = 0;
}

struct lru_node *lru__oldest(const struct lru *l)
{
	return l->head.prev == &l->head ? NULL : l->head.prev;
}

struct lru_node *lru__newer(const struct lru *l, const struct lru_node *node)
{
	return node->prev == &l->head ? NULL : node->prev;
}

bool lru__linked(const struct lru_node *node)
{
	return node->next != NULL;
}
