/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmap_cache: the perf maps of every process (perfmap.h), under one
 * budget of bytes. A process's map is read when an address of its JIT code
 * is not named, and read again only when its file changed (inode, size,
 * modification time); re-reads that name nothing wait longer each time.
 * Past the budget the least recently used maps are dropped, and counted.
 * Each process has a slot, kept in its own entry by the caller.
 */
#ifndef FLAMETOP_PERFMAP_CACHE_H
#define FLAMETOP_PERFMAP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/lru.h"
#include "symbols/perfmap.h"

/* Passes a re-read that named nothing waits at most before the next. */
#define PERF_MAP_BACKOFF_MAX 16

/* One process's perf map. All zeros is an empty slot. */
struct perf_map_slot {
	struct lru_node lru;	/* on the cache's list while it holds a map */
	struct perf_map *map;	/* NULL: none read, or dropped */
	struct perf_map_id id;	/* the version of the file read last; zeros: none */
	size_t dropped_bytes;	/* what the map needs, dropped for the budget; 0: not dropped */
	uint64_t looked_pass;	/* the pass the file was last looked at */
	uint64_t next_pass;	/* no look before this pass ... */
	uint64_t backoff;	/* ... set this many passes after a re-read that named nothing */
};

struct perf_map_cache {
	struct lru maps; /* slots holding a map, by last use; bytes: the maps' */
	size_t max_bytes;
	uint64_t reads;	  /* files read (parsed), first reads and re-reads */
	uint64_t dropped; /* maps dropped to keep within the budget */
};

/* perf_map_cache__init() makes @c empty, with a budget of @max_bytes. */
void perf_map_cache__init(struct perf_map_cache *c, size_t max_bytes);

/*
 * perf_map_cache__lookup() returns the name of @addr in the perf map of
 * process @pid held in @slot, or NULL. On a miss the file is looked at
 * (perf_map__open(), through @proc_root) at most once per pass (@pass, the
 * caller's clock) and read when it changed since it was read, unless a
 * re-read that named nothing holds it off (2, 4, ... PERF_MAP_BACKOFF_MAX
 * passes). A file that cannot be read keeps the map read before. A map read
 * in takes its place under the budget: the least recently used maps of
 * other slots are dropped to make room. A map larger than the whole budget
 * is read only until it passes it (perf_map__read()), and dropped with
 * the map the slot held; a dropped map is read again (on a miss) only
 * once the budget has room for it, one larger than the budget never. *@changed is set to true
 * when the map of @slot was replaced (the names it gives may differ). The
 * name lives until the slot's map is replaced or dropped.
 */
const char *perf_map_cache__lookup(struct perf_map_cache *c, struct perf_map_slot *slot,
				   const char *proc_root, uint32_t pid, uint64_t addr,
				   uint64_t pass, bool *changed);

/* The name of @addr in the map @slot holds now, or NULL; reads nothing. */
const char *perf_map_slot__name(const struct perf_map_slot *slot, uint64_t addr);

/* True when the map @slot holds has an entry starting in [@start, @end). */
bool perf_map_slot__covers(const struct perf_map_slot *slot, uint64_t start, uint64_t end);

/* perf_map_cache__clear() frees the map of @slot and makes it empty. */
void perf_map_cache__clear(struct perf_map_cache *c, struct perf_map_slot *slot);

#endif
