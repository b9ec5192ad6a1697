/* SPDX-License-Identifier: GPL-2.0 */
/* bench_clock: the clocks the bench programs read, in milliseconds. */
#ifndef FLAMETOP_BENCH_CLOCK_H
#define FLAMETOP_BENCH_CLOCK_H

#include <time.h>

/* clock_ms() reads clock @id (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...) in ms. */
static inline double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* now_ms() is the monotonic clock in ms. */
static inline double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

#endif
