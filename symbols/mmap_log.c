// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_log: processes by pid, each with its mappings in the order they
 * were announced (sorted only when copied out), on an LRU list by last
 * news so that the log stays within MMAP_LOG_PROCS, and those that ended
 * on a list of their own by when, so that expiring them looks at those
 * due only (under process churn the log holds thousands).
 */
#include "symbols/mmap_log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "symbols/id_table.h"
#include "symbols/lru.h"
#include "symbols/path_pool.h"

struct logged_map {
	struct proc_map m; /* its path a reference to the log's pool */
	uint64_t time;	   /* when it was announced */
};

struct logged_proc {
	struct id_node node;	   /* {pid, 0} */
	struct lru_node lru;	   /* by last news */
	struct lru_node ended_lru; /* on the log's ended list while it has ended */
	uint64_t start;		   /* when it last started */
	uint64_t ended_pass;	   /* the pass it ended in; 0 while it runs */
	bool whole;		   /* every mapping it made since its start is known */
	struct logged_map *maps;
	size_t n, cap;
};

struct mmap_log {
	struct id_table procs;
	struct lru lru;
	struct lru ended; /* the processes that ended, the one that ended first oldest */
	size_t nmaps;	  /* mappings held, all processes' */
	struct path_pool *paths; /* one copy of each path, however many mappings name it */
};

struct mmap_log *mmap_log__new(void)
{
	struct mmap_log *l = calloc(1, sizeof(*l));

	if (!l || !(l->paths = path_pool__new())) {
		free(l);
		return NULL;
	}
	lru__init(&l->lru);
	lru__init(&l->ended);
	return l;
}

static struct logged_proc *find(const struct mmap_log *l, uint32_t pid)
{
	return (struct logged_proc *)id_table__find(&l->procs, pid, 0);
}

/* Forgets mapping @i of @p (the last one takes its place). */
static void drop_map(struct mmap_log *l, struct logged_proc *p, size_t i)
{
	path_pool__put(l->paths, p->maps[i].m.path);
	p->maps[i] = p->maps[--p->n];
	l->nmaps--;
}

static void drop_proc(struct mmap_log *l, struct logged_proc *p)
{
	while (p->n)
		drop_map(l, p, p->n - 1);
	free(p->maps);
	id_table__remove(&l->procs, &p->node);
	lru__remove(&l->lru, &p->lru);
	lru__remove(&l->ended, &p->ended_lru);
	free(p);
}

/* A new process @pid, without mappings; NULL when out of memory. */
static struct logged_proc *new_proc(struct mmap_log *l, uint32_t pid)
{
	struct logged_proc *p;
	struct lru_node *old;

	while ((l->procs.n >= MMAP_LOG_PROCS || l->nmaps >= MMAP_LOG_ALL_MAPS) &&
	       (old = lru__oldest(&l->lru)) != NULL)
		drop_proc(l, lru_entry(old, struct logged_proc, lru));
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->node.key[0] = pid;
	if (id_table__insert(&l->procs, &p->node)) {
		free(p);
		return NULL;
	}
	lru__add(&l->lru, &p->lru, 0);
	return p;
}

/*
 * Appends @m, announced at @time, to @p, named @path: a reference from the
 * log's pool, which @p then holds (given back when it can't be held).
 * False when it can't (@p no longer whole).
 */
static bool push_map(struct mmap_log *l, struct logged_proc *p, const struct proc_map *m,
		     const char *path, uint64_t time)
{
	struct logged_map *e;

	if (!path || p->n >= MMAP_LOG_MAPS || l->nmaps >= MMAP_LOG_ALL_MAPS ||
	    array__grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(*p->maps), 16)) {
		path_pool__put(l->paths, path);
		p->whole = false;
		return false;
	}
	e = &p->maps[p->n++];
	l->nmaps++;
	e->m = *m;
	e->m.path = (char *)path; /* the pool's copy: never written */
	e->time = time;
	return true;
}

static bool overlaps(const struct proc_map *a, uint64_t start, uint64_t end)
{
	return a->start < end && start < a->end;
}

/*
 * Cuts [@start, @end) out of @p's mapping @i: what is left of it on either
 * side stays (appended); false when out of memory (@p no longer whole).
 */
static bool cut_map(struct mmap_log *l, struct logged_proc *p, size_t i, uint64_t start,
		    uint64_t end)
{
	struct logged_map old = p->maps[i];
	struct proc_map part;
	bool ok = true;

	p->maps[i] = p->maps[--p->n]; /* its path's reference moves to @old */
	l->nmaps--;
	if (old.m.start < start) {
		part = old.m;
		part.end = start;
		ok &= push_map(l, p, &part, path_pool__ref(old.m.path), old.time);
	}
	if (end < old.m.end) {
		part = old.m;
		part.pgoff += end - old.m.start;
		part.start = end;
		ok &= push_map(l, p, &part, path_pool__ref(old.m.path), old.time);
	}
	path_pool__put(l->paths, old.m.path);
	return ok;
}

void mmap_log__start(struct mmap_log *l, uint32_t pid, uint32_t parent, uint64_t time)
{
	struct logged_proc *p = find(l, pid), *from;

	if (p && p->start >= time)
		return;
	if (!p && !(p = new_proc(l, pid)))
		return;
	from = parent ? find(l, parent) : NULL; /* after new_proc(): it may have made room */
	lru__touch(&l->lru, &p->lru);
	for (size_t i = p->n; i-- > 0;)
		if (p->maps[i].time < time)
			drop_map(l, p, i);
	p->start = time;
	p->ended_pass = 0;
	lru__remove(&l->ended, &p->ended_lru);
	p->whole = !parent || (from && from->whole);
	if (!from || !p->whole)
		return;
	/* The parent's, where the child mapped nothing since (news a little out of order). */
	for (size_t i = 0; i < from->n && p->whole; i++) {
		const struct logged_map *e = &from->maps[i];
		bool taken = false;

		for (size_t j = 0; j < p->n && !taken; j++)
			taken = overlaps(&p->maps[j].m, e->m.start, e->m.end);
		if (e->time < time && !taken)
			push_map(l, p, &e->m, path_pool__ref(e->m.path), time);
	}
}

void mmap_log__map(struct mmap_log *l, uint32_t pid, uint64_t time, const struct proc_map *m)
{
	struct logged_proc *p = find(l, pid);

	if (!p || time < p->start || !p->whole || m->start >= m->end)
		return;
	lru__touch(&l->lru, &p->lru);
	for (size_t i = 0; i < p->n; i++)
		if (overlaps(&p->maps[i].m, m->start, m->end) && p->maps[i].time > time)
			return; /* announced after it: @m was replaced already */
	for (size_t i = p->n; i-- > 0;)
		if (overlaps(&p->maps[i].m, m->start, m->end) &&
		    !cut_map(l, p, i, m->start, m->end))
			return;
	push_map(l, p, m, path_pool__get(l->paths, m->path, strlen(m->path)), time);
}

void mmap_log__end(struct mmap_log *l, uint32_t pid, uint64_t pass)
{
	struct logged_proc *p = find(l, pid);

	if (!p)
		return;
	p->ended_pass = pass ? pass : 1;
	if (lru__linked(&p->ended_lru))
		lru__touch(&l->ended, &p->ended_lru);
	else
		lru__add(&l->ended, &p->ended_lru, 0);
}

void mmap_log__expire(struct mmap_log *l, uint64_t pass)
{
	struct lru_node *n;

	/* Passes only grow: the list is in the order of the passes they ended in. */
	while ((n = lru__oldest(&l->ended)) != NULL) {
		struct logged_proc *p = lru_entry(n, struct logged_proc, ended_lru);

		if (p->ended_pass + MMAP_LOG_ENDED_PASSES > pass)
			break;
		drop_proc(l, p);
	}
}

void mmap_log__clear(struct mmap_log *l)
{
	struct lru_node *n;

	while ((n = lru__oldest(&l->lru)) != NULL)
		drop_proc(l, lru_entry(n, struct logged_proc, lru));
}

static int map_cmp(const void *a, const void *b)
{
	const struct proc_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int mmap_log__maps(const struct mmap_log *l, uint32_t pid, struct proc_maps *out)
{
	const struct logged_proc *p = find(l, pid);

	out->maps = NULL;
	out->n = 0;
	if (!p || !p->whole || !p->n)
		return -ENOENT;
	out->maps = calloc(p->n, sizeof(*out->maps));
	if (!out->maps)
		return -ENOMEM;
	for (; out->n < p->n; out->n++) {
		out->maps[out->n] = p->maps[out->n].m;
		out->maps[out->n].path = strdup(p->maps[out->n].m.path);
		if (!out->maps[out->n].path) {
			proc_maps__free(out);
			return -ENOMEM;
		}
	}
	qsort(out->maps, out->n, sizeof(*out->maps), map_cmp);
	return 0;
}

size_t mmap_log__count(const struct mmap_log *l)
{
	return l->procs.n;
}

void mmap_log__free(struct mmap_log *l)
{
	if (!l)
		return;
	mmap_log__clear(l);
	id_table__clear(&l->procs, NULL, false);
	path_pool__free(l->paths);
	free(l);
}
