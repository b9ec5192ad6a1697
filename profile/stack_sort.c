// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "profile/stack_sort.h"

/* Groups smaller than this are sorted by insertion. */
#define SMALL_GROUP 8
/* How far ahead read_digits() asks for a stack's frames. */
#define PREFETCH_AHEAD 64

/* Compares @a and @b, whose first @d frames are the same. */
static int compare_from(const struct stack_key *a, const struct stack_key *b, uint32_t d)
{
	uint32_t n = a->n < b->n ? a->n : b->n;

	for (; d < n; d++) {
		if (a->frames[d] != b->frames[d])
			return a->frames[d] < b->frames[d] ? -1 : 1;
	}
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return a->tgid < b->tgid ? -1 : a->tgid > b->tgid;
}

int stack_key__compare(const struct stack_key *a, const struct stack_key *b)
{
	return compare_from(a, b, 0);
}

static int by_tgid(const void *a, const void *b)
{
	const struct stack_key *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* Frame @d of @k as a digit: its id plus one, or 0 past the end. */
static uint64_t digit(const struct stack_key *k, uint32_t d)
{
	return d < k->n ? (uint64_t)k->frames[d] + 1 : 0;
}

/*
 * Frames @d and @d + 1 of @k as one number. Between stacks whose first @d
 * frames are the same, the numbers compare as the stacks do up to frame
 * @d + 1; a low half of 0 means the stack has no frame @d + 1.
 */
static uint64_t two_digits(const struct stack_key *k, uint32_t d)
{
	return digit(k, d) << 32 | digit(k, d + 1);
}

/* Reads the two digits at @d of @k[0, @n) into @dg: the one read that misses the cache. */
static void read_digits(const struct stack_key *k, uint64_t *dg, size_t n, uint32_t d)
{
	for (size_t i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			__builtin_prefetch(k[i + PREFETCH_AHEAD].frames + d);
		dg[i] = two_digits(&k[i], d);
	}
}

static void swap_items(struct stack_key *k, uint64_t *dg, size_t i, size_t j)
{
	struct stack_key key = k[i];
	uint64_t digits = dg[i];

	k[i] = k[j];
	k[j] = key;
	dg[i] = dg[j];
	dg[j] = digits;
}

static uint64_t median_of_three(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

static void insertion_sort(struct stack_key *k, size_t n, uint32_t d)
{
	for (size_t i = 1; i < n; i++) {
		struct stack_key x = k[i];
		size_t j = i;

		for (; j > 0 && compare_from(&k[j - 1], &x, d) > 0; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

/* A run of a group after partitioning, still to sort. */
struct part {
	size_t from, n;
	uint32_t depth;   /* its stacks share this many frames */
	bool digits_read; /* their digits at that depth are in place */
};

/*
 * Splits @k[0, @n) (digits @dg, read at @d) around a pivot: those before
 * it, those with its two digits, those after it. Stacks that equal the pivot
 * and end with it differ only in tgid: they are sorted here.
 */
static void partition(struct stack_key *k, uint64_t *dg, size_t n, uint32_t d, struct part *p)
{
	uint64_t pivot = median_of_three(dg[0], dg[n / 2], dg[n - 1]);
	size_t lt = 0, i = 0, gt = n;

	while (i < gt) {
		if (dg[i] < pivot)
			swap_items(k, dg, lt++, i++);
		else if (dg[i] > pivot)
			swap_items(k, dg, i, --gt);
		else
			i++;
	}
	p[0] = (struct part){ 0, lt, d, true };
	p[1] = (struct part){ lt, gt - lt, d + 2, false };
	p[2] = (struct part){ gt, n - gt, d, true };
	if ((uint32_t)pivot == 0) {
		qsort(k + lt, gt - lt, sizeof(*k), by_tgid);
		p[1].n = 0;
	}
}

/*
 * Sorts @k[0, @n), whose first @d frames are the same, using @dg for their
 * digits (already read when @digits_read). The two smaller parts of each
 * partition are sorted by recursion, the largest by the loop, so the
 * recursion is at most log2(@n) deep.
 */
static void sort_group(struct stack_key *k, uint64_t *dg, size_t n, uint32_t d, bool digits_read)
{
	while (n >= SMALL_GROUP) {
		struct part p[3];
		size_t largest = 0;

		if (!digits_read)
			read_digits(k, dg, n, d);
		partition(k, dg, n, d, p);
		for (size_t i = 1; i < 3; i++) {
			if (p[i].n > p[largest].n)
				largest = i;
		}
		for (size_t i = 0; i < 3; i++) {
			if (i != largest)
				sort_group(k + p[i].from, dg + p[i].from, p[i].n, p[i].depth,
					   p[i].digits_read);
		}
		k += p[largest].from;
		dg += p[largest].from;
		n = p[largest].n;
		d = p[largest].depth;
		digits_read = p[largest].digits_read;
	}
	insertion_sort(k, n, d);
}

int stack_sort(struct stack_key *keys, size_t n)
{
	uint64_t *digits = malloc(n * sizeof(*digits) + 1);

	if (!digits)
		return -ENOMEM;
	sort_group(keys, digits, n, 0, false);
	free(digits);
	return 0;
}
