/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmap_watch: the executable mappings every process makes, as the kernel
 * announces them when they are made, as perf record learns them: a dummy
 * perf event per CPU, system-wide, receives a PERF_RECORD_MMAP2 for each
 * executable mapping (its file's device and inode, its offset, its path),
 * a PERF_RECORD_COMM at each exec, and a PERF_RECORD_FORK and _EXIT as
 * processes start and end. They are kept in an mmap_log, so that a process
 * that ended before its maps could be read (/proc/PID/maps) is still
 * described: its frames named, its copied stacks walked.
 *
 * A path in a record is only a name: the file is opened by it only when
 * it still has the record's device and inode (mapped_file__open()).
 */
#ifndef FLAMETOP_MMAP_WATCH_H
#define FLAMETOP_MMAP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "symbols/procmaps.h"

struct mmap_watch;

/*
 * mmap_watch__open() starts watching on every online CPU. Returns NULL
 * with errno set when the kernel refuses (no privilege).
 */
struct mmap_watch *mmap_watch__open(void);

/*
 * mmap_watch__poll() reads what the kernel announced since the last call,
 * at @pass (the caller's clock: a process that ended is described for
 * MMAP_LOG_ENDED_PASSES more). Records lost (a ring overflowed) make it
 * forget every process: any of them may miss a mapping or an exec. Returns
 * true when anything came. It never blocks.
 */
bool mmap_watch__poll(struct mmap_watch *w, uint64_t pass);

/*
 * mmap_watch__maps() copies the executable mappings of process @pid, as
 * announced since it started, into @out (mmap_log__maps()). Returns 0,
 * -ENOENT when they are not known (it started before the watch, or news of
 * it was lost), or -ENOMEM.
 */
int mmap_watch__maps(const struct mmap_watch *w, uint32_t pid, struct proc_maps *out);

/* Times records were lost so far. */
uint64_t mmap_watch__losses(const struct mmap_watch *w);

/* mmap_watch__close(NULL) is a no-op. */
void mmap_watch__close(struct mmap_watch *w);

#endif
