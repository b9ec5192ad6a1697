// SPDX-License-Identifier: GPL-2.0
#include "live/idle_account.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/text_line.h"

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The longest "cpuN" line of /proc/stat: ten 64-bit numbers, a name and spaces. */
#define STAT_CPU_LINE 256

/*
 * Parses idle + iowait ticks of each whole "cpuN" line of the /proc/stat
 * text @text (NUL-terminated) into @ticks[N] for N < @n; other lines, and
 * lines cut short or malformed, are left alone.
 */
static void parse_idle_ticks(const char *text, uint64_t *ticks, int n)
{
	for (const char *p = text, *end; (end = strchr(p, '\n')) != NULL; p = end + 1) {
		uint64_t cpu, v[5];
		int i = 0;

		if (strncmp(p, "cpu", 3) != 0 || (p += 3, text_line__parse_u64(&p, 10, &cpu)))
			continue;
		while (i < 5 && *p == ' ' && (p++, text_line__parse_u64(&p, 10, &v[i]) == 0))
			i++;
		if (i == 5 && cpu < (uint64_t)n)
			ticks[cpu] = v[3] + v[4];
	}
}

/*
 * Reads /proc/stat (open in @a) again from its start, as many bytes as its
 * "cpu" lines can take (no more: lines of interrupt counts follow), and
 * parses their idle + iowait ticks into @ticks. Returns 0 or -errno.
 */
static int read_idle_ticks(struct idle_account *a, uint64_t *ticks)
{
	size_t len = 0;
	ssize_t got = 0;

	while (len + 1 < a->stat_size &&
	       (got = pread(a->stat_fd, a->stat_text + len, a->stat_size - 1 - len, (off_t)len)) > 0)
		len += (size_t)got;
	if (got < 0)
		return -errno;
	a->stat_text[len] = '\0';
	parse_idle_ticks(a->stat_text, ticks, a->ncpus);
	return 0;
}

void idle_account__init(struct idle_account *a)
{
	memset(a, 0, sizeof(*a));
	a->stat_fd = -1;
}

void idle_account__free(struct idle_account *a)
{
	free(a->events);
	free(a->idle_ticks);
	free(a->carry);
	free(a->stat_text);
	if (a->stat_fd >= 0)
		close(a->stat_fd);
	idle_account__init(a);
}

void idle_account__start(struct idle_account *a, struct capture *cap,
				const struct capture_opts *o)
{
	int n = sysconf(_SC_NPROCESSORS_CONF);

	if (o->mode != CAPTURE_SAMPLE || !capture__fixed_rate(cap) || n <= 0)
		return;
	a->filtered = o->ntgids || o->comm;
	a->events = calloc(n, sizeof(*a->events));
	a->idle_ticks = calloc(n, sizeof(*a->idle_ticks));
	a->carry = calloc(n, sizeof(*a->carry));
	a->stat_size = ((size_t)n + 1) * STAT_CPU_LINE;
	a->stat_text = malloc(a->stat_size);
	a->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	a->user_hz = sysconf(_SC_CLK_TCK);
	a->ncpus = n;
	if (!a->events || !a->idle_ticks || !a->carry || !a->stat_text || a->stat_fd < 0 ||
	    a->user_hz <= 0 || read_idle_ticks(a, a->idle_ticks) ||
	    capture__cpu_events(cap, a->events, n) < n) {
		idle_account__free(a);
		return;
	}
	a->freq = o->freq;
	a->last = monotonic_seconds();
	a->on = true;
}

/*
 * Up to when an update made now accounts: now, or when @cap stopped
 * sampling (its own --duration deadline can detach the hooks well before
 * the last update runs), never before @last.
 */
static double accounting_end(const struct capture *cap, double last)
{
	double now = monotonic_seconds(), stopped = capture__stopped(cap);

	if (stopped > 0 && stopped < now)
		now = stopped;
	return now > last ? now : last;
}

#define JITTER 1.0 /* samples a CPU sampled on time is off by, either way, from update to update */

uint64_t idle_credit(double *carry, double expected, double got, double idle, bool last)
{
	double missing = expected - got;
	double owed = (missing < idle ? missing : idle) + *carry;
	double held = last ? 0 : JITTER;
	uint64_t credit;

	if (owed <= held) {
		*carry = owed < -JITTER ? -JITTER : owed;
		return 0;
	}
	credit = (uint64_t)(owed - held);
	*carry = owed - (double)credit;
	return credit;
}

void idle_account__update(struct idle_account *a, struct capture *cap, idle_credit_fn credit_fn,
			  void *ctx, bool last)
{
	uint64_t events[a->ncpus], ticks[a->ncpus];
	double now = accounting_end(cap, a->last), expected = (now - a->last) * a->freq;

	memcpy(ticks, a->idle_ticks, sizeof(ticks));
	capture__cpu_events(cap, events, a->ncpus);
	if (read_idle_ticks(a, ticks))
		return;
	for (int cpu = 0; cpu < a->ncpus; cpu++) {
		double got = (double)(events[cpu] - a->events[cpu]);
		double idle = (double)(ticks[cpu] - a->idle_ticks[cpu]) * a->freq / a->user_hz;
		uint64_t credit;

		if (a->filtered) { /* nothing owed or carried while it lasts */
			a->carry[cpu] = 0;
			continue;
		}
		credit = idle_credit(&a->carry[cpu], expected, got, idle, last);
		if (credit && credit_fn(ctx, cpu, credit))
			a->credited += credit;
	}
	memcpy(a->events, events, sizeof(events));
	memcpy(a->idle_ticks, ticks, sizeof(ticks));
	a->last = now;
}

