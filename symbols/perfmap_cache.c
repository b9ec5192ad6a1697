// SPDX-License-Identifier: GPL-2.0
/*
 * perfmap_cache: slots live in their owners' entries; the cache only links
 * those that hold a map into one LRU list counted in bytes.
 */
#include "symbols/perfmap_cache.h"

#include <errno.h>
#include <string.h>

void perf_map_cache__init(struct perf_map_cache *c, size_t max_bytes)
{
	memset(c, 0, sizeof(*c));
	lru__init(&c->maps);
	c->max_bytes = max_bytes;
}

static struct perf_map_slot *perf_map_slot__of(struct lru_node *node)
{
	return lru_entry(node, struct perf_map_slot, lru);
}

/*
 * Drops the map of @slot for the budget, in which it needs @bytes: it is
 * read again once there is room for them.
 */
static void perf_map_cache__drop(struct perf_map_cache *c, struct perf_map_slot *slot, size_t bytes)
{
	slot->dropped_bytes = bytes;
	lru__remove(&c->maps, &slot->lru);
	perf_map__free(slot->map);
	slot->map = NULL;
	memset(&slot->id, 0, sizeof(slot->id)); /* whatever the file is now, it is read */
	c->dropped++;
}

/*
 * Puts @fresh (at most the whole budget) in @slot, in place of its map,
 * and makes room for it.
 */
static void perf_map_cache__install(struct perf_map_cache *c, struct perf_map_slot *slot,
				    struct perf_map *fresh)
{
	struct lru_node *old;

	lru__remove(&c->maps, &slot->lru);
	perf_map__free(slot->map);
	slot->map = fresh;
	slot->dropped_bytes = 0;
	lru__add(&c->maps, &slot->lru, perf_map__bytes(fresh));
	while (c->maps.bytes > c->max_bytes && (old = lru__oldest(&c->maps)) != NULL &&
	       old != &slot->lru)
		perf_map_cache__drop(c, perf_map_slot__of(old), old->bytes);
}

/* Whether @slot's file may be looked at in @pass. */
static bool perf_map_cache__may_look(const struct perf_map_cache *c,
				     const struct perf_map_slot *slot, uint64_t pass)
{
	if (slot->looked_pass == pass || pass < slot->next_pass)
		return false;
	return !slot->dropped_bytes || c->maps.bytes + slot->dropped_bytes <= c->max_bytes;
}

/* Counts a re-read at @pass: one that named what missed (@named) lets the next come soon. */
static void perf_map_slot__count_read(struct perf_map_slot *slot, uint64_t pass, bool named)
{
	if (named || !slot->backoff)
		slot->backoff = 1;
	else if (slot->backoff < PERF_MAP_BACKOFF_MAX)
		slot->backoff *= 2;
	slot->next_pass = pass + slot->backoff;
}

const char *perf_map_cache__lookup(struct perf_map_cache *c, struct perf_map_slot *slot,
				   const char *proc_root, uint32_t pid, uint64_t addr,
				   uint64_t pass, bool *changed)
{
	const char *name = perf_map_slot__name(slot, addr);
	struct perf_map *fresh;
	int err;

	if (name) {
		lru__touch(&c->maps, &slot->lru);
		return name;
	}
	if (!perf_map_cache__may_look(c, slot, pass))
		return NULL;
	slot->looked_pass = pass;
	err = perf_map__open(proc_root, pid, &slot->id, c->max_bytes, &fresh);
	if (err == -ENOSPC) {
		/* Larger than the whole budget: read no further, and dropped. */
		c->reads++;
		*changed = slot->map != NULL;
		perf_map_cache__drop(c, slot, c->max_bytes + 1);
		return NULL;
	}
	if (err)
		return NULL; /* unchanged, gone or refused: what was read stays */
	c->reads++;
	name = perf_map__lookup(fresh, addr);
	perf_map_slot__count_read(slot, pass, name != NULL);
	perf_map_cache__install(c, slot, fresh);
	*changed = true;
	return name;
}

const char *perf_map_slot__name(const struct perf_map_slot *slot, uint64_t addr)
{
	return slot->map ? perf_map__lookup(slot->map, addr) : NULL;
}

bool perf_map_slot__covers(const struct perf_map_slot *slot, uint64_t start, uint64_t end)
{
	return slot->map && perf_map__covers(slot->map, start, end);
}

void perf_map_cache__clear(struct perf_map_cache *c, struct perf_map_slot *slot)
{
	lru__remove(&c->maps, &slot->lru);
	perf_map__free(slot->map);
	memset(slot, 0, sizeof(*slot));
}
