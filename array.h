/* SPDX-License-Identifier: GPL-2.0 */
/*
 * array: how every layer grows a dynamic array, by doubling.
 *
 * An array is a pointer from malloc() (or NULL), a count the caller keeps,
 * and a capacity in elements. Appending one element reads
 *
 *	if (array__grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 4096))
 *		return -ENOMEM;
 *	t->nodes[t->n++] = node;
 *
 * It sits below every layer (bpf/, symbols/, profile/, tui/ may all use it)
 * and knows nothing but the C library.
 */
#ifndef FLAMETOP_ARRAY_H
#define FLAMETOP_ARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * array__grow_max() makes room for at least @need elements of @elem_size
 * bytes (not 0) in *@items, which holds *@cap elements. When it already does,
 * nothing happens. Otherwise the capacity becomes *@cap (@first_cap for an
 * empty array) doubled as many times as it takes to hold @need, and the
 * array is reallocated to it. The capacity may not exceed @max_cap elements
 * (an arena whose offsets are uint32_t passes UINT32_MAX), nor overflow
 * size_t once counted in bytes.
 *
 * Returns 0 with *@items and *@cap updated; the elements past the old
 * capacity are uninitialized. On error, -ENOMEM is returned and nothing is
 * changed (*@items is still valid and still the caller's to free).
 */
static inline int array__grow_max(void **items, size_t *cap, size_t need, size_t elem_size,
				  size_t first_cap, size_t max_cap)
{
	size_t n = *cap ? *cap : first_cap, limit = SIZE_MAX / elem_size;
	void *p;

	if (need <= *cap)
		return 0;
	if (max_cap < limit)
		limit = max_cap;
	if (!n)
		n = 1; /* 0 would never double */
	while (n < need) {
		if (n > limit / 2)
			return -ENOMEM; /* doubling again would pass the limit */
		n *= 2;
	}
	if (n > limit)
		return -ENOMEM;
	p = realloc(*items, n * elem_size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = n;
	return 0;
}

/* array__grow() is array__grow_max() with no limit but size_t's. */
static inline int array__grow(void **items, size_t *cap, size_t need, size_t elem_size,
			      size_t first_cap)
{
	return array__grow_max(items, cap, need, elem_size, first_cap, SIZE_MAX);
}

#endif
