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
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

/*
 * How each frame is written after another, made once per frame: ';', its
 * name as escape_name() writes it, and "_[k]" after a kernel frame's.
 */
struct frame_texts {
	const struct profile *p;
	bool comms;        /* process frames are commands, not "comm [PID]" (GROUP_COMM) */
	bool process_made; /* the first process frame's text is made */
	char *buf;         /* the texts, back to back */
	size_t len, cap;
	size_t *at; /* per frame id: 1 + where its text starts in buf, 0 until made */
	size_t *size;
};

#define ESCAPE_BYTES 4 /* "\x3b" */

/*
 * Could a line that starts with process @name (@n bytes) be taken for
 * another format's (input.c tells them by their first lines)? bpftrace's
 * ("@map[...", "Attaching 1 probe..."), a frame line of perf script's (a
 * blank first).
 */
static bool like_another_format(const char *name, size_t n)
{
	return n && (name[0] == '@' || name[0] == ' ' ||
		     (n >= 10 && memcmp(name, "Attaching ", 10) == 0));
}

/*
 * Is byte @i of @name (@n bytes, a frame of @kind) written escaped? Byte
 * @also is, too (SIZE_MAX: none).
 */
static bool escaped(const char *name, size_t n, size_t i, enum frame_kind kind, size_t also)
{
	bool last = i + 1 == n;

	return i == also || name[i] == '\\' || name[i] == ';' || (last && name[i] == ' ') ||
	       (last && name[i] == ']' && kind != FRAME_KERNEL && n >= 4 &&
		memcmp(name + n - 4, "_[k]", 4) == 0) ||
	       (i == 0 && kind == FRAME_PROCESS && like_another_format(name, n));
}

/*
 * The byte of command @name (@n bytes) that keeps it from being read as a
 * command with ids, written escaped: the ']' of "comm [PID]" (read so in
 * any file); the '-' of "comm-PID" when it is the first process written
 * (@first: a file whose first processes all carry ids so is read so: see
 * folded__read()). SIZE_MAX when none need be.
 */
static size_t command_escape(const char *name, size_t n, bool first)
{
	struct process_name pn;

	process_name__parse(name, n, &pn);
	if (pn.tgid == TGID_UNKNOWN)
		return SIZE_MAX;
	if (name[pn.comm_len] != '-')
		return n - 1;
	return first ? pn.comm_len : SIZE_MAX;
}

/*
 * Writes @name (@n bytes) to @to (room for ESCAPE_BYTES * @n, 4 at least)
 * so that it reads back as the same name: a '\' or ';' (which would split
 * the frame) as "\x5c" and "\x3b"; a last ' ' (read as the blank before
 * the count) as "\x20"; the ']' ending a name "..._[k]" not of the kernel
 * (read as a kernel frame) as "\x5d"; the first byte of a process that
 * could start another format's line (see like_another_format()) and byte
 * @also (see command_escape()) as "\xHH"; an empty name (an empty frame is
 * malformed) as "\x00". Returns the length written.
 */
static size_t escape_name(char *to, const char *name, size_t n, enum frame_kind kind,
			  size_t also)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0;

	if (!n) {
		memcpy(to, "\\x00", ESCAPE_BYTES);
		return ESCAPE_BYTES;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!escaped(name, n, i, kind, also)) {
			to[len++] = (char)c;
			continue;
		}
		to[len++] = '\\';
		to[len++] = 'x';
		to[len++] = hex[c >> 4];
		to[len++] = hex[c & 15];
	}
	return len;
}

/* The text of @frame (*@len bytes), made on first use; NULL when out of memory. */
static const char *frame_text(struct frame_texts *ft, uint32_t frame, size_t *len)
{
	if (!ft->at[frame]) {
		const char *name = profile__frame_name(ft->p, frame);
		enum frame_kind kind = profile__frame_info(ft->p, frame)->kind;
		size_t n = strlen(name), most = 1 + ESCAPE_BYTES * (n ? n : 1) + 4, size;
		size_t also = kind == FRAME_PROCESS && ft->comms
				  ? command_escape(name, n, !ft->process_made)
				  : SIZE_MAX;
		bool kernel = kind == FRAME_KERNEL;
		char *text;

		if (array__grow((void **)&ft->buf, &ft->cap, ft->len + most, 1, 4096))
			return NULL;
		ft->process_made |= kind == FRAME_PROCESS;
		text = ft->buf + ft->len;
		text[0] = ';';
		size = 1 + escape_name(text + 1, name, n, kind, also);
		memcpy(text + size, "_[k]", kernel ? 4 : 0);
		size += kernel ? 4 : 0;
		ft->at[frame] = ft->len + 1;
		ft->size[frame] = size;
		ft->len += size;
	}
	*len = ft->size[frame];
	return ft->buf + ft->at[frame] - 1;
}

/* The text of the current path, frame by frame, then " count\n" while it is written. */
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

/* What folded__write() keeps while it walks. */
struct folded_out {
	FILE *out;
	struct frame_texts ft;
	struct path_text pt;
	long lines;
	int err;
};

/* Writes the path's text and " @count\n" (the path stays as it was). */
static int put_line(struct folded_out *fo, uint64_t count)
{
	char digits[24], *d = digits + sizeof(digits);
	size_t len = fo->pt.len;
	int err;

	*--d = '\n';
	do
		*--d = (char)('0' + count % 10);
	while (count /= 10);
	*--d = ' ';
	err = path_text__append(&fo->pt, d, (size_t)(digits + sizeof(digits) - d));
	if (!err)
		fwrite(fo->pt.buf, 1, fo->pt.len, fo->out);
	fo->pt.len = len;
	return err;
}

/*
 * Sets the path's text to @node's: its parent's, ';', its frame's; writes
 * its line when stacks end there. The walk goes on below it unless an
 * error came.
 */
static bool write_node(void *ctx, const struct stack_trie *t, uint32_t node)
{
	struct folded_out *fo = ctx;
	const struct trie_node *n = &t->nodes[node];
	const char *text;
	size_t len;

	if (node == TRIE_ROOT || fo->err)
		return !fo->err;
	text = frame_text(&fo->ft, n->frame, &len);
	fo->pt.len = n->depth > 1 ? fo->pt.ends[n->depth - 1] : 0;
	/* The first frame of a line goes without the ';' before it. */
	fo->err = !text ? -ENOMEM
			: path_text__append(&fo->pt, text + (n->depth == 1), len - (n->depth == 1));
	fo->pt.ends[n->depth] = fo->pt.len;
	if (!fo->err && n->self) {
		fo->err = put_line(fo, n->self);
		fo->lines++;
	}
	return !fo->err;
}

/* Writes the line of a chain's stack (see struct trie_visitor): @above's path, then @frames. */
static void write_chain(void *ctx, const struct stack_trie *t, uint32_t above,
			const uint32_t *frames, uint32_t n, uint64_t count)
{
	struct folded_out *fo = ctx;
	uint32_t depth = t->nodes[above].depth;

	if (fo->err)
		return;
	fo->pt.len = depth ? fo->pt.ends[depth] : 0;
	for (uint32_t k = 0; k < n && !fo->err; k++) {
		size_t len;
		const char *text = frame_text(&fo->ft, frames[k], &len);
		bool first = !depth && !k; /* a line's first frame goes without its ';' */

		fo->err = !text ? -ENOMEM : path_text__append(&fo->pt, text + first, len - first);
	}
	if (!fo->err) {
		fo->err = put_line(fo, count);
		fo->lines++;
	}
}

long folded__write(FILE *out, struct stack_trie *t, const struct profile *p,
		   enum profile_group group)
{
	size_t nframes = profile__nframes(p);
	struct folded_out fo = { .out = out, .ft = { .p = p, .comms = group == GROUP_COMM } };
	int err = -ENOMEM;

	fo.pt.ends = calloc(t->max_depth + 1, sizeof(size_t));
	fo.ft.at = calloc(nframes + 1, sizeof(size_t));
	fo.ft.size = malloc((nframes + 1) * sizeof(size_t));
	if (fo.pt.ends && fo.ft.at && fo.ft.size)
		err = stack_trie__walk(t, &(struct trie_visitor){ write_node, write_chain, &fo }) ?:
		      fo.err;
	free(fo.pt.buf);
	free(fo.pt.ends);
	free(fo.ft.buf);
	free(fo.ft.at);
	free(fo.ft.size);
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return fo.lines;
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

/*
 * The previous stack of the file, kept so that the frames a line shares
 * with the line before (a sorted file shares most) are not looked up again.
 * Its text is the line itself, where the line reader left it: valid while
 * the reader has not read more input since (line_reader.fills).
 */
struct prev_stack {
	const char *text;
	size_t len;
	unsigned long long fills; /* the reader's, when text was the line */
	uint32_t *ids;            /* its frames */
	size_t *ends;             /* ends[j]: where frame j ends in text (a ';' or the end) */
	uint64_t *hashes;         /* hashes[j]: frame j's, for the cache */
	size_t n, ids_cap, ends_cap, hashes_cap;
	int32_t tgid, tid;
};

static int prev_stack__reserve(struct prev_stack *ps, size_t frames)
{
	if (array__grow((void **)&ps->ids, &ps->ids_cap, frames, sizeof(*ps->ids), 256) ||
	    array__grow((void **)&ps->ends, &ps->ends_cap, frames, sizeof(*ps->ends), 256) ||
	    array__grow((void **)&ps->hashes, &ps->hashes_cap, frames, sizeof(*ps->hashes), 256))
		return -ENOMEM;
	return 0;
}

/* How many bytes @a and @b share from the start, @n at most: 8 at a time (little-endian). */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * How many leading frames of @stack are those of the previous stack: none
 * when the reader read more input since (@fills moved on).
 */
static size_t prev_stack__shared(const struct prev_stack *ps, const char *stack, size_t len,
				 unsigned long long fills)
{
	size_t common, k = 0;

	if (fills != ps->fills)
		return 0;
	common = common_prefix(stack, ps->text, len < ps->len ? len : ps->len);
	while (k < ps->n && ps->ends[k] <= common) {
		size_t e = ps->ends[k];

		/* The frame ends at the same place in both: a ';' or the end of each. */
		if (e == common &&
		    !((e == len || stack[e] == ';') && (e == ps->len || ps->text[e] == ';')))
			break;
		k++;
	}
	return k;
}

static void prev_stack__free(struct prev_stack *ps)
{
	free(ps->ids);
	free(ps->ends);
	free(ps->hashes);
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
#define MIX 0x9E3779B97F4A7C15ull

/*
 * The frame that starts at @s and ends at the next ';' or at @end: its
 * length, and a hash of its text in *@hash for the frame cache. One pass,
 * 8 bytes at a time (little-endian), finding the ';' and hashing; it reads
 * up to 8 bytes past @end, which the line reader allows, and uses none.
 */
static size_t scan_frame(const char *s, const char *end, uint64_t *hash)
{
	size_t len = 0, left = (size_t)(end - s);
	uint64_t h = MIX;

	for (;;) {
		uint64_t w, x, semi;
		size_t k;

		memcpy(&w, s + len, sizeof(w));
		x = w ^ (';' * ONES);
		semi = (x - ONES) & ~x & HIGHS; /* its lowest bit is the first ';' */
		k = semi ? (size_t)__builtin_ctzll(semi) / 8 : 8;
		if (k > left - len)
			k = left - len;
		if (k < 8)
			w &= (1ull << (8 * k)) - 1; /* the bytes of the frame, with k < 8 */
		h = (h ^ w) * MIX;
		h ^= h >> 32;
		len += k;
		if (k < 8)
			break;
	}
	h = (h ^ len) * 0xBF58476D1CE4E5B9ull;
	*hash = h ^ (h >> 29);
	return len;
}

/*
 * Splits @stack (@len bytes) into its frames from frame @n on, which starts
 * at @at: where each ends (a ';' or the end) goes to @ps, its hash for the
 * cache too, its slot asked from memory. Returns the number of frames, or
 * 0 for an empty frame; -ENOMEM.
 */
static long split_frames(struct prev_stack *ps, const struct frame_cache *fc, const char *stack,
			 size_t len, size_t n, const char *at)
{
	const char *end = stack + len;

	while (at <= end) {
		uint64_t hash;
		size_t flen = scan_frame(at, end, &hash);

		if (!flen)
			return 0;
		if (prev_stack__reserve(ps, n + 1))
			return -ENOMEM;
		ps->ends[n] = (size_t)(at - stack) + flen;
		ps->hashes[n] = hash;
		frame_cache__prefetch(fc, hash);
		n++;
		at += flen + 1;
	}
	return (long)n;
}

/* What folded__read() keeps from line to line. */
struct folded_reader {
	struct profile *p;
	const struct line_reader *r;
	struct frame_cache fc;
	struct prev_stack ps;
	struct input_stats *st;
	bool dash_ids; /* process names "comm-PID" carry ids (see dash_ids()) */
};

/*
 * The ids a line's first frame @name (@len bytes) carries: "comm [PID]" and
 * "comm [PID/TID]" (flametop's), and "comm-PID" and "comm-PID/TID"
 * (stackcollapse-perf.pl's --pid and --tid) when the file names its
 * processes so (@dash_ids); a command such as "gcc-12" is otherwise
 * taken for its name.
 */
static void process_ids(const char *name, size_t len, bool dash_ids, struct process_name *pn)
{
	process_name__parse(name, len, pn);
	if (pn->tgid != TGID_UNKNOWN && name[pn->comm_len] == '-' && !dash_ids)
		*pn = (struct process_name){ .comm_len = len, .tgid = TGID_UNKNOWN, .tid = 0 };
}

/*
 * Do the process names of the file's first block (@data, @len bytes; @whole:
 * the file ends there) all carry ids, some "comm-PID"? stackcollapse-perf.pl
 * --pid and --tid name every process so.
 */
static bool dash_ids(const char *data, size_t len, bool whole)
{
	const char *end = data + len, *line = data;
	bool dash = false;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *stop = nl ? nl : end, *semi = memchr(line, ';', (size_t)(stop - line));
		struct process_name pn;

		if (!nl && !whole)
			break; /* a line the block cuts */
		if (strspn(line, " \t\r") < (size_t)(stop - line)) {
			process_name__parse(line, (size_t)((semi ? semi : stop) - line), &pn);
			if (pn.tgid == TGID_UNKNOWN)
				return false;
			dash = dash || line[pn.comm_len] == '-';
		}
		line = stop + 1;
	}
	return dash;
}

/* The value of hexadecimal digit @c, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Decodes the "\\xHH" escapes escape_name() writes, from @s (@len bytes)
 * into @out (@size bytes at most: what does not fit is left out). Returns
 * the length.
 */
static size_t unescape(char *out, size_t size, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < size; i++) {
		int hi = i + 4 <= len && s[i] == '\\' && s[i + 1] == 'x' ? hex_digit(s[i + 2]) : -1;
		int lo = hi >= 0 ? hex_digit(s[i + 3]) : -1;

		if (lo >= 0) {
			out[n++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			out[n++] = s[i];
		}
	}
	return n;
}

/*
 * Interns one frame of a folded line (@process: its first); escapes are
 * decoded, a process's ids dropped from its name. PROFILE_NONE when out of
 * memory.
 */
static uint32_t read_frame(const struct folded_reader *fr, const char *s, size_t len,
			   bool process)
{
	enum frame_kind kind = process ? FRAME_PROCESS : FRAME_USER;
	char name[2 * NAME_MAX_BYTES];
	struct process_name pn;

	if (process) {
		process_ids(s, len, fr->dash_ids, &pn);
		len = pn.comm_len;
	} else if (ends_with(s, len, "_[k]")) {
		kind = FRAME_KERNEL;
		len -= 4;
	}
	if (!memchr(s, '\\', len))
		return reader__frame(fr->p, s, len, kind);
	return reader__frame(fr->p, name, unescape(name, sizeof(name), s, len), kind);
}

/* The frame of a folded line's text, through the cache: class 1 for processes, 0 for the rest. */
static uint32_t cached_frame(struct folded_reader *fr, const char *s, size_t len, bool process,
			     uint64_t hash)
{
	uint32_t *slot = frame_cache__slot_hashed(&fr->fc, process, s, len, hash);

	if (!slot)
		return PROFILE_NONE;
	if (*slot == PROFILE_NONE)
		*slot = read_frame(fr, s, len, process);
	return *slot;
}

/*
 * Adds one line's stack to the profile. Returns 0; 1 for a malformed
 * stack, with *@why saying why; or -ENOMEM.
 */
static int read_stack(struct folded_reader *fr, const char *stack, size_t len, uint64_t count,
		      const char **why)
{
	struct prev_stack *ps = &fr->ps;
	unsigned long long fills = fr->r->fills;
	size_t shared = prev_stack__shared(ps, stack, len, fills);
	struct sample s = { .tgid = shared ? ps->tgid : TGID_UNKNOWN, .tid = shared ? ps->tid : 0,
			    .count = count };
	long n = split_frames(ps, &fr->fc, stack, len, shared,
			      stack + (shared ? ps->ends[shared - 1] + 1 : 0));

	if (n <= 0) {
		*why = "an empty frame";
		ps->n = 0; /* the text kept no longer matches */
		return n < 0 ? (int)n : 1;
	}
	/* The frames' slots are on their way from memory: split_frames() asked. */
	for (long k = (long)shared; k < n; k++) {
		size_t start = k ? ps->ends[k - 1] + 1 : 0;
		uint32_t id = cached_frame(fr, stack + start, ps->ends[k] - start, k == 0,
					   ps->hashes[k]);

		if (id == PROFILE_NONE)
			return -ENOMEM;
		if (k == 0) {
			struct process_name pn;

			process_ids(stack, ps->ends[0], fr->dash_ids, &pn);
			s.tgid = pn.tgid;
			s.tid = pn.tid;
		}
		ps->ids[k] = id;
	}
	ps->text = stack;
	ps->len = len;
	ps->fills = fills;
	ps->n = (size_t)n;
	ps->tgid = s.tgid;
	ps->tid = s.tid;
	s.frames = ps->ids;
	s.n = (uint32_t)n;
	return count ? profile__add(fr->p, &s) : 0;
}

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
		reader__bad_line(st, stack_len ? "no count, or a count that is not a whole number"
				       : "no stack before the count");
		return 0;
	}
	r = read_stack(fr, line, (size_t)stack_len, count, &why);
	if (r > 0)
		reader__bad_line(st, why);
	else if (r == 0)
		st->stacks++;
	return r < 0 ? r : 0;
}

int folded__read(struct line_reader *r, struct profile *p, struct input_stats *st)
{
	struct folded_reader fr = { .p = p, .r = r, .st = st, .ps = { .fills = ~0ull } };
	const char *head;
	size_t len;
	int err = frame_cache__init(&fr.fc) ?: line_reader__peek(r, &head, &len);

	if (!err) {
		fr.dash_ids = dash_ids(head, len, r->eof);
		err = reader__each_line(r, st, read_line, &fr);
	}
	frame_cache__free(&fr.fc);
	prev_stack__free(&fr.ps);
	return err;
}
