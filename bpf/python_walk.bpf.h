/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_walk.bpf.h: a CPython thread's Python frames, walked in BPF. The
 * loader describes each Python process in python_procs (python/'s
 * struct py_proc: where its _PyRuntime is, the offsets of the fields the
 * walk follows); a process not there costs one lookup. For a thread of one
 * there, the walk finds that thread's PyThreadState (remembered per thread,
 * checked at each use: it must still name the thread), then follows its
 * frames from the one running, one per bpf_loop() step, recording per
 * frame the code object's address, the instruction it is at and the code
 * object's tag (python/py_layout.h): user space names the frame later, and
 * only from a code object with that tag. The stack is hashed and sent once,
 * as the other stacks are (stack_store.bpf.h), counted under a third hash
 * of the key.
 *
 * The cost is the reads of the process's memory, a hundred nanoseconds or
 * so each (ten times that for one that faults): frames are read a window
 * at a time (PY_WIN, never below the frame's page), a code object's tag
 * and a string's part of it once per walk (python_tag_memo,
 * python_str_memo), and on 3.12+ a code object's tag is kept across walks
 * by its co_version (python_code_cache), and without reading even that
 * while the interpreter has made no code object since (its co_version
 * counter, read once per walk); on 3.10 and 3.11, while the process has
 * freed none (python_frees.bpf.h).
 */
#ifndef FLAMETOP_PYTHON_WALK_BPF_H
#define FLAMETOP_PYTHON_WALK_BPF_H

#include "python_frees.bpf.h"

/* Set once, before load: the loader has python_procs (--python on). */
const volatile bool walk_python = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* tgid */
	__type(value, struct py_proc);
	__uint(max_entries, 1); /* the loader's map (bpf/python_maps.c) takes its place */
} python_procs SEC(".maps");

/*
 * A thread's thread state, as last found: good while its thread id field
 * still names the thread (checked at each use). A thread without one is
 * asked after again PY_MISS_NS later. Kept with the thread (task storage:
 * gone with it, and found without a lookup by key).
 */
#define PY_MISS_NS (50 * 1000000ULL)

struct py_thread_memo {
	__u64 tstate; /* 0: none found at miss_ns */
	__u64 miss_ns;
	__u32 tgid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct py_thread_memo);
} python_threads SEC(".maps");

/*
 * The walk's state and buffers, per CPU (state in a map, not on the stack:
 * the verifier checks one step of a loop once). Each buffer is followed by
 * room for a word read at its last byte's offset.
 */
#define PY_BUF PY_READ_MAX
#define PY_WORDS_MASK (PY_WORDS_PER_FRAME * PY_MAX_DEPTH - 1) /* words[]'s: a power of 2 */

/*
 * 3.11+ frames of a thread lie one above the other in its data stack, a
 * caller below its callees: one read of the PY_WIN bytes below a frame's
 * end holds the frames it was called from, as many as fit (a read costs
 * about as much for 2 KiB as for a frame's 100 bytes). 3.10's frame
 * objects are on the heap: most come from a free list, anywhere, but calls
 * made deeper than before get new ones, the allocator's next blocks, a
 * caller just below its callee: a window is read there once a frame was
 * found just below the one read before it.
 */
#define PY_WIN 2048

struct py_walk {
	struct py_proc p;  /* the process's entry, as looked up */
	__u64 want;        /* the thread's id as its thread state names it */
	__u64 interp;      /* the thread search: the next interpreter ... */
	__u64 ts;          /* ... and the thread state to look at next */
	__u64 found;       /* the thread state found */
	__u64 frame;       /* the frame to read next */
	__u64 win_lo;      /* win_buf holds the process's bytes [win_lo, win_hi) */
	__u64 win_hi;
	__u64 last;        /* the frame read before (3.10: its callers may lie below it); 0: none */
	__u64 hash;        /* of the words recorded */
	__u32 nr;          /* frames recorded */
	__u32 end;         /* enum py_end */
	__u64 ident;       /* the process image and interpreter, for python_code_cache; 0: none */
	__u64 count;       /* co_version's counter, or the frees count, at the walk's start; 0: none */
	__u32 seq;         /* walks on this CPU: the code tag memo's entries of this walk */
	__u32 pad;
	__u8 ts_buf[PY_BUF];
	__u8 frame_buf[PY_BUF];
	__u8 code_buf[PY_BUF];
	__u8 str_buf[PY_BUF];
	__u8 win_buf[PY_WIN + PY_BUF]; /* a frame's bytes start within its first PY_WIN */
	__u8 slack[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_walk);
	__uint(max_entries, 1);
} python_walks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sent_pystack);
	__uint(max_entries, 1);
} python_scratch SEC(".maps");

/*
 * The tags found in this walk, by code object, and the strings' parts of
 * them, by string (direct-mapped): a code object is alive while a frame of
 * the walked thread runs it (a frame holds a reference to its code, the
 * code to its name and file), so within one walk an address is one object;
 * a recursive function's frames cost one tag, a file's functions one read
 * of its name.
 */
#define PY_MEMO_WAYS 16

struct py_memo {
	__u64 addr;
	__u64 val;
	__u32 seq; /* the walk's (struct py_walk's seq) */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_memo);
	__uint(max_entries, PY_MEMO_WAYS);
} python_tag_memo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_memo);
	__uint(max_entries, PY_MEMO_WAYS);
} python_str_memo SEC(".maps");

/*
 * The tags of code objects found in walks before, per CPU, by code object
 * (direct-mapped), for interpreters whose code objects carry a version
 * (3.12+: co_version, from a counter of the interpreter's that no two of
 * its code objects share). A code object read again with the same address,
 * version, interpreter and process image (struct py_walk's ident) is the
 * same object, and its tag the same: its name and file are not read again.
 * Without the version (3.10, 3.11) an object freed and another made at its
 * address can look alike in every field but their strings' text (exec()
 * in a loop does this), so each walk reads the strings.
 *
 * Where the walk can read that counter too (3.12 with its symbol, 3.13 in
 * the interpreter state CPython's headers lay out), an entry also keeps
 * its value at the start of the walk that read the object: a walk that
 * finds the counter still there knows no code object was made since, so
 * the live code object a frame names at that address is the one read
 * then, and its version is not read again. A process's steady state then
 * costs no read per frame.
 *
 * 3.10 and 3.11 have no version, but where the process's frees are counted
 * (PY_PROC_FREES_COUNTED) an entry keeps the count at the start of the walk
 * that read it, and is good while the count is still that: the object it
 * names was not freed since (a frame of that walk held it then), so no
 * other was made at its address.
 */
#define PY_CODE_SETS_BITS 11 /* 2,048 sets of 2: a 128-deep stack's objects rarely meet */

struct py_code_cached {
	__u64 code;
	__u64 ident;
	__u64 count;   /* the counter (or frees count) when the object was read; 0: none */
	__u32 version; /* co_version (never 0 here: 0 is a counter that ran out); 3.10, 3.11: 0 */
	__u32 tag;
};

struct py_code_set {
	struct py_code_cached way[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_code_set);
	__uint(max_entries, 1 << PY_CODE_SETS_BITS);
} python_code_cache SEC(".maps");

/* Whether @c holds code object @code of the walk's process image and interpreter. */
static __always_inline bool py_cached_is(const struct py_code_cached *c, const struct py_walk *w,
					 __u64 code)
{
	return c->code == code && c->ident == w->ident;
}

/* The memo entry @memo (a py_memo map) has for address @addr: that of this walk or another. */
static __always_inline struct py_memo *py_memo_of(void *memo, __u64 addr)
{
	__u32 way = (__u32)((addr >> 4) ^ (addr >> 12)) & (PY_MEMO_WAYS - 1);

	return bpf_map_lookup_elem(memo, &way);
}

/* The value of @addr in this walk (@seq) is @val, in entry @m (NULL: none). */
static __always_inline void py_memo_put(struct py_memo *m, __u64 addr, __u64 val, __u32 seq)
{
	if (!m)
		return;
	m->addr = addr; /* field by field: a struct built on the stack takes its room */
	m->val = val;
	m->seq = seq;
}

static __always_inline struct py_walk *py_walk_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&python_walks, &zero);
}

static __always_inline struct sent_pystack *py_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&python_scratch, &zero);
}

/*
 * A word of @buf at offset @off, which the loader keeps inside PY_BUF: one
 * load (the buffers and the frames in win_buf start 8-aligned, as CPython's
 * fields are; a layout with one unaligned costs nothing more on x86-64 and
 * arm64, whose loads need no alignment). A byte-wise copy would take 8
 * loads, and the registers to hold them (py_code_tag() went over the
 * stack's 512 bytes so).
 */
static __always_inline __u64 py_u64(const __u8 *buf, __u16 off)
{
	return *(const __u64 *)(buf + (off & (PY_BUF - 1)));
}

static __always_inline __s32 py_s32(const __u8 *buf, __u16 off)
{
	return *(const __s32 *)(buf + (off & (PY_BUF - 1)));
}

static __always_inline __u8 py_u8(const __u8 *buf, __u16 off)
{
	return buf[off & (PY_BUF - 1)];
}

/* Reads @size (1 to PY_BUF) bytes at @addr into @buf: 0 or a negative errno. */
static __always_inline long py_read(__u8 *buf, __u32 size, __u64 addr)
{
	if (!addr || !size || size > PY_BUF)
		return -EFAULT;
	return bpf_probe_read_user(buf, size, (const void *)addr);
}

/*
 * The part of the tag (python/py_layout.h) of the string at @addr, through
 * the walk's memo: its head and the tagged text read at once when the bytes
 * after it are mapped, else its head, then exactly the text. 0 when it
 * cannot be read or is no string the names can read. A global function, as
 * py_code_tag() is: apart, each fits the stack.
 */
__attribute__((noinline)) __u64 py_tag_str(struct py_walk *w, __u64 addr)
{
	struct py_memo *m = py_memo_of(&python_str_memo, addr);
	const struct py_layout *l;
	__u32 state, off, n;
	bool head_only = false;
	__s64 length;
	__u64 part = 0;
	__u8 *buf;

	if (!w)
		return 0;
	if (m && m->addr == addr && m->seq == w->seq)
		return m->val;
	l = &w->p.l;
	buf = w->str_buf;
	if (py_read(buf, l->str_compact_size + PY_TAG_TEXT, addr)) {
		if (py_read(buf, l->str_ascii_size, addr))
			goto out;
		head_only = true;
	}
	length = (__s64)py_u64(buf, l->str_length);
	state = (__u32)py_u64(buf, l->str_state);
	if (!py_str_readable(length, state))
		goto out;
	off = py_str_text_off(l, state) & (PY_STR_READ - 1);
	n = py_tag_text_bytes(length, state);
	if (head_only && n &&
	    bpf_probe_read_user(buf + off, n & (PY_TAG_TEXT * 2 - 1), (const void *)(addr + off)))
		goto out;
	part = py_tag_string(addr, length, state, buf + off);
out:
	py_memo_put(m, addr, part, w->seq);
	return part;
}

/*
 * The tag of the code object at @code (0: it could not be read), through
 * the walk's memo. A global function: the verifier checks it once, apart
 * from the walk (its reads and text loops would multiply the walk's paths).
 */
__attribute__((noinline)) __u32 py_code_tag(struct py_walk *w, __u64 code)
{
	struct py_code_set *set = NULL;
	struct py_memo *m;
	struct py_code_cached *c = NULL;
	const struct py_layout *l;
	__u64 h, name, file;
	__u32 tag = 0, version = 0, key;
	bool versioned;

	if (!w)
		return 0;
	l = &w->p.l;
	versioned = l->code_version != PY_OFF_NONE; /* else only a count can keep an entry */
	if (w->ident && (versioned || w->count)) {
		key = (__u32)(((code ^ w->ident) * PY_TAG_MUL) >> (64 - PY_CODE_SETS_BITS));
		set = bpf_map_lookup_elem(&python_code_cache, &key);
	}
	for (int i = 0; set && w->count && i < 2; i++)
		if (set->way[i].count == w->count && py_cached_is(&set->way[i], w, code))
			return set->way[i].tag; /* no code object made (or freed) since it was read */
	m = py_memo_of(&python_tag_memo, code);
	if (m && m->addr == code && m->seq == w->seq)
		return (__u32)m->val;
	if (set) {
		/* the version alone first: a cached object's fields are not needed */
		if (versioned && py_read(w->code_buf, 4, code + l->code_version))
			goto out;
		version = versioned ? (__u32)py_s32(w->code_buf, 0) : 0;
		/* the way this object had, else one not read since the counter moved */
		c = py_cached_is(&set->way[1], w, code) ||
				    (!py_cached_is(&set->way[0], w, code) &&
				     set->way[0].count == w->count)
			    ? &set->way[1]
			    : &set->way[0];
		if (versioned && !version) {
			c = NULL;
		} else if (versioned && py_cached_is(c, w, code) && c->version == version) {
			c->count = version < w->count ? w->count : 0;
			tag = c->tag;
			goto out;
		}
	}
	if (py_read(w->code_buf, l->code_bytes, code) ||
	    (c && versioned && (__u32)py_s32(w->code_buf, l->code_version) != version))
		goto out;
	h = py_tag_code(py_s32(w->code_buf, l->code_firstlineno),
			py_s32(w->code_buf, l->code_argcount),
			py_u64(w->code_buf, l->code_linetable));
	file = py_u64(w->code_buf, l->code_filename);
	name = py_tag_str(w, py_u64(w->code_buf, l->code_name));
	file = name ? py_tag_str(w, file) : 0;
	tag = file ? py_tag_end(py_tag_mix(py_tag_mix(h, name), file)) : 0;
	if (c && tag) {
		c->code = code;
		c->ident = w->ident;
		c->version = version;
		c->tag = tag;
		/* a version from after the count's read: a count that is none */
		c->count = !versioned || version < w->count ? w->count : 0;
	}
out:
	py_memo_put(m, code, tag, w->seq);
	return tag;
}

/* The instruction frame @fb (its bytes) is at, in code units into code object @code. */
static __always_inline __u32 py_lasti(struct py_walk *w, const __u8 *fb, __u64 code)
{
	const struct py_layout *l = &w->p.l;
	__s64 units;

	if (l->model == PY_FRAMES_310)
		units = py_s32(fb, l->frame_instr);
	else /* a pointer to a code unit (2 bytes) of the code */
		units = (__s64)(py_u64(fb, l->frame_instr) - (code + l->code_adaptive));
	if (units < 0)
		return PY_LASTI_NONE;
	if (l->model != PY_FRAMES_310)
		units >>= 1;
	return units >= PY_LASTI_NONE ? PY_LASTI_NONE : (__u32)units;
}

/*
 * The bytes of the frame at @frame (l->frame_bytes of them, and those up to
 * PY_BUF after, which are not the frame's), in w->win_buf: from the last
 * read when it holds them, else read, with those below it on its page (up
 * to PY_WIN bytes in all: never from a page that may not be mapped, as a
 * read that faults costs ten that do not) where callers lie below their
 * callees. NULL when the frame cannot be read.
 */
static __always_inline const __u8 *py_frame_bytes(struct py_walk *w, __u64 frame)
{
	__u64 end = frame + w->p.l.frame_bytes, lo = frame;
	bool below = w->last > frame && w->last - frame < PY_WIN; /* just below the last */
	__u32 size;

	w->last = frame;
	if (frame >= w->win_lo && end <= w->win_hi)
		return w->win_buf + ((frame - w->win_lo) & (PY_WIN - 1));
	w->win_hi = 0;
	if (!frame || end - frame > PY_BUF || end < frame)
		return NULL;
	if (w->p.l.model != PY_FRAMES_310 || below) {
		lo = frame & ~0xfffULL;
		if (end - lo > PY_WIN)
			lo = end - PY_WIN;
	}
	size = (__u32)(end - lo);
	if (size > PY_WIN || bpf_probe_read_user(w->win_buf, size, (const void *)lo))
		return NULL;
	w->win_lo = lo;
	w->win_hi = end;
	return w->win_buf + ((frame - lo) & (PY_WIN - 1));
}

/*
 * bpf_loop()'s callback: reads the frame at w->frame and records it (a shim
 * owned by the C stack is not recorded: it marks the frame recorded before
 * it as its eval-loop call's first). Returns 1 when the walk ends.
 */
static long py_frame_step(__u32 i, void *arg)
{
	struct py_walk *w = py_walk_state();
	struct sent_pystack *t = py_scratch();
	const struct py_layout *l;
	__u64 code, frame;
	__u32 nr, tag, lasti, entry;
	const __u8 *fb;

	if (!w || !t)
		return 1;
	l = &w->p.l;
	nr = w->nr;
	frame = w->frame;
	if (!frame) {
		w->end = PY_END_WHOLE;
		return 1;
	}
	if (nr >= PY_MAX_DEPTH) {
		w->end = PY_END_DEPTH;
		return 1;
	}
	fb = py_frame_bytes(w, frame);
	if (!fb) {
		w->end = PY_END_UNREADABLE;
		return 1;
	}
	w->frame = py_u64(fb, l->frame_back);
	if (l->model == PY_FRAMES_312 && py_u8(fb, l->frame_owner) == PY_OWNED_BY_CSTACK) {
		if (nr)
			t->words[(2 * nr - 1) & PY_WORDS_MASK] |= PY_ENTRY;
		return 0;
	}
	code = py_u64(fb, l->frame_code);
	lasti = py_lasti(w, fb, code);
	entry = l->model == PY_FRAMES_310 ||
		(l->model == PY_FRAMES_311 && py_u8(fb, l->frame_entry));
	tag = py_code_tag(w, code);
	t->words[(2 * nr) & PY_WORDS_MASK] = code;
	t->words[(2 * nr + 1) & PY_WORDS_MASK] =
		py_frame_word(tag, entry, lasti);
	w->nr = nr + 1;
	return 0;
}

/*
 * bpf_loop()'s callback: looks at the next thread state of the search
 * (or, at a list's end, the next interpreter's first). Returns 1 when the
 * search ends: w->found set when the thread's state was found.
 */
static long py_thread_step(__u32 i, void *arg)
{
	struct py_walk *w = py_walk_state();
	const struct py_layout *l;
	__u64 ts;

	if (!w)
		return 1;
	l = &w->p.l;
	ts = w->ts;
	if (!ts) {
		if (!w->interp || py_read(w->ts_buf, 8, w->interp + l->interp_threads))
			return 1;
		w->ts = py_u64(w->ts_buf, 0);
		if (py_read(w->ts_buf, 8, w->interp + l->interp_next))
			return 1;
		w->interp = py_u64(w->ts_buf, 0);
		return 0;
	}
	if (py_read(w->ts_buf, l->ts_bytes, ts)) {
		w->ts = 0; /* the rest of this list cannot be reached */
		return 0;
	}
	if (py_u64(w->ts_buf, l->ts_native_id != PY_OFF_NONE ? l->ts_native_id : l->ts_thread_id) ==
	    w->want) {
		w->found = ts;
		return 1;
	}
	w->ts = py_u64(w->ts_buf, l->ts_next);
	return 0;
}

#define PY_THREAD_STEPS 256 /* thread states (and interpreters) a search looks at, at most */

/* The id of the current thread as a thread state names it: its tid, or (3.10) pthread_self(). */
static __always_inline __u64 py_thread_id(const struct py_layout *l, __u32 tid)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *task = (void *)bpf_get_current_task();

	if (l->ts_native_id == PY_OFF_NONE)
		return BPF_CORE_READ(task, thread.fsbase); /* glibc's thread pointer */
#endif
	return tid;
}

/* Whether the thread state in w->ts_buf (read from @ts) is the thread's. */
static __always_inline bool py_ts_is(struct py_walk *w, __u64 ts)
{
	const struct py_layout *l = &w->p.l;

	return ts && !py_read(w->ts_buf, l->ts_bytes, ts) &&
	       py_u64(w->ts_buf, l->ts_native_id != PY_OFF_NONE ? l->ts_native_id
								  : l->ts_thread_id) == w->want;
}

/*
 * Finds the current thread's (@tid's) thread state into w->found (its head
 * in w->ts_buf), from its memo when that still holds, else by a search of
 * the interpreters' thread lists; false when it has none (looked for again
 * PY_MISS_NS later).
 */
static __always_inline bool py_find_thread(struct py_walk *w, __u32 tgid, __u32 tid)
{
	struct py_thread_memo *m = bpf_task_storage_get(&python_threads, bpf_get_current_task_btf(),
							0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 now;

	w->want = py_thread_id(&w->p.l, tid);
	if (m && m->tgid == tgid && m->tstate && py_ts_is(w, m->tstate)) {
		w->found = m->tstate;
		return true;
	}
	now = bpf_ktime_get_ns();
	if (m && m->tgid == tgid && !m->tstate && now - m->miss_ns < PY_MISS_NS)
		return false;
	w->found = 0;
	w->ts = 0;
	if (py_read(w->ts_buf, 8, w->p.runtime + w->p.l.runtime_interp_head))
		return false;
	w->interp = py_u64(w->ts_buf, 0);
	bpf_loop(PY_THREAD_STEPS, py_thread_step, NULL, 0);
	if (m) {
		m->tstate = w->found;
		m->miss_ns = now;
		m->tgid = tgid;
	}
	return w->found != 0;
}

/*
 * What python_code_cache knows the interpreter of thread state @w->found
 * (its head in w->ts_buf) by: the process (its leader's start, the count
 * of its execs, its tgid @tgid) and the interpreter's id (the main
 * interpreter's, 0, without a read: it lives as long as the process; a
 * process whose frees are counted, 0: its count is the process's); 0 (no
 * cache) for a version without co_version nor frees counted, or an id that
 * cannot be read.
 */
static __always_inline __u64 py_ident(struct py_walk *w, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct py_layout *l = &w->p.l;
	__u64 interp = py_u64(w->ts_buf, l->ts_interp), id = 0;
	bool frees = w->p.flags & PY_PROC_FREES_COUNTED;
	__u64 h;

	if (!frees && (l->code_version == PY_OFF_NONE || l->interp_id == PY_OFF_NONE))
		return 0;
	if (!frees && (interp != w->p.main_interp || !interp)) { /* the main one's id is 0 */
		if (py_read(w->frame_buf, 8, interp + l->interp_id))
			return 0;
		id = py_u64(w->frame_buf, 0);
	}
	h = py_tag_mix(PY_TAG_MUL, id);
	h = py_tag_mix(h, task->group_leader->start_time);
	h = py_tag_mix(h, task->self_exec_id);
	h = py_tag_mix(h, tgid);
	return h ? h : 1;
}

/*
 * The counter co_version is taken from, for the interpreter of thread state
 * @w->found (its head in w->ts_buf), or process @tgid's frees count, where
 * python_code_cache may use it (w->ident set) and the process has one the
 * walk can read; else 0, as CPython's own is once it ran out.
 */
static __always_inline __u64 py_code_count(struct py_walk *w, __u32 tgid)
{
	const struct py_layout *l = &w->p.l;
	__u64 at = w->p.code_count, *frees, n;

	if (!w->ident)
		return 0;
	if (w->p.flags & PY_PROC_FREES_COUNTED) {
		frees = bpf_map_lookup_elem(&python_frees, &tgid);
		n = frees ? *(volatile __u64 *)frees : 0;
		return (__u32)n < PY_FREES_OUT ? n : 0;
	}
	if (!at && l->interp_code_count != PY_OFF_NONE)
		at = py_u64(w->ts_buf, l->ts_interp) + l->interp_code_count;
	if (!at || py_read(w->code_buf, 4, at))
		return 0;
	return (__u32)py_s32(w->code_buf, 0);
}

/* The frame thread state @w->found (its head in w->ts_buf) runs now; 0: none, or unreadable. */
static __always_inline __u64 py_current_frame(struct py_walk *w)
{
	const struct py_layout *l = &w->p.l;
	__u64 at = py_u64(w->ts_buf, l->ts_frame);

	if (l->cframe_frame == PY_OFF_NONE || !at)
		return at;
	return py_read(w->frame_buf, 8, at + l->cframe_frame) ? 0 : py_u64(w->frame_buf, 0);
}

#define PY_STACK_SEED 0x5059 /* "PY": a Python stack never hashes as a native one would */

/*
 * Walks the Python frames of the current thread (key @key's) into its
 * Python scratch record, when its process is a Python one the loader
 * described, and sets key->pystack; key->pyerr says why there is none.
 * Each walk is counted by how it ended.
 */
static __always_inline void walk_python_side(struct stack_key *key)
{
	struct sent_pystack *t;
	const struct py_proc *p;
	struct py_walk *w;
	__u32 end;

	key->pyerr = STACK_NOT_WALKED;
	if (!walk_python || !(p = bpf_map_lookup_elem(&python_procs, &key->tgid)))
		return;
	if (!(p->flags & PY_PROC_SUPPORTED) ||
	    !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop)) {
		stat_add(STAT_PYWALK + PY_END_UNSUPPORTED, 1);
		return;
	}
	w = py_walk_state();
	t = py_scratch();
	if (!w || !t)
		return;
	w->p = *p;
	w->seq++;
	w->nr = 0;
	w->win_hi = 0;
	w->last = 0;
	w->end = PY_END_DEPTH; /* unless a step says otherwise: it ran out of steps */
	key->pyerr = STACK_NO_PYTHON;
	if (!py_find_thread(w, key->tgid, key->pid)) {
		stat_add(STAT_PYWALK + PY_END_NO_THREAD, 1);
		return;
	}
	w->ident = py_ident(w, key->tgid);
	w->count = py_code_count(w, key->tgid);
	w->frame = py_current_frame(w);
	bpf_loop(2 * PY_MAX_DEPTH + 2, py_frame_step, NULL, 0); /* frames and shims */
	end = w->end < PY_END_NR ? w->end : PY_END_DEPTH;
	stat_add(STAT_PYWALK + end, 1);
	if (!w->nr)
		return;
	t->nr = w->nr * PY_WORDS_PER_FRAME;
	t->end = end;
	t->hash = hash_step(HASH_MUL, PY_STACK_SEED);
	for (__u32 i = 0; i < PY_WORDS_PER_FRAME * PY_MAX_DEPTH; i++) {
		if (i >= t->nr)
			break;
		t->hash = hash_step(t->hash, t->words[i]);
	}
	t->hash = hash_end(t->hash, t->nr | end << 16);
	key->pystack = t->hash;
	key->pyerr = 0;
}

/*
 * Sends the Python stack of hash @hash from its scratch record, unless the
 * seen map says it was. A record that holds another stack was not walked
 * for this event: off-CPU mode counts a wait when it closes, its stacks
 * sent when it opened. Returns 0, or a negative errno (counted with the
 * user stacks' failures: the Python stack is part of the user side).
 */
static __always_inline long send_python_walked(__u64 hash)
{
	struct sent_pystack *t = py_scratch();
	__u32 nr;
	long err;

	if (!t)
		return -EFAULT;
	if (t->hash != hash)
		return 0;
	nr = t->nr;
	if (nr > PY_WORDS_PER_FRAME * PY_MAX_DEPTH)
		nr = PY_WORDS_PER_FRAME * PY_MAX_DEPTH;
	t->kind = SENT_PYSTACK;
	err = send_once(t, hash, SENT_STACK_HEAD + nr * sizeof(__u64));
	if (err)
		stack_failed(err, true);
	return err;
}

#endif
