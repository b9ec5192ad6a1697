// SPDX-License-Identifier: GPL-2.0
/*
 * ksym_watch: a software dummy event with attr.ksymbol set receives a
 * PERF_RECORD_KSYMBOL (address, length, type, flags, name) in its ring
 * buffer whenever a kernel symbol is registered or unregistered on its
 * CPU. The BPF ones are kept in a sorted array of ranges that never
 * overlap: a new range evicts whatever it covers.
 */
#include "symbols/ksym_watch.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/sanitize.h"

#define WATCH_DATA_PAGES 4    /* a power of two */
#define WATCH_RECORD_MAX 1024 /* bytes of one record read (KSYM_NAME_LEN is 512) */
#define WATCH_SYMS_MAX 65536

/* The fixed part of a PERF_RECORD_KSYMBOL, after its header; the name follows. */
struct ksymbol_body {
	uint64_t addr;
	uint32_t len;
	uint16_t type;
	uint16_t flags;
};

struct watched_sym {
	uint64_t start, end;
	char *name;	    /* NULL: a hole left by an unloaded program */
	uint64_t gone_pass; /* 0 while loaded, else the pass it went in */
};

struct ksym_ring {
	int fd;
	struct perf_event_mmap_page *meta;
};

struct ksym_watch {
	struct ksym_ring *rings;
	int n_rings;
	size_t map_len;
	struct watched_sym *syms; /* sorted by start, never overlapping */
	size_t n, cap;
	bool lost;
};

/* Opens the watching event on @cpu and maps its ring. Returns 0 or -errno. */
static int ksym_ring__open(struct ksym_ring *r, int cpu, size_t len)
{
	struct perf_event_attr attr = {
	    .size = sizeof(attr),
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_DUMMY,
	    .ksymbol = 1,
	    .watermark = 1,
	    .wakeup_watermark = 1,
	};
	void *p;

	r->fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
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

struct ksym_watch *ksym_watch__open(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	struct ksym_watch *w = calloc(1, sizeof(*w));
	int err = -ENOMEM, cpu;

	if (!w || ncpus <= 0 || page <= 0)
		goto fail;
	w->rings = calloc((size_t)ncpus, sizeof(*w->rings));
	if (!w->rings)
		goto fail;
	w->map_len = (size_t)page * (1 + WATCH_DATA_PAGES);
	for (cpu = 0; cpu < ncpus; cpu++) {
		err = ksym_ring__open(&w->rings[w->n_rings], cpu, w->map_len);
		if (!err)
			w->n_rings++;
		else if (err != -ENODEV && err != -EINVAL) /* not an offline CPU */
			goto fail;
	}
	if (w->n_rings)
		return w;
	err = -ENODEV;
fail:
	ksym_watch__close(w);
	errno = -err;
	return NULL;
}

/* Copies @len bytes at offset @off of the data area of @r (a ring: it wraps) into @dst. */
static void ksym_ring__read(const struct ksym_ring *r, uint64_t off, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->meta + r->meta->data_offset;
	uint64_t mask = r->meta->data_size - 1;
	size_t i;

	for (i = 0; i < len; i++)
		((unsigned char *)dst)[i] = data[(off + i) & mask];
}

/* The index of the first symbol ending after @addr. */
static size_t ksym_watch__first_after(const struct ksym_watch *w, uint64_t addr)
{
	return addr_search__count(w->syms, w->n, sizeof(*w->syms),
				  offsetof(struct watched_sym, end), addr);
}

/* Removes symbols [@i, @j). */
static void ksym_watch__remove(struct ksym_watch *w, size_t i, size_t j)
{
	size_t k;

	if (i == j)
		return;
	for (k = i; k < j; k++)
		free(w->syms[k].name);
	memmove(&w->syms[i], &w->syms[j], (w->n - j) * sizeof(*w->syms));
	w->n -= j - i;
}

/* Removes the holes, to make room; returns the new index of the first symbol ending after @addr. */
static size_t ksym_watch__drop_holes(struct ksym_watch *w, uint64_t addr)
{
	size_t i, n = 0;

	for (i = 0; i < w->n; i++) {
		if (w->syms[i].name)
			w->syms[n++] = w->syms[i];
	}
	w->n = n;
	return ksym_watch__first_after(w, addr);
}

/* Puts @s (its name taken) in place of whatever it overlaps. Returns 0 or -ENOMEM. */
static int ksym_watch__insert(struct ksym_watch *w, struct watched_sym *s)
{
	size_t i = ksym_watch__first_after(w, s->start), j = i;

	while (j < w->n && w->syms[j].start < s->end)
		j++;
	ksym_watch__remove(w, i, j);
	if (w->n == WATCH_SYMS_MAX)
		i = ksym_watch__drop_holes(w, s->start);
	if (array__grow_max((void **)&w->syms, &w->cap, w->n + 1, sizeof(*w->syms), 64,
			    WATCH_SYMS_MAX))
		return -ENOMEM;
	memmove(&w->syms[i + 1], &w->syms[i], (w->n - i) * sizeof(*w->syms));
	w->syms[i] = *s;
	w->n++;
	return 0;
}

/* Takes one ksymbol record (@len bytes at @rec, after its header) seen at @pass. */
static void ksym_watch__record(struct ksym_watch *w, const char *rec, size_t len, uint64_t pass)
{
	struct ksymbol_body b;
	struct watched_sym s;
	char clean[NAME_MAX_BYTES + 1];

	if (len <= sizeof(b))
		return;
	memcpy(&b, rec, sizeof(b));
	if (b.type != PERF_RECORD_KSYMBOL_TYPE_BPF || !b.len || b.addr + b.len < b.addr)
		return;
	sanitize_name(clean, sizeof(clean), rec + sizeof(b), len - sizeof(b));
	s = (struct watched_sym){
	    .start = b.addr,
	    .end = b.addr + b.len,
	    .name = strdup(clean),
	    .gone_pass = b.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER ? pass : 0,
	};
	if (!s.name || ksym_watch__insert(w, &s)) {
		free(s.name);
		w->lost = true;
	}
}

/* Reads the records @r holds at @pass and empties it. Returns true when there were any. */
static bool ksym_ring__drain(struct ksym_ring *r, struct ksym_watch *w, uint64_t pass)
{
	struct perf_event_mmap_page *m = r->meta;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail;
	char rec[WATCH_RECORD_MAX];
	struct perf_event_header h;
	bool any = tail != head;

	while (head - tail >= sizeof(h)) {
		ksym_ring__read(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.type == PERF_RECORD_LOST || h.size > sizeof(rec)) {
			w->lost = true;
		} else if (h.type == PERF_RECORD_KSYMBOL) {
			ksym_ring__read(r, tail + sizeof(h), rec, h.size - sizeof(h));
			ksym_watch__record(w, rec, h.size - sizeof(h), pass);
		}
		tail += h.size;
	}
	if (tail != head)
		w->lost = true; /* what could not be read may have been anything */
	__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
	return any;
}

/* Programs gone for longer than KSYM_GONE_PASSES leave holes. */
static void ksym_watch__age(struct ksym_watch *w, uint64_t pass)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct watched_sym *s = &w->syms[i];

		if (s->name && s->gone_pass && s->gone_pass + KSYM_GONE_PASSES <= pass) {
			free(s->name);
			s->name = NULL;
		}
	}
}

bool ksym_watch__poll(struct ksym_watch *w, uint64_t pass)
{
	bool changed = false;
	int i;

	for (i = 0; i < w->n_rings; i++)
		changed |= ksym_ring__drain(&w->rings[i], w, pass);
	ksym_watch__age(w, pass);
	return changed || w->lost;
}

int ksym_watch__find(const struct ksym_watch *w, uint64_t addr, const char **name)
{
	size_t i = ksym_watch__first_after(w, addr);

	if (i == w->n || addr < w->syms[i].start)
		return -ENOENT;
	*name = w->syms[i].name;
	return 0;
}

bool ksym_watch__lost(struct ksym_watch *w)
{
	bool lost = w->lost;

	w->lost = false;
	return lost;
}

unsigned int ksym_watch__count(const struct ksym_watch *w)
{
	return (unsigned int)w->n;
}

void ksym_watch__close(struct ksym_watch *w)
{
	int i;

	if (!w)
		return;
	for (i = 0; i < w->n_rings; i++) {
		munmap(w->rings[i].meta, w->map_len);
		close(w->rings[i].fd);
	}
	ksym_watch__remove(w, 0, w->n);
	free(w->syms);
	free(w->rings);
	free(w);
}
