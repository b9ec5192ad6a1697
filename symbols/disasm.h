/* SPDX-License-Identifier: GPL-2.0 */
/*
 * disasm: machine code to the instructions a person reads, with capstone
 * (Debian's libcapstone), in the syntax perf annotate and objdump show by
 * default (AT&T on x86-64). The bytes are untrusted: whatever does not
 * decode is one "(bad)" byte, as objdump shows it, and decoding goes on.
 */
#ifndef FLAMETOP_DISASM_H
#define FLAMETOP_DISASM_H

#include <stddef.h>
#include <stdint.h>

#define DISASM_TEXT_MAX 80	  /* an instruction's text, cut to fit */
#define DISASM_MAX_BYTES (256u << 10) /* the most code decoded at once */

struct disasm_insn {
	uint64_t addr;
	uint32_t len;
	char text[DISASM_TEXT_MAX]; /* "imul   %rax, %rax" */
};

/*
 * disasm__decode() decodes the @len bytes at @code, as loaded at @addr,
 * into a new array *@out (the caller frees it). At most DISASM_MAX_BYTES
 * are decoded. Returns the number of instructions, -ENOTSUP where
 * capstone knows no such machine (or was built without it), or -ENOMEM.
 */
long disasm__decode(const uint8_t *code, size_t len, uint64_t addr, struct disasm_insn **out);

#endif
