// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tui/path_set.h"

int path_set__init(struct path_set *s)
{
	memset(s, 0, sizeof(*s));
	return hash_index__init(&s->index, 256);
}

#define PATH_ENTRY sizeof(struct path_entry), offsetof(struct path_entry, key)

enum path_state path_set__get(const struct path_set *s, uint64_t key)
{
	uint32_t i = hash_index__find_key64(&s->index, key, s->entries, PATH_ENTRY);

	return i != HASH_NONE ? s->entries[i].state : PATH_UNSET;
}

int path_set__set(struct path_set *s, uint64_t key, enum path_state state)
{
	uint32_t i = hash_index__find_key64(&s->index, key, s->entries, PATH_ENTRY);

	if (i != HASH_NONE) {
		s->entries[i].state = state;
		return 0;
	}
	if (array__grow((void **)&s->entries, &s->cap, s->n + 1, sizeof(*s->entries), 64))
		return -ENOMEM;
	if (hash_index__insert_key64(&s->index, key, s->n, s->entries, PATH_ENTRY))
		return -ENOMEM;
	s->entries[s->n++] = (struct path_entry){ key, state };
	return 0;
}

void path_set__clear(struct path_set *s)
{
	s->n = 0;
	hash_index__clear(&s->index);
}

void path_set__free(struct path_set *s)
{
	free(s->entries);
	hash_index__free(&s->index);
	memset(s, 0, sizeof(*s));
}
