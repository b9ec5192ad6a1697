// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "profile/folded.h"
#include "profile/output.h"
#include "profile/pprof.h"
#include "profile/svg.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

enum output_format output__format_of(const char *path)
{
	static const char *const pprof[] = {".pb.gz", ".pb", ".pprof", ".prof"};

	if (ends_with(path, ".svg"))
		return OUTPUT_SVG;
	for (size_t i = 0; i < sizeof(pprof) / sizeof(pprof[0]); i++) {
		if (ends_with(path, pprof[i]))
			return OUTPUT_PPROF;
	}
	return OUTPUT_FOLDED;
}

const char *output__format_name(enum output_format f)
{
	return f == OUTPUT_SVG ? "SVG" : f == OUTPUT_PPROF ? "pprof" : "folded";
}

long output__write(FILE *out, enum output_format format, struct stack_trie *t,
		   const struct profile *p, const struct view_filter *f,
		   const struct output_info *info)
{
	struct svg_info svg = {info->title, info->subtitle, info->type, info->unit};
	struct pprof_info pprof = {info->type, info->unit, info->period_ns, info->time_ns,
				   info->duration_ns};

	switch (format) {
	case OUTPUT_SVG:
		return svg__write(out, t, p, &svg);
	case OUTPUT_PPROF:
		return pprof__write(out, p, f, &pprof);
	default:
		return folded__write(out, t, p, f->group);
	}
}
