/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folded: the flame-graph interchange format, one stack per line:
 *   comm;outermost;...;leaf count
 * with kernel frames suffixed "_[k]", as flamegraph.pl and bcc's profile use.
 */
#ifndef FLAMETOP_FOLDED_H
#define FLAMETOP_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "profile/line_reader.h"
#include "profile/profile.h"
#include "profile/reader.h"
#include "profile/stack_trie.h"

/*
 * folded__write() prints one line per trie node with a nonzero self count,
 * root to leaf, in the trie's order (a walk: see stack_trie__walk()), its
 * first frames grouped by @group (as the trie was built). A name that would
 * not read back as the same frame is written escaped, "\xHH" (see
 * escape_name() in folded.c): folded__read() reads it back as it was.
 * Returns the number of lines written, or -errno on a write error.
 */
long folded__write(FILE *out, struct stack_trie *t, const struct profile *p,
		   enum profile_group group);

/*
 * folded__read() adds every well-formed line of @r to @p through
 * profile__add(). It reads flametop's own output, stackcollapse-perf.pl's
 * (including "comm-PID" and "comm-PID/TID" process names, whose pid becomes
 * the stack's tgid) and other folded files: frames ending "_[k]" are kernel
 * frames (the suffix is dropped), "[unknown]" and "file+0x..." frames are
 * unnamed. Malformed lines (a count that is not a whole number, an empty
 * frame, a line over 1 MiB, NUL or control bytes) are counted in @st, never
 * fatal. Returns 0, or -errno on a read error or when memory runs out
 * (what was read stays in @p).
 */
int folded__read(struct line_reader *r, struct profile *p, struct input_stats *st);

#endif
