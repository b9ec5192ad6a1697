/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr_search: the binary search every table of addresses here does
 * (kallsyms, ELF symbols, /proc/PID/maps, perf maps, watched BPF symbols):
 * in an array sorted by a uint64_t key, how many elements have a key at or
 * below an address.
 *
 * Header-only: it runs for every frame named, and inlined with a constant
 * stride and key offset it compiles to the loop each table used to spell out.
 */
#ifndef FLAMETOP_ADDR_SEARCH_H
#define FLAMETOP_ADDR_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * addr_search__count() looks at @n elements of @stride bytes from @base,
 * sorted by the uint64_t at byte @key_offset of each, and returns how many
 * of them have that key at or below @addr: the index of the first element
 * whose key is above @addr, or @n. The last element at or below @addr, when
 * the result is not 0, is the one before it.
 */
static inline size_t addr_search__count(const void *base, size_t n, size_t stride,
					size_t key_offset, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *elem = (const char *)base + mid * stride;

		if (*(const uint64_t *)(elem + key_offset) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
