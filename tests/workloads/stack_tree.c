// SPDX-License-Identifier: GPL-2.0
/*
 * stack_tree N [LEVELS [ROUNDS [PAUSE_US]]]: on each SIGUSR1, reads one
 * byte of /dev/zero from each of N distinct call paths, ROUNDS times over
 * (default once), sleeping PAUSE_US microseconds after every 100 paths
 * (default 0), then stops itself (SIGSTOP) until the next signal; SIGTERM
 * ends it. Path i walks down a binary tree of LEVELS levels
 * (default 17, at most 60), going through left() or right() as the bits of
 * i say, so a round makes exactly N distinct user stacks, each 2 * LEVELS
 * + 3 frames deep from main (main, then step and left or right at each
 * level, then the last step, then libc's read()): the benchmark of a
 * refresh feeds them through read mode's real capture, drain and naming.
 *
 * Until its first SIGUSR1 it reads one byte every 10 ms from main
 * (main;read): a tracer started meanwhile sees the process and builds its
 * unwind tables before the first round.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

#define DEFAULT_LEVELS 17 /* 2^17 > 100,000 paths */
#define MAX_LEVELS 60

static int zero_fd;
static int levels = DEFAULT_LEVELS;

/* Reads one byte of /dev/zero, from the caller's own frame. */
static inline __attribute__((always_inline)) void read_byte(void)
{
	char c;

	if (read(zero_fd, &c, 1) != 1)
		exit(1);
}

void step(unsigned int bits, int level);

/* left and right stay in the stack while the step they call runs. */
KEEP_FRAME void left(unsigned int bits, int level)
{
	step(bits, level);
	KEEP_CALLER();
}

KEEP_FRAME void right(unsigned int bits, int level)
{
	step(bits, level);
	KEEP_CALLER();
}

KEEP_FRAME void step(unsigned int bits, int level)
{
	if (level == levels)
		read_byte();
	else if (bits & 1)
		left(bits >> 1, level + 1);
	else
		right(bits >> 1, level + 1);
	KEEP_CALLER(); /* step stays in the stack while left or right runs */
}

static volatile sig_atomic_t go;

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 1000;
	int rounds = 1;
	long pause_us = 0;
	sigset_t mask, old;

	if (argc > 2)
		levels = atoi(argv[2]);
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (argc > 4)
		pause_us = atol(argv[4]);
	if (levels < 1 || levels > MAX_LEVELS || rounds < 1 || pause_us < 0 || pause_us >= 1000000)
		return 2;
	zero_fd = open("/dev/zero", O_RDONLY);
	if (zero_fd < 0)
		return 1;
	signal(SIGUSR1, on_go);
	while (!go) { /* a signal cuts the sleep short */
		read_byte();
		usleep(10000);
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	for (;;) {
		while (!go)
			sigsuspend(&old);
		go = 0;
		for (int r = 0; r < rounds; r++) {
			for (unsigned int i = 0; i < n; i++) {
				step(i, 0);
				if (pause_us && i % 100 == 99)
					nanosleep(&(struct timespec){ .tv_nsec = pause_us * 1000 },
						  NULL);
			}
		}
		raise(SIGSTOP);
	}
}
