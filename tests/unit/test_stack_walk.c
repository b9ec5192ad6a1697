// SPDX-License-Identifier: GPL-2.0
/*
 * test_stack_walk: the walk of a copied user stack (unwind/stack_walk.h)
 * over stacks this test lays out by hand, frame by frame, as code of known
 * rules would have left them: the frames it must find are the ones the
 * test put there.
 */
#include "tests/unit/unit.h"
#include "unwind/stack_walk.h"

#define SP 0x7ffd0000ull /* where the copies start */

/* The code of a made-up process: ranges of addresses, each with what the walk is told. */
struct code_range {
	uint64_t start, end;
	enum stack_walk_code code;
	struct unwind_rule rule;
};

/* A leaf without a frame: CFA = rsp + 16 (one push and the return address). */
#define SP_FRAME { .kind = UNWIND_RULE_CFA_SP, .cfa_off = 16, .ra_off = -8 }
/* Frame-pointer frames: CFA = rbp + 16, return address at CFA - 8, caller's rbp at CFA - 16. */
#define FP_FRAME { .kind = UNWIND_RULE_CFA_FP, .cfa_off = 16, .ra_off = -8, .fp_off = -16 }

static const struct code_range code[] = {
	{ 0x1000, 0x2000, CODE_RULE, SP_FRAME },
	{ 0x2000, 0x3000, CODE_RULE, FP_FRAME },
	{ 0x3000, 0x4000, CODE_NO_TABLE, { 0 } }, /* JIT code: by frame pointer */
	{ 0x4000, 0x5000, CODE_RULE, { .kind = UNWIND_RULE_OUTERMOST } },
	{ 0x5000, 0x6000, CODE_NOT_LOADED, { 0 } },
};

static enum stack_walk_code code_at(void *ctx, uint64_t addr, struct unwind_rule *r)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
		if (addr >= code[i].start && addr < code[i].end) {
			if (code[i].code == CODE_RULE)
				*r = code[i].rule;
			return code[i].code;
		}
	}
	return CODE_OUTSIDE;
}

static const struct stack_walk_source source = { code_at, NULL };

/* A stack being laid out: 8-byte words from SP up. */
struct layout {
	uint64_t w[64];
};

static void put(struct layout *l, uint64_t addr, uint64_t value)
{
	l->w[(addr - SP) / 8] = value;
}

/* Walks the stack @l lays out from its leaf @ip (rbp @bp), its first @len bytes copied. */
static uint32_t walk(const struct layout *l, uint64_t ip, uint64_t bp, uint32_t len, bool cut,
		     uint64_t *ips, uint32_t *end)
{
	struct stack_copy c = { .found = &ip, .nfound = 1, .trusted = 1, .ip = ip, .sp = SP,
				.bp = bp, .bytes = (const uint8_t *)l->w, .len = len, .cut = cut };

	return stack_walk(&source, &c, ips, 32, end);
}

/*
 * The stack of a walk through every kind of frame: a leaf at 0x1010 (no
 * frame: its caller's return address at SP + 8), its caller at 0x2010 (a
 * frame-pointer frame whose rbp is SP + 16), JIT code at 0x3010 (by frame
 * pointer, its record at SP + 48), the start code at 0x4010.
 */
static void lay_out_whole(struct layout *l)
{
	memset(l, 0, sizeof(*l));
	put(l, SP + 8, 0x2010);       /* leaf's return address: CFA SP + 16, at CFA - 8 */
	put(l, SP + 16, SP + 48);     /* 0x2010's frame: saved rbp (the JIT frame's record) */
	put(l, SP + 24, 0x3010);      /* ... its return address, at CFA - 8 (CFA = SP + 32) */
	put(l, SP + 48, 0);           /* the JIT frame's record: caller's rbp, */
	put(l, SP + 56, 0x4010);      /* ... and return address: into the start code */
}

static void test_whole_walk(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	n = walk(&l, 0x1010, SP + 16, sizeof(l.w), false, ips, &end);
	assert_int_equal(end, UNWIND_WHOLE);
	assert_int_equal(n, 4);
	assert_int_equal(ips[0], 0x1010);
	assert_int_equal(ips[1], 0x2010);
	assert_int_equal(ips[2], 0x3010);
	assert_int_equal(ips[3], 0x4010);
}

/* A copy that stops before a frame the walk needs, of a stack that went on: too short. */
static void test_copy_too_short(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	n = walk(&l, 0x1010, SP + 16, 48, true, ips, &end);
	assert_int_equal(end, STACK_WALK_COPY_SHORT);
	assert_int_equal(n, 3); /* the leaf and two callers rules found */
	/* The same bytes, but the stack ended there: memory the walk could not read. */
	walk(&l, 0x1010, SP + 16, 48, false, ips, &end);
	assert_int_equal(end, UNWIND_NO_TABLE);
}

/* Code whose table is not in yet: the walk says so, to be walked again later. */
static void test_table_not_ready(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end;

	(void)state;
	lay_out_whole(&l);
	put(&l, SP + 24, 0x5010); /* 0x2010's caller: code whose table is being built */
	walk(&l, 0x1010, SP + 16, sizeof(l.w), false, ips, &end);
	assert_int_equal(end, STACK_WALK_NOT_READY);
}

/*
 * A walk cut short keeps no caller a frame pointer led to: after the JIT
 * frame (reached by a rule) a frame pointer leads to another JIT address,
 * then out of the process's code. Only the leaf and the callers rules found
 * stand.
 */
static void test_cut_walk_keeps_rule_frames(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	put(&l, SP + 48, SP + 64); /* the JIT record leads to another record ... */
	put(&l, SP + 56, 0x3020);  /* ... through a JIT address (by frame pointer) */
	put(&l, SP + 64, 0);
	put(&l, SP + 72, 0x9999); /* ... to no code of the process */
	n = walk(&l, 0x1010, SP + 16, sizeof(l.w), false, ips, &end);
	assert_int_equal(end, UNWIND_NO_TABLE);
	assert_int_equal(n, 3); /* 0x1010, 0x2010, 0x3010: 0x3020 was a frame pointer's */
	assert_int_equal(ips[2], 0x3010);
}

/* A return address no code holds, after a rule's step: a bad frame, not recorded. */
static void test_bad_return_address(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	put(&l, SP + 8, 0xdead0);
	n = walk(&l, 0x1010, SP + 16, sizeof(l.w), false, ips, &end);
	assert_int_equal(end, UNWIND_BAD_FRAME);
	assert_int_equal(n, 1);
}

/* A leaf outside the process's code: nothing to walk. */
static void test_leaf_outside(void **state)
{
	struct layout l;
	uint64_t ips[32];
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	n = walk(&l, 0x9000, SP + 16, sizeof(l.w), false, ips, &end);
	assert_int_equal(end, UNWIND_BAD_FRAME);
	assert_int_equal(n, 1);
}

/* The depth limit: as many frames as asked for, and the walk says it was cut. */
static void test_depth_limit(void **state)
{
	struct layout l;
	uint64_t leaf = 0x1010, ips[2];
	struct stack_copy c = { .found = &leaf, .nfound = 1, .trusted = 1, .ip = leaf, .sp = SP,
				.bp = SP + 16 };
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	c.bytes = (const uint8_t *)l.w;
	c.len = sizeof(l.w);
	n = stack_walk(&source, &c, ips, 2, &end);
	assert_int_equal(n, 2);
	assert_int_equal(end, UNWIND_DEPTH);
}

/*
 * A walk the BPF side began: the leaf and its caller found (by a rule),
 * then stopped at 0x2010 for want of its table; it goes on from 0x2010's
 * registers, the copy taken from its stack pointer up.
 */
static void test_goes_on_from_where_it_stopped(void **state)
{
	struct layout l;
	uint64_t found[2] = { 0x1010, 0x2010 }, ips[32];
	struct stack_copy c = { .found = found, .nfound = 2, .trusted = 2, .ip = 0x2010,
				.sp = SP + 16, .bp = SP + 16 };
	uint32_t end, n;

	(void)state;
	lay_out_whole(&l);
	c.bytes = (const uint8_t *)l.w + 16; /* the copy starts at 0x2010's stack pointer */
	c.len = sizeof(l.w) - 16;
	n = stack_walk(&source, &c, ips, 32, &end);
	assert_int_equal(end, UNWIND_WHOLE);
	assert_int_equal(n, 4);
	assert_int_equal(ips[0], 0x1010);
	assert_int_equal(ips[1], 0x2010);
	assert_int_equal(ips[2], 0x3010);
	assert_int_equal(ips[3], 0x4010);
	/* Cut short above it (no start code), it keeps what rules found: the BPF walk's two and 0x3010. */
	l.w[7] = 0x9999;
	n = stack_walk(&source, &c, ips, 32, &end);
	assert_int_equal(end, UNWIND_NO_TABLE);
	assert_int_equal(n, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_walk),
		cmocka_unit_test(test_copy_too_short),
		cmocka_unit_test(test_table_not_ready),
		cmocka_unit_test(test_cut_walk_keeps_rule_frames),
		cmocka_unit_test(test_bad_return_address),
		cmocka_unit_test(test_leaf_outside),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_goes_on_from_where_it_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
