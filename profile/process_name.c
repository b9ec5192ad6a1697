// SPDX-License-Identifier: GPL-2.0
#include "profile/process_name.h"
#include "profile/profile.h"

#define MAX_ID_DIGITS 9

/* The digits ending at @end (exclusive) in @name, back to @start; returns where they start. */
static size_t digits_before(const char *name, size_t start, size_t end)
{
	while (end > start && name[end - 1] >= '0' && name[end - 1] <= '9')
		end--;
	return end;
}

/* The number in @name[@from, @to): 1 to 9 digits, else -1. */
static int32_t number(const char *name, size_t from, size_t to)
{
	int32_t v = 0;

	if (to <= from || to - from > MAX_ID_DIGITS)
		return -1;
	for (size_t i = from; i < to; i++)
		v = v * 10 + (name[i] - '0');
	return v;
}

/*
 * "PID" or "PID/TID" ending at @end, after the separator @sep (which must
 * follow a comm); sets @out and returns true when it is there.
 */
static bool ids_before(const char *name, size_t end, char sep, struct process_name *out)
{
	size_t last = digits_before(name, 0, end), first = last;
	int32_t tid = 0, pid;

	if (last > 0 && name[last - 1] == '/') {
		tid = number(name, last, end);
		first = digits_before(name, 0, last - 1);
		end = last - 1;
	}
	pid = number(name, first, end);
	if (pid < 0 || tid < 0 || first < 2 || name[first - 1] != sep)
		return false;
	*out = (struct process_name){ .comm_len = first - 1, .tgid = pid, .tid = tid };
	return true;
}

void process_name__parse(const char *name, size_t len, struct process_name *out)
{
	*out = (struct process_name){ .comm_len = len, .tgid = TGID_UNKNOWN, .tid = 0 };
	if (len && name[len - 1] == ']' && ids_before(name, len - 1, '[', out)) {
		if (out->comm_len > 1 && name[out->comm_len - 1] == ' ') {
			out->comm_len--;
			return;
		}
		*out = (struct process_name){ .comm_len = len, .tgid = TGID_UNKNOWN, .tid = 0 };
		return;
	}
	if (!ids_before(name, len, '-', out))
		*out = (struct process_name){ .comm_len = len, .tgid = TGID_UNKNOWN, .tid = 0 };
}
