/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk_memo.bpf.h: a thread's last walks, kept to be used again. A thread
 * that meets its event again and again at the same place (off-CPU mode: it
 * blocks in the same lock; read mode: it reads in the same loop) has the
 * same stacks each time; each side's memo says when that is certain from a
 * few words of its stack (see the memos below), and then takes the last
 * walk's stack instead of walking again. Every MEMO_AUDIT-th use of a memo
 * is walked anyway and compared: the stats count the uses, the checks and
 * the differences (STAT_KMEMO*, STAT_UMEMO*), and the summary says them.
 * The memos live with the thread (task storage: about 1.4 KiB a thread,
 * freed with it), in the modes whose capture sets memo_walks.
 */
#ifndef FLAMETOP_WALK_MEMO_BPF_H
#define FLAMETOP_WALK_MEMO_BPF_H

#define MEMO_AUDIT 64 /* every MEMO_AUDIT-th use of a memo is walked again, to check it */

/*
 * A thread's last whole user walk, where its event met it: a thread that
 * blocks or reads again and again at the same place (a loop around read(),
 * a lock) starts from the same registers each time (ip and sp; fp too where
 * the walk used it: code built without frame pointers keeps anything in
 * it), and when every stack word the walk read holds what it held then,
 * the walk would find the same frames (its tables only ever add code: a
 * whole walk stays whole). Kept
 * while the stacks sent since stay known (stack_gen), and only for a walk
 * whose stack was sent; every MEMO_AUDIT-th use is walked anyway, a
 * difference counted (STAT_UMEMO_STALE).
 */
struct walk_memo {
	__u64 ip, sp, fp;
	__u64 gen;  /* stack_gen when it was sent */
	__u64 hash; /* its stack */
	__u64 lo;   /* the span of stack its reads lie in */
	__u32 len;
	__u32 tgid;
	__u32 n;    /* reads[] in use */
	__u32 uses;
	__u32 fp_used; /* the walk used fp as it started (else fp may be anything) */
	__u32 audit;   /* it held, and is walked again to check: the walk compares */
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

	if (m->ip != r->ip || m->sp != r->sp || (m->fp_used && m->fp != r->fp) || m->tgid != tgid ||
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
	m->fp_used = w->bp_used;
	m->gen = gen;
	m->hash = hash;
	m->lo = log->lo;
	m->len = (__u32)(log->hi - log->lo);
	m->tgid = tgid;
	m->n = log->n;
}

/*
 * The user side of an event met @at, from the user registers it has, else
 * from those saved in @regs (task_regs()): from the thread's memo @m (NULL:
 * none) when it holds the walk, else walked (and sent), the memo kept for
 * next time.
 */
static __always_inline void memo_user_side(void *ctx, struct stack_key *key, const struct where *at,
					   struct pt_regs *regs, struct walk_memo *m, bool *stale)
{
	__u64 gen = *(volatile __u64 *)&stack_gen;
	struct where from = *at;
	struct walk_reads *log;

	/* A kernel thread's saved registers are not a user stack's: it goes the usual way. */
	if (!(walk_user && unwind_with_tables && has_user_stack(key->pid) &&
	      (from.user.ip || saved_user_regs(regs, &from.user))))
		m = NULL;
	if (m && walk_memo_holds(m, &from.user, key->tgid)) {
		if (++m->uses % MEMO_AUDIT) {
			key->ustack = m->hash;
			key->uerr = 0;
			stat_add(STAT_UWALK + UNWIND_WHOLE, 1);
			stat_add(STAT_UMEMO, 1);
			return;
		}
		/* Noted in the memo, not in a variable: the walk's paths stay as many. */
		m->audit = 1;
	}
	if (m && (log = walk_reads_log()))
		log->n = 0; /* a walk without the tables leaves none: no memo is made of it */
	walk_user_side(ctx, key, m ? &from : at, stale);
	if (!key->uerr)
		key->uerr = send_walked(true, key->ustack);
	if (!m)
		return;
	if (m->audit && !key->uerr) {
		stat_add(STAT_UMEMO_AUDIT, 1);
		if (m->hash != key->ustack)
			stat_add(STAT_UMEMO_STALE, 1);
	}
	m->audit = 0;
	if (!key->uerr)
		walk_memo_keep(m, &from.user, key->tgid, key->ustack, gen);
}

/*
 * A thread's last kernel walk where its event met it, by where each frame's
 * return address lay on its kernel stack. The kernel's walk (the ORC
 * unwinder, in bpf_get_stack()) finds each caller's return address at a
 * place fixed by the frame below it, the hook's frames the same every
 * time: from the hook's context, the same frames lie at the same distances
 * up the stack, but for the outermost, the return address into the entry
 * code just below the saved user registers (a system call may move the
 * frames below that by a random offset: randomize_kstack_offset). With
 * every one of those words as it was, the walk would find the same frames.
 * Kept while the stacks sent since stay known (stack_gen); made when a
 * thread meets its event twice running with the same stack; every
 * MEMO_AUDIT-th use is walked anyway, a difference counted
 * (STAT_KMEMO_STALE).
 */
#define KMEMO_SLOTS 32
#define KMEMO_LEAD 3    /* frames the walk may find below the hook's context (the hook's own) */
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
 * The kernel side of an event met @at, its stack ending at @regs
 * (task_regs()): from the thread's memo @m (NULL: none) when it holds the
 * walk, else walked (and sent); a stack walked twice running becomes the
 * memo, unless the last memo of it did not hold where the walk found it
 * again (its words were not all return addresses: the next KMEMO_BACKOFF
 * repeats are walked).
 */
static __always_inline void memo_kernel_side(void *ctx, struct stack_key *key,
					     const struct where *at, struct pt_regs *regs,
					     struct kernel_memo *m)
{
	__u64 gen = *(volatile __u64 *)&stack_gen;
	bool audit = false;

	if (m && walk_kernel && kernel_memo_holds(m, ctx, regs)) {
		if (++m->uses % MEMO_AUDIT) {
			key->kstack = m->hash;
			key->kerr = 0;
			stat_add(STAT_KMEMO, 1);
			return;
		}
		audit = true;
	}
	walk_kernel_side(ctx, key, at);
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
 * Walks the current task's stacks, as the event @at met them, into @key
 * (its identity filled in by event_wanted()), from the thread's memos where
 * they hold; each stack walked is sent now, while it is in its scratch
 * record (a memo is of a stack sent). *@stale as walk_user_tables() sets it.
 */
static __always_inline void memo_walk_stacks(void *ctx, struct stack_key *key,
					     const struct where *at, bool *stale)
{
	struct thread_memo *tm = bpf_task_storage_get(&thread_memos, bpf_get_current_task_btf(), 0,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct pt_regs *regs = task_regs(); /* both sides start from them */

	memo_kernel_side(ctx, key, at, regs, tm ? &tm->kernel : NULL);
	memo_user_side(ctx, key, at, regs, tm ? &tm->user : NULL, stale);
}

#endif
