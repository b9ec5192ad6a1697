/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_key.h: what the BPF programs and the loader agree on: the key and
 * value of the counts maps, the stats slots, and what a stack id may hold.
 */
#ifndef FLAMETOP_STACK_KEY_H
#define FLAMETOP_STACK_KEY_H

#define COMM_LEN 16
#define MAX_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */
#define MAX_FILTER_TGIDS 64

/*
 * A stack id is an index into a STACK_TRACE map of the active set. A stack
 * that collides in the primary map is stored in that set's spill map, and
 * its id carries STACK_SPILL. Negative ids say why there is no stack: a
 * negative errno from bpf_get_stackid(), or one of the values below.
 */
#define STACK_SPILL 0x40000000
#define STACK_NOT_WALKED (-1000) /* this side was not asked for (-K / -U) */
#define STACK_NO_USER (-1001)    /* kernel thread, idle or exiting: no user stack */
#define STACK_NO_KERNEL (-1002)  /* sampled in user mode: there is no kernel stack */

struct stack_key {
	__u32 tgid;
	__u32 pid;
	__s32 kstack;
	__s32 ustack;
	char comm[COMM_LEN];
};

struct stack_value {
	__u64 count; /* events */
	__u64 bytes; /* read mode: bytes requested */
};

/*
 * Process notes, from the proc_notes ring buffer: a process to snapshot
 * now, while it runs, so that it can still be named after it exits. A new
 * address space (tgid, mm) is noted once per CPU and slot of a small cache;
 * a process in its first PROC_YOUNG_NS, while its libraries are still
 * being mapped, again at most every PROC_NOTE_GAP_NS.
 */
#define PROC_SEEN_SLOTS 256
#define PROC_NOTES_BYTES (64 * 1024)
#define PROC_YOUNG_NS (200 * 1000000ULL)
#define PROC_NOTE_GAP_NS (4 * 1000000ULL)

enum proc_note_kind {
	PROC_NOTE_SAMPLE, /* a new address space was seen */
	PROC_NOTE_YOUNG,  /* a young process was seen: its maps may still change */
};

struct proc_note {
	__u32 tgid;
	__u32 kind;           /* enum proc_note_kind */
	__u64 start_boottime; /* when the process started, ns since boot: tells pids apart */
};

/* Per-CPU counters in the stats map. Every event either lands in a counts
 * map or bumps STAT_LOST_*; STAT_*STACK_* mark events counted with a stack
 * missing. */
enum stat_slot {
	STAT_EVENTS,            /* events that passed the filters */
	STAT_LOST_COUNTS_FULL,  /* not counted: the counts map was full */
	STAT_LOST_BUSY,         /* not counted: the map sets were being swapped */
	STAT_KSTACK_COLLISION,  /* kernel stack: -EEXIST in both stack maps */
	STAT_KSTACK_NOMEM,      /* kernel stack: -ENOMEM, stack map full */
	STAT_KSTACK_FAULT,      /* kernel stack: -EFAULT or another error */
	STAT_USTACK_COLLISION,
	STAT_USTACK_NOMEM,
	STAT_USTACK_FAULT,
	STAT_NR,
};

/* The value of the per-CPU stats map's one entry: every slot, read at once. */
struct stat_counters {
	__u64 slot[STAT_NR];
};

#endif
