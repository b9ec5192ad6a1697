// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_watch: the records of one read are gathered, sorted by time (each
 * ends with it: sample_id_all with PERF_SAMPLE_TIME, on CLOCK_MONOTONIC),
 * and given to the log in that order; the log keeps what comes later out
 * of order by the same times. What an exec later in the same read undoes
 * (a shell's fork, which copies its mappings, then its child's exec, which
 * drops them) is not given to the log at all. The mappings' names of a
 * read wait in one buffer, not a copy each: the log keeps one copy of each
 * path for all the mappings that name it.
 */
#include "symbols/mmap_watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "array.h"
#include "symbols/id_table.h"
#include "symbols/mmap_log.h"
#include "symbols/perf_ring.h"

#define WATCH_DATA_PAGES 64 /* 256 KiB a CPU: a few thousand mappings between two reads */

/* The fixed part of a PERF_RECORD_MMAP2 after its header; the file name follows. */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

/* PERF_RECORD_FORK and _EXIT after their header. */
struct task_body {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

enum news_kind { NEWS_EXEC, NEWS_FORK, NEWS_MAP, NEWS_EXIT };

/* One record, read. */
struct news {
	uint64_t time;
	uint32_t kind; /* enum news_kind */
	uint32_t pid, parent;
	struct proc_map m; /* NEWS_MAP: its path in names, at name_at (set when given to the log) */
	size_t name_at;
	/* While a read's news are weighed (undone_news()): its pid's last news, by {pid, 0} */
	struct id_node last;
	bool undone; /* an exec of its pid later in this read: what it says is of no account */
	bool execs;  /* (its pid's last news) an exec of that pid comes after the news weighed */
};

struct mmap_watch {
	struct perf_rings *rings;
	struct mmap_log *log;
	struct news *news; /* of the read under way */
	size_t n, cap;
	char *names; /* the paths of its mappings, each NUL-terminated */
	size_t names_len, names_cap;
	struct id_table pids; /* their pids' last news, while they are weighed */
	bool lost;
	uint64_t losses, pass;
	uint64_t expired_pass; /* the last pass the log was expired in */
};

struct mmap_watch *mmap_watch__open(void)
{
	const struct perf_event_attr attr = {
	    .mmap = 1,	/* executable mappings only (no mmap_data); the kernel counts mmap */
	    .mmap2 = 1, /* ... and then writes its records as MMAP2: with the inode */
	    .comm = 1,
	    .comm_exec = 1,
	    .task = 1,
	    .sample_id_all = 1,
	    .sample_type = PERF_SAMPLE_TIME,
	    .use_clockid = 1,
	    .clockid = CLOCK_MONOTONIC,
	    .watermark = 1,
	    .wakeup_watermark = WATCH_DATA_PAGES * 4096 / 2, /* nobody waits: few wakeups */
	};
	struct mmap_watch *w = calloc(1, sizeof(*w));
	int err = ENOMEM;

	if (w && (w->log = mmap_log__new()) != NULL &&
	    (w->rings = perf_rings__open(&attr, WATCH_DATA_PAGES)) != NULL)
		return w;
	if (w && w->log)
		err = errno;
	mmap_watch__close(w);
	errno = err;
	return NULL;
}

/* Keeps @n for the sort; false when out of memory (then news were lost). */
static bool add_news(struct mmap_watch *w, const struct news *n)
{
	if (array__grow((void **)&w->news, &w->cap, w->n + 1, sizeof(*w->news), 64))
		return false;
	w->news[w->n++] = *n;
	return true;
}

/* A mapping record's news into @n, its name kept in @w's names: false when it is not one to keep. */
static bool mmap2_news(struct mmap_watch *w, const void *body, size_t len, struct news *n)
{
	struct mmap2_body b;
	const char *name = (const char *)body + sizeof(b);

	if (len < sizeof(b) + sizeof(uint64_t))
		return false;
	memcpy(&b, body, sizeof(b));
	if (!(b.prot & PROT_EXEC) || !b.len || b.addr + b.len < b.addr)
		return false;
	n->kind = NEWS_MAP;
	n->pid = b.pid;
	n->m = (struct proc_map){.start = b.addr,
				 .end = b.addr + b.len,
				 .pgoff = b.pgoff,
				 .inode = b.ino,
				 .dev_major = b.maj,
				 .dev_minor = b.min};
	n->m.perms = (b.prot & PROT_READ ? MAP_PERM_R : 0) |
		     (b.prot & PROT_WRITE ? MAP_PERM_W : 0) | MAP_PERM_X |
		     (b.flags & MAP_SHARED ? 0 : MAP_PERM_P);
	len = strnlen(name, len - sizeof(b) - sizeof(uint64_t));
	/* perf's name for anonymous memory, as the maps file leaves it: nameless */
	if (len == 6 && !memcmp(name, "//anon", 6))
		len = 0;
	if (array__grow((void **)&w->names, &w->names_cap, w->names_len + PROC_MAP_NAME_MAX, 1,
			64 * 1024)) {
		w->lost = true; /* a mapping not logged: the log no longer knows it all */
		return false;
	}
	n->name_at = w->names_len;
	w->names_len += proc_map__clean_name(&n->m, name, len, w->names + n->name_at) + 1;
	return true;
}

/* A fork or exit record's news into @n: false when it brings none (a thread's). */
static bool task_news(const struct perf_event_header *h, const void *body, size_t len,
		      struct news *n)
{
	struct task_body t;

	if (len < sizeof(t))
		return false;
	memcpy(&t, body, sizeof(t));
	n->kind = h->type == PERF_RECORD_FORK ? NEWS_FORK : NEWS_EXIT;
	n->pid = t.pid;
	n->parent = t.ppid;
	/* A new thread of a process, or a thread that ended while others run: no news. */
	return n->kind == NEWS_FORK ? t.pid != t.ppid : t.pid == t.tid;
}

/* A record read (perf_ring_fn): its news kept, when it brings any. */
static void on_record(void *ctx, const struct perf_event_header *h, const void *body, size_t len)
{
	struct mmap_watch *w = ctx;
	struct news n = {0};
	bool keep = false;

	if (len < 2 * sizeof(uint64_t))
		return;
	memcpy(&n.time, (const char *)body + len - sizeof(uint64_t), sizeof(n.time));
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		keep = mmap2_news(w, body, len, &n);
		break;
	case PERF_RECORD_COMM: /* an exec, or a thread named anew */
		keep = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		n.kind = NEWS_EXEC;
		memcpy(&n.pid, body, sizeof(n.pid));
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		keep = task_news(h, body, len, &n);
		break;
	}
	if (keep && !add_news(w, &n))
		w->lost = true;
}

static int news_cmp(const void *a, const void *b)
{
	const struct news *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The last news of @pid in this read, from those weighed so far (newest first), or NULL. */
static struct news *last_news(const struct mmap_watch *w, uint32_t pid)
{
	struct id_node *node = id_table__find(&w->pids, pid, 0);

	return node ? (struct news *)((char *)node - offsetof(struct news, last)) : NULL;
}

/*
 * Marks undone the news (sorted by time) that an exec of their process
 * later in this read makes of no account: its start, the mappings it had
 * or made and its end (a pid used again) before the exec, which drops
 * them all; unless it forked before the exec, its child taking what it
 * had then. Under process churn most processes are a shell's fork that
 * execs at once, and the log then need not copy the shell's mappings
 * into each. Out of memory, nothing is marked.
 */
static void undone_news(struct mmap_watch *w)
{
	for (size_t i = w->n; i-- > 0;) {
		struct news *n = &w->news[i], *last = last_news(w, n->pid), *parent;

		if (!last) {
			n->last.key[0] = n->pid;
			if (id_table__insert(&w->pids, &n->last))
				break;
			last = n;
		}
		n->undone = last->execs;
		last->execs |= n->kind == NEWS_EXEC;
		/* A fork copies its parent's mappings as they are then. */
		if (n->kind == NEWS_FORK && !n->undone && (parent = last_news(w, n->parent)))
			parent->execs = false;
	}
	id_table__clear(&w->pids, NULL, true);
}

/* Gives the news read to the log, oldest first. */
static void apply_news(struct mmap_watch *w)
{
	if (w->n) {
		qsort(w->news, w->n, sizeof(*w->news), news_cmp);
		undone_news(w);
	}
	for (size_t i = 0; i < w->n; i++) {
		struct news *n = &w->news[i];

		if (n->undone)
			continue;
		if (n->kind == NEWS_EXEC || n->kind == NEWS_FORK) {
			mmap_log__start(w->log, n->pid, n->kind == NEWS_FORK ? n->parent : 0,
					n->time);
		} else if (n->kind == NEWS_MAP) {
			n->m.path = w->names + n->name_at;
			mmap_log__map(w->log, n->pid, n->time, &n->m);
		} else {
			mmap_log__end(w->log, n->pid, w->pass);
		}
	}
	w->n = 0;
	w->names_len = 0;
}

bool mmap_watch__poll(struct mmap_watch *w, uint64_t pass)
{
	bool any;

	w->pass = pass;
	any = perf_rings__drain(w->rings, on_record, w, &w->lost);
	apply_news(w);
	if (w->lost) {
		mmap_log__clear(w->log);
		w->losses++;
		w->lost = false;
	}
	if (w->expired_pass != pass)
		mmap_log__expire(w->log, pass);
	w->expired_pass = pass;
	return any;
}

int mmap_watch__maps(const struct mmap_watch *w, uint32_t pid, struct proc_maps *out)
{
	return mmap_log__maps(w->log, pid, out);
}

uint64_t mmap_watch__losses(const struct mmap_watch *w)
{
	return w->losses;
}

void mmap_watch__close(struct mmap_watch *w)
{
	if (!w)
		return;
	perf_rings__close(w->rings);
	mmap_log__free(w->log);
	free(w->news);
	free(w->names);
	id_table__clear(&w->pids, NULL, false);
	free(w);
}
