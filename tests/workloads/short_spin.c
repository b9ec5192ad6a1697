// SPDX-License-Identifier: GPL-2.0
/*
 * short_spin: a short-lived process. main -> short_spin_work ->
 * short_spin_leaf spins on the CPU for argv[1] milliseconds (default 60),
 * then the process exits: it is gone long before the next drain. The leaf
 * reads the clock (libc's clock_gettime(), then the vDSO's) every 10,000
 * rounds of its loop; most samples land in the loop itself.
 */
#include <stdlib.h>
#include <time.h>

#include "frames.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

KEEP_FRAME void short_spin_leaf(double end)
{
	volatile unsigned long n = 0;

	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			n++;
}

KEEP_FRAME void short_spin_work(double ms)
{
	short_spin_leaf(now_ms() + ms);
	KEEP_CALLER(); /* short_spin_work stays in the stack while the leaf runs */
}

int main(int argc, char **argv)
{
	short_spin_work(argc > 1 ? atof(argv[1]) : 60);
	return 0;
}
