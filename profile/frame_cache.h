/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_cache: the frames an input has named so far, by their raw text. A
 * file repeats the same few thousand frames millions of times, so a reader
 * sanitizes and interns each distinct text once, and afterwards finds its
 * frame id by one hash lookup of the text. Texts are kept apart by a class
 * the reader chooses (a process name and a function of the same text are
 * different frames).
 *
 * It is the hottest lookup of a reader (once per frame of every line), so
 * it is one table of its own: each slot holds the text's whole hash and the
 * frame id, so a lookup reads one slot and compares one text.
 */
#ifndef FLAMETOP_FRAME_CACHE_H
#define FLAMETOP_FRAME_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_CACHE_CLASSES 3

struct frame_cache_slot {
	uint64_t hash;	/* of the text and its class */
	uint32_t at;	/* where the text is in frame_cache.text; 0 marks an empty slot */
	uint32_t frame; /* its frame id, or PROFILE_NONE until the reader sets it */
};

struct frame_cache {
	struct frame_cache_slot *slots;
	size_t mask, used; /* slots - 1 (a power of two less one), slots used */
	char *text;	   /* each text: its length (4 bytes), its class (1), its bytes */
	size_t text_len, text_cap;
};

/* frame_cache__init() makes an empty cache; returns 0 or -ENOMEM. */
int frame_cache__init(struct frame_cache *fc);

/*
 * frame_cache__slot() returns where the frame id of the @len bytes at @s in
 * class @cls (< FRAME_CACHE_CLASSES) is kept: PROFILE_NONE the first time,
 * for the caller to fill in. NULL when out of memory. The pointer is valid
 * until the next call. (A cache is looked up with this or with
 * frame_cache__slot_hashed() below, never both.)
 */
uint32_t *frame_cache__slot(struct frame_cache *fc, unsigned int cls, const char *s, size_t len);

/*
 * For a reader with many texts to look up at once (a line's frames): a
 * hash of each first (the reader's own function of the text's bytes, the
 * same for every lookup in the cache; texts of two classes may share one)
 * and frame_cache__prefetch() of each, to ask memory for the slot it would
 * be in; then frame_cache__slot_hashed() for each: the waits for memory
 * overlap.
 */
void frame_cache__prefetch(const struct frame_cache *fc, uint64_t hash);
uint32_t *frame_cache__slot_hashed(struct frame_cache *fc, unsigned int cls, const char *s,
				   size_t len, uint64_t hash);

/* frame_cache__free() frees the cache; it must be initialized again before reuse. */
void frame_cache__free(struct frame_cache *fc);

#endif
