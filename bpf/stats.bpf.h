/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.bpf.h: each CPU's counters (enum stat_slot, stack_key.h) and the
 * events it is recording into each map set, in one mmapped array that
 * flametop reads without a system call. Every part of the capture counts
 * what it could not record here: nothing is dropped silently.
 */
#ifndef FLAMETOP_STATS_BPF_H
#define FLAMETOP_STATS_BPF_H

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

#endif
