// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu_work: threads that wait in known places, for the off-CPU tests.
 *
 *   offcpu_work sleep SECONDS  wait_a() sleeps 30 ms, wait_b() 10 ms, in
 *                              turn, through libc's nanosleep(): a:b is 3:1.
 *                              It measures the time it spends inside each
 *                              and prints "wait_a_us=N wait_b_us=M" at the
 *                              end. First it sleeps in warm_up() for a
 *                              second, not measured: a profiler meanwhile
 *                              sees the process and loads its tables.
 *   offcpu_work lock SECONDS   two threads in lock_and_work(), each taking
 *                              one mutex and holding it for ~2 ms of work:
 *                              the one that finds it taken waits in a futex
 *                              under pthread_mutex_lock().
 *   offcpu_work deep SECONDS   sleeps 1 ms at each depth 1..120 of
 *                              descend(): 120 different stacks, over and
 *                              over; meanwhile a second thread sleeps 1.5 s
 *                              at a time in sleep_long().
 *   offcpu_work mixed SECONDS  after warm_up(), sleeps 2 ms three times in
 *                              nap(), through nanosleep(), then three
 *                              times in doze(), through poll(): runs of
 *                              the same wait, by two ways into the kernel.
 *
 * Every mode runs SECONDS (default 30) and exits. Built as users build
 * their programs: -O2, no frame pointers, calling libc.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frames.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double end_time;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

KEEP_FRAME void wait_a(void)
{
	sleep_ms(30);
	KEEP_CALLER();
}

KEEP_FRAME void wait_b(void)
{
	sleep_ms(10);
	KEEP_CALLER();
}

/* Calls @fn and adds the microseconds it took to *@us. */
static inline __attribute__((always_inline)) void timed(void (*fn)(void), double *us)
{
	double t0 = now();

	fn();
	*us += (now() - t0) * 1e6;
}

KEEP_FRAME void warm_up(void)
{
	double until = now() + 1;

	while (now() < until)
		sleep_ms(5);
}

static void run_sleep(void)
{
	double a_us = 0, b_us = 0;

	warm_up();
	while (now() < end_time) {
		timed(wait_a, &a_us);
		timed(wait_b, &b_us);
	}
	printf("wait_a_us=%.0f wait_b_us=%.0f\n", a_us, b_us);
}

/* About @ms milliseconds of work on the CPU. */
static void work_ms(double ms)
{
	double until = now() + ms / 1e3;

	while (now() < until)
		sink++;
}

KEEP_FRAME void lock_and_work(void)
{
	pthread_mutex_lock(&lock);
	work_ms(2);
	pthread_mutex_unlock(&lock);
}

static void *locker(void *arg)
{
	(void)arg;
	while (now() < end_time)
		lock_and_work();
	return NULL;
}

static void run_lock(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, locker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

KEEP_FRAME int descend(int depth);

/* Called through, so that gcc cannot turn descend()'s recursion into a loop. */
static int (*volatile descend_again)(int) = descend;

KEEP_FRAME int descend(int depth)
{
	if (depth <= 1) {
		sleep_ms(1);
		return 1;
	}
	return descend_again(depth - 1) + 1;
}

KEEP_FRAME void sleep_long(void)
{
	sleep_ms(1500);
	KEEP_CALLER();
}

static void *long_sleeper(void *arg)
{
	(void)arg;
	while (now() < end_time)
		sleep_long();
	return NULL;
}

static void run_deep(void)
{
	pthread_t t;

	pthread_create(&t, NULL, long_sleeper, NULL);
	while (now() < end_time)
		for (int d = 1; d <= 120; d++)
			sink += descend(d);
}

KEEP_FRAME void nap(void)
{
	sleep_ms(2);
	KEEP_CALLER();
}

KEEP_FRAME void doze(void)
{
	poll(NULL, 0, 2);
	KEEP_CALLER();
}

static void run_mixed(void)
{
	warm_up();
	while (now() < end_time) {
		for (int i = 0; i < 3; i++)
			nap();
		for (int i = 0; i < 3; i++)
			doze();
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sleep";

	end_time = now() + (argc > 2 ? atof(argv[2]) : 30);
	if (strcmp(mode, "sleep") == 0)
		run_sleep();
	else if (strcmp(mode, "lock") == 0)
		run_lock();
	else if (strcmp(mode, "deep") == 0)
		run_deep();
	else if (strcmp(mode, "mixed") == 0)
		run_mixed();
	else
		return 2;
	return 0;
}
