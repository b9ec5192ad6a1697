// SPDX-License-Identifier: GPL-2.0
/*
 * annotate_work MODE [SECONDS]: where inside a function the time goes, by
 * construction, for the annotate view's tests (default 10 seconds).
 *
 *  loops  two_loops() runs two loops of the same body, one on the line
 *         marked HOT_A for 3 * ROUNDS rounds, one on the line marked HOT_B
 *         for ROUNDS: 3:1 of its samples, at two lines.
 *  calls  caller() calls cheap() from the line marked CALL_CHEAP and dear(),
 *         three times as long, from the line marked CALL_DEAR: 1:3 of the
 *         time through its calls, at two lines.
 *  qsort  sorts an array of ints with libc's qsort() again and again: the
 *         time is in libc's sorting code (and the comparison it calls back).
 *
 * Each loop's body is a chain of dependent multiplies, whose speed is set by
 * the multiplier's latency, and each loop is written on one line, so that
 * every instruction of it comes from that line.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frames.h"

#define ROUNDS 2000000UL
#define NSORT 20000

volatile unsigned long sink; /* keeps the loops' results, and so the loops */

KEEP_FRAME void two_loops(unsigned long n)
{
	unsigned long x = 3, y = 5;

	for (unsigned long i = 0; i < 3 * n; i++) x = x * x + i; /* HOT_A */
	for (unsigned long i = 0; i < n; i++) y = y * y + i; /* HOT_B */
	sink = x + y;
}

KEEP_FRAME void cheap(unsigned long n)
{
	unsigned long x = 7;

	for (unsigned long i = 0; i < n; i++) x = x * x + i;
	sink = x;
}

KEEP_FRAME void dear(unsigned long n)
{
	unsigned long x = 11;

	for (unsigned long i = 0; i < 3 * n; i++) x = x * x + i;
	sink = x;
}

KEEP_FRAME void caller(unsigned long n)
{
	cheap(n); /* CALL_CHEAP */
	dear(n); /* CALL_DEAR */
	KEEP_CALLER(); /* caller stays in the stack while dear runs */
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorts a shuffled copy of @v (@n ints) into @w. */
KEEP_FRAME void sort_round(const int *v, int *w, size_t n)
{
	memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), by_value);
	KEEP_CALLER();
}

static void run_qsort(time_t end)
{
	int *v = malloc(NSORT * sizeof(*v)), *w = malloc(NSORT * sizeof(*w));

	if (!v || !w)
		exit(1);
	srand(1);
	for (int i = 0; i < NSORT; i++)
		v[i] = rand();
	while (time(NULL) < end)
		sort_round(v, w, NSORT);
	free(v);
	free(w);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loops";
	double seconds = argc > 2 ? atof(argv[2]) : 10;
	time_t end = time(NULL) + (time_t)seconds;

	if (!strcmp(mode, "qsort"))
		run_qsort(end);
	while (!strcmp(mode, "loops") && time(NULL) < end)
		two_loops(ROUNDS);
	while (!strcmp(mode, "calls") && time(NULL) < end)
		caller(ROUNDS);
	return 0;
}
