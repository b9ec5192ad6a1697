/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hook_chain: try event hooks in order of preference; the first that works
 * wins, and why each better one failed is kept for the user to read.
 *
 * Pure logic over callbacks, so it is tested with injected failures.
 */
#ifndef FLAMETOP_HOOK_CHAIN_H
#define FLAMETOP_HOOK_CHAIN_H

#include <stddef.h>

struct hook_step {
	const char *label; /* what the user reads, e.g. "fentry/vfs_read" */
	const void *arg;   /* the caller's description of the hook */
	/*
	 * Tries to load and attach this hook. Returns 0 on success or -errno.
	 * May write a reason better than strerror() into @why (capacity
	 * @size, already an empty string).
	 */
	int (*attempt)(void *ctx, const struct hook_step *step, char *why, size_t size);
};

/*
 * hook_chain__select() calls each step's attempt() in order until one
 * returns 0, and returns that step's index. Every failure before it is
 * written to @notes as "label: reason", joined by "; " (@notes is always
 * NUL-terminated, truncated to @size). When every step fails, returns the
 * last step's -errno and @notes lists them all. With @n == 0 returns
 * -ENOENT.
 */
int hook_chain__select(const struct hook_step *steps, int n, void *ctx, char *notes, size_t size);

#endif
