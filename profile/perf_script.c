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

enum frame_class { CLASS_PROCESS, CLASS_USER, CLASS_KERNEL };

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
	uint32_t *slot;

	if (!comm_len)
		return 1;
	slot = frame_cache__slot(fc, CLASS_PROCESS, line, comm_len);
	if (!slot)
		return -ENOMEM;
	if (*slot == PROFILE_NONE)
		*slot = reader__frame(p, line, comm_len, FRAME_PROCESS);
	if (*slot == PROFILE_NONE)
		return -ENOMEM;
	ps->frames[0] = *slot;
	ps->n = 1;
	ps->open = true;
	return 0;
}

/* The last path component of @dso, @len bytes. */
static const char *base_name(const char *dso, size_t *len)
{
	const char *slash = memrchr(dso, '/', *len);

	if (!slash)
		return dso;
	*len -= (size_t)(slash + 1 - dso);
	return slash + 1;
}

/*
 * The name of a frame: its symbol without the offset; for a kernel module
 * "symbol [module]"; for a symbol perf could not name, "[DSO file name]".
 * Written into @buf (capacity @size); returns its length.
 */
static size_t frame_name(char *buf, size_t size, const char *sym, size_t sym_len, const char *dso,
			 size_t dso_len, bool kernel)
{
	const char *plus = NULL;
	size_t base_len = dso_len;
	const char *base = base_name(dso, &base_len);
	int n;

	for (const char *s = sym; s + 3 <= sym + sym_len; s++) {
		if (s[0] == '+' && s[1] == '0' && s[2] == 'x')
			plus = s;
	}
	if (plus &&
	    strspn(plus + 3, "0123456789abcdefABCDEF") == (size_t)(sym + sym_len - plus - 3))
		sym_len = (size_t)(plus - sym);
	if (sym_len == 9 && memcmp(sym, "[unknown]", 9) == 0 && dso_len &&
	    !(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0))
		n = base[0] == '[' ? snprintf(buf, size, "%.*s", (int)base_len, base)
				   : snprintf(buf, size, "[%.*s]", (int)base_len, base);
	else if (kernel && dso_len > 2 && dso[0] == '[' && strncmp(dso, "[kernel.", 8) != 0 &&
		 strncmp(dso, "[guest.kernel.", 14) != 0)
		n = snprintf(buf, size, "%.*s %.*s", (int)sym_len, sym, (int)dso_len, dso);
	else
		n = snprintf(buf, size, "%.*s", (int)sym_len, sym);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* A frame line of the open sample; returns 0, 1 when malformed, or -ENOMEM. */
static int read_frame_line(struct perf_sample *ps, struct frame_cache *fc, struct profile *p,
			   const char *line, size_t len)
{
	const char *s = skip_blanks(line), *sym, *end = line + len, *dso = end;
	char name[NAME_MAX_BYTES + 1];
	uint64_t addr;
	size_t dso_len = 0, n;
	bool kernel;
	uint32_t *slot;

	if (!ps->open || text_line__parse_u64(&s, 16, &addr) || (*s != ' ' && *s != '\t'))
		return 1;
	sym = skip_blanks(s);
	while (end > sym && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end > sym && end[-1] == ')') { /* "(DSO)" at the end; a symbol may hold parentheses */
		const char *open = end - 1;

		while (open > sym && !(open[0] == '(' && (open[-1] == ' ' || open[-1] == '\t')))
			open--;
		if (open > sym) {
			dso = open + 1;
			dso_len = (size_t)(end - 1 - dso);
			end = open;
			while (end > sym && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
		}
	}
	if (end == sym)
		return 1;
	kernel = addr >> 63;
	n = frame_name(name, sizeof(name), sym, (size_t)(end - sym), dso, dso_len, kernel);
	slot = frame_cache__slot(fc, kernel ? CLASS_KERNEL : CLASS_USER, name, n);
	if (!slot)
		return -ENOMEM;
	if (*slot == PROFILE_NONE)
		*slot = reader__frame(p, name, n, kernel ? FRAME_KERNEL : FRAME_USER);
	if (*slot == PROFILE_NONE ||
	    array__grow((void **)&ps->frames, &ps->cap, ps->n + 1, sizeof(*ps->frames), 256))
		return -ENOMEM;
	ps->frames[ps->n++] = *slot;
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
