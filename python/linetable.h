/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linetable: the source line a code object is at, from its co_linetable
 * and the instruction's offset. Two formats: 3.10's (PEP 626: pairs of a
 * byte-offset delta and a signed line delta) and 3.11's location table
 * (Objects/locations.md: entries of 1 to 8 code units, each with a line
 * delta, varint-coded). The table is hostile: every read stays inside it.
 */
#ifndef FLAMETOP_PY_LINETABLE_H
#define FLAMETOP_PY_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * py_line() returns the line of the instruction @lasti code units (2
 * bytes each) into a code object whose first line is @firstlineno and
 * whose line table is the @len bytes at @table, in the format of minor
 * version @version (major << 8 | minor: 0x030a reads 3.10's, later ones
 * the location table). An instruction the table gives no line, one past
 * its end, or a @lasti of -1 (a frame not started yet) gets @firstlineno.
 */
int py_line(uint32_t version, const uint8_t *table, size_t len, int firstlineno, int64_t lasti);

#endif
