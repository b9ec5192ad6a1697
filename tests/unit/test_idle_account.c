// SPDX-License-Identifier: GPL-2.0
/*
 * idle_account: the rule of one CPU's update (idle_credit()), fed the
 * sequences a real capture gives: an idle CPU the kernel stopped sampling,
 * an idle CPU sampled on time with the timer's jitter, a busy CPU that lost
 * samples, and a burst over the rate.
 */
#include "tests/unit/unit.h"

#include "live/idle_account.h"

/*
 * Runs @n updates of one CPU, each expecting @expected samples and getting
 * @got[i], the CPU idle for @idle[i] samples' worth, the last one closing
 * the capture when @close; returns the samples credited, each update's in
 * @each (when not NULL).
 */
static uint64_t run(double expected, const double *got, const double *idle, size_t n, bool close,
		    uint64_t *each)
{
	double carry = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t c = idle_credit(&carry, expected, got[i], idle[i], close && i + 1 == n);

		if (each)
			each[i] = c;
		total += c;
	}
	return total;
}

/* An idle CPU the kernel stopped sampling: all it skipped, by the capture's end. */
static void test_silent_cpu_credited_whole(void **state)
{
	const double got[4] = { 0, 0, 0, 0 }, idle[4] = { 198, 198, 198, 198 };
	uint64_t each[4];

	(void)state;
	assert_int_equal(run(198, got, idle, 4, true, each), 4 * 198);
	/* One sample held back until the end, no more. */
	assert_int_equal(each[0], 197);
	assert_int_equal(each[1], 198);
	assert_int_equal(each[3], 199);
	/* Without the end, one sample (and no more) still waits. */
	assert_int_equal(run(198, got, idle, 4, false, NULL), 4 * 198 - 1);
}

/* An idle CPU sampled on time: a sample more or fewer each update is never idle credited. */
static void test_sampled_cpu_jitter_not_credited(void **state)
{
	const double got[8] = { 197, 199, 198, 197, 198, 199, 197, 199 };
	const double idle[8] = { 198, 198, 198, 198, 198, 198, 198, 198 };

	(void)state;
	assert_int_equal(run(198, got, idle, 8, false, NULL), 0);
	/* A fraction off each time, as a timer's phase drifts, is not credited either. */
	const double drift[6] = { 197.6, 198.3, 197.9, 198.4, 197.7, 198.1 };
	assert_int_equal(run(198, drift, idle, 6, false, NULL), 0);
}

/* A CPU that was busy (no idle time) and lost samples: nothing is idle. */
static void test_busy_cpu_never_credited(void **state)
{
	const double got[3] = { 150, 100, 190 }, idle[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(run(198, got, idle, 3, true, NULL), 0);
}

/* Credit never exceeds the idle time measured, whatever the shortfall. */
static void test_capped_by_idle_time(void **state)
{
	const double got[2] = { 0, 0 }, idle[2] = { 50, 50 };

	(void)state;
	assert_int_equal(run(198, got, idle, 2, true, NULL), 100);
}

/*
 * A burst over the rate is carried for one sample only: a CPU that then
 * goes silent is credited all but that one sample.
 */
static void test_surplus_carried_one_sample_at_most(void **state)
{
	const double got[3] = { 230, 0, 0 }, idle[3] = { 0, 198, 198 };

	(void)state;
	assert_int_equal(run(198, got, idle, 3, true, NULL), 2 * 198 - 1);
}

/* Fractions of a sample add up across updates. */
static void test_fractions_add_up(void **state)
{
	const double got[4] = { 0, 0, 0, 0 }, idle[4] = { 200, 200, 200, 200 };

	(void)state;
	assert_int_equal(run(198.5, got, idle, 4, true, NULL), 4 * 198.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_silent_cpu_credited_whole),
		cmocka_unit_test(test_sampled_cpu_jitter_not_credited),
		cmocka_unit_test(test_busy_cpu_never_credited),
		cmocka_unit_test(test_capped_by_idle_time),
		cmocka_unit_test(test_surplus_carried_one_sample_at_most),
		cmocka_unit_test(test_fractions_add_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
