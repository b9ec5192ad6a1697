/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym_watch: the BPF programs (and BPF trampolines) the kernel announces
 * while flametop runs, each with its exact address range and name, from
 * perf ksymbol records (one dummy perf event per CPU). /proc/kallsyms
 * gives no sizes and is slow to read again; programs come and go, and a
 * new one often lands near, or at, an old one's address. A program that
 * lived for less than a refresh is still named.
 */
#ifndef FLAMETOP_KSYM_WATCH_H
#define FLAMETOP_KSYM_WATCH_H

#include <stdbool.h>
#include <stdint.h>

/* Passes an unloaded program keeps its name, for samples taken before it went. */
#define KSYM_GONE_PASSES 2

struct ksym_watch;

/*
 * ksym_watch__open() starts watching on every online CPU. Returns NULL
 * with errno set when the kernel refuses (no privilege, or a kernel older
 * than 5.1): callers then have to guess from /proc/kallsyms alone.
 */
struct ksym_watch *ksym_watch__open(void);

/*
 * ksym_watch__poll() reads what the kernel announced since the last call,
 * at @pass (the caller's clock): a BPF symbol registered takes its range
 * (replacing any older one there); one unregistered keeps its name until
 * pass @pass + KSYM_GONE_PASSES, then leaves a hole that names nothing.
 * Returns true when anything changed, or records were lost (see
 * ksym_watch__lost()). It never blocks.
 */
bool ksym_watch__poll(struct ksym_watch *w, uint64_t pass);

/*
 * ksym_watch__find() looks up @addr among the announced symbols: -ENOENT
 * when none covers it, else 0 with *@name set to its sanitized name, or to
 * NULL for the hole an unloaded program left. The string lives until the
 * next ksym_watch__poll().
 */
int ksym_watch__find(const struct ksym_watch *w, uint64_t addr, const char **name);

/*
 * ksym_watch__lost() is true, once, after records were lost (a ring
 * overflowed, or the table was full): what the watch knows is incomplete.
 */
bool ksym_watch__lost(struct ksym_watch *w);

/* Number of symbols (and holes) held. */
unsigned int ksym_watch__count(const struct ksym_watch *w);

/* ksym_watch__close(NULL) is a no-op. */
void ksym_watch__close(struct ksym_watch *w);

#endif
