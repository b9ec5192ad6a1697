/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_procs: the Python processes of the live source. Each process the
 * capture notes is looked at once per snapshot of its maps: one that maps a
 * CPython interpreter (python/interp.h) has its layout found
 * (python/offsets.h) and checked against its memory, and is described to
 * the BPF walk (bpf/python_maps.h) as walked, or as an unsupported build
 * (counted, never walked: its native frames only). An interpreter not yet
 * running (no thread state) is checked again at later passes.
 *
 * It also names the frames the walk recorded: a code object is read from
 * the process once per (address, tag), kept in a cache bounded by the
 * bytes it holds, and only when its tag is the one recorded: a code object
 * freed and another made at its address never gets the old one's name.
 */
#ifndef FLAMETOP_PYTHON_PROCS_H
#define FLAMETOP_PYTHON_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/python_maps.h"
#include "symbols/procmaps.h"

struct python_procs;

struct python_procs_stats {
	size_t walked;       /* processes described to the walk, their build checked */
	size_t unsupported;  /* ... described as builds that did not check out */
	size_t pending;      /* interpreters found, not running yet: checked again later */
	uint64_t code_reads; /* code objects read from processes */
	uint64_t gone;       /* frames whose code object was gone (another tag) when read */
	uint64_t unreadable; /* frames whose code object could not be read */
	size_t cache_bytes;  /* heap bytes of the code objects kept */
	size_t probed;       /* processes whose code objects' frees a probe counts (3.10, 3.11) */
	size_t frees_busy;   /* ... whose probe was dropped: they freed over FREES_MAX_RATE a second */
	int probe_err;       /* the last probe that could not be attached: -errno; 0: none */
};

/*
 * python_procs__new() makes the BPF map and an empty set; @proc_root (NULL:
 * /proc) is where processes are looked at. Returns 0 with *@out set, or
 * -errno.
 */
int python_procs__new(const char *proc_root, struct python_procs **out);

/* The map a capture walks Python frames with. */
struct python_maps *python_procs__maps(struct python_procs *pp);

/*
 * python_procs__note() looks at process @tgid, whose maps are @maps
 * (generation @maps_gen, the symbolizer's): a generation seen already
 * costs a lookup, and for an interpreter not running yet a check of its
 * memory (a young process is noted every few milliseconds: it is walked
 * from the note after its interpreter starts).
 */
void python_procs__note(struct python_procs *pp, uint32_t tgid, const struct proc_maps *maps,
			uint64_t maps_gen);

/* python_procs__exited() says that process @tgid ended: it is forgotten at the next pass. */
void python_procs__exited(struct python_procs *pp, uint32_t tgid);

/*
 * python_procs__pass() checks again the interpreters that were not running
 * yet (each at most PY_CHECK_TRIES times: then it is an unsupported build),
 * drops the probe of a process that frees code objects faster than
 * FREES_MAX_RATE a second (each free pays for the probe; and a count that
 * always moves keeps nothing), and forgets the processes that ended. Once
 * per drain; @now: CLOCK_MONOTONIC seconds.
 */
#define FREES_MAX_RATE 1000

void python_procs__pass(struct python_procs *pp, double now);

/*
 * python_procs__gen() is a number that changes whenever the names of
 * @tgid's Python frames may: it was described anew (exec, pid reused).
 * 0 when @tgid is not a walked Python process.
 */
uint32_t python_procs__gen(const struct python_procs *pp, uint32_t tgid);

/* What a recorded Python frame was named. */
enum py_name_status {
	PY_NAMED,      /* "qualname (file:LINE)" */
	PY_GONE,       /* the code object there now is another: "[python: code object gone]" */
	PY_UNREADABLE, /* it could not be read: "[python: code object unreadable]" */
};

/*
 * python_procs__name() names the frame the walk recorded in process @tgid
 * as @code (the code object's address) and @word (tag, entry and
 * instruction: python/py_layout.h) into @buf (@size bytes, at least
 * PY_FRAME_NAME_MAX for the whole name; a placeholder otherwise). Returns
 * an enum py_name_status.
 */
int python_procs__name(struct python_procs *pp, uint32_t tgid, uint64_t code, uint64_t word,
		       char *buf, size_t size);

void python_procs__stats(const struct python_procs *pp, struct python_procs_stats *st);

/* python_procs__free(NULL) is a no-op. */
void python_procs__free(struct python_procs *pp);

#endif
