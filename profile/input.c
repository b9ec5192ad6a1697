// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/bpftrace.h"
#include "profile/folded.h"
#include "profile/input.h"
#include "profile/line_reader.h"
#include "profile/perf_script.h"
#include "profile/pprof.h"

#define PPROF_MAX_BYTES (1ul << 30)

const char *input__format_name(enum input_format f)
{
	switch (f) {
	case INPUT_PERF_SCRIPT:
		return "perf script";
	case INPUT_PPROF:
		return "pprof";
	case INPUT_BPFTRACE:
		return "bpftrace";
	default:
		return "folded";
	}
}

/* A gzip stream, or a bare profile.proto: its first field is a sample type (field 1, bytes). */
static bool looks_like_pprof(const char *data, size_t len)
{
	const unsigned char *u = (const unsigned char *)data;

	if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b)
		return true;
	if (len < 2 || u[0] != 0x0a)
		return false;
	for (size_t i = 1; i < len && i < 256; i++) {
		if ((u[i] < 0x20 && u[i] != '\t' && u[i] != '\n' && u[i] != '\r') || u[i] == 0x7f)
			return true;
	}
	return false;
}

/* Is @line, @len bytes, a frame line of `perf script`: blanks, a hex address, a blank? */
static bool perf_frame_line(const char *line, size_t len)
{
	size_t i = 0, digits;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == 0)
		return false;
	for (digits = 0; i < len && isxdigit((unsigned char)line[i]); i++)
		digits++;
	return digits && i < len && line[i] == ' ';
}

/*
 * `perf script` text: in the first block, the first line that is not blank
 * nor a '#' comment starts a sample, and the line after it is a frame.
 */
static bool looks_like_perf_script(const char *data, size_t len)
{
	const char *end = data + len, *line = data;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = (size_t)((nl ? nl : end) - line);

		if (n && line[0] != '#' && strspn(line, " \t\r") < n) {
			const char *next = nl ? nl + 1 : end;
			const char *next_nl = memchr(next, '\n', (size_t)(end - next));

			return !isspace((unsigned char)line[0]) &&
			       perf_frame_line(next, (size_t)((next_nl ? next_nl : end) - next));
		}
		line = nl ? nl + 1 : end;
	}
	return false;
}

static int read_pprof(struct line_reader *r, struct profile *p, struct input_stats *st)
{
	char *data;
	size_t len;
	int err = line_reader__rest(r, PPROF_MAX_BYTES, &data, &len);

	if (err)
		return err;
	err = pprof__read(data, len, p, st);
	free(data);
	return err;
}

int input__read(FILE *in, struct profile *p, struct input_stats *st)
{
	struct line_reader r;
	const char *head;
	size_t len;
	int err;

	memset(st, 0, sizeof(*st));
	snprintf(st->unit, sizeof(st->unit), "samples");
	snprintf(st->count_unit, sizeof(st->count_unit), "count");
	err = line_reader__init(&r, in) ?: line_reader__peek(&r, &head, &len);
	if (!err && looks_like_pprof(head, len)) {
		st->format = INPUT_PPROF;
		err = read_pprof(&r, p, st);
	} else if (!err && bpftrace__looks_like(head, len)) {
		st->format = INPUT_BPFTRACE;
		err = bpftrace__read(&r, p, st);
	} else if (!err && looks_like_perf_script(head, len)) {
		st->format = INPUT_PERF_SCRIPT;
		err = perf_script__read(&r, p, st);
	} else if (!err) {
		st->format = INPUT_FOLDED;
		err = folded__read(&r, p, st);
	}
	line_reader__free(&r);
	return err;
}
