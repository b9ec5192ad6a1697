/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counting.bpf.h: counting a key {tgid, pid, comm, kernel stack, user
 * stack} in the active map set.
 *
 * Double buffering: events are counted in the counts array of set
 * `active_set` (0 or 1). Before each drain the loader flips active_set, then
 * waits until no event is still recording into the old set (the per-CPU
 * inflight counters, in the stats map), so it reads a set nothing writes
 * to, and zeroes its counts before the set becomes active again. A key's
 * slot in the arrays is given once and sent with the key (see stack_key.h).
 */
#ifndef FLAMETOP_COUNTING_BPF_H
#define FLAMETOP_COUNTING_BPF_H

/* Live state, written by the loader through the mmapped .bss. */
__u32 active_set;

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
	__u64 h = (key->kstack ^ key->ustack ^ key->pystack ^ ((__u64)key->tgid << 32 | key->pid)) *
		  HASH_MUL;
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
	if (!key->pyerr)
		key->pyerr = send_python_walked(key->pystack);
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
 * after sending its stacks unless the memo says they were. Returns 0.
 *
 * A global function, the one of the programs: the verifier checks it once,
 * not once for every way the walks before it ended (read mode's program,
 * with walk_memo.bpf.h's two sides before it, took it 1.4 s to check
 * inlined, 0.4 s so; sample mode's 75,000 instructions became 41,000).
 * What @key points to is known to it only as memory of a key's size,
 * maybe NULL.
 */
__noinline int count_in(int set, struct stack_key *key, __u64 events, __u64 weight)
{
	struct key_memo_entry *m;
	struct stack_value *v;
	__u32 slot;

	if (!key)
		return 0;
	m = key_memo_at(key);
	if (!memo_slot(m, key, &slot) && key_slot(key, m, &slot)) {
		stat_add(STAT_LOST_COUNTS_FULL, 1);
		return 0;
	}
	v = bpf_map_lookup_elem(set ? (void *)&counts1 : (void *)&counts0, &slot);
	if (!v) {
		stat_add(STAT_LOST_COUNTS_FULL, 1);
		return 0;
	}
	if (events)
		__sync_fetch_and_add(&v->count, events);
	if (weight)
		__sync_fetch_and_add(&v->weight, weight);
	return 0;
}

#endif
