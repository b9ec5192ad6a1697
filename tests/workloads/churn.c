// SPDX-License-Identifier: GPL-2.0
/*
 * churn: process churn, as a busy build or a shell script makes it.
 * `churn RATE SECONDS` starts RATE new processes a second (itself again,
 * through posix_spawn) for SECONDS (0: until killed). Each child names
 * itself churn-a .. churn-d, spins about a millisecond at a recursion
 * depth of 1 to 8 (churn_step), so that its stacks differ a little from its
 * siblings', and exits: every child is a new process id, gone well before
 * the next refresh.
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

extern char **environ;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

KEEP_FRAME void churn_spin(double end)
{
	volatile unsigned long n = 0;

	while (now_seconds() < end)
		for (int i = 0; i < 1000; i++)
			n++;
}

KEEP_FRAME void churn_step(int depth, double end)
{
	if (depth > 1)
		churn_step(depth - 1, end);
	else
		churn_spin(end);
	KEEP_CALLER();
}

static int child(void)
{
	char name[16];
	pid_t pid = getpid();

	snprintf(name, sizeof(name), "churn-%c", 'a' + pid % 4);
	prctl(PR_SET_NAME, name);
	churn_step(1 + pid % 8, now_seconds() + 0.001);
	return 0;
}

/* Waits for every child that has exited, without blocking. */
static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[0], "child", NULL };
	double rate, seconds, start, next;

	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child();
	if (argc != 3 || (rate = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: churn RATE SECONDS\n");
		return 2;
	}
	seconds = atof(argv[2]);
	start = next = now_seconds();
	while (seconds <= 0 || now_seconds() < start + seconds) {
		pid_t pid;
		double wait;

		posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child_argv, environ);
		reap();
		next += 1.0 / rate;
		wait = next - now_seconds();
		if (wait > 0)
			nanosleep(&(struct timespec){ (time_t)wait, (long)((wait - (time_t)wait) * 1e9) },
				  NULL);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
