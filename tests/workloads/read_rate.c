// SPDX-License-Identifier: GPL-2.0
/*
 * read_rate: reads /dev/zero one byte at a time for argv[1] seconds
 * (default 2), after argv[2] seconds of the same not counted (default 0:
 * for a tracer to know the process first), through libc's read() and
 * prints "calls_per_sec=N
 * cpu_ns_per_call=M": the calls per wall second, and the CPU time each
 * took (the thread's, so that what others run on a shared machine meanwhile
 * is not in it; a tracer's program runs in it). The benchmark of read
 * mode's cost runs it untraced, under flametop and under bpftrace.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void read_bytes(int fd, unsigned long n)
{
	char c;

	for (unsigned long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			exit(1);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2, start, cpu, elapsed;
	double warm_up = argc > 2 ? atof(argv[2]) : 0;
	unsigned long calls = 0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	for (start = now(CLOCK_MONOTONIC); now(CLOCK_MONOTONIC) - start < warm_up;)
		read_bytes(fd, 10000);
	start = now(CLOCK_MONOTONIC);
	cpu = now(CLOCK_THREAD_CPUTIME_ID);
	do {
		read_bytes(fd, 10000);
		calls += 10000;
		elapsed = now(CLOCK_MONOTONIC) - start;
	} while (elapsed < seconds);
	cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu;
	printf("calls_per_sec=%.0f cpu_ns_per_call=%.0f\n", calls / elapsed, cpu * 1e9 / calls);
	return 0;
}
