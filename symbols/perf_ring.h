/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_ring: what the kernel announces to a perf event that takes no
 * samples (a software dummy event, one per online CPU, system-wide): the
 * records its attributes ask for (BPF symbols loaded, mappings made,
 * processes started), each CPU's in a ring buffer of its own, read without
 * blocking. For the watches that keep what the records say (ksym_watch,
 * mmap_watch).
 */
#ifndef FLAMETOP_PERF_RING_H
#define FLAMETOP_PERF_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#define PERF_RING_RECORD_MAX 8192 /* bytes of one record read; a longer one counts as lost */

struct perf_rings;

/*
 * perf_rings__open() opens a software dummy event with @attr's record
 * flags (its type, config and size are set here) on every online CPU,
 * each with a ring of @data_pages pages (a power of two). Returns NULL
 * with errno set when the kernel refuses (no privilege, an attribute this
 * kernel does not know).
 */
struct perf_rings *perf_rings__open(const struct perf_event_attr *attr, unsigned int data_pages);

/* Called for each record read: its header @h and the @len bytes after it at @body. */
typedef void (*perf_ring_fn)(void *ctx, const struct perf_event_header *h, const void *body,
			     size_t len);

/*
 * perf_rings__drain() reads every ring up to what the kernel had written
 * when it got there, calling @fn with @ctx for each record in a ring's
 * order (the rings one after the other: records of two CPUs may come out
 * of order), and empties them. Returns true when any record was read;
 * sets *@lost when records were lost (a ring overflowed: the kernel's
 * PERF_RECORD_LOST, which is not passed on) or one could not be read.
 */
bool perf_rings__drain(struct perf_rings *r, perf_ring_fn fn, void *ctx, bool *lost);

/* perf_rings__close(NULL) is a no-op. */
void perf_rings__close(struct perf_rings *r);

#endif
