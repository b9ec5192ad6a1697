// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/folded.h"
#include "profile/frame_cache.h"
#include "profile/process_name.h"
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

/* Sets the text to the path down to @node, @depth deep: its parent's text, ';', its frame. */
static int path_text__enter(struct path_text *pt, const struct stack_trie *t,
			    const struct profile *p, uint32_t node, uint32_t depth)
{
	const struct trie_node *n = &t->nodes[node];
	const char *name = profile__frame_name(p, n->frame);
	size_t start = depth > 1 ? pt->ends[depth - 1] : 0;
	char *semi;
	int err;

	pt->len = start;
	err = (depth > 1 ? path_text__append(pt, ";", 1) : 0) ?:
	      path_text__append(pt, name, strlen(name)) ?:
	      (profile__frame_info(p, n->frame)->kind == FRAME_KERNEL ? path_text__append(pt, "_[k]", 4)
								      : 0);
	if (err)
		return err;
	/* A ';' inside a name would split the frame in two. */
	while ((semi = memchr(pt->buf + start + 1, ';', pt->len - start - 1)))
		*semi = ':';
	pt->ends[depth] = pt->len;
	return 0;
}

/*
 * The next node of a pre-order walk after @node, or TRIE_NONE at the end;
 * *@depth follows it.
 */
static uint32_t preorder_next(const struct stack_trie *t, uint32_t node, uint32_t *depth)
{
	if (t->nodes[node].first_child != TRIE_NONE) {
		++*depth;
		return t->nodes[node].first_child;
	}
	while (node != TRIE_NONE && t->nodes[node].next_sibling == TRIE_NONE) {
		node = t->nodes[node].parent == TRIE_ROOT ? TRIE_NONE : t->nodes[node].parent;
		--*depth;
	}
	return node == TRIE_NONE ? TRIE_NONE : t->nodes[node].next_sibling;
}

long folded__write(FILE *out, const struct stack_trie *t, const struct profile *p)
{
	struct path_text pt = { .ends = calloc(t->max_depth + 1, sizeof(size_t)) };
	long lines = 0;
	int err = pt.ends ? 0 : -ENOMEM;
	uint32_t depth = 1;

	/* Pre-order: a node's line before its children's, siblings in order. */
	for (uint32_t node = t->n ? t->nodes[TRIE_ROOT].first_child : TRIE_NONE;
	     node != TRIE_NONE && !err; node = preorder_next(t, node, &depth)) {
		err = path_text__enter(&pt, t, p, node, depth);
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

/* Interns one frame of a folded line; PROFILE_NONE when out of memory. */
static uint32_t read_frame(struct profile *p, const char *s, size_t len, bool process)
{
	enum frame_kind kind = process ? FRAME_PROCESS : FRAME_USER;

	if (!process && ends_with(s, len, "_[k]")) {
		kind = FRAME_KERNEL;
		len -= 4;
	}
	return input__frame(p, s, len, kind);
}

/* The frame of a folded line's text, through the cache: class 1 for processes, 0 for the rest. */
static uint32_t cached_frame(struct frame_cache *fc, struct profile *p, const char *s, size_t len,
			     bool process)
{
	uint32_t *slot = frame_cache__slot(fc, process, s, len);

	if (!slot)
		return PROFILE_NONE;
	if (*slot == PROFILE_NONE)
		*slot = read_frame(p, s, len, process);
	return *slot;
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
static int read_stack(struct profile *p, struct frame_cache *fc, struct prev_stack *ps,
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
		id = cached_frame(fc, p, at, flen, n == 0);
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

/* What folded__read() keeps from line to line. */
struct folded_reader {
	struct profile *p;
	struct frame_cache fc;
	struct prev_stack ps;
	struct input_stats *st;
};

/* One line: blank, a stack, or malformed. Returns 0 or -ENOMEM. */
static int read_line(void *ctx, char *line, size_t len)
{
	struct folded_reader *fr = ctx;
	struct input_stats *st = fr->st;
	const char *why = NULL;
	uint64_t count;
	long stack_len;
	int r;

	if (strspn(line, " \t") == len)
		return 0;
	stack_len = split_count(line, len, &count);
	if (stack_len <= 0) {
		input__bad_line(st, stack_len ? "no count, or a count that is not a whole number"
				       : "no stack before the count");
		return 0;
	}
	r = read_stack(fr->p, &fr->fc, &fr->ps, line, (size_t)stack_len, count, &why);
	if (r > 0)
		input__bad_line(st, why);
	else if (r == 0)
		st->stacks++;
	return r < 0 ? r : 0;
}

int folded__read(struct line_reader *r, struct profile *p, struct input_stats *st)
{
	struct folded_reader fr = { .p = p, .st = st };
	int err = frame_cache__init(&fr.fc);

	if (!err)
		err = input__each_line(r, st, read_line, &fr);
	frame_cache__free(&fr.fc);
	prev_stack__free(&fr.ps);
	return err;
}
