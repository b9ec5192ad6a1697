/* SPDX-License-Identifier: GPL-2.0 */
/*
 * process_name: the ids a process frame's name may carry. Folded files
 * name processes "comm", or "comm-PID" and "comm-PID/TID"
 * (stackcollapse-perf.pl --pid and --tid), or, grouped by process or
 * thread, "comm [PID]" and "comm [PID/TID]" (flametop's own). The reader,
 * the comm filter and the grouping read them alike.
 */
#ifndef FLAMETOP_PROCESS_NAME_H
#define FLAMETOP_PROCESS_NAME_H

#include <stddef.h>
#include <stdint.h>

struct process_name {
	size_t comm_len; /* the comm: the name without its ids */
	int32_t tgid;    /* TGID_UNKNOWN when the name carries none */
	int32_t tid;     /* 0 when the name carries none */
};

/*
 * process_name__parse() reads @len bytes of @name. Ids have 1 to 9 digits;
 * a name with no comm before them carries none.
 */
void process_name__parse(const char *name, size_t len, struct process_name *out);

#endif
