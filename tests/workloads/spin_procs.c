// SPDX-License-Identifier: GPL-2.0
/*
 * spin_procs: many busy processes at once, for the tests of the walk's
 * limits (process slots, --unwind-memory): forks N children that each spin
 * on the CPU until SECONDS have passed since the start, then exits once
 * they all have. Each child spins in spin(), under main.
 *
 *   spin_procs N SECONDS
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

KEEP_FRAME void spin(time_t end)
{
	volatile unsigned long n = 0;

	while (time(NULL) < end)
		for (int i = 0; i < 100000; i++)
			n++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	time_t end = time(NULL) + (argc > 2 ? atoi(argv[2]) : 10);

	for (int i = 0; i < n; i++)
		if (fork() == 0) {
			spin(end);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
