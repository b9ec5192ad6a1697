/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_walk: the walk of a user stack copied at a sample (its registers
 * and the bytes above its stack pointer), taken in user space once the
 * tables it needs are built: for samples the BPF walk could not finish
 * (a process sampled before its tables were in). The same steps as the
 * BPF walk (unwind/unwind_step.h), the same rules, the same ends: a stack
 * comes out as the BPF walk would have made it. Plain data: where the
 * code and its rules are comes from the caller.
 */
#ifndef FLAMETOP_STACK_WALK_H
#define FLAMETOP_STACK_WALK_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind_end.h"
#include "unwind/unwind_rule.h"

/* What the caller knows of the code at an address. */
enum stack_walk_code {
	CODE_RULE,       /* its table's rule (UNWIND_RULE_NONE where the table has none) */
	CODE_NO_TABLE,   /* code without a table: the walk steps by frame pointer */
	CODE_NO_ROOM,    /* code whose table did not fit (--unwind-memory): by frame pointer too */
	CODE_NOT_LOADED, /* code whose table is not in yet: ask again later */
	CODE_OUTSIDE,    /* no code of the process */
};

struct stack_walk_source {
	/*
	 * What is known of the code at @addr of the process: with CODE_RULE,
	 * the rule holding there in *@r.
	 */
	enum stack_walk_code (*code_at)(void *ctx, uint64_t addr, struct unwind_rule *r);
	void *ctx;
};

/*
 * A user stack as copied at a sample: the frames a walk found before it
 * stopped, and the stack from the last of them up, to go on from there.
 */
struct stack_copy {
	const uint64_t *found; /* the frames found, leaf first, as the walk records them */
	uint32_t nfound;       /* 1 at least: the leaf */
	uint32_t trusted;      /* the first @trusted of them found by rules (or the leaf) */
	uint64_t ip, sp, bp;   /* the registers of found[nfound - 1], where the walk goes on */
	const uint8_t *bytes;  /* the stack's bytes at [sp, sp + len) */
	uint32_t len;
	bool cut;              /* the stack went on above the copy */
};

/*
 * Why a walk of a copy ended, beside enum unwind_end's reasons: it needed
 * a byte above the copy of a stack that went on (a stack deeper than the
 * copy), or code whose table is not in yet (walk it again later).
 */
#define STACK_WALK_COPY_SHORT (UNWIND_END_NR + 1) /* past unwind_step.h's UNWIND_STEP_ON */
#define STACK_WALK_NOT_READY (UNWIND_END_NR + 2)

/*
 * stack_walk() goes on with the walk @copy stopped, with @src's rules,
 * writing the frames' addresses into @ips (room for @max, leaf first: the
 * frames found before, then each caller's return address, an exact one
 * (a signal frame's) plus one, as the BPF walk records them). Returns how
 * many, and sets *@end to why the walk ended: an enum unwind_end,
 * STACK_WALK_COPY_SHORT or STACK_WALK_NOT_READY. Every address recorded
 * lies in the process's code; a walk cut short keeps the frames up to the
 * last one a rule found, and none a frame pointer led to after it (it may
 * have led through stale return addresses), as the BPF walk does.
 */
uint32_t stack_walk(const struct stack_walk_source *src, const struct stack_copy *copy,
		    uint64_t *ips, uint32_t max, uint32_t *end);

#endif
