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
	walk_python_frames(&w.key);
	if (!w.key.pyerr)
		w.key.pyerr = send_python_walked(w.key.pystack);
	open_wait(&w);
	note_process(&w.key, stale);
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
