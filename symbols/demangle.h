/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle: the name a user reads for a symbol: C++ (Itanium ABI) and Rust
 * (legacy and v0) names demangled with libiberty, everything else as is.
 */
#ifndef FLAMETOP_DEMANGLE_H
#define FLAMETOP_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * demangle_name() writes the display form of symbol @raw into @dst
 * (capacity @size >= 1): its demangled form, with parameter types, when
 * @raw is a mangled C++ or Rust name the demangler accepts (it keeps its
 * recursion limit, so a hostile name fails instead of exhausting the stack),
 * else @raw itself. A suffix after '@' (a version, or "@plt") is kept after
 * the demangled name. When @keep_raw is true nothing is demangled. The result
 * is sanitized and capped like sanitize_name_unique(): two names cut alike
 * stay two names. Returns the length written.
 */
size_t demangle_name(char *dst, size_t size, const char *raw, bool keep_raw);

#endif
