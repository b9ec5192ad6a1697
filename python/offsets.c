// SPDX-License-Identifier: GPL-2.0
/*
 * offsets: the tables of 3.10, 3.11 and 3.12 below are offsetof() of the
 * fields in CPython's own headers (Include/internal/pycore_runtime.h,
 * pycore_interp.h, pycore_frame.h, Include/cpython/pystate.h, code.h,
 * frameobject.h, unicodeobject.h), the same in every release of a minor
 * version on x86-64 and arm64 (64-bit pointers, 32-bit ints);
 * tests/unit/test_python.c checks them against the headers of the
 * interpreters installed here, compiled apart (tests/tools/py_offsets.c).
 */
#include "python/offsets.h"

#include <errno.h>
#include <string.h>

#define NONE PY_OFF_NONE

static const struct py_layout table_310 = {
	.runtime_interp_head = 32, .runtime_interp_main = NONE, .interp_next = 0,
	.interp_threads = 8, .interp_id = NONE,
	.interp_code_count = NONE,
	.ts_next = 8, .ts_interp = 16, .ts_thread_id = 176, .ts_native_id = NONE,
	.ts_frame = 24, .cframe_frame = NONE,
	.frame_code = 32, .frame_back = 24, .frame_instr = 96, .frame_entry = NONE,
	.frame_owner = NONE,
	.code_adaptive = NONE, .code_filename = 104, .code_name = 112, .code_linetable = 120,
	.code_firstlineno = 40, .code_argcount = 16, .code_version = NONE,
	.str_length = 16, .str_state = 32, .str_ascii_size = 48, .str_compact_size = 72,
	.bytes_size = 16, .bytes_data = 32,
	.model = PY_FRAMES_310,
};

static const struct py_layout table_311 = {
	.runtime_interp_head = 40, .runtime_interp_main = NONE, .interp_next = 0,
	.interp_threads = 16, .interp_id = NONE,
	.interp_code_count = NONE,
	.ts_next = 8, .ts_interp = 16, .ts_thread_id = 152, .ts_native_id = 160,
	.ts_frame = 56, .cframe_frame = 8,
	.frame_code = 32, .frame_back = 48, .frame_instr = 56, .frame_entry = 68,
	.frame_owner = 69,
	.code_adaptive = 184, .code_filename = 112, .code_name = 128, .code_linetable = 136,
	.code_firstlineno = 72, .code_argcount = 56, .code_version = NONE,
	.str_length = 16, .str_state = 32, .str_ascii_size = 48, .str_compact_size = 72,
	.bytes_size = 16, .bytes_data = 32,
	.model = PY_FRAMES_311,
};

static const struct py_layout table_312 = {
	.runtime_interp_head = 40, .runtime_interp_main = 48, .interp_next = 0,
	.interp_threads = 72, .interp_id = 8,
	.interp_code_count = NONE, /* 3.12 counts in a global: struct py_proc's code_count */
	.ts_next = 8, .ts_interp = 16, .ts_thread_id = 136, .ts_native_id = 144,
	.ts_frame = 56, .cframe_frame = 0,
	.frame_code = 0, .frame_back = 8, .frame_instr = 56, .frame_entry = NONE,
	.frame_owner = 70,
	.code_adaptive = 192, .code_filename = 112, .code_name = 128, .code_linetable = 136,
	.code_firstlineno = 68, .code_argcount = 52, .code_version = 92,
	.str_length = 16, .str_state = 32, .str_ascii_size = 40, .str_compact_size = 56,
	.bytes_size = 16, .bytes_data = 32,
	.model = PY_FRAMES_312,
};

/* The read size covering the fields @offs (each a word at most), rounded up to 8 bytes. */
static __u16 bytes_covering(const __u16 *offs, size_t n)
{
	unsigned int end = 0;

	for (size_t i = 0; i < n; i++)
		if (offs[i] != NONE && offs[i] + 8u > end)
			end = offs[i] + 8u;
	return (__u16)((end + 7) & ~7u);
}

/* Sets how much of a thread state, frame and code object the walk reads. */
static void set_read_sizes(struct py_layout *l)
{
	l->ts_bytes = bytes_covering((const __u16[]){ l->ts_next, l->ts_interp, l->ts_thread_id,
						      l->ts_native_id, l->ts_frame }, 5);
	l->frame_bytes = bytes_covering((const __u16[]){ l->frame_back, l->frame_code,
							 l->frame_instr, l->frame_entry,
							 l->frame_owner }, 5);
	l->code_bytes = bytes_covering((const __u16[]){ l->code_filename, l->code_name,
							l->code_linetable, l->code_firstlineno,
							l->code_argcount, l->code_version }, 6);
}

int py_layout__table(uint32_t version, struct py_layout *l)
{
	switch (version) {
	case 0x030a:
		*l = table_310;
		break;
	case 0x030b:
		*l = table_311;
		break;
	case 0x030c:
		*l = table_312;
		break;
	default:
		return -ENOTSUP;
	}
	set_read_sizes(l);
	return 0;
}

/*
 * Where 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h) keeps
 * what the walk needs: each a uint64_t, at these byte offsets of the
 * struct; a struct's own size comes first in it.
 */
enum debug_offsets_313 {
	DO_VERSION = 8,
	DO_FREE_THREADED = 16,
	DO_RUNTIME_SIZE = 24,
	DO_RUNTIME_INTERP_HEAD = 40,
	DO_INTERP_SIZE = 48,
	DO_INTERP_ID = 56,
	DO_INTERP_NEXT = 64,
	DO_INTERP_THREADS = 72,
	DO_INTERP_GC = 80,
	DO_INTERP_IMPORTS_MODULES = 88,
	DO_INTERP_SYSDICT = 96,
	DO_INTERP_BUILTINS = 104,
	DO_TS_SIZE = 152,
	DO_TS_NEXT = 168,
	DO_TS_INTERP = 176,
	DO_TS_FRAME = 184,
	DO_TS_THREAD_ID = 192,
	DO_TS_NATIVE_ID = 200,
	DO_FRAME_SIZE = 224,
	DO_FRAME_BACK = 232,
	DO_FRAME_CODE = 240,
	DO_FRAME_INSTR = 248,
	DO_FRAME_OWNER = 264,
	DO_CODE_SIZE = 272,
	DO_CODE_FILENAME = 280,
	DO_CODE_QUALNAME = 296,
	DO_CODE_LINETABLE = 304,
	DO_CODE_FIRSTLINENO = 312,
	DO_CODE_ARGCOUNT = 320,
	DO_CODE_ADAPTIVE = 344,
	DO_BYTES_SIZE = 512,
	DO_BYTES_OB_SIZE = 520,
	DO_BYTES_SVAL = 528,
	DO_STR_SIZE = 536,
	DO_STR_STATE = 544,
	DO_STR_LENGTH = 552,
	DO_STR_ASCII_SIZE = 560,
	DO_END = 584,
};

static uint64_t word_at(const uint8_t *buf, size_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/*
 * A field's offset inside a struct of the size at @size_at, a word there
 * ending within @limit bytes (at most 0x10000): into *@out.
 */
static bool field(const uint8_t *buf, size_t size_at, size_t at, uint64_t limit, __u16 *out)
{
	uint64_t size = word_at(buf, size_at), off = word_at(buf, at);

	if (off >= size || off > limit || limit - off < 8)
		return false;
	*out = (__u16)off;
	return true;
}

/*
 * Where co_version is in 3.13's code objects: the debug offsets do not say.
 * In the code object CPython's headers lay out (tests/unit/test_python.c
 * checks), it is at 92, before co_localsplusnames, co_localspluskinds and
 * co_filename; a build with the other fields elsewhere has it nowhere the
 * walk would trust (PY_OFF_NONE: its code objects are tagged at each walk).
 */
static __u16 code_version_313(const struct py_layout *l)
{
	return l->code_filename == 112 && l->code_name == 128 && l->code_linetable == 136 &&
		       l->code_firstlineno == 68 && l->code_argcount == 52
		       ? 92
		       : NONE;
}

/*
 * Where 3.13's interpreter keeps the counter co_version is taken from
 * (PyInterpreterState.func_state.next_version): the debug offsets do not
 * say either. Trusted only in the interpreter state CPython's headers lay
 * out (tests/unit/test_python.c checks): of its size, with the fields the
 * debug offsets give where the headers put them; else PY_OFF_NONE (no
 * counter: each walk reads each code object's version).
 */
static __u16 interp_code_count_313(const uint8_t *buf)
{
	static const struct {
		size_t at;
		uint64_t value;
	} expect[] = {
		{ DO_INTERP_SIZE, 194968 },	  { DO_INTERP_ID, 7272 },
		{ DO_INTERP_NEXT, 7264 },	  { DO_INTERP_THREADS, 7344 },
		{ DO_INTERP_GC, 7400 },		  { DO_INTERP_IMPORTS_MODULES, 7656 },
		{ DO_INTERP_SYSDICT, 7640 },	  { DO_INTERP_BUILTINS, 7648 },
	};

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		if (word_at(buf, expect[i].at) != expect[i].value)
			return NONE;
	return 17000;
}

int py_layout__debug_offsets(const uint8_t *buf, size_t len, struct py_layout *l,
			     uint64_t *hexversion)
{
	bool ok;

	if (len < DO_END || memcmp(buf, "xdebugpy", 8) != 0)
		return -EPROTO;
	*hexversion = word_at(buf, DO_VERSION);
	if ((*hexversion >> 16) != 0x030d || word_at(buf, DO_FREE_THREADED) != 0)
		return -EPROTO;
	memset(l, 0, sizeof(*l));
	l->ts_native_id = NONE;
	ok = field(buf, DO_RUNTIME_SIZE, DO_RUNTIME_INTERP_HEAD, 0x10000,
		   &l->runtime_interp_head) &&
	     field(buf, DO_INTERP_SIZE, DO_INTERP_NEXT, 0x10000, &l->interp_next) &&
	     field(buf, DO_INTERP_SIZE, DO_INTERP_THREADS, 0x10000, &l->interp_threads) &&
	     field(buf, DO_INTERP_SIZE, DO_INTERP_ID, 0x10000, &l->interp_id) &&
	     field(buf, DO_TS_SIZE, DO_TS_NEXT, PY_READ_MAX, &l->ts_next) &&
	     field(buf, DO_TS_SIZE, DO_TS_INTERP, PY_READ_MAX, &l->ts_interp) &&
	     field(buf, DO_TS_SIZE, DO_TS_THREAD_ID, PY_READ_MAX, &l->ts_thread_id) &&
	     field(buf, DO_TS_SIZE, DO_TS_NATIVE_ID, PY_READ_MAX, &l->ts_native_id) &&
	     field(buf, DO_TS_SIZE, DO_TS_FRAME, PY_READ_MAX, &l->ts_frame) &&
	     field(buf, DO_FRAME_SIZE, DO_FRAME_BACK, PY_READ_MAX, &l->frame_back) &&
	     field(buf, DO_FRAME_SIZE, DO_FRAME_CODE, PY_READ_MAX, &l->frame_code) &&
	     field(buf, DO_FRAME_SIZE, DO_FRAME_INSTR, PY_READ_MAX, &l->frame_instr) &&
	     field(buf, DO_FRAME_SIZE, DO_FRAME_OWNER, PY_READ_MAX, &l->frame_owner) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_FILENAME, PY_READ_MAX, &l->code_filename) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_QUALNAME, PY_READ_MAX, &l->code_name) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_LINETABLE, PY_READ_MAX, &l->code_linetable) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_FIRSTLINENO, PY_READ_MAX, &l->code_firstlineno) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_ARGCOUNT, PY_READ_MAX, &l->code_argcount) &&
	     field(buf, DO_CODE_SIZE, DO_CODE_ADAPTIVE, 0x10000, &l->code_adaptive) &&
	     field(buf, DO_BYTES_SIZE, DO_BYTES_OB_SIZE, PY_STR_READ, &l->bytes_size) &&
	     field(buf, DO_BYTES_SIZE, DO_BYTES_SVAL, PY_STR_READ, &l->bytes_data) &&
	     field(buf, DO_STR_SIZE, DO_STR_STATE, PY_STR_READ, &l->str_state) &&
	     field(buf, DO_STR_SIZE, DO_STR_LENGTH, PY_STR_READ, &l->str_length);
	/*
	 * The text of an ascii string follows the PyASCIIObject; a compact
	 * one's the PyCompactUnicodeObject, which adds utf8_length and utf8
	 * to it (3.12 on): the debug offsets give only the first.
	 */
	l->str_ascii_size = (__u16)word_at(buf, DO_STR_ASCII_SIZE);
	l->str_compact_size = (__u16)(l->str_ascii_size + 16);
	if (!ok || word_at(buf, DO_STR_ASCII_SIZE) > PY_STR_READ - PY_TAG_TEXT - 16)
		return -EPROTO;
	l->cframe_frame = NONE;
	l->frame_entry = NONE;
	l->code_version = code_version_313(l);
	l->interp_code_count = l->code_version != NONE ? interp_code_count_313(buf) : NONE;
	/* struct pyinterpreters: head, then main (the headers': tests/unit/test_python.c) */
	l->runtime_interp_main = l->runtime_interp_head < 0xfff0 ? l->runtime_interp_head + 8 : NONE;
	l->model = PY_FRAMES_312;
	set_read_sizes(l);
	return 0;
}

/* Reads the word at @addr + @off into *@v: 0, or -errno. */
static int read_field(const struct py_mem *mem, uint64_t addr, __u16 off, uint64_t *v)
{
	return py_mem__word(mem, addr + off, v);
}

int py_layout__check(const struct py_mem *mem, const struct py_proc *p,
		     py_has_thread_fn *has_thread, void *ctx)
{
	const struct py_layout *l = &p->l;
	uint64_t interp, tstate, back, id, next, frame;
	int err;

	err = read_field(mem, p->runtime, l->runtime_interp_head, &interp);
	if (err)
		return err;
	if (!interp)
		return -EAGAIN;
	err = read_field(mem, interp, l->interp_threads, &tstate) ?:
	      read_field(mem, interp, l->interp_next, &next);
	if (err)
		return err == -EFAULT ? -EPROTO : err;
	if (!tstate)
		return -EAGAIN;
	err = read_field(mem, tstate, l->ts_interp, &back) ?:
	      read_field(mem, tstate,
			 l->ts_native_id != NONE ? l->ts_native_id : l->ts_thread_id, &id) ?:
	      read_field(mem, tstate, l->ts_frame, &frame);
	if (err)
		return err == -EFAULT ? -EPROTO : err;
	if (next && py_mem__word(mem, next, &next))
		return -EPROTO;
	if (back != interp || !id)
		return -EPROTO;
	if (l->ts_native_id != NONE && !has_thread(ctx, id & 0xffffffffu))
		return id > 0xffffffffu ? -EPROTO : -EAGAIN;
	return 0;
}
