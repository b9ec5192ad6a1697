/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jit_code.h: what the workloads that run code from anonymous memory, as a
 * JIT does (jit_spin, many_maps), share: the function they copy there and
 * the loop that calls it. x86-64 only.
 */
#ifndef FLAMETOP_JIT_CODE_H
#define FLAMETOP_JIT_CODE_H

#include <time.h>

#if defined(__x86_64__)
/*
 * push %rbp; mov %rsp, %rbp; mov $1000000, %ecx; 1: dec %ecx; jnz 1b; pop %rbp; ret:
 * it keeps a frame record, as JIT compilers' code does.
 */
static const unsigned char spin_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xb9, 0x40, 0x42, 0x0f,
					   0x00, 0xff, 0xc9, 0x75, 0xfc, 0x5d, 0xc3 };

/* CLOCK_MONOTONIC, in seconds. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Calls @spin, a copy of spin_code, until second @end of now(). */
static inline void spin_until(void (*spin)(void), double end)
{
	while (now() < end)
		spin();
}
#endif

#endif
