/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu.bpf.h: off-CPU mode, the sched_switch BTF tracepoint. A thread
 * leaving a CPU (not an idle task, not flametop, within the filters) has
 * its stacks walked there, where it blocks, and a wait opened in offcpu_waits; back
 * on a CPU, its wait is closed and counted, weighing the nanoseconds it
 * was off. A wait still open at a drain is counted up to then by
 * credit_waits(), which the loader runs before it switches sets, so that
 * a thread blocked for a minute shows while it waits. Each part of a wait
 * is counted once: by the side that moves its `from` on first.
 */
#ifndef FLAMETOP_OFFCPU_BPF_H
#define FLAMETOP_OFFCPU_BPF_H

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
	/* Sent as they are walked: counted later, elsewhere. */
	memo_walk_stacks(ctx, &w.key, &in_kernel, &stale);
	walk_python_frames(&w.key); /* never from a memo, as record_event()'s */
	if (!w.key.pyerr)
		w.key.pyerr = send_python_walked(w.key.pystack);
	open_wait(&w);
	note_process(&w.key, stale);
}


/* The state of @task (not the current one), on kernels before and after 5.14's rename. */
static __always_inline unsigned int task_state(struct task_struct *task)
{
	struct task_struct___pre514 {
		long state;
	} *old = (void *)task;

	if (bpf_core_field_exists(task->__state))
		return BPF_CORE_READ(task, __state);
	return BPF_CORE_READ(old, state);
}

/* Puts the leaf of a stack copied from its start, @r's, in the user scratch record. */
static __always_inline bool seed_leaf(const struct user_regs *r)
{
	struct sent_stack *t = scratch_stack(true);

	if (!t)
		return false;
	t->ips[0] = r->ip;
	t->nr = 1;
	t->hash = 0; /* holds no walk to send */
	return true;
}

/*
 * Opens a wait for @task, off a CPU since before flametop started (@state
 * not running), unless it has one: its kernel stack walked, its user
 * stack copied (cold_stack.bpf.h) to be walked in user space. True when
 * it opened one.
 */
static __always_inline bool seed_wait(struct task_struct *task, unsigned int state)
{
	struct offcpu_wait w = { .state = offcpu_state(false, state) };
	struct user_regs r;

	if (!task_wanted(task, &w.key) || bpf_map_lookup_elem(&offcpu_waits, &w.key.pid))
		return false;
	w.start = w.from = bpf_ktime_get_ns();
	w.key.pyerr = STACK_NOT_WALKED; /* the walk reads the current task's memory only */
	w.key.kerr = walk_kernel ? walk_task_kernel_stack(task, &w.key.kstack) : STACK_NOT_WALKED;
	if (!w.key.kerr)
		w.key.kerr = send_walked(false, w.key.kstack);
	if (!walk_user)
		w.key.uerr = STACK_NOT_WALKED;
	else if (!saved_user_regs((struct pt_regs *)bpf_task_pt_regs(task), &r))
		w.key.uerr = STACK_NO_USER;
	else if (!seed_leaf(&r) || !send_cold_copy(&r, scratch_stack(true), 1, 1, task,
						   &w.key.ustack))
		w.key.uerr = -EFAULT;
	return bpf_map_update_elem(&offcpu_waits, &w.key.pid, &w, BPF_NOEXIST) == 0;
}

/*
 * Run by the loader once the sched_switch hook is attached, over every
 * task: opens a wait for each thread already off a CPU (a server blocked
 * in accept() since before flametop started), counted from now on, as
 * sched_switch would have opened it. A thread that switched since the hook
 * was attached has its own already. Writes a byte for each wait it
 * opened: the loader reads them a page at a time and empties the stacks
 * ring between two, so that the copies of a machine's sleeping threads
 * never overflow it.
 */
SEC("iter.s/task")
int seed_waits(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	unsigned int state;
	char one = 1;

	if (!task || task->tgid == self_tgid || !task->pid || (task->flags & PF_KTHREAD))
		return 0;
	state = task_state(task);
	if (state == TASK_RUNNING || (state & (TASK_DEAD | EXIT_ZOMBIE | EXIT_DEAD)))
		return 0;
	if (seed_wait(task, state))
		bpf_seq_write(ctx->meta->seq, &one, sizeof(one));
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

#endif
