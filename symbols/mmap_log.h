/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmap_log: the executable mappings of processes as the kernel announced
 * them when they were made (perf mmap records, see mmap_watch.h), from each
 * process's start on (its fork, or its exec): what a process mapped is
 * still known after it exited, when /proc has nothing left of it (a
 * compiler's `as` lives 10 ms). Plain data in, plain data out: the caller
 * reads the announcements.
 *
 * The announcements come one ring per CPU, so a little out of order; each
 * carries its time (one clock for all), and what they say is kept by it: a
 * start drops only the mappings announced before it, a mapping announced
 * before its process's last start is ignored. A process whose start was
 * not seen (it ran before the log did), or whose parent's mappings were not
 * known when it forked, is not described: part of its mappings would pass
 * for all of them. Bounded (MMAP_LOG_PROCS processes, MMAP_LOG_ALL_MAPS
 * mappings: ~20 MB at most): a process that does not fit is not described.
 */
#ifndef FLAMETOP_MMAP_LOG_H
#define FLAMETOP_MMAP_LOG_H

#include <stdint.h>

#include "symbols/procmaps.h"

#define MMAP_LOG_PROCS 4096	 /* processes logged at most; the least recently told of go */
#define MMAP_LOG_MAPS 8192	 /* mappings of one process: past it, it is no longer described */
#define MMAP_LOG_ALL_MAPS 131072 /* mappings of all: past it, the least recently told of go */
#define MMAP_LOG_ENDED_PASSES 4	 /* passes a process that ended stays described */

struct mmap_log;

/* mmap_log__new() returns an empty log, or NULL when out of memory. */
struct mmap_log *mmap_log__new(void);

/*
 * mmap_log__start() says that process @pid started at @time: exec'd a new
 * program (@parent 0: no mappings yet), or was forked by process @parent
 * (it has @parent's mappings made before @time). Older news of a start is
 * ignored.
 */
void mmap_log__start(struct mmap_log *l, uint32_t pid, uint32_t parent, uint64_t time);

/*
 * mmap_log__map() says that process @pid mapped @m (its path copied) at
 * @time, in place of whatever it mapped there before.
 */
void mmap_log__map(struct mmap_log *l, uint32_t pid, uint64_t time, const struct proc_map *m);

/*
 * mmap_log__end() says that process @pid ended, in pass @pass (the
 * caller's clock: it never goes back).
 */
void mmap_log__end(struct mmap_log *l, uint32_t pid, uint64_t pass);

/* mmap_log__expire() forgets the processes that ended MMAP_LOG_ENDED_PASSES before @pass. */
void mmap_log__expire(struct mmap_log *l, uint64_t pass);

/* mmap_log__clear() forgets every process: announcements were lost, any may be missing. */
void mmap_log__clear(struct mmap_log *l);

/*
 * mmap_log__maps() copies the mappings of process @pid into @out (sorted by
 * start; freed with proc_maps__free()). Returns 0, -ENOENT when @pid is not
 * described (see above), or -ENOMEM.
 */
int mmap_log__maps(const struct mmap_log *l, uint32_t pid, struct proc_maps *out);

/* Processes logged, for stats. */
size_t mmap_log__count(const struct mmap_log *l);

/* mmap_log__free(NULL) is a no-op. */
void mmap_log__free(struct mmap_log *l);

#endif
