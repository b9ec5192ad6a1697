// SPDX-License-Identifier: GPL-2.0
/*
 * path_pool: each copy carries its count and its key in the pool's table
 * ({hash of its bytes, length}); a copy whose key another copy holds
 * already (a hash collision) lives outside the table, counted alike.
 */
#include "symbols/path_pool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "symbols/id_table.h"

struct pooled_path {
	struct id_node node; /* {hash, length} */
	uint32_t refs;
	bool indexed; /* in the table (not a collision's copy) */
	char s[];
};

struct path_pool {
	struct id_table paths;
	size_t copies; /* indexed or not */
};

static struct pooled_path *pooled_of(const char *path)
{
	return (struct pooled_path *)(path - offsetof(struct pooled_path, s));
}

struct path_pool *path_pool__new(void)
{
	return calloc(1, sizeof(struct path_pool));
}

const char *path_pool__get(struct path_pool *pp, const char *s, size_t len)
{
	uint64_t hash = hash_bytes(s, len);
	struct pooled_path *p = (struct pooled_path *)id_table__find(&pp->paths, hash, len);
	bool key_taken = p != NULL; /* by these bytes, or (a collision) by others */

	if (key_taken && !memcmp(p->s, s, len)) {
		p->refs++;
		return p->s;
	}
	p = malloc(sizeof(*p) + len + 1);
	if (!p)
		return NULL;
	p->node.key[0] = hash;
	p->node.key[1] = len;
	p->refs = 1;
	pp->copies++;
	memcpy(p->s, s, len);
	p->s[len] = '\0';
	/* Unindexed when another holds the key, or the table can't grow: counted alike. */
	p->indexed = !key_taken && !id_table__insert(&pp->paths, &p->node);
	return p->s;
}

const char *path_pool__ref(const char *path)
{
	pooled_of(path)->refs++;
	return path;
}

void path_pool__put(struct path_pool *pp, const char *path)
{
	struct pooled_path *p;

	if (!path)
		return;
	p = pooled_of(path);
	if (--p->refs)
		return;
	if (p->indexed)
		id_table__remove(&pp->paths, &p->node);
	pp->copies--;
	free(p);
}

size_t path_pool__count(const struct path_pool *pp)
{
	return pp->copies;
}

void path_pool__free(struct path_pool *pp)
{
	if (!pp)
		return;
	id_table__clear(&pp->paths, NULL, false);
	free(pp);
}
