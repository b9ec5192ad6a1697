// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpf/hook_chain.h"

static void note_failure(char *notes, size_t size, const char *label, const char *why)
{
	size_t used = strlen(notes);

	if (used + 1 >= size)
		return;
	snprintf(notes + used, size - used, "%s%s: %s", used ? "; " : "", label, why);
}

int hook_chain__select(const struct hook_step *steps, int n, void *ctx, char *notes, size_t size)
{
	int err = -ENOENT;

	if (size)
		notes[0] = '\0';
	for (int i = 0; i < n; i++) {
		char why[256] = "";

		err = steps[i].attempt(ctx, &steps[i], why, sizeof(why));
		if (err == 0)
			return i;
		if (err > 0)
			err = -err;
		if (size)
			note_failure(notes, size, steps[i].label, why[0] ? why : strerror(-err));
	}
	return err;
}
