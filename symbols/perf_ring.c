// SPDX-License-Identifier: GPL-2.0
/*
 * perf_ring: per-CPU dummy events and their mapped rings. A ring's data
 * area wraps; a record is copied out of it byte by byte modulo its size.
 */
#include "symbols/perf_ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perf_ring {
	int fd;
	struct perf_event_mmap_page *meta;
};

struct perf_rings {
	struct perf_ring *rings;
	int n;
	size_t map_len;
};

/* Opens @attr on @cpu and maps its ring of @len bytes. Returns 0 or -errno. */
static int ring_open(struct perf_ring *r, const struct perf_event_attr *attr, int cpu, size_t len)
{
	void *p;

	r->fd = (int)syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		close(r->fd);
		r->fd = -1;
		return err;
	}
	r->meta = p;
	return 0;
}

struct perf_rings *perf_rings__open(const struct perf_event_attr *attr, unsigned int data_pages)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	struct perf_rings *r = calloc(1, sizeof(*r));
	struct perf_event_attr a = *attr;
	int err = -ENOMEM, cpu;

	if (!r || ncpus <= 0 || page <= 0)
		goto fail;
	r->rings = calloc((size_t)ncpus, sizeof(*r->rings));
	if (!r->rings)
		goto fail;
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	r->map_len = (size_t)page * (1 + data_pages);
	for (cpu = 0; cpu < ncpus; cpu++) {
		err = ring_open(&r->rings[r->n], &a, cpu, r->map_len);
		if (!err)
			r->n++;
		else if (err != -ENODEV && err != -EINVAL) /* not an offline CPU */
			goto fail;
	}
	if (r->n)
		return r;
	err = -ENODEV;
fail:
	perf_rings__close(r);
	errno = -err;
	return NULL;
}

/* Copies @len bytes at offset @off of the data area of @r (a ring: it wraps) into @dst. */
static void ring_read(const struct perf_ring *r, uint64_t off, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->meta + r->meta->data_offset;
	uint64_t mask = r->meta->data_size - 1;

	for (size_t i = 0; i < len; i++)
		((unsigned char *)dst)[i] = data[(off + i) & mask];
}

/* Reads the records @r holds, and empties it. Returns true when there were any. */
static bool ring_drain(struct perf_ring *r, perf_ring_fn fn, void *ctx, bool *lost)
{
	struct perf_event_mmap_page *m = r->meta;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail;
	uint64_t rec[PERF_RING_RECORD_MAX / 8]; /* aligned for the records' fields */
	struct perf_event_header h;
	bool any = tail != head;

	while (head - tail >= sizeof(h)) {
		ring_read(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.type == PERF_RECORD_LOST || h.size > sizeof(rec)) {
			*lost = true;
		} else {
			ring_read(r, tail + sizeof(h), rec, h.size - sizeof(h));
			fn(ctx, &h, rec, h.size - sizeof(h));
		}
		tail += h.size;
	}
	if (tail != head)
		*lost = true; /* what could not be read may have been anything */
	__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
	return any;
}

bool perf_rings__drain(struct perf_rings *r, perf_ring_fn fn, void *ctx, bool *lost)
{
	bool any = false;

	for (int i = 0; i < r->n; i++)
		any |= ring_drain(&r->rings[i], fn, ctx, lost);
	return any;
}

void perf_rings__close(struct perf_rings *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++) {
		munmap(r->rings[i].meta, r->map_len);
		close(r->rings[i].fd);
	}
	free(r->rings);
	free(r);
}
