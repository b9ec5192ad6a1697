// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/hash_index.h"
#include "profile/strtab.h"

#define CHUNK_BYTES (64 * 1024)

struct str_entry {
	const char *s;
	uint32_t len;
};

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct strtab {
	struct str_entry *entries;
	size_t n, cap;
	struct hash_index index;
	struct chunk *chunks;
	size_t bytes;
};

struct strtab *strtab__new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (hash_index__init(&t->index, 1024)) {
		free(t);
		return NULL;
	}
	return t;
}

/* Copies @len bytes plus a NUL into the arena; NULL when out of memory. */
static const char *store(struct strtab *t, const char *s, size_t len)
{
	struct chunk *c = t->chunks;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_BYTES ? len + 1 : CHUNK_BYTES;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->size = size;
		t->chunks = c;
		t->bytes += sizeof(*c) + size;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

struct probe {
	const struct strtab *t;
	const char *s;
	size_t len;
};

static bool same_string(const void *ctx, uint32_t id)
{
	const struct probe *p = ctx;
	const struct str_entry *e = &p->t->entries[id];

	return e->len == p->len && memcmp(e->s, p->s, p->len) == 0;
}

static uint64_t rehash_string(const void *ctx, uint32_t id)
{
	const struct strtab *t = ctx;

	return hash_bytes(t->entries[id].s, t->entries[id].len);
}

uint32_t strtab__intern(struct strtab *t, const char *s, size_t len)
{
	struct probe probe = { t, s, strnlen(s, len) };
	uint64_t hash = hash_bytes(s, probe.len);
	struct hash_slot *slot = hash_index__find(&t->index, hash, same_string, &probe);
	const char *copy;

	if (slot->entry1)
		return slot->entry1 - 1;
	if (t->n == t->cap) {
		size_t old_cap = t->cap;

		if (array__grow((void **)&t->entries, &t->cap, t->n + 1, sizeof(*t->entries), 1024))
			return STRTAB_NONE;
		t->bytes += (t->cap - old_cap) * sizeof(*t->entries);
	}
	copy = store(t, s, probe.len);
	if (!copy)
		return STRTAB_NONE;
	/* The entry must exist before the insert: growing rehashes it. */
	t->entries[t->n] = (struct str_entry){ copy, probe.len };
	if (hash_index__insert(&t->index, hash, t->n, rehash_string, t))
		return STRTAB_NONE;
	return t->n++;
}

const char *strtab__str(const struct strtab *t, uint32_t id)
{
	return t->entries[id].s;
}

size_t strtab__len(const struct strtab *t, uint32_t id)
{
	return t->entries[id].len;
}

size_t strtab__count(const struct strtab *t)
{
	return t->n;
}

size_t strtab__bytes(const struct strtab *t)
{
	return t->bytes + (t->index.mask + 1) * sizeof(struct hash_slot);
}

void strtab__free(struct strtab *t)
{
	if (!t)
		return;
	while (t->chunks) {
		struct chunk *next = t->chunks->next;

		free(t->chunks);
		t->chunks = next;
	}
	hash_index__free(&t->index);
	free(t->entries);
	free(t);
}
