// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup_cost [MIB]...: what one wakeup from a sleep costs this process in
 * CPU time, with MIB MiB of memory made resident first (default: 0 8 16
 * 32). For each size it sleeps in poll() 2 s at a time (an idle profiler's
 * refresh), five times, and
 * prints the thread's CPU time per wakeup:
 *
 *   resident_mib=16 wakeup_us=352.1
 *
 * The memory is written once and never touched again: on a VM that shadows
 * the guest's page tables the wakeup of an idle process may still cost in
 * proportion to what it has resident, and this measures whether it does.
 * Measures, never judges: exits 0 whenever it could run.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"

#define WAKEUPS 5
#define SLEEP_MS 2000

static double thread_us(void)
{
	return clock_ms(CLOCK_THREAD_CPUTIME_ID) * 1e3;
}

/* CPU time per wakeup with @mib MiB resident, in us; -1 when the memory can't be had. */
static double cost_with(long mib)
{
	size_t bytes = (size_t)mib << 20;
	char *mem = bytes ? malloc(bytes) : NULL;
	double total = 0;

	if (bytes && !mem)
		return -1;
	if (mem)
		memset(mem, 1, bytes);
	poll(NULL, 0, SLEEP_MS); /* the first sleep settles what the memset left */
	for (int i = 0; i < WAKEUPS; i++) {
		double t = thread_us();

		poll(NULL, 0, SLEEP_MS);
		total += thread_us() - t;
	}
	free(mem);
	return total / WAKEUPS;
}

int main(int argc, char **argv)
{
	static const char *const sizes[] = { "0", "8", "16", "32" };
	const char *const *list = argc > 1 ? (const char *const *)argv + 1 : sizes;
	int n = argc > 1 ? argc - 1 : (int)(sizeof(sizes) / sizeof(sizes[0]));

	for (int i = 0; i < n; i++) {
		char *end;
		long mib = strtol(list[i], &end, 10);
		double us;

		if (*end || mib < 0 || mib > 4096) {
			fprintf(stderr, "wakeup_cost: %s: not a size in MiB (0-4096)\n", list[i]);
			return 2;
		}
		us = cost_with(mib);
		if (us < 0)
			printf("resident_mib=%ld wakeup_us=none\n", mib);
		else
			printf("resident_mib=%ld wakeup_us=%.1f\n", mib, us);
	}
	return 0;
}
