/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge: a thread's Python frames put in place among its native frames.
 * Each call of the interpreter's eval loop (_PyEval_EvalFrameDefault) runs
 * a run of Python frames; the Python walk marks the outermost frame of
 * each run (3.10: every frame; 3.11: is_entry; 3.12+: the frame above a
 * shim owned by the C stack). The merge puts each run right after the
 * eval-loop frame that runs it, so that
 *
 *	outer (app.py:12) -> sorted's C frames -> <lambda> (app.py:13)
 *
 * reads in call order. With -X perf (3.12+) each eval-loop call goes
 * through a "py::name:file" trampoline: those frames go, once Python
 * frames stand for them.
 *
 * When the runs and the eval-loop frames are not as many (a walk cut
 * short, or a sample taken while an eval-loop call begins or ends), they
 * are paired from the end that is whole: from the outermost when neither
 * walk was cut (a call in flux is the innermost), else from the leaf (a
 * cut walk loses its outer frames). Runs left over at the outer end go
 * before every native frame, left over at the inner end after the last
 * pair; eval-loop frames left over keep no run. No frame is ever put out
 * of the order its own walk gave.
 */
#ifndef FLAMETOP_PY_MERGE_H
#define FLAMETOP_PY_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "python/frame_names.h"

struct py_merge_in {
	const uint8_t *roles; /* enum py_native_role of each native frame, outermost first */
	uint32_t nnative;
	bool native_cut;      /* the native walk stopped short of the thread's start */
	const bool *entry;    /* of each Python frame, outermost first: its run's outermost */
	uint32_t npy;
	bool py_cut;          /* the Python walk stopped short (depth limit) */
};

/* A frame of the merged stack: native frame @index, or Python frame @index. */
struct py_merge_out {
	bool python;
	uint32_t index;
};

/*
 * py_merge() writes the merged stack, outermost first, into @out (room for
 * nnative + npy) and returns its length: every Python frame and every
 * native frame but the trampolines (kept when there is no Python frame).
 */
uint32_t py_merge(const struct py_merge_in *in, struct py_merge_out *out);

#endif
