// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_input: input__read() on any bytes, whatever format they look like
 * (folded stacks, perf script's text, bpftrace's map print, pprof gzip'd or
 * not), then the views a viewer makes of what was read: sorted, packed,
 * grouped by thread, a trie walked whole. It must never crash, leak or
 * misbehave, whatever it is fed (libFuzzer, ASan, UBSan: make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/input.h"
#include "profile/stack_trie.h"

/* Counts the nodes of a walk: every node made, every chain's frames. */
static bool count_node(void *ctx, const struct stack_trie *t, uint32_t node)
{
	(void)t, (void)node;
	++*(size_t *)ctx;
	return true;
}

static void count_chain(void *ctx, const struct stack_trie *t, uint32_t above,
			const uint32_t *frames, uint32_t n, uint64_t count)
{
	(void)t, (void)above, (void)frames, (void)count;
	*(size_t *)ctx += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile__new();
	FILE *in = size ? fmemopen((void *)data, size, "r") : NULL;
	struct view_filter by_thread = {.window = WINDOW_CUMULATIVE, .group = GROUP_TID};
	struct input_stats st;
	struct stack_trie t;
	size_t nodes = 0;

	if (!p || !in) {
		profile__free(p);
		if (in)
			fclose(in);
		return 0;
	}
	if (!input__read(in, p, &st) && !profile__sort(p) && !profile__pack(p) &&
	    !profile__group(p, GROUP_TID)) {
		stack_trie__init(&t);
		if (!stack_trie__build(&t, p, &by_thread))
			stack_trie__walk(&t,
					 &(struct trie_visitor){count_node, count_chain, &nodes});
		stack_trie__free(&t);
	}
	fclose(in);
	profile__free(p);
	return 0;
}
