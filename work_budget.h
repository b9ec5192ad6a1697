/* SPDX-License-Identifier: GPL-2.0 */
/*
 * work_budget: how long a piece of work done for an untrusted input may go
 * on: until a cancel flag turns true, or the CPU clock of the thread doing
 * it passes a deadline. The work looks at it now and then (every so many
 * instructions, entries or bytes), so that a cancel is honoured at once
 * and no input costs more CPU than its budget. It sits below every layer,
 * as array.h does.
 */
#ifndef FLAMETOP_WORK_BUDGET_H
#define FLAMETOP_WORK_BUDGET_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct work_budget {
	const bool *stop;     /* turns true (read atomically): the work ends; NULL: never */
	uint64_t deadline_ns; /* of the thread's CPU clock (thread_cpu_ns()); 0: none */
};

/* The CPU time the calling thread has used, in ns. */
static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* work_budget__of() is a budget of @cpu_ns more ns of this thread's CPU (0: no limit) and @stop. */
static inline struct work_budget work_budget__of(const bool *stop, uint64_t cpu_ns)
{
	return (struct work_budget){ .stop = stop,
				     .deadline_ns = cpu_ns ? thread_cpu_ns() + cpu_ns : 0 };
}

/*
 * work_budget__spent() says whether @b (NULL: no budget) is spent: 0 while
 * it is not, -ECANCELED once its flag is up, -ETIME once the thread's CPU
 * clock is past its deadline.
 */
static inline int work_budget__spent(const struct work_budget *b)
{
	if (!b)
		return 0;
	if (b->stop && __atomic_load_n(b->stop, __ATOMIC_RELAXED))
		return -ECANCELED;
	if (b->deadline_ns && thread_cpu_ns() > b->deadline_ns)
		return -ETIME;
	return 0;
}

#endif
