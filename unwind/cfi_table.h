/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_table: one file's unwind table, built from its call frame
 * information (CFI): rows sorted by file offset, each the offset where a
 * rule of the shared dictionary starts to hold (see unwind_rule.h).
 * Consecutive rows never repeat a rule; an address no FDE covers falls
 * under a UNWIND_RULE_NONE row. Plain data: the table knows nothing of who
 * reads it.
 *
 * A file is untrusted, and a build bounded: in the CFI it reads, the rows
 * it makes and the CPU time it takes (struct cfi_budget), each FDE's
 * program run once (cfa_program.h), a cancel looked at inside an FDE too.
 */
#ifndef FLAMETOP_CFI_TABLE_H
#define FLAMETOP_CFI_TABLE_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elffile.h"
#include "unwind/rule_dict.h"
#include "work_budget.h"
#include "unwind/unwind_rule.h"

struct cfi_table {
	struct unwind_row *rows; /* sorted by off, strictly increasing */
	size_t n;
	size_t fdes;         /* FDEs read */
	size_t unsupported;  /* rows (before merging) whose CFI this walk cannot follow */
	size_t refused_fdes; /* FDEs naming a register past CFA_REG_MAX: UNSUPPORTED from there */
	const char *source;  /* ".eh_frame", ".debug_frame", or the debug file's ".debug_frame" */
};

/* What a build may take. libLLVM-14, the largest library here: 5.6 MB of CFI, 0.95M rows. */
#define CFI_MAX_BYTES (64UL << 20)
#define CFI_MAX_ROWS (4UL << 20)

struct cfi_budget {
	size_t max_cfi_bytes;	 /* the CFI section's bytes (once decompressed): past them, -EFBIG */
	size_t max_rows;	 /* rows made (before merging), and FDEs: past them, -E2BIG */
	struct work_budget time; /* a cancel (-ECANCELED) and a CPU deadline (-ETIME) */
};

#define CFI_BUDGET_DEFAULT                                                                         \
	((struct cfi_budget){ .max_cfi_bytes = CFI_MAX_BYTES, .max_rows = CFI_MAX_ROWS })

/*
 * cfi_table__build() reads the CFI of x86-64 ELF file @bin: its .eh_frame,
 * else its own .debug_frame, else the .debug_frame of @debug (its separate
 * debug file, NULL when there is none), and turns it into rows keyed by
 * file offsets of @bin (through its PT_LOAD segments). Rules are interned
 * in @dict. Returns 0 with *@out filled (free it with cfi_table__free()),
 * -ENOENT when the file has no CFI (or no loadable code), -ENOTSUP for
 * another machine than little-endian 64-bit x86-64, -ENOMEM, or the error
 * of the limit of @budget (NULL: CFI_BUDGET_DEFAULT) the build went past.
 * A malformed FDE is skipped, a malformed program cut short where it
 * breaks: never followed.
 */
int cfi_table__build(const struct elf_file *bin, const struct elf_file *debug,
		     struct rule_dict *dict, const struct cfi_budget *budget,
		     struct cfi_table *out);

/*
 * cfi_table__rule_at() returns the id of the rule holding at file offset
 * @off: that of the last row at or before it, UNWIND_RULE_ID_NONE before
 * the first row. The BPF walk looks rows up the same way.
 */
uint32_t cfi_table__rule_at(const struct cfi_table *t, uint64_t off);

/* Heap bytes the rows take. */
size_t cfi_table__bytes(const struct cfi_table *t);

/* cfi_table__free() releases the rows; the table is then empty. */
void cfi_table__free(struct cfi_table *t);

#endif
