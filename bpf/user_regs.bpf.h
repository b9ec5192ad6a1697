/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_regs.bpf.h: the user registers a user stack walk starts from, as an
 * event has them or as the task saved them entering the kernel.
 */
#ifndef FLAMETOP_USER_REGS_BPF_H
#define FLAMETOP_USER_REGS_BPF_H

/*
 * The user registers a user stack walk starts from. A frame record, where
 * the frame pointer points, holds the caller's frame pointer then the
 * return address, on x86-64 and arm64 alike.
 */
struct user_regs {
	__u64 ip, sp, fp; /* ip 0: not known */
	bool compat;      /* a 32-bit task's */
};

/*
 * Whether user registers @regs (a struct pt_regs pointer, read with CO-RE,
 * or the perf event's own copy) are a 32-bit task's: by its code segment
 * on x86-64, its mode on arm64. Not by where its stack lies: a 64-bit
 * thread may be given a stack below 4 GiB.
 */
#if defined(__TARGET_ARCH_x86)
#define USER32_CS 0x23
#define REGS_COMPAT_CORE(regs) ((BPF_CORE_READ(regs, cs) & 0xffff) == USER32_CS)
/* A perf event's own copy is read whole words at a time: cs is the 18th of the uapi pt_regs. */
#define REGS_COMPAT(regs) ((((const __u64 *)(regs))[17] & 0xffff) == USER32_CS)
#elif defined(__TARGET_ARCH_arm64)
#define PSR_MODE32 0x10
#define REGS_COMPAT_CORE(regs) ((BPF_CORE_READ(regs, pstate) & PSR_MODE32) != 0)
#define REGS_COMPAT(regs) (((regs)->pstate & PSR_MODE32) != 0)
#endif

/* The user registers saved in @regs, a struct pt_regs pointer. */
#define USER_REGS_CORE(regs)                                                                       \
	((struct user_regs){ .ip = PT_REGS_IP_CORE(regs),                                          \
			     .sp = PT_REGS_SP_CORE(regs),                                          \
			     .fp = PT_REGS_FP_CORE(regs),                                          \
			     .compat = REGS_COMPAT_CORE(regs) })

/*
 * Whether @r can be walked here: known, and a 64-bit task's. 32-bit tasks
 * lay their frames out otherwise (bpf_get_stack() walks those).
 */
static __always_inline bool user_regs_walkable(const struct user_regs *r)
{
	return r->ip && !r->compat;
}

/*
 * The registers the current task entered the kernel with, saved at the
 * top of its kernel stack; NULL when this kernel cannot say
 * (bpf_task_pt_regs() came in 5.15).
 */
static __always_inline struct pt_regs *task_regs(void)
{
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return NULL;
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

/*
 * The user registers saved in @regs (task_regs()) into *@r; false when
 * there are none or they cannot be walked here.
 */
static __always_inline bool saved_user_regs(struct pt_regs *regs, struct user_regs *r)
{
	if (!regs)
		return false;
	*r = USER_REGS_CORE(regs);
	return user_regs_walkable(r);
}

#endif
