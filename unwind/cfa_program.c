// SPDX-License-Identifier: GPL-2.0
/*
 * cfa_program: a frame state of three rules (the CFA, the return address,
 * rbp), a stack of remembered states, and one loop over the instructions.
 * A row closes when the location moves, and its rule is made then
 * (classify(), whose answers are those the old per-row libdw reading gave).
 */
#include "unwind/cfa_program.h"

#include <dwarf.h>
#include <errno.h>
#include <string.h>

/* DWARF register numbers of x86-64 (the psABI's). */
#define X86_64_RBP 6
#define X86_64_RSP 7
#define X86_64_RIP 16

#define DW_EH_PE_FORMAT 0x0f
#define DW_EH_PE_APPLY 0x70
#define DW_EH_PE_INDIRECT 0x80

#define CFA_PRIMARY_MASK 0xc0 /* the opcode's high two bits, for the three "primary" ones */
#define CFA_OPERAND_MASK 0x3f

/* Where a register's caller value is, as far as the walk cares. */
enum reg_how {
	REG_SAME,      /* unchanged: the caller's */
	REG_UNDEFINED, /* lost (for the return address: the outermost frame) */
	REG_AT_CFA,    /* saved at CFA + n */
	REG_AT_EXPR,   /* saved where expression expr puts it (the CFA pushed first) */
	REG_OTHER,     /* a value, another register, a value expression: not followed */
};

struct reg_rule {
	uint8_t how;	     /* enum reg_how */
	int64_t n;	     /* REG_AT_CFA */
	const uint8_t *expr; /* REG_AT_EXPR: its bytes */
	uint64_t len;
};

enum cfa_how {
	CFA_UNDEFINED, /* no CFA rule yet */
	CFA_REG,       /* register reg + off */
	CFA_EXPR,      /* expression expr */
	CFA_INVALID,   /* an offset or register changed under an expression */
};

struct frame_state {
	uint8_t cfa_how; /* enum cfa_how */
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr;
	uint64_t cfa_len;
	struct reg_rule ra, fp;
};

/* A program being run. */
struct interp {
	const struct cfa_cie *cie;
	const struct cfa_run *run;
	struct frame_state st;	 /* now */
	struct frame_state init; /* after the CIE's instructions, for DW_CFA_restore */
	struct frame_state saved[CFA_STATES_MAX];
	unsigned int nsaved;
	bool in_cie;	    /* running the CIE's initial instructions */
	uint64_t loc, end;  /* the open row starts at loc; the FDE ends at end */
	uint32_t countdown; /* instructions to the next check */
};

/* What a step of the loop says beside an error: go on, or the FDE's code is all covered. */
#define STEP_ON 0
#define STEP_DONE 1

bool cfa_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

bool cfa_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned int shift = 0;
	uint64_t u = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~(uint64_t)0 << shift;
			*v = (int64_t)u;
			return true;
		}
	}
	return false;
}

/* Reads @size little-endian bytes at *@p, sign-extended when @sign. */
static bool read_fixed(const uint8_t **p, const uint8_t *end, size_t size, bool sign, uint64_t *v)
{
	uint64_t u = 0;

	if ((size_t)(end - *p) < size)
		return false;
	for (size_t i = 0; i < size; i++)
		u |= (uint64_t)(*p)[i] << (8 * i);
	if (sign && size < 8 && (u >> (8 * size - 1)) & 1)
		u |= ~(uint64_t)0 << (8 * size);
	*p += size;
	*v = u;
	return true;
}

bool cfa_read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t here,
		      bool apply, uint64_t *v)
{
	int64_t s = 0;
	bool ok;

	switch (enc & DW_EH_PE_FORMAT) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		ok = read_fixed(p, end, 8, false, v);
		break;
	case DW_EH_PE_udata2:
		ok = read_fixed(p, end, 2, false, v);
		break;
	case DW_EH_PE_sdata2:
		ok = read_fixed(p, end, 2, true, v);
		break;
	case DW_EH_PE_udata4:
		ok = read_fixed(p, end, 4, false, v);
		break;
	case DW_EH_PE_sdata4:
		ok = read_fixed(p, end, 4, true, v);
		break;
	case DW_EH_PE_uleb128:
		ok = cfa_read_uleb(p, end, v);
		break;
	case DW_EH_PE_sleb128:
		ok = cfa_read_sleb(p, end, &s);
		*v = (uint64_t)s;
		break;
	default:
		return false;
	}
	if (!ok || !apply)
		return ok;
	if (enc & DW_EH_PE_INDIRECT)
		return false;
	switch (enc & DW_EH_PE_APPLY) {
	case DW_EH_PE_absptr:
		return true;
	case DW_EH_PE_pcrel:
		*v += here;
		return true;
	default: /* textrel, datarel, funcrel: never in an FDE's location here */
		return false;
	}
}

/* Reads the augmentation string @aug's data at @p..@end into @c ("zR", "zPLR", ...). */
static void parse_augmentation(const char *aug, const uint8_t *p, const uint8_t *end,
			       struct cfa_cie *c)
{
	uint64_t skip;

	for (aug++; *aug && c->known; aug++) {
		switch (*aug) {
		case 'R':
			c->known = p < end;
			if (c->known)
				c->fde_enc = *p++;
			break;
		case 'L':
			c->known = p < end;
			p++;
			break;
		case 'P': /* the personality routine: its encoding, then its address */
			c->known = p < end;
			if (c->known) {
				uint8_t enc = *p++;

				c->known = cfa_read_encoded(&p, end, enc, 0, false, &skip);
			}
			break;
		case 'S':
			c->signal = true;
			break;
		case 'B':
			break;
		default:
			c->known = false;
		}
	}
}

void cfa_cie__parse(const Dwarf_CIE *cie, uint64_t offset, bool eh_frame, const uint8_t *sec,
		    uint64_t sec_addr, struct cfa_cie *out)
{
	const uint8_t *p = cie->augmentation_data;
	const char *aug = cie->augmentation;

	*out = (struct cfa_cie){ .offset = offset, .insns = cie->initial_instructions,
				 .insns_end = cie->initial_instructions_end,
				 .code_align = cie->code_alignment_factor,
				 .data_align = cie->data_alignment_factor,
				 .ra_reg = cie->return_address_register,
				 .fde_enc = DW_EH_PE_absptr, .known = true, .sec = sec,
				 .sec_addr = sec_addr };
	if (!aug || !aug[0])
		return;
	if (aug[0] != 'z') { /* no augmentation data: a signal frame's "S" alone is understood */
		out->known = !strcmp(aug, "S");
		out->signal = out->known;
		return;
	}
	/* .debug_frame has no augmentation data, and libdw gives none there. */
	out->known = eh_frame && p;
	out->augmented = true;
	if (out->known)
		parse_augmentation(aug, p, p + cie->augmentation_data_size, out);
}

int cfa_fde__parse(const struct cfa_cie *cie, const Dwarf_FDE *fde, struct cfa_fde *out)
{
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t start, len, aug_len;

	if (!cie || !cie->known ||
	    !cfa_read_encoded(&p, end, cie->fde_enc, cie->sec_addr + (uint64_t)(p - cie->sec), true,
			      &start) ||
	    !cfa_read_encoded(&p, end, cie->fde_enc, 0, false, &len) || !len ||
	    start + len < start)
		return -EINVAL;
	if (cie->augmented) {
		if (!cfa_read_uleb(&p, end, &aug_len) || aug_len > (uint64_t)(end - p))
			return -EINVAL;
		p += aug_len;
	}
	*out = (struct cfa_fde){ .start = start, .end = start + len, .insns = p, .insns_end = end };
	return 0;
}

/* One operation of a DWARF expression, of the few classify() tells apart. */
struct expr_op {
	uint8_t atom;
	uint64_t number; /* a bregN's offset (the int64_t's bits), plus_uconst's addend */
};

#define EXPR_OPS_MAX 9 /* the longest expression classify() knows: the PLT's */

/*
 * Decodes the @len bytes at @e into @ops; returns their number, or -1 for
 * an operation classify() knows nothing of, a truncated one, or too many.
 */
static int decode_expr(const uint8_t *e, uint64_t len, struct expr_op *ops)
{
	const uint8_t *p = e, *end = e + len;
	int n = 0;

	while (p < end) {
		struct expr_op op = { .atom = *p++ };
		int64_t s;

		if (n == EXPR_OPS_MAX)
			return -1;
		if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
			if (!cfa_read_sleb(&p, end, &s))
				return -1;
			op.number = (uint64_t)s;
		} else if (op.atom == DW_OP_plus_uconst) {
			if (!cfa_read_uleb(&p, end, &op.number))
				return -1;
		} else if (!(op.atom >= DW_OP_lit0 && op.atom <= DW_OP_lit31) &&
			   op.atom != DW_OP_and && op.atom != DW_OP_ge && op.atom != DW_OP_shl &&
			   op.atom != DW_OP_plus && op.atom != DW_OP_deref) {
			return -1;
		}
		ops[n++] = op;
	}
	return n;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Is register rule @r "at CFA + k" (an offset rule, or an expression adding to the CFA)? */
static bool at_cfa_plus(const struct reg_rule *r, int64_t *k)
{
	struct expr_op ops[EXPR_OPS_MAX];
	int n;

	if (r->how == REG_AT_CFA) {
		*k = r->n;
		return true;
	}
	if (r->how != REG_AT_EXPR)
		return false;
	n = decode_expr(r->expr, r->len, ops);
	if (n == 0) {
		*k = 0;
		return true;
	}
	if (n != 1 || ops[0].atom != DW_OP_plus_uconst)
		return false;
	*k = (int64_t)ops[0].number;
	return true;
}

/* Is register rule @r "at rsp + k" (an expression DW_OP_breg7 k, as in a signal frame)? */
static bool at_rsp_plus(const struct reg_rule *r, int64_t *k)
{
	struct expr_op ops[EXPR_OPS_MAX];

	if (r->how != REG_AT_EXPR || decode_expr(r->expr, r->len, ops) != 1 ||
	    ops[0].atom != DW_OP_breg7)
		return false;
	*k = (int64_t)ops[0].number;
	return true;
}

/*
 * The PLT's CFA expression, as binutils writes it for a lazy PLT:
 * rsp + A + ((rip & 15) >= N) << 3. Sets the rule's offset and split.
 */
static bool plt_cfa(const struct frame_state *s, struct unwind_rule *r)
{
	static const uint8_t shape[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and,
					 0 /* DW_OP_litN */, DW_OP_ge, DW_OP_lit3, DW_OP_shl,
					 DW_OP_plus };
	struct expr_op ops[EXPR_OPS_MAX];

	if (s->cfa_how != CFA_EXPR ||
	    decode_expr(s->cfa_expr, s->cfa_len, ops) != (int)sizeof(shape))
		return false;
	for (size_t i = 0; i < sizeof(shape); i++)
		if (shape[i] && ops[i].atom != shape[i])
			return false;
	if (ops[1].number != 0 || ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15 ||
	    !fits_s32((int64_t)ops[0].number))
		return false;
	r->kind = UNWIND_RULE_PLT;
	r->cfa_off = (int32_t)(int64_t)ops[0].number;
	r->plt_split = ops[4].atom - DW_OP_lit0;
	return true;
}

/* A signal frame: rsp, rip and rbp of the interrupted code saved in memory at rsp + k. */
static struct unwind_rule signal_rule(const struct frame_state *s)
{
	struct unwind_rule r = { .kind = UNWIND_RULE_UNSUPPORTED };
	struct expr_op cfa[EXPR_OPS_MAX];
	int64_t ra_at, fp_at;

	if (s->cfa_how != CFA_EXPR || decode_expr(s->cfa_expr, s->cfa_len, cfa) != 2 ||
	    cfa[0].atom != DW_OP_breg7 || cfa[1].atom != DW_OP_deref ||
	    !at_rsp_plus(&s->ra, &ra_at) || !at_rsp_plus(&s->fp, &fp_at) ||
	    !fits_s32((int64_t)cfa[0].number) || !fits_s32(ra_at) || fp_at < INT16_MIN ||
	    fp_at > INT16_MAX)
		return r;
	return (struct unwind_rule){ .kind = UNWIND_RULE_SIGNAL,
				     .cfa_off = (int32_t)(int64_t)cfa[0].number,
				     .ra_off = (int32_t)ra_at,
				     .fp_off = (int16_t)fp_at };
}

/* The rule of frame state @s, as the BPF walk can follow it (or UNSUPPORTED). */
static struct unwind_rule classify(const struct cfa_cie *cie, const struct frame_state *s)
{
	const struct unwind_rule unsupported = { .kind = UNWIND_RULE_UNSUPPORTED };
	struct unwind_rule r = { 0 };
	int64_t ra_off, fp_off;

	if (s->cfa_how == CFA_INVALID)
		return unsupported;
	if (s->ra.how == REG_UNDEFINED) /* the outermost frame */
		return (struct unwind_rule){ .kind = UNWIND_RULE_OUTERMOST };
	if (cie->signal)
		return signal_rule(s);
	if (s->cfa_how == CFA_REG && (s->cfa_reg == X86_64_RSP || s->cfa_reg == X86_64_RBP) &&
	    fits_s32(s->cfa_off)) {
		r.kind = s->cfa_reg == X86_64_RSP ? UNWIND_RULE_CFA_SP : UNWIND_RULE_CFA_FP;
		r.cfa_off = (int32_t)s->cfa_off;
	} else if (!plt_cfa(s, &r)) {
		return unsupported;
	}
	if (!at_cfa_plus(&s->ra, &ra_off) || !fits_s32(ra_off))
		return unsupported;
	r.ra_off = (int32_t)ra_off;
	if (s->fp.how == REG_SAME) /* rbp is the caller's */
		return r;
	if (!at_cfa_plus(&s->fp, &fp_off) || fp_off == 0 || fp_off < INT16_MIN ||
	    fp_off > INT16_MAX)
		return unsupported;
	r.fp_off = (int16_t)fp_off;
	return r;
}

/* Calls the row callback for [in->loc, @to) clipped to the FDE, if not empty. */
static int emit(struct interp *in, uint64_t to, const struct unwind_rule *r)
{
	if (to > in->end)
		to = in->end;
	if (in->loc >= to)
		return 0;
	return in->run->row(in->run->ctx, in->loc, to, r);
}

/* The location moves to @to: the open row closes. STEP_DONE once the FDE is covered. */
static int advance(struct interp *in, uint64_t to)
{
	struct unwind_rule r;
	int err;

	if (in->in_cie || to < in->loc)
		return -EINVAL; /* no row in a CIE; rows never go back */
	r = classify(in->cie, &in->st);
	err = emit(in, to, &r);
	if (err)
		return err;
	in->loc = to;
	return in->loc >= in->end ? STEP_DONE : STEP_ON;
}

/* Advances by @delta code alignment units. */
static int advance_by(struct interp *in, uint64_t delta)
{
	uint64_t bytes = delta * in->cie->code_align;

	if ((in->cie->code_align && bytes / in->cie->code_align != delta) ||
	    in->loc + bytes < in->loc)
		return -EINVAL;
	return advance(in, in->loc + bytes);
}

/* The rule of register @reg that the walk keeps, or NULL: it is dropped. -ERANGE: refused. */
static int reg_slot(struct interp *in, uint64_t reg, struct reg_rule **slot)
{
	if (reg > CFA_REG_MAX)
		return -ERANGE;
	*slot = reg == X86_64_RIP ? &in->st.ra : reg == X86_64_RBP ? &in->st.fp : NULL;
	return 0;
}

/* Gives register @reg rule @r. */
static int set_reg(struct interp *in, uint64_t reg, struct reg_rule r)
{
	struct reg_rule *slot;
	int err = reg_slot(in, reg, &slot);

	if (!err && slot)
		*slot = r;
	return err;
}

/* @factored data alignment units, in bytes (wrapping as libdw's do). */
static int64_t data_bytes(const struct interp *in, int64_t factored)
{
	return (int64_t)((uint64_t)factored * (uint64_t)in->cie->data_align);
}

/* An offset rule: saved at CFA + @factored data alignment units. */
static struct reg_rule at_cfa(const struct interp *in, int64_t factored)
{
	return (struct reg_rule){ .how = REG_AT_CFA, .n = data_bytes(in, factored) };
}

/* DW_CFA_restore: register @reg as the CIE left it (not in the CIE's own program). */
static int restore_reg(struct interp *in, uint64_t reg)
{
	struct reg_rule *slot;
	int err = in->in_cie ? -EINVAL : reg_slot(in, reg, &slot);

	if (!err && slot)
		*slot = slot == &in->st.ra ? in->init.ra : in->init.fp;
	return err;
}

/* Reads a block (a ULEB128 length, then the bytes) at *@p. */
static bool read_block(const uint8_t **p, const uint8_t *end, const uint8_t **block,
		       uint64_t *len)
{
	if (!cfa_read_uleb(p, end, len) || *len > (uint64_t)(end - *p))
		return false;
	*block = *p;
	*p += *len;
	return true;
}

/* The CFA's register and offset change: only under a register rule. */
static void cfa_offset_rule(struct interp *in, uint64_t reg, int64_t off, bool new_reg,
			    bool new_off)
{
	if (in->st.cfa_how != CFA_REG && !(new_reg && new_off)) {
		in->st.cfa_how = CFA_INVALID;
		return;
	}
	in->st.cfa_how = CFA_REG;
	if (new_reg)
		in->st.cfa_reg = reg;
	if (new_off)
		in->st.cfa_off = off;
}

/* Instructions that name a register and a rule for it. */
static int reg_insn(struct interp *in, uint8_t op, const uint8_t **p, const uint8_t *end)
{
	struct reg_rule r = { .how = REG_OTHER };
	uint64_t reg, u, other;
	int64_t s;

	if (!cfa_read_uleb(p, end, &reg))
		return -EINVAL;
	switch (op) {
	case DW_CFA_offset_extended:
		if (!cfa_read_uleb(p, end, &u))
			return -EINVAL;
		return set_reg(in, reg, at_cfa(in, (int64_t)u));
	case DW_CFA_offset_extended_sf:
		if (!cfa_read_sleb(p, end, &s))
			return -EINVAL;
		return set_reg(in, reg, at_cfa(in, s));
	case DW_CFA_GNU_negative_offset_extended:
		if (!cfa_read_uleb(p, end, &u))
			return -EINVAL;
		return set_reg(in, reg, at_cfa(in, -(int64_t)u));
	case DW_CFA_restore_extended:
		return restore_reg(in, reg);
	case DW_CFA_undefined:
		return set_reg(in, reg, (struct reg_rule){ .how = REG_UNDEFINED });
	case DW_CFA_same_value:
		return set_reg(in, reg, (struct reg_rule){ .how = REG_SAME });
	case DW_CFA_register:
		if (!cfa_read_uleb(p, end, &other))
			return -EINVAL;
		return other > CFA_REG_MAX ? -ERANGE : set_reg(in, reg, r);
	case DW_CFA_expression:
		r.how = REG_AT_EXPR;
		return read_block(p, end, &r.expr, &r.len) ? set_reg(in, reg, r) : -EINVAL;
	case DW_CFA_val_expression:
		return read_block(p, end, &r.expr, &r.len) ? set_reg(in, reg, r) : -EINVAL;
	case DW_CFA_val_offset:
		return cfa_read_uleb(p, end, &u) ? set_reg(in, reg, r) : -EINVAL;
	case DW_CFA_val_offset_sf:
		return cfa_read_sleb(p, end, &s) ? set_reg(in, reg, r) : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Instructions that change the CFA rule. */
static int cfa_insn(struct interp *in, uint8_t op, const uint8_t **p, const uint8_t *end)
{
	uint64_t reg = 0, u;
	int64_t s;

	switch (op) {
	case DW_CFA_def_cfa:
		if (!cfa_read_uleb(p, end, &reg) || !cfa_read_uleb(p, end, &u))
			return -EINVAL;
		cfa_offset_rule(in, reg, (int64_t)u, true, true);
		break;
	case DW_CFA_def_cfa_sf:
		if (!cfa_read_uleb(p, end, &reg) || !cfa_read_sleb(p, end, &s))
			return -EINVAL;
		cfa_offset_rule(in, reg, data_bytes(in, s), true, true);
		break;
	case DW_CFA_def_cfa_register:
		if (!cfa_read_uleb(p, end, &reg))
			return -EINVAL;
		cfa_offset_rule(in, reg, 0, true, false);
		break;
	case DW_CFA_def_cfa_offset:
		if (!cfa_read_uleb(p, end, &u))
			return -EINVAL;
		cfa_offset_rule(in, 0, (int64_t)u, false, true);
		break;
	case DW_CFA_def_cfa_offset_sf:
		if (!cfa_read_sleb(p, end, &s))
			return -EINVAL;
		cfa_offset_rule(in, 0, data_bytes(in, s), false, true);
		break;
	case DW_CFA_def_cfa_expression:
		if (!read_block(p, end, &in->st.cfa_expr, &in->st.cfa_len))
			return -EINVAL;
		in->st.cfa_how = CFA_EXPR;
		break;
	default:
		return -EINVAL;
	}
	return reg > CFA_REG_MAX ? -ERANGE : STEP_ON;
}

/* Instructions that move the location, other than DW_CFA_advance_loc itself. */
static int loc_insn(struct interp *in, uint8_t op, const uint8_t **p, const uint8_t *end)
{
	const struct cfa_cie *c = in->cie;
	uint64_t u;

	switch (op) {
	case DW_CFA_set_loc:
		if (!cfa_read_encoded(p, end, c->fde_enc, c->sec_addr + (uint64_t)(*p - c->sec),
				      true, &u))
			return -EINVAL;
		return advance(in, u);
	case DW_CFA_advance_loc1:
		return read_fixed(p, end, 1, false, &u) ? advance_by(in, u) : -EINVAL;
	case DW_CFA_advance_loc2:
		return read_fixed(p, end, 2, false, &u) ? advance_by(in, u) : -EINVAL;
	case DW_CFA_advance_loc4:
		return read_fixed(p, end, 4, false, &u) ? advance_by(in, u) : -EINVAL;
	case DW_CFA_MIPS_advance_loc8:
		return read_fixed(p, end, 8, false, &u) ? advance_by(in, u) : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* DW_CFA_remember_state and DW_CFA_restore_state. */
static int state_insn(struct interp *in, uint8_t op)
{
	if (op == DW_CFA_remember_state) {
		if (in->nsaved == CFA_STATES_MAX)
			return -EINVAL;
		in->saved[in->nsaved++] = in->st;
		return STEP_ON;
	}
	if (!in->nsaved)
		return -EINVAL;
	in->st = in->saved[--in->nsaved];
	return STEP_ON;
}

/* Runs the instruction at *@p; STEP_ON, STEP_DONE, or -errno. */
static int step(struct interp *in, const uint8_t **p, const uint8_t *end)
{
	uint8_t op = *(*p)++;
	uint64_t u;

	switch (op & CFA_PRIMARY_MASK) {
	case DW_CFA_advance_loc:
		return advance_by(in, op & CFA_OPERAND_MASK);
	case DW_CFA_offset:
		if (!cfa_read_uleb(p, end, &u))
			return -EINVAL;
		return set_reg(in, op & CFA_OPERAND_MASK, at_cfa(in, (int64_t)u));
	case DW_CFA_restore:
		return restore_reg(in, op & CFA_OPERAND_MASK);
	}
	switch (op) {
	case DW_CFA_nop:
		return STEP_ON;
	case DW_CFA_GNU_args_size:
		return cfa_read_uleb(p, end, &u) ? STEP_ON : -EINVAL;
	case DW_CFA_remember_state:
	case DW_CFA_restore_state:
		return state_insn(in, op);
	case DW_CFA_set_loc:
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
	case DW_CFA_MIPS_advance_loc8:
		return loc_insn(in, op, p, end);
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return cfa_insn(in, op, p, end);
	default:
		return reg_insn(in, op, p, end);
	}
}

/* Runs the instructions @p..@end; STEP_ON at their end, STEP_DONE, or -errno. */
static int run_insns(struct interp *in, const uint8_t *p, const uint8_t *end)
{
	int ret = STEP_ON;

	while (p < end && ret == STEP_ON) {
		if (!--in->countdown) {
			in->countdown = CFA_CHECK_EVERY;
			ret = in->run->check ? in->run->check(in->run->ctx) : 0;
			if (ret)
				return ret;
		}
		ret = step(in, &p, end);
	}
	return ret;
}

int cfa_program__run(const struct cfa_cie *cie, const struct cfa_fde *fde,
		     const struct cfa_run *run)
{
	const struct unwind_rule unsupported = { .kind = UNWIND_RULE_UNSUPPORTED };
	/*
	 * Zeroed, the state is x86-64's ABI rules (libdw's): no CFA yet, rbp and
	 * the return address the caller's (REG_SAME).
	 */
	struct interp in = { .cie = cie, .run = run, .in_cie = true, .loc = fde->start,
			     .end = fde->end, .countdown = CFA_CHECK_EVERY };
	int ret = cie->ra_reg == X86_64_RIP ? STEP_ON : -EINVAL;

	if (ret == STEP_ON)
		ret = run_insns(&in, cie->insns, cie->insns_end);
	in.init = in.st;
	in.in_cie = false;
	in.nsaved = 0;
	if (ret == STEP_ON)
		ret = run_insns(&in, fde->insns, fde->insns_end);
	if (ret == STEP_ON || ret == STEP_DONE) {
		struct unwind_rule r = classify(cie, &in.st);

		return emit(&in, in.end, &r);
	}
	if (ret == -EINVAL || ret == -ERANGE) {
		int err = emit(&in, in.end, &unsupported);

		return err ? err : ret;
	}
	return ret;
}
