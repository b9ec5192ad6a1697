/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle_account: idle the kernel did not sample. On a NOHZ kernel a
 * CPU-clock event can go silent while its CPU idles (perf and bpftrace miss
 * those samples too), and shares would no longer add up to the machine.
 * Each update compares every CPU's samples with rate x elapsed time and
 * credits the shortfall, never more than the idle time /proc/stat
 * measured, through a callback (the live source adds it to the profile as
 * "swapper/N;[idle, not sampled]").
 */
#ifndef FLAMETOP_IDLE_ACCOUNT_H
#define FLAMETOP_IDLE_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/capture.h"

struct idle_account {
	bool on;
	unsigned int freq;
	int ncpus;            /* CPU ids tracked */
	uint64_t *events;     /* samples per CPU at the last update */
	uint64_t *idle_ticks; /* idle + iowait per CPU at the last update, in USER_HZ */
	double *carry;        /* fractions of a sample not credited yet */
	int stat_fd;          /* /proc/stat, kept open: read again from its start */
	char *stat_text;      /* room for its "cpu" lines */
	size_t stat_size;
	double last;          /* when (monotonic seconds) */
	bool filtered;        /* a pid or comm filter is on: credit nothing */
	long user_hz;
	uint64_t credited;
};

/* Called for each CPU to credit @samples (at least 1) in an update; false when it could not. */
typedef bool (*idle_credit_fn)(void *ctx, int cpu, uint64_t samples);

/* idle_account__init() makes @a off and empty (idle_account__free() safe). */
void idle_account__init(struct idle_account *a);

/*
 * idle_account__start() turns accounting on when it applies to @cap opened
 * with @o: fixed-rate sampling (see capture__fixed_rate()); it stays off
 * otherwise, or when /proc/stat cannot be read.
 */
void idle_account__start(struct idle_account *a, struct capture *cap, const struct capture_opts *o);

/*
 * idle_account__update() credits through @credit what was skipped since the
 * last update, up to now or to when @cap stopped sampling. With @last (the
 * capture's end), the sample each CPU holds back (see idle_credit()) is
 * credited too.
 */
void idle_account__update(struct idle_account *a, struct capture *cap, idle_credit_fn credit,
			  void *ctx, bool last);

/*
 * idle_credit() is an update's rule for one CPU. The rate promised
 * @expected samples since the last update and the CPU gave @got; the
 * shortfall is credited where the CPU idled (at most @idle samples' worth),
 * with what earlier updates left in *@carry. A CPU sampled on time gives a
 * sample more or fewer from one update to the next (the timer's phase and
 * the update's moment drift apart): a surplus carries over (up to one
 * sample) to make up for the next shortfall, and one sample is held back
 * (unless @last) until a shortfall outlasts that jitter. So a sampled CPU's
 * jitter never shows as idle, and what an idle CPU's silence skipped is
 * all credited by the last update. Returns the whole samples to credit
 * now; *@carry keeps the rest.
 */
uint64_t idle_credit(double *carry, double expected, double got, double idle, bool last);

/* idle_account__free() releases what @a holds and leaves it off. */
void idle_account__free(struct idle_account *a);

#endif
