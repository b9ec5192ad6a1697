/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot: the "s" key. Saves the view as shown (window, hidden frames and
 * filters applied) as folded stacks, in a file that did not exist before.
 */
#ifndef FLAMETOP_SNAPSHOT_H
#define FLAMETOP_SNAPSHOT_H

#include <stddef.h>
#include <time.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

/*
 * snapshot__save() writes @t (built from @p) with folded__write() to a new
 * file in directory @dir named flametop-YYYYmmdd-HHMMSS.folded after the
 * local time @when, or, when that name is taken, ...-1.folded, -2, and so
 * on. The file is created with O_EXCL and O_NOFOLLOW (a symlink in the way
 * counts as taken and is never followed), mode 0644. Its path goes to @path
 * (capacity @size). Returns the number of stacks written, or -errno (no
 * file is left behind then).
 */
long snapshot__save(const char *dir, time_t when, const struct stack_trie *t,
		    const struct profile *p, char *path, size_t size);

#endif
