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
 * Double buffering: events go to map set `active_set` (0 or 1). Before each
 * drain the loader flips active_set, then waits until no event is still
 * recording into the old set (the per-CPU `inflight` counters), so it reads a
 * set nothing writes to. It empties the set's counts before the set becomes
 * active again, and its stack maps when they fill: until then a stack id
 * keeps its meaning, and each stack is read once.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stack_key.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST 17
#define ENOMEM 12
#define PF_KTHREAD 0x00200000

/* Set once, before load. */
const volatile bool walk_kernel = true;
const volatile bool walk_user = true;

/* Live state, written by the loader through the mmapped .bss. */
__u32 active_set;
__u32 filter_tgids_on;
__u32 filter_comm_on;
__u64 filter_comm[COMM_LEN / 8];
__u64 stack_gen[2]; /* bumped by the loader each time it empties a set's stack maps */

#define STACK_MAP(name)                                                                            \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                                            \
		__uint(key_size, sizeof(__u32));                                                   \
		__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));                               \
		__uint(max_entries, 1024);                                                         \
	} name SEC(".maps")

#define COUNTS_MAP(name)                                                                           \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__type(key, struct stack_key);                                                     \
		__type(value, struct stack_value);                                                 \
		__uint(max_entries, 1024);                                                         \
	} name SEC(".maps")

STACK_MAP(stacks0);
STACK_MAP(spill0);
COUNTS_MAP(counts0);
STACK_MAP(stacks1);
STACK_MAP(spill1);
COUNTS_MAP(counts1);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stat_counters);
	__uint(max_entries, 1);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __s64);
	__uint(max_entries, 2);
} inflight SEC(".maps");

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
	__u32 tgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct proc_seen);
	__uint(max_entries, PROC_SEEN_SLOTS);
} proc_seen SEC(".maps");

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	__u32 zero = 0;
	struct stat_counters *c = bpf_map_lookup_elem(&stats, &zero);

	if (c && slot < STAT_NR)
		__sync_fetch_and_add(&c->slot[slot], n);
}

static __always_inline void inflight_add(__u32 set, __s64 n)
{
	__s64 *v = bpf_map_lookup_elem(&inflight, &set);

	if (v)
		__sync_fetch_and_add(v, n);
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

static __always_inline void stack_failed(__s32 err, bool user)
{
	__u32 base = user ? STAT_USTACK_COLLISION : STAT_KSTACK_COLLISION;

	if (err == -EEXIST)
		stat_add(base, 1);
	else if (err == -ENOMEM)
		stat_add(base + 1, 1);
	else
		stat_add(base + 2, 1);
}

/* A stack that collides in the primary map gets a second chance in the spill map. */
static __always_inline __s32 get_stackid(void *ctx, void *primary, void *spill, __u64 flags)
{
	__s32 id = bpf_get_stackid(ctx, primary, flags);

	if (id == -EEXIST) {
		id = bpf_get_stackid(ctx, spill, flags);
		if (id >= 0)
			id |= STACK_SPILL;
	}
	return id;
}

static __always_inline __s32 walk_stack(void *ctx, int set, bool user)
{
	__u64 flags = user ? BPF_F_USER_STACK : 0;
	__s32 id;

	if (set)
		id = get_stackid(ctx, &stacks1, &spill1, flags);
	else
		id = get_stackid(ctx, &stacks0, &spill0, flags);
	if (id < 0)
		stack_failed(id, user);
	return id;
}

static __always_inline void count_in(void *counts, struct stack_key *key, __u64 bytes)
{
	struct stack_value *v = bpf_map_lookup_elem(counts, key);
	struct stack_value init = { .count = 1, .bytes = bytes };
	long err;

	if (!v) {
		err = bpf_map_update_elem(counts, key, &init, BPF_NOEXIST);
		if (!err)
			return;
		v = bpf_map_lookup_elem(counts, key); /* lost a race to insert? */
		if (!v) {
			stat_add(STAT_LOST_COUNTS_FULL, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	if (bytes)
		__sync_fetch_and_add(&v->bytes, bytes);
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

	bpf_ringbuf_output(&proc_notes, &e, sizeof(e), 0);
}

/* Notes a new address space, and a young process now and then (lock-free: per CPU). */
static __always_inline void proc_seen_note(__u32 tgid)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(task, mm);
	__u64 now = bpf_ktime_get_ns();
	bool young = now - BPF_CORE_READ(task, group_leader, start_time) < PROC_YOUNG_NS;
	__u32 slot = tgid % PROC_SEEN_SLOTS;
	struct proc_seen *seen = bpf_map_lookup_elem(&proc_seen, &slot);

	if (!seen || (seen->tgid == tgid && seen->mm == mm &&
		      (!young || now - seen->ns < PROC_NOTE_GAP_NS)))
		return;
	seen->tgid = tgid;
	seen->mm = mm;
	seen->ns = now;
	proc_note_push(task, tgid, young ? PROC_NOTE_YOUNG : PROC_NOTE_SAMPLE);
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
};

/*
 * The idle task's kernel stack, remembered per CPU. An idle CPU is sampled
 * over and over at the same place (the halt of the idle loop: the same
 * instruction, the same stack pointer), and walking that stack with cold
 * caches is the dearest thing a sample does. A sample of the idle task at
 * the same (ip, sp) as the last walk, in the same map set, since that set's
 * stacks were last emptied, reuses the walk's stack id.
 */
struct idle_memo {
	__u64 ip, sp, gen;
	__s32 kstack;
	__u32 set;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct idle_memo);
	__uint(max_entries, 1);
} idle_memo SEC(".maps");

static __always_inline __s32 idle_kernel_stack(void *ctx, int set, const struct where *at)
{
	__u32 zero = 0;
	struct idle_memo *m = bpf_map_lookup_elem(&idle_memo, &zero);
	__u64 gen = stack_gen[set & 1];
	__s32 id;

	if (m && m->kstack >= 0 && m->ip == at->ip && m->sp == at->sp && m->set == set &&
	    m->gen == gen)
		return m->kstack;
	id = walk_stack(ctx, set, false);
	if (m && id >= 0)
		*m = (struct idle_memo){ .ip = at->ip, .sp = at->sp, .gen = gen, .kstack = id,
					 .set = set };
	return id;
}

/* Records one event that happened @at. */
static __always_inline int record_event(void *ctx, __u64 bytes, const struct where *at)
{
	struct stack_key key = {};
	int set;

	if (!event_wanted(&key))
		return 0;

	stat_add(STAT_EVENTS, 1);
	set = set_enter();
	if (set < 0) {
		stat_add(STAT_LOST_BUSY, 1);
		return 0;
	}
	if (!walk_kernel)
		key.kstack = STACK_NOT_WALKED;
	else if (!at->in_kernel)
		key.kstack = STACK_NO_KERNEL;
	else if (key.pid == 0 && at->ip)
		key.kstack = idle_kernel_stack(ctx, set, at);
	else
		key.kstack = walk_stack(ctx, set, false);
	if (!walk_user)
		key.ustack = STACK_NOT_WALKED;
	else if (!has_user_stack(key.pid))
		key.ustack = STACK_NO_USER;
	else
		key.ustack = walk_stack(ctx, set, true);

	count_in(set ? (void *)&counts1 : (void *)&counts0, &key, bytes);
	inflight_add(set, -1);
	if (key.ustack >= 0)
		proc_seen_note(key.tgid);
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
	unsigned long arg2 = PT_REGS_PARM2_CORE_SYSCALL(regs);
	unsigned long arg3 = PT_REGS_PARM3_CORE_SYSCALL(regs);

	switch (nr) {
	case NR_read:
	case NR_pread64:
		return record_event(ctx, arg3, &in_kernel);
	case NR_readv:
	case NR_preadv:
	case NR_preadv2:
		return record_event(ctx, iov_bytes((const struct iovec *)arg2, arg3), &in_kernel);
	default:
		return 0;
	}
}
