// SPDX-License-Identifier: GPL-2.0
/*
 * id_table: chained hashing with a power-of-two bucket array that doubles
 * when there are more nodes than buckets.
 */
#include "symbols/id_table.h"

#include <errno.h>
#include <stdlib.h>

static uint64_t id_hash(uint64_t k0, uint64_t k1)
{
	uint64_t h = k0 * 0x9e3779b97f4a7c15ULL ^ (k1 + 0x632be59bd9b4e019ULL);

	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	return h ^ (h >> 32);
}

static struct id_node **id_table__slot(struct id_node **buckets, size_t n_buckets,
				       const struct id_node *node)
{
	return &buckets[id_hash(node->key[0], node->key[1]) & (n_buckets - 1)];
}

struct id_node *id_table__find(const struct id_table *t, uint64_t k0, uint64_t k1)
{
	struct id_node *node;

	if (!t->n_buckets)
		return NULL;
	node = t->buckets[id_hash(k0, k1) & (t->n_buckets - 1)];
	while (node && (node->key[0] != k0 || node->key[1] != k1))
		node = node->next;
	return node;
}

static int id_table__grow(struct id_table *t)
{
	size_t i, n_buckets = t->n_buckets ? t->n_buckets * 2 : 64;
	struct id_node **buckets = calloc(n_buckets, sizeof(*buckets));

	if (!buckets)
		return -ENOMEM;
	for (i = 0; i < t->n_buckets; i++) {
		struct id_node *node = t->buckets[i], *next;

		for (; node; node = next) {
			struct id_node **slot = id_table__slot(buckets, n_buckets, node);

			next = node->next;
			node->next = *slot;
			*slot = node;
		}
	}
	free(t->buckets);
	t->buckets = buckets;
	t->n_buckets = n_buckets;
	return 0;
}

int id_table__insert(struct id_table *t, struct id_node *node)
{
	struct id_node **slot;

	if (t->n >= t->n_buckets && id_table__grow(t))
		return -ENOMEM;
	slot = id_table__slot(t->buckets, t->n_buckets, node);
	node->next = *slot;
	*slot = node;
	t->n++;
	return 0;
}

void id_table__remove(struct id_table *t, struct id_node *node)
{
	struct id_node **link = id_table__slot(t->buckets, t->n_buckets, node);

	while (*link && *link != node)
		link = &(*link)->next;
	if (!*link)
		return;
	*link = node->next;
	node->next = NULL;
	t->n--;
}

void id_table__clear(struct id_table *t, void (*release)(struct id_node *node), bool keep_buckets)
{
	size_t i;

	for (i = 0; i < t->n_buckets; i++) {
		struct id_node *node = t->buckets[i], *next;

		for (; node && release; node = next) {
			next = node->next;
			release(node);
		}
		t->buckets[i] = NULL;
	}
	t->n = 0;
	if (!keep_buckets) {
		free(t->buckets);
		t->buckets = NULL;
		t->n_buckets = 0;
	}
}
