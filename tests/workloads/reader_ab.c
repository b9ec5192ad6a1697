// SPDX-License-Identifier: GPL-2.0
/*
 * reader_ab: reads /dev/zero one byte at a time from two functions,
 * reader_a() making exactly twice as many read() calls as reader_b().
 * It waits for SIGUSR1 to start and stops at SIGUSR2 (or after argv[1]
 * seconds, default 60), then prints "reader_a=N reader_b=M" and exits. The
 * reads are issued without libc (built without frame pointers), so the user
 * stack main -> reader_x walks cleanly.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "raw_read.h"

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

void reader_a(int fd)
{
	char c;

	for (int i = 0; i < 2; i++) {
		if (raw_read(fd, &c, 1) != 1)
			exit(1);
		calls_a++;
	}
}

void reader_b(int fd)
{
	char c;

	if (raw_read(fd, &c, 1) != 1)
		exit(1);
	calls_b++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 60;
	time_t end = time(NULL) + (time_t)seconds;
	int fd = open("/dev/zero", O_RDONLY);
	sigset_t mask, old;

	signal(SIGUSR1, on_start);
	signal(SIGUSR2, on_stop);
	if (fd < 0)
		return 1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!started && !stopped)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* The stop is checked between rounds only: calls_a is exactly 2 x calls_b. */
	while (!stopped && time(NULL) < end) {
		reader_a(fd);
		reader_b(fd);
	}
	printf("reader_a=%lu reader_b=%lu\n", calls_a, calls_b);
	return 0;
}
