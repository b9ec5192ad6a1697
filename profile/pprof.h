/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof: the profile format of pprof (and of Go, Pyroscope, Parca, Grafana,
 * speedscope): a gzip-compressed profile.proto message (profile/pprof.proto),
 * encoded and decoded by protobuf-c.
 *
 * flametop writes one sample per stack: its frames as locations (leaf
 * first), each a function named as flametop names the frame; a named user
 * function whose origin the profile knows (profile__origin()) in a mapping
 * of its file and build-id, at its address in the file, for pprof (and
 * Pyroscope, Parca) to look up its source file and line; kernel frames in
 * the mapping "[kernel.kallsyms]"; frames it could not name
 * ("libc.so.6+0x27249") in a mapping of their file, at their offset; and
 * the labels "comm" (the process frame) and "pid".
 */
#ifndef FLAMETOP_PPROF_H
#define FLAMETOP_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"
#include "profile/reader.h"
#include "profile/stack_trie.h"

struct pprof_info {
	const char *type, *unit; /* the sample type: "samples"/"count", "reads"/"count", ... */
	uint64_t period_ns;      /* nonzero: each count stands for this much CPU time, and a
				  * second sample type "cpu"/"nanoseconds" carries it */
	int64_t time_ns;         /* when the profile began (Unix time), or 0 */
	int64_t duration_ns;     /* how long it ran, or 0 */
};

/*
 * pprof__write() writes the stacks of @p that pass @f (window, pids, comm,
 * text; kernel or user frames dropped as @f hides them) to @out as a
 * gzip-compressed profile. Returns the number of pprof samples written,
 * one per distinct stack (its values the stack's count), or -errno
 * (-ENOMEM, or a write error).
 */
long pprof__write(FILE *out, const struct profile *p, const struct view_filter *f,
		  const struct pprof_info *info);

/*
 * pprof__read() adds the samples of the profile in @data (@len bytes,
 * gzip-compressed or not) to @p. Of several sample types it takes the
 * default one (default_sample_type), else "samples", else the last, as
 * pprof does, and names it in @st->unit. A sample's stack is its process
 * (the label "comm", else the first mapping's file name), then its
 * locations outermost first, inlined functions after their caller; its
 * tgid is the label "pid". Frames in a mapping named "[kernel..." or
 * "vmlinux" are kernel frames; a location without a function is
 * "file+0xoffset". Samples with a negative value are counted as malformed
 * in @st. Returns 0; -EBADMSG with @st->error saying why when @data is not a
 * well-formed profile; -EFBIG when it inflates past 1 GiB; or -ENOMEM.
 */
int pprof__read(const void *data, size_t len, struct profile *p, struct input_stats *st);

#endif
