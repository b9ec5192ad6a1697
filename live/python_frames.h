/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_frames: a drained stack's Python frames, as the profile's frames,
 * merged with its native ones (python/merge.h). A Python frame is named by
 * python_procs once per (process, naming generation, code object, tag,
 * instruction) and reused while that generation lasts; a placeholder ("[python:
 * code object gone]") only within the drain that made it.
 */
#ifndef FLAMETOP_PYTHON_FRAMES_H
#define FLAMETOP_PYTHON_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/capture.h"
#include "live/python_procs.h"
#include "profile/profile.h"

/* The most frames python_frames__merge() adds to a stack's native ones ... */
#define PYTHON_FRAMES_MAX (PY_MAX_DEPTH + 1)
/* ... and the most native user frames it takes (a walk's and two placeholders). */
#define PYTHON_NATIVE_MAX (MAX_STACK_DEPTH + 2)

struct python_frames;

/* python_frames__new() names with @pp into @prof (both borrowed). NULL when out of memory. */
struct python_frames *python_frames__new(struct python_procs *pp, struct profile *prof);

/* python_frames__begin_drain() starts a drain: placeholders named before are named again. */
void python_frames__begin_drain(struct python_frames *pf);

/*
 * python_frames__merge() puts the Python frames of @st (st->pywords) in
 * place among its native user frames: the @n frame ids at @frames,
 * outermost first, and their sites at @sites (name_cache__stack()'s),
 * which it rewrites alike (room for @n + PYTHON_FRAMES_MAX); a Python
 * frame's site is ADDR_NONE. @native_cut says that the native walk stopped
 * short. Returns the new count (@n when @st has no Python frames).
 */
uint32_t python_frames__merge(struct python_frames *pf, const struct capture_stack *st,
			      uint32_t *frames, uint32_t *sites, uint32_t n, bool native_cut);

/* python_frames__free(NULL) is a no-op. */
void python_frames__free(struct python_frames *pf);

#endif
