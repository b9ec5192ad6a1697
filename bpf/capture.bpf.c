// SPDX-License-Identifier: GPL-2.0
/*
 * capture.bpf.c: every flametop event source records through record_event():
 * filter on tgid and comm, walk the kernel and user stacks into the active
 * map set, count the stack. The loader picks one program per run (see
 * capture.c's mode table) and turns the others' autoload off.
 *
 * Process notes (see stack_key.h): a new address space and a young process
 * push the tgid into the proc_notes ring buffer, so that the loader
 * snapshots the process while it still runs.
 *
 * Double buffering: events are counted in the counts array of set
 * `active_set` (0 or 1). Before each drain the loader flips active_set, then
 * waits until no event is still recording into the old set (the per-CPU
 * inflight counters, in the stats map), so it reads a set nothing writes
 * to, and zeroes its counts before the set becomes active again. A key's
 * slot in the arrays is given once and sent with the key (see stack_key.h).
 *
 * Stacks: the kernel's are walked by bpf_get_stack(), the user's along the
 * frame pointers (walk_user_frames()) or the unwind tables, into per-CPU
 * scratch records (in off-CPU mode a thread that blocks where it blocked
 * last reuses that walk: thread_memos), and hashed (64 bits). A hash the
 * seen map in use does not hold yet is added there and the stack sent
 * through the `stacks` ring buffer, so
 * user space reads each stack once (from shared memory, without a system
 * call per stack) and keeps it until it switches to the other seen map, an
 * empty one (and bumps stack_gen); it forgets the stacks not sent again
 * one drain later, and puts a fresh map where the one left was. Two
 * different stacks with the same 64-bit hash would be merged: among n
 * stacks, with a probability of about n^2 / 2^65.
 *
 * Two maps instead of one to empty: the maps the loader must empty now and
 * then (seen, key_slots) are reached here through two-slot arrays of maps,
 * by a selector in .bss. Emptying is the loader switching the selector to
 * a map made empty; the map left is replaced whole once nothing uses it,
 * instead of having its entries deleted one by one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stack_key.h"
#include "unwind/unwind_rule.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST 17
#define ENOMEM 12
#define EFAULT 14
#define E2BIG 7
#define ENOSPC 28
#define EAGAIN 11
#define PF_KTHREAD 0x00200000

/* Set once, before load. */
const volatile bool walk_kernel = true;
const volatile bool walk_user = true;
const volatile bool unwind_with_tables = false; /* --unwind auto: the loader fills the unwind maps */
const volatile bool memo_walks = false; /* off-CPU mode: threads' last walks kept (thread_memos) */

/* Live state, written by the loader through the mmapped .bss. */
__u32 active_set;
__u32 filter_tgids_on;
__u32 filter_comm_on;
__u64 filter_comm[COMM_LEN / 8];
__u64 stack_gen; /* bumped by the loader each time it switches seen maps */
__u32 paused;    /* set by capture__pause(): sample and read mode count nothing more */
__u64 stop_at_ns; /* with a deadline: sample and read mode count nothing from then on
		   * (CLOCK_MONOTONIC ns; 0: none) */
__u32 seen_sel;  /* the seen map in use: seen[seen_sel & 1] */

#define COUNTS_MAP(name)                                                                           \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__type(key, __u32);                                                                \
		__type(value, struct stack_value);                                                 \
		__uint(max_entries, 2048); /* 2 * half_slots, sized by the loader */               \
		__uint(map_flags, BPF_F_MMAPABLE);                                                 \
	} name SEC(".maps")

COUNTS_MAP(counts0);
COUNTS_MAP(counts1);

/* The slot of each key counted in a half of the slots (see stack_key.h). */
struct key_slots_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct stack_key)); /* by size: BTF would hold the key a forward */
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1024); /* half_slots */
};

/* One key_slots map per half, made and put in by the loader before attaching. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 2);
	__array(values, struct key_slots_map);
} key_slots SEC(".maps");

const volatile __u32 half_slots = 1024;
__u32 slot_half;    /* & 1: the half new keys take their slots from; bumped at each switch */
__u32 slot_next[2]; /* slots taken in each half */

/* The hashes of the stacks sent in this epoch. */
struct seen_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u8);
	__uint(max_entries, 1024);
};

/* Two seen maps, made and put in by the loader before attaching; seen_sel picks one. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 2);
	__array(values, struct seen_map);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* sized by the loader */
} stacks SEC(".maps");

/* Where stacks are walked before they are hashed and sent: the kernel's [0], the user's [1]. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sent_stack);
	__uint(max_entries, 2);
} scratch SEC(".maps");

/*
 * Each CPU's stats and inflight counters, at its CPU number (max_entries set
 * to the possible CPUs at load): mapped into flametop, which reads them
 * without a system call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct stat_counters);
	__uint(max_entries, 1);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, MAX_FILTER_TGIDS);
} tgid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROC_NOTES_BYTES);
} proc_notes SEC(".maps");

/* The last address space noted, per CPU and slot (tgid % PROC_SEEN_SLOTS), and when. */
struct proc_seen {
	__u64 mm;
	__u64 ns;
	__u64 stale_ns; /* when a stale note was last sent from this slot */
	__u32 tgid;
	bool grown; /* was past PROC_YOUNG_NS when last met: no clock to read again */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct proc_seen);
	__uint(max_entries, PROC_SEEN_SLOTS);
} proc_seen SEC(".maps");

/* The unwind tables and what they need (see stack_key.h); sized by the loader. */
struct unwind_table_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unwind_row)); /* by size: BTF would hold it a forward */
	__uint(max_entries, 1);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1); /* UNWIND_MAX_TABLES when walking with tables */
	__array(values, struct unwind_table_map);
} unwind_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_rule);
	__uint(max_entries, 1); /* UNWIND_MAX_RULES */
} unwind_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1); /* process slots */
} unwind_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_proc);
	__uint(max_entries, 1); /* process slots */
} unwind_procs SEC(".maps");

/* This CPU's stats and inflight counters, or NULL (never). */
static __always_inline struct stat_counters *cpu_stats(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&stats, &cpu);
}

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	struct stat_counters *c = cpu_stats();

	if (c && slot < STAT_NR)
		__sync_fetch_and_add(&c->slot[slot], n);
}

static __always_inline void inflight_add(__u32 set, __s64 n)
{
	struct stat_counters *c = cpu_stats();

	if (c)
		__sync_fetch_and_add(&c->inflight[set & 1], n);
}

/*
 * Claims the active set: announce the event in inflight[set], then check the
 * set is still active. Once the re-read agrees, the loader's flip either came
 * after our increment (it will wait for us) or has not happened. Returns the
 * set, or -1 when it kept moving under us.
 */
static __always_inline int set_enter(void)
{
	for (int i = 0; i < 3; i++) {
		__u32 set = *(volatile __u32 *)&active_set & 1;

		inflight_add(set, 1);
		if ((*(volatile __u32 *)&active_set & 1) == set)
			return set;
		inflight_add(set, -1);
	}
	return -1;
}

/* Counts a stack that could not be had: not sent (no room), or the walk failed. */
static __always_inline void stack_failed(long err, bool user)
{
	__u32 base = user ? STAT_USTACK_NOMEM : STAT_KSTACK_NOMEM;

	stat_add(err == -ENOMEM || err == -E2BIG || err == -ENOSPC || err == -EAGAIN ? base
										     : base + 1,
		 1);
}

#define HASH_MUL 0x9E3779B97F4A7C15ULL

/* A stack's hash: HASH_MUL, each address in turn through hash_step(), then hash_end(). */
static __always_inline __u64 hash_step(__u64 h, __u64 ip)
{
	h = (h ^ ip) * HASH_MUL;
	return h ^ (h >> 29);
}

static __always_inline __u64 hash_end(__u64 h, __u32 nr)
{
	return (h ^ nr) * HASH_MUL;
}

/* The hash of the addresses of @t, before hash_end(). */
static __always_inline __u64 trace_hash_steps(const struct sent_stack *t)
{
	__u64 h = HASH_MUL;

	for (int i = 0; i < MAX_STACK_DEPTH; i++) {
		if (i >= t->nr)
			break;
		h = hash_step(h, t->ips[i]);
	}
	return h;
}

/*
 * Closes the hash @h of the stack walked into @t, which ended as @end
 * says (stacks that end otherwise are other stacks), and sets both.
 */
static __always_inline __u64 stack_hash_end(struct sent_stack *t, __u64 h, __u32 end)
{
	t->end = end;
	t->hash = hash_end(h, t->nr | end << 16);
	return t->hash;
}

#define RINGBUF_HDR 8 /* the ring buffer's own header before each record */

/*
 * Sends @size bytes at @data through the stacks ring buffer. User space
 * reads it at each drain; it is woken only to make room, once, by the
 * record that fills the ring past a quarter (a wakeup is an interrupt: one
 * per record would cost more than the walk).
 */
static __always_inline long ring_send(void *data, __u64 size)
{
	__u64 wakeup = BPF_RB_NO_WAKEUP;
	__u64 avail = bpf_ringbuf_query(&stacks, BPF_RB_AVAIL_DATA);
	__u64 quarter = bpf_ringbuf_query(&stacks, BPF_RB_RING_SIZE) / 4;

	if (avail < quarter && avail + size + RINGBUF_HDR >= quarter)
		wakeup = BPF_RB_FORCE_WAKEUP;
	return bpf_ringbuf_output(&stacks, data, size, wakeup);
}

/* Sends @t to user space, once (its hash goes in the seen map in use). */
static __always_inline long send_stack(struct sent_stack *t)
{
	__u32 sel = *(volatile __u32 *)&seen_sel & 1, nr = t->nr;
	void *sent = bpf_map_lookup_elem(&seen, &sel);
	__u8 one = 1;
	long err;

	if (!sent)
		return -EFAULT; /* never: the loader fills both slots before attaching */
	if (bpf_map_lookup_elem(sent, &t->hash))
		return 0;
	err = bpf_map_update_elem(sent, &t->hash, &one, BPF_NOEXIST);
	if (err)
		return err == -EEXIST ? 0 : err; /* -EEXIST: another CPU sends it */
	if (nr > MAX_STACK_DEPTH)
		nr = MAX_STACK_DEPTH;
	t->kind = SENT_STACK;
	err = ring_send(t, SENT_STACK_HEAD + nr * sizeof(__u64));
	if (err)
		bpf_map_delete_elem(sent, &t->hash); /* not sent: try again next time */
	return err;
}

/*
 * bpf_get_stack() zeroes what a walk leaves of its buffer: on a full
 * MAX_STACK_DEPTH buffer that costs more than a short walk itself. Stacks
 * are walked into FIRST_DEPTH frames first, and again whole only when
 * those are filled.
 */
#define FIRST_DEPTH 48

/* The per-CPU record the kernel or the user stack is walked into, or NULL (never). */
static __always_inline struct sent_stack *scratch_stack(bool user)
{
	__u32 side = user;

	return bpf_map_lookup_elem(&scratch, &side);
}

/*
 * Sends the stack of hash @hash walked into the kernel's or the user's
 * scratch record, unless the seen map says it was. A record that holds
 * another stack was not walked for this event (an idle CPU's kernel stack
 * comes from idle_kernel_stack()'s memo: it was sent when walked). Returns
 * 0, or a negative errno (counted in the stats) when it could not be.
 */
static __always_inline long send_walked(bool user, __u64 hash)
{
	struct sent_stack *t = scratch_stack(user);
	long err = !t ? -EFAULT : t->hash == hash ? send_stack(t) : 0;

	if (err)
		stack_failed(err, user);
	return err;
}

/*
 * Walks the current kernel or user stack with bpf_get_stack() into its
 * scratch record and sets *@hash to its key. Returns 0, or a negative
 * errno (counted in the stats) when there is no stack to count.
 */
static __always_inline long walk_stack(void *ctx, bool user, __u64 *hash)
{
	__u64 flags = user ? BPF_F_USER_STACK : 0;
	struct sent_stack *t = scratch_stack(user);
	long len;

	if (!t) {
		stack_failed(-EFAULT, user);
		return -EFAULT;
	}
	len = bpf_get_stack(ctx, t->ips, FIRST_DEPTH * sizeof(t->ips[0]), flags);
	if (len == FIRST_DEPTH * sizeof(t->ips[0])) /* maybe cut short: walk it whole */
		len = bpf_get_stack(ctx, t->ips, sizeof(t->ips), flags);
	if (len <= 0) {
		len = len < 0 ? len : -EFAULT; /* an empty stack is a failed walk */
		stack_failed(len, user);
		return len;
	}
	t->nr = len / sizeof(t->ips[0]);
	*hash = stack_hash_end(t, trace_hash_steps(t), UNWIND_WHOLE); /* the kernel's walk does not say */
	if (user)
		stat_add(STAT_UWALK + UNWIND_WHOLE, 1);
	return 0;
}

/*
 * The user registers a user stack walk starts from. A frame record, where
 * the frame pointer points, holds the caller's frame pointer then the
 * return address, on x86-64 and arm64 alike.
 */
struct user_regs {
	__u64 ip, sp, fp; /* ip 0: not known */
	bool compat;      /* a 32-bit task's */
};

/*
 * Whether user registers @regs (a struct pt_regs pointer, read with CO-RE,
 * or the perf event's own copy) are a 32-bit task's: by its code segment
 * on x86-64, its mode on arm64. Not by where its stack lies: a 64-bit
 * thread may be given a stack below 4 GiB.
 */
#if defined(__TARGET_ARCH_x86)
#define USER32_CS 0x23
#define REGS_COMPAT_CORE(regs) ((BPF_CORE_READ(regs, cs) & 0xffff) == USER32_CS)
/* A perf event's own copy is read whole words at a time: cs is the 18th of the uapi pt_regs. */
#define REGS_COMPAT(regs) ((((const __u64 *)(regs))[17] & 0xffff) == USER32_CS)
#elif defined(__TARGET_ARCH_arm64)
#define PSR_MODE32 0x10
#define REGS_COMPAT_CORE(regs) ((BPF_CORE_READ(regs, pstate) & PSR_MODE32) != 0)
#define REGS_COMPAT(regs) (((regs)->pstate & PSR_MODE32) != 0)
#endif

/* The user registers saved in @regs, a struct pt_regs pointer. */
#define USER_REGS_CORE(regs)                                                                       \
	((struct user_regs){ .ip = PT_REGS_IP_CORE(regs),                                          \
			     .sp = PT_REGS_SP_CORE(regs),                                          \
			     .fp = PT_REGS_FP_CORE(regs),                                          \
			     .compat = REGS_COMPAT_CORE(regs) })

/*
 * Whether @r can be walked here: known, and a 64-bit task's. 32-bit tasks
 * lay their frames out otherwise (bpf_get_stack() walks those).
 */
static __always_inline bool user_regs_walkable(const struct user_regs *r)
{
	return r->ip && !r->compat;
}

/*
 * The registers the current task entered the kernel with, saved at the
 * top of its kernel stack; NULL when this kernel cannot say
 * (bpf_task_pt_regs() came in 5.15).
 */
static __always_inline struct pt_regs *task_regs(void)
{
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return NULL;
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

/*
 * The user registers saved in @regs (task_regs()) into *@r; false when
 * there are none or they cannot be walked here.
 */
static __always_inline bool saved_user_regs(struct pt_regs *regs, struct user_regs *r)
{
	if (!regs)
		return false;
	*r = USER_REGS_CORE(regs);
	return user_regs_walkable(r);
}

/*
 * Walks the user stack from @r along the frame pointers, as the kernel's
 * perf_callchain_user() does, into its scratch record, as walk_stack()
 * does (--unwind fp). It also stops at a frame pointer that does not lead
 * up the stack (callers' frames sit above their callees'), where the
 * kernel's walk would read on, most often at a small number left in the
 * frame pointer register by code built without frame pointers (libc's
 * start code): reading it faults, and a fault costs more here than the
 * rest of the walk. A chain that ends in a null frame pointer or return
 * address reached the start code; any other end is UNWIND_NO_TABLE. (The
 * depth is kept in t->nr, not in a register: the verifier would go on from
 * each exit of the loop with its own depth, hundreds of times over.)
 */
static __always_inline long walk_user_frames(const struct user_regs *r, __u64 *hash)
{
	struct sent_stack *t = scratch_stack(true);
	__u64 fp = r->fp, below = r->sp, frame[2], h;
	__u32 end = UNWIND_DEPTH;

	if (!t) {
		stack_failed(-EFAULT, true);
		return -EFAULT;
	}
	t->ips[0] = r->ip;
	t->nr = 1;
	h = hash_step(HASH_MUL, r->ip);
	for (int i = 1; i < MAX_STACK_DEPTH; i++) {
		if (fp < below || bpf_probe_read_user(frame, sizeof(frame), (void *)fp) || !frame[1]) {
			/* A chain ends in a null frame pointer (or return address), not
			 * a leaf without one: its frame pointer was never set. */
			end = (!fp && i > 1) || (fp >= below && !frame[1]) ? UNWIND_WHOLE
									    : UNWIND_NO_TABLE;
			break;
		}
		t->ips[i] = frame[1];
		t->nr = i + 1;
		h = hash_step(h, frame[1]);
		below = fp + sizeof(frame);
		fp = frame[0];
	}
	*hash = stack_hash_end(t, h, end);
	stat_add(STAT_UWALK + end, 1);
	return 0;
}

/*
 * The walk with unwind tables (--unwind auto), one frame per call of
 * unwind_step() from bpf_loop(): the verifier checks a step once. Each
 * step finds the mapping of the frame last recorded, the row of its table
 * (at its address less one: a return address follows its call), and
 * follows the rule there to the caller's registers; in code known to
 * have no table (a file without CFI, JIT code), it follows the frame
 * pointer instead, as walk_user_frames() does. Where the walk does not know
 * the code yet (the process is not described, or its file's table is not
 * in), it stops: a frame pointer there may belong to a caller's frame (a
 * leaf that never set one up), and following it would skip that caller. A
 * caller's address must lie in one of the process's executable mappings
 * to be recorded: a walk never records a frame it made up.
 *
 * The walk's state is kept in a per-CPU map, not on the stack: the
 * verifier follows values on the stack from one call of the callback to
 * the next (until they stop changing), but not values in a map, so it
 * checks a step once instead of once per combination of their values.
 */
struct unwind_walk {
	__u64 pc;     /* the frame last recorded, as recorded (after a signal frame: exact + 1) */
	__u64 sp, bp; /* its stack and frame pointers */
	__u64 hash;   /* of the frames recorded so far */
	__u32 slot;   /* the process's slot in unwind_procs, or UNWIND_NO_SLOT */
	__s32 map;    /* the index of the mapping holding pc (as looked up), or -1 */
	__u32 end;    /* enum unwind_end: why the walk stopped */
	__u32 fp_end; /* why it stops when a frame-pointer step fails */
	__u32 table;  /* the table last found in (its id + 1 and generation as a mapping names
		       * it), 0: none ... */
	__u32 gen;
	__u32 buckets; /* ... and its buckets */
	bool stale;    /* met code outside the process's known mappings */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_walk);
	__uint(max_entries, 1);
} unwind_walks SEC(".maps");

/*
 * The process whose slot this CPU found last: a CPU busy with one process
 * samples it again and again, and the slot's own tgid (zeroed when the
 * slot is retired) says whether it still describes it, without a lookup
 * in unwind_pids (a hash map: its lines are cold at each sample).
 */
struct slot_memo {
	__u32 tgid, slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct slot_memo);
	__uint(max_entries, 1);
} slot_memo SEC(".maps");

/* Process @tgid's slot in unwind_procs, or UNWIND_NO_SLOT. */
static __always_inline __u32 unwind_slot_of(__u32 tgid)
{
	__u32 zero = 0, *slot;
	struct slot_memo *memo = bpf_map_lookup_elem(&slot_memo, &zero);
	const struct unwind_proc *p;

	if (memo && tgid && memo->tgid == tgid) {
		p = bpf_map_lookup_elem(&unwind_procs, &memo->slot);
		if (p && p->tgid == tgid)
			return memo->slot;
	}
	slot = bpf_map_lookup_elem(&unwind_pids, &tgid);
	if (!slot)
		return UNWIND_NO_SLOT;
	if (memo)
		*memo = (struct slot_memo){ .tgid = tgid, .slot = *slot };
	return *slot;
}

/* This CPU's walk state, or NULL (never). */
static __always_inline struct unwind_walk *unwind_walk_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_walks, &zero);
}

/* The caller's registers, as a step finds them. */
struct caller_regs {
	__u64 pc, sp, bp;
	bool exact; /* pc is where execution stopped (a signal frame's), not a return address */
};

/*
 * The bounds of a binary search, kept in memory rather than in registers:
 * the verifier does not follow values through memory, so it checks one
 * round of a search instead of every path through all of them.
 */
struct search_bounds {
	__u32 lo, hi;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct search_bounds);
	__uint(max_entries, 1);
} search SEC(".maps");

static __always_inline struct search_bounds *search_bounds(__u32 lo, __u32 hi)
{
	__u32 zero = 0;
	struct search_bounds *b = bpf_map_lookup_elem(&search, &zero);

	if (b)
		*b = (struct search_bounds){ lo, hi };
	return b;
}

/* The index of the mapping of @p holding @addr, or -1. */
static __always_inline int unwind_map_index(const struct unwind_proc *p, __u64 addr)
{
	struct search_bounds *b = search_bounds(0, p->n);
	__u32 lo, hi, mid;

	if (!b)
		return -1;
	for (int i = 0; i < 9; i++) { /* log2(UNWIND_MAX_MAPS) + 1 halvings */
		lo = b->lo;
		hi = b->hi;
		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		if (p->maps[mid & (UNWIND_MAX_MAPS - 1)].start <= addr)
			b->lo = mid + 1;
		else
			b->hi = mid;
	}
	lo = b->lo;
	if (!lo || lo > UNWIND_MAX_MAPS)
		return -1;
	lo = (lo - 1) & (UNWIND_MAX_MAPS - 1);
	return addr < p->maps[lo].end ? (int)lo : -1;
}

/*
 * unwind_map_index() of @addr, looking first at mapping @near (-1: none):
 * a caller's code is most often in its callee's file.
 */
static __always_inline int unwind_map_near(const struct unwind_proc *p, int near, __u64 addr)
{
	const struct unwind_map *m = &p->maps[(__u32)near & (UNWIND_MAX_MAPS - 1)];

	if (near >= 0 && (__u32)near < p->n && m->start <= addr && addr < m->end)
		return near;
	return unwind_map_index(p, addr);
}

/* What unwind_table_rule() says when the table is not (or no longer) in. */
#define UNWIND_RULE_ID_NOT_LOADED 0xffffffffu

/*
 * The id of the rule at file offset @off of the table of mapping @m, or
 * UNWIND_RULE_ID_NONE, or UNWIND_RULE_ID_NOT_LOADED. The table's head,
 * read once, is kept in @w for the frames after it in the same table. A
 * global function: the verifier checks it once, whatever calls it.
 */
__attribute__((noinline)) __u32 unwind_table_rule(struct unwind_walk *w,
						  const struct unwind_map *m, __u32 off)
{
	__u32 id, zero = 0, b, lo, hi, mid;
	const struct unwind_row *head, *bucket, *row;
	struct search_bounds *sb;
	void *rows;

	if (!w || !m)
		return UNWIND_RULE_ID_NOT_LOADED;
	id = m->table - 1;
	rows = bpf_map_lookup_elem(&unwind_tables, &id);
	if (!rows)
		return UNWIND_RULE_ID_NOT_LOADED;
	if (w->table != m->table || w->gen != m->gen) {
		head = bpf_map_lookup_elem(rows, &zero);
		if (!head || (head->off & 0xffff) != m->gen)
			return UNWIND_RULE_ID_NOT_LOADED;
		w->table = m->table;
		w->gen = m->gen;
		w->buckets = head->rule;
	}
	b = off >> UNWIND_BUCKET_SHIFT;
	if (b >= w->buckets)
		return UNWIND_RULE_ID_NONE;
	b++;
	bucket = bpf_map_lookup_elem(rows, &b);
	sb = bucket ? search_bounds(bucket->off, bucket->rule) : NULL;
	if (!sb)
		return UNWIND_RULE_ID_NONE;
	for (int i = 0; i < 10; i++) { /* at most 257 rows: the last one at or before @off */
		lo = sb->lo;
		hi = sb->hi;
		if (lo + 1 >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		row = bpf_map_lookup_elem(rows, &mid);
		if (!row)
			return UNWIND_RULE_ID_NONE;
		if (row->off <= off)
			sb->lo = mid;
		else
			sb->hi = mid;
	}
	lo = sb->lo;
	row = bpf_map_lookup_elem(rows, &lo);
	return row && row->off <= off ? row->rule : UNWIND_RULE_ID_NONE;
}

/*
 * The rules last found, per CPU, direct-mapped by (table, offset): a
 * sampled program's outer frames are the same from one sample to the next
 * (main, the event loop, the start code), and one memo line costs less
 * than the four or five lines of a table search and the rule's own. A
 * table's rows never change under one (id, generation), nor do the rules.
 */
#define RULE_MEMO_WAYS 512

struct rule_memo_entry {
	__u32 table; /* the table's id + 1 and generation, as a mapping names it; 0: empty */
	__u32 gen;
	__u32 off;
	__u32 pad;
	struct unwind_rule rule; /* kind UNWIND_RULE_NONE where the table has none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rule_memo_entry);
	__uint(max_entries, RULE_MEMO_WAYS);
} rule_memo SEC(".maps");

/*
 * The rule at file offset @off of mapping @m's table into @r (left as it
 * is where the table has none), through the memo: a table's answer, when
 * it is in, is remembered. False when the table is not (or no longer) in.
 */
static __always_inline bool unwind_memo_rule(struct unwind_walk *w, const struct unwind_map *m,
					     __u32 off, struct unwind_rule *r)
{
	__u32 way = (__u32)(((__u64)off * HASH_MUL + m->table) >> 40) & (RULE_MEMO_WAYS - 1);
	struct rule_memo_entry *e = bpf_map_lookup_elem(&rule_memo, &way);
	const struct unwind_rule *found;
	__u32 id;

	if (e && e->table == m->table && e->gen == m->gen && e->off == off) {
		*r = e->rule;
		return true;
	}
	id = unwind_table_rule(w, m, off);
	if (id == UNWIND_RULE_ID_NOT_LOADED)
		return false;
	found = id != UNWIND_RULE_ID_NONE ? bpf_map_lookup_elem(&unwind_rules, &id) : NULL;
	if (found)
		*r = *found;
	if (e)
		*e = (struct rule_memo_entry){ .table = m->table, .gen = m->gen, .off = off,
					       .rule = *r };
	return true;
}

/*
 * The rule for the frame last recorded, looked up at @addr, into @r; a
 * NONE rule where there is none, with w->fp_end saying why: UNWIND_NO_TABLE
 * where the code has no table (a frame-pointer step may follow), another
 * reason where the code or its table is not known yet.
 */
static __always_inline void unwind_frame_rule(struct unwind_walk *w, const struct unwind_proc *p,
					      __u64 addr, struct unwind_rule *r)
{
	const struct unwind_map *m;
	__u32 idx;
	__u64 off;

	*r = (struct unwind_rule){ .kind = UNWIND_RULE_NONE };
	if (!p) {
		w->fp_end = UNWIND_NOT_LOADED;
		return;
	}
	if (w->map < 0)
		w->map = unwind_map_index(p, addr);
	if (w->map < 0) { /* only the first frame: callers are checked before they are recorded */
		w->stale = true;
		w->fp_end = UNWIND_BAD_FRAME;
		return;
	}
	idx = (__u32)w->map & (UNWIND_MAX_MAPS - 1);
	m = &p->maps[idx];
	off = addr - m->start + m->off;
	w->fp_end = UNWIND_NO_TABLE;
	if (!m->table || off > 0xffffffffULL)
		return;
	if (!unwind_memo_rule(w, m, (__u32)off, r))
		w->fp_end = UNWIND_NOT_LOADED;
}

/*
 * A copy of the user stack the walk reads from, per CPU: one
 * bpf_probe_read_user() of up to STACK_WINDOW bytes instead of one per
 * frame (each costs more than copying a few hundred bytes). A copy never
 * goes past the end of the page it starts in: a page that holds the stack
 * is readable to its end, the next one may not be mapped. Beside it, off-CPU
 * mode's copy of the kernel stack a kernel memo is checked against.
 */
#define STACK_WINDOW 2048
#define USER_PAGE 4096
#define KMEMO_SPAN 4096 /* bytes of kernel stack above the hook's context a kernel memo looks at */

/*
 * The stack words a table walk read, in order: with the registers it
 * started from, they decide its result (off-CPU mode's walk memo checks
 * them). Past WALK_READS reads only the count goes on.
 */
#define WALK_READS 24

struct stack_read {
	__u64 addr;
	__u64 val[2]; /* val[1]: 0 for an 8-byte read */
};

struct walk_reads {
	__u32 n;
	__u32 pad;
	__u64 lo, hi; /* the span of stack they lie in */
	struct stack_read r[WALK_READS];
};

struct stack_window {
	__u64 base; /* the user address of data[0] */
	__u32 len;  /* bytes of data copied; 0: none */
	__u32 pad;
	__u8 data[STACK_WINDOW];
	struct walk_reads reads; /* what the last walk read, off-CPU mode only */
	__u64 kstack[KMEMO_SPAN / 8]; /* kernel stack above the hook's context (kernel memos) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_window);
	__uint(max_entries, 1);
} stack_windows SEC(".maps");

static __always_inline struct stack_window *stack_window(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stack_windows, &zero);
}

/* This CPU's log of the last walk's reads, or NULL (never). */
static __always_inline struct walk_reads *walk_reads_log(void)
{
	struct stack_window *win = stack_window();

	return win ? &win->reads : NULL;
}

/* Logs a read of @size (8 or 16) bytes @val at @addr. */
static __always_inline void log_stack_read(__u64 addr, const __u64 *val, __u32 size)
{
	struct walk_reads *l;
	__u32 n;

	if (!memo_walks || !(l = walk_reads_log()))
		return;
	n = l->n;
	if (!n || addr < l->lo)
		l->lo = addr;
	if (!n || addr + size > l->hi)
		l->hi = addr + size;
	if (n < WALK_READS) {
		l->r[n].addr = addr;
		l->r[n].val[0] = val[0];
		l->r[n].val[1] = size == 16 ? val[1] : 0;
	}
	l->n = n + 1;
}

/*
 * Reads @size (8 or 16) bytes of user memory at @addr into @dst, from this
 * CPU's window, copied anew from @addr when it does not hold them. Returns
 * 0 or a negative errno, as bpf_probe_read_user().
 */
static __always_inline long read_stack_window(void *dst, __u32 size, __u64 addr)
{
	struct stack_window *win = stack_window();
	__u64 off, len;

	if (!win)
		return -EFAULT;
	off = addr - win->base;
	if (addr < win->base || off + size > win->len) {
		len = USER_PAGE - (addr & (USER_PAGE - 1));
		if (len > STACK_WINDOW)
			len = STACK_WINDOW;
		win->len = 0;
		if (len < size || bpf_probe_read_user(win->data, len, (void *)addr))
			return bpf_probe_read_user(dst, size, (void *)addr);
		win->base = addr;
		win->len = len;
		off = 0;
	}
	/* The window holds off + size bytes: these checks are the verifier's. */
	off &= STACK_WINDOW - 1;
	if (size == 16 && off <= STACK_WINDOW - 16)
		__builtin_memcpy(dst, win->data + off, 16);
	else if (size == 8 && off <= STACK_WINDOW - 8)
		__builtin_memcpy(dst, win->data + off, 8);
	else
		return -EFAULT;
	return 0;
}

/* read_stack_window(), each read logged in walk_reads. */
static __always_inline long read_user_stack(__u64 *dst, __u32 size, __u64 addr)
{
	long err = read_stack_window(dst, size, addr);

	if (!err)
		log_stack_read(addr, dst, size);
	return err;
}

/* What a step returns when the walk goes on: anything else is why it ends. */
#define STEP_ON UNWIND_END_NR

/*
 * One step by frame pointer from the frame at depth @nr (1: the leaf).
 * Returns STEP_ON with @c filled, or why the walk ends.
 */
static __always_inline __u32 unwind_fp_step(const struct unwind_walk *w, __u32 nr,
					    struct caller_regs *c)
{
	__u64 frame[2];

	if (!w->bp) /* the start code clears it; a leaf's null one was never set */
		return nr > 1 ? UNWIND_WHOLE : w->fp_end;
	if (w->bp < w->sp || read_user_stack(frame, sizeof(frame), w->bp))
		return w->fp_end;
	*c = (struct caller_regs){ .pc = frame[1], .sp = w->bp + sizeof(frame), .bp = frame[0] };
	return STEP_ON;
}

/* One step by rule @r, the frame looked up at @addr. Returns STEP_ON with @c filled, or why it ends. */
static __always_inline __u32 unwind_rule_step(const struct unwind_walk *w,
					      const struct unwind_rule *r, __u64 addr,
					      struct caller_regs *c)
{
	__u64 cfa;

	switch (r->kind) {
	case UNWIND_RULE_CFA_SP:
		cfa = w->sp + r->cfa_off;
		break;
	case UNWIND_RULE_CFA_FP:
		cfa = w->bp + r->cfa_off;
		break;
	case UNWIND_RULE_PLT:
		cfa = w->sp + r->cfa_off + ((addr & 15) >= r->plt_split ? 8 : 0);
		break;
	case UNWIND_RULE_SIGNAL: /* the interrupted registers, saved by the kernel */
		c->exact = true;
		if (read_user_stack(&c->sp, sizeof(c->sp), w->sp + r->cfa_off) ||
		    read_user_stack(&c->pc, sizeof(c->pc), w->sp + r->ra_off) ||
		    read_user_stack(&c->bp, sizeof(c->bp), w->sp + r->fp_off))
			return UNWIND_UNREADABLE;
		return STEP_ON;
	case UNWIND_RULE_OUTERMOST:
		return UNWIND_WHOLE;
	default:
		return UNWIND_UNSUPPORTED;
	}
	if (cfa <= w->sp) /* a caller's frame lies above its callee's */
		return UNWIND_BAD_FRAME;
	c->sp = cfa;
	c->bp = w->bp;
	c->exact = false;
	if (r->fp_off && r->fp_off == r->ra_off - 8) { /* pushed rbp beside the return address */
		__u64 saved[2];

		if (read_user_stack(saved, sizeof(saved), cfa + r->fp_off))
			return UNWIND_UNREADABLE;
		c->bp = saved[0];
		c->pc = saved[1];
		return STEP_ON;
	}
	if (read_user_stack(&c->pc, sizeof(c->pc), cfa + r->ra_off) ||
	    (r->fp_off && read_user_stack(&c->bp, sizeof(c->bp), cfa + r->fp_off)))
		return UNWIND_UNREADABLE;
	return STEP_ON;
}

/* bpf_loop()'s callback: one frame. Returns 1 when the walk ends (w->end says why). */
static long unwind_step(__u32 i, void *arg)
{
	struct unwind_walk *w = unwind_walk_state();
	struct sent_stack *t = scratch_stack(true);
	const struct unwind_proc *p = NULL;
	struct unwind_rule r;
	struct caller_regs c = {};
	__u64 addr, rec;
	__u32 nr, end;

	if (!t || !w)
		return 1;
	nr = t->nr;
	if (nr >= MAX_STACK_DEPTH) {
		w->end = UNWIND_DEPTH;
		return 1;
	}
	if (w->slot != UNWIND_NO_SLOT)
		p = bpf_map_lookup_elem(&unwind_procs, &w->slot);
	addr = nr > 1 ? w->pc - 1 : w->pc; /* a return address follows its call */
	unwind_frame_rule(w, p, addr, &r);
	if (r.kind != UNWIND_RULE_NONE)
		end = unwind_rule_step(w, &r, addr, &c);
	else
		end = w->fp_end == UNWIND_NO_TABLE ? unwind_fp_step(w, nr, &c) : w->fp_end;
	if (end == STEP_ON && !c.pc)
		end = UNWIND_WHOLE;
	if (end == STEP_ON && p) {
		w->map = unwind_map_near(p, w->map, c.exact ? c.pc : c.pc - 1);
		if (w->map < 0) {
			w->stale = true;
			end = r.kind == UNWIND_RULE_NONE ? w->fp_end : UNWIND_BAD_FRAME;
		}
	}
	if (end != STEP_ON) {
		w->end = end;
		return 1;
	}
	rec = c.exact ? c.pc + 1 : c.pc; /* named, as every caller, at rec - 1 */
	t->ips[nr] = rec;
	t->nr = nr + 1;
	w->hash = hash_step(w->hash, rec);
	w->pc = rec;
	w->sp = c.sp;
	w->bp = c.bp;
	return 0;
}

/*
 * Walks the user stack of process @tgid from @r with its unwind tables
 * into its scratch record, as walk_user_frames() does; *@stale is set when
 * the walk met code outside the process's known mappings.
 */
static __always_inline long walk_user_tables(const struct user_regs *r, __u32 tgid, __u64 *hash,
					     bool *stale)
{
	struct sent_stack *t = scratch_stack(true);
	struct unwind_walk *w = unwind_walk_state();
	struct walk_reads *log = memo_walks ? walk_reads_log() : NULL;
	struct stack_window *win;
	__u32 end;

	if (!t || !w) {
		stack_failed(-EFAULT, true);
		return -EFAULT;
	}
	if (log)
		log->n = 0;
	*w = (struct unwind_walk){ .pc = r->ip, .sp = r->sp, .bp = r->fp, .map = -1,
				   .end = UNWIND_DEPTH, .slot = unwind_slot_of(tgid),
				   .hash = hash_step(HASH_MUL, r->ip) };
	t->ips[0] = r->ip;
	t->nr = 1;
	win = stack_window();
	if (win) /* the stack has changed since the last walk */
		win->len = 0;
	bpf_loop(MAX_STACK_DEPTH - 1, unwind_step, NULL, 0);
	end = w->end < UNWIND_END_NR ? w->end : UNWIND_DEPTH;
	*hash = stack_hash_end(t, w->hash, end);
	stat_add(STAT_UWALK + end, 1);
	*stale = w->stale;
	return 0;
}

/*
 * Walks the current user stack, from @at's user registers when the event
 * has them (a sample in user mode, a system call's entry), else from those
 * the task saved entering the kernel: with the unwind tables where the
 * loader gave them and this kernel has bpf_loop() (5.17), else along the
 * frame pointers. *@stale as walk_user_tables() sets it.
 */
static __always_inline long walk_user_stack(void *ctx, const struct user_regs *at, __u32 tgid,
					    __u64 *hash, bool *stale)
{
	struct user_regs r = *at;

	if (!user_regs_walkable(&r) && !saved_user_regs(task_regs(), &r))
		return walk_stack(ctx, true, hash);
	if (unwind_with_tables && bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop))
		return walk_user_tables(&r, tgid, hash, stale);
	return walk_user_frames(&r, hash);
}

/*
 * Takes a new slot in @half for @key, noted in that half's key_slots map
 * @slots, and sends both to user space. A key that took its slot in the
 * half the loader just left is given up (and its event lost): the loader
 * may already be done with that half's keys.
 */
static __always_inline long new_slot(void *slots, __u32 half, struct stack_key *key, __u32 *slot)
{
	struct sent_key rec = { .kind = SENT_KEY };
	__u32 *won, n;
	long err;

	/* A branch, not an index: the verifier then knows the address in every caller. */
	n = __sync_fetch_and_add(half ? &slot_next[1] : &slot_next[0], 1);
	if (n >= half_slots)
		return -E2BIG;
	*slot = n + half * half_slots;
	err = bpf_map_update_elem(slots, key, slot, BPF_NOEXIST);
	if (err == -EEXIST) { /* another CPU gave it a slot first */
		won = bpf_map_lookup_elem(slots, key);
		if (!won)
			return -EAGAIN;
		*slot = *won;
		return 0;
	}
	if (!err && (*(volatile __u32 *)&slot_half & 1) != half)
		err = -EAGAIN;
	if (!err) {
		rec.slot = *slot;
		rec.key = *key;
		err = ring_send(&rec, sizeof(rec));
	}
	if (err)
		bpf_map_delete_elem(slots, key);
	return err;
}

/*
 * The keys last counted on this CPU, with their slots, direct-mapped by a
 * hash of the key. A key met again while its half of the slots is in use
 * and the stacks sent since are kept (slot_half and stack_gen as they were)
 * is counted in its slot without looking it or its stacks up in the maps:
 * at 99 Hz every one of those lookups is a few cache misses.
 */
#define KEY_MEMO_WAYS 16

struct key_memo_entry {
	struct stack_key key;
	__u32 slot;
	__u32 half; /* slot_half before the slot was looked up */
	__u64 gen;  /* stack_gen before the key's stacks were sent */
};

/*
 * Looked up by index, not reached by pointer arithmetic: an offset made
 * from the key would make the verifier track the key's hashes exactly, and
 * go over the rest of the program once for each way a stack walk ends.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct key_memo_entry);
	__uint(max_entries, KEY_MEMO_WAYS);
} key_memo SEC(".maps");

/* The memo entry where @key would be, or NULL (never). */
static __always_inline struct key_memo_entry *key_memo_at(const struct stack_key *key)
{
	__u64 h = (key->kstack ^ key->ustack ^ ((__u64)key->tgid << 32 | key->pid)) * HASH_MUL;
	__u32 way = (h >> 32) & (KEY_MEMO_WAYS - 1);

	return bpf_map_lookup_elem(&key_memo, &way);
}

/* Sets *@slot to @key's when the memo entry @m holds it and still may. */
static __always_inline bool memo_slot(const struct key_memo_entry *m, const struct stack_key *key,
				      __u32 *slot)
{
	const __u64 *a, *b = (const __u64 *)key;

	if (!m || m->gen != *(volatile __u64 *)&stack_gen ||
	    m->half != *(volatile __u32 *)&slot_half) /* see read_mode.sh 5b */
		return false;
	a = (const __u64 *)&m->key;
	for (int i = 0; i < sizeof(*key) / sizeof(__u64); i++)
		if (a[i] != b[i])
			return false;
	*slot = m->slot;
	return true;
}

/*
 * Sends @key's stacks (a failure goes into its errors), then finds or takes
 * its slot and remembers it in the memo entry @m. Returns 0, or a negative
 * errno when the event cannot be counted.
 */
static __always_inline long key_slot(struct stack_key *key, struct key_memo_entry *m, __u32 *slot)
{
	__u64 gen = *(volatile __u64 *)&stack_gen;
	__u32 half_now = *(volatile __u32 *)&slot_half, half = half_now & 1, *known;
	void *slots;

	if (!key->kerr)
		key->kerr = send_walked(false, key->kstack);
	if (!key->uerr)
		key->uerr = send_walked(true, key->ustack);
	slots = bpf_map_lookup_elem(&key_slots, &half);
	if (!slots) /* never: the loader fills both slots before attaching */
		return -EFAULT;
	known = bpf_map_lookup_elem(slots, key);
	if (known)
		*slot = *known;
	else if (new_slot(slots, half, key, slot))
		return -E2BIG;
	if (m)
		*m = (struct key_memo_entry){ .key = *key, .slot = *slot, .half = half_now, .gen = gen };
	return 0;
}

/*
 * Counts @events events of @key in @set's counts array, weighing @weight,
 * after sending its stacks unless the memo says they were.
 */
static __always_inline void count_in(int set, struct stack_key *key, __u64 events, __u64 weight)
{
	struct key_memo_entry *m = key_memo_at(key);
	struct stack_value *v;
	__u32 slot;

	if (!memo_slot(m, key, &slot) && key_slot(key, m, &slot)) {
		stat_add(STAT_LOST_COUNTS_FULL, 1);
		return;
	}
	v = bpf_map_lookup_elem(set ? (void *)&counts1 : (void *)&counts0, &slot);
	if (!v) {
		stat_add(STAT_LOST_COUNTS_FULL, 1);
		return;
	}
	if (events)
		__sync_fetch_and_add(&v->count, events);
	if (weight)
		__sync_fetch_and_add(&v->weight, weight);
}

/* Idle, kernel threads and exiting tasks (their mm is gone) have no user stack. */
static __always_inline bool has_user_stack(__u32 pid)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return pid != 0 && !(BPF_CORE_READ(task, flags) & PF_KTHREAD) && BPF_CORE_READ(task, mm);
}

static __always_inline bool comm_wanted(const struct stack_key *key)
{
	const __u64 *c = (const __u64 *)key->comm;

	return c[0] == filter_comm[0] && c[1] == filter_comm[1];
}

static __always_inline void proc_note_push(struct task_struct *task, __u32 tgid, __u32 kind)
{
	struct proc_note e = { .tgid = tgid, .kind = kind,
			       .start_boottime = BPF_CORE_READ(task, group_leader, start_boottime) };

	/*
	 * Every note may wake the reader: one left unread without a wakeup
	 * (BPF_RB_NO_WAKEUP) would keep the notes after it from waking it too.
	 */
	bpf_ringbuf_output(&proc_notes, &e, sizeof(e), 0);
}

/* Notes a new address space, and a young process now and then (lock-free: per CPU). */
static __always_inline void proc_seen_note(__u32 tgid)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(task, mm), now;
	__u32 slot = tgid % PROC_SEEN_SLOTS;
	struct proc_seen *seen = bpf_map_lookup_elem(&proc_seen, &slot);
	bool known, young;

	if (!seen)
		return;
	known = seen->tgid == tgid && seen->mm == mm;
	if (known && seen->grown)
		return;
	now = bpf_ktime_get_ns();
	young = now - BPF_CORE_READ(task, group_leader, start_time) < PROC_YOUNG_NS;
	seen->grown = !young;
	if (known && (!young || now - seen->ns < PROC_NOTE_GAP_NS))
		return;
	seen->tgid = tgid;
	seen->mm = mm;
	seen->ns = now;
	proc_note_push(task, tgid, young ? PROC_NOTE_YOUNG : PROC_NOTE_SAMPLE);
}

/*
 * Notes that a walk met code outside @tgid's known mappings (its maps
 * changed: a library loaded, new JIT code), at most every
 * PROC_STALE_GAP_NS per CPU and slot.
 */
static __always_inline void proc_stale_note(__u32 tgid)
{
	__u32 slot = tgid % PROC_SEEN_SLOTS;
	struct proc_seen *seen = bpf_map_lookup_elem(&proc_seen, &slot);
	__u64 now = bpf_ktime_get_ns();

	if (!seen || now - seen->stale_ns < PROC_STALE_GAP_NS)
		return;
	seen->stale_ns = now;
	proc_note_push((void *)bpf_get_current_task(), tgid, PROC_NOTE_STALE);
}

/* Fills the identity of the current task into @key; false when the filters reject it. */
static __always_inline bool event_wanted(struct stack_key *key)
{
	__u64 id = bpf_get_current_pid_tgid();

	key->tgid = id >> 32;
	key->pid = (__u32)id;
	if (filter_tgids_on && !bpf_map_lookup_elem(&tgid_filter, &key->tgid))
		return false;
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	return !filter_comm_on || comm_wanted(key);
}

/* Where an event happened, when a sample says so. */
struct where {
	bool in_kernel; /* false for a sample in user mode: no kernel stack to walk */
	__u64 ip, sp;   /* the interrupted instruction and stack pointer; 0 when unknown */
	struct user_regs user; /* user registers at the event, when it has them */
};

/*
 * The idle task's kernel stack, remembered per CPU. An idle CPU is sampled
 * over and over at the same place (the halt of the idle loop: the same
 * instruction, the same stack pointer), and walking that stack with cold
 * caches is the dearest thing a sample does. A sample of the idle task at
 * the same (ip, sp) as the last walk, while the stacks sent since are kept
 * (stack_gen unchanged), reuses the walk's stack.
 */
struct idle_memo {
	__u64 ip, sp, gen, kstack;
	bool valid;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct idle_memo);
	__uint(max_entries, 1);
} idle_memo SEC(".maps");

static __always_inline long idle_kernel_stack(void *ctx, const struct where *at, __u64 *hash)
{
	__u32 zero = 0;
	struct idle_memo *m = bpf_map_lookup_elem(&idle_memo, &zero);
	__u64 gen = *(volatile __u64 *)&stack_gen;
	long err;

	if (m && m->valid && m->ip == at->ip && m->sp == at->sp && m->gen == gen) {
		*hash = m->kstack;
		return 0;
	}
	err = walk_stack(ctx, false, hash);
	if (!err)
		err = send_walked(false, *hash);
	if (m && !err)
		*m = (struct idle_memo){ .ip = at->ip, .sp = at->sp, .gen = gen, .kstack = *hash,
					 .valid = true };
	return err;
}

/* Walks the current task's kernel stack, as the event @at met it, into @key. */
static __always_inline void walk_kernel_side(void *ctx, struct stack_key *key,
					     const struct where *at)
{
	if (!walk_kernel)
		key->kerr = STACK_NOT_WALKED;
	else if (!at->in_kernel)
		key->kerr = STACK_NO_KERNEL;
	else if (key->pid == 0 && at->ip)
		key->kerr = idle_kernel_stack(ctx, at, &key->kstack);
	else
		key->kerr = walk_stack(ctx, false, &key->kstack);
}

/* Walks its user stack into @key; *@stale as walk_user_tables() sets it. */
static __always_inline void walk_user_side(void *ctx, struct stack_key *key,
					   const struct where *at, bool *stale)
{
	if (!walk_user)
		key->uerr = STACK_NOT_WALKED;
	else if (!at->user.ip && !has_user_stack(key->pid)) /* user registers: there is one */
		key->uerr = STACK_NO_USER;
	else
		key->uerr = walk_user_stack(ctx, &at->user, key->tgid, &key->ustack, stale);
}

/*
 * Walks the current task's stacks, as the event @at met them, into @key
 * (its identity filled in by event_wanted()). *@stale as
 * walk_user_tables() sets it.
 */
static __always_inline void walk_stacks(void *ctx, struct stack_key *key, const struct where *at,
					bool *stale)
{
	walk_kernel_side(ctx, key, at);
	walk_user_side(ctx, key, at, stale);
}

/* Tells user space about the process of @key, walked: new, or its maps changed (@stale). */
static __always_inline void note_process(const struct stack_key *key, bool stale)
{
	if (key->uerr == 0)
		proc_seen_note(key->tgid);
	if (stale)
		proc_stale_note(key->tgid);
}

/*
 * True once the deadline has passed: counting ends on time, however late
 * the loader's own pause (a thread that must be scheduled) comes.
 */
static __always_inline bool past_deadline(void)
{
	__u64 at = *(volatile __u64 *)&stop_at_ns;

	return at && bpf_ktime_get_ns() >= at;
}

/* Records one event that happened @at, weighing @weight (read mode: the bytes asked for). */
static __always_inline int record_event(void *ctx, __u64 weight, const struct where *at)
{
	struct stack_key key = {};
	bool stale = false;
	int set;

	if (*(volatile __u32 *)&paused || past_deadline() || !event_wanted(&key))
		return 0;

	stat_add(STAT_EVENTS, 1);
	set = set_enter();
	if (set < 0) {
		stat_add(STAT_LOST_BUSY, 1);
		return 0;
	}
	walk_stacks(ctx, &key, at, &stale);
	count_in(set, &key, 1, weight);
	inflight_add(set, -1);
	note_process(&key, stale);
	return 0;
}

/* An event inside the kernel, met by a tracing hook. */
static const struct where in_kernel = { .in_kernel = true };

/* sample mode: a timer (or cycles) perf event on every CPU. */
SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	struct where at = {
		.ip = PT_REGS_IP(&ctx->regs),
		.sp = PT_REGS_SP(&ctx->regs),
	};

	/* On x86-64 and arm64 the kernel lives in the upper half of the address space. */
	at.in_kernel = (long)at.ip < 0;
	if (!at.in_kernel)
		at.user = (struct user_regs){ .ip = at.ip, .sp = at.sp, .fp = PT_REGS_FP(&ctx->regs),
					      .compat = REGS_COMPAT(&ctx->regs) };
	return record_event(ctx, 0, &at);
}

/* read mode, first choice: fentry on vfs_read(file, buf, count, pos). */
SEC("fentry/vfs_read")
int BPF_PROG(on_vfs_read_fentry, struct file *file, char *buf, size_t count)
{
	return record_event(ctx, count, &in_kernel);
}

/* read mode, second choice: a kprobe on vfs_read. */
SEC("kprobe/vfs_read")
int BPF_KPROBE(on_vfs_read_kprobe, struct file *file, char *buf, size_t count)
{
	return record_event(ctx, count, &in_kernel);
}

#if defined(__TARGET_ARCH_x86)
#define NR_read 0
#define NR_pread64 17
#define NR_readv 19
#define NR_preadv 295
#define NR_preadv2 327
#elif defined(__TARGET_ARCH_arm64)
#define NR_read 63
#define NR_pread64 67
#define NR_readv 65
#define NR_preadv 69
#define NR_preadv2 286
#else
#error "flametop: read-family syscall numbers are not known for this architecture"
#endif

#define MAX_IOVECS 16

/* Bytes requested by a readv-family call: the first MAX_IOVECS iovecs. */
static __always_inline __u64 iov_bytes(const struct iovec *iov, unsigned long n)
{
	__u64 total = 0;

	for (int i = 0; i < MAX_IOVECS; i++) {
		struct iovec v;

		if (i >= n || bpf_probe_read_user(&v, sizeof(v), &iov[i]))
			break;
		total += v.iov_len;
	}
	return total;
}

/* read mode, fallback: syscall entry, filtered to the read family. */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter_read, struct pt_regs *regs, long nr)
{
	unsigned long arg2, arg3;
	struct where at = { .in_kernel = true };

	switch (nr) {
	case NR_read:
	case NR_pread64:
	case NR_readv:
	case NR_preadv:
	case NR_preadv2:
		break;
	default:
		return 0;
	}
	arg2 = PT_REGS_PARM2_CORE_SYSCALL(regs);
	arg3 = PT_REGS_PARM3_CORE_SYSCALL(regs);
	at.user = USER_REGS_CORE(regs); /* the registers the task entered the kernel with */
	return record_event(ctx, nr == NR_read || nr == NR_pread64
					 ? arg3
					 : iov_bytes((const struct iovec *)arg2, arg3),
			    &at);
}

/*
 * off-CPU mode: the sched_switch BTF tracepoint. A thread leaving a CPU
 * (not an idle task, not flametop, within the filters) has its stacks
 * walked there, where it blocks, and a wait opened in offcpu_waits; back
 * on a CPU, its wait is closed and counted, weighing the nanoseconds it
 * was off. A wait still open at a drain is counted up to then by
 * credit_waits(), which the loader runs before it switches sets, so that
 * a thread blocked for a minute shows while it waits. Each part of a wait
 * is counted once: by the side that moves its `from` on first.
 */
#define TASK_RUNNING 0x0
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define EXIT_DEAD 0x10
#define EXIT_ZOMBIE 0x20
#define TASK_DEAD 0x80
#define TASK_NOLOAD 0x400

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* thread id */
	__type(value, struct offcpu_wait);
	__uint(max_entries, OFFCPU_MAX_WAITS);
} offcpu_waits SEC(".maps");

const volatile __u32 self_tgid;            /* flametop's own: its waits are not shown */
const volatile __u64 min_block_ns = 1000;  /* shorter waits are dropped (and counted) */

static __always_inline __u32 offcpu_state(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return OFFCPU_PREEMPTED;
	if (state & TASK_NOLOAD)
		return OFFCPU_IDLE;
	if (state & TASK_INTERRUPTIBLE)
		return OFFCPU_SLEEPING;
	return state & TASK_UNINTERRUPTIBLE ? OFFCPU_DISK : OFFCPU_IDLE;
}

/* Counts @ns of wait @w (and @events closed) in the active set. */
static __always_inline void offcpu_count(const struct offcpu_wait *w, __u64 ns, __u64 events)
{
	struct stack_key key = w->key;
	int set = set_enter();

	if (set < 0) {
		stat_add(STAT_LOST_BUSY, 1);
		return;
	}
	stat_add(STAT_EVENTS, events);
	stat_add(STAT_OFFCPU_NS + (w->state < OFFCPU_STATE_NR ? w->state : OFFCPU_IDLE), ns);
	count_in(set, &key, events, ns);
	inflight_add(set, -1);
}

/*
 * The thread @pid is back on a CPU at @now: closes its wait, if one is
 * open. The closed entry stays, for the thread's next wait to open in
 * place (no element freed and taken again at every switch); it goes when
 * the thread ends (offcpu_open()).
 */
static __always_inline void offcpu_close(__u32 pid, __u64 now)
{
	struct offcpu_wait *w = bpf_map_lookup_elem(&offcpu_waits, &pid);
	__u64 from;

	if (!w)
		return;
	from = __atomic_exchange_n(&w->from, WAIT_CLOSED, __ATOMIC_SEQ_CST);
	if (from != WAIT_CLOSED && now > from) {
		if (now - w->start < min_block_ns)
			stat_add(STAT_OFFCPU_SHORT, 1);
		else
			offcpu_count(w, now - from, 1);
	}
}

/*
 * A thread's last whole user walk, where it left the CPU: a thread that
 * blocks again and again at the same place (a loop around read(), a lock)
 * starts from the same registers each time, and when every stack word the
 * walk read holds what it held then, the walk would find the same frames
 * (its tables only ever add code: a whole walk stays whole). Kept while
 * the stacks sent since stay known (stack_gen), and only for a walk whose
 * stack was sent.
 */
struct walk_memo {
	__u64 ip, sp, fp;
	__u64 gen;  /* stack_gen when it was sent */
	__u64 hash; /* its stack */
	__u64 lo;   /* the span of stack its reads lie in */
	__u32 len;
	__u32 tgid;
	__u32 n;    /* reads[] in use */
	__u32 pad;
	struct stack_read reads[WALK_READS];
};

/* A memo being checked, read by read (bpf_loop()'s context). */
struct memo_check {
	struct walk_memo *m;
	bool differs;
};

/* bpf_loop()'s callback: is read @i of the memo still what it was? 1 stops the loop. */
static long memo_read_same(__u32 i, void *arg)
{
	struct memo_check *c = arg;
	struct walk_memo *m = c->m;
	__u64 v[2] = {};
	struct stack_read *r;

	if (i >= WALK_READS)
		return 1;
	r = &m->reads[i];
	if (read_stack_window(v, r->val[1] ? 16 : 8, r->addr) || v[0] != r->val[0] ||
	    v[1] != r->val[1]) {
		c->differs = true;
		return 1;
	}
	return 0;
}

/* Whether memo @m holds the walk from @r of process @tgid, as it would be now. */
static __always_inline bool walk_memo_holds(struct walk_memo *m, const struct user_regs *r,
					    __u32 tgid)
{
	struct memo_check c = { .m = m };
	struct stack_window *win = stack_window();

	__u32 len = m->len;

	if (m->ip != r->ip || m->sp != r->sp || m->fp != r->fp || m->tgid != tgid ||
	    m->gen != *(volatile __u64 *)&stack_gen || !m->n || m->n > WALK_READS || !win)
		return false;
	/* The span the walk read, copied once: the window holds an earlier copy. */
	win->len = 0;
	if (!len || len > STACK_WINDOW || bpf_probe_read_user(win->data, len, (void *)m->lo))
		return false;
	win->base = m->lo;
	win->len = len;
	bpf_loop(m->n, memo_read_same, &c, 0);
	return !c.differs;
}

/* Keeps the walk just made from @r (its stack @hash, sent in generation @gen) in @m, when whole. */
static __always_inline void walk_memo_keep(struct walk_memo *m, const struct user_regs *r,
					   __u32 tgid, __u64 hash, __u64 gen)
{
	struct unwind_walk *w = unwind_walk_state();
	struct walk_reads *log = walk_reads_log();

	m->n = 0;
	if (!w || !log || w->end != UNWIND_WHOLE || w->stale || !log->n || log->n > WALK_READS ||
	    log->hi - log->lo > STACK_WINDOW)
		return;
	if (bpf_probe_read_kernel(m->reads, sizeof(m->reads), log->r))
		return;
	m->ip = r->ip;
	m->sp = r->sp;
	m->fp = r->fp;
	m->gen = gen;
	m->hash = hash;
	m->lo = log->lo;
	m->len = (__u32)(log->hi - log->lo);
	m->tgid = tgid;
	m->n = log->n;
}

/*
 * Off-CPU mode's user side, from the registers saved in @regs
 * (task_regs()): from the thread's memo @m (NULL: none) when it holds the
 * walk, else walked (and sent), the memo kept for next time.
 */
static __always_inline void offcpu_user_side(void *ctx, struct stack_key *key,
					     struct pt_regs *regs, struct walk_memo *m, bool *stale)
{
	__u64 gen = *(volatile __u64 *)&stack_gen;
	struct where at = {};

	/* A kernel thread's saved registers are not a user stack's: it goes the usual way. */
	if (!(walk_user && unwind_with_tables && has_user_stack(key->pid) &&
	      saved_user_regs(regs, &at.user)))
		m = NULL;
	if (m && walk_memo_holds(m, &at.user, key->tgid)) {
		key->ustack = m->hash;
		key->uerr = 0;
		stat_add(STAT_UWALK + UNWIND_WHOLE, 1);
		return;
	}
	walk_user_side(ctx, key, m ? &at : &in_kernel, stale);
	if (!key->uerr)
		key->uerr = send_walked(true, key->ustack);
	if (m && !key->uerr)
		walk_memo_keep(m, &at.user, key->tgid, key->ustack, gen);
}

/*
 * A thread's last kernel walk where it left the CPU, by where each frame's
 * return address lay on its kernel stack. The kernel's walk (the ORC
 * unwinder, in bpf_get_stack()) finds each caller's return address at a
 * place fixed by the frame below it, the hook's frames the same every
 * time: from the hook's context, the same frames lie at the same distances
 * up the stack, but for the outermost, the return address into the entry
 * code just below the saved user registers (a system call may move the
 * frames below that by a random offset: randomize_kstack_offset). With
 * every one of those words as it was, the walk would find the same frames.
 * Kept while the stacks sent since stay known (stack_gen); made when a
 * thread blocks twice running with the same stack; every KMEMO_AUDIT-th
 * use is walked anyway, a difference counted (STAT_KMEMO_STALE).
 */
#define KMEMO_SLOTS 32
#define KMEMO_LEAD 3    /* frames the walk may find below the hook's context (the hook's own) */
#define KMEMO_AUDIT 64
#define KMEMO_BACKOFF 16 /* repeats not made a memo of, after one that did not hold */

struct kernel_memo {
	__u64 gen;   /* stack_gen when its stack was sent */
	__u64 hash;  /* its stack */
	__u64 last;  /* the last walk's stack, memo or not */
	__u64 outer; /* the return address just below the saved user registers */
	__u32 len;   /* bytes from the hook's context to past its last return address but outer */
	__u32 n;     /* off[] and val[] in use; 0: no memo */
	__u32 uses;
	__u32 backoff;
	__u16 off[KMEMO_SLOTS]; /* each return address's place: words above the hook's context */
	__u64 val[KMEMO_SLOTS];
};

struct thread_memo {
	struct kernel_memo kernel;
	struct walk_memo user;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_memo);
} thread_memos SEC(".maps");

/* The return address just below @regs (task_regs()) into *@v: 0, or a negative errno. */
static __always_inline long read_outer(struct pt_regs *regs, __u64 *v)
{
	return bpf_probe_read_kernel(v, sizeof(*v), (void *)regs - sizeof(*v));
}

/*
 * Whether kernel memo @m holds the walk from the hook's context @ctx, as it
 * would be now, its stack ending at @regs (task_regs()).
 */
static __always_inline bool kernel_memo_holds(const struct kernel_memo *m, void *ctx,
					      struct pt_regs *regs)
{
	struct stack_window *c = stack_window();
	__u32 n = m->n, len = m->len, i;
	__u64 outer;

	if (!n || n > KMEMO_SLOTS || m->gen != *(volatile __u64 *)&stack_gen || !c || !regs ||
	    !len || len > KMEMO_SPAN || bpf_probe_read_kernel(c->kstack, len, ctx) ||
	    read_outer(regs, &outer) || outer != m->outer)
		return false;
	for (i = 0; i < KMEMO_SLOTS; i++) {
		__u32 off;

		if (i >= n)
			break;
		off = m->off[i];
		if (off >= KMEMO_SPAN / 8 || c->kstack[off] != m->val[i])
			return false;
	}
	return true;
}

/* A search for the walk's return addresses in a copy of the stack (bpf_loop()'s context). */
struct kmemo_scan {
	struct stack_window *c;
	struct sent_stack *t;
	struct kernel_memo *m;
	__u32 nr; /* frames to find: t's first nr */
	__u32 k;  /* the frame looked for next */
	__u32 n;  /* found */
};

/* bpf_loop()'s callback: is word @i the next frame's return address? 1 stops the loop. */
static long kmemo_scan_word(__u32 i, void *arg)
{
	struct kmemo_scan *s = arg;
	__u32 k = s->k, n = s->n, j;
	__u64 w;

	if (i >= KMEMO_SPAN / 8 || n >= KMEMO_SLOTS || k >= MAX_STACK_DEPTH || k >= s->nr)
		return 1;
	w = s->c->kstack[i];
	if (!n) { /* the first found may follow the hook's own frames */
		for (j = 0; j < KMEMO_LEAD; j++)
			if (w == s->t->ips[j])
				break;
		if (j == KMEMO_LEAD)
			return 0;
		k = j;
	} else if (w != s->t->ips[k]) {
		return 0;
	}
	s->m->off[n] = i;
	s->m->val[n] = w;
	s->n = n + 1;
	s->k = k + 1;
	return 0;
}

/*
 * Makes @m the memo of the kernel walk just made into the scratch record
 * (its stack @hash, sent in generation @gen) from the hook's context @ctx,
 * when each of its frames is found above @ctx in order, the last just
 * below the saved registers @regs (task_regs()).
 */
static __always_inline void kernel_memo_make(struct kernel_memo *m, void *ctx,
					     struct pt_regs *regs, __u64 hash, __u64 gen)
{
	struct kmemo_scan s = { .c = stack_window(), .t = scratch_stack(false), .m = m };
	__u64 below, outer; /* the distance from @ctx to the saved registers */
	__u32 n, last;

	m->n = 0;
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop) || !s.c || !s.t ||
	    s.t->hash != hash || !regs || read_outer(regs, &outer))
		return;
	last = s.t->nr - 1;
	if (last >= MAX_STACK_DEPTH || outer != s.t->ips[last])
		return;
	below = (__u64)regs - (__u64)ctx;
	if (below < 16 || below > KMEMO_SPAN || bpf_probe_read_kernel(s.c->kstack, below - 8, ctx))
		return;
	s.nr = last; /* all but the outermost, between @ctx and it */
	bpf_loop((below - 8) / 8, kmemo_scan_word, &s, 0);
	n = s.n;
	if (s.k != last || !n || n > KMEMO_SLOTS)
		return;
	m->len = (m->off[(n - 1) & (KMEMO_SLOTS - 1)] + 1) * 8;
	m->outer = outer;
	m->gen = gen;
	m->hash = hash;
	m->uses = 0;
	m->n = n;
}

/*
 * Off-CPU mode's kernel side, its stack ending at @regs (task_regs()):
 * from the thread's memo @m (NULL: none) when it holds the walk, else walked (and sent); a stack walked twice running
 * becomes the memo, unless the last memo of it did not hold where the
 * walk found it again (its words were not all return addresses: the next
 * KMEMO_BACKOFF repeats are walked).
 */
static __always_inline void offcpu_kernel_side(void *ctx, struct stack_key *key,
					       struct pt_regs *regs, struct kernel_memo *m)
{
	__u64 gen = *(volatile __u64 *)&stack_gen;
	bool audit = false;

	if (m && walk_kernel && kernel_memo_holds(m, ctx, regs)) {
		if (++m->uses % KMEMO_AUDIT) {
			key->kstack = m->hash;
			key->kerr = 0;
			stat_add(STAT_KMEMO, 1);
			return;
		}
		audit = true;
	}
	walk_kernel_side(ctx, key, &in_kernel);
	if (!key->kerr)
		key->kerr = send_walked(false, key->kstack);
	if (!m || key->kerr)
		return;
	if (audit) {
		stat_add(STAT_KMEMO_AUDIT, 1);
		if (m->hash != key->kstack) {
			stat_add(STAT_KMEMO_STALE, 1);
			m->n = 0;
		}
	}
	if (key->kstack != m->last) {
		m->last = key->kstack;
	} else if (m->n && m->hash == key->kstack && m->gen == gen) {
		if (!audit) { /* it did not hold */
			m->n = 0;
			m->backoff = KMEMO_BACKOFF;
		}
	} else if (m->backoff) {
		m->backoff--;
	} else {
		kernel_memo_make(m, ctx, regs, key->kstack, gen);
	}
}

/*
 * Opens wait @w of its thread: in the thread's entry where its last wait
 * closed, @w's fields first and its `from` last (an atomic exchange, which
 * credit_waits() reads first: it counts the wait only once it is whole);
 * else in a new entry.
 */
static __always_inline void open_wait(const struct offcpu_wait *w)
{
	struct offcpu_wait *e = bpf_map_lookup_elem(&offcpu_waits, &w->key.pid);

	if (e) {
		e->start = w->start;
		e->state = w->state;
		e->key = w->key;
		__atomic_exchange_n(&e->from, w->from, __ATOMIC_SEQ_CST);
	} else if (bpf_map_update_elem(&offcpu_waits, &w->key.pid, w, BPF_ANY)) {
		stat_add(STAT_LOST_WAITS_FULL, 1);
	}
}

/* The current task leaves the CPU at @now in @state: walks its stacks and opens its wait. */
static __always_inline void offcpu_open(void *ctx, bool preempt, unsigned int state, __u64 now)
{
	struct offcpu_wait w = { .start = now, .from = now };
	__u64 id = bpf_get_current_pid_tgid();
	struct thread_memo *tm = NULL;
	struct pt_regs *regs;
	bool stale = false;

	/* An idle task (the commonest to leave a CPU), flametop, or a task that will not come back. */
	if ((__u32)id == 0 || id >> 32 == self_tgid)
		return;
	if (state & (TASK_DEAD | EXIT_ZOMBIE | EXIT_DEAD)) {
		__u32 pid = (__u32)id;

		bpf_map_delete_elem(&offcpu_waits, &pid); /* its last wait's entry */
		return;
	}
	if (!event_wanted(&w.key))
		return;
	w.state = offcpu_state(preempt, state);
	if (memo_walks)
		tm = bpf_task_storage_get(&thread_memos, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
	regs = task_regs(); /* both sides start from them */
	/* Sent now, while they are in the scratch records: counted later, elsewhere. */
	offcpu_kernel_side(ctx, &w.key, regs, tm ? &tm->kernel : NULL);
	offcpu_user_side(ctx, &w.key, regs, tm ? &tm->user : NULL, &stale);
	open_wait(&w);
	note_process(&w.key, stale);
}

/*
 * Every mode, with unwind tables: a process the walk has mappings of
 * (unwind_pids) ended, its last thread gone (do_exit() counted it out of
 * signal->live before this point), so that its slot is freed without
 * asking after each process at each drain.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_process_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;

	if (BPF_CORE_READ(task, signal, live.counter) || !bpf_map_lookup_elem(&unwind_pids, &tgid))
		return 0;
	proc_note_push(task, tgid, PROC_NOTE_EXIT);
	return 0;
}

/* off-CPU mode: every context switch (prev is the current task). */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 pid = next->pid;

	if (pid)
		offcpu_close(pid, now);
	offcpu_open(ctx, preempt, prev_state, now);
	return 0;
}

/* credit_waits()'s callback: counts an open wait up to @now, unless it closes first. */
static long credit_wait(struct bpf_map *map, const __u32 *pid, struct offcpu_wait *w, __u64 *now)
{
	__u64 from = w->from;

	if (from == WAIT_CLOSED || *now <= from || *now - w->start < min_block_ns)
		return 0;
	if (__sync_val_compare_and_swap(&w->from, from, *now) == from)
		offcpu_count(w, *now - from, 0);
	return 0;
}

/* Run by the loader (BPF_PROG_TEST_RUN) at each drain: counts the open waits up to now. */
SEC("raw_tp")
int credit_waits(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	bpf_for_each_map_elem(&offcpu_waits, credit_wait, &now, 0);
	return 0;
}
