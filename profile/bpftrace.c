// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/bpftrace.h"
#include "profile/frame_cache.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

#define MAP_NAME_MAX 128

/* A frame of the entry being read: where its parts lie in the entry's text. */
struct bt_frame {
	bool has_addr, has_dso;
	uint64_t addr;
	size_t sym_at, sym_len, dso_at, dso_len;
};

/* An element of the entry's key: a stack (its frames, leaf first) or another value. */
struct bt_element {
	bool stack;
	bool kernel; /* a stack's side, once the key is read (stack_sides()) */
	size_t first, n;	  /* a stack's frames: frames[first, first + n) */
	size_t text_at, text_len; /* another value's text */
};

/* The entry being read, copied out of its lines (a line lives until the next one). */
struct bt_entry {
	bool open;	 /* its key is being read */
	bool stack_open; /* frame lines go to its last element, a stack */
	char map[MAP_NAME_MAX];
	struct bt_element *elems;
	struct bt_frame *frames;
	char *text;
	size_t nelems, elems_cap, nframes, frames_cap, text_len, text_cap;
};

/* What bpftrace__read() keeps from line to line. */
struct bt_reader {
	struct profile *p;
	struct input_stats *st;
	struct frame_cache fc;
	struct bt_entry e;
	bool skipping;		/* the rest of an entry already counted as malformed */
	char map[MAP_NAME_MAX]; /* the map read: the first keyed by stacks ("" until then) */
	uint64_t entries;	/* map entries seen, keyed by stacks or not */
	uint32_t *stack;
	size_t stack_cap;
};

/* A malformed entry: counted once, the rest of it skipped. Returns 0. */
static int bad_entry(struct bt_reader *r, const char *why)
{
	reader__bad_line(r->st, why);
	r->e.open = false;
	r->skipping = true;
	return 0;
}

/* Copies @len bytes of @s to the entry's text; where they went, or SIZE_MAX when out of memory. */
static size_t keep_text(struct bt_entry *e, const char *s, size_t len)
{
	size_t at = e->text_len;

	if (array__grow((void **)&e->text, &e->text_cap, at + len + 1, 1, 1024))
		return SIZE_MAX;
	memcpy(e->text + at, s, len);
	e->text_len += len;
	return at;
}

/* Adds an element to the entry's key: a stack when @len is 0 (frames may follow), else a value. */
static int add_element(struct bt_entry *e, const char *s, size_t len)
{
	struct bt_element *el;

	if (array__grow((void **)&e->elems, &e->elems_cap, e->nelems + 1, sizeof(*e->elems), 8))
		return -ENOMEM;
	el = &e->elems[e->nelems++];
	*el = (struct bt_element){.stack = !len, .first = e->nframes};
	if (len) {
		el->text_at = keep_text(e, s, len);
		el->text_len = len;
		if (el->text_at == SIZE_MAX)
			return -ENOMEM;
	}
	return 0;
}

/* Is @s (@len bytes) a number, such as a pid or a cpu? */
static bool is_number(const char *s, size_t len)
{
	return len && strspn(s, "0123456789") >= len;
}

/*
 * Tells each stack element of the entry its side (kernel): by its first
 * frame with an address, else by its place: of two, the first; a lone one.
 */
static void stack_sides(struct bt_entry *e)
{
	int hint[2] = {-1, -1}; /* of the first two stacks: 1 kernel, 0 user, -1 unknown */
	size_t nstacks = 0;

	for (size_t i = 0; i < e->nelems; i++) {
		struct bt_element *el = &e->elems[i];
		int h = -1;

		if (!el->stack)
			continue;
		for (size_t k = el->first; k < el->first + el->n && h < 0; k++) {
			if (e->frames[k].has_addr)
				h = (int)(e->frames[k].addr >> 63);
		}
		if (nstacks < 2)
			hint[nstacks] = h;
		el->kernel = h >= 0 ? h : nstacks == 0;
		nstacks++;
	}
	/* Of two stacks, one told by its addresses, the other is the other side. */
	for (size_t i = 0, k = 0; nstacks == 2 && i < e->nelems; i++) {
		if (e->elems[i].stack && hint[k] < 0 && hint[1 - k] >= 0)
			e->elems[i].kernel = !hint[1 - k];
		k += e->elems[i].stack;
	}
}

/* Appends the frames of stack element @el, outermost first, to r->stack from @n on. */
static long append_stack(struct bt_reader *r, const struct bt_element *el, bool kernel, size_t n)
{
	const struct bt_entry *e = &r->e;

	if (array__grow((void **)&r->stack, &r->stack_cap, n + el->n, sizeof(*r->stack), 256))
		return -ENOMEM;
	for (size_t k = el->first + el->n; k-- > el->first;) {
		const struct bt_frame *bf = &e->frames[k];
		struct printed_frame f = {
		    .has_addr = bf->has_addr,
		    .addr = bf->addr,
		    .sym = e->text + bf->sym_at,
		    .sym_len = bf->sym_len,
		    .dso = bf->has_dso ? e->text + bf->dso_at : NULL,
		    .dso_len = bf->dso_len,
		};
		char name[NAME_MAX_BYTES + 1];
		size_t len = reader__frame_name(name, sizeof(name), &f, kernel);

		r->stack[n] = reader__cached_frame(&r->fc, r->p, name, len,
						   kernel ? FRAME_KERNEL : FRAME_USER);
		if (r->stack[n++] == PROFILE_NONE)
			return -ENOMEM;
	}
	return (long)n;
}

/* The process frame of the entry: its first value that is not a number, else "[unknown]". */
static uint32_t process_frame(struct bt_reader *r)
{
	const struct bt_entry *e = &r->e;

	for (size_t i = 0; i < e->nelems; i++) {
		const struct bt_element *el = &e->elems[i];

		if (!el->stack && !is_number(e->text + el->text_at, el->text_len))
			return reader__cached_frame(&r->fc, r->p, e->text + el->text_at,
						    el->text_len, FRAME_PROCESS);
	}
	return reader__cached_frame(&r->fc, r->p, "[unknown]", 9, FRAME_PROCESS);
}

/* The entry's key is read, its value is @count: its stack enters the profile. */
static int end_entry(struct bt_reader *r, uint64_t count)
{
	struct bt_entry *e = &r->e;
	size_t nstacks = 0;
	long n = 1;
	struct sample s = {.tgid = TGID_UNKNOWN, .count = count};

	e->open = false;
	for (size_t i = 0; i < e->nelems; i++)
		nstacks += e->elems[i].stack;
	if (!nstacks)
		return bad_entry(r, "an entry not keyed by a stack");
	if (!r->map[0])
		memcpy(r->map, e->map, sizeof(r->map));
	else if (strcmp(r->map, e->map) != 0)
		return bad_entry(r, "an entry of another map than the first keyed by stacks");
	stack_sides(e);
	if (array__grow((void **)&r->stack, &r->stack_cap, 1, sizeof(*r->stack), 256))
		return -ENOMEM;
	r->stack[0] = process_frame(r);
	if (r->stack[0] == PROFILE_NONE)
		return -ENOMEM;
	/* The user stacks, then the kernel's. */
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < e->nelems && n > 0; i++) {
			if (e->elems[i].stack && e->elems[i].kernel == side)
				n = append_stack(r, &e->elems[i], side, (size_t)n);
		}
	}
	if (n < 0)
		return (int)n;
	r->st->stacks++;
	s.frames = r->stack;
	s.n = (uint32_t)n;
	return count ? profile__add(r->p, &s) : 0;
}

/*
 * The rest of a key's line (@s, after "@name[" or ", " or at a "]: N"):
 * values separated by ", "; at its end "]: N" ends the entry, else an empty
 * last element is a stack whose frames follow.
 */
static int key_rest(struct bt_reader *r, const char *s)
{
	struct bt_entry *e = &r->e;
	const char *end = s + strlen(s), *close = NULL, *value;
	uint64_t count;
	int err;

	for (const char *c = strstr(s, "]: "); c; c = strstr(c + 1, "]: "))
		close = c;
	if (close)
		end = close;
	for (;;) {
		const char *sep = memmem(s, (size_t)(end - s), ", ", 2);
		const char *stop = sep ? sep : end;

		if (!sep && !close) {
			if (stop != s)
				return bad_entry(r, "a key cut short");
			e->stack_open = true;
			return add_element(e, s, 0);
		}
		/* A last element empty before "]: " is nothing (the stack before it ended). */
		if (sep || stop != s || e->nelems == 0) {
			err = add_element(e, s, (size_t)(stop - s));
			if (err)
				return err;
		}
		if (!sep)
			break;
		s = sep + 2;
	}
	value = close + 3;
	if (text_line__parse_u64(&value, 10, &count) || *value)
		return bad_entry(r, "a value that is not a count");
	return end_entry(r, count);
}

/* A line "@name[...": a new entry. */
static int start_entry(struct bt_reader *r, const char *line)
{
	struct bt_entry *e = &r->e;
	size_t name_len = strspn(line + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789_");

	r->entries++;
	r->skipping = false;
	if (line[1 + name_len] != '[')
		return bad_entry(r, "a map without a key (a histogram, a count)");
	if (name_len >= sizeof(e->map))
		return bad_entry(r, "a map name too long");
	memcpy(e->map, line, name_len + 1);
	e->map[name_len + 1] = '\0';
	e->open = true;
	e->stack_open = false;
	e->nelems = e->nframes = e->text_len = 0;
	return key_rest(r, line + name_len + 2);
}

/* The address a symbol bpftrace could not name stands for: "0x7f3a...". */
static bool symbol_address(const struct printed_frame *f, uint64_t *addr)
{
	const char *s = f->sym + 2;

	return f->sym_len > 2 && f->sym[0] == '0' && f->sym[1] == 'x' &&
	       !text_line__parse_u64(&s, 16, addr) && s == f->sym + f->sym_len;
}

/* A frame line of the open stack: "    symbol+off", or "\tADDRESS symbol+off (DSO)". */
static int read_frame(struct bt_reader *r, const char *line, size_t len)
{
	struct bt_entry *e = &r->e;
	struct printed_frame f;
	struct bt_frame *bf;

	if (!e->stack_open)
		return bad_entry(r, "a frame line outside a stack");
	if (reader__frame_line(line, len, true, &f) && reader__frame_line(line, len, false, &f))
		return bad_entry(r, "a frame line without a symbol");
	if (!f.has_addr)
		f.has_addr = symbol_address(&f, &f.addr);
	if (array__grow((void **)&e->frames, &e->frames_cap, e->nframes + 1, sizeof(*e->frames),
			256))
		return -ENOMEM;
	bf = &e->frames[e->nframes];
	*bf = (struct bt_frame){.has_addr = f.has_addr,
				.addr = f.addr,
				.has_dso = f.dso != NULL,
				.sym_len = f.sym_len,
				.dso_len = f.dso_len};
	bf->sym_at = keep_text(e, f.sym, f.sym_len);
	bf->dso_at = f.dso ? keep_text(e, f.dso, f.dso_len) : 0;
	if (bf->sym_at == SIZE_MAX || bf->dso_at == SIZE_MAX)
		return -ENOMEM;
	e->nframes++;
	e->elems[e->nelems - 1].n++;
	return 0;
}

/* Is @line (@n bytes) bpftrace's first, "Attaching 1 probe..." or "Attaching 3 probes..."? */
static bool attaching_line(const char *line, size_t n)
{
	size_t digits = n > 10 ? strspn(line + 10, "0123456789") : 0;

	return digits && memcmp(line, "Attaching ", 10) == 0 && n >= 10 + digits + 6 &&
	       memcmp(line + 10 + digits, " probe", 6) == 0;
}

/* One line of bpftrace's output. Returns 0 or -ENOMEM. */
static int read_line(void *ctx, char *line, size_t len)
{
	struct bt_reader *r = ctx;
	struct bt_entry *e = &r->e;

	if (line[0] == '@')
		return start_entry(r, line); /* an entry left open lost a line (counted) */
	if (r->skipping)
		return 0;
	if (!e->open) {
		if (strspn(line, " \t") == len || attaching_line(line, len))
			return 0;
		reader__bad_line(r->st, "a line outside a map entry");
		return 0;
	}
	if (line[0] == ' ' || line[0] == '\t')
		return read_frame(r, line, len);
	if (!e->stack_open || (line[0] != ',' && line[0] != ']'))
		return bad_entry(r, "a key cut short");
	e->stack_open = false;
	if (line[0] == ']')
		return key_rest(r, line);
	return key_rest(r, line + 1 + (line[1] == ' '));
}

int bpftrace__read(struct line_reader *lr, struct profile *p, struct input_stats *st)
{
	struct bt_reader r = {.p = p, .st = st};
	int err = frame_cache__init(&r.fc);

	if (!err)
		err = reader__each_line(lr, st, read_line, &r);
	if (!err && r.e.open)
		reader__bad_line(st, "an entry cut short");
	if (!err && !st->stacks && !r.map[0]) {
		st->error = r.entries ? "no map in it is keyed by stacks (as @[kstack, ustack, "
					"comm] = count() prints)"
				      : "bpftrace printed no map";
		err = -EBADMSG;
	}
	frame_cache__free(&r.fc);
	free(r.e.elems);
	free(r.e.frames);
	free(r.e.text);
	free(r.stack);
	return err;
}

bool bpftrace__looks_like(const char *data, size_t len)
{
	const char *end = data + len, *line = data;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = (size_t)((nl ? nl : end) - line), name;

		if (attaching_line(line, n))
			return true; /* bpftrace's first line */
		if (n && strspn(line, " \t\r") < n) {
			if (line[0] != '@')
				return false;
			name =
			    strspn(line + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789_");
			return 1 + name < n && (line[1 + name] == '[' || line[1 + name] == ':');
		}
		line = nl ? nl + 1 : end;
	}
	return false;
}
