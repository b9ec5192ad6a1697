/* SPDX-License-Identifier: GPL-2.0 */
/*
 * code_name: a code object read from the process, checked against the tag
 * the walk recorded with it, and named as py-spy names a frame:
 * "qualname (file:LINE)". Strings from the process are hostile: read to a
 * bound, converted to UTF-8, sanitized (control bytes replaced).
 */
#ifndef FLAMETOP_PY_CODE_NAME_H
#define FLAMETOP_PY_CODE_NAME_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "python/py_layout.h"
#include "python/py_mem.h"

#define PY_QUALNAME_MAX 256  /* bytes of a name kept (longer ones end in "..") */
#define PY_FILENAME_MAX 512  /* bytes of a file name kept */
#define PY_LINETABLE_MAX (64u << 10) /* a line table longer than this is not read: first lines */

/* A code object as read. */
struct py_code {
	uint32_t tag;                         /* as the walk computes it */
	int firstlineno;
	char qualname[PY_QUALNAME_MAX + 1];   /* sanitized */
	char filename[PY_FILENAME_MAX + 1];   /* sanitized */
	uint8_t *linetable;                   /* malloc()ed, NULL when it could not be read */
	size_t linetable_len;
};

/*
 * py_code__read() reads the code object at @addr of the process @mem
 * reads, laid out as @l says: its tag (py_layout.h) and, when @want_tag is
 * 0 or that tag, its names, first line and line table. Returns 0, -ESTALE
 * when the object there now has another tag (the one recorded was freed,
 * and maybe another made in its place), -EFAULT when it cannot be read,
 * -EPROTO when it is not a code object as @l describes one, or -ENOMEM.
 * py_code__free() releases what it holds.
 */
int py_code__read(const struct py_mem *mem, const struct py_layout *l, uint64_t addr,
		  uint32_t want_tag, struct py_code *out);

void py_code__free(struct py_code *c);

/*
 * py_code__line() is the line @c runs at instruction @lasti (PY_LASTI_NONE:
 * its first line) in version @version.
 */
int py_code__line(const struct py_code *c, uint32_t version, uint32_t lasti);

/* The longest name py_code__frame_name() writes, with its NUL. */
#define PY_FRAME_NAME_MAX (PY_QUALNAME_MAX + PY_FILENAME_MAX + 32)

/*
 * py_code__frame_name() writes "qualname (file:LINE)" into @buf (@size
 * bytes, PY_FRAME_NAME_MAX for the whole of it). Returns its length.
 */
size_t py_code__frame_name(const struct py_code *c, int line, char *buf, size_t size);

#endif
