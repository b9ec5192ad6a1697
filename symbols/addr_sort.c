// SPDX-License-Identifier: GPL-2.0
/*
 * addr_sort: a least-significant-digit radix sort of (address, index) pairs,
 * one pass per byte in which the addresses differ (three or four for a
 * library or the kernel), then the comparator picks one of each run of
 * equal addresses.
 */
#include "symbols/addr_sort.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct keyed {
	uint64_t key;
	size_t idx;
};

struct ties {
	const char *base;
	size_t size;
	int (*cmp)(const void *, const void *, void *);
	void *arg;
};

static uint64_t key_of(const char *base, size_t size, size_t key_offset, size_t i)
{
	uint64_t key;

	memcpy(&key, base + i * size + key_offset, sizeof(key));
	return key;
}

/* Does @x go before @y, both of one key? The caller's comparator, then position. */
static bool keyed__before(const struct keyed *x, const struct keyed *y, const struct ties *t)
{
	int c = t->cmp(t->base + x->idx * t->size, t->base + y->idx * t->size, t->arg);

	return c ? c < 0 : x->idx < y->idx;
}

/* Sorts @a (@n pairs) by key, using @tmp (room for @n); returns the one holding the result. */
static struct keyed *radix_sort(struct keyed *a, struct keyed *tmp, size_t n)
{
	uint64_t differ = 0;
	size_t i;

	for (i = 1; i < n; i++)
		differ |= a[i].key ^ a[0].key;
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {0}, pos = 0;
		struct keyed *swap;

		if (!((differ >> shift) & 0xff))
			continue;
		for (i = 0; i < n; i++)
			count[(a[i].key >> shift) & 0xff]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(a[i].key >> shift) & 0xff]++] = a[i];
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

/*
 * The preferred element of each run of equal keys in the sorted @a (@n
 * pairs), moved to the front in key order; returns how many. Only the first
 * of a run is kept, so the rest of it is never ordered: one pass picks it.
 */
static size_t pick_preferred(struct keyed *a, size_t n, const struct ties *t)
{
	size_t kept = 0;

	for (size_t i = 0, j; i < n; i = j) {
		size_t best = i;

		for (j = i + 1; j < n && a[j].key == a[i].key; j++)
			if (keyed__before(&a[j], &a[best], t))
				best = j;
		a[kept++] = a[best];
	}
	return kept;
}

/* Keeps the first of each run of equal keys in the sorted @base, in place; returns how many. */
static size_t keep_first(char *base, size_t n, size_t size, size_t key_offset)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (kept && key_of(base, size, key_offset, kept - 1) == key_of(base, size, key_offset, i))
			continue;
		if (kept != i)
			memcpy(base + kept * size, base + i * size, size);
		kept++;
	}
	return kept;
}

/*
 * Sorts @base by radix and keeps the first element of each key, in place;
 * returns how many, or -1 when there is no memory for its buffers (@base
 * is then untouched). The pairs' second buffer is freed before the copy's
 * is taken, so that at most two of the three are held at once.
 */
static long sort_by_radix(char *base, size_t n, size_t size, size_t key_offset, struct ties *t)
{
	struct keyed *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp)), *sorted;
	size_t i, kept;
	char *out;

	if (!a || !tmp) {
		free(a);
		free(tmp);
		return -1;
	}
	for (i = 0; i < n; i++)
		a[i] = (struct keyed){ key_of(base, size, key_offset, i), i };
	sorted = radix_sort(a, tmp, n);
	free(sorted == a ? tmp : a);
	kept = pick_preferred(sorted, n, t);
	out = malloc(kept * size);
	if (!out) {
		free(sorted);
		return -1;
	}
	for (i = 0; i < kept; i++)
		memcpy(out + i * size, base + sorted[i].idx * size, size);
	memcpy(base, out, kept * size);
	free(out);
	free(sorted);
	return (long)kept;
}

size_t addr_sort__unique(void *base, size_t n, size_t size, size_t key_offset,
			 int (*cmp)(const void *, const void *, void *), void *arg)
{
	struct ties t = { base, size, cmp, arg };
	long kept = -1;

	if (n < 2)
		return n;
	if (n <= SIZE_MAX / size && n <= SIZE_MAX / sizeof(struct keyed))
		kept = sort_by_radix(base, n, size, key_offset, &t);
	if (kept >= 0)
		return (size_t)kept;
	qsort_r(base, n, size, cmp, arg);
	return keep_first(base, n, size, key_offset);
}
