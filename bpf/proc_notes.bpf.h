/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc_notes.bpf.h: process notes (see stack_key.h). A new address space
 * and a young process push the tgid into the proc_notes ring buffer, so
 * that the loader snapshots the process while it still runs; a walk that
 * met code outside the process's known mappings says its maps changed;
 * a process the walk has mappings of says when it ends.
 */
#ifndef FLAMETOP_PROC_NOTES_BPF_H
#define FLAMETOP_PROC_NOTES_BPF_H

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

#endif
