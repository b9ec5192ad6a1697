// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/folded.h"
#include "profile/process_name.h"
#include "symbols/sanitize.h"
#include "profile/strtab.h"
#include "symbols/text_line.h"

/* The text of the current path, frame by frame, as folded__write() walks the trie. */
struct path_text {
	char *buf;
	size_t len, cap;
	size_t *ends; /* ends[d]: length of the text down to depth d */
};

static int path_text__append(struct path_text *pt, const char *s, size_t n)
{
	if (array__grow((void **)&pt->buf, &pt->cap, pt->len + n + 1, 1, 4096))
		return -ENOMEM;
	memcpy(pt->buf + pt->len, s, n);
	pt->len += n;
	return 0;
}

/* Sets the text to the path down to @node: its parent's text, ';', its frame. */
static int path_text__enter(struct path_text *pt, const struct stack_trie *t,
			    const struct profile *p, uint32_t node)
{
	const struct trie_node *n = &t->nodes[node];
	const char *name = profile__frame_name(p, n->frame);
	size_t start = n->depth > 1 ? pt->ends[n->depth - 1] : 0;
	char *semi;
	int err;

	pt->len = start;
	err = (n->depth > 1 ? path_text__append(pt, ";", 1) : 0) ?:
	      path_text__append(pt, name, strlen(name)) ?:
	      (profile__frame_info(p, n->frame)->kind == FRAME_KERNEL ? path_text__append(pt, "_[k]", 4)
								      : 0);
	if (err)
		return err;
	/* A ';' inside a name would split the frame in two. */
	while ((semi = memchr(pt->buf + start + 1, ';', pt->len - start - 1)))
		*semi = ':';
	pt->ends[n->depth] = pt->len;
	return 0;
}

/* The next node of a pre-order walk after @node, or TRIE_NONE at the end. */
static uint32_t preorder_next(const struct stack_trie *t, uint32_t node)
{
	if (t->nodes[node].first_child != TRIE_NONE)
		return t->nodes[node].first_child;
	while (node != TRIE_NONE && t->nodes[node].next_sibling == TRIE_NONE)
		node = t->nodes[node].parent == TRIE_ROOT ? TRIE_NONE : t->nodes[node].parent;
	return node == TRIE_NONE ? TRIE_NONE : t->nodes[node].next_sibling;
}

long folded__write(FILE *out, const struct stack_trie *t, const struct profile *p)
{
	struct path_text pt = { .ends = calloc(t->max_depth + 1, sizeof(size_t)) };
	long lines = 0;
	int err = pt.ends ? 0 : -ENOMEM;

	/* Pre-order: a node's line before its children's, siblings in order. */
	for (uint32_t node = t->n ? t->nodes[TRIE_ROOT].first_child : TRIE_NONE;
	     node != TRIE_NONE && !err; node = preorder_next(t, node)) {
		err = path_text__enter(&pt, t, p, node);
		uint64_t self = err ? 0 : stack_trie__self(t, node);

		if (!self)
			continue;
		fwrite(pt.buf, 1, pt.len, out);
		fprintf(out, " %" PRIu64 "\n", self);
		lines++;
	}
	free(pt.buf);
	free(pt.ends);
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return lines;
}

#define LINE_MAX_BYTES (1u << 20)

/* A malformed line: counted, and the first one remembered. */
static void bad_line(struct folded_read_stats *st, const char *why)
{
	if (!st->bad++) {
		st->first_bad_line = st->lines;
		st->first_bad_why = why;
	}
}

/* Any C0 control byte or DEL: binary garbage, not a stack. */
static bool has_control_bytes(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return true;
	}
	return false;
}

/* Splits "stack count" at the last blank; returns the stack length or -1. */
static long split_count(char *line, size_t len, uint64_t *count)
{
	size_t end = len, sp;
	const char *digits;

	while (end && (line[end - 1] == ' ' || line[end - 1] == '\t'))
		end--;
	sp = end;
	while (sp && line[sp - 1] != ' ' && line[sp - 1] != '\t')
		sp--;
	if (!sp)
		return -1;
	line[end] = '\0';
	digits = line + sp;
	if (text_line__parse_u64(&digits, 10, count) || *digits)
		return -1;
	while (sp && (line[sp - 1] == ' ' || line[sp - 1] == '\t'))
		sp--;
	return (long)sp;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Placeholders rather than function names: "[unknown]", "[vdso]", "lib.so+0x1f". */
static bool looks_unnamed(const char *s, size_t len)
{
	const char *plus = memmem(s, len, "+0x", 3);

	if (len && s[0] == '[')
		return true;
	if (!plus)
		return false;
	for (const char *p = plus + 3; p < s + len; p++) {
		if (!isxdigit((unsigned char)*p))
			return false;
	}
	return plus + 3 < s + len;
}

/* Interns one frame of a folded line; PROFILE_NONE when out of memory. */
static uint32_t read_frame(struct profile *p, const char *s, size_t len, bool process)
{
	enum frame_kind kind = process ? FRAME_PROCESS : FRAME_USER;
	char clean[NAME_MAX_BYTES + 1];
	size_t n;

	if (!process && ends_with(s, len, "_[k]")) {
		kind = FRAME_KERNEL;
		len -= 4;
	}
	n = sanitize_name(clean, sizeof(clean), s, len);
	return profile__frame(p, clean, n, kind, process || !looks_unnamed(clean, n));
}

/*
 * The frames already read, by their raw text: a file repeats the same few
 * thousand frames millions of times, so each distinct text is sanitized and
 * interned once. Process frames and the others are kept apart.
 */
struct raw_frames {
	struct strtab *text[2]; /* [process?] raw text -> raw id */
	uint32_t *frame[2];     /* raw id -> frame id */
	size_t cap[2];
};

static uint32_t raw_frames__get(struct raw_frames *rf, struct profile *p, const char *s,
				size_t len, bool process)
{
	uint32_t raw = strtab__intern(rf->text[process], s, len);

	if (raw == STRTAB_NONE)
		return PROFILE_NONE;
	if (raw >= rf->cap[process]) {
		size_t old_cap = rf->cap[process];
		uint32_t **f = &rf->frame[process];

		if (array__grow((void **)f, &rf->cap[process], (size_t)raw + 1, sizeof(**f), 4096))
			return PROFILE_NONE;
		/* PROFILE_NONE: not looked up yet. */
		memset(*f + old_cap, 0xff, (rf->cap[process] - old_cap) * sizeof(**f));
	}
	if (rf->frame[process][raw] == PROFILE_NONE)
		rf->frame[process][raw] = read_frame(p, s, len, process);
	return rf->frame[process][raw];
}

static void raw_frames__free(struct raw_frames *rf)
{
	for (int i = 0; i < 2; i++) {
		strtab__free(rf->text[i]);
		free(rf->frame[i]);
	}
}

/*
 * The previous stack of the file, kept so that the frames a line shares
 * with the line before (a sorted file shares most) are not looked up again.
 */
struct prev_stack {
	char *text;
	size_t len, cap;
	uint32_t *ids;  /* its frames */
	size_t *ends;   /* ends[j]: where frame j ends in text (a ';' or the end) */
	size_t n, ids_cap, ends_cap;
	int32_t tgid, tid;
};

static int prev_stack__reserve(struct prev_stack *ps, size_t text_len, size_t frames)
{
	if (text_len > ps->cap) {
		char *t = realloc(ps->text, text_len);

		if (!t)
			return -ENOMEM;
		ps->text = t;
		ps->cap = text_len;
	}
	if (array__grow((void **)&ps->ids, &ps->ids_cap, frames, sizeof(*ps->ids), 256) ||
	    array__grow((void **)&ps->ends, &ps->ends_cap, frames, sizeof(*ps->ends), 256))
		return -ENOMEM;
	return 0;
}

/* How many leading frames of @stack are those of the previous stack. */
static size_t prev_stack__shared(const struct prev_stack *ps, const char *stack, size_t len)
{
	size_t common = 0, k = 0, limit = len < ps->len ? len : ps->len;

	while (common < limit && stack[common] == ps->text[common])
		common++;
	while (k < ps->n && ps->ends[k] <= common) {
		size_t e = ps->ends[k];

		/* The frame ends at the same place in both: a ';' or the end of each. */
		if (e == common && !((e == len || stack[e] == ';') && (e == ps->len || ps->text[e] == ';')))
			break;
		k++;
	}
	return k;
}

static void prev_stack__free(struct prev_stack *ps)
{
	free(ps->text);
	free(ps->ids);
	free(ps->ends);
}

/*
 * Adds one line's stack to @p. Returns 0; 1 for a malformed stack, with
 * *@why saying why; or -ENOMEM.
 */
static int read_stack(struct profile *p, struct raw_frames *rf, struct prev_stack *ps,
		      const char *stack, size_t len, uint64_t count, const char **why)
{
	size_t n = prev_stack__shared(ps, stack, len);
	const char *at = stack + (n ? ps->ends[n - 1] + 1 : 0), *end = stack + len;
	struct sample s = { .tgid = n ? ps->tgid : TGID_UNKNOWN, .tid = n ? ps->tid : 0,
			    .count = count };

	if (prev_stack__reserve(ps, len, n + 1))
		return -ENOMEM;
	while (at <= end) {
		const char *semi = memchr(at, ';', (size_t)(end - at));
		size_t flen = (size_t)((semi ? semi : end) - at);
		uint32_t id;

		if (!flen) {
			*why = "an empty frame";
			ps->n = 0; /* the text kept no longer matches */
			return 1;
		}
		if (prev_stack__reserve(ps, len, n + 1))
			return -ENOMEM;
		id = raw_frames__get(rf, p, at, flen, n == 0);
		if (id == PROFILE_NONE)
			return -ENOMEM;
		if (n == 0) {
			struct process_name pn;

			process_name__parse(at, flen, &pn);
			s.tgid = pn.tgid;
			s.tid = pn.tid;
		}
		ps->ids[n] = id;
		ps->ends[n++] = (size_t)(at - stack) + flen;
		at += flen + 1;
	}
	memcpy(ps->text, stack, len);
	ps->len = len;
	ps->n = n;
	ps->tgid = s.tgid;
	ps->tid = s.tid;
	s.frames = ps->ids;
	s.n = (uint32_t)n;
	return count ? profile__add(p, &s) : 0;
}

/*
 * Lines of a stream, read in large blocks. A line is handed out in place,
 * NUL-terminated instead of its newline; one longer than LINE_MAX_BYTES is
 * skipped whole.
 */
struct line_reader {
	FILE *in;
	char *buf;
	size_t start, end; /* the unread bytes are buf[start, end) */
	bool eof;
};

#define READ_BLOCK (256u << 10)
#define READER_BYTES (LINE_MAX_BYTES + READ_BLOCK + 1)

/* Reads more input after moving what is left to the front; -EIO on error. */
static int line_reader__fill(struct line_reader *r)
{
	size_t got;

	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
	got = fread(r->buf + r->end, 1, READER_BYTES - 1 - r->end, r->in);
	r->end += got;
	if (got == 0) {
		if (ferror(r->in))
			return -EIO;
		r->eof = true;
	}
	return 0;
}

/*
 * The next line: returns 1 with *@line and *@len set, 0 at the end, -ENOBUFS
 * for a line over LINE_MAX_BYTES (skipped), or -EIO.
 */
static int line_reader__next(struct line_reader *r, char **line, size_t *len)
{
	bool too_long = false;

	for (;;) {
		char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		size_t have = (nl ? (size_t)(nl - r->buf) : r->end) - r->start;

		if (nl || (r->eof && have)) {
			*line = r->buf + r->start;
			*len = have;
			(*line)[have] = '\0';
			r->start += have + (nl != NULL);
			if (!too_long && have <= LINE_MAX_BYTES)
				return 1;
			return -ENOBUFS;
		}
		if (r->eof)
			return too_long ? -ENOBUFS : 0;
		if (have > LINE_MAX_BYTES) { /* keep only the line's tail: it is skipped anyway */
			too_long = true;
			r->start = r->end;
		}
		if (line_reader__fill(r))
			return -EIO;
	}
}

/* One line: blank, a stack, or malformed. Returns 0 or -ENOMEM. */
static int read_line(struct profile *p, struct raw_frames *rf, struct prev_stack *ps, char *line,
		     size_t len, struct folded_read_stats *st)
{
	const char *why = NULL;
	uint64_t count;
	long stack_len;
	int r;

	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (has_control_bytes(line, len)) {
		bad_line(st, "control or NUL bytes");
		return 0;
	}
	if (strspn(line, " \t") == len)
		return 0;
	stack_len = split_count(line, len, &count);
	if (stack_len <= 0) {
		bad_line(st, stack_len ? "no count, or a count that is not a whole number"
				       : "no stack before the count");
		return 0;
	}
	r = read_stack(p, rf, ps, line, (size_t)stack_len, count, &why);
	if (r > 0)
		bad_line(st, why);
	else if (r == 0)
		st->stacks++;
	return r < 0 ? r : 0;
}

int folded__read(FILE *in, struct profile *p, struct folded_read_stats *st)
{
	struct line_reader r = { .in = in, .buf = malloc(READER_BYTES) };
	struct raw_frames rf = { .text = { strtab__new(), strtab__new() } };
	struct prev_stack ps = { .n = 0 };
	int err = 0, got;
	size_t len;
	char *line;

	memset(st, 0, sizeof(*st));
	if (!r.buf || !rf.text[0] || !rf.text[1])
		err = -ENOMEM;
	while (!err && (got = line_reader__next(&r, &line, &len)) != 0) {
		st->lines++;
		if (got == -EIO)
			err = -EIO;
		else if (got == -ENOBUFS)
			bad_line(st, "a line over 1 MiB");
		else
			err = read_line(p, &rf, &ps, line, len, st);
	}
	raw_frames__free(&rf);
	prev_stack__free(&ps);
	free(r.buf);
	return err ? err : profile__sort(p);
}
