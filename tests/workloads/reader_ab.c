// SPDX-License-Identifier: GPL-2.0
/*
 * reader_ab: reads /dev/zero one byte at a time from two functions,
 * reader_a() making exactly twice as many read() calls as reader_b().
 * It waits for SIGUSR1 to start and stops at SIGUSR2 (or argv[1] seconds
 * after the start, default 60), then prints "reader_a=N reader_b=M" and
 * exits. The
 * reads go through libc's read(): each stack reads main;reader_a;read (or
 * reader_b), then the kernel's frames from the syscall entry down.
 *
 * While it waits for SIGUSR1 it reads one byte every 10 ms, not counted
 * (main;wait_start;read): a tracer started meanwhile sees the process and
 * builds its unwind tables before the counted reads begin.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

static volatile sig_atomic_t started, stopped;
static unsigned long calls_a, calls_b;

static void on_start(int sig)
{
	(void)sig;
	started = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stopped = 1;
}

KEEP_FRAME void reader_a(int fd)
{
	char c;

	for (int i = 0; i < 2; i++) {
		if (read(fd, &c, 1) != 1)
			exit(1);
		calls_a++;
	}
}

KEEP_FRAME void reader_b(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(1);
	calls_b++;
}

/* Reads a byte every 10 ms until SIGUSR1 or SIGUSR2 (a signal cuts the sleep short). */
KEEP_FRAME void wait_start(int fd)
{
	char c;

	while (!started && !stopped) {
		if (read(fd, &c, 1) != 1)
			exit(1);
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 60;
	int fd = open("/dev/zero", O_RDONLY);
	time_t end;

	signal(SIGUSR1, on_start);
	signal(SIGUSR2, on_stop);
	if (fd < 0)
		return 1;
	wait_start(fd);
	end = time(NULL) + (time_t)seconds;
	/* The stop is checked between rounds only: calls_a is exactly 2 x calls_b. */
	while (!stopped && time(NULL) < end) {
		reader_a(fd);
		reader_b(fd);
	}
	printf("reader_a=%lu reader_b=%lu\n", calls_a, calls_b);
	return 0;
}
