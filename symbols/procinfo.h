/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procinfo: what /proc/PID/stat and /proc/PID/status say about a process
 * that matters for naming it: when it started (to tell a reused pid from
 * the process that had it), its credentials and its pid in its own pid
 * namespace (to find its perf map and read it with no more access than the
 * process has).
 */
#ifndef FLAMETOP_PROCINFO_H
#define FLAMETOP_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Supplementary groups kept; a process with more is given the first ones only (less access). */
#define PROC_GROUPS_MAX 64

/* What the kernel checks a process's file accesses against, as the reader's user namespace sees it. */
struct proc_creds {
	uint32_t uid, gid; /* file-system uid and gid (the 4th fields of Uid: and Gid:) */
	uint32_t groups[PROC_GROUPS_MAX];
	size_t n_groups;
};

struct proc_status {
	uint32_t euid;		 /* effective uid */
	struct proc_creds creds; /* for opening files as the process would */
	uint32_t ns_pid;	 /* the pid in the innermost pid namespace */
};

/*
 * proc_stat__start_time() parses the start time (field 22, in clock ticks
 * since boot) out of the @len bytes of /proc/PID/stat text at @text. The
 * command name (field 2) may hold any byte, spaces and ')' included: the
 * fields are counted from the last ')'. Returns 0, or -EINVAL when the text
 * is malformed.
 */
int proc_stat__start_time(const char *text, size_t len, uint64_t *start);

/*
 * proc_status__parse() reads the "Uid:", "Gid:", "Groups:" and "NSpid:"
 * lines of the @len bytes of /proc/PID/status text at @text into @st.
 * Without an "NSpid:" line (kernels before 4.1) ns_pid is @pid; without a
 * "Groups:" line there are none. Returns 0, or -EINVAL when the Uid or Gid
 * line is missing or malformed.
 */
int proc_status__parse(const char *text, size_t len, uint32_t pid, struct proc_status *st);

/*
 * proc_info__start_time() and proc_info__status() read and parse
 * "@proc_root/@pid/stat" and "@proc_root/@pid/status". Return 0, -ENOENT
 * when the process is gone, or another -errno.
 */
int proc_info__start_time(const char *proc_root, uint32_t pid, uint64_t *start);
int proc_info__status(const char *proc_root, uint32_t pid, struct proc_status *st);

/*
 * proc_info__exists() is true when "@proc_root/@pid" exists: a process (or
 * a thread) with that id runs. The command line's -p and the screen's p
 * check alike.
 */
bool proc_info__exists(const char *proc_root, uint32_t pid);

/*
 * proc_info__ended() is true when process @pid has ended: "@proc_root/@pid"
 * is gone, or the process is a zombie its parent has not reaped yet (as
 * perf record -p sees its targets end). False when it can't tell.
 */
bool proc_info__ended(const char *proc_root, uint32_t pid);

/*
 * proc_info__exited() is true when process @tgid of this pid namespace is
 * known to have exited: a signal 0 says so (ESRCH) for a tenth of the cost
 * of a failed look at /proc/PID. Only for the host's /proc: the pids of a
 * copy are not this machine's. False for a tgid of 0 or less.
 */
bool proc_info__exited(int32_t tgid);

#endif
