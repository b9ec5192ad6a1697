// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "profile/frame_cache.h"
#include "profile/perf_script.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

/* The sample being read: its process and its frames, leaf first; and what reads it. */
struct perf_sample {
	struct profile *p;
	struct frame_cache fc;
	struct input_stats *st;
	bool open;
	int32_t tgid, tid;
	uint32_t *frames; /* frames[0] is the process; then leaf first */
	size_t n, cap;
	uint32_t *stack; /* the stack in profile order, made when the sample ends */
	size_t stack_cap;
};

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The header's "PID" or "PID/TID" after the comm: a run of digits between
 * blanks. Returns where the comm ends (its length), 0 when there is none,
 * with the pid in *@tgid and the tid in *@tid (0 when not given).
 */
static size_t header_pid(const char *line, int32_t *tgid, int32_t *tid)
{
	for (const char *s = line + 1; *s; s++) {
		const char *d, *end;
		uint64_t pid, thread = 0;

		if (!(*s == ' ' || *s == '\t') || s[-1] == ' ' || s[-1] == '\t')
			continue;
		d = skip_blanks(s);
		end = d;
		if (text_line__parse_u64(&end, 10, &pid) || pid > INT32_MAX)
			continue;
		if (*end == '/') { /* PID/TID */
			end++;
			if (text_line__parse_u64(&end, 10, &thread) || thread > INT32_MAX)
				continue;
		}
		if (*end && *end != ' ' && *end != '\t')
			continue;
		*tgid = (int32_t)pid;
		*tid = (int32_t)thread;
		return (size_t)(s - line);
	}
	return 0;
}

/* A sample's header line; returns 0, 1 when malformed, or -ENOMEM. */
static int read_header(struct perf_sample *ps, struct frame_cache *fc, struct profile *p,
		       const char *line)
{
	size_t comm_len = header_pid(line, &ps->tgid, &ps->tid);

	if (!comm_len)
		return 1;
	ps->frames[0] = reader__cached_frame(fc, p, line, comm_len, FRAME_PROCESS);
	if (ps->frames[0] == PROFILE_NONE)
		return -ENOMEM;
	ps->n = 1;
	ps->open = true;
	return 0;
}

/* A frame line of the open sample; returns 0, 1 when malformed, or -ENOMEM. */
static int read_frame_line(struct perf_sample *ps, struct frame_cache *fc, struct profile *p,
			   const char *line, size_t len)
{
	char name[NAME_MAX_BYTES + 1];
	struct printed_frame f;
	enum frame_kind kind;
	uint32_t id;
	size_t n;

	if (!ps->open || reader__frame_line(line, len, true, &f))
		return 1;
	kind = f.addr >> 63 ? FRAME_KERNEL : FRAME_USER;
	n = reader__frame_name(name, sizeof(name), &f, kind == FRAME_KERNEL);
	id = reader__cached_frame(fc, p, name, n, kind);
	if (id == PROFILE_NONE ||
	    array__grow((void **)&ps->frames, &ps->cap, ps->n + 1, sizeof(*ps->frames), 256))
		return -ENOMEM;
	ps->frames[ps->n++] = id;
	return 0;
}

/* Ends the open sample: its stack, outermost first, enters the profile. */
static int end_sample(struct perf_sample *ps, struct profile *p, struct input_stats *st)
{
	struct sample s = {.tgid = ps->tgid, .tid = ps->tid, .count = 1};
	int err;

	if (!ps->open)
		return 0;
	ps->open = false;
	if (array__grow((void **)&ps->stack, &ps->stack_cap, ps->n, sizeof(*ps->stack), 256))
		return -ENOMEM;
	ps->stack[0] = ps->frames[0];
	for (size_t i = 1; i < ps->n; i++)
		ps->stack[i] = ps->frames[ps->n - i];
	s.frames = ps->stack;
	s.n = (uint32_t)ps->n;
	err = profile__add(p, &s);
	if (!err)
		st->stacks++;
	return err;
}

/* One line: a blank line or a comment, a header, or a frame. Returns 0 or -ENOMEM. */
static int read_line(void *ctx, char *line, size_t len)
{
	struct perf_sample *ps = ctx;
	struct frame_cache *fc = &ps->fc;
	struct profile *p = ps->p;
	struct input_stats *st = ps->st;
	int r;

	if (strspn(line, " \t") == len)
		return end_sample(ps, p, st);
	if (line[0] == '#')
		return 0;
	if (line[0] == ' ' || line[0] == '\t') {
		r = read_frame_line(ps, fc, p, line, len);
		if (r > 0)
			reader__bad_line(st, ps->open ? "a frame line without an address"
						     : "a frame line outside a sample");
		return r < 0 ? r : 0;
	}
	r = end_sample(ps, p, st);
	if (!r && (r = read_header(ps, fc, p, line)) > 0)
		reader__bad_line(st, "a sample header without a process id");
	return r < 0 ? r : 0;
}

int perf_script__read(struct line_reader *r, struct profile *p, struct input_stats *st)
{
	struct perf_sample ps = {.p = p, .st = st};
	int err = frame_cache__init(&ps.fc);

	if (!err && array__grow((void **)&ps.frames, &ps.cap, 1, sizeof(*ps.frames), 256))
		err = -ENOMEM;
	if (!err)
		err = reader__each_line(r, st, read_line, &ps);
	if (!err)
		err = end_sample(&ps, p, st);
	frame_cache__free(&ps.fc);
	free(ps.frames);
	free(ps.stack);
	return err;
}
