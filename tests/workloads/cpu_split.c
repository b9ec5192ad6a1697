// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_split: main -> work -> leaf_a and leaf_b, with a known 3:1 CPU split.
 * Each leaf spins on the CPU's own time counter (read inline: no call, so
 * every sample lands in the leaf itself) for 3 and 1 units. Built with frame
 * pointers, so every user stack walks cleanly up to main. Runs for argv[1]
 * seconds (default 10).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline __attribute__((always_inline)) uint64_t ticks(void)
{
	return __rdtsc();
}
#elif defined(__aarch64__)
static inline __attribute__((always_inline)) uint64_t ticks(void)
{
	uint64_t t;

	asm volatile("mrs %0, cntvct_el0" : "=r"(t));
	return t * 50; /* the generic timer runs far slower than a TSC */
}
#endif

#define UNIT 1000000 /* ticks */

void leaf_a(void)
{
	uint64_t start = ticks();

	while (ticks() - start < 3 * UNIT)
		;
}

void leaf_b(void)
{
	uint64_t start = ticks();

	while (ticks() - start < UNIT)
		;
}

void work(void)
{
	leaf_a();
	leaf_b();
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	time_t end = time(NULL) + (time_t)seconds;

	while (time(NULL) < end)
		work();
	return 0;
}
