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
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/perf_ring.h"
#include "symbols/sanitize.h"

#define WATCH_DATA_PAGES 4    /* a power of two */
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

struct ksym_watch {
	struct perf_rings *rings;
	uint64_t pass; /* of the records being read */
	struct watched_sym *syms; /* sorted by start, never overlapping */
	size_t n, cap;
	bool lost;
};

struct ksym_watch *ksym_watch__open(void)
{
	const struct perf_event_attr attr = { .ksymbol = 1, .watermark = 1, .wakeup_watermark = 1 };
	struct ksym_watch *w = calloc(1, sizeof(*w));

	if (!w || !(w->rings = perf_rings__open(&attr, WATCH_DATA_PAGES))) {
		int err = w ? errno : ENOMEM;

		free(w);
		errno = err;
		return NULL;
	}
	return w;
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

/* A record read (perf_ring_fn): a ksymbol one is taken, at the pass being read. */
static void ksym_watch__on_record(void *ctx, const struct perf_event_header *h, const void *body,
				  size_t len)
{
	struct ksym_watch *w = ctx;

	if (h->type == PERF_RECORD_KSYMBOL)
		ksym_watch__record(w, body, len, w->pass);
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
	bool changed;

	w->pass = pass;
	changed = perf_rings__drain(w->rings, ksym_watch__on_record, w, &w->lost);
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
	if (!w)
		return;
	perf_rings__close(w->rings);
	ksym_watch__remove(w, 0, w->n);
	free(w->syms);
	free(w);
}
