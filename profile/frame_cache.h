/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_cache: the frames an input has named so far, by their raw text. A
 * file repeats the same few thousand frames millions of times, so a reader
 * sanitizes and interns each distinct text once, and afterwards finds its
 * frame id by one hash lookup of the text. Texts are kept apart by a class
 * the reader chooses (a process name and a function of the same text are
 * different frames).
 */
#ifndef FLAMETOP_FRAME_CACHE_H
#define FLAMETOP_FRAME_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/strtab.h"

#define FRAME_CACHE_CLASSES 3

struct frame_cache {
	struct strtab *text[FRAME_CACHE_CLASSES]; /* raw text -> raw id */
	uint32_t *frame[FRAME_CACHE_CLASSES];     /* raw id -> frame id */
	size_t cap[FRAME_CACHE_CLASSES];
};

/* frame_cache__init() makes an empty cache; returns 0 or -ENOMEM. */
int frame_cache__init(struct frame_cache *fc);

/*
 * frame_cache__slot() returns where the frame id of the @len bytes at @s in
 * class @cls (< FRAME_CACHE_CLASSES) is kept: PROFILE_NONE the first time,
 * for the caller to fill in. NULL when out of memory. The pointer is valid
 * until the next call.
 */
uint32_t *frame_cache__slot(struct frame_cache *fc, unsigned int cls, const char *s, size_t len);

/* frame_cache__free() frees the cache; it must be initialized again before reuse. */
void frame_cache__free(struct frame_cache *fc);

#endif
