/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sanitize: make a name from outside (a symbol, a path, a comm, a perf-map
 * entry, a folded-file frame) safe for a terminal, for folded output and
 * for XML (the SVG): what it keeps is valid UTF-8 of characters XML 1.0
 * allows.
 *
 * Every such string passes through here once, where it enters flametop,
 * and the SVG writer passes what it writes through again.
 */
#ifndef FLAMETOP_SANITIZE_H
#define FLAMETOP_SANITIZE_H

#include <stddef.h>

/*
 * Longest name flametop keeps, in bytes, before the terminating NUL: C++
 * template instantiations reach tens of kilobytes, and two of them that
 * differ only past a cut would be one frame.
 */
#define NAME_MAX_BYTES 65536

/*
 * sanitize_name() copies at most @len bytes of @src (stopping early at a NUL)
 * into @dst (capacity @size, which must be >= 1) and always NUL-terminates.
 * C0 control bytes, ESC, DEL, C1 controls (U+0080..U+009F), Unicode
 * bidirectional controls (U+202A..U+202E, U+2066..U+2069), the
 * noncharacters U+FFFE and U+FFFF, and invalid or overlong UTF-8 sequences
 * are each replaced by '?'. Valid UTF-8 is kept.
 * When the result would not fit, it is cut at a character boundary and ends
 * with "..". Returns the length written (excluding the NUL).
 */
size_t sanitize_name(char *dst, size_t size, const char *src, size_t len);

/*
 * sanitize_name_unique() is sanitize_name() for a name that stands for
 * one thing (a function): when it does not fit, it is cut at a character
 * boundary and ends in "..#" and 16 hex digits of a hash of the whole of
 * @src, so that two names cut alike stay two names (in a @size under 64,
 * as sanitize_name()).
 */
size_t sanitize_name_unique(char *dst, size_t size, const char *src, size_t len);

#endif
