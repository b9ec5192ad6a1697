/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_maps: the BPF maps the user stack walk reads its unwind tables
 * from (see stack_key.h for their layout). They outlive any one capture:
 * each capture's programs are loaded against these maps (capture_opts), so
 * tables loaded once serve every mode.
 *
 * Two threads may use them at once: one loads rules and tables (an update
 * of the array of tables waits for an RCU grace period, 5-15 ms here), the
 * other writes processes. No libbpf type leaks out of here.
 */
#ifndef FLAMETOP_UNWIND_MAPS_H
#define FLAMETOP_UNWIND_MAPS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/stack_key.h"
#include "unwind/unwind_rule.h"

struct unwind_maps;

/* The descriptors of the maps, for a capture to load its programs against. */
struct unwind_maps_fds {
	int tables, rules, pids, procs, mappings;
};

/*
 * unwind_maps__new() makes the maps, with room for @proc_slots processes
 * and for @pool_maps executable mappings of all of them together (a
 * process being replaced holds two slots and two ranges for a while).
 * Returns 0 with *@out set, or -errno.
 */
int unwind_maps__new(uint32_t proc_slots, uint32_t pool_maps, struct unwind_maps **out);

void unwind_maps__fds(const struct unwind_maps *m, struct unwind_maps_fds *fds);

/* Kernel memory the maps take before any table is loaded. */
size_t unwind_maps__fixed_bytes(const struct unwind_maps *m);

/*
 * unwind_maps__add_rules() writes rules @first .. @first + @n - 1 of the
 * dictionary (ids below UNWIND_MAX_RULES). Returns 0 or -E2BIG.
 */
int unwind_maps__add_rules(struct unwind_maps *m, uint32_t first, const struct unwind_rule *rules,
			   uint32_t n);

/* The kernel memory a table of @n rows (sorted by offset) takes once laid out. */
size_t unwind_maps__table_bytes(const struct unwind_row *rows, size_t n);

/*
 * unwind_maps__make_table() lays out @n rows (sorted by offset, as a
 * cfi_table has them) for the walk's search, with generation @gen, in a
 * new map not in use yet. Sets *@bytes to the kernel memory it takes.
 * Returns its fd (for unwind_maps__put_tables(), then to close), or
 * -errno (-E2BIG for a table too large to lay out).
 */
int unwind_maps__make_table(uint16_t gen, const struct unwind_row *rows, size_t n, size_t *bytes);

/*
 * unwind_maps__put_tables() puts the tables @fds in table slots @ids
 * (< UNWIND_MAX_TABLES), @n of them, replacing what was there. One call
 * waits for one RCU grace period however many it puts in. Returns 0 or
 * -errno (then some may be in: their slots are the caller's to drop).
 */
int unwind_maps__put_tables(struct unwind_maps *m, const uint32_t *ids, const int *fds, uint32_t n);

/* unwind_maps__drop_tables() empties table slots @ids, @n of them. Returns 0 or -errno. */
int unwind_maps__drop_tables(struct unwind_maps *m, const uint32_t *ids, uint32_t n);

/*
 * unwind_maps__put_proc() writes process @tgid's @n executable mappings
 * (sorted by start; at most UNWIND_MAX_MAPS: @more says it has more) into a
 * free range of the pool and a free slot, named @tgid's, and points the
 * process there; @old_slot (UNWIND_NO_SLOT if none) is retired: named no
 * process's at once (a walk that remembers the slot looks the process up
 * again), free again with its range two passes later, once no walk can
 * still be reading it. Returns the new slot, or -ENOSPC when no slot is
 * free, -ENOBUFS when no range is, or -errno; then the process is noted as
 * without a slot, and why (UNWIND_PID_SLOTS_FULL, UNWIND_PID_POOL_FULL), for its
 * walks to say.
 */
int64_t unwind_maps__put_proc(struct unwind_maps *m, uint32_t tgid, uint32_t old_slot,
			      const struct unwind_map *maps, uint32_t n, bool more);

/* unwind_maps__drop_proc() forgets process @tgid, retiring its @slot. */
void unwind_maps__drop_proc(struct unwind_maps *m, uint32_t tgid, uint32_t slot);

/* Slots free, and mappings the pool has room for, for stats. */
uint32_t unwind_maps__free_slots(const struct unwind_maps *m);
uint32_t unwind_maps__free_pool(const struct unwind_maps *m);

/* unwind_maps__pass() counts a pass: slots retired two passes ago are free again. */
void unwind_maps__pass(struct unwind_maps *m);

/*
 * A loaded table as the walk reads it, mapped read-only into user space
 * (unwind_maps__view_table()), for walks of copied stacks. Mapped, the
 * table's pages count in flametop's resident memory: a view is for a
 * while (a drain), not for the run.
 */
struct unwind_table_view {
	const struct unwind_row *rows; /* sorted by offset */
	size_t n;
	void *mem; /* the mapping, whole */
	size_t len;
};

/*
 * unwind_maps__view_table() maps the table in slot @id, when it holds
 * generation @gen. Returns 0 with @v filled, -ENOENT when the slot holds
 * no table or another generation, or -errno.
 */
int unwind_maps__view_table(const struct unwind_maps *m, uint32_t id, uint16_t gen,
			    struct unwind_table_view *v);

/* The id of the rule holding at file offset @off of @v's table (UNWIND_RULE_ID_NONE: none). */
uint32_t unwind_table_view__rule_at(const struct unwind_table_view *v, uint64_t off);

/* unwind_table_view__release() unmaps @v; an empty view is a no-op. */
void unwind_table_view__release(struct unwind_table_view *v);

/*
 * unwind_maps__rule() copies rule @id of the dictionary, as the walk reads
 * it, into @r. Returns 0, or -ENOENT for an id past the dictionary.
 */
int unwind_maps__rule(const struct unwind_maps *m, uint32_t id, struct unwind_rule *r);

/* unwind_maps__free(NULL) is a no-op. */
void unwind_maps__free(struct unwind_maps *m);

#endif
