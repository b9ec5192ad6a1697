/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpftrace: what bpftrace prints of a map keyed by stacks when it exits,
 * as `bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }'`
 * prints it:
 *
 *   @[
 *       read_zero+16
 *       vfs_read+187
 *   ,
 *       __libc_read+13
 *   , syscall_loop]: 12
 *
 * A key is a list of elements separated by ", ": a stack is a newline and
 * then one line per frame, leaf first ("symbol+offset" indented, or with
 * kstack(perf) and ustack(perf) "\tADDRESS symbol+offset (DSO)"), an empty
 * stack prints nothing; the others (a comm, a pid) print as they are.
 */
#ifndef FLAMETOP_BPFTRACE_H
#define FLAMETOP_BPFTRACE_H

#include "profile/line_reader.h"
#include "profile/profile.h"
#include "profile/reader.h"

/*
 * bpftrace__read() adds each entry of the first map of @r keyed by stacks
 * to @p, its value the count. The stack is the process (the key's first
 * element that is neither a stack nor a number: the comm; "[unknown]" when
 * there is none; numbers such as pids are left out), then the user stack,
 * then the kernel stack, outermost first. Which stack is the kernel's is
 * told by its frames' addresses where they have them (perf-style stacks,
 * frames bpftrace printed as "0x7f..."; the upper half is the kernel's);
 * else by its place, as bpftrace's own examples order them: of two stacks
 * the first is the kernel's (kstack, ustack), a lone stack is the kernel's.
 * Lines that are not part of such an entry (a histogram, a map not keyed
 * by stacks or of another map, a value that is not a count, control bytes,
 * a line over 1 MiB) are counted in @st and skipped. Returns 0; -EBADMSG
 * with @st->error saying why when no map of the input is keyed by stacks
 * (or it holds none); or -errno on a read error or when memory runs out.
 */
int bpftrace__read(struct line_reader *r, struct profile *p, struct input_stats *st);

/*
 * bpftrace__looks_like() tells bpftrace's output by its first block (@data,
 * @len bytes): after blank lines, its "Attaching N probes..." or a line
 * that starts a map entry, "@name[" or "@name:".
 */
bool bpftrace__looks_like(const char *data, size_t len);

#endif
