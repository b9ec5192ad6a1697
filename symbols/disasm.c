// SPDX-License-Identifier: GPL-2.0
/*
 * disasm: capstone's iterator over a buffer, one cs_insn reused; where it
 * stops before the end, one byte is taken as "(bad)" and it goes on.
 */
#include "symbols/disasm.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "array.h"

/* The machine flametop runs on, as capstone names it: only its own code is sampled. */
static int open_handle(csh *h)
{
#if defined(__x86_64__)
	if (cs_open(CS_ARCH_X86, CS_MODE_64, h) != CS_ERR_OK)
		return -ENOTSUP;
	cs_option(*h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	return 0;
#elif defined(__aarch64__)
	return cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h) == CS_ERR_OK ? 0 : -ENOTSUP;
#else
	(void)h;
	return -ENOTSUP;
#endif
}

/* Appends an instruction to *@out (@n of them, room for @cap). */
static int push(struct disasm_insn **out, size_t *n, size_t *cap, uint64_t addr, uint32_t len,
		const char *mnemonic, const char *ops)
{
	struct disasm_insn *i;

	if (array__grow((void **)out, cap, *n + 1, sizeof(**out), 64))
		return -ENOMEM;
	i = &(*out)[(*n)++];
	i->addr = addr;
	i->len = len;
	if (ops[0])
		snprintf(i->text, sizeof(i->text), "%-6s %s", mnemonic, ops);
	else
		snprintf(i->text, sizeof(i->text), "%s", mnemonic);
	return 0;
}

long disasm__decode(const uint8_t *code, size_t len, uint64_t addr, struct disasm_insn **out)
{
	size_t n = 0, cap = 0;
	cs_insn *insn;
	csh h;
	int err = open_handle(&h);

	*out = NULL;
	if (err)
		return err;
	insn = cs_malloc(h);
	if (!insn) {
		cs_close(&h);
		return -ENOMEM;
	}
	if (len > DISASM_MAX_BYTES)
		len = DISASM_MAX_BYTES;
	while (len && !err) {
		const uint8_t *at = code;
		uint64_t a = addr;

		if (cs_disasm_iter(h, &at, &len, &a, insn)) {
			err = push(out, &n, &cap, insn->address, insn->size, insn->mnemonic,
				   insn->op_str);
		} else { /* no instruction here: one byte, and on */
			err = push(out, &n, &cap, addr, 1, "(bad)", "");
			at++;
			a++;
			len--;
		}
		code = at;
		addr = a;
	}
	cs_free(insn, 1);
	cs_close(&h);
	if (err) {
		free(*out);
		*out = NULL;
		return err;
	}
	return (long)n;
}
