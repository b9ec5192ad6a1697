/* SPDX-License-Identifier: GPL-2.0 */
/*
 * name_cache: the names of drained stacks, in front of the symbolizer. A
 * drained stack becomes the profile's frames: its process, its user frames
 * outermost first (after "[truncated]" when the walk stopped short of the
 * start code; such a stack keeps only the frames up to the first return
 * address outside the process's code), its kernel frames, and
 * placeholders saying why a side is missing. A name is asked of the symbolizer once and reused while the
 * symbolizer's generation for its process (or the kernel) lasts; a
 * placeholder ("lib+0x1f", "[unknown]") only within the drain that made it.
 */
#ifndef FLAMETOP_NAME_CACHE_H
#define FLAMETOP_NAME_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/capture.h"
#include "live/python_frames.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

/* The most frames name_cache__stack() writes. */
#define NAME_CACHE_MAX_FRAMES (3 + 2 * (MAX_STACK_DEPTH + 1) + PYTHON_FRAMES_MAX)

struct name_cache;

/*
 * name_cache__new() names frames with @sym into @prof (both borrowed), and
 * finds their sites in @prof's address store when it keeps one.
 * With @traced the events come from a tracing hook, whose own kernel
 * frames (the BPF program, the tracepoint) are cut from the kernel stacks.
 * NULL when out of memory.
 */
struct name_cache *name_cache__new(struct symbolizer *sym, struct profile *prof, bool traced);

/*
 * name_cache__set_python() merges the Python frames of the stacks named
 * from now on with @pf (borrowed; NULL: none), in place of the
 * interpreter's frames that run them.
 */
void name_cache__set_python(struct name_cache *nc, struct python_frames *pf);

/*
 * name_cache__begin_drain() starts a drain: placeholders named before are
 * asked again. When the cache has grown, the names of the processes @gone
 * (with @ctx) says have exited are dropped; beyond its limit it starts over.
 */
void name_cache__begin_drain(struct name_cache *nc, profile_gone_fn *gone, void *ctx);

/*
 * name_cache__stack() writes the frame ids of @st into @frames and each
 * one's site in the profile's address store (profile__addresses(); ADDR_NONE
 * without one, or for a frame without an address) into @sites, both with
 * room for NAME_CACHE_MAX_FRAMES, and returns their number, or 0 when even
 * its process frame could not be made.
 */
uint32_t name_cache__stack(struct name_cache *nc, const struct capture_stack *st, uint32_t *frames,
			   uint32_t *sites);

/* How many addresses the cache names now. */
size_t name_cache__names(const struct name_cache *nc);

/* name_cache__free(NULL) is a no-op. */
void name_cache__free(struct name_cache *nc);

#endif
