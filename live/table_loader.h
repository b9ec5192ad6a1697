/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table_loader: a thread that builds unwind tables from files (unwind/)
 * and loads them into the BPF maps (bpf/unwind_maps.h), so that neither a
 * build (10-30 ms for a large library) nor the kernel's wait after each
 * load (an RCU grace period) stalls the loop that drains and draws. It owns
 * the rule dictionary the tables share. Jobs run most wanted first; their
 * results come back to the thread that submitted them.
 */
#ifndef FLAMETOP_TABLE_LOADER_H
#define FLAMETOP_TABLE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_maps.h"

struct table_job {
	/* Set by the submitter. */
	uint32_t id;       /* the table slot to fill (or empty) */
	uint16_t gen;      /* the generation the table gets */
	bool drop;         /* empty the slot instead of filling it */
	int fd;            /* the file to build from (taken), or -1 ... */
	void *image;       /* ... an ELF image in memory (taken) */
	size_t image_len;
	int root_fd;       /* the mapping process's root, for its debug file (taken), or -1 */
	char *path;        /* the file's path in that root (taken), or NULL */
	uint32_t priority; /* higher first; raised with table_loader__want() */
	void *owner;       /* the submitter's */
	/* Set by the loader. */
	int err;            /* 0, or -errno (-ENOENT: the file has no CFI) */
	size_t rows, bytes; /* rows loaded, kernel bytes they take */
	size_t unsupported; /* rows whose rule the walk cannot follow */
	uint64_t build_ns;  /* time to build the table (not to load it) */
	const char *source; /* where the CFI came from */
	struct table_job *next;
};

struct table_loader;

/*
 * table_loader__new() starts the thread, loading into @maps (borrowed) and
 * looking for debug files under @debug_root (copied). Returns NULL with
 * errno set when it cannot.
 */
struct table_loader *table_loader__new(struct unwind_maps *maps, const char *debug_root);

/* table_loader__submit() queues @job (allocated with table_job__new()). */
void table_loader__submit(struct table_loader *l, struct table_job *job);

/*
 * table_loader__hold() with @held true keeps the thread from taking any job
 * (one in progress finishes) until it is called with @held false; jobs are
 * still queued meanwhile.
 */
void table_loader__hold(struct table_loader *l, bool held);

/* table_loader__want() raises the priority of @job, still queued or not. */
void table_loader__want(struct table_loader *l, struct table_job *job, uint32_t priority);

/*
 * table_loader__done() takes the jobs finished since the last call, a list
 * through ->next (NULL when none): the caller frees each with
 * table_job__free(). Never blocks.
 */
struct table_job *table_loader__done(struct table_loader *l);

/* Rules in the dictionary, for stats. */
uint32_t table_loader__rules(const struct table_loader *l);

/* table_loader__free() stops the thread; jobs not finished are freed. NULL is a no-op. */
void table_loader__free(struct table_loader *l);

/* A job with nothing to build from (fd, root_fd -1); NULL when out of memory. */
struct table_job *table_job__new(void);

/* table_job__free() closes and frees what @job holds; NULL is a no-op. */
void table_job__free(struct table_job *job);

#endif
