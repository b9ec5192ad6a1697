// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cfi_table: the unwind table builder on any bytes taken for a whole
 * ELF file, read as flametop's table loader reads a mapped file: from a
 * descriptor (a memfd holding the bytes), its own CFI first, then, when it
 * has none, the .debug_frame of its debug file (the same bytes, standing
 * for one). Every table made must have the shape every table has (rows
 * strictly increasing, no rule twice in a row, ids of the dictionary, NONE
 * last), and a build must keep within its budget: it never crashes, leaks,
 * hangs or misbehaves, whatever it is fed (libFuzzer, ASan, UBSan: make
 * fuzz). Seeds: tests/fuzz/corpus/cfi_table/, small shared objects of
 * hand-made CFI (the .S files of tests/fixtures/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/elffile.h"
#include "unwind/cfi_table.h"
#include "unwind/rule_dict.h"

#define BUILD_CPU_NS (2000 * 1000000ull) /* a build of a fuzzed file, at most */

/* Aborts (a finding) unless @t has the shape every table has. */
static void check_shape(const struct cfi_table *t, const struct rule_dict *dict)
{
	if (!t->n || t->rows[t->n - 1].rule != UNWIND_RULE_ID_NONE)
		abort();
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i].rule >= rule_dict__count(dict))
			abort();
		if (i && (t->rows[i].off <= t->rows[i - 1].off ||
			  t->rows[i].rule == t->rows[i - 1].rule))
			abort();
		if (cfi_table__rule_at(t, t->rows[i].off) != t->rows[i].rule)
			abort();
	}
}

/* Builds the table of @bin (with @debug, or NULL) and checks it; returns what the build did. */
static int build(const struct elf_file *bin, const struct elf_file *debug, struct rule_dict *dict)
{
	struct cfi_budget budget = CFI_BUDGET_DEFAULT;
	struct cfi_table t;
	int err;

	budget.time = work_budget__of(NULL, BUILD_CPU_NS);
	err = cfi_table__build(bin, debug, dict, &budget, &t);
	if (!err)
		check_shape(&t, dict);
	else if (t.rows || t.n || err == -ETIME)
		abort(); /* nothing kept on error; no fuzzed file takes seconds */
	cfi_table__free(&t);
	return err;
}

/* A descriptor of a file without a name holding @size bytes at @data; -1 when none. */
static int bytes_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_cfi_table", MFD_CLOEXEC);
	size_t done = 0;

	while (fd >= 0 && done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_dict *dict = rule_dict__new();
	int fd = bytes_fd(data, size);
	struct elf_file *bin = fd >= 0 ? elf_file__open_fd(fd, false) : NULL, *debug;

	if (!dict)
		abort();
	if (bin && build(bin, NULL, dict) == -ENOENT &&
	    (debug = elf_file__open_fd(fd, false)) != NULL) {
		build(bin, debug, dict);
		elf_file__close(debug);
	}
	elf_file__close(bin);
	if (fd >= 0)
		close(fd);
	rule_dict__free(dict);
	return 0;
}
