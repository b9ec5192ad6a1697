// SPDX-License-Identifier: GPL-2.0
/*
 * clock_loop: main -> clock_loop() reads CLOCK_MONOTONIC in a tight loop
 * for argv[1] seconds (default 5), so that most samples land in the vDSO:
 * main;clock_loop;clock_gettime (libc's);__vdso_clock_gettime.
 */
#include <stdlib.h>
#include <time.h>

#include "frames.h"

KEEP_FRAME void clock_loop(double seconds)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int main(int argc, char **argv)
{
	clock_loop(argc > 1 ? atof(argv[1]) : 5);
	return 0;
}
