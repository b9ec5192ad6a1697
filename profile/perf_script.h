/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_script: the text `perf script` prints for samples recorded with call
 * graphs (perf record -g), so that `perf script | flametop -i -` browses any
 * perf.data. Each sample is a header line, "comm PID[/TID] [CPU] TIME: ...
 * EVENT:", then one line per frame, leaf first, "\tADDRESS SYMBOL+0xOFF
 * (DSO)", then a blank line.
 */
#ifndef FLAMETOP_PERF_SCRIPT_H
#define FLAMETOP_PERF_SCRIPT_H

#include "profile/line_reader.h"
#include "profile/profile.h"
#include "profile/reader.h"

/*
 * perf_script__read() adds every sample of @r to @p, counting 1 each. The
 * stack is the comm (its tgid the PID, or the one number perf printed),
 * then the frames outermost first. A frame is kernel when its address is
 * in the upper half (a kernel module's frames are "func [module]", as
 * flametop names them live); a frame perf could not name is "[DSO file
 * name]". Offsets ("+0x1f") are dropped. Malformed lines (a header without
 * a process id, a frame line without an address or outside a sample,
 * control bytes, a line over 1 MiB) are counted in @st and skipped.
 * Returns 0, or -errno on a read error or when memory runs out.
 */
int perf_script__read(struct line_reader *r, struct profile *p, struct input_stats *st);

#endif
