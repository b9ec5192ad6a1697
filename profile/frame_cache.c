// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/frame_cache.h"
#include "profile/hash_index.h"
#include "profile/profile.h"

#define FIRST_SLOTS 4096
#define TEXT_HEAD 5 /* a text's length (4 bytes) and class (1) before its bytes */

int frame_cache__init(struct frame_cache *fc)
{
	memset(fc, 0, sizeof(*fc));
	fc->slots = calloc(FIRST_SLOTS, sizeof(*fc->slots));
	if (!fc->slots)
		return -ENOMEM;
	fc->mask = FIRST_SLOTS - 1;
	fc->text_len = 1; /* offset 0 marks an empty slot */
	return 0;
}

void frame_cache__free(struct frame_cache *fc)
{
	free(fc->slots);
	free(fc->text);
	memset(fc, 0, sizeof(*fc));
}

/* The 8 bytes at @p. */
static uint64_t word_at(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * Is the text at @at the @len bytes at @s, of class @cls? Compared 8 bytes
 * at a time, the last word ending with the text (texts are short: a call
 * to memcmp() costs more than the comparison).
 */
static bool same_text(const struct frame_cache *fc, uint32_t at, unsigned int cls, const char *s,
		      size_t len)
{
	const char *t = fc->text + at + TEXT_HEAD;
	uint32_t n;

	memcpy(&n, t - TEXT_HEAD, sizeof(n));
	if (n != len || (unsigned char)t[-1] != cls)
		return false;
	if (len < 8)
		return memcmp(t, s, len) == 0;
	for (size_t i = 0; i + 8 < len; i += 8) {
		if (word_at(t + i) != word_at(s + i))
			return false;
	}
	return word_at(t + len - 8) == word_at(s + len - 8);
}

/* Doubles the slots, each going where its hash says; 0 or -ENOMEM. */
static int grow(struct frame_cache *fc)
{
	size_t n = (fc->mask + 1) * 2;
	struct frame_cache_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i <= fc->mask; i++) {
		size_t j = fc->slots[i].hash & (n - 1);

		if (!fc->slots[i].at)
			continue;
		while (slots[j].at)
			j = (j + 1) & (n - 1);
		slots[j] = fc->slots[i];
	}
	free(fc->slots);
	fc->slots = slots;
	fc->mask = n - 1;
	return 0;
}

/* Keeps a copy of the text; returns where it is, or 0 when out of memory. */
static uint32_t keep_text(struct frame_cache *fc, unsigned int cls, const char *s, size_t len)
{
	size_t at = fc->text_len;
	uint32_t n = (uint32_t)len;

	if (at + TEXT_HEAD + len > UINT32_MAX ||
	    array__grow((void **)&fc->text, &fc->text_cap, at + TEXT_HEAD + len, 1, 1 << 16))
		return 0;
	memcpy(fc->text + at, &n, sizeof(n));
	fc->text[at + 4] = (char)cls;
	memcpy(fc->text + at + TEXT_HEAD, s, len);
	fc->text_len += TEXT_HEAD + len;
	return (uint32_t)at;
}

void frame_cache__prefetch(const struct frame_cache *fc, uint64_t hash)
{
	__builtin_prefetch(&fc->slots[hash & fc->mask]);
}

uint32_t *frame_cache__slot(struct frame_cache *fc, unsigned int cls, const char *s, size_t len)
{
	return frame_cache__slot_hashed(fc, cls, s, len,
					hash_bytes(s, len) ^ (cls + 1) * 0x9E3779B97F4A7C15ull);
}

/* Adds the text to the cache, in @slot (empty, where a lookup of @hash ended); NULL when out of
 * memory. */
static uint32_t *add_text(struct frame_cache *fc, struct frame_cache_slot *slot, unsigned int cls,
			  const char *s, size_t len, uint64_t hash)
{
	/* At most half the slots used, so that probes stay short. */
	if ((fc->used + 1) * 2 > fc->mask + 1) {
		size_t i;

		if (grow(fc))
			return NULL;
		for (i = hash & fc->mask; fc->slots[i].at; i = (i + 1) & fc->mask)
			;
		slot = &fc->slots[i];
	}
	*slot = (struct frame_cache_slot){
	    .hash = hash, .at = keep_text(fc, cls, s, len), .frame = PROFILE_NONE};
	if (!slot->at)
		return NULL;
	fc->used++;
	return &slot->frame;
}

uint32_t *frame_cache__slot_hashed(struct frame_cache *fc, unsigned int cls, const char *s,
				   size_t len, uint64_t hash)
{
	for (size_t i = hash & fc->mask;; i = (i + 1) & fc->mask) {
		struct frame_cache_slot *slot = &fc->slots[i];

		if (!slot->at)
			return add_text(fc, slot, cls, s, len, hash);
		if (slot->hash == hash && same_text(fc, slot->at, cls, s, len))
			return &slot->frame;
	}
}
