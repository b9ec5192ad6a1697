// SPDX-License-Identifier: GPL-2.0
/*
 * read_rate: reads /dev/zero one byte at a time for argv[1] seconds
 * (default 2) through libc's read() and prints "calls_per_sec=N". The
 * benchmark of read mode's cost runs it untraced, under flametop and under
 * bpftrace.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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
	double seconds = argc > 1 ? atof(argv[1]) : 2, start, elapsed;
	unsigned long calls = 0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	start = now();
	do {
		read_bytes(fd, 10000);
		calls += 10000;
		elapsed = now() - start;
	} while (elapsed < seconds);
	printf("calls_per_sec=%.0f\n", calls / elapsed);
	return 0;
}
