// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_table: libdw's dwarf_next_cfi() walks the entries of the CFI
 * section; cfa_program reads each CIE and FDE and runs each FDE's program
 * once, giving its rows in order. The rows (by address) become rows by
 * file offset through the PT_LOAD segments. Everything it reads is
 * checked: a file is untrusted.
 */
#include "unwind/cfi_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "unwind/cfa_program.h"

/* Entries read between two looks at the budget. */
#define ENTRIES_CHECK_EVERY 1024

/* An FDE, and where its rows begin to count: past the FDEs before it that overlap it. */
struct fde_entry {
	struct cfa_fde fde;
	uint64_t from;
};

/* Rows by virtual address, before they become file offsets. */
struct vrow {
	uint64_t vaddr;
	uint32_t rule;
};

struct builder {
	struct rule_dict *dict;
	const struct cfi_budget *budget;
	struct vrow *vrows;
	size_t nv, vcap;
	size_t unsupported, refused_fdes;
	uint64_t from, to; /* the FDE being run keeps its rows in [from, to) */
};

/* The budget's cancel and CPU time, looked at now and then (cfa_run.check). */
static int builder__check(void *ctx)
{
	const struct builder *b = ctx;

	return work_budget__spent(&b->budget->time);
}

static int builder__push(struct builder *b, uint64_t vaddr, uint32_t rule)
{
	if (b->nv >= b->budget->max_rows)
		return -E2BIG;
	if (array__grow((void **)&b->vrows, &b->vcap, b->nv + 1, sizeof(*b->vrows), 4096))
		return -ENOMEM;
	b->vrows[b->nv++] = (struct vrow){ .vaddr = vaddr, .rule = rule };
	return 0;
}

/* A row of the FDE being run (cfa_run.row), kept where no FDE before it covers. */
static int builder__row(void *ctx, uint64_t start, uint64_t end, const struct unwind_rule *r)
{
	struct builder *b = ctx;

	if (end <= b->from || start >= b->to)
		return 0;
	b->unsupported += r->kind == UNWIND_RULE_UNSUPPORTED;
	return builder__push(b, start < b->from ? b->from : start, rule_dict__intern(b->dict, r));
}

/* Adds the rows of FDE @e of CIE @cie, then a NONE row at its end unless @next starts there. */
static int builder__add_fde(struct builder *b, const struct cfa_cie *cie,
			    const struct fde_entry *e, uint64_t next)
{
	const struct cfa_run run = { .row = builder__row, .check = builder__check, .ctx = b };
	int err;

	b->from = e->from;
	b->to = e->fde.end;
	err = cfa_program__run(cie, &e->fde, &run);
	b->refused_fdes += err == -ERANGE;
	if (err == -EINVAL || err == -ERANGE) /* cut short, UNSUPPORTED from where it broke */
		err = 0;
	if (!err && next != e->fde.end)
		err = builder__push(b, e->fde.end, UNWIND_RULE_ID_NONE);
	return err;
}

/* An executable PT_LOAD segment: where its bytes are in the file and in memory. */
struct segment {
	uint64_t vaddr, offset, filesz;
};

/*
 * The executable PT_LOAD segments of @elf, at most @max: the bytes of each
 * that are both in the file and loaded, where their file offsets fit the
 * rows' 32 bits.
 */
static size_t exec_segments(Elf *elf, struct segment *segs, size_t max)
{
	size_t phnum, n = 0;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && n < max; i++) {
		uint64_t size;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		size = ph.p_filesz < ph.p_memsz ? ph.p_filesz : ph.p_memsz;
		if (size && ph.p_offset < UINT32_MAX && ph.p_vaddr + size > ph.p_vaddr)
			segs[n++] = (struct segment){ ph.p_vaddr, ph.p_offset, size };
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
		if (!err && n > before) /* the last offset a row can have, for a segment past it */
			err = rows_push(&rows, &n, &cap,
					segs[s].offset + segs[s].filesz < UINT32_MAX
						? segs[s].offset + segs[s].filesz
						: UINT32_MAX,
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
	Elf *elf;	/* the file with the section */
	Elf_Data *data; /* the section's bytes */
	uint64_t addr;	/* where they are loaded */
	bool eh_frame;	/* .eh_frame, not .debug_frame */
	const char *name;
};

/*
 * The bytes of section @scn, decompressed, unless there are more than
 * @max of them (-EFBIG in *@err). NULL when there are none to have.
 */
static Elf_Data *section_bytes(Elf_Scn *scn, size_t max, int *err)
{
	GElf_Shdr sh;
	GElf_Chdr ch;

	if (!gelf_getshdr(scn, &sh))
		return NULL;
	if (sh.sh_flags & SHF_COMPRESSED) {
		if (!gelf_getchdr(scn, &ch))
			return NULL;
		if (ch.ch_size > max) {
			*err = -EFBIG;
			return NULL;
		}
		if (elf_compress(scn, 0, 0) < 0)
			return NULL;
	} else if (sh.sh_size > max) {
		*err = -EFBIG;
		return NULL;
	}
	return elf_getdata(scn, NULL);
}

/* Takes section @scn of @f as the CFI source @src when it has bytes within @max. */
static bool take_section(const struct elf_file *f, Elf_Scn *scn, size_t max, int *err,
			 struct cfi_source *src)
{
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	src->elf = elf_file__elf(f);
	src->addr = sh.sh_addr;
	src->data = section_bytes(scn, max, err);
	return src->data && src->data->d_buf && src->data->d_size;
}

/*
 * The CFI of @bin: its .eh_frame, else a .debug_frame (its own, else
 * @debug's). Returns 0, -ENOENT when there is none, or -EFBIG when the
 * one to take has more than @max bytes.
 */
static int open_cfi(const struct elf_file *bin, const struct elf_file *debug, size_t max,
		    struct cfi_source *src)
{
	const struct elf_file *files[2] = { bin, debug };
	int err = 0;

	*src = (struct cfi_source){ .eh_frame = true, .name = ".eh_frame" };
	/* Any type: LLVM's linkers mark it SHT_X86_64_UNWIND. */
	if (take_section(bin, elf_file__find(bin, ".eh_frame", SHT_NULL), max, &err, src))
		return 0;
	src->eh_frame = false;
	for (int i = 0; i < 2 && !err; i++) {
		src->name = i ? "debug file's .debug_frame" : ".debug_frame";
		if (files[i] &&
		    take_section(files[i], elf_file__find(files[i], ".debug_frame", SHT_PROGBITS),
				 max, &err, src))
			return 0;
	}
	return err ? err : -ENOENT;
}

/* The CIE at @offset, by a binary search of @cies (in section order); NULL when none is. */
static const struct cfa_cie *cie_find(const struct cfa_cie *cies, size_t n, uint64_t offset)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].offset == offset)
			return &cies[mid];
		if (cies[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_entry *x = a, *y = b;

	if (x->fde.start != y->fde.start)
		return x->fde.start < y->fde.start ? -1 : 1;
	if (x->fde.end != y->fde.end) /* the same start: the longer first, whatever qsort does */
		return x->fde.end > y->fde.end ? -1 : 1;
	return x->fde.insns < y->fde.insns ? -1 : x->fde.insns > y->fde.insns;
}

/* Sorts the FDEs by start and gives each the part no FDE before it covers; drops the rest. */
static size_t clip_fdes(struct fde_entry *fdes, size_t n)
{
	size_t kept = 0;

	if (!n) /* qsort() takes no NULL array, even of 0 items */
		return 0;
	qsort(fdes, n, sizeof(*fdes), fde_cmp);
	for (size_t i = 0; i < n; i++) {
		struct fde_entry e = fdes[i];

		e.from = e.fde.start;
		if (kept && e.from < fdes[kept - 1].fde.end)
			e.from = fdes[kept - 1].fde.end;
		if (e.from < e.fde.end)
			fdes[kept++] = e;
	}
	return kept;
}

/* The entries of a CFI section, as collect() reads them. */
struct cfi_entries {
	struct cfa_cie *cies;
	struct fde_entry *fdes;
	size_t ncies, nfdes, ciecap, fdecap;
};

/* Adds the entry @e at @offset of @src to @l, which takes @max_fdes FDEs. Returns 0 or -errno. */
static int collect_one(const struct cfi_source *src, const Dwarf_CFI_Entry *e, uint64_t offset,
		       size_t max_fdes, struct cfi_entries *l)
{
	struct fde_entry f = { 0 };
	const struct cfa_cie *cie;

	if (dwarf_cfi_cie_p(e)) {
		if (array__grow((void **)&l->cies, &l->ciecap, l->ncies + 1, sizeof(*l->cies), 16))
			return -ENOMEM;
		cfa_cie__parse(&e->cie, offset, src->eh_frame, src->data->d_buf, src->addr,
			       &l->cies[l->ncies++]);
		return 0;
	}
	cie = cie_find(l->cies, l->ncies, e->fde.CIE_pointer);
	if (cfa_fde__parse(cie, &e->fde, &f.fde))
		return 0; /* malformed, or of a CIE not understood: skipped */
	if (l->nfdes >= max_fdes)
		return -E2BIG; /* each gives a row at least */
	f.fde.cie = (uint32_t)(cie - l->cies);
	if (array__grow((void **)&l->fdes, &l->fdecap, l->nfdes + 1, sizeof(*l->fdes), 1024))
		return -ENOMEM;
	l->fdes[l->nfdes++] = f;
	return 0;
}

/* Lists the CIEs and FDEs of @src, the FDEs sorted by start and clipped. Returns 0 or -errno. */
static int collect(struct builder *b, const struct cfi_source *src, struct cfi_entries *l)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(src->elf, NULL);
	Dwarf_Off off = 0, next;
	size_t seen = 0;
	int err = 0;

	while (ident && !err) {
		Dwarf_CFI_Entry e;
		Dwarf_Off at = off;
		int r = dwarf_next_cfi(ident, src->data, src->eh_frame, at, &next, &e);

		if (r > 0 || (r < 0 && (next == (Dwarf_Off)-1 || next <= at)))
			break;
		off = next;
		if (++seen % ENTRIES_CHECK_EVERY == 0)
			err = builder__check(b);
		if (!err && r == 0)
			err = collect_one(src, &e, at, b->budget->max_rows, l);
	}
	if (!err)
		l->nfdes = clip_fdes(l->fdes, l->nfdes);
	return err ? err : builder__check(b);
}

/* True for a little-endian 64-bit x86-64 file: the only one whose CFI the walk follows. */
static bool is_x86_64(Elf *elf)
{
	const char *ident = elf_getident(elf, NULL);
	GElf_Ehdr eh;

	return ident && ident[EI_CLASS] == ELFCLASS64 && ident[EI_DATA] == ELFDATA2LSB &&
	       gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64;
}

#define MAX_SEGMENTS 16

int cfi_table__build(const struct elf_file *bin, const struct elf_file *debug,
		     struct rule_dict *dict, const struct cfi_budget *budget,
		     struct cfi_table *out)
{
	const struct cfi_budget fallback = CFI_BUDGET_DEFAULT;
	struct builder b = { .dict = dict, .budget = budget ? budget : &fallback };
	struct segment segs[MAX_SEGMENTS];
	struct cfi_entries l = { 0 };
	Elf *elf = elf_file__elf(bin);
	struct cfi_source src;
	size_t nsegs;
	int err;

	memset(out, 0, sizeof(*out));
	if (!is_x86_64(elf))
		return -ENOTSUP;
	nsegs = exec_segments(elf, segs, MAX_SEGMENTS);
	if (!nsegs)
		return -ENOENT;
	err = open_cfi(bin, debug, b.budget->max_cfi_bytes, &src);
	if (!err)
		err = collect(&b, &src, &l);
	for (size_t i = 0; i < l.nfdes && !err; i++)
		err = builder__add_fde(&b, &l.cies[l.fdes[i].fde.cie], &l.fdes[i],
				       i + 1 < l.nfdes ? l.fdes[i + 1].from : 0);
	if (!err)
		err = builder__check(&b);
	if (!err)
		err = builder__finish(&b, segs, nsegs, out);
	if (!err && !out->n)
		err = -ENOENT;
	if (!err) {
		out->fdes = l.nfdes;
		out->unsupported = b.unsupported;
		out->refused_fdes = b.refused_fdes;
		out->source = src.name;
	}
	free(l.cies);
	free(l.fdes);
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
