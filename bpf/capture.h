/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture: the loader. open -> size maps and set rodata -> load -> attach
 * the first hook of the mode that works; then, every drain, flip to the
 * other map set and read the quiescent one. No libbpf type leaks out of here.
 *
 * A mode is a row in capture.c's table: a list of hooks to try in order.
 * Adding one (off-CPU time, page faults) is a BPF program and a row.
 */
#ifndef FLAMETOP_CAPTURE_H
#define FLAMETOP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/stack_key.h"
#include "unwind/stack_walk.h"

struct unwind_maps;
struct python_maps;

enum capture_mode {
	CAPTURE_SAMPLE, /* on-CPU sampling: a perf event per online CPU */
	CAPTURE_READ,   /* every vfs_read (or read-family syscall) */
	CAPTURE_OFFCPU, /* time off the CPU: every context switch */
	CAPTURE_MODE_NR,
};

struct capture_opts {
	enum capture_mode mode;
	unsigned int freq;          /* sample mode: samples per second per CPU */
	uint64_t min_block_ns;      /* off-CPU mode: shorter waits are dropped (and counted) */
	double drain_period;        /* seconds between drains; sizes the maps (at high rates
				     * shortened: capture__drain_period()) */
	bool kernel_stacks;         /* walk kernel stacks */
	bool user_stacks;           /* walk user stacks */
	const uint32_t *tgids;      /* only these processes (matched on tgid) ... */
	size_t ntgids;              /* ... when ntgids > 0; at most MAX_FILTER_TGIDS */
	const char *comm;           /* only this exact comm, when not NULL */
	uint32_t stack_entries;     /* stacks the seen map keeps; 0 chooses from the expected load */
	uint32_t count_entries;     /* count keys kept (slots per half); 0 chooses */
	struct unwind_maps *unwind; /* walk user stacks with these tables (--unwind auto); NULL:
				     * along the frame pointers (--unwind fp) */
	bool cold_copies;           /* with them, copy the user stacks the walk could not finish
				     * for want of tables (capture_stack.ucopy) */
	struct python_maps *python; /* walk the Python frames of these processes (--python on);
				     * NULL: none */
	/*
	 * How long one read (capture__drain(), capture__consume_events()) may
	 * go on, whatever the rate and the backlog: it ends once @read_budget
	 * seconds have passed since it began (0: no limit), or once @stop
	 * (asked now and then, with @stop_ctx; NULL: never) says so. What a
	 * drain so ended left is counted (capture_stats.undrained), not read;
	 * the events left wait for the next read.
	 */
	double read_budget;
	bool (*stop)(void *ctx);
	void *stop_ctx;
	/*
	 * Seconds after the attach at which counting pauses by itself
	 * (capture__pause(), from a thread of the capture's own; 0: never): at
	 * a high rate sampling takes most of the CPU and the caller can be
	 * seconds late to its own deadline.
	 */
	double duration;
};

/* One counted stack, as drained. Addresses are leaf first. */
struct capture_stack {
	uint32_t tgid, pid;
	char comm[COMM_LEN + 1]; /* raw from the kernel: not sanitized */
	const uint64_t *kips;    /* kernel frames, nk of them */
	uint32_t nk;
	int32_t kerr;            /* 0, or why there is no kernel stack: -errno or STACK_* */
	uint64_t khash;          /* the kernel stack's hash: the same frames, the same hash */
	const uint64_t *uips;    /* user frames, nu of them */
	uint32_t nu;
	int32_t uerr;
	uint32_t uend;           /* enum unwind_end: why the user walk stopped */
	uint64_t uhash;
	/*
	 * With uerr 0 and ucopy.bytes set, the user stack was not walked but
	 * copied (bpf/cold_stack.bpf.h), to be walked with unwind/stack_walk.h
	 * (uips, nu, uend then say nothing).
	 */
	struct stack_copy ucopy;
	bool ucopy_new;          /* ... passed on for the first time (a wait's comes at each drain) */
	const uint64_t *pywords; /* the thread's Python frames, npy words of them (see
				  * python/py_layout.h), leaf first */
	uint32_t npy;
	int32_t pyerr;           /* 0, or why there are none: -errno or STACK_* */
	uint32_t pyend;          /* enum py_end: why the Python walk stopped */
	uint64_t count;          /* events (off-CPU mode: waits closed) */
	uint64_t weight;         /* read mode: bytes requested; off-CPU mode: ns off the CPU */
};

/* Totals since open, summed over CPUs; slots are enum stat_slot. */
struct capture_stats {
	uint64_t slot[STAT_NR];
	uint64_t undrained; /* events counted, never read: drains ended early (read_budget) */
};

struct capture;

/* Called once per counted stack during capture__drain(). */
typedef void (*capture_stack_fn)(void *ctx, const struct capture_stack *stack);

/*
 * capture__open() loads and attaches the first working hook of @opts->mode.
 * On failure returns -errno, *@out is NULL, and @err (capacity @err_size)
 * holds one line saying what failed. Nothing stays attached on failure.
 */
int capture__open(const struct capture_opts *opts, struct capture **out, char *err,
		  size_t err_size);

/* The hook in use, e.g. "perf_event cpu-clock" or "syscall-entry tracepoint". */
const char *capture__hook(const struct capture *cap);

/*
 * Why better hooks of this mode failed, e.g. "fentry/vfs_read: Operation not
 * permitted; kprobe/vfs_read: kernel built without kprobes", or "".
 */
const char *capture__hook_notes(const struct capture *cap);

enum capture_mode capture__mode(const struct capture *cap);

/*
 * True when user stacks are walked with the unwind tables: they were
 * given, and this kernel has bpf_loop() (5.17); else along the frame
 * pointers.
 */
bool capture__unwinds_with_tables(const struct capture *cap);

/*
 * True when, walking with the unwind tables, the capture also notes the
 * end of each process the walk has mappings of (PROC_NOTE_EXIT): a hook
 * on process exit that this kernel took.
 */
bool capture__notes_exits(const struct capture *cap);

/*
 * Seconds between drains that the maps are sized for: the opts' drain_period
 * (1 s when 0), shortened in sample mode where the rate would bring a drain
 * more than MAX_DRAIN_EVENTS events, so that the kernel's maps stay tens
 * of MB, not hundreds, at the top rates. The caller drains this often.
 */
double capture__drain_period(const struct capture *cap);

/*
 * When capture began: CLOCK_MONOTONIC seconds taken just before the hook
 * was attached (no event was counted before it).
 */
double capture__started(const struct capture *cap);

/*
 * When capture ended: CLOCK_MONOTONIC seconds taken at the first
 * capture__pause(), or once the first capture__stop() had detached every
 * hook (nothing counts after either), or 0 before that.
 */
double capture__stopped(const struct capture *cap);

/* Number of CPUs sampled (sample mode) or traced. */
int capture__ncpus(const struct capture *cap);

/*
 * capture__drain() switches events to the other map set, waits until none
 * is still recording into the old one, reads the new stacks, calls @fn for
 * each counted stack of the old set, and empties its counts (stacks are
 * kept: the BPF side sends each once, until the seen map fills). Returns
 * the number of stacks passed to @fn, or -errno. Stack pointers passed to
 * @fn are valid only during the call. A drain ended early by the read
 * budget or the stop callback (capture_opts) empties the counts all the
 * same: what it did not pass to @fn goes to capture_stats.undrained.
 */
int capture__drain(struct capture *cap, capture_stack_fn fn, void *ctx);

/*
 * Called for each process note during capture__consume_events(), @kind an
 * enum proc_note_kind (stack_key.h): seen, young or with stale maps (its
 * maps are to be read now; young: they may still change), or ended.
 * @start_boottime is when it started, in ns since boot.
 */
typedef void (*capture_proc_fn)(void *ctx, uint32_t tgid, uint32_t kind, uint64_t start_boottime);

/*
 * capture__event_fd() returns a descriptor that polls readable when
 * events wait: process notes (a process or address space sampled for the
 * first time, or a young one sampled again, in every mode, within the
 * filters, to be snapshotted while it runs), or new stacks filling their
 * ring buffer past a quarter, to be read before it overflows.
 */
int capture__event_fd(const struct capture *cap);

/*
 * capture__arm_stacks_fill() reads the new stacks waiting and returns a
 * descriptor that polls readable once more have filled their ring buffer
 * past a quarter (not when a process note waits), or -1. To poll while
 * notes are left to wait; asked again before each such poll.
 */
int capture__arm_stacks_fill(struct capture *cap);

/*
 * capture__consume_events() reads the new stacks waiting (kept for the
 * next drain) and calls @fn for each process note waiting, in order,
 * without blocking. Returns the number of notes but exits, or -errno. Notes and
 * stacks are lost (and stacks counted), not blocked on, when the reader
 * falls far behind. Ended early (capture_opts' read budget, or stop), it
 * leaves the rest waiting.
 */
int capture__consume_events(struct capture *cap, capture_proc_fn fn, void *ctx);

/*
 * capture__stop() detaches every hook but keeps the maps, so that a last
 * capture__drain() collects everything that was counted (off-CPU mode:
 * with the waits still open counted up to now).
 */
void capture__stop(struct capture *cap);

/*
 * capture__pause() makes sample and read mode count nothing more, at once
 * (the programs return at their first instruction), and notes the time;
 * the hooks stay attached until capture__stop(). Async-signal-safe, and
 * safe from any thread while another uses @cap: a deadline or a signal
 * ends counting on time however busy sampling keeps the loader. Off-CPU
 * mode has waits open that only capture__stop() counts up: it ignores it.
 */
void capture__pause(struct capture *cap);

/*
 * capture__cpu_events() writes, for each CPU id below @n, the number of
 * events that passed the filters on that CPU since open. Returns the number
 * of CPU ids written.
 */
int capture__cpu_events(const struct capture *cap, uint64_t *events, int n);

/*
 * True when every CPU is sampled at exactly the requested rate, idle or not
 * (the CPU clock at a fixed period), so that a CPU that delivered fewer
 * samples was idle and the kernel skipped it.
 */
bool capture__fixed_rate(const struct capture *cap);

/* The events @st says were not counted, for every reason. */
uint64_t capture_stats__lost(const struct capture_stats *st);

/*
 * capture_stats__since() sets @out to what was counted between @mark and
 * @now, two readings of one capture (capture__stats()); @out may be @now.
 * capture_stats__add() adds @more to @sum, slot by slot: the counts of
 * several stretches, or of several captures.
 */
void capture_stats__since(struct capture_stats *out, const struct capture_stats *now,
			  const struct capture_stats *mark);
void capture_stats__add(struct capture_stats *sum, const struct capture_stats *more);

/* Sums the CPUs' counters into @stats (a read of memory: no system call). */
void capture__stats(const struct capture *cap, struct capture_stats *stats);

/*
 * capture__set_filter() replaces the in-kernel filters: @ntgids pids
 * (0: any) and @comm (NULL: any). Returns 0, or -EINVAL for more than
 * MAX_FILTER_TGIDS pids or a comm longer than COMM_LEN - 1 bytes.
 */
int capture__set_filter(struct capture *cap, const uint32_t *tgids, size_t ntgids,
			const char *comm);

/* capture__close() detaches and frees everything; NULL is a no-op. */
void capture__close(struct capture *cap);

/* The mode's name ("sample", "read", "offcpu"); NULL for an unknown mode. */
const char *capture_mode__name(enum capture_mode mode);

/*
 * Why a user stack's walk ended, in a few words ("no table, no frame
 * pointer", "depth limit"); NULL for UNWIND_WHOLE and unknown values.
 */
const char *unwind_end__name(uint32_t end);

/* Why a Python walk ended, in a few words ("depth limit"); NULL for PY_END_WHOLE and unknown. */
const char *py_end__name(uint32_t end);

/* Parses a mode name; returns 0 or -EINVAL. */
int capture_mode__parse(const char *name, enum capture_mode *mode);

#endif
