// SPDX-License-Identifier: GPL-2.0
/*
 * switch_rate: two threads pass a byte back and forth through two pipes for
 * argv[1] seconds (default 3): each waits in read() for the other, so every
 * pass is a context switch or two. Prints "switches_per_sec=N" (the
 * process's voluntary and involuntary context switches, from
 * /proc/self/task/TID/status) and "passes_per_sec=N".
 */
#define _GNU_SOURCE /* gettid() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Context switches of thread @tid so far. */
static unsigned long switches_of(pid_t tid)
{
	char path[64], line[128];
	unsigned long n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static volatile pid_t echo_tid;

static void *echo(void *arg)
{
	char c;

	(void)arg;
	echo_tid = gettid();
	while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3, start, end;
	unsigned long passes = 0, before;
	pthread_t t;
	char c = 'x';

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL))
		return 1;
	while (!echo_tid)
		usleep(1000);
	before = switches_of(gettid()) + switches_of(echo_tid);
	start = now();
	end = start + seconds;
	while (now() < end) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		passes++;
	}
	end = now();
	printf("switches_per_sec=%.0f passes_per_sec=%.0f\n",
	       (switches_of(gettid()) + switches_of(echo_tid) - before) / (end - start),
	       passes / (end - start));
	close(ping[1]);
	pthread_join(t, NULL);
	return 0;
}
