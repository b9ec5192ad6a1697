/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_store.bpf.h: where walked stacks go. The kernel's stacks are walked
 * by bpf_get_stack(), the user's by a walker (native_walk.bpf.h), into
 * per-CPU scratch records, and hashed (64 bits). A hash the seen map in
 * use does not hold yet is added there and the stack sent through the
 * `stacks` ring buffer, so user space reads each stack once (from shared
 * memory, without a system call per stack) and keeps it until it switches
 * to the other seen map, an empty one (and bumps stack_gen); it forgets
 * the stacks not sent again one drain later, and puts a fresh map where
 * the one left was. Two different stacks with the same 64-bit hash would
 * be merged: among n stacks, with a probability of about n^2 / 2^65.
 *
 * Two maps instead of one to empty: the maps the loader must empty now and
 * then (seen here, key_slots in counting.bpf.h) are reached through
 * two-slot arrays of maps, by a selector in .bss. Emptying is the loader
 * switching the selector to a map made empty; the map left is replaced
 * whole once nothing uses it, instead of having its entries deleted one by
 * one.
 */
#ifndef FLAMETOP_STACK_STORE_BPF_H
#define FLAMETOP_STACK_STORE_BPF_H

/* Live state, written by the loader through the mmapped .bss. */
__u64 stack_gen; /* bumped by the loader each time it switches seen maps */
__u32 seen_sel;  /* the seen map in use: seen[seen_sel & 1] */

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

/*
 * Sends the record @rec of @size bytes, a stack of hash @hash, to user
 * space once: its hash goes in the seen map in use.
 */
static __always_inline long send_once(void *rec, __u64 hash, __u64 size)
{
	__u32 sel = *(volatile __u32 *)&seen_sel & 1;
	void *sent = bpf_map_lookup_elem(&seen, &sel);
	__u8 one = 1;
	long err;

	if (!sent)
		return -EFAULT; /* never: the loader fills both slots before attaching */
	if (bpf_map_lookup_elem(sent, &hash))
		return 0;
	err = bpf_map_update_elem(sent, &hash, &one, BPF_NOEXIST);
	if (err)
		return err == -EEXIST ? 0 : err; /* -EEXIST: another CPU sends it */
	err = ring_send(rec, size);
	if (err)
		bpf_map_delete_elem(sent, &hash); /* not sent: try again next time */
	return err;
}

/* Sends @t to user space, once. */
static __always_inline long send_stack(struct sent_stack *t)
{
	__u32 nr = t->nr;

	if (nr > MAX_STACK_DEPTH)
		nr = MAX_STACK_DEPTH;
	t->kind = SENT_STACK;
	return send_once(t, t->hash, SENT_STACK_HEAD + nr * sizeof(__u64));
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
 * Finishes the walk of @len bytes of addresses (or a negative errno) into
 * @t, a side's scratch record, as walk_stack() returns it.
 */
static __always_inline long walked(struct sent_stack *t, long len, bool user, __u64 *hash)
{
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
	return walked(t, len, user, hash);
}

/* walk_stack() of another task's kernel stack, @task (not running). */
static __always_inline long walk_task_kernel_stack(struct task_struct *task, __u64 *hash)
{
	struct sent_stack *t = scratch_stack(false);

	if (!t) {
		stack_failed(-EFAULT, false);
		return -EFAULT;
	}
	return walked(t, bpf_get_task_stack(task, t->ips, sizeof(t->ips), 0), false, hash);
}

#endif
