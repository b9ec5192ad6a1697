// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/folded.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

static void write_frame(FILE *out, const struct profile *p, uint32_t frame)
{
	const char *name = profile__frame_name(p, frame);

	for (const char *s = name; *s; s++)
		putc(*s == ';' ? ':' : *s, out);
	if (profile__frame_info(p, frame)->kind == FRAME_KERNEL)
		fputs("_[k]", out);
}

/* Writes the path from the root's child down to @node; @path holds max_depth. */
static void write_path(FILE *out, const struct stack_trie *t, const struct profile *p,
		       uint32_t node, uint32_t *path)
{
	size_t n = 0;

	for (; node != TRIE_ROOT; node = t->nodes[node].parent)
		path[n++] = node;
	while (n--) {
		write_frame(out, p, t->nodes[path[n]].frame);
		if (n)
			putc(';', out);
	}
}

long folded__write(FILE *out, const struct stack_trie *t, const struct profile *p)
{
	uint32_t *path = malloc((t->max_depth + 1) * sizeof(*path));
	long lines = 0;

	if (!path)
		return -ENOMEM;
	/* Pre-order: a node's lines before its children's, siblings in order. */
	for (uint32_t node = t->n ? t->nodes[TRIE_ROOT].first_child : TRIE_NONE;
	     node != TRIE_NONE;) {
		const struct trie_node *n = &t->nodes[node];

		if (n->self) {
			write_path(out, t, p, node, path);
			fprintf(out, " %" PRIu64 "\n", n->self);
			lines++;
		}
		if (n->first_child != TRIE_NONE) {
			node = n->first_child;
			continue;
		}
		while (node != TRIE_NONE && t->nodes[node].next_sibling == TRIE_NONE)
			node = t->nodes[node].parent == TRIE_ROOT ? TRIE_NONE
								  : t->nodes[node].parent;
		if (node != TRIE_NONE)
			node = t->nodes[node].next_sibling;
	}
	free(path);
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

/* "comm-PID" or "comm-PID/TID", as stackcollapse-perf.pl --pid/--tid write. */
static int32_t pid_suffix(const char *name, size_t len)
{
	size_t i = len, digits_end;
	uint64_t pid;
	const char *p;

	while (i && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i && i < len && name[i - 1] == '/') { /* a TID: the PID is before it */
		len = --i;
		while (i && name[i - 1] >= '0' && name[i - 1] <= '9')
			i--;
	}
	digits_end = len;
	if (i < 2 || i == digits_end || name[i - 1] != '-' || digits_end - i > 9)
		return TGID_UNKNOWN;
	p = name + i;
	if (text_line__parse_u64(&p, 10, &pid) || p != name + digits_end || pid > INT32_MAX)
		return TGID_UNKNOWN;
	return (int32_t)pid;
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

struct frame_buf {
	uint32_t *ids;
	size_t cap;
};

/*
 * Adds one line's stack to @p. Returns 0; 1 for a malformed stack, with
 * *@why saying why; or -ENOMEM.
 */
static int read_stack(struct profile *p, char *stack, size_t len, uint64_t count,
		      struct frame_buf *fb, const char **why)
{
	struct sample s = { .tgid = TGID_UNKNOWN, .count = count };
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		uint32_t id;

		if (i < len && stack[i] != ';')
			continue;
		if (i == start) {
			*why = "an empty frame";
			return 1;
		}
		if (s.n == fb->cap) {
			size_t cap = fb->cap ? fb->cap * 2 : 256;
			uint32_t *ids = realloc(fb->ids, cap * sizeof(*ids));

			if (!ids)
				return -ENOMEM;
			fb->ids = ids;
			fb->cap = cap;
		}
		id = read_frame(p, stack + start, i - start, s.n == 0);
		if (id == PROFILE_NONE)
			return -ENOMEM;
		if (s.n == 0)
			s.tgid = pid_suffix(stack + start, i - start);
		fb->ids[s.n++] = id;
		start = i + 1;
	}
	s.frames = fb->ids;
	return count ? profile__add(p, &s) : 0;
}

int folded__read(FILE *in, struct profile *p, struct folded_read_stats *st)
{
	char *line = malloc(LINE_MAX_BYTES + 1);
	struct frame_buf fb = { NULL, 0 };
	int err = 0, r;
	size_t len;

	memset(st, 0, sizeof(*st));
	if (!line)
		return -ENOMEM;
	while (!err && (r = text_line__read(in, line, LINE_MAX_BYTES + 1, &len)) != 0) {
		const char *why = NULL;
		uint64_t count;
		long stack_len;

		st->lines++;
		if (r == -EIO) {
			err = -EIO;
			break;
		}
		if (r == -ENOBUFS) {
			bad_line(st, "a line over 1 MiB");
			continue;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (r == -EINVAL || has_control_bytes(line, len)) {
			bad_line(st, "control or NUL bytes");
			continue;
		}
		if (strspn(line, " \t") == len)
			continue;
		stack_len = split_count(line, len, &count);
		if (stack_len <= 0) {
			bad_line(st, stack_len ? "no count, or a count that is not a whole number"
					       : "no stack before the count");
			continue;
		}
		r = read_stack(p, line, (size_t)stack_len, count, &fb, &why);
		if (r < 0)
			err = r;
		else if (r > 0)
			bad_line(st, why);
		else
			st->stacks++;
	}
	free(fb.ids);
	free(line);
	return err;
}
