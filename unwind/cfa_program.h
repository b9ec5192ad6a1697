/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfa_program: one FDE's call frame instructions (DWARF 5, section 6.4.2),
 * run once, in order, from its CIE's initial instructions to its last
 * instruction; each row's frame state is sorted into the rule the walk
 * follows (unwind_rule.h) as the row closes. A row costs the instructions
 * that make it, whatever the FDE's length (libdw's dwarf_cfi_addrframe()
 * replays the FDE from its start for each row asked: N^2 for N rows).
 *
 * Of a frame state only what the walk reads is kept: the CFA and the rules
 * of the return address and of rbp. Other registers' rules are parsed and
 * checked, then dropped; a register number past CFA_REG_MAX is refused,
 * whatever register it is for. Remembered states nest CFA_STATES_MAX deep
 * at most. A program is untrusted: every operand is checked against its
 * end.
 *
 * Where libdw would answer, the rules are those libdw's frame states give
 * (tests/unit/test_cfa_program.c compares them row by row): x86-64's ABI
 * rules first (rbp and the return address keep their values until a rule
 * says otherwise), then the CIE's initial instructions, then the FDE's.
 */
#ifndef FLAMETOP_CFA_PROGRAM_H
#define FLAMETOP_CFA_PROGRAM_H

#include <elfutils/libdw.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind_rule.h"

/* x86-64's last DWARF register number (bnd3); its CFI names 0-16 and a few more. */
#define CFA_REG_MAX 129
#define CFA_STATES_MAX 32	/* DW_CFA_remember_state without a restore, at most */
#define CFA_CHECK_EVERY 1024	/* instructions between two calls of cfa_run.check */

/* What a CIE says that its FDEs' programs need. */
struct cfa_cie {
	uint64_t offset;		  /* in its section */
	const uint8_t *insns, *insns_end; /* its initial instructions */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;   /* the return address's column */
	uint8_t fde_enc;   /* how its FDEs' addresses are encoded (DW_EH_PE_*) */
	bool augmented;	   /* "z...": its FDEs carry augmentation data */
	bool signal;	   /* "S": its FDEs describe signal frames */
	bool known;	   /* its augmentation was understood: its FDEs can be read */
	const uint8_t *sec; /* its section's bytes ... */
	uint64_t sec_addr;  /* ... and their address, for pc-relative values */
};

/* One FDE: the code it covers and its instructions. */
struct cfa_fde {
	uint64_t start, end; /* [start, end) */
	const uint8_t *insns, *insns_end;
	uint32_t cie; /* the index of its CIE, the caller's */
};

/* What a run reports to, and asks. */
struct cfa_run {
	/* A row: from @start to @end, rule @r. Nonzero stops the run, which returns it. */
	int (*row)(void *ctx, uint64_t start, uint64_t end, const struct unwind_rule *r);
	/* Asked every CFA_CHECK_EVERY instructions: nonzero stops the run, which returns it. */
	int (*check)(void *ctx);
	void *ctx;
};

/*
 * cfa_cie__parse() reads what CIE @cie (as dwarf_next_cfi() gave it, at
 * @offset of section @sec loaded at @sec_addr; an .eh_frame when
 * @eh_frame) says about its FDEs into @out. An augmentation it does not
 * understand leaves out->known false: its FDEs are not read.
 */
void cfa_cie__parse(const Dwarf_CIE *cie, uint64_t offset, bool eh_frame, const uint8_t *sec,
		    uint64_t sec_addr, struct cfa_cie *out);

/*
 * cfa_fde__parse() reads the range and the instructions of FDE @fde (as
 * dwarf_next_cfi() gave it) of CIE @cie into @out. Returns 0, or -EINVAL
 * when the CIE is not known or the FDE is malformed or empty.
 */
int cfa_fde__parse(const struct cfa_cie *cie, const Dwarf_FDE *fde, struct cfa_fde *out);

/*
 * cfa_program__run() runs @cie's initial instructions then @fde's, and
 * calls @run->row for each row of [fde->start, fde->end), in order, with
 * the rule that holds there (consecutive rows may have the same rule;
 * none is empty). Returns 0; -EINVAL when the program turned out
 * malformed (or the CIE names another return address column than rip's),
 * -ERANGE when it names a register past CFA_REG_MAX: either way, from the
 * row it broke in to the FDE's end one UNSUPPORTED row is given, never a
 * guess; or what @run's callbacks returned to stop it.
 */
int cfa_program__run(const struct cfa_cie *cie, const struct cfa_fde *fde,
		     const struct cfa_run *run);

/*
 * The little-endian and DWARF number readers the CFI is read with. Each
 * reads at *@p, never at or past @end, and advances *@p; false when the
 * number runs past @end.
 */
bool cfa_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool cfa_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);

/*
 * cfa_read_encoded() reads a value encoded as @enc says (DW_EH_PE_*) at *@p,
 * whose address is @here (for pc-relative values); with @apply false the
 * plain number (an FDE's range). Only what an x86-64 linker emits is taken.
 */
bool cfa_read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t here,
		      bool apply, uint64_t *v);

#endif
