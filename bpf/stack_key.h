/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_key.h: what the BPF programs and the loader agree on: the keys and
 * values of the stack and counts maps, the stats slots, the process notes.
 */
#ifndef FLAMETOP_STACK_KEY_H
#define FLAMETOP_STACK_KEY_H

#include "python/py_layout.h"
#include "unwind/unwind_end.h"

#define COMM_LEN 16
#define MAX_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */
#define MAX_FILTER_TGIDS 64

/*
 * A stack is sent to user space once, through the stacks ring buffer, the
 * first time it is walked; counts refer to it by a 64-bit hash of its
 * addresses that the BPF program computes, and the `seen` map holds the
 * hashes already sent. A side's error says why there is no stack:
 * 0 when there is one, a negative errno from the walk or the store, or one
 * of the values below.
 */
#define STACK_NOT_WALKED (-1000) /* this side was not asked for (-K / -U) */
#define STACK_NO_USER (-1001)    /* kernel thread, idle or exiting: no user stack */
#define STACK_NO_KERNEL (-1002)  /* sampled in user mode: there is no kernel stack */
#define STACK_NO_PYTHON (-1003)  /* a Python process's thread without Python frames now */

/*
 * The records of the stacks ring buffer: a stack, or a counts key. Both
 * start with the same 16 bytes; @kind tells them apart.
 */
enum sent_kind {
	SENT_STACK,
	SENT_KEY,
	SENT_COLD,
	SENT_PYSTACK,
};

/* A stack: the head, then @nr addresses, leaf first. */
struct sent_stack {
	__u64 hash;
	__u32 nr;
	__u16 kind; /* SENT_STACK */
	__u16 end;  /* enum unwind_end (user stacks; kernel stacks are whole) */
	__u64 ips[MAX_STACK_DEPTH];
};

#define SENT_STACK_HEAD 16 /* bytes before ips */

/*
 * A user stack the walk could not finish (the process's tables were not in
 * yet, or it met code its known mappings do not hold), to be walked on in
 * user space once the tables are in (unwind/stack_walk.h): the frames the
 * walk found, leaf first, the registers of the last of them (where it
 * stopped), and a copy of the stack from there up. Sent once, like a
 * stack; @hash, unique to the copy, stands for the stack in its key. The
 * copy is whole pages from the one that holds sp up, COLD_PAGES at most,
 * cut short where the stack ends.
 */
#define COLD_PAGES 4
#define COLD_PAGE 4096

struct sent_cold {
	__u64 hash;
	__u32 len;  /* bytes copied, from base: whole pages */
	__u16 kind; /* SENT_COLD */
	__u16 cut;  /* 1: the stack may go on above the copy */
	__u64 ip, sp, bp; /* the registers of frame ips[nr - 1], where the walk stopped */
	__u64 base;       /* the user address of bytes[0]: sp's page */
	__u32 nr;         /* frames found, 1 at least */
	__u32 trusted;    /* ... the first of which rules found (see native_walk.bpf.h) */
	__u64 ips[MAX_STACK_DEPTH];
	__u8 bytes[COLD_PAGES * COLD_PAGE];
};

#define SENT_COLD_HEAD (56 + 8 * MAX_STACK_DEPTH) /* bytes before bytes[] */

/*
 * Why a thread's Python walk ended (bpf/python_walk.bpf.h), sent with its
 * stack and counted by the stats.
 */
enum py_end {
	PY_END_WHOLE,       /* at the thread's first frame */
	PY_END_NO_THREAD,   /* no thread state is this thread's: it runs no Python */
	PY_END_UNREADABLE,  /* a thread state or frame could not be read */
	PY_END_DEPTH,       /* PY_MAX_DEPTH frames (python/py_layout.h) */
	PY_END_UNSUPPORTED, /* an interpreter whose build did not check out: not walked */
	PY_END_NR,
};

/*
 * A Python stack: the head as a sent_stack's (kind SENT_PYSTACK, end an
 * enum py_end), then @nr words, PY_WORDS_PER_FRAME per frame, leaf first
 * (python/py_layout.h says what they hold).
 */
struct sent_pystack {
	__u64 hash;
	__u32 nr;
	__u16 kind;
	__u16 end;
	__u64 words[PY_WORDS_PER_FRAME * PY_MAX_DEPTH];
};

struct stack_key {
	__u32 tgid;
	__u32 pid;
	__u64 kstack; /* hash of the kernel stack, when kerr is 0 */
	__u64 ustack; /* hash of the user stack, when uerr is 0 */
	__s32 kerr;
	__s32 uerr;
	char comm[COMM_LEN];
	__u64 pystack; /* hash of the thread's Python stack, when pyerr is 0 */
	__s32 pyerr;
	__u32 pad;     /* 0 */
};

struct stack_value {
	__u64 count; /* events */
	__u64 weight; /* read mode: bytes requested; off-CPU mode: nanoseconds off the CPU */
};

/*
 * Counts are kept in slots: each key gets a slot the first time it is
 * counted (the key_slots map remembers which), is sent to user space with
 * it, and is counted in that slot of the active set's counts array, which
 * user space reads (mmapped) and zeroes at each drain: no system call per
 * key. The slots come in two halves of half_slots, each with its own
 * key_slots map; keys take slots from one half until user space switches
 * halves (the other half's map is empty then), and it forgets the half
 * left's keys one drain later, once nothing counts there, and gives that
 * half an empty map.
 */
struct sent_key {
	__u64 pad;
	__u32 slot;
	__u16 kind; /* SENT_KEY */
	__u16 pad2;
	struct stack_key key;
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

#define PROC_STALE_GAP_NS (200 * 1000000ULL)

enum proc_note_kind {
	PROC_NOTE_SAMPLE, /* a new address space was seen */
	PROC_NOTE_YOUNG,  /* a young process was seen: its maps may still change */
	PROC_NOTE_STALE,  /* a walk met code outside the process's known mappings (at most every
			   * PROC_STALE_GAP_NS per CPU and slot): its maps changed */
	PROC_NOTE_EXIT,   /* a process the walk has mappings of ended (its last thread exited) */
};

struct proc_note {
	__u32 tgid;
	__u32 kind;           /* enum proc_note_kind */
	__u64 start_boottime; /* when the process started, ns since boot: tells pids apart */
};

/*
 * User stacks walked with unwind tables (--unwind auto; the tables and
 * their rules are unwind/unwind_rule.h's). The loader fills five maps:
 *
 * - unwind_rules: the rule dictionary, by rule id;
 * - unwind_tables: an array of maps, by table id: each file's table, an
 *   array of struct unwind_row elements laid out for a short search:
 *	[0]			{ off: the table's generation, rule: nbuckets }
 *	[1 + b], b < nbuckets	{ off, rule: the elements [off, rule) holding the rows
 *				  in effect anywhere in file offsets
 *				  [b << UNWIND_BUCKET_SHIFT, (b + 1) << UNWIND_BUCKET_SHIFT) }
 *	then the rows, sorted by offset;
 * - unwind_pids: tgid -> slot (or why there is none), unwind_procs: slot
 *   -> the range of unwind_mappings that holds the process's executable
 *   mappings, each naming its file's table (and the table's generation, so
 *   that a slot of unwind_tables given to another file is never taken for
 *   the old one). A process's entry is replaced by writing its mappings
 *   into a free range and a new slot, and then pointing its tgid there.
 */
#define UNWIND_MAX_MAPS 4096     /* executable mappings of a process described (a power of two) */
#define UNWIND_MAX_TABLES 4096  /* tables loaded at once */
#define UNWIND_BUCKET_SHIFT 8   /* 256 bytes of code per bucket: at most 257 rows in one */

/*
 * What unwind_pids holds for a process: its slot in unwind_procs, or why
 * it has none, for the walk to say (a process not in the map at all is not
 * described yet).
 */
#define UNWIND_NO_SLOT 0xffffffffu    /* not described */
#define UNWIND_PID_SLOTS_FULL 0xfffffffeu /* no process slot was free */
#define UNWIND_PID_POOL_FULL 0xfffffffdu /* no room in the mappings' pool (--unwind-memory) */
#define UNWIND_SLOT_REASONS 0xfffffff0u /* slots from here on are reasons */

/* What unwind_map.gen says of a mapping without a table (table 0). */
#define UNWIND_GEN_NO_CFI 0     /* code without CFI (or JIT code): walked by frame pointer */
#define UNWIND_GEN_NO_ROOM 1    /* its table did not fit in --unwind-memory: by frame pointer */

struct unwind_map {
	__u64 start, end; /* [start, end) */
	__u32 off;        /* the file offset mapped at start */
	__u16 table;      /* table id + 1; 0: no table (walked by frame pointer) */
	__u16 gen;        /* the generation the table must have (table 0: UNWIND_GEN_*) */
};

/*
 * A process slot: its executable mappings, sorted by start, are
 * unwind_mappings[first, first + n), a range of one pool that every
 * process's mappings share (sized from --unwind-memory).
 */
struct unwind_proc {
	__u32 first, n;
	__u32 tgid; /* the process the slot describes; 0 once it no longer does */
	__u16 more; /* 1: it has more executable mappings than UNWIND_MAX_MAPS (not described) */
	__u16 pad;
};

/*
 * Off-CPU mode: what a thread left the CPU for (its state then), and how
 * many waits may be open at once (threads off a CPU, within the filters,
 * since flametop started).
 */
enum offcpu_state {
	OFFCPU_PREEMPTED, /* still runnable: waiting for a CPU */
	OFFCPU_SLEEPING,  /* interruptible sleep: a lock, a timer, a socket, a pipe */
	OFFCPU_DISK,      /* uninterruptible: disk and other I/O, some locks */
	OFFCPU_IDLE,      /* a kernel thread idle between jobs (TASK_IDLE), or stopped */
	OFFCPU_STATE_NR,
};

#define OFFCPU_MAX_WAITS 32768

#define WAIT_CLOSED (~0ULL) /* offcpu_wait.from of a wait that closed */

/*
 * A thread's wait in the offcpu_waits map, by thread id: open, or its last
 * one, closed (the entry stays while the thread lives).
 */
struct offcpu_wait {
	__u64 start; /* when the thread left the CPU, ns since boot */
	__u64 from;  /* counted up to here; WAIT_CLOSED once closed */
	__u32 state; /* enum offcpu_state */
	__u32 pad;
	struct stack_key key; /* its stacks, sent when it opened */
};

/* Per-CPU counters in the stats map. Every event either lands in a counts
 * map or bumps STAT_LOST_*; STAT_*STACK_* mark events counted with a stack
 * missing. */
enum stat_slot {
	STAT_EVENTS,            /* events that passed the filters */
	STAT_LOST_COUNTS_FULL,  /* not counted: the counts map was full */
	STAT_LOST_BUSY,         /* not counted: the map sets were being swapped */
	STAT_LOST_WAITS_FULL,   /* off-CPU: a wait not opened, no room in the waits map */
	STAT_KSTACK_NOMEM,      /* kernel stack: not sent (seen map or ring buffer full) */
	STAT_KSTACK_FAULT,      /* kernel stack: the walk failed (-EFAULT or another error) */
	STAT_USTACK_NOMEM,
	STAT_USTACK_FAULT,
	STAT_UWALK,             /* user stack walks, by how they ended: + enum unwind_end */
	STAT_OFFCPU_SHORT = STAT_UWALK + UNWIND_END_NR, /* off-CPU: waits under --min-block */
	STAT_OFFCPU_NS,         /* off-CPU: nanoseconds counted, by state: + enum offcpu_state */
	/* kernel stacks from the thread's memo of its last walk (walk_memo.bpf.h) */
	STAT_KMEMO = STAT_OFFCPU_NS + OFFCPU_STATE_NR,
	STAT_KMEMO_AUDIT,       /* memo uses walked anyway, to check it */
	STAT_KMEMO_STALE,       /* ... where the walk found another stack */
	STAT_UMEMO,             /* user stacks from the thread's memo of its last walk */
	STAT_UMEMO_AUDIT,
	STAT_UMEMO_STALE,
	STAT_COLD_SENT,         /* user stacks copied to be walked later (struct sent_cold) */
	STAT_COLD_BUDGET,       /* ... not copied: over the copies' budget (cold_per_sec) */
	STAT_COLD_LOST,         /* ... not sent: no room in the stacks ring */
	STAT_PYWALK,            /* Python walks, by how they ended: + enum py_end */
	/*
	 * Copies walked later, in user space (live/cold_stacks.c, never here), by
	 * how they ended: + enum unwind_end, + UNWIND_END_NR for a copy too short.
	 */
	STAT_COLD_WALK = STAT_PYWALK + PY_END_NR,
	STAT_NR = STAT_COLD_WALK + UNWIND_END_NR + 1,
};

/*
 * A CPU's entry of the stats map: the stats slots, and the events still
 * being recorded into each set of counts on this CPU (see capture.bpf.c's
 * set_enter()). One value, so that an event touches one cache line for
 * both; whole cache lines, so that no two CPUs write the same one.
 */
struct stat_counters {
	__s64 inflight[2];
	__u64 slot[STAT_NR];
} __attribute__((aligned(64)));

#endif
