/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.bpf.h: every event source records through record_event(): filter
 * on tgid and comm, walk the kernel and user stacks into the active map
 * set, count the stack, note the process.
 */
#ifndef FLAMETOP_RECORD_BPF_H
#define FLAMETOP_RECORD_BPF_H

/* Set once, before load. */
const volatile bool walk_kernel = true;
const volatile bool walk_user = true;

/* Live state, written by the loader through the mmapped .bss. */
__u32 filter_tgids_on;
__u32 filter_comm_on;
__u64 filter_comm[COMM_LEN / 8];
__u32 paused;    /* set by capture__pause(): sample and read mode count nothing more */
__u64 stop_at_ns; /* with a deadline: sample and read mode count nothing from then on
		   * (CLOCK_MONOTONIC ns; 0: none) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, MAX_FILTER_TGIDS);
} tgid_filter SEC(".maps");

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

/* event_wanted() of @task, another task than the current one. */
static __always_inline bool task_wanted(struct task_struct *task, struct stack_key *key)
{
	key->tgid = BPF_CORE_READ(task, tgid);
	key->pid = BPF_CORE_READ(task, pid);
	if (filter_tgids_on && !bpf_map_lookup_elem(&tgid_filter, &key->tgid))
		return false;
	BPF_CORE_READ_STR_INTO(&key->comm, task, comm);
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

/* Walks a Python thread's Python frames into @key, once its user side is walked. */
static __always_inline void walk_python_frames(struct stack_key *key)
{
	if (walk_user && key->uerr != STACK_NO_USER)
		walk_python_side(key);
	else
		key->pyerr = STACK_NOT_WALKED;
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

/* walk_memo.bpf.h's, after this file: the walks from a thread's memos. */
static __always_inline void memo_walk_stacks(void *ctx, struct stack_key *key,
					     const struct where *at, bool *stale);

/*
 * The key record_event() fills, one per CPU: off the hook program's stack,
 * which the walks called below it share (512 bytes in all, and the native
 * walk's steps take 176 of them). A hook's program does not run nested on
 * its CPU, and a capture attaches one mode's hooks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_key);
} event_key SEC(".maps");

/*
 * Records one event that happened @at, weighing @weight (read mode: the
 * bytes asked for); with @memo, its stacks from the thread's memos of its
 * last walks where they hold (a hook whose programs may keep task storage,
 * in a mode that keeps memos).
 */
static __always_inline int record_event(void *ctx, __u64 weight, const struct where *at, bool memo)
{
	__u32 zero = 0;
	struct stack_key *key = bpf_map_lookup_elem(&event_key, &zero);
	bool stale = false;
	int set;

	if (!key || *(volatile __u32 *)&paused || past_deadline())
		return 0;
	__builtin_memset(key, 0, sizeof(*key));
	if (!event_wanted(key))
		return 0;

	stat_add(STAT_EVENTS, 1);
	set = set_enter();
	if (set < 0) {
		stat_add(STAT_LOST_BUSY, 1);
		return 0;
	}
	if (memo && memo_walks)
		memo_walk_stacks(ctx, key, at, &stale);
	else
		walk_stacks(ctx, key, at, &stale);
	/* Never from a memo: the interpreter's frames change under the same native stack. */
	walk_python_frames(key);
	count_in(set, key, 1, weight);
	inflight_add(set, -1);
	note_process(key, stale);
	return 0;
}

/* An event inside the kernel, met by a tracing hook. */
static const struct where in_kernel = { .in_kernel = true };

#endif
