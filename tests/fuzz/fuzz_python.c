// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_python: python/'s readers of a process's memory on any bytes, as a
 * hostile process could lay them out: the bytes are its memory from
 * FUZZ_BASE up, a code object at FUZZ_BASE read with each version's
 * layout (pointers, lengths and line tables anywhere), a 3.13 runtime's
 * debug offsets, line tables of each format, and frame names split. It must
 * never crash, leak, hang or misbehave (libFuzzer, ASan, UBSan: make fuzz).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "python/code_name.h"
#include "python/frame_names.h"
#include "python/linetable.h"
#include "python/offsets.h"

#define FUZZ_BASE 0x10000ull

struct fuzz_mem {
	const uint8_t *data;
	size_t size;
};

/* The fuzzer's bytes as memory from FUZZ_BASE: all of a read there, or -EFAULT. */
static int fuzz_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fuzz_mem *m = ctx;

	if (addr < FUZZ_BASE || addr - FUZZ_BASE > m->size || len > m->size - (addr - FUZZ_BASE))
		return -EFAULT;
	memcpy(buf, m->data + (addr - FUZZ_BASE), len);
	return 0;
}

/* A code object at FUZZ_BASE, laid out as @l says: read, named, its lines looked up. */
static void read_code(const struct py_mem *mem, const struct py_layout *l, uint32_t version)
{
	char name[PY_FRAME_NAME_MAX];
	struct py_code c;

	if (py_code__read(mem, l, FUZZ_BASE, 0, &c))
		return;
	for (uint32_t lasti = 0; lasti < 64; lasti += 7)
		py_code__frame_name(&c, py_code__line(&c, version, lasti), name, sizeof(name));
	py_frame_name_split(name, strlen(name), &(struct py_frame_parts){ 0 });
	py_code__free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem fm = { data, size };
	struct py_mem mem = { fuzz_read, &fm };
	struct py_layout l;
	uint64_t hexversion;

	for (uint32_t version = 0x030a; version <= 0x030c; version++) {
		if (py_layout__table(version, &l) == 0)
			read_code(&mem, &l, version);
		py_line(version, data, size, 1, size ? data[0] : -1);
	}
	if (py_layout__debug_offsets(data, size, &l, &hexversion) == 0)
		read_code(&mem, &l, 0x030d);
	py_frame_name_is_python((const char *)data, size);
	return 0;
}
