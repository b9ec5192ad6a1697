/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_layout.h: what python/ (which finds a CPython interpreter and its
 * structure offsets in a process) and the BPF Python walk
 * (bpf/python_walk.bpf.h, which follows them) agree on: a process's
 * interpreter described as offsets, the words a walked frame is recorded
 * in, and the tag that ties a recorded code object to the one user space
 * reads later. Plain fixed-size types only; the includer provides __u8 ...
 * __s32 (<linux/types.h> in user space, vmlinux.h in BPF).
 *
 * The walk, for the thread an event met:
 *
 *	interp = *(runtime + runtime_interp_head), then interp_next ...
 *	tstate = *(interp + interp_threads), then ts_next ... until the one
 *		 whose ts_native_id (3.11+) is the thread's id, or whose
 *		 ts_thread_id is its pthread_self() (3.10: the thread pointer)
 *	frame  = *(tstate + ts_frame), through *(frame + cframe_frame) when
 *		 that is set (3.11 and 3.12: the _PyCFrame)
 *	then per frame: its code object at frame_code, the instruction at
 *	frame_instr, the caller at frame_back
 */
#ifndef FLAMETOP_PY_LAYOUT_H
#define FLAMETOP_PY_LAYOUT_H

#define PY_OFF_NONE 0xffff /* the structure has no such field */

/* How a version's frames are chained and where its eval-loop calls begin. */
enum py_frame_model {
	PY_FRAMES_310, /* PyFrameObject: f_back, f_lasti in code units; one eval-loop call each */
	PY_FRAMES_311, /* _PyInterpreterFrame, prev_instr; a call's first frame has is_entry */
	PY_FRAMES_312, /* _PyInterpreterFrame, prev_instr (3.13: instr_ptr); each eval-loop
			* call pushes a shim frame owned by the C stack below its first frame */
};

#define PY_OWNED_BY_CSTACK 3 /* a shim frame (3.12+): no code of its own */

/* Byte offsets of the fields the walk reads, PY_OFF_NONE where a version has none. */
struct py_layout {
	__u16 runtime_interp_head; /* _PyRuntimeState.interpreters.head */
	__u16 runtime_interp_main; /* .interpreters.main (3.12+): the first, whose id is 0 */
	__u16 interp_next;         /* PyInterpreterState.next */
	__u16 interp_threads;      /* .threads.head (3.10: .tstate_head) */
	__u16 interp_id;           /* .id (3.12+): each interpreter's own */
	__u16 interp_code_count;   /* .func_state.next_version (3.13): co_version's counter */
	__u16 ts_next;             /* PyThreadState.next */
	__u16 ts_interp;           /* .interp */
	__u16 ts_thread_id;        /* .thread_id: pthread_self() of its thread */
	__u16 ts_native_id;        /* .native_thread_id (3.11+) */
	__u16 ts_frame;            /* .frame (3.10), .cframe (3.11, 3.12), .current_frame (3.13) */
	__u16 cframe_frame;        /* _PyCFrame.current_frame (3.11, 3.12) */
	__u16 frame_code;          /* f_code (3.13: f_executable) */
	__u16 frame_back;          /* f_back (3.10), previous */
	__u16 frame_instr;         /* f_lasti (3.10, an int), prev_instr (3.13: instr_ptr) */
	__u16 frame_entry;         /* is_entry (3.11) */
	__u16 frame_owner;         /* owner (3.11+) */
	__u16 code_adaptive;       /* PyCodeObject.co_code_adaptive (3.11+): its first code unit */
	__u16 code_filename;       /* co_filename */
	__u16 code_name;           /* co_qualname (3.11+), co_name (3.10) */
	__u16 code_linetable;      /* co_linetable */
	__u16 code_firstlineno;    /* co_firstlineno (an int) */
	__u16 code_argcount;       /* co_argcount (an int) */
	__u16 code_version;        /* co_version (3.12+): each code object's own */
	__u16 str_length;          /* PyASCIIObject.length */
	__u16 str_state;           /* .state: kind, compact and ascii bits */
	__u16 str_ascii_size;      /* sizeof(PyASCIIObject): where an ascii string's text begins */
	__u16 str_compact_size;    /* sizeof(PyCompactUnicodeObject): a compact one's */
	__u16 bytes_size;          /* PyBytesObject.ob_size (user space: the line table) */
	__u16 bytes_data;          /* .ob_sval */
	__u16 ts_bytes;            /* bytes of a thread state the walk reads: its fields above */
	__u16 frame_bytes;         /* ... of a frame */
	__u16 code_bytes;          /* ... of a code object */
	__u8 model;                /* enum py_frame_model */
	__u8 pad;
};

#define PY_PROC_SUPPORTED 1 /* the layout checked out: walk; else count "unsupported build" */
/*
 * The process's code objects' frees are counted (3.10, 3.11: a probe on its
 * code_dealloc() adds to its python_frees entry, made before this is set),
 * as 3.12+ count the code objects made: the walk's code cache may use it.
 */
#define PY_PROC_FREES_COUNTED 2

/*
 * A python_frees entry: epoch << 32 | frees + 1. The epoch (never 0) is one
 * of the probe it was made with, so a count under one probe never equals one
 * under another (frees are not seen while none is attached); frees that
 * reach PY_FREES_OUT count as none from then on.
 */
#define PY_FREES_OUT 0xffff0000u

/* A Python process, as the loader describes it to the walk (the python_procs map, by tgid). */
struct py_proc {
	__u64 runtime;  /* the address of _PyRuntime in the process */
	__u64 code_count; /* the address of _Py_next_func_version (3.12, from .symtab); 0: none */
	__u64 main_interp; /* the main interpreter (3.12+: lives as long as the process); 0: none */
	__u32 version;  /* major << 8 | minor, e.g. 0x030b */
	__u32 flags;    /* PY_PROC_* */
	struct py_layout l;
};

/*
 * Bounds the walk and its readers keep: a frame or code object is read in
 * one piece of at most PY_READ_MAX bytes, a string's head and the start of
 * its text in at most PY_STR_READ.
 */
#define PY_MAX_DEPTH 128
#define PY_READ_MAX 256
#define PY_STR_READ 128
#define PY_TAG_TEXT 48 /* bytes of a string's text the tag covers */

/*
 * A walked frame is two words: the code object's address, then
 * tag << 32 | entry | lasti. @lasti is the instruction the frame is at, in
 * code units from the code's first (PY_LASTI_NONE: not known, or before
 * the first); PY_ENTRY marks the outermost frame of one call of the eval
 * loop (the frames above it, up to the next such, run in that call).
 */
#define PY_WORDS_PER_FRAME 2
#define PY_ENTRY 0x80000000u
#define PY_LASTI_NONE 0x7fffffffu

static inline __u64 py_frame_word(__u32 tag, int entry, __u32 lasti)
{
	return (__u64)tag << 32 | (entry ? PY_ENTRY : 0) | (lasti & PY_LASTI_NONE);
}

/*
 * The tag of a code object: a 32-bit hash of what names it: its first
 * line, argument count and line table's address, and for its name
 * (co_qualname; 3.10: co_name) and its file each the string's address,
 * length, kind bits and first PY_TAG_TEXT bytes of text. A code object
 * freed and another made at its address gets another tag unless all of
 * these are alike. Never 0: 0 is "could not be read".
 */
#define PY_TAG_MUL 0x9E3779B97F4A7C15ULL

static inline __u64 py_tag_mix(__u64 h, __u64 v)
{
	h = (h ^ v) * PY_TAG_MUL;
	return h ^ (h >> 29);
}

/* Mixes @n (at most PY_TAG_TEXT) bytes of text at @text, which may be read to PY_TAG_TEXT. */
static inline __u64 py_tag_text(__u64 h, const __u8 *text, __u32 n)
{
	for (__u32 i = 0; i < PY_TAG_TEXT / 8; i++) {
		__u64 w, mask;

		if (n <= i * 8)
			break;
		__builtin_memcpy(&w, text + i * 8, 8);
		mask = n >= i * 8 + 8 ? ~0ULL : (1ULL << (8 * (n - i * 8))) - 1;
		h = py_tag_mix(h, w & mask);
	}
	return h;
}

static inline __u32 py_tag_end(__u64 h)
{
	__u32 tag = (__u32)(h ^ (h >> 32));

	return tag ? tag : 1;
}

/* A string's kind, compact and ascii bits in its state word (3.10 to 3.13 alike). */
#define PY_STR_BITS 0x7c
#define PY_STR_KIND(state) (((state) >> 2) & 7)
#define PY_STR_COMPACT 0x20
#define PY_STR_ASCII 0x40
#define PY_STR_MAX_LENGTH (1LL << 30) /* characters: a longer "string" is garbage */

/* Whether a string of @length characters and @state is one the tag and the names can read. */
static inline int py_str_readable(__s64 length, __u32 state)
{
	__u32 kind = PY_STR_KIND(state);

	return (state & PY_STR_COMPACT) && (kind == 1 || kind == 2 || kind == 4) && length >= 0 &&
	       length < PY_STR_MAX_LENGTH;
}

/* Where a readable string's text begins, from its address. */
static inline __u32 py_str_text_off(const struct py_layout *l, __u32 state)
{
	return state & PY_STR_ASCII ? l->str_ascii_size : l->str_compact_size;
}

/* The bytes of a readable string's text the tag covers. */
static inline __u32 py_tag_text_bytes(__s64 length, __u32 state)
{
	__u64 n = (__u64)length * PY_STR_KIND(state);

	return n > PY_TAG_TEXT ? PY_TAG_TEXT : (__u32)n;
}

/* The start of a code object's tag: its first line, argument count, line table's address. */
static inline __u64 py_tag_code(__s32 firstlineno, __s32 argcount, __u64 linetable)
{
	__u64 h = py_tag_mix(PY_TAG_MUL, (__u32)firstlineno);

	h = py_tag_mix(h, (__u32)argcount);
	return py_tag_mix(h, linetable);
}

/*
 * A string's part of the tag (never 0): its address, length, kind bits, and
 * the py_tag_text_bytes() bytes of its text at @text (readable to
 * PY_TAG_TEXT). py_tag_mix() puts it in a code object's, name then file.
 */
static inline __u64 py_tag_string(__u64 addr, __s64 length, __u32 state, const __u8 *text)
{
	__u64 h = py_tag_mix(PY_TAG_MUL, addr);

	h = py_tag_mix(h, (__u64)length);
	h = py_tag_mix(h, state & PY_STR_BITS);
	h = py_tag_text(h, text, py_tag_text_bytes(length, state));
	return h ? h : 1;
}

#endif
