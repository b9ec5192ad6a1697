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

/*
 * The sizes of a process's mappings, in KiB: when none changed, its maps
 * most likely did not either (a mapping replaced by one of the same size
 * would not show).
 */
struct proc_vm {
	uint64_t size_kb; /* VmSize: all its mappings */
	uint64_t exe_kb;  /* VmExe: its executable's code */
	uint64_t lib_kb;  /* VmLib: other executable mappings */
};

struct proc_status {
	uint32_t euid;		 /* effective uid */
	struct proc_creds creds; /* for opening files as the process would */
	uint32_t ns_pid;	 /* the pid in the innermost pid namespace */
	struct proc_vm vm;	 /* zeros for a kernel thread (no "Vm" lines) */
};

/* proc_vm__equal() is true when @a and @b give the same sizes. */
bool proc_vm__equal(const struct proc_vm *a, const struct proc_vm *b);

/*
 * proc_stat__start_time() parses the start time (field 22, in clock ticks
 * since boot) out of the @len bytes of /proc/PID/stat text at @text. The
 * command name (field 2) may hold any byte, spaces and ')' included: the
 * fields are counted from the last ')'. Returns 0, or -EINVAL when the text
 * is malformed.
 */
int proc_stat__start_time(const char *text, size_t len, uint64_t *start);

/*
 * proc_status__parse() reads the "Uid:", "Gid:", "Groups:", "NSpid:",
 * "VmSize:", "VmExe:" and "VmLib:" lines of the @len bytes of
 * /proc/PID/status text at @text into @st.
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

/* proc_creds__equal() is true when @a and @b are the same credentials, groups included. */
bool proc_creds__equal(const struct proc_creds *a, const struct proc_creds *b);

/*
 * A process's credentials, read from /proc when first asked for
 * (proc_creds_memo__get()). All zeros is one not read yet.
 */
struct proc_creds_memo {
	struct proc_creds creds;
	int state; /* 0: not read yet; 1: read; -errno: could not be */
};

/* proc_creds_memo__reset() forgets what @m read: the next get reads again. */
static inline void proc_creds_memo__reset(struct proc_creds_memo *m)
{
	m->state = 0;
}

/*
 * proc_creds_memo__get() returns the credentials of process @pid
 * ("@proc_root/@pid/status"), read into @m the first time (after a reset),
 * or NULL when they could not be read (the process is gone).
 */
const struct proc_creds *proc_creds_memo__get(struct proc_creds_memo *m, const char *proc_root,
					      uint32_t pid);

/*
 * proc_info__exists() is true when "@proc_root/@pid" exists: a process (or
 * a thread) with that id runs. The command line's -p and the screen's p
 * check alike.
 */
bool proc_info__exists(const char *proc_root, uint32_t pid);

/*
 * proc_info__exited() is true when process @tgid of this pid namespace is
 * known to have exited: a signal 0 says so (ESRCH) for a tenth of the cost
 * of a failed look at /proc/PID. Only for the host's /proc: the pids of a
 * copy are not this machine's. False for a tgid of 0 or less.
 */
bool proc_info__exited(int32_t tgid);

#endif
