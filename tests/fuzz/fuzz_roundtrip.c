// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_roundtrip: the writers on whatever input__read() makes of any bytes.
 * Folded stacks read back as the same profile: written, read and written
 * again, the same text, the same total, not a line malformed. The SVG is
 * well-formed XML (libxml2 reads it). The pprof profile reads back, with
 * the same total where no count was cut to fit pprof's int64. Any
 * difference aborts, for libFuzzer to report (make fuzz).
 */
#include <errno.h>
#include <libxml/parser.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/input.h"
#include "profile/output.h"
#include "profile/pprof.h"

/* A check that must hold: else the input is reported, as a crash is. */
#define MUST(cond)                                                                                 \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_roundtrip: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static const struct view_filter all = {.window = WINDOW_CUMULATIVE, .group = GROUP_COMM};

/* The whole of @p in @format, as -i FILE --folded/--svg/--pprof writes it (to free()). */
static char *written(const struct profile *p, enum output_format format,
		     const struct input_stats *st, size_t *len)
{
	struct output_info info = {.title = "fuzz", .type = st->unit, .unit = st->count_unit};
	struct stack_trie t;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	long n = -1;

	MUST(out);
	stack_trie__init(&t);
	if (!stack_trie__build(&t, p, &all))
		n = output__write(out, format, &t, p, &all, &info);
	stack_trie__free(&t);
	MUST(fclose(out) == 0);
	if (n < 0) { /* out of memory only: no verdict */
		free(buf);
		return NULL;
	}
	return buf;
}

/* Reads @len bytes of @data into a new profile (NULL when out of memory), its read's result in
 * @ret. */
static struct profile *read_profile(const void *data, size_t len, struct input_stats *st, int *ret)
{
	struct profile *p = profile__new();
	FILE *in = len ? fmemopen((void *)data, len, "r") : NULL;

	*ret = -ENOMEM;
	if (p && in)
		*ret = input__read(in, p, st);
	if (in)
		fclose(in);
	return p;
}

static void silent(void *ctx, const char *msg, ...)
{
	(void)ctx, (void)msg;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	xmlInitParser();
	xmlSetGenericErrorFunc(NULL, silent);
	return 0;
}

/* Folded stacks, read back and written again: the same text and total. */
static void check_folded(const struct profile *p, const struct input_stats *st)
{
	size_t len, len2;
	char *text = written(p, OUTPUT_FOLDED, st, &len), *again;
	struct input_stats st2;
	struct profile *back;
	int ret;

	if (!text || !len) {
		free(text);
		return;
	}
	back = read_profile(text, len, &st2, &ret);
	if (ret != -ENOMEM) {
		MUST(ret == 0);
		MUST(st2.format == INPUT_FOLDED);
		MUST(st2.bad == 0);
		MUST(profile__total(back, WINDOW_CUMULATIVE) ==
		     profile__total(p, WINDOW_CUMULATIVE));
		again = written(back, OUTPUT_FOLDED, &st2, &len2);
		MUST(!again || (len2 == len && memcmp(again, text, len) == 0));
		free(again);
	}
	profile__free(back);
	free(text);
}

/* The SVG: well-formed XML. */
static void check_svg(const struct profile *p, const struct input_stats *st)
{
	size_t len;
	char *svg = written(p, OUTPUT_SVG, st, &len);
	xmlDocPtr doc;

	if (!svg)
		return;
	doc = xmlReadMemory(svg, (int)len, "fuzz.svg", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				XML_PARSE_HUGE);
	MUST(doc);
	xmlFreeDoc(doc);
	free(svg);
}

/* The pprof profile reads back; its total is the same unless a count was cut to int64. */
static void check_pprof(const struct profile *p, const struct input_stats *st)
{
	size_t len;
	char *pb = written(p, OUTPUT_PPROF, st, &len);
	struct input_stats st2 = {0};
	struct profile *back = profile__new();
	uint64_t total = profile__total(p, WINDOW_CUMULATIVE);
	int ret;

	if (pb && back) {
		ret = pprof__read(pb, len, back, &st2);
		MUST(ret == 0 || ret == -ENOMEM);
		MUST(ret || total > INT64_MAX || profile__saturated(p) ||
		     profile__total(back, WINDOW_CUMULATIVE) == total);
	}
	profile__free(back);
	free(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_stats st;
	int ret;
	struct profile *p = read_profile(data, size, &st, &ret);

	if (!ret && profile__nstacks(p) && !profile__group(p, GROUP_COMM)) {
		check_folded(p, &st);
		check_svg(p, &st);
		check_pprof(p, &st);
	}
	profile__free(p);
	return 0;
}
