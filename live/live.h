/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live: the live source. Drains what bpf/capture collected, names every
 * frame through symbols/, and feeds the stacks to a profile through
 * profile__add(), the same entry point the folded-file reader uses.
 */
#ifndef FLAMETOP_LIVE_H
#define FLAMETOP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>

#include "bpf/capture.h"
#include "live/python_procs.h"
#include "live/unwinder.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

enum live_weight {
	WEIGHT_EVENTS, /* each event counts 1 (samples, or calls in read mode) */
	WEIGHT_BYTES,  /* read mode: each call counts the bytes it asked for */
	WEIGHT_TIME,   /* off-CPU mode: each wait counts its microseconds */
};

/* What a live source's events and counts are, for its figures and outputs. */
struct live_units {
	enum live_weight weight;
	const char *event; /* what an event is: "samples", "reads", "waits" */
	const char *type;  /* what a count counts: "samples", "reads", "bytes", "off-CPU time" */
	const char *unit;  /* the count's unit: "count", "bytes", "microseconds" */
};

/*
 * live_units() says what a source in @mode counts; @weight (read mode's
 * --weight) is the weight asked for, kept where the mode has a choice.
 */
struct live_units live_units(enum capture_mode mode, enum live_weight weight);

struct live;

/*
 * live__open() starts capturing with @copts into @prof, naming frames with
 * @sym, walking user stacks with @unwinder's tables (NULL: along the frame
 * pointers) and the Python frames of @python's processes (NULL: none); all
 * borrowed: they must outlive the source. The
 * processes running now (those of the filters) are described to the
 * unwinder once the programs are loaded; while the symbolizer's kernel
 * table is still being read, their tables wait for it (live__start()).
 * When @prof keeps addresses (profile__keep_addresses()), the stacks'
 * sites are counted there: in sample mode the leaf's as where the code
 * was, in the other modes every site as a call site.
 * On failure returns -errno and writes one line to @err.
 */
int live__open(const struct capture_opts *copts, enum live_weight weight, struct symbolizer *sym,
	       struct unwinder *unwinder, struct python_procs *python, struct profile *prof,
	       struct live **out, char *err, size_t err_size);

/*
 * live__start() finishes starting, while sampling has begun: it reads the
 * symbolizer's kernel table, in a thread while this one handles process
 * notes (the processes sampled first have their maps read and their
 * tables asked for meanwhile). Returns 0 or -errno (the kernel table could
 * not be read). Then the unwinder builds tables. When the capture's stop callback (capture_opts.stop) says
 * so meanwhile, it stops capturing (live__stop()) and then reads the table.
 */
int live__start(struct live *l);

/*
 * live__drain() moves everything captured since the last drain into the
 * profile. Returns the number of distinct stacks drained, or -errno.
 */
int live__drain(struct live *l);

/*
 * live__fold() keeps the profile within @max_stacks stacks for a long
 * session (profile__fold(): the stacks of processes that have exited fold
 * into their command's first). The profile's stacks move when it folds:
 * what borrows their frames (a view's trie) must be made again. The memory
 * a fold frees goes back to the system, and once a minute (a call being
 * once a refresh) what the caches freed. Returns the
 * number of stacks folded away, or -ENOMEM (the totals still exact).
 */
long live__fold(struct live *l, size_t max_stacks);

/*
 * Samples credited to "swapper/N;[idle, not sampled]": idle time, measured
 * in /proc/stat, during which the kernel did not sample an idle CPU.
 */
uint64_t live__idle_credited(const struct live *l);

/*
 * live__set_filter() replaces the in-kernel pid and comm filters (see
 * capture__set_filter()); idle accounting pauses while a filter is on.
 * Returns 0 or -errno.
 */
int live__set_filter(struct live *l, const uint32_t *tgids, size_t ntgids, const char *comm);

/*
 * Events wait between drains: new processes to snapshot before they exit.
 * live__poll_events() sets @pfd to the descriptor to poll for them, or
 * during a short quiet time after some were handled in a burst (so that
 * a burst of new processes costs a few wakeups, not one each) to one that polls
 * readable only when new stacks fill their ring buffer, and returns how many
 * milliseconds the caller may sleep before asking again (-1: no limit).
 * Events that came during a quiet time it handles itself, once the time
 * is over. When @pfd polls readable, the caller calls
 * live__handle_events(). Neither blocks.
 */
int live__poll_events(struct live *l, struct pollfd *pfd);
void live__handle_events(struct live *l);

/*
 * live__settle() waits, until CLOCK_MONOTONIC second @deadline (now: not
 * at all) or until @stop (NULL: never) with @ctx says so, for the tables
 * that the copied stacks still kept need (see live/cold_stacks.h), then
 * walks each of them into the profile, as far as its tables go. After the
 * last drain.
 */
void live__settle(struct live *l, double deadline, bool (*stop)(void *ctx), void *ctx);

/*
 * live__stop() stops capturing (the idle credit is brought up to now);
 * drains after it collect what was still in flight.
 */
void live__stop(struct live *l);

/*
 * live__walks_text() writes into @buf how user stacks are walked and how
 * the walks counted in @st (live__stats(), or a stretch of it:
 * capture_stats__since()) ended, e.g. "user stacks by unwind tables: 1234
 * whole, 5 truncated (table not loaded yet: 4, no table: 1)"; with @share,
 * the whole ones as a share ("99.6% whole"); "none walked" when there were
 * none; then what the unwinder refused so far, by reason ("; tables
 * refused: 1 over 1 s of CPU").
 */
void live__walks_text(const struct live *l, const struct capture_stats *st, bool share, char *buf,
		      size_t size);

/*
 * live__offcpu_text() writes into @buf how long the waits counted in @st
 * lasted and in which states, e.g. "off-CPU 12.345 s: 70% sleeping, 28%
 * uninterruptible (disk), 2% preempted; 3 waits under --min-block
 * dropped".
 */
void live__offcpu_text(const struct capture_stats *st, char *buf, size_t size);

/*
 * live__memo_text() writes into @buf how many stacks counted in @st were a
 * thread's last walk used again (off-CPU and read mode keep them), and how
 * many of those were walked again to check and found another stack: "walks
 * reused: 565012 kernel stacks as the thread's last walk found them (3005
 * walked again to check: 0 differed), 1234 user stacks ...".
 */
void live__memo_text(const struct capture_stats *st, char *buf, size_t size);

/*
 * live__symbols_text() writes into @buf what kept frames from being named
 * so far, or "" when nothing did: perf maps dropped to stay within their
 * budget, files not read for a process that may not read them, debug files
 * refused (by reason), files whose symbols came later than a drain could
 * wait, mapped files not opened for want of file descriptors (with the
 * open-file limit: their functions show as "file+0x..."), e.g. "symbols: 2
 * perf maps dropped (over their 64 MiB budget), 14 files not opened: out
 * of file descriptors (ulimit -n 64), their functions show as file+0x...".
 */
void live__symbols_text(const struct live *l, char *buf, size_t size);

/* The capture underneath, for its hook, stats and filters. */
struct capture *live__capture(const struct live *l);

/*
 * live__stats() is capture__stats() of @l's capture with what user space
 * counted beside it: the walks of stack copies (STAT_COLD_WALK).
 */
void live__stats(const struct live *l, struct capture_stats *st);

/* live__close() stops capturing (after a last drain, if wanted, by the caller). */
void live__close(struct live *l);

#endif
