// SPDX-License-Identifier: GPL-2.0
/*
 * capture.bpf.c: flametop's BPF programs, one object, by job. The loader
 * picks one program per run (see capture.c's mode table) and turns the
 * others' autoload off. Each part says what it does; in the order they
 * build on each other:
 *
 *   stats.bpf.h        each CPU's counters: every event, every loss by reason
 *   stack_store.bpf.h  walked stacks hashed and sent once (the stacks ring)
 *   python_walk.bpf.h  a CPython thread's Python frames: code objects, instructions, tags
 *   counting.bpf.h     keys counted in the active of two map sets
 *   user_regs.bpf.h    the user registers a user stack walk starts from
 *   cold_stack.bpf.h   stacks the walk could not finish, copied to be walked later
 *   native_walk.bpf.h  the user stack's native frames: unwind tables, frame pointers
 *   proc_notes.bpf.h   processes to snapshot: new, young, changed, ended
 *   record.bpf.h       record_event(): filter, walk both stacks, count, note
 *   walk_memo.bpf.h    a thread's last walks, used again where they hold, audited
 *   sample.bpf.h       sample mode: a perf event on every CPU
 *   read.bpf.h         read mode: vfs_read() or the read-family system calls
 *   offcpu.bpf.h       off-CPU mode: waits timed by sched_switch
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stack_key.h"
#include "unwind/unwind_rule.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST 17
#define ENOMEM 12
#define EFAULT 14
#define E2BIG 7
#define ENOSPC 28
#define EAGAIN 11
#define PF_KTHREAD 0x00200000

#include "stats.bpf.h"
#include "stack_store.bpf.h"
#include "python_walk.bpf.h"
#include "counting.bpf.h"
#include "user_regs.bpf.h"
#include "cold_stack.bpf.h"
#include "native_walk.bpf.h"
#include "proc_notes.bpf.h"
#include "record.bpf.h"
#include "walk_memo.bpf.h"
#include "sample.bpf.h"
#include "read.bpf.h"
#include "offcpu.bpf.h"
