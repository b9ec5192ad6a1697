/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table_loader: threads that build unwind tables from files (unwind/) and
 * load them into the BPF maps (bpf/unwind_maps.h), so that neither a build
 * (10-30 ms for a large library) nor the kernel's wait after each load (an
 * RCU grace period) stalls the loop that drains and draws. It owns the
 * rule dictionary the tables share. Jobs run most wanted first; their
 * results come back to the thread that submitted them.
 *
 * No file can hold the others up: a build gets a slice of CPU time
 * (TABLE_SLICE_NS); one that needs more is handed to a second thread, which gives it
 * up to TABLE_CPU_NS, while the first goes on with the other files. Each
 * build is bounded (unwind/cfi_table.h's budget: CFI bytes, rows, CPU
 * time; the kernel memory its table would take), and what is refused is
 * said by the job's error (table_job__refusal()).
 */
#ifndef FLAMETOP_TABLE_LOADER_H
#define FLAMETOP_TABLE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_maps.h"
#include "symbols/procinfo.h"

#define TABLE_SLICE_NS (100 * 1000000ull) /* a build's CPU on the first thread */
#define TABLE_CPU_NS (1000 * 1000000ull)  /* the most a build may take, on the second */

/* Why a table was not built: a limit of its build's budget it went past. */
enum table_refusal {
	TABLE_REFUSED_CFI,    /* CFI larger than CFI_MAX_BYTES */
	TABLE_REFUSED_ROWS,   /* more rows (or FDEs) than CFI_MAX_ROWS */
	TABLE_REFUSED_CPU,    /* more CPU time than TABLE_CPU_NS */
	TABLE_REFUSED_MEMORY, /* a table larger than the whole memory budget */
	TABLE_REFUSED_NR,
};

struct table_job {
	/* Set by the submitter. */
	uint32_t id;	   /* the table slot to fill (or empty) */
	uint16_t gen;	   /* the generation the table gets */
	bool drop;	   /* empty the slot instead of filling it */
	int fd;		   /* the file to build from, or -1 ... */
	void *image;	   /* ... an ELF image in memory */
	size_t image_len;
	int root_fd;	   /* the mapping process's root, for its debug file, or -1 */
	char *path;	   /* the file's path in that root, or NULL */
	struct proc_creds creds; /* the mapping process's: its debug file is read with them ... */
	bool have_creds;	 /* ... when they could be read (else only files all may read) */
	uint32_t priority; /* higher first; raised with table_loader__want() */
	void *owner;	   /* the submitter's */
	/* Set by the loader. */
	int err;	    /* 0, or -errno (-ENOENT: the file has no CFI; a refusal's) */
	size_t rows, bytes; /* rows loaded, kernel bytes they take */
	size_t unsupported; /* rows whose rule the walk cannot follow */
	size_t refused_fdes; /* FDEs naming a register past CFA_REG_MAX */
	uint64_t build_ns;  /* time to build the table (not to load it) */
	const char *source; /* where the CFI came from */
	bool slow;	    /* it outgrew TABLE_SLICE_NS and went to the second thread */
	struct table_job *next;
};

struct table_loader;

/*
 * table_loader__new() starts the threads, loading into @maps (borrowed)
 * tables of at most @max_table_bytes of kernel memory each, and looking
 * for debug files under @debug_root (copied); a build gets @slice_ns of
 * CPU on the first thread (0: TABLE_SLICE_NS). Returns NULL with errno
 * set when it cannot.
 */
struct table_loader *table_loader__new(struct unwind_maps *maps, const char *debug_root,
				       size_t max_table_bytes, uint64_t slice_ns);

/* table_loader__submit() queues @job (allocated with table_job__new()). */
void table_loader__submit(struct table_loader *l, struct table_job *job);

/*
 * table_loader__hold() with @held true keeps the threads from taking any
 * job (one in progress finishes) until it is called with @held false; jobs
 * are still queued meanwhile.
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

/*
 * table_loader__free() stops the threads (a build under way ends within a
 * few thousand instructions); jobs not finished are freed. NULL is a no-op.
 */
void table_loader__free(struct table_loader *l);

/* A job with nothing to build from (fd, root_fd -1); NULL when out of memory. */
struct table_job *table_job__new(void);

/* table_job__free() closes and frees what @job holds; NULL is a no-op. */
void table_job__free(struct table_job *job);

/* table_job__refusal() returns the refusal finished @job's error says, or -1 when it says none. */
int table_job__refusal(const struct table_job *job);

/* The words for refusal @r, as the summary says them: "over 1 s of CPU". */
const char *table_refusal__text(enum table_refusal r);

#endif
