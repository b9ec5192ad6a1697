/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hash: the fast 64-bit hashes every layer's tables use, of bytes and of
 * 32-bit words. Not keyed: anyone naming things can make two with one hash,
 * so a table compares what it finds, never trusts the hash alone. Like
 * array.h, below every layer; it knows nothing but the C library.
 */
#ifndef FLAMETOP_HASH_H
#define FLAMETOP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_MIX 0x9E3779B97F4A7C15ull

/* The last mixing of either hash, so that every bit of the state reaches the low bits. */
static inline uint64_t hash_fold(uint64_t h)
{
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return h;
}

/* hash_bytes() hashes the @n bytes at @p. */
static inline uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = (0xCBF29CE484222325ull ^ n) * HASH_MIX; /* mixed: a short tail cannot undo it */

	for (; n >= 8; n -= 8, s += 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = (h ^ w) * HASH_MIX;
		h ^= h >> 32;
	}
	if (n) {
		/*
		 * The last 1 to 7 bytes, read in whole words (two that may overlap,
		 * or three bytes): a copy byte by byte to a word on the stack would
		 * wait for the bytes stored before the word can be read back.
		 */
		uint64_t w;

		if (n >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			w = (uint64_t)hi << 32 | lo;
		} else {
			w = (uint64_t)s[0] << 16 | (uint64_t)s[n / 2] << 8 | s[n - 1];
		}
		h = (h ^ w) * HASH_MIX;
	}
	return hash_fold(h);
}

/* hash_words() hashes the @n 32-bit words at @w, starting from @seed. */
static inline uint64_t hash_words(const uint32_t *w, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ (n * HASH_MIX);
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		h = (h ^ ((uint64_t)w[i] | (uint64_t)w[i + 1] << 32)) * HASH_MIX;
		h ^= h >> 32;
	}
	if (i < n)
		h = (h ^ w[i]) * HASH_MIX;
	return hash_fold(h);
}

#endif
