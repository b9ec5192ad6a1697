/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot: the "s" key. Saves the view as shown (window, hidden frames and
 * filters applied) in a file that did not exist before, in the format its
 * name's extension asks for: folded stacks, an SVG flame graph (.svg) or a
 * pprof profile (.pb.gz), as profile/output.h tells them apart.
 */
#ifndef FLAMETOP_SNAPSHOT_H
#define FLAMETOP_SNAPSHOT_H

#include <stddef.h>
#include <time.h>

#include "profile/output.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"

/*
 * snapshot__default_name() writes "flametop-YYYYmmdd-HHMMSS.folded", after
 * the local time @when, to @buf (capacity @size). Returns 0 or -EINVAL.
 */
int snapshot__default_name(time_t when, char *buf, size_t size);

/*
 * snapshot__save() writes the view of @p through @f (a trie of its own: the
 * screen's is left as it is) to a new file at
 * @path in the format its extension names (output__format_of()); when @path
 * is taken, to the first free of "NAME-1.EXT", "NAME-2.EXT", ... The file
 * is written beside (output_file.h) and takes the name only once whole,
 * only where nothing is (a symlink in the way counts as taken and is never
 * followed), mode 0644 less the umask. The path used goes to @saved
 * (capacity @size), the view's total count (its samples, reads, bytes or
 * microseconds) to *@events. Returns what output__write() wrote (stacks,
 * frames or samples), or -errno (no file is left behind then).
 */
long snapshot__save(const char *path, const struct profile *p, const struct view_filter *f,
		    const struct output_info *info, char *saved, size_t size, uint64_t *events);

#endif
