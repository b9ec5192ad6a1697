// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_table: libdw executes the CFA programs; this file finds every FDE
 * (dwarf_next_cfi(), decoding the FDE's initial location the way its CIE
 * says), asks libdw for the frame state of each row in it
 * (dwarf_cfi_addrframe(), whose range tells where the next row starts), and
 * sorts each state into one of the rules a BPF program can follow (see
 * unwind_rule.h). Everything it reads is checked: a file is untrusted.
 */
#include "unwind/cfi_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* DWARF register numbers of x86-64 (the psABI's). */
#define X86_64_RBP 6
#define X86_64_RSP 7
#define X86_64_RIP 16

#define DW_EH_PE_OMIT 0xff
#define DW_EH_PE_FORMAT 0x0f
#define DW_EH_PE_APPLY 0x70
#define DW_EH_PE_INDIRECT 0x80

/* The address range one FDE describes. */
struct fde_span {
	uint64_t start, end;
};

/* What a CIE tells about the FDEs that refer to it. */
struct cie_enc {
	uint64_t offset; /* in the section */
	uint8_t fde_enc; /* how their initial location is encoded */
	bool known;      /* the augmentation was understood */
};

/* Rows by virtual address, before they become file offsets. */
struct vrow {
	uint64_t vaddr;
	uint32_t rule;
};

struct builder {
	struct rule_dict *dict;
	Dwarf_CFI *cfi;
	struct vrow *vrows;
	size_t nv, vcap;
	size_t unsupported;
};

/* Reads an unsigned LEB128 number at *@p (before @end); false when it runs off. */
static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
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

static bool read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned int shift = 0;
	uint64_t u = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
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

/*
 * Reads a value encoded as @enc says (DW_EH_PE_*) at *@p, whose address is
 * @here (for pc-relative values), with @apply false for the FDE's range
 * (plain number). Only the encodings an x86-64 linker emits are taken.
 */
static bool read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t here,
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
		ok = read_uleb(p, end, v);
		break;
	case DW_EH_PE_sleb128:
		ok = read_sleb(p, end, &s);
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

/*
 * How the FDEs of CIE @cie encode their location: from its augmentation
 * ("zR", "zPLR", ...; "" or a signal frame's "S" in .debug_frame: absolute
 * addresses).
 */
static struct cie_enc cie_encoding(const Dwarf_CIE *cie, uint64_t offset, bool eh_frame)
{
	struct cie_enc c = { .offset = offset, .fde_enc = DW_EH_PE_absptr, .known = true };
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *aug = cie->augmentation;
	uint64_t skip;

	if (!aug || !aug[0])
		return c;
	if (aug[0] != 'z') { /* no augmentation data: "S" alone is understood */
		c.known = !strcmp(aug, "S");
		return c;
	}
	if (!eh_frame || !p) {
		c.known = false;
		return c;
	}
	for (aug++; *aug && c.known; aug++) {
		switch (*aug) {
		case 'R':
			c.known = p < end;
			if (c.known)
				c.fde_enc = *p++;
			break;
		case 'L':
			c.known = p < end;
			p++;
			break;
		case 'P': /* the personality routine: its encoding, then its address */
			c.known = p < end;
			if (c.known) {
				uint8_t enc = *p++;

				c.known = read_encoded(&p, end, enc, 0, false, &skip);
			}
			break;
		case 'S':
		case 'B':
			break;
		default:
			c.known = false;
		}
	}
	return c;
}

static const struct cie_enc *cie_find(const struct cie_enc *cies, size_t n, uint64_t offset)
{
	for (size_t i = n; i-- > 0;) /* FDEs mostly follow their CIE: look from the end */
		if (cies[i].offset == offset)
			return &cies[i];
	return NULL;
}

/* Reads the range of FDE @fde of section @sec, loaded at @sec_addr. */
static bool fde_span(const Dwarf_FDE *fde, const struct cie_enc *cie, const uint8_t *sec,
		     uint64_t sec_addr, struct fde_span *span)
{
	const uint8_t *p = fde->start;
	uint64_t start, len;

	if (!cie || !cie->known ||
	    !read_encoded(&p, fde->end, cie->fde_enc, sec_addr + (uint64_t)(p - sec), true,
			  &start) ||
	    !read_encoded(&p, fde->end, cie->fde_enc, 0, false, &len) || !len ||
	    start + len < start)
		return false;
	span->start = start;
	span->end = start + len;
	return true;
}

static int span_cmp(const void *a, const void *b)
{
	const struct fde_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Lists the FDEs of CFI section @scn (.eh_frame when @eh_frame), sorted by
 * start, overlaps clipped. Returns 0 or -ENOMEM.
 */
static int collect_fdes(Elf *elf, Elf_Scn *scn, bool eh_frame, struct fde_span **out, size_t *n)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Data *data = elf_getdata(scn, NULL);
	struct cie_enc *cies = NULL;
	size_t ncies = 0, ciecap = 0, cap = 0, kept = 0;
	Dwarf_Off off = 0, next;
	GElf_Shdr sh;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!ident || !data || !data->d_buf || !gelf_getshdr(scn, &sh))
		return 0;
	for (;;) {
		Dwarf_CFI_Entry e;
		struct fde_span span;
		Dwarf_Off at = off;
		int r = dwarf_next_cfi(ident, data, eh_frame, at, &next, &e);

		if (r > 0 || (r < 0 && (next == (Dwarf_Off)-1 || next <= at)))
			break;
		off = next;
		if (r < 0)
			continue;
		if (dwarf_cfi_cie_p(&e)) {
			if (array__grow((void **)&cies, &ciecap, ncies + 1, sizeof(*cies), 16)) {
				err = -ENOMEM;
				break;
			}
			cies[ncies++] = cie_encoding(&e.cie, at, eh_frame);
			continue;
		}
		if (!fde_span(&e.fde, cie_find(cies, ncies, e.fde.CIE_pointer), data->d_buf,
			      sh.sh_addr, &span))
			continue;
		if (array__grow((void **)out, &cap, *n + 1, sizeof(**out), 1024)) {
			err = -ENOMEM;
			break;
		}
		(*out)[(*n)++] = span;
	}
	free(cies);
	if (err || !*n) /* qsort() takes no NULL array, even of 0 items */
		return err;
	qsort(*out, *n, sizeof(**out), span_cmp);
	for (size_t i = 0; i < *n; i++) {
		struct fde_span s = (*out)[i];

		if (kept && s.start < (*out)[kept - 1].end)
			s.start = (*out)[kept - 1].end;
		if (s.start < s.end)
			(*out)[kept++] = s;
	}
	*n = kept;
	return 0;
}

/* Is @ops[0..n) "CFA + k", as libdw gives an offset(N) rule? Sets *@k. */
static bool at_cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *k)
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

/*
 * Is @ops[0..n) the location "rsp + k" of a DW_CFA_expression rule (libdw
 * puts the CFA first, which the expression ignores)? Sets *@k.
 */
static bool at_rsp_plus(const Dwarf_Op *ops, size_t n, int64_t *k)
{
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa)
		ops++, n--;
	if (n != 1 || ops[0].atom != DW_OP_breg7)
		return false;
	*k = (int64_t)ops[0].number;
	return true;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * The PLT's CFA expression, as binutils writes it for a lazy PLT:
 * rsp + A + ((rip & 15) >= N) << 3. Sets the rule's offset and split.
 */
static bool plt_cfa(const Dwarf_Op *ops, size_t n, struct unwind_rule *r)
{
	static const uint8_t shape[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and,
					 0 /* DW_OP_litN */, DW_OP_ge, DW_OP_lit3, DW_OP_shl,
					 DW_OP_plus };

	if (n != sizeof(shape))
		return false;
	for (size_t i = 0; i < n; i++)
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
static struct unwind_rule signal_rule(const Dwarf_Op *cfa, size_t ncfa, const Dwarf_Op *ra,
				      size_t nra, const Dwarf_Op *fp, size_t nfp)
{
	struct unwind_rule r = { .kind = UNWIND_RULE_UNSUPPORTED };
	int64_t ra_at, fp_at;

	if (ncfa != 2 || cfa[0].atom != DW_OP_breg7 || cfa[1].atom != DW_OP_deref ||
	    !at_rsp_plus(ra, nra, &ra_at) || !at_rsp_plus(fp, nfp, &fp_at) ||
	    !fits_s32((int64_t)cfa[0].number) || !fits_s32(ra_at) || fp_at < INT16_MIN ||
	    fp_at > INT16_MAX)
		return r;
	return (struct unwind_rule){ .kind = UNWIND_RULE_SIGNAL,
				     .cfa_off = (int32_t)(int64_t)cfa[0].number,
				     .ra_off = (int32_t)ra_at,
				     .fp_off = (int16_t)fp_at };
}

/* The rule of one frame state, as the BPF walk can follow it (or UNSUPPORTED). */
static struct unwind_rule classify(Dwarf_Frame *f)
{
	const struct unwind_rule unsupported = { .kind = UNWIND_RULE_UNSUPPORTED };
	struct unwind_rule r = { 0 };
	Dwarf_Op ra_mem[3], fp_mem[3], *cfa, *ra, *fp;
	size_t ncfa, nra, nfp;
	int64_t ra_off, fp_off;
	bool signal = false;
	int ra_reg = dwarf_frame_info(f, NULL, NULL, &signal);

	if (ra_reg != X86_64_RIP || dwarf_frame_cfa(f, &cfa, &ncfa) ||
	    dwarf_frame_register(f, X86_64_RIP, ra_mem, &ra, &nra) ||
	    dwarf_frame_register(f, X86_64_RBP, fp_mem, &fp, &nfp))
		return unsupported;
	if (nra == 0 && ra == ra_mem) /* undefined: the outermost frame */
		return (struct unwind_rule){ .kind = UNWIND_RULE_OUTERMOST };
	if (signal)
		return signal_rule(cfa, ncfa, ra, nra, fp, nfp);
	if (ncfa == 1 && cfa[0].atom == DW_OP_bregx &&
	    (cfa[0].number == X86_64_RSP || cfa[0].number == X86_64_RBP) &&
	    fits_s32((int64_t)cfa[0].number2)) {
		r.kind = cfa[0].number == X86_64_RSP ? UNWIND_RULE_CFA_SP : UNWIND_RULE_CFA_FP;
		r.cfa_off = (int32_t)(int64_t)cfa[0].number2;
	} else if (!plt_cfa(cfa, ncfa, &r)) {
		return unsupported;
	}
	if (!at_cfa_plus(ra, nra, &ra_off) || !fits_s32(ra_off))
		return unsupported;
	r.ra_off = (int32_t)ra_off;
	if (nfp == 0 && fp == NULL) /* same value: rbp is the caller's */
		return r;
	if (!at_cfa_plus(fp, nfp, &fp_off) || fp_off == 0 || fp_off < INT16_MIN ||
	    fp_off > INT16_MAX)
		return unsupported;
	r.fp_off = (int16_t)fp_off;
	return r;
}

static int builder__push(struct builder *b, uint64_t vaddr, uint32_t rule)
{
	if (array__grow((void **)&b->vrows, &b->vcap, b->nv + 1, sizeof(*b->vrows), 4096))
		return -ENOMEM;
	b->vrows[b->nv++] = (struct vrow){ .vaddr = vaddr, .rule = rule };
	return 0;
}

/* Adds the rows of the FDE spanning @s, then a NONE row at its end unless @next starts there. */
static int builder__add_fde(struct builder *b, struct fde_span s, uint64_t next)
{
	uint64_t a = s.start;
	int err = 0;

	while (a < s.end && !err) {
		Dwarf_Addr start, end;
		struct unwind_rule r;
		Dwarf_Frame *f;

		if (dwarf_cfi_addrframe(b->cfi, a, &f)) { /* unreadable: never guessed */
			b->unsupported++;
			err = builder__push(b, a, UNWIND_RULE_ID_UNSUPPORTED);
			break;
		}
		r = classify(f);
		if (dwarf_frame_info(f, &start, &end, NULL) < 0 || end <= a)
			end = a + 1;
		free(f);
		b->unsupported += r.kind == UNWIND_RULE_UNSUPPORTED;
		err = builder__push(b, a, rule_dict__intern(b->dict, &r));
		a = end;
	}
	if (!err && next != s.end)
		err = builder__push(b, s.end, UNWIND_RULE_ID_NONE);
	return err;
}

/* An executable PT_LOAD segment: where its bytes are in the file and in memory. */
struct segment {
	uint64_t vaddr, offset, filesz;
};

/* The executable PT_LOAD segments of @elf, at most @max. */
static size_t exec_segments(Elf *elf, struct segment *segs, size_t max)
{
	size_t phnum, n = 0;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && n < max; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    ph.p_filesz)
			segs[n++] = (struct segment){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	return n;
}

static int segment_cmp(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Appends a row at @off (past the last one; one at the same offset replaces it). */
static int rows_push(struct unwind_row **rows, size_t *n, size_t *cap, uint64_t off,
		     uint32_t rule)
{
	if (off > UINT32_MAX || (*n && off < (*rows)[*n - 1].off))
		return 0; /* past 4 GiB, or segments overlapping in the file: left out */
	if (*n && (*rows)[*n - 1].off == off)
		(*n)--;
	if (array__grow((void **)rows, cap, *n + 1, sizeof(**rows), 4096))
		return -ENOMEM;
	(*rows)[(*n)++] = (struct unwind_row){ .off = (uint32_t)off, .rule = rule };
	return 0;
}

/*
 * Turns the rows by address (sorted) into rows by file offset, segment by
 * segment in file order, with a NONE row where each segment's code ends;
 * a row that repeats the rule before it is left out.
 */
static int builder__finish(struct builder *b, struct segment *segs, size_t nsegs,
			   struct cfi_table *out)
{
	size_t cap = 0, n = 0, kept = 0;
	struct unwind_row *rows = NULL;
	int err = 0;

	qsort(segs, nsegs, sizeof(*segs), segment_cmp);
	for (size_t s = 0; s < nsegs && !err; s++) {
		uint64_t end = segs[s].vaddr + segs[s].filesz;
		size_t before = n;

		for (size_t i = 0; i < b->nv && !err; i++) {
			const struct vrow *v = &b->vrows[i];

			if (v->vaddr >= segs[s].vaddr && v->vaddr < end)
				err = rows_push(&rows, &n, &cap,
						v->vaddr - segs[s].vaddr + segs[s].offset, v->rule);
		}
		if (!err && n > before)
			err = rows_push(&rows, &n, &cap, segs[s].offset + segs[s].filesz,
					UNWIND_RULE_ID_NONE);
	}
	if (err) {
		free(rows);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t prev = kept ? rows[kept - 1].rule : UNWIND_RULE_ID_NONE;

		if (rows[i].rule != prev)
			rows[kept++] = rows[i];
	}
	out->rows = rows;
	out->n = kept;
	return 0;
}

/* Where a file's CFI was found. */
struct cfi_source {
	Dwarf_CFI *cfi;
	Dwarf *dw;     /* for a .debug_frame: what holds it (dwarf_end() frees both) */
	Elf *elf;      /* the file with the section */
	Elf_Scn *scn;  /* the section */
	bool eh_frame; /* .eh_frame, not .debug_frame */
	const char *name;
};

/* The CFI of @bin: its .eh_frame, else a .debug_frame (its own, else @debug's); false: none. */
static bool open_cfi(const struct elf_file *bin, const struct elf_file *debug,
		     struct cfi_source *src)
{
	const struct elf_file *files[2] = { bin, debug };

	*src = (struct cfi_source){ .elf = elf_file__elf(bin), .eh_frame = true,
				    .name = ".eh_frame" };
	/* Any type: LLVM's linkers mark it SHT_X86_64_UNWIND. */
	src->scn = elf_file__find(bin, ".eh_frame", SHT_NULL);
	if (src->scn && (src->cfi = dwarf_getcfi_elf(src->elf)) != NULL)
		return true;
	src->eh_frame = false;
	for (int i = 0; i < 2; i++) {
		if (!files[i] || !(src->scn = elf_file__find(files[i], ".debug_frame", SHT_PROGBITS)))
			continue;
		src->elf = elf_file__elf(files[i]);
		src->dw = dwarf_begin_elf(src->elf, DWARF_C_READ, NULL);
		src->cfi = src->dw ? dwarf_getcfi(src->dw) : NULL;
		if (src->cfi) {
			src->name = i ? "debug file's .debug_frame" : ".debug_frame";
			return true;
		}
		if (src->dw)
			dwarf_end(src->dw);
		src->dw = NULL;
	}
	return false;
}

#define MAX_SEGMENTS 16

int cfi_table__build(const struct elf_file *bin, const struct elf_file *debug,
		     struct rule_dict *dict, const bool *stop, struct cfi_table *out)
{
	struct builder b = { .dict = dict };
	struct segment segs[MAX_SEGMENTS];
	struct fde_span *fdes = NULL;
	Elf *elf = elf_file__elf(bin);
	struct cfi_source src;
	size_t nfdes = 0, nsegs;
	GElf_Ehdr eh;
	int err;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	nsegs = exec_segments(elf, segs, MAX_SEGMENTS);
	if (!nsegs || !open_cfi(bin, debug, &src))
		return -ENOENT;
	b.cfi = src.cfi;
	err = collect_fdes(src.elf, src.scn, src.eh_frame, &fdes, &nfdes);
	for (size_t i = 0; i < nfdes && !err; i++) {
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			err = -ECANCELED;
		else
			err = builder__add_fde(&b, fdes[i], i + 1 < nfdes ? fdes[i + 1].start : 0);
	}
	if (!err)
		err = builder__finish(&b, segs, nsegs, out);
	if (!err && !out->n)
		err = -ENOENT;
	if (!err) {
		out->fdes = nfdes;
		out->unsupported = b.unsupported;
		out->source = src.name;
	}
	if (src.dw)
		dwarf_end(src.dw);
	else
		dwarf_cfi_end(src.cfi);
	free(fdes);
	free(b.vrows);
	if (err)
		cfi_table__free(out);
	return err;
}

uint32_t cfi_table__rule_at(const struct cfi_table *t, uint64_t off)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* the first row past @off */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->rows[lo - 1].rule : UNWIND_RULE_ID_NONE;
}

size_t cfi_table__bytes(const struct cfi_table *t)
{
	return t->n * sizeof(*t->rows);
}

void cfi_table__free(struct cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
