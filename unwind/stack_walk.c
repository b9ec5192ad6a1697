// SPDX-License-Identifier: GPL-2.0
/*
 * stack_walk: a copied user stack walked with the BPF walk's own steps
 * (unwind/unwind_step.h), reading the copy instead of the process.
 */
#include "unwind/stack_walk.h"

#include <errno.h>
#include <string.h>

/* A read of the copy: where it is, and whether a read went past its cut end. */
struct copy_reader {
	const struct stack_copy *copy;
	bool past_cut;
};

static long unwind_read_stack(void *rd, __u64 *dst, __u32 size, __u64 addr)
{
	struct copy_reader *r = rd;
	const struct stack_copy *c = r->copy;

	if (addr < c->sp || addr - c->sp > c->len || c->len - (addr - c->sp) < size) {
		r->past_cut |= c->cut && addr >= c->sp;
		return -EFAULT;
	}
	memcpy(dst, c->bytes + (addr - c->sp), size);
	return 0;
}

#include "unwind/unwind_step.h"

/*
 * The step from frame @f at depth @nr whose code @src says @code of, with
 * rule @r: UNWIND_STEP_ON with @c filled, or why the walk ends.
 */
static uint32_t step(struct copy_reader *rd, const struct unwind_regs *f, uint32_t nr,
		     enum stack_walk_code code, const struct unwind_rule *r,
		     struct unwind_caller *c)
{
	uint32_t end;

	switch (code) {
	case CODE_NOT_LOADED:
		return STACK_WALK_NOT_READY;
	case CODE_OUTSIDE:
		return UNWIND_BAD_FRAME;
	case CODE_RULE:
		if (r->kind != UNWIND_RULE_NONE) {
			end = unwind_rule_step(rd, f, r, unwind_lookup_addr(f, nr), c);
			break;
		}
		/* The table has no row here: as code without one. */
		__attribute__((fallthrough));
	case CODE_NO_TABLE:
		end = unwind_fp_step(rd, f, nr, UNWIND_NO_TABLE, c);
		break;
	case CODE_NO_ROOM:
		end = unwind_fp_step(rd, f, nr, UNWIND_MEMORY, c);
		break;
	default:
		return UNWIND_BAD_FRAME;
	}
	/* A read above a copy that was cut short failed for want of bytes, not of memory. */
	return (end == UNWIND_UNREADABLE || end == UNWIND_NO_TABLE || end == UNWIND_MEMORY) &&
			       rd->past_cut
		       ? STACK_WALK_COPY_SHORT
		       : end;
}

/* Whether the step by @r was a rule's (not a frame pointer's). */
static bool code_is_rule(const struct unwind_rule *r)
{
	return r->kind != UNWIND_RULE_NONE;
}

uint32_t stack_walk(const struct stack_walk_source *src, const struct stack_copy *copy,
		    uint64_t *ips, uint32_t max, uint32_t *end)
{
	struct copy_reader rd = { .copy = copy };
	struct unwind_regs f = { .pc = copy->ip, .sp = copy->sp, .bp = copy->bp };
	struct unwind_rule r = { .kind = UNWIND_RULE_NONE };
	uint32_t n = copy->nfound < max ? copy->nfound : max;
	uint32_t trusted = copy->trusted < n ? copy->trusted : n;
	enum stack_walk_code code;

	*end = UNWIND_DEPTH;
	if (!n)
		return 0;
	memcpy(ips, copy->found, n * sizeof(*ips));
	code = src->code_at(src->ctx, unwind_lookup_addr(&f, n), &r);
	while (n < max) {
		struct unwind_caller c = { 0 };
		struct unwind_rule next = { .kind = UNWIND_RULE_NONE };
		enum stack_walk_code step_code = code;
		uint32_t e = step(&rd, &f, n, code, &r, &c);
		uint64_t rec;

		if (e == UNWIND_STEP_ON && !c.pc)
			e = UNWIND_WHOLE;
		if (e != UNWIND_STEP_ON) {
			*end = e;
			break;
		}
		rec = unwind_record_addr(&c);
		/* A caller is recorded only where the process has code. */
		code = src->code_at(src->ctx, rec - 1, &next);
		if (code == CODE_OUTSIDE) {
			*end = r.kind != UNWIND_RULE_NONE ? UNWIND_BAD_FRAME
			       : step_code == CODE_NO_ROOM ? UNWIND_MEMORY
							   : UNWIND_NO_TABLE;
			break;
		}
		ips[n++] = rec;
		if (code_is_rule(&r))
			trusted = n;
		f = (struct unwind_regs){ .pc = rec, .sp = c.sp, .bp = c.bp };
		r = next;
	}
	/* Cut short: no caller a frame pointer led to stands, only those rules found. */
	return *end == UNWIND_WHOLE ? n : trusted;
}
