/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input: a profile read from a file, in whichever format it is: folded
 * stacks, the text of `perf script`, bpftrace's print of a map keyed by
 * stacks, or a pprof profile (gzip-compressed or not), told apart by their
 * content. It only tells them apart: each format has its reader, and every
 * reader feeds profile__add(), as the live capture does, through the
 * helpers they share (reader.h).
 */
#ifndef FLAMETOP_INPUT_H
#define FLAMETOP_INPUT_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/reader.h"

/* The format's name, for messages: "folded", "perf script", "pprof", "bpftrace". */
const char *input__format_name(enum input_format f);

/*
 * input__read() reads every stack of @in into @p, whatever the format,
 * leaving them in the order they came (a view groups them as it makes its
 * nodes, and then reads the stacks in the order they lie in memory).
 * Returns 0; -EBADMSG for an input that is not a profile, with @st->error
 * saying why; -EFBIG for a pprof profile over 1 GiB; or -errno on a read
 * error or when memory runs out. What was read stays in @p.
 */
int input__read(FILE *in, struct profile *p, struct input_stats *st);

#endif
