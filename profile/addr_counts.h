/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr_counts: where inside each function the samples were. For a frame
 * (a function in an object) it counts the exact addresses samples landed
 * at (self) and the call sites stacks passed through (calls: the return
 * address of each frame but the leaf, kept as the address of the call
 * instruction's last byte, return address - 1), by site: (frame, module,
 * address). The annotate view reads them against the code's line table
 * and instructions.
 *
 * A module (addr_module.h) is where a site's address means something: a
 * mapped file, a process's own memory or the kernel.
 *
 * A function is counted once per stack, at its innermost site: a
 * recursive function passes through its call sites many times in a
 * stack, its time does once, so that its sites' counts add up to the
 * stacks through it (the tree's Total).
 * Counts are cumulative, since addr_counts__new() or addr_counts__reset(),
 * and saturate as every count does (count__add()). The store is bounded
 * as the profile is (addr_counts__fold()): beyond its limit the least
 * counted sites of a function fold into one site of it whose address is
 * ADDR_FOLDED, so that a function's count stays whole.
 */
#ifndef FLAMETOP_ADDR_COUNTS_H
#define FLAMETOP_ADDR_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/addr_module.h"

#define ADDR_NONE UINT32_MAX   /* no site, no module */

/* A site and its counts, as addr_counts__site_at() gives it. */
struct addr_site {
	uint64_t addr;	 /* see the top; ADDR_FOLDED for a function's folded sites */
	uint32_t frame;	 /* the profile's frame id */
	uint32_t module; /* addr_counts__module_info() */
	uint64_t self;	 /* samples whose leaf was here */
	uint64_t calls;	 /* stacks through a call here */
};

struct addr_counts;

/* addr_counts__new() returns an empty store, or NULL when out of memory. */
struct addr_counts *addr_counts__new(void);

/*
 * addr_counts__module() returns the id of module @m: the same file
 * (dev, inode), the same process's mapping (tgid, start) or the kernel
 * always give the same id. A module known already takes @m's process and
 * mapping, so that it names one that ran last. Returns ADDR_NONE when out
 * of memory. Ids change at addr_counts__gen()'s changes.
 */
uint32_t addr_counts__module(struct addr_counts *c, const struct addr_module *m);

/*
 * addr_counts__module_info() returns module @id (its path valid until the
 * next change of addr_counts__gen()), or NULL for an unknown id.
 */
const struct addr_module *addr_counts__module_info(const struct addr_counts *c, uint32_t id);

/*
 * addr_counts__site() returns the id of the site (@frame, @module, @addr),
 * made with no counts on first sight, or ADDR_NONE when out of memory. Ids
 * stay until addr_counts__gen() changes.
 */
uint32_t addr_counts__site(struct addr_counts *c, uint32_t frame, uint32_t module, uint64_t addr);

/*
 * addr_counts__gen() changes whenever site and module ids change
 * (addr_counts__fold(), addr_counts__renumber_frames(), addr_counts__reset()):
 * ids kept from before must be asked for again.
 */
uint64_t addr_counts__gen(const struct addr_counts *c);

/*
 * addr_counts__add() counts one stack of @count: @frames[i] is its frame i
 * and @sites[i] that frame's site (ADDR_NONE: none), the leaf's at @leaf
 * counted as self, the others as calls; @leaf == @n counts every site as a
 * call (events that are no sample of where the code was: reads, waits).
 * Each function is counted once, at its site nearest the leaf.
 */
void addr_counts__add(struct addr_counts *c, const uint32_t *frames, const uint32_t *sites,
		      uint32_t n, uint32_t leaf, uint64_t count);

/* Number of sites; every site id is below it. */
size_t addr_counts__nsites(const struct addr_counts *c);

/*
 * addr_counts__site_at() fills @out with site @id: its counts as they
 * were at the last addr_counts__freeze() while frozen (0 for a site made
 * since), else as they are.
 */
void addr_counts__site_at(const struct addr_counts *c, uint32_t id, struct addr_site *out);

/*
 * addr_counts__freeze() takes a still picture of the counts (the profile's
 * own, profile__freeze()); addr_counts__thaw() lets them show again as they
 * are. Counting goes on meanwhile. The picture moves with the sites when
 * they fold.
 */
void addr_counts__freeze(struct addr_counts *c);
void addr_counts__thaw(struct addr_counts *c);

/*
 * addr_counts__fold() keeps the store within @max_sites sites (0: no
 * limit): when it holds more, the least counted sites of each function
 * fold into the function's ADDR_FOLDED site of their module until 3/4 of
 * @max_sites are left, and where the functions alone are too many, the
 * least counted functions' folded sites go (their counts are then only in
 * addr_counts__dropped()). Modules no site uses go too. Returns the number
 * of sites folded away, or -ENOMEM with the store as it was.
 */
long addr_counts__fold(struct addr_counts *c, size_t max_sites);

/* Self and call counts of sites dropped whole by addr_counts__fold(). */
uint64_t addr_counts__dropped(const struct addr_counts *c);

/*
 * addr_counts__renumber_frames() follows the profile's renumbering of its
 * frames: @map[old id] is the new id, or UINT32_MAX for a frame dropped
 * (its sites go); ids at or past @n are dropped.
 */
void addr_counts__renumber_frames(struct addr_counts *c, const uint32_t *map, size_t n);

/* addr_counts__reset() forgets every site and module (profile__reset()). */
void addr_counts__reset(struct addr_counts *c);

/* Approximate heap bytes held. */
size_t addr_counts__bytes(const struct addr_counts *c);

/* addr_counts__free(NULL) is a no-op. */
void addr_counts__free(struct addr_counts *c);

#endif
