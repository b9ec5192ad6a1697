/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_mem: how python/ reads a process's memory. Everything read through it
 * is hostile: a reader never trusts a pointer, a length or an offset it
 * read, and bounds every read it makes from them.
 */
#ifndef FLAMETOP_PY_MEM_H
#define FLAMETOP_PY_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A reader of one process's memory: read() copies @len bytes at @addr into
 * @buf, all of them or none, and returns 0 or -errno (-EFAULT: not mapped).
 */
struct py_mem {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
};

static inline int py_mem__read(const struct py_mem *m, uint64_t addr, void *buf, size_t len)
{
	return m->read(m->ctx, addr, buf, len);
}

/* A pointer-sized word at @addr into *@v: 0 or -errno. */
static inline int py_mem__word(const struct py_mem *m, uint64_t addr, uint64_t *v)
{
	return m->read(m->ctx, addr, v, sizeof(*v));
}

/* What a reader of a process's memory reads: see py_proc_mem__init(). */
struct py_proc_mem {
	uint32_t pid;
	const char *proc_root;
	bool host; /* proc_root is this machine's /proc: process_vm_readv() reads */
};

/*
 * py_proc_mem__init() makes @out a reader of process @pid's memory, as
 * "@proc_root/@pid/mem" (NULL: /proc) shows it; for this machine's /proc,
 * by process_vm_readv() first. @box holds what it reads, and must outlive
 * it. Reading another process's memory needs the right to trace it.
 */
void py_proc_mem__init(struct py_proc_mem *box, const char *proc_root, uint32_t pid,
		       struct py_mem *out);

#endif
