/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folded: the flame-graph interchange format, one stack per line:
 *   comm;outermost;...;leaf count
 * with kernel frames suffixed "_[k]", as flamegraph.pl and bcc's profile use.
 */
#ifndef FLAMETOP_FOLDED_H
#define FLAMETOP_FOLDED_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

/*
 * folded__write() prints one line per trie node with a nonzero self count,
 * root to leaf, in the trie's order. A ';' inside a frame name is written
 * as ':' so it cannot split the frame. Returns the number of lines written,
 * or -errno on a write error.
 */
long folded__write(FILE *out, const struct stack_trie *t, const struct profile *p);

#endif
