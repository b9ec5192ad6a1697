/* SPDX-License-Identifier: GPL-2.0 */
/*
 * addr_module: where an address of code means something, as plain data: a
 * mapped file (the address a file offset, the same in every process that
 * maps the file), one process's own memory (JIT code, the vDSO: its own
 * addresses), or the kernel. The profile keeps its sites' modules in these
 * terms (addr_counts.h); annotate.h reads the code they name.
 */
#ifndef FLAMETOP_ADDR_MODULE_H
#define FLAMETOP_ADDR_MODULE_H

#include <stdint.h>

#define ADDR_FOLDED UINT64_MAX /* not an address: where a function's sites folded away are */

enum addr_space {
	SPACE_FILE,   /* a mapped file: addresses are file offsets */
	SPACE_MEMORY, /* one process's memory (JIT code, the vDSO): its own addresses */
	SPACE_KERNEL, /* the kernel: its addresses */
};

struct addr_module {
	uint8_t space;		    /* enum addr_space */
	int32_t tgid;		    /* FILE: the last process seen mapping it; MEMORY: its own */
	uint64_t dev, inode;	    /* FILE: the file's identity (as /proc/PID/maps says) */
	uint64_t start, end, pgoff; /* FILE, MEMORY: the mapping, as @tgid maps it */
	const char *path;	    /* FILE: the path @tgid maps it at; MEMORY: the mapping's
				     * name ("[vdso]", "" for anonymous memory); sanitized */
};

#endif
