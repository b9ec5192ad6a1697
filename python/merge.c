// SPDX-License-Identifier: GPL-2.0
/*
 * merge: the Python frames are taken in order by a cursor, a run at a
 * time; the eval-loop frames are numbered from the outermost, and eval
 * frame e runs run e + shift, shift 0 when paired from the outermost,
 * runs - evals when from the leaf.
 */
#include "python/merge.h"

/* The next Python frame to put out, and the run it is in. */
struct py_cursor {
	const struct py_merge_in *in;
	struct py_merge_out *out;
	uint32_t nout;
	uint32_t next, run;
};

/* Puts out the Python frames of every run up to @run (those left before it too). */
static void put_runs_through(struct py_cursor *c, int64_t run)
{
	while (c->next < c->in->npy && (int64_t)c->run <= run) {
		c->out[c->nout++] = (struct py_merge_out){ true, c->next++ };
		if (c->next < c->in->npy && c->in->entry[c->next])
			c->run++;
	}
}

uint32_t py_merge(const struct py_merge_in *in, struct py_merge_out *out)
{
	struct py_cursor c = { in, out, 0, 0, 0 };
	bool from_root = !in->native_cut && !in->py_cut;
	uint32_t runs = in->npy ? 1 : 0, evals = 0, e = 0;
	int64_t shift, last_pair;

	for (uint32_t i = 1; i < in->npy; i++)
		runs += in->entry[i];
	for (uint32_t i = 0; i < in->nnative; i++)
		evals += in->roles[i] == PY_NATIVE_EVAL;
	shift = from_root ? 0 : (int64_t)runs - evals;
	last_pair = (int64_t)(evals < runs ? evals : runs) - 1; /* from the root: its last pair */
	/* Runs no eval frame pairs with at the outer end (all of them when there is none). */
	put_runs_through(&c, evals ? shift - 1 : (int64_t)runs - 1);
	for (uint32_t i = 0; i < in->nnative; i++) {
		if (in->roles[i] == PY_NATIVE_TRAMPOLINE && in->npy)
			continue;
		out[c.nout++] = (struct py_merge_out){ false, i };
		if (in->roles[i] != PY_NATIVE_EVAL)
			continue;
		put_runs_through(&c, e + shift);
		if (from_root && e == last_pair)
			put_runs_through(&c, (int64_t)runs - 1); /* left over at the inner end */
		e++;
	}
	return c.nout;
}
