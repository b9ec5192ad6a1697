// SPDX-License-Identifier: GPL-2.0
/*
 * cold_stacks: copied user stacks walked in user space, now or once their
 * tables are in. A sample kept owns copies of everything the capture lent
 * it for the drain (its kernel frames, its copy).
 */
#include "live/cold_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"

struct kept {
	struct capture_stack st; /* kips, pywords and the copy point into @mem */
	void *mem;
	size_t bytes;
	double since;
};

struct cold_stacks {
	struct kept *kept;
	size_t n, cap;
	struct cold_stats st;
};

struct cold_stacks *cold_stacks__new(void)
{
	return calloc(1, sizeof(struct cold_stacks));
}

/* The walk's view of a process's code: the unwinder's, for one process. */
struct proc_code {
	struct unwinder *u;
	uint32_t tgid;
};

static enum stack_walk_code code_at(void *ctx, uint64_t addr, struct unwind_rule *r)
{
	struct proc_code *p = ctx;

	return unwinder__code_at(p->u, p->tgid, addr, r);
}

/*
 * Walks the copy of @st with @u into @ips (room for MAX_STACK_DEPTH);
 * returns how many, *@end why it ended (STACK_WALK_NOT_READY: a table is
 * not in yet; cut there unless @final says to take what it has).
 */
static uint32_t walk(struct unwinder *u, const struct capture_stack *st, uint64_t *ips,
		     uint32_t *end)
{
	struct proc_code p = { u, st->tgid };
	struct stack_walk_source src = { code_at, &p };

	return stack_walk(&src, &st->ucopy, ips, MAX_STACK_DEPTH, end);
}

/* Passes @st to @fn with its user side the @n frames at @ips, walked to @end. */
static void pass_on(struct cold_stacks *c, const struct capture_stack *st, const uint64_t *ips,
		    uint32_t n, uint32_t end, capture_stack_fn fn, void *ctx)
{
	struct capture_stack walked = *st;

	if (end == STACK_WALK_NOT_READY)
		end = UNWIND_NOT_LOADED; /* gave up waiting: cut where the table was missing */
	/* One walk per copy, as the BPF walk counts them (off-CPU: a wait's, when it opens). */
	if (st->ucopy_new)
		c->st.walks[end == STACK_WALK_COPY_SHORT ? COLD_COPY_SHORT : end]++;
	walked.uips = ips;
	walked.nu = n;
	walked.uend = end == STACK_WALK_COPY_SHORT ? UNWIND_UNREADABLE : end;
	walked.ucopy = (struct stack_copy){ 0 };
	fn(ctx, &walked);
}

/*
 * Keeps a copy of @st, taken at @now, of all the capture lent it for the
 * drain (its kernel frames, its Python frames' words, the frames found,
 * the stack's bytes); false when out of memory (then it is passed on cut).
 */
static bool keep(struct cold_stacks *c, const struct capture_stack *st, double now)
{
	size_t kbytes = st->nk * sizeof(uint64_t), fbytes = st->ucopy.nfound * sizeof(uint64_t);
	size_t pybytes = st->npy * sizeof(uint64_t);
	size_t bytes = kbytes + pybytes + fbytes + st->ucopy.len;
	struct kept *k;
	uint8_t *mem;

	if (array__grow((void **)&c->kept, &c->cap, c->n + 1, sizeof(*c->kept), 64) ||
	    !(mem = malloc(bytes ? bytes : 1)))
		return false;
	k = &c->kept[c->n++];
	k->st = *st;
	k->mem = mem;
	k->bytes = bytes;
	k->since = now;
	if (kbytes) { /* no kernel side: kips NULL */
		memcpy(mem, st->kips, kbytes);
		k->st.kips = (const uint64_t *)mem;
	}
	if (pybytes) { /* no Python frames: pywords NULL */
		memcpy(mem + kbytes, st->pywords, pybytes);
		k->st.pywords = (const uint64_t *)(mem + kbytes);
	}
	mem += kbytes + pybytes; /* 8-byte words so far: the frames found stay aligned */
	memcpy(mem, st->ucopy.found, fbytes);
	k->st.ucopy.found = (const uint64_t *)mem;
	memcpy(mem + fbytes, st->ucopy.bytes, st->ucopy.len);
	k->st.ucopy.bytes = mem + fbytes;
	c->st.kept++;
	c->st.bytes += bytes;
	c->st.waited++;
	return true;
}

void cold_stacks__take(struct cold_stacks *c, struct unwinder *u, const struct capture_stack *st,
		       double now, capture_stack_fn fn, void *ctx)
{
	uint64_t ips[MAX_STACK_DEPTH];
	uint32_t end, n = walk(u, st, ips, &end);

	if (end == STACK_WALK_NOT_READY && c->st.bytes + st->ucopy.len <= COLD_MAX_BYTES &&
	    keep(c, st, now))
		return;
	pass_on(c, st, ips, n, end, fn, ctx);
}

/* Forgets kept sample @i (the last one takes its place). */
static void drop(struct cold_stacks *c, size_t i)
{
	c->st.kept--;
	c->st.bytes -= c->kept[i].bytes;
	free(c->kept[i].mem);
	c->kept[i] = c->kept[--c->n];
}

void cold_stacks__retry(struct cold_stacks *c, struct unwinder *u, double now, bool final,
			capture_stack_fn fn, void *ctx)
{
	uint64_t ips[MAX_STACK_DEPTH];
	uint32_t asked = 0; /* the last process asked about, and its answer: one look at /proc */
	bool may = true;

	for (size_t i = 0; i < c->n;) {
		struct kept *k = &c->kept[i];
		uint32_t end, n = walk(u, &k->st, ips, &end);

		if (end == STACK_WALK_NOT_READY && k->st.tgid != asked) {
			asked = k->st.tgid;
			may = unwinder__may_describe(u, asked);
		}
		if (end == STACK_WALK_NOT_READY && !final && now - k->since < COLD_MAX_AGE && may) {
			unwinder__keep_process(u, k->st.tgid);
			i++;
			continue;
		}
		c->st.gave_up += end == STACK_WALK_NOT_READY;
		pass_on(c, &k->st, ips, n, end, fn, ctx);
		drop(c, i);
	}
}

void cold_stacks__stats(const struct cold_stacks *c, struct cold_stats *st)
{
	*st = c->st;
}

void cold_stacks__free(struct cold_stacks *c)
{
	if (!c)
		return;
	while (c->n)
		drop(c, c->n - 1);
	free(c->kept);
	free(c);
}
