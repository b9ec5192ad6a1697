// SPDX-License-Identifier: GPL-2.0
/*
 * odd_frames: two threads whose user stacks a frame-pointer walk must
 * handle, each spinning for argv[1] seconds (default 10):
 *
 * - "cycle": cycle_thread -> cycled -> cycle_leaf, where cycled's frame
 *   record names itself as its caller's (a frame pointer that does not lead
 *   up the stack). A walk that follows it reads the same record over and
 *   over; one that stops there ends at cycle_thread. cycled restores the
 *   record before it returns.
 * - "low_stack": low_thread -> low_work -> low_leaf, on a stack mapped
 *   below 4 GiB, where 32-bit tasks' stacks lie.
 *
 * Built at -O2 like the other workloads, but the functions the walks above
 * go through keep a frame record (push %rbp; mov %rsp, %rbp), leaves
 * included, as code built with -fno-omit-frame-pointer does: the
 * frame-pointer walk is what they test. cycle_thread keeps none, as -O2
 * makes it: a walk by its CFI (the unwind tables) finds its frame without
 * the record cycled spoiled. Each thread's stack starts in libc's thread
 * start code (clone3, then start_thread), then cycle_thread or low_thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "frames.h"

/* A frame of its own, with a frame record. */
#define FRAME_RECORD KEEP_FRAME __attribute__((optimize("no-omit-frame-pointer")))

#define LOW_STACK_AT ((void *)0x40000000UL)
#define LOW_STACK_SIZE (256 * 1024)

static time_t end;

static void spin(void)
{
	for (volatile unsigned long i = 0; i < 1000000; i++)
		;
}

FRAME_RECORD void cycle_leaf(void)
{
	spin();
}

FRAME_RECORD void cycled(void)
{
	void *volatile *record = __builtin_frame_address(0);
	void *caller_fp = record[0];

	record[0] = (void *)record;
	while (time(NULL) < end)
		cycle_leaf();
	record[0] = caller_fp;
}

KEEP_FRAME void *cycle_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "cycle");
	cycled();
	return NULL;
}

FRAME_RECORD void low_leaf(void)
{
	spin();
}

FRAME_RECORD void low_work(void)
{
	while (time(NULL) < end)
		low_leaf();
}

FRAME_RECORD void *low_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "low_stack");
	low_work();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	pthread_attr_t attr;
	pthread_t cycle, low;
	void *stack;

	end = time(NULL) + (time_t)seconds;
	stack = mmap(LOW_STACK_AT, LOW_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (stack == MAP_FAILED || (unsigned long)stack + LOW_STACK_SIZE > 0xffffffffUL) {
		fprintf(stderr, "odd_frames: no stack below 4 GiB\n");
		return 1;
	}
	pthread_attr_init(&attr);
	if (pthread_attr_setstack(&attr, stack, LOW_STACK_SIZE) ||
	    pthread_create(&low, &attr, low_thread, NULL) ||
	    pthread_create(&cycle, NULL, cycle_thread, NULL)) {
		fprintf(stderr, "odd_frames: cannot start its threads\n");
		return 1;
	}
	pthread_join(cycle, NULL);
	pthread_join(low, NULL);
	return 0;
}
