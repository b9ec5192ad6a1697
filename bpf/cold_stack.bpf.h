/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cold_stack.bpf.h: user stacks the walk could not finish, copied to be
 * walked later. A process sampled before its tables are in (a new
 * process, flametop's own first seconds, a library just loaded) would
 * lose its callers; instead, its registers and the top of its stack go to
 * user space (struct sent_cold, stack_key.h), where the same walk
 * (unwind/stack_walk.c) unwinds them once the tables are built. Steady
 * state never comes here; a copy costs a few microseconds, and at most
 * cold_per_sec of them are made per CPU and second (the rest keep the
 * walk's cut stack, counted).
 */
#ifndef FLAMETOP_COLD_STACK_BPF_H
#define FLAMETOP_COLD_STACK_BPF_H

/* Set once, before load. */
const volatile bool cold_copies = false; /* copy the stacks the walk could not finish */
const volatile __u32 cold_per_sec = 1000;

#define COLD_WINDOW_NS (100 * 1000000ULL) /* the budget is kept per tenth of a second */

struct cold_budget {
	__u64 window; /* the window's start, ns since boot */
	__u32 used;   /* copies made in it */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cold_budget);
	__uint(max_entries, 1);
} cold_budgets SEC(".maps");

/* The copy being made, per CPU: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sent_cold);
	__uint(max_entries, 1);
} cold_scratch SEC(".maps");

/* Takes one copy from this CPU's budget; false when it is spent (counted). */
static __always_inline bool cold_budget_take(__u64 now)
{
	__u32 zero = 0;
	struct cold_budget *b = bpf_map_lookup_elem(&cold_budgets, &zero);

	if (!b)
		return false;
	if (now - b->window >= COLD_WINDOW_NS) {
		b->window = now;
		b->used = 0;
	}
	if (b->used >= cold_per_sec / 10) {
		stat_add(STAT_COLD_BUDGET, 1);
		return false;
	}
	b->used++;
	return true;
}

/*
 * Sends a copy of @task's user stack (NULL: the current task's, within this
 * CPU's budget; another task's only from a sleepable program) for the walk
 * to go on in user space: the @nr frames found so far, leaf first, in @t
 * (@trusted of them found by rules), the last one's registers @r, and the
 * stack from its sp up (whole pages from sp's, until one can't be read or
 * COLD_PAGES are). On success sets *@hash to the copy's id, for the key.
 * False when no copy was sent (the walk's own cut stack stands).
 */
static __always_inline bool send_cold_copy(const struct user_regs *r, const struct sent_stack *t,
					   __u32 nr, __u32 trusted, struct task_struct *task,
					   __u64 *hash)
{
	__u32 zero = 0, pages = 0;
	struct sent_cold *c = bpf_map_lookup_elem(&cold_scratch, &zero);
	__u64 now = bpf_ktime_get_ns(), base = r->sp & ~(__u64)(COLD_PAGE - 1);

	if (!c || !nr || nr > MAX_STACK_DEPTH || (!task && !cold_budget_take(now)))
		return false;
	for (int i = 0; i < COLD_PAGES; i++) {
		void *dst = c->bytes + i * COLD_PAGE, *src = (void *)(base + i * COLD_PAGE);

		if (task ? bpf_copy_from_user_task(dst, COLD_PAGE, src, task, 0)
			 : bpf_probe_read_user(dst, COLD_PAGE, src))
			break;
		pages = i + 1;
	}
	if (!pages || bpf_probe_read_kernel(c->ips, sizeof(c->ips), t->ips))
		return false;
	c->hash = hash_end(hash_step(hash_step(HASH_MUL, now), r->sp),
			   bpf_get_smp_processor_id() | UNWIND_END_NR << 16);
	c->kind = SENT_COLD;
	c->len = pages * COLD_PAGE;
	c->cut = pages == COLD_PAGES;
	c->ip = r->ip;
	c->sp = r->sp;
	c->bp = r->fp;
	c->base = base;
	c->nr = nr;
	c->trusted = trusted;
	if (pages > COLD_PAGES || ring_send(c, SENT_COLD_HEAD + pages * COLD_PAGE)) {
		stat_add(STAT_COLD_LOST, 1);
		return false;
	}
	stat_add(STAT_COLD_SENT, 1);
	*hash = c->hash;
	return true;
}

#endif
