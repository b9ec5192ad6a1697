// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_split: main -> work -> leaf_a and leaf_b, with a known 3:1 CPU split.
 * Both leaves run the same register-only loop, a chain of dependent
 * multiplies whose speed is set by the multiplier's latency (not by code
 * alignment or memory), leaf_a three times as many rounds as leaf_b. The
 * loop calls nothing, so every sample lands in the leaf itself. Built at -O2
 * without frame pointers, the leaves make no frame of their own; a whole user
 * stack reads _start;__libc_start_main;__libc_start_call_main;main;work;leaf_a
 * (or leaf_b). Runs for argv[1] seconds (default 10).
 */
#include <stdlib.h>
#include <time.h>

#include "frames.h"

#define ROUNDS 2000000UL

static inline __attribute__((always_inline)) void spin(unsigned long rounds)
{
	unsigned long x = 3;

#if defined(__x86_64__)
	asm volatile("1: imul %0, %0\n\tdec %1\n\tjnz 1b" : "+r"(x), "+r"(rounds) : : "cc");
#elif defined(__aarch64__)
	asm volatile("1: mul %0, %0, %0\n\tsubs %1, %1, #1\n\tb.ne 1b" : "+r"(x), "+r"(rounds) : : "cc");
#else
	while (rounds--)
		asm volatile("" : "+r"(x));
#endif
}

KEEP_FRAME void leaf_a(void)
{
	spin(3 * ROUNDS);
}

KEEP_FRAME void leaf_b(void)
{
	spin(ROUNDS);
}

KEEP_FRAME void work(void)
{
	leaf_a();
	leaf_b();
	KEEP_CALLER(); /* work stays in the stack while leaf_b runs */
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	time_t end = time(NULL) + (time_t)seconds;

	while (time(NULL) < end)
		work();
	return 0;
}
