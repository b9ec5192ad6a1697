// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_maps: the rules and the processes are arrays written by map
 * updates (a process into a slot no walk reads yet, then made visible by
 * the update of its tgid's entry); each table is an mmapped array of its
 * own, filled before it is put in the array of tables, then unmapped.
 * Nothing stays mapped but the rules: the kernel maps an mmappable array
 * whole at mmap(), and the processes' slots would be 6.5 MiB resident all
 * the run. The rules (128 KiB) are mapped read-only for the walks of
 * copied stacks, which read tables through views mapped for a while.
 */
#include "bpf/unwind_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "array.h"
#include "unwind/cfi_table.h"

#define RETIRE_PASSES 2

/* A range of the mappings' pool. */
struct pool_range {
	uint32_t first, n;
};

/* A slot out of use, and its range, free again once no walk can be reading them. */
struct retired_slot {
	uint32_t slot;
	struct pool_range range;
	uint64_t pass;
};

struct unwind_maps {
	struct unwind_maps_fds fd;
	const struct unwind_rule *rules; /* the rules map, mapped read-only */
	uint32_t nslots;
	uint32_t *free;            /* free slots, a stack */
	uint32_t nfree;
	struct pool_range *ranges; /* each slot's range of the pool, as written */
	uint32_t pool_size;
	struct pool_range *holes;  /* the pool's free ranges, by first, none touching */
	size_t nholes, holes_cap;
	uint32_t pool_free;
	uint32_t *keys;            /* 0 .. UNWIND_MAX_MAPS - 1 + pool: a batch update's keys */
	struct retired_slot *retired;
	size_t nretired, retired_cap;
	uint64_t pass;
};

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* An array of @n values of @size bytes, with @flags; returns its fd or -errno. */
static int make_array(const char *name, uint32_t size, uint32_t n, uint32_t flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(uint32_t), size, n, &opts);

	return fd < 0 ? -errno : fd;
}

static int make_tables(struct unwind_maps *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner = make_array("flametop_ut", sizeof(struct unwind_row), 1,
			       BPF_F_MMAPABLE | BPF_F_INNER_MAP);

	if (inner < 0)
		return inner;
	opts.inner_map_fd = inner;
	m->fd.tables = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "flametop_tables",
				      sizeof(uint32_t), sizeof(uint32_t), UNWIND_MAX_TABLES, &opts);
	close(inner);
	return m->fd.tables < 0 ? -errno : 0;
}

/*
 * The entries of the pids map: a process with a slot or one noted without
 * one (and why), as many again as there are slots.
 */
static uint32_t pid_entries(uint32_t slots)
{
	return 2 * slots;
}

static int make_procs(struct unwind_maps *m, uint32_t slots, uint32_t pool)
{
	m->nslots = slots;
	m->pool_size = pool;
	m->fd.procs = make_array("flametop_procs", sizeof(struct unwind_proc), slots, 0);
	if (m->fd.procs < 0)
		return m->fd.procs;
	m->fd.mappings = make_array("flametop_maps", sizeof(struct unwind_map), pool, 0);
	if (m->fd.mappings < 0)
		return m->fd.mappings;
	m->fd.pids = bpf_map_create(BPF_MAP_TYPE_HASH, "flametop_pids", sizeof(uint32_t),
				    sizeof(uint32_t), pid_entries(slots), NULL);
	if (m->fd.pids < 0)
		return -errno;
	m->free = calloc(slots, sizeof(*m->free));
	m->ranges = calloc(slots, sizeof(*m->ranges));
	m->keys = calloc(UNWIND_MAX_MAPS, sizeof(*m->keys));
	if (!m->free || !m->ranges || !m->keys ||
	    array__grow((void **)&m->holes, &m->holes_cap, 1, sizeof(*m->holes), 16))
		return -ENOMEM;
	for (uint32_t i = 0; i < slots; i++)
		m->free[m->nfree++] = slots - 1 - i; /* slot 0 first */
	m->holes[m->nholes++] = (struct pool_range){ 0, pool };
	m->pool_free = pool;
	return 0;
}

/* Takes @n entries of the pool (the first hole that holds them) into *@r; false when none does. */
static bool pool_take(struct unwind_maps *m, uint32_t n, struct pool_range *r)
{
	for (size_t i = 0; i < m->nholes; i++) {
		struct pool_range *h = &m->holes[i];

		if (h->n < n)
			continue;
		*r = (struct pool_range){ h->first, n };
		h->first += n;
		h->n -= n;
		if (!h->n) {
			memmove(h, h + 1, (m->nholes - i - 1) * sizeof(*h));
			m->nholes--;
		}
		m->pool_free -= n;
		return true;
	}
	return false;
}

/* Gives range @r back to the pool, joined with the holes it touches. */
static void pool_give(struct unwind_maps *m, struct pool_range r)
{
	size_t i = 0;

	if (!r.n)
		return;
	while (i < m->nholes && m->holes[i].first < r.first)
		i++;
	m->pool_free += r.n;
	if (i > 0 && m->holes[i - 1].first + m->holes[i - 1].n == r.first) {
		m->holes[i - 1].n += r.n; /* joins the hole before */
		if (i < m->nholes && r.first + r.n == m->holes[i].first) {
			m->holes[i - 1].n += m->holes[i].n; /* ... and the one after */
			memmove(&m->holes[i], &m->holes[i + 1], (m->nholes - i - 1) * sizeof(r));
			m->nholes--;
		}
		return;
	}
	if (i < m->nholes && r.first + r.n == m->holes[i].first) {
		m->holes[i].first = r.first; /* joins the hole after */
		m->holes[i].n += r.n;
		return;
	}
	if (array__grow((void **)&m->holes, &m->holes_cap, m->nholes + 1, sizeof(r), 16))
		return; /* the range is lost to this run: it is never handed out twice */
	memmove(&m->holes[i + 1], &m->holes[i], (m->nholes - i) * sizeof(r));
	m->holes[i] = r;
	m->nholes++;
}

static size_t rules_bytes(void)
{
	return page_round(sizeof(struct unwind_rule) * UNWIND_MAX_RULES);
}

/* Maps the rules read-only, for unwind_maps__rule(). */
static int map_rules(struct unwind_maps *m)
{
	void *mem = mmap(NULL, rules_bytes(), PROT_READ, MAP_SHARED, m->fd.rules, 0);

	if (mem == MAP_FAILED)
		return -errno;
	m->rules = mem;
	return 0;
}

int unwind_maps__new(uint32_t proc_slots, uint32_t pool_maps, struct unwind_maps **out)
{
	struct unwind_maps *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->fd = (struct unwind_maps_fds){ -1, -1, -1, -1, -1 };
	m->pass = 1;
	m->fd.rules = make_array("flametop_rules", sizeof(struct unwind_rule), UNWIND_MAX_RULES,
				 BPF_F_MMAPABLE);
	err = m->fd.rules < 0 ? m->fd.rules : map_rules(m);
	err = err ?: make_tables(m) ?:
		     make_procs(m, proc_slots ? proc_slots : 1, pool_maps ? pool_maps : 1);
	if (err) {
		unwind_maps__free(m);
		return err;
	}
	*out = m;
	return 0;
}

void unwind_maps__fds(const struct unwind_maps *m, struct unwind_maps_fds *fds)
{
	*fds = m->fd;
}

size_t unwind_maps__fixed_bytes(const struct unwind_maps *m)
{
	return rules_bytes() + page_round(sizeof(struct unwind_proc) * (size_t)m->nslots) +
	       page_round(sizeof(struct unwind_map) * (size_t)m->pool_size) +
	       UNWIND_MAX_TABLES * sizeof(void *) +
	       (size_t)pid_entries(m->nslots) * 2 * (sizeof(uint32_t) * 2 + 64); /* pids */
}

int unwind_maps__add_rules(struct unwind_maps *m, uint32_t first, const struct unwind_rule *rules,
			   uint32_t n)
{
	if (first > UNWIND_MAX_RULES || n > UNWIND_MAX_RULES - first)
		return -E2BIG;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = first + i;

		if (bpf_map_update_elem(m->fd.rules, &id, &rules[i], BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Writes the search layout of @n rows into @out (1 + nbuckets + n
 * elements, see stack_key.h): bucket b holds elements [lo, hi), lo the row
 * in effect at the bucket's first offset (or the first row), hi past the
 * last row starting inside it.
 */
static void lay_out(struct unwind_row *out, uint16_t gen, uint32_t nbuckets,
		    const struct unwind_row *rows, size_t n)
{
	uint32_t base = 1 + nbuckets;
	size_t r = 0; /* rows[r] is the first row past the bucket's first offset */

	out[0] = (struct unwind_row){ .off = gen, .rule = nbuckets };
	for (uint32_t b = 0; b < nbuckets; b++) {
		uint64_t first = (uint64_t)b << UNWIND_BUCKET_SHIFT, next = first +
							(1u << UNWIND_BUCKET_SHIFT);
		size_t lo, hi;

		while (r < n && rows[r].off <= first)
			r++;
		lo = r ? r - 1 : 0;
		hi = r;
		while (hi < n && rows[hi].off < next)
			hi++;
		out[1 + b] = (struct unwind_row){ .off = base + (uint32_t)lo,
						  .rule = base + (uint32_t)(hi > lo ? hi : lo + 1) };
	}
	memcpy(out + base, rows, n * sizeof(*rows));
}

/* The buckets a table of @n rows needs: one per UNWIND_BUCKET_SHIFT bytes up to its last row. */
static uint64_t table_buckets(const struct unwind_row *rows, size_t n)
{
	return n ? ((uint64_t)rows[n - 1].off >> UNWIND_BUCKET_SHIFT) + 1 : 0;
}

size_t unwind_maps__table_bytes(const struct unwind_row *rows, size_t n)
{
	return page_round((1 + table_buckets(rows, n) + n) * sizeof(*rows));
}

int unwind_maps__make_table(uint16_t gen, const struct unwind_row *rows, size_t n, size_t *bytes)
{
	uint64_t nbuckets = table_buckets(rows, n), elems = 1 + nbuckets + n;
	struct unwind_row *mem;
	int fd;

	if (elems > UINT32_MAX / sizeof(*rows))
		return -E2BIG;
	fd = make_array("flametop_table", sizeof(*rows), (uint32_t)elems,
			BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	if (fd < 0)
		return fd;
	*bytes = unwind_maps__table_bytes(rows, n);
	mem = mmap(NULL, page_round(elems * sizeof(*rows)), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (mem == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	lay_out(mem, gen, (uint32_t)nbuckets, rows, n);
	munmap(mem, page_round(elems * sizeof(*rows)));
	return fd;
}

int unwind_maps__put_tables(struct unwind_maps *m, const uint32_t *ids, const int *fds, uint32_t n)
{
	uint32_t count = n;

	for (uint32_t i = 0; i < n; i++)
		if (ids[i] >= UNWIND_MAX_TABLES)
			return -EINVAL;
	if (n && bpf_map_update_batch(m->fd.tables, ids, fds, &count, NULL))
		return -errno;
	return 0;
}

int unwind_maps__drop_tables(struct unwind_maps *m, const uint32_t *ids, uint32_t n)
{
	uint32_t count = n;

	if (n && bpf_map_delete_batch(m->fd.tables, ids, &count, NULL) && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * Takes @slot out of use: no longer its process's, free again (with its
 * range) once no walk can be in it. Its mappings stay as they were: a walk
 * reading them now reads them whole.
 */
static void retire(struct unwind_maps *m, uint32_t slot)
{
	struct unwind_proc p;

	if (slot >= m->nslots)
		return;
	if (bpf_map_lookup_elem(m->fd.procs, &slot, &p) == 0) {
		p.tgid = 0;
		bpf_map_update_elem(m->fd.procs, &slot, &p, BPF_ANY);
	}
	if (array__grow((void **)&m->retired, &m->retired_cap, m->nretired + 1,
			sizeof(*m->retired), 64))
		return; /* the slot is lost to this run: never reused while a walk may read it */
	m->retired[m->nretired++] = (struct retired_slot){ slot, m->ranges[slot], m->pass };
	m->ranges[slot] = (struct pool_range){ 0, 0 };
}

/* Writes @n mappings into range @r of the pool (a range no walk reads). */
static int pool_write(struct unwind_maps *m, struct pool_range r, const struct unwind_map *maps)
{
	uint32_t count = r.n;

	for (uint32_t i = 0; i < r.n; i++)
		m->keys[i] = r.first + i;
	if (r.n && bpf_map_update_batch(m->fd.mappings, m->keys, maps, &count, NULL))
		return -errno;
	return 0;
}

/* Notes that process @tgid has no slot, and why (UNWIND_PID_SLOTS_FULL ...): its walks say so. */
static void note_no_slot(struct unwind_maps *m, uint32_t tgid, uint32_t why)
{
	bpf_map_update_elem(m->fd.pids, &tgid, &why, BPF_ANY);
}

int64_t unwind_maps__put_proc(struct unwind_maps *m, uint32_t tgid, uint32_t old_slot,
			      const struct unwind_map *maps, uint32_t n, bool more)
{
	struct unwind_proc p = { .tgid = tgid, .more = more };
	struct pool_range r;
	uint32_t slot;
	int err;

	if (n > UNWIND_MAX_MAPS) {
		n = UNWIND_MAX_MAPS;
		p.more = 1;
	}
	if (!m->nfree || !pool_take(m, n, &r)) {
		err = m->nfree ? -ENOBUFS : -ENOSPC;
		if (old_slot != UNWIND_NO_SLOT)
			retire(m, old_slot); /* its old mappings would mislead the walk */
		note_no_slot(m, tgid, err == -ENOSPC ? UNWIND_PID_SLOTS_FULL : UNWIND_PID_POOL_FULL);
		return err;
	}
	slot = m->free[--m->nfree];
	p.first = r.first;
	p.n = n;
	/* Whole in its range and slot before the process points there. */
	err = pool_write(m, r, maps);
	if (!err && (bpf_map_update_elem(m->fd.procs, &slot, &p, BPF_ANY) ||
		     bpf_map_update_elem(m->fd.pids, &tgid, &slot, BPF_ANY)))
		err = -errno;
	if (err) {
		m->free[m->nfree++] = slot;
		pool_give(m, r);
		return err;
	}
	m->ranges[slot] = r;
	if (old_slot != UNWIND_NO_SLOT && old_slot != slot)
		retire(m, old_slot);
	return slot;
}

void unwind_maps__drop_proc(struct unwind_maps *m, uint32_t tgid, uint32_t slot)
{
	bpf_map_delete_elem(m->fd.pids, &tgid);
	retire(m, slot);
}

uint32_t unwind_maps__free_slots(const struct unwind_maps *m)
{
	return m->nfree;
}

uint32_t unwind_maps__free_pool(const struct unwind_maps *m)
{
	return m->pool_free;
}

void unwind_maps__pass(struct unwind_maps *m)
{
	size_t kept = 0;

	m->pass++;
	for (size_t i = 0; i < m->nretired; i++) {
		if (m->retired[i].pass + RETIRE_PASSES <= m->pass) {
			m->free[m->nfree++] = m->retired[i].slot;
			pool_give(m, m->retired[i].range);
		} else {
			m->retired[kept++] = m->retired[i];
		}
	}
	m->nretired = kept;
}

int unwind_maps__view_table(const struct unwind_maps *m, uint32_t id, uint16_t gen,
			    struct unwind_table_view *v)
{
	struct bpf_map_info info = { 0 };
	uint32_t inner, info_len = sizeof(info);
	const struct unwind_row *head;
	int fd, err = 0;
	void *mem;

	*v = (struct unwind_table_view){ 0 };
	if (id >= UNWIND_MAX_TABLES || bpf_map_lookup_elem(m->fd.tables, &id, &inner))
		return -ENOENT;
	fd = bpf_map_get_fd_by_id(inner);
	if (fd < 0)
		return -ENOENT; /* dropped meanwhile */
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) || info.value_size != sizeof(*head) ||
	    !info.max_entries) {
		close(fd);
		return -EINVAL;
	}
	v->len = page_round((size_t)info.max_entries * sizeof(*head));
	mem = mmap(NULL, v->len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (mem == MAP_FAILED)
		return -errno;
	head = mem;
	/* Laid out by lay_out(): the head, the buckets, the rows. */
	if ((head->off & 0xffff) != gen || head->rule > info.max_entries - 1)
		err = -ENOENT;
	v->mem = mem;
	v->rows = head + 1 + head->rule;
	v->n = info.max_entries - 1 - head->rule;
	if (err)
		unwind_table_view__release(v);
	return err;
}

uint32_t unwind_table_view__rule_at(const struct unwind_table_view *v, uint64_t off)
{
	const struct cfi_table t = { .rows = (struct unwind_row *)v->rows, .n = v->n };

	return cfi_table__rule_at(&t, off);
}

void unwind_table_view__release(struct unwind_table_view *v)
{
	if (v->mem)
		munmap(v->mem, v->len);
	*v = (struct unwind_table_view){ 0 };
}

int unwind_maps__rule(const struct unwind_maps *m, uint32_t id, struct unwind_rule *r)
{
	if (id >= UNWIND_MAX_RULES)
		return -ENOENT;
	*r = m->rules[id];
	return 0;
}

void unwind_maps__free(struct unwind_maps *m)
{
	int fds[5];

	if (!m)
		return;
	if (m->rules)
		munmap((void *)m->rules, rules_bytes());
	fds[0] = m->fd.tables;
	fds[1] = m->fd.rules;
	fds[2] = m->fd.pids;
	fds[3] = m->fd.procs;
	fds[4] = m->fd.mappings;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(m->free);
	free(m->ranges);
	free(m->holes);
	free(m->keys);
	free(m->retired);
	free(m);
}
