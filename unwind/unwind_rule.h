/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_rule.h: the format of flametop's unwind tables, shared by unwind/
 * (which builds them from a file's CFI) and the BPF walk (which follows
 * them). Plain fixed-size types only; the includer provides __u8 ... __s32
 * (<linux/types.h> in user space, vmlinux.h in BPF).
 *
 * A table covers one file: rows sorted by file offset, each the offset
 * where a rule starts to hold (until the next row's) and the id of that
 * rule in one dictionary shared by every table. On x86-64 a few hundred
 * distinct rules cover a whole machine's code.
 *
 * What a rule says, for a frame whose registers are rsp, rbp and its
 * instruction pointer (the CFA, canonical frame address, is the caller's
 * rsp):
 *
 *	UNWIND_RULE_CFA_SP	CFA = rsp + cfa_off
 *	UNWIND_RULE_CFA_FP	CFA = rbp + cfa_off
 *	UNWIND_RULE_PLT		CFA = rsp + cfa_off, 8 more when (ip & 15) >= plt_split
 *				(a lazy PLT entry pushes once, at byte plt_split of its 16)
 *
 * then the return address is read at CFA + ra_off and the caller's rbp at
 * CFA + fp_off (fp_off 0: this frame left rbp as it was).
 *
 *	UNWIND_RULE_SIGNAL	a signal frame (__restore_rt): the interrupted
 *				rsp, rip and rbp are read at rsp + cfa_off,
 *				rsp + ra_off and rsp + fp_off; rip is an exact
 *				address, not a return address
 *	UNWIND_RULE_OUTERMOST	the return address is undefined: the start code
 *				(_start, a thread's start): the stack is whole
 *	UNWIND_RULE_NONE	no CFI covers this address (walk by frame pointer)
 *	UNWIND_RULE_UNSUPPORTED	CFI this walk cannot follow (a CFA in another
 *				register, a register saved in a register, an
 *				expression other than a PLT's or a signal frame's)
 */
#ifndef FLAMETOP_UNWIND_RULE_H
#define FLAMETOP_UNWIND_RULE_H

enum unwind_rule_kind {
	UNWIND_RULE_NONE,
	UNWIND_RULE_CFA_SP,
	UNWIND_RULE_CFA_FP,
	UNWIND_RULE_PLT,
	UNWIND_RULE_SIGNAL,
	UNWIND_RULE_OUTERMOST,
	UNWIND_RULE_UNSUPPORTED,
	UNWIND_RULE_KIND_NR,
};

struct unwind_rule {
	__u8 kind;      /* enum unwind_rule_kind */
	__u8 plt_split; /* UNWIND_RULE_PLT only */
	__s16 fp_off;
	__s32 cfa_off;
	__s32 ra_off;
	__u32 pad; /* 0 */
};

/* Rule id 0 is UNWIND_RULE_NONE in every dictionary: a zeroed row means "no CFI here". */
#define UNWIND_RULE_ID_NONE 0
#define UNWIND_MAX_RULES 8192

/* From file offset @off on (until the next row's), rule @rule holds. */
struct unwind_row {
	__u32 off;
	__u32 rule;
};

#endif
