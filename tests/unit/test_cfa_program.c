// SPDX-License-Identifier: GPL-2.0
/*
 * cfa_program: call frame instructions run once per FDE.
 *
 * First, programs written here byte by byte, each with the rows it must
 * give: what gas cannot write (DW_CFA_set_loc, 8-byte advances, a restore
 * or an advance in a CIE), programs cut short, registers past CFA_REG_MAX,
 * states remembered too deep; and that the callbacks can stop a run.
 *
 * Then libdw's answers: for the hand-made fixtures (cfi_rules.so,
 * cfa_ops.so) and Debian's libc and python3.11, the table the builder makes
 * is compared, row by row of libdw's, with the frame state libdw gives for
 * each row (dwarf_cfi_addrframe(), whose replay of the FDE from its start is
 * what the builder no longer does), sorted into rules the way the builder
 * did before it ran programs itself (oracle_rule()).
 */
#include "tests/unit/unit.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>

#include "symbols/elffile.h"
#include "unwind/cfa_program.h"
#include "unwind/cfi_table.h"
#include "unwind/rule_dict.h"

#define FIXTURE_DIR "build/fixtures"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON "/usr/bin/python3.11"

#define SP(k) ((struct unwind_rule){ .kind = UNWIND_RULE_CFA_SP, .cfa_off = (k), .ra_off = -8 })
#define SP_FP(k, fp)                                                                               \
	((struct unwind_rule){                                                                     \
	    .kind = UNWIND_RULE_CFA_SP, .cfa_off = (k), .ra_off = -8, .fp_off = (fp) })
#define ONLY(k) ((struct unwind_rule){ .kind = (k) })
#define UNSUPPORTED ONLY(UNWIND_RULE_UNSUPPORTED)
#define OUTERMOST ONLY(UNWIND_RULE_OUTERMOST)

/* A CIE as gcc writes it for x86-64: CFA = rsp + 8, return address at CFA - 8. */
static const uint8_t GCC_CIE[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1 };

struct row {
	uint64_t start, end;
	struct unwind_rule rule;
};

/* What a run gave. */
struct rows {
	struct row v[64];
	size_t n;
	int checks, stop_at_check, stop_at_row; /* a callback's error after that many calls */
};

static int record_row(void *ctx, uint64_t start, uint64_t end, const struct unwind_rule *r)
{
	struct rows *rs = ctx;

	if (rs->stop_at_row && (int)rs->n == rs->stop_at_row)
		return -ENOSPC;
	assert_true(rs->n < 64);
	assert_true(start < end);
	if (rs->n)
		assert_int_equal(start, rs->v[rs->n - 1].end);
	rs->v[rs->n++] = (struct row){ start, end, *r };
	return 0;
}

static int count_check(void *ctx)
{
	struct rows *rs = ctx;

	return ++rs->checks == rs->stop_at_check ? -ECANCELED : 0;
}

/*
 * Runs FDE program @fde (@flen bytes) for [0x1000, 0x1000 + @len) under a
 * CIE with initial instructions @cie (@clen bytes) and return address
 * column @ra. Returns what the run did.
 */
static int run(const uint8_t *cie, size_t clen, uint64_t ra, const uint8_t *fde, size_t flen,
	       uint64_t len, struct rows *rs)
{
	const struct cfa_cie c = { .insns = cie, .insns_end = cie + clen, .code_align = 1,
				   .data_align = -8, .ra_reg = ra, .known = true };
	const struct cfa_fde f = { .start = 0x1000, .end = 0x1000 + len, .insns = fde,
				   .insns_end = fde + flen };
	const struct cfa_run r = { .row = record_row, .check = count_check, .ctx = rs };

	return cfa_program__run(&c, &f, &r);
}

#define RUN(fde, len, rs) run(GCC_CIE, sizeof(GCC_CIE), 16, fde, sizeof(fde), len, rs)

static bool same_rule(const struct unwind_rule *a, const struct unwind_rule *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->plt_split == b->plt_split;
}

static void assert_row(const struct rows *rs, size_t i, uint64_t start, uint64_t end,
		       struct unwind_rule want)
{
	if (i >= rs->n)
		fail_msg("row %zu of %zu", i, rs->n);
	assert_int_equal(rs->v[i].start, start);
	assert_int_equal(rs->v[i].end, end);
	if (!same_rule(&rs->v[i].rule, &want))
		fail_msg("row %zu: kind %u cfa %d ra %d fp %d, not kind %u cfa %d ra %d fp %d", i,
			 rs->v[i].rule.kind, rs->v[i].rule.cfa_off, rs->v[i].rule.ra_off,
			 rs->v[i].rule.fp_off, want.kind, want.cfa_off, want.ra_off, want.fp_off);
}

/* A push and a pop: three rows, and the last runs to the FDE's end. */
static void test_rows_in_order(void **state)
{
	const uint8_t fde[] = { DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
				DW_CFA_offset | 6, 2, DW_CFA_advance_loc | 3, DW_CFA_def_cfa_offset,
				8, DW_CFA_restore | 6 };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(fde, 0x10, &rs), 0);
	assert_int_equal(rs.n, 3);
	assert_row(&rs, 0, 0x1000, 0x1001, SP(8));
	assert_row(&rs, 1, 0x1001, 0x1004, SP_FP(16, -16));
	assert_row(&rs, 2, 0x1004, 0x1010, SP(8));
}

/* DW_CFA_set_loc (an absolute address here) and the 8-byte advance; a zero advance makes no row. */
static void test_set_loc_and_advance8(void **state)
{
	const uint8_t fde[] = { DW_CFA_set_loc, 0x04, 0x10, 0, 0, 0, 0, 0, 0,
				DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc | 0,
				DW_CFA_MIPS_advance_loc8, 2, 0, 0, 0, 0, 0, 0, 0,
				DW_CFA_def_cfa_offset, 24 };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(fde, 0x20, &rs), 0);
	assert_int_equal(rs.n, 3);
	assert_row(&rs, 0, 0x1000, 0x1004, SP(8));
	assert_row(&rs, 1, 0x1004, 0x1006, SP(16));
	assert_row(&rs, 2, 0x1006, 0x1020, SP(24));
}

/* Rows never go back: a set_loc before the open row cuts the FDE short there. */
static void test_backwards(void **state)
{
	const uint8_t fde[] = { DW_CFA_advance_loc | 8, DW_CFA_def_cfa_offset, 16, DW_CFA_set_loc,
				0x02, 0x10, 0, 0, 0, 0, 0, 0, DW_CFA_def_cfa_offset, 8 };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(fde, 0x10, &rs), -EINVAL);
	assert_int_equal(rs.n, 2);
	assert_row(&rs, 0, 0x1000, 0x1008, SP(8));
	assert_row(&rs, 1, 0x1008, 0x1010, UNSUPPORTED);
}

/* Past the FDE's end nothing is given, and what follows is not run. */
static void test_past_the_end(void **state)
{
	const uint8_t fde[] = { DW_CFA_advance_loc | 4, DW_CFA_def_cfa_offset, 16,
				DW_CFA_advance_loc | 60, DW_CFA_def_cfa_offset, 24,
				0x3e /* no such instruction */ };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(fde, 0x8, &rs), 0);
	assert_int_equal(rs.n, 2);
	assert_row(&rs, 0, 0x1000, 0x1004, SP(8));
	assert_row(&rs, 1, 0x1004, 0x1008, SP(16));
}

/* A CIE may not restore a register, nor move the location: its FDEs are UNSUPPORTED whole. */
static void test_bad_cie(void **state)
{
	const uint8_t restore[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1,
				    DW_CFA_restore | 6 };
	const uint8_t advance[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_advance_loc | 1,
				    DW_CFA_offset | 16, 1 };
	const uint8_t fde[] = { DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16 };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(run(restore, sizeof(restore), 16, fde, sizeof(fde), 8, &rs), -EINVAL);
	assert_int_equal(rs.n, 1);
	assert_row(&rs, 0, 0x1000, 0x1008, UNSUPPORTED);
	rs.n = 0;
	assert_int_equal(run(advance, sizeof(advance), 16, fde, sizeof(fde), 8, &rs), -EINVAL);
	assert_row(&rs, 0, 0x1000, 0x1008, UNSUPPORTED);
	/* Another return address column than rip's: nothing the walk can follow. */
	rs.n = 0;
	assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 8, fde, sizeof(fde), 8, &rs), -EINVAL);
	assert_int_equal(rs.n, 1);
	assert_row(&rs, 0, 0x1000, 0x1008, UNSUPPORTED);
}

/*
 * A register past CFA_REG_MAX, however it is named, is refused (-ERANGE)
 * where it comes: UNSUPPORTED from its row on. One at CFA_REG_MAX is read
 * and dropped. The number libdw would have made room for, 268000000
 * registers of 8 bytes (a 2 GB frame state), is among them.
 */
static void test_register_numbers(void **state)
{
	const uint8_t at_max[] = { DW_CFA_offset_extended, (CFA_REG_MAX & 0x7f) | 0x80,
				   CFA_REG_MAX >> 7, 2, DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset,
				   16 };
	const uint8_t huge[] = { DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 16,
				 DW_CFA_offset_extended, 0x80, 0xb6, 0xe5, 0x7f, 2, /* 268000000 */
				 DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 8 };
	const uint8_t past_max[][4] = {
		{ DW_CFA_undefined, ((CFA_REG_MAX + 1) & 0x7f) | 0x80, (CFA_REG_MAX + 1) >> 7 },
		{ DW_CFA_def_cfa, ((CFA_REG_MAX + 1) & 0x7f) | 0x80, (CFA_REG_MAX + 1) >> 7, 8 },
		{ DW_CFA_def_cfa_register, ((CFA_REG_MAX + 1) & 0x7f) | 0x80,
		  (CFA_REG_MAX + 1) >> 7 },
		{ DW_CFA_register, 6, ((CFA_REG_MAX + 1) & 0x7f) | 0x80, (CFA_REG_MAX + 1) >> 7 },
	};
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(at_max, 8, &rs), 0);
	assert_int_equal(rs.n, 2);
	assert_row(&rs, 0, 0x1000, 0x1002, SP(8));
	rs.n = 0;
	assert_int_equal(RUN(huge, 8, &rs), -ERANGE);
	assert_int_equal(rs.n, 2);
	assert_row(&rs, 0, 0x1000, 0x1002, SP(8));
	assert_row(&rs, 1, 0x1002, 0x1008, UNSUPPORTED);
	for (size_t i = 0; i < sizeof(past_max) / sizeof(past_max[0]); i++) {
		size_t len = past_max[i][0] == DW_CFA_undefined ||
					     past_max[i][0] == DW_CFA_def_cfa_register
				     ? 3
				     : 4;

		rs.n = 0;
		assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, past_max[i], len, 8, &rs),
				 -ERANGE);
		assert_int_equal(rs.n, 1);
		assert_row(&rs, 0, 0x1000, 0x1008, UNSUPPORTED);
	}
}

/* Runs a program remembering @k states (then restoring one), under CFA = rsp + 16. */
static int remember(int k, struct rows *rs)
{
	uint8_t fde[CFA_STATES_MAX + 8];
	size_t n = 0;

	fde[n++] = DW_CFA_def_cfa_offset;
	fde[n++] = 16;
	for (int i = 0; i < k; i++)
		fde[n++] = DW_CFA_remember_state;
	fde[n++] = DW_CFA_advance_loc | 1;
	fde[n++] = DW_CFA_restore_state;
	rs->n = 0;
	return run(GCC_CIE, sizeof(GCC_CIE), 16, fde, n, 4, rs);
}

/* States remembered CFA_STATES_MAX deep are fine; one more, or a restore of none, is not. */
static void test_remembered_states(void **state)
{
	const uint8_t restore_none[] = { DW_CFA_restore_state };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(remember(CFA_STATES_MAX, &rs), 0);
	assert_int_equal(rs.n, 2);
	assert_row(&rs, 0, 0x1000, 0x1001, SP(16));
	assert_row(&rs, 1, 0x1001, 0x1004, SP(16));
	assert_int_equal(remember(CFA_STATES_MAX + 1, &rs), -EINVAL);
	assert_int_equal(rs.n, 1);
	assert_row(&rs, 0, 0x1000, 0x1004, UNSUPPORTED);
	rs.n = 0;
	assert_int_equal(RUN(restore_none, 4, &rs), -EINVAL);
	assert_row(&rs, 0, 0x1000, 0x1004, UNSUPPORTED);
}

/* Every instruction cut short in its operands: UNSUPPORTED from there, never read past. */
static void test_truncated(void **state)
{
	const uint8_t whole[][6] = {
		{ DW_CFA_def_cfa, 7, 16 },	       { DW_CFA_def_cfa_sf, 7, 0x7e },
		{ DW_CFA_def_cfa_offset, 0x90, 0x01 }, { DW_CFA_offset_extended, 6, 2 },
		{ DW_CFA_expression, 6, 2, 0x76, 0 },  { DW_CFA_def_cfa_expression, 2, 0x77, 8 },
		{ DW_CFA_advance_loc2, 1, 0 },	       { DW_CFA_advance_loc4, 1, 0, 0, 0 },
		{ DW_CFA_GNU_args_size, 0x80, 0x01 },  { DW_CFA_register, 6, 3 },
		{ DW_CFA_val_offset_sf, 6, 0x7e },
	};
	const size_t lens[] = { 3, 3, 3, 3, 5, 4, 3, 5, 3, 3, 3 };

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct rows rs = { 0 };
		uint8_t *cut;

		/* Whole, it runs; one byte short (in a buffer of that size: ASan sees), it breaks. */
		assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, whole[i], lens[i], 4, &rs), 0);
		cut = malloc(lens[i] - 1);
		assert_non_null(cut);
		memcpy(cut, whole[i], lens[i] - 1);
		rs.n = 0;
		assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, cut, lens[i] - 1, 4, &rs),
				 -EINVAL);
		assert_int_equal(rs.n, 1);
		assert_row(&rs, 0, 0x1000, 0x1004, UNSUPPORTED);
		free(cut);
	}
}

/* An advance past the end of the address space is malformed. */
static void test_advance_overflow(void **state)
{
	const uint8_t fde[] = { DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
				DW_CFA_MIPS_advance_loc8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff };
	struct rows rs = { 0 };

	(void)state;
	assert_int_equal(RUN(fde, 4, &rs), -EINVAL);
	assert_row(&rs, 0, 0x1000, 0x1001, SP(8));
	assert_row(&rs, 1, 0x1001, 0x1004, UNSUPPORTED);
}

/*
 * The check callback comes every CFA_CHECK_EVERY instructions, within a
 * row too, and stops the run at once; so does an error of the row callback.
 */
static void test_callbacks_stop(void **state)
{
	enum { NOPS = 5 * CFA_CHECK_EVERY };
	uint8_t *fde = calloc(NOPS + 4, 1); /* DW_CFA_nop is 0 */
	struct rows rs = { 0 };

	(void)state;
	assert_non_null(fde);
	fde[NOPS] = DW_CFA_advance_loc | 1;
	fde[NOPS + 1] = DW_CFA_def_cfa_offset;
	fde[NOPS + 2] = 16;
	assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, fde, NOPS + 3, 4, &rs), 0);
	assert_int_equal(rs.checks, 5);
	assert_int_equal(rs.n, 2);
	rs = (struct rows){ .stop_at_check = 2 };
	assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, fde, NOPS + 3, 4, &rs), -ECANCELED);
	assert_int_equal(rs.checks, 2);
	assert_int_equal(rs.n, 0); /* no row: it stopped inside the first */
	rs = (struct rows){ .stop_at_row = 1 };
	assert_int_equal(run(GCC_CIE, sizeof(GCC_CIE), 16, fde, NOPS + 3, 4, &rs), -ENOSPC);
	assert_int_equal(rs.n, 1);
	free(fde);
}

/* Is @ops[0..n) "CFA + k", as libdw gives an offset(N) rule? Sets *@k. */
static bool oracle_at_cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *k)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*k = 0;
		return true;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*k = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* Is @ops[0..n) "rsp + k" (libdw puts the CFA first, which the expression ignores)? */
static bool oracle_at_rsp_plus(const Dwarf_Op *ops, size_t n, int64_t *k)
{
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa)
		ops++, n--;
	if (n != 1 || ops[0].atom != DW_OP_breg7)
		return false;
	*k = (int64_t)ops[0].number;
	return true;
}

static bool fits(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v <= hi;
}

/* binutils' lazy PLT CFA: rsp + A + ((rip & 15) >= N) << 3. */
static bool oracle_plt(const Dwarf_Op *ops, size_t n, struct unwind_rule *r)
{
	static const uint8_t shape[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					 DW_OP_ge,    DW_OP_lit3,   DW_OP_shl,   DW_OP_plus };

	if (n != sizeof(shape))
		return false;
	for (size_t i = 0; i < n; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return false;
	if (ops[1].number || ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15 ||
	    !fits((int64_t)ops[0].number, INT32_MIN, INT32_MAX))
		return false;
	*r = (struct unwind_rule){ .kind = UNWIND_RULE_PLT, .cfa_off = (int32_t)ops[0].number,
				   .plt_split = ops[4].atom - DW_OP_lit0 };
	return true;
}

/* The rule a libdw frame state @f stands for, as the builder sorted them before it ran programs. */
static struct unwind_rule oracle_rule(Dwarf_Frame *f)
{
	Dwarf_Op ra_mem[3], fp_mem[3], *cfa, *ra, *fp;
	struct unwind_rule r = { 0 };
	size_t ncfa, nra, nfp;
	int64_t ra_off, fp_off;
	bool signal = false;

	if (dwarf_frame_info(f, NULL, NULL, &signal) != 16 || dwarf_frame_cfa(f, &cfa, &ncfa) ||
	    dwarf_frame_register(f, 16, ra_mem, &ra, &nra) ||
	    dwarf_frame_register(f, 6, fp_mem, &fp, &nfp))
		return UNSUPPORTED;
	if (nra == 0 && ra == ra_mem)
		return OUTERMOST;
	if (signal) {
		if (ncfa != 2 || cfa[0].atom != DW_OP_breg7 || cfa[1].atom != DW_OP_deref ||
		    !oracle_at_rsp_plus(ra, nra, &ra_off) || !oracle_at_rsp_plus(fp, nfp, &fp_off) ||
		    !fits((int64_t)cfa[0].number, INT32_MIN, INT32_MAX) ||
		    !fits(ra_off, INT32_MIN, INT32_MAX) || !fits(fp_off, INT16_MIN, INT16_MAX))
			return UNSUPPORTED;
		return (struct unwind_rule){ .kind = UNWIND_RULE_SIGNAL,
					     .cfa_off = (int32_t)cfa[0].number,
					     .ra_off = (int32_t)ra_off, .fp_off = (int16_t)fp_off };
	}
	if (ncfa == 1 && cfa[0].atom == DW_OP_bregx && (cfa[0].number == 7 || cfa[0].number == 6) &&
	    fits((int64_t)cfa[0].number2, INT32_MIN, INT32_MAX))
		r = (struct unwind_rule){ .kind = cfa[0].number == 7 ? UNWIND_RULE_CFA_SP
								      : UNWIND_RULE_CFA_FP,
					  .cfa_off = (int32_t)cfa[0].number2 };
	else if (!oracle_plt(cfa, ncfa, &r))
		return UNSUPPORTED;
	if (!oracle_at_cfa_plus(ra, nra, &ra_off) || !fits(ra_off, INT32_MIN, INT32_MAX))
		return UNSUPPORTED;
	r.ra_off = (int32_t)ra_off;
	if (nfp == 0 && fp == NULL)
		return r;
	if (!oracle_at_cfa_plus(fp, nfp, &fp_off) || !fp_off || !fits(fp_off, INT16_MIN, INT16_MAX))
		return UNSUPPORTED;
	r.fp_off = (int16_t)fp_off;
	return r;
}

/* A file, its table, and libdw's CFI of it. */
struct compared {
	int fd;
	struct elf_file *file;
	Dwarf_CFI *cfi;
	struct rule_dict *dict;
	struct cfi_table t;
	size_t rows, gap_bytes; /* libdw's rows compared, and bytes no FDE covers */
};

/* The offset of the table's first row past @off, or UINT64_MAX. */
static uint64_t next_row(const struct cfi_table *t, uint64_t off)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n ? t->rows[lo].off : UINT64_MAX;
}

/* Compares, over executable segment @ph, each libdw row with the table's rule there. */
static void compare_segment(struct compared *c, const GElf_Phdr *ph, const char *path)
{
	uint64_t a = ph->p_vaddr, seg_end = ph->p_vaddr + ph->p_filesz;

	while (a < seg_end) {
		uint64_t off = a - ph->p_vaddr + ph->p_offset;
		const struct unwind_rule *ours =
		    rule_dict__get(c->dict, cfi_table__rule_at(&c->t, off));
		Dwarf_Addr start, end;
		struct unwind_rule want;
		Dwarf_Frame *f;

		if (dwarf_cfi_addrframe(c->cfi, a, &f)) { /* no FDE here */
			if (ours->kind != UNWIND_RULE_NONE)
				fail_msg("%s: 0x%" PRIx64 ": libdw has no FDE, the table a rule", path,
					 a);
			c->gap_bytes++;
			a++;
			continue;
		}
		want = oracle_rule(f);
		assert_true(dwarf_frame_info(f, &start, &end, NULL) >= 0);
		free(f);
		assert_true(start <= a && end > a);
		if (!same_rule(ours, &want))
			fail_msg("%s: 0x%" PRIx64 ": kind %u cfa %d ra %d fp %d, libdw's kind %u cfa %d "
				 "ra %d fp %d",
				 path, a, ours->kind, ours->cfa_off, ours->ra_off, ours->fp_off,
				 want.kind, want.cfa_off, want.ra_off, want.fp_off);
		/* The same rule all through libdw's row: no row of the table starts inside. */
		if (end > seg_end)
			end = seg_end;
		if (next_row(&c->t, off) < off + (end - a))
			fail_msg("%s: a row at +0x%" PRIx64 " inside libdw's [0x%" PRIx64
				 ", 0x%" PRIx64 ")",
				 path, next_row(&c->t, off), a, end);
		c->rows++;
		a = end;
	}
}

/* Compares the table of file @path with libdw's rows, at least @min_rows of them. */
static void compare_file(const char *path, size_t min_rows)
{
	struct compared c = { .dict = rule_dict__new() };
	size_t phnum;

	assert_non_null(c.dict);
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.fd < 0)
		fail_msg("%s: %s (make build-tests builds the fixtures)", path, strerror(errno));
	c.file = elf_file__open_fd(c.fd, false);
	assert_non_null(c.file);
	assert_int_equal(cfi_table__build(c.file, NULL, c.dict, NULL, &c.t), 0);
	c.cfi = dwarf_getcfi_elf(elf_file__elf(c.file));
	assert_non_null(c.cfi);
	assert_int_equal(elf_getphdrnum(elf_file__elf(c.file), &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(elf_file__elf(c.file), (int)i, &ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			compare_segment(&c, &ph, path);
	}
	print_message("# %s: %zu libdw rows compared, %zu bytes without an FDE\n", path, c.rows,
		      c.gap_bytes);
	assert_true(c.rows >= min_rows);
	dwarf_cfi_end(c.cfi);
	cfi_table__free(&c.t);
	elf_file__close(c.file);
	close(c.fd);
	rule_dict__free(c.dict);
}

static void test_libdw_fixtures(void **state)
{
	(void)state;
	compare_file(FIXTURE_DIR "/cfi_rules.so", 40);
	compare_file(FIXTURE_DIR "/cfa_ops.so", 40);
}

static void test_libdw_libc(void **state)
{
	(void)state;
	compare_file(LIBC, 20000);
}

static void test_libdw_python(void **state)
{
	(void)state;
	if (access(PYTHON, R_OK)) {
		print_message("# %s: %s; not compared\n", PYTHON, strerror(errno));
		skip();
	}
	compare_file(PYTHON, 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_in_order),
		cmocka_unit_test(test_set_loc_and_advance8),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_past_the_end),
		cmocka_unit_test(test_bad_cie),
		cmocka_unit_test(test_register_numbers),
		cmocka_unit_test(test_remembered_states),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_advance_overflow),
		cmocka_unit_test(test_callbacks_stop),
		cmocka_unit_test(test_libdw_fixtures),
		cmocka_unit_test(test_libdw_libc),
		cmocka_unit_test(test_libdw_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
