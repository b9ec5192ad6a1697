// SPDX-License-Identifier: GPL-2.0
/*
 * id_table: open addressing with linear probing in a power-of-two array at
 * most half full, and deletion by shifting back the slots that follow (no
 * tombstones: a table whose nodes come and go all the time stays as short
 * to probe as a fresh one).
 */
#include "symbols/id_table.h"

#include <errno.h>
#include <stdlib.h>

#define MIN_SLOTS 64

static size_t id_home(uint64_t k0, uint64_t k1, size_t n_slots)
{
	uint64_t h = k0 * 0x9e3779b97f4a7c15ULL ^ (k1 + 0x632be59bd9b4e019ULL);

	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	return (h ^ (h >> 32)) & (n_slots - 1);
}

/* The slot holding key {@k0, @k1}, or the empty slot that ends its probe. */
static struct id_slot *id_table__probe(const struct id_table *t, uint64_t k0, uint64_t k1)
{
	size_t mask = t->n_slots - 1, i = id_home(k0, k1, t->n_slots);

	for (;; i = (i + 1) & mask) {
		struct id_slot *s = &t->slots[i];

		if (!s->node || (s->key[0] == k0 && s->key[1] == k1))
			return s;
	}
}

struct id_node *id_table__find(const struct id_table *t, uint64_t k0, uint64_t k1)
{
	return t->n_slots ? id_table__probe(t, k0, k1)->node : NULL;
}

/* Puts @node in the first free slot of its probe; the table has one. */
static void id_table__place(struct id_table *t, struct id_node *node)
{
	struct id_slot *s = id_table__probe(t, node->key[0], node->key[1]);

	s->key[0] = node->key[0];
	s->key[1] = node->key[1];
	s->node = node;
}

static int id_table__grow(struct id_table *t)
{
	size_t n_slots = t->n_slots ? t->n_slots * 2 : MIN_SLOTS;
	struct id_table bigger = { calloc(n_slots, sizeof(struct id_slot)), n_slots, t->n };

	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slots[i].node)
			id_table__place(&bigger, t->slots[i].node);
	free(t->slots);
	*t = bigger;
	return 0;
}

int id_table__insert(struct id_table *t, struct id_node *node)
{
	if ((t->n + 1) * 2 > t->n_slots && id_table__grow(t))
		return -ENOMEM;
	id_table__place(t, node);
	t->n++;
	return 0;
}

/*
 * May the node in slot @at, whose probe starts at @home, move back to the
 * empty slot @hole before it? Yes unless @home lies in the cyclic range
 * (@hole, @at]: a probe for it starts after the hole and would not see it.
 */
static bool may_fill(size_t home, size_t hole, size_t at)
{
	return hole <= at ? home <= hole || home > at : home <= hole && home > at;
}

void id_table__remove(struct id_table *t, struct id_node *node)
{
	size_t mask = t->n_slots - 1, hole, at;
	struct id_slot *s;

	if (!t->n_slots || (s = id_table__probe(t, node->key[0], node->key[1]))->node != node)
		return;
	hole = (size_t)(s - t->slots);
	for (at = (hole + 1) & mask; t->slots[at].node; at = (at + 1) & mask) {
		const struct id_slot *next = &t->slots[at];

		if (may_fill(id_home(next->key[0], next->key[1], t->n_slots), hole, at)) {
			t->slots[hole] = *next;
			hole = at;
		}
	}
	t->slots[hole].node = NULL;
	t->n--;
}

struct id_node *id_table__next(const struct id_table *t, size_t *i)
{
	while (*i < t->n_slots)
		if (t->slots[(*i)++].node)
			return t->slots[*i - 1].node;
	return NULL;
}

void id_table__clear(struct id_table *t, void (*release)(struct id_node *node), bool keep_slots)
{
	for (size_t i = 0; i < t->n_slots; i++) {
		struct id_node *node = t->slots[i].node;

		t->slots[i].node = NULL;
		if (node && release)
			release(node);
	}
	t->n = 0;
	if (!keep_slots) {
		free(t->slots);
		t->slots = NULL;
		t->n_slots = 0;
	}
}
