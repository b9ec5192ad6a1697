/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_step.h: one step of a user stack walk with unwind tables, from a
 * frame to its caller, written once for both walks that take it: the BPF
 * walk at each sample (bpf/native_walk.bpf.h) and the walk of a stack
 * copied at a sample and unwound later, in user space, once the tables
 * are in (unwind/stack_walk.c). Both follow the same rule the same way, so
 * a stack comes out the same whichever walked it.
 *
 * Plain fixed-size types only, as unwind_rule.h. The includer defines,
 * before including this file:
 *
 *	static long unwind_read_stack(void *rd, __u64 *dst, __u32 size, __u64 addr)
 *		reads @size (8 or 16) bytes of the stack at user address @addr
 *		into @dst; 0, or a negative errno when they can't be read
 *
 * and may define UNWIND_INLINE (BPF: static __always_inline).
 */
#ifndef FLAMETOP_UNWIND_STEP_H
#define FLAMETOP_UNWIND_STEP_H

#include "unwind/unwind_end.h"
#include "unwind/unwind_rule.h"

#ifndef UNWIND_INLINE
#define UNWIND_INLINE static inline
#endif

/* What a step returns when the walk goes on: anything else is why it ends. */
#define UNWIND_STEP_ON UNWIND_END_NR

/* A frame's registers, as the walk knows them. */
struct unwind_regs {
	__u64 pc, sp, bp;
};

/* The caller's registers, as a step finds them. */
struct unwind_caller {
	__u64 pc, sp, bp;
	bool exact; /* pc is where execution stopped (a signal frame's), not a return address */
};

/*
 * One step by frame pointer from frame @f at depth @nr (1: the leaf), whose
 * code has no table. Returns UNWIND_STEP_ON with @c filled, else why the
 * walk ends: @no_fp where the frame pointer leads nowhere.
 */
UNWIND_INLINE __u32 unwind_fp_step(void *rd, const struct unwind_regs *f, __u32 nr, __u32 no_fp,
				   struct unwind_caller *c)
{
	__u64 frame[2];

	if (!f->bp) /* the start code clears it; a leaf's null one was never set */
		return nr > 1 ? UNWIND_WHOLE : no_fp;
	if (f->bp < f->sp || unwind_read_stack(rd, frame, sizeof(frame), f->bp))
		return no_fp;
	c->pc = frame[1];
	c->sp = f->bp + sizeof(frame);
	c->bp = frame[0];
	c->exact = false;
	return UNWIND_STEP_ON;
}

/*
 * One step by rule @r from frame @f, its code looked up at @addr. Returns
 * UNWIND_STEP_ON with @c filled, or why the walk ends.
 */
UNWIND_INLINE __u32 unwind_rule_step(void *rd, const struct unwind_regs *f,
				     const struct unwind_rule *r, __u64 addr,
				     struct unwind_caller *c)
{
	__u64 cfa;

	switch (r->kind) {
	case UNWIND_RULE_CFA_SP:
		cfa = f->sp + r->cfa_off;
		break;
	case UNWIND_RULE_CFA_FP:
		cfa = f->bp + r->cfa_off;
		break;
	case UNWIND_RULE_PLT:
		cfa = f->sp + r->cfa_off + ((addr & 15) >= r->plt_split ? 8 : 0);
		break;
	case UNWIND_RULE_SIGNAL: /* the interrupted registers, saved by the kernel */
		c->exact = true;
		if (unwind_read_stack(rd, &c->sp, sizeof(c->sp), f->sp + r->cfa_off) ||
		    unwind_read_stack(rd, &c->pc, sizeof(c->pc), f->sp + r->ra_off) ||
		    unwind_read_stack(rd, &c->bp, sizeof(c->bp), f->sp + r->fp_off))
			return UNWIND_UNREADABLE;
		return UNWIND_STEP_ON;
	case UNWIND_RULE_OUTERMOST:
		return UNWIND_WHOLE;
	default:
		return UNWIND_UNSUPPORTED;
	}
	if (cfa <= f->sp) /* a caller's frame lies above its callee's */
		return UNWIND_BAD_FRAME;
	c->sp = cfa;
	c->bp = f->bp;
	c->exact = false;
	if (r->fp_off && r->fp_off == r->ra_off - 8) { /* pushed rbp beside the return address */
		__u64 saved[2];

		if (unwind_read_stack(rd, saved, sizeof(saved), cfa + r->fp_off))
			return UNWIND_UNREADABLE;
		c->bp = saved[0];
		c->pc = saved[1];
		return UNWIND_STEP_ON;
	}
	if (unwind_read_stack(rd, &c->pc, sizeof(c->pc), cfa + r->ra_off) ||
	    (r->fp_off && unwind_read_stack(rd, &c->bp, sizeof(c->bp), cfa + r->fp_off)))
		return UNWIND_UNREADABLE;
	return UNWIND_STEP_ON;
}

/*
 * Where frame @f's code is looked up at depth @nr (1: the leaf): a return
 * address follows its call, so a caller is looked up one byte before it.
 * (After a signal frame the walk records the exact address plus one.)
 */
UNWIND_INLINE __u64 unwind_lookup_addr(const struct unwind_regs *f, __u32 nr)
{
	return nr > 1 ? f->pc - 1 : f->pc;
}

/* The address a caller @c is recorded at: a return address, or an exact one plus one. */
UNWIND_INLINE __u64 unwind_record_addr(const struct unwind_caller *c)
{
	return c->exact ? c->pc + 1 : c->pc;
}

#endif
