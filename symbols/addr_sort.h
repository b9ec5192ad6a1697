/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr_sort: how every symbol table here (ELF symbols, kallsyms, perf maps)
 * is put in order once read: by a uint64_t address, the preferred entry at
 * each address kept, the others dropped.
 *
 * Tables of tens of thousands of entries are built while a refresh waits
 * (a library's symbols at its first frame), so the addresses are radix-sorted
 * and the entry comparator only orders entries that share an address.
 */
#ifndef FLAMETOP_ADDR_SORT_H
#define FLAMETOP_ADDR_SORT_H

#include <stddef.h>

/*
 * addr_sort__unique() orders the @n elements of @size bytes at @base by the
 * uint64_t at byte @key_offset of each; elements with the same key are
 * ordered by @cmp (qsort_r()'s contract, called with @arg, and only ever on
 * two elements with equal keys), and only the first of them is kept. The
 * kept elements are moved to the front of @base, in order.
 *
 * Returns how many are kept. Never fails: without memory for its buffers it
 * sorts the whole array with qsort_r(), whose @cmp must then also order
 * different keys (ascending), as every comparator here does.
 */
size_t addr_sort__unique(void *base, size_t n, size_t size, size_t key_offset,
			 int (*cmp)(const void *, const void *, void *), void *arg);

#endif
