// SPDX-License-Identifier: GPL-2.0
/*
 * demangle: libiberty's cplus_demangle() in automatic mode tries Rust first
 * (legacy Rust names are valid C++ names too), then the GNU v3 C++ ABI. It
 * is only asked about names that start the way mangled names do, so that
 * the common C name costs one comparison.
 */
#include "symbols/demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/sanitize.h"

/* Parameter types and qualifiers shown; DMGL_NO_RECURSE_LIMIT deliberately absent. */
#define DEMANGLE_FLAGS (DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)

/* Mangled names are longer than this only when something is wrong. */
#define MANGLED_MAX_BYTES 4096

/* "_Z" (C++ and legacy Rust) or "_R" (Rust v0). */
static bool looks_mangled(const char *raw)
{
	return raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R');
}

size_t demangle_name(char *dst, size_t size, const char *raw, bool keep_raw)
{
	size_t len = strlen(raw), n;
	/* A mangled name holds no '@': what follows one is a version or "@plt". */
	const char *suffix = strchr(raw, '@') ?: raw + len;
	char *symbol, *pretty, *joined = NULL;

	if (keep_raw || !looks_mangled(raw) || len > MANGLED_MAX_BYTES)
		return sanitize_name_unique(dst, size, raw, len);
	symbol = strndup(raw, (size_t)(suffix - raw));
	pretty = symbol ? cplus_demangle(symbol, DEMANGLE_FLAGS) : NULL;
	if (pretty && asprintf(&joined, "%s%s", pretty, suffix) < 0)
		joined = NULL;
	n = joined ? sanitize_name_unique(dst, size, joined, strlen(joined))
		   : sanitize_name_unique(dst, size, raw, len);
	free(joined);
	free(pretty);
	free(symbol);
	return n;
}
