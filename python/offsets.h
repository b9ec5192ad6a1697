/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offsets: the structure offsets of a CPython interpreter, as the walk
 * needs them (struct py_layout): for 3.10 to 3.12 from flametop's tables,
 * one per minor version, taken from CPython's headers; for 3.13 from the
 * interpreter's own _Py_DebugOffsets at the start of its _PyRuntime, read
 * from the process. Either is checked against the running process before
 * it is used: a build whose structures do not look as the layout says is
 * never walked.
 */
#ifndef FLAMETOP_PY_OFFSETS_H
#define FLAMETOP_PY_OFFSETS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "python/py_layout.h"
#include "python/py_mem.h"

/* The first bytes of _PyRuntime in 3.13: _Py_DebugOffsets, as far as they are read. */
#define PY_DEBUG_OFFSETS_BYTES 640

/*
 * py_layout__table() fills @l with flametop's table for minor version
 * @version (major << 8 | minor). Returns 0, or -ENOTSUP for a version
 * without a table (3.13 and later describe themselves).
 */
int py_layout__table(uint32_t version, struct py_layout *l);

/*
 * py_layout__debug_offsets() fills @l from the @len bytes of a 3.13
 * _PyRuntime's head at @buf (its _Py_DebugOffsets): cookie "xdebugpy", a
 * 3.13 version, not free-threaded, every offset inside the size its struct
 * gives, every size within what the walk reads. Sets *@hexversion to the
 * version the interpreter states. Returns 0, or -EPROTO when any of it is
 * not so.
 */
int py_layout__debug_offsets(const uint8_t *buf, size_t len, struct py_layout *l,
			     uint64_t *hexversion);

/* Does thread @tid belong to the process? (py_layout__check()'s question) */
typedef bool py_has_thread_fn(void *ctx, uint64_t tid);

/*
 * py_layout__check() checks @p's layout against the process @mem reads:
 * its runtime's interpreter list head is a readable interpreter, whose
 * first thread state is readable, points back to it, and names a thread
 * of the process (@has_thread, with @ctx; 3.10: a thread pointer that is
 * not 0), and whose next interpreter is 0 or readable. Returns 0 when it
 * checks out, -EAGAIN when the interpreter is not running yet (no
 * interpreter or thread state: ask again later), -EPROTO when it does not
 * check out, or -errno from a read.
 */
int py_layout__check(const struct py_mem *mem, const struct py_proc *p,
		     py_has_thread_fn *has_thread, void *ctx);

#endif
