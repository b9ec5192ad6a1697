// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_interp: python/interp's reading of an interpreter's file on any bytes
 * taken for a whole ELF file, as a process could map one under the name
 * python3.11 or libpython3.11.so: its runtime's symbols, the load bias its
 * first mapping gives, and the file offset of its code_dealloc() (from the
 * code type's slot, its relocation, .symtab). An offset found must lie in
 * the file: flametop puts a probe there. It never crashes, leaks, hangs or
 * misbehaves (libFuzzer, ASan, UBSan: make fuzz). Seed:
 * tests/fuzz/corpus/interp/, a small shared object laid out as libpython's
 * parts are (tests/fixtures/fake_libpython.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "python/interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_map first = { .start = 0x7f0000000000, .end = 0x7f0000100000, .kind = MAP_FILE };
	struct py_interp in = { .map = &first };
	struct elf_file *f;
	void *image = malloc(size ? size : 1);

	if (!image)
		return 0;
	memcpy(image, data, size);
	f = elf_file__open_image(image, size);
	if (!f)
		return 0;
	if (!py_interp__read_file(f, &first, &in) && in.code_free_off >= size)
		abort(); /* a probe's offset outside the file */
	elf_file__close(f);
	return 0;
}
