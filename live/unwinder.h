/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwinder: what the BPF walk needs to unwind user stacks with tables,
 * kept up to date from the loop: for each process the live source notes,
 * its executable mappings, each naming its file's table; the tables
 * themselves, built once per file (keyed by the file itself: device,
 * inode, size and mtime; never by a build-id, which anyone can forge),
 * shared by every process mapping the file that may read it, built and
 * loaded by table_loader threads, most wanted first, within each build's
 * budget, and evicted (files no process maps any more first) to stay
 * within a memory budget.
 *
 * Until a process's mappings and tables are in, the walk falls back to
 * frame pointers for it, and says so in how its stacks end.
 */
#ifndef FLAMETOP_UNWINDER_H
#define FLAMETOP_UNWINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_maps.h"
#include "live/table_loader.h"
#include "symbols/procmaps.h"
#include "unwind/stack_walk.h"

#define UNWIND_MEMORY_DEFAULT (128u << 20) /* bytes: a busy desktop's code, with room */

struct unwinder_opts {
	const char *proc_root;  /* NULL: /proc */
	const char *debug_root; /* NULL: /usr/lib/debug */
	size_t memory_bytes;    /* kernel memory for tables and processes; 0: the default */
	uint64_t table_slice_ns; /* a build's CPU before it goes to the second thread; 0: TABLE_SLICE_NS */
};

struct unwinder_stats {
	size_t tables;      /* loaded */
	size_t pending;     /* queued or being built */
	size_t without;     /* files without CFI: walked by frame pointer */
	size_t over_budget; /* files left without a table: the memory budget was spent */
	size_t failed;      /* tables that could not be loaded */
	size_t refused[TABLE_REFUSED_NR]; /* tables not built: over a limit of their build */
	uint64_t refused_fdes; /* FDEs naming a DWARF register past CFA_REG_MAX: cut short */
	uint64_t unreadable;   /* files a process mapping them may not read: no table for it */
	size_t processes;   /* processes described to the walk */
	uint64_t no_slot;   /* descriptions of processes that found no slot free ... */
	uint64_t pool_full; /* ... or no room for their mappings in the pool */
	uint64_t exits;     /* ends told of processes described (exit notes, unwinder__note_ended()) */
	size_t rows;        /* rows loaded */
	size_t bytes;       /* kernel memory used by the maps and tables ... */
	size_t budget;      /* ... and allowed */
	uint32_t rules;     /* distinct rules */
	uint64_t build_ns;  /* time spent building tables, in all */
};

struct unwinder;

/*
 * unwinder__new() makes the BPF maps and starts the loader thread. Returns
 * 0 with *@out set, or -errno.
 */
int unwinder__new(const struct unwinder_opts *o, struct unwinder **out);

/* The maps a capture walks user stacks with. */
struct unwind_maps *unwinder__maps(struct unwinder *u);

/*
 * unwinder__note_process() describes process @tgid's executable mappings
 * @maps (a fresh snapshot, generation @maps_gen) to the walk, asking for
 * the tables of the files it maps. A process noted again with the same
 * generation costs a lookup.
 */
void unwinder__note_process(struct unwinder *u, uint32_t tgid, const struct proc_maps *maps,
			    uint64_t maps_gen);

/*
 * unwinder__note_ended() describes process @tgid, which has ended, with its
 * last executable mappings @maps (generation @maps_gen: as the kernel
 * announced them, see symbolizer__ended()) to the walks of its copied
 * stacks only: it leaves the BPF walk at once, and is let go as
 * unwinder__process_exited() says.
 */
void unwinder__note_ended(struct unwinder *u, uint32_t tgid, const struct proc_maps *maps,
			  uint64_t maps_gen);

/*
 * unwinder__process_exited() says that process @tgid ended (the capture's
 * exit note): the next pass lets go of its slot and its hold on its files'
 * tables, as it would of a process it found gone (one that copies of its
 * stack still wait for is kept for them, out of the walk).
 */
void unwinder__process_exited(struct unwinder *u, uint32_t tgid);

/*
 * unwinder__exits_noted() with @noted true says that the end of every
 * process given a slot will be told (unwinder__process_exited()): the
 * passes stop asking after each process, but for a look at all of them
 * every EXIT_ASK_PASSES (unwinder.c) and at those without a slot.
 */
void unwinder__exits_noted(struct unwinder *u, bool noted);

/*
 * unwinder__note_running() describes the processes running now to the
 * walk, reading their maps itself, so that their tables are built before
 * they are sampled: those of @tgids (@ntgids of them), or every process
 * when @ntgids is 0; only those named @comm when it is not NULL. Their
 * files are wanted less than those of processes noted as sampled. At most
 * half of the process slots go to them. @stop (NULL: never), asked with
 * @stop_ctx before each process, ends it early.
 */
void unwinder__note_running(struct unwinder *u, const uint32_t *tgids, size_t ntgids,
			    const char *comm, bool (*stop)(void *ctx), void *stop_ctx);

/*
 * unwinder__hold() with @held true keeps the loader from building tables
 * until it is called with @held false (what is asked for meanwhile waits):
 * for a moment when the CPU is wanted elsewhere.
 */
void unwinder__hold(struct unwinder *u, bool held);

/*
 * unwinder__pass() takes in what the loader finished, forgets processes
 * that exited (asking after them unless their exits are noted), and
 * evicts tables over the budget. Once per drain.
 */
void unwinder__pass(struct unwinder *u);

/*
 * unwinder__code_at() says what the walk of a stack copied from process
 * @tgid (unwind/stack_walk.h) finds at @addr: the rule of its table
 * (CODE_RULE, into *@r), code without a table, code whose table is not in
 * yet (or a process not described yet), or no code. As the BPF walk would
 * see it: the process's mappings as last described, even after it exited
 * while unwinder__keep_process() kept it. Tables read for it stay mapped
 * until the next unwinder__pass().
 */
enum stack_walk_code unwinder__code_at(struct unwinder *u, uint32_t tgid, uint64_t addr,
				       struct unwind_rule *r);

/*
 * unwinder__may_describe() is false when process @tgid is not described
 * and never will be: it has ended before its mappings were read (a copied
 * stack of it waits for nothing).
 */
bool unwinder__may_describe(const struct unwinder *u, uint32_t tgid);

/*
 * unwinder__keep_process() keeps process @tgid described to the walks of
 * copied stacks through the next pass, though it exited (its slot in the
 * BPF walk goes at once).
 */
void unwinder__keep_process(struct unwinder *u, uint32_t tgid);

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st);

/* unwinder__free(NULL) is a no-op. */
void unwinder__free(struct unwinder *u);

#endif
