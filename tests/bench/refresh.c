// SPDX-License-Identifier: GPL-2.0
/*
 * refresh N [addresses]: what one refresh of the live screen costs when N distinct
 * stacks arrived in the last interval, through the same code as live:
 * drain the BPF maps and name every frame (live__drain), rebuild the view
 * (profile__close_interval, profile__sort, view__rebuild) and draw a 200x50 screen
 * (view__draw). The stacks are real: build/workloads/stack_tree makes N
 * distinct read() call paths, captured in read mode. Run as root.
 *
 * Prints one line: "N drain_ms rebuild_ms draw_ms total_ms again_ms rss_kib
 * stacks missing cpu_ms", where again_ms is a second refresh of the same N stacks
 * (names known), rss_kib the resident memory after both, stacks the distinct
 * stacks the first refresh brought, and missing the stacks the capture
 * could not send (its stats): a run is valid only with N stacks, 0 missing;
 * cpu_ms is the CPU time the first refresh took (this thread's: the
 * machine is shared, and its wall-clock time moves with the others' work).
 * With "addresses" the profile keeps its functions' addresses (the annotate
 * view's), as the live screen does, and the line ends with the bytes they
 * take; without, it keeps none (as before the annotate view: to compare).
 */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "live/live.h"
#include "profile/addr_counts.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"
#include "tui/actions.h"
#include "tui/screen.h"
#include "tui/view.h"

#define WIDTH 200
#define HEIGHT 50

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Handles the capture's events as live's loop does, waiting at most 5 ms for them. */
static void handle_events(struct live *live)
{
	struct pollfd pfd;
	int ms = live__poll_events(live, &pfd);

	if (poll(&pfd, 1, ms >= 0 && ms < 5 ? ms : 5) > 0 && pfd.revents)
		live__handle_events(live);
}

#define TABLES_WAIT_MS 5000

/*
 * Waits until the workload, seen by the reads it makes before its first
 * round, has its unwind tables in, so that the rounds' stacks are walked
 * whole, as they are in a live session past its first moments.
 */
static int wait_tables(struct live *live, struct unwinder *u)
{
	double end = now_ms() + TABLES_WAIT_MS;
	struct unwinder_stats st;

	do {
		handle_events(live);
		if (live__drain(live) < 0)
			return -1;
		unwinder__stats(u, &st);
	} while ((!st.processes || st.pending) && now_ms() < end);
	return st.processes && !st.pending ? 0 : -1;
}

/*
 * Starts one round of the workload's N reads and waits until it has made
 * them, handling capture events meanwhile as live's loop does.
 */
static int run_round(struct live *live, pid_t child)
{
	int status;

	if (kill(child, SIGUSR1) || kill(child, SIGCONT))
		return -1;
	for (;;) {
		pid_t got = waitpid(child, &status, WUNTRACED | WNOHANG);

		if (got == child)
			return WIFSTOPPED(status) ? 0 : -1;
		if (got < 0)
			return -1;
		handle_events(live);
	}
}

struct refresh {
	double drain, rebuild, draw;
	double cpu; /* the thread's CPU time, all three */
};

static int refresh(struct live *live, struct profile *p, struct view *v, struct screen *s,
		   struct refresh *r)
{
	double t0 = now_ms(), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), t1, t2;

	if (live__drain(live) < 0)
		return -1;
	t1 = now_ms();
	profile__close_interval(p);
	if (profile__freeze(p) || profile__sort(p) || view__rebuild(v, p))
		return -1;
	t2 = now_ms();
	view__draw(s, v);
	*r = (struct refresh){ t1 - t0, t2 - t1, now_ms() - t2,
			       clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0 };
	return 0;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Read mode on @tgid alone, with maps that hold @n stacks in one drain. */
static void capture_opts_for(struct capture_opts *o, unsigned int n, const uint32_t *tgid)
{
	*o = (struct capture_opts){
		.mode = CAPTURE_READ,
		.drain_period = 1.0,
		.kernel_stacks = true,
		.user_stacks = true,
		.tgids = tgid,
		.ntgids = 1,
		.stack_entries = pow2_at_least(n + n / 4 + 64),
		.count_entries = n + n / 4 + 1024,
	};
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 1000;
	bool addresses = argc > 2 && !strcmp(argv[2], "addresses");
	char arg[32], err[512];
	struct capture_opts copts;
	struct refresh first, again;
	struct capture_stats st;
	size_t stacks;
	struct symbolizer *sym;
	struct unwinder *unwinder = NULL;
	struct profile *p;
	const struct key_binding *keys;
	size_t nkeys;
	struct live *live;
	struct screen s = { 0 };
	struct view v;
	uint32_t tgid;
	pid_t child;

	snprintf(arg, sizeof(arg), "%u", n);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a bench cut short takes its workload along */
		execl("build/workloads/stack_tree", "stack_tree", arg, (char *)NULL);
		_exit(127);
	}
	tgid = (uint32_t)child;
	capture_opts_for(&copts, n, &tgid);
	/* As live does: the kernel's table is read once the BPF programs are loaded. */
	sym = symbolizer__new(&(struct symbolizer_opts){ .defer_kernel = true });
	p = profile__new();
	if (p && addresses && !profile__keep_addresses(p))
		p = NULL;
	keys = actions__bindings(&nkeys);
	if (child < 0 || !sym || !p || unwinder__new(&(struct unwinder_opts){ 0 }, &unwinder) ||
	    view__init(&v, true, 1.0, keys, nkeys) || screen__resize(&s, WIDTH, HEIGHT)) {
		fprintf(stderr, "refresh: can't start\n");
		return 1;
	}
	view__resize(&v, WIDTH, HEIGHT);
	if (live__open(&copts, WEIGHT_EVENTS, sym, unwinder, NULL, p, &live, err, sizeof(err)) ||
	    symbolizer__load_kernel(sym)) {
		fprintf(stderr, "refresh: %s\n", err);
		kill(child, SIGKILL);
		return 1;
	}
	if (wait_tables(live, unwinder)) {
		fprintf(stderr, "refresh: the workload's unwind tables did not come in\n");
		kill(child, SIGKILL);
		return 1;
	}
	if (run_round(live, child) || refresh(live, p, &v, &s, &first) ||
	    (stacks = profile__nstacks(p), run_round(live, child)) ||
	    refresh(live, p, &v, &s, &again)) {
		fprintf(stderr, "refresh: a round failed\n");
		kill(child, SIGKILL);
		return 1;
	}
	capture__stats(live__capture(live), &st);
	printf("%u %.2f %.2f %.2f %.2f %.2f %ld %zu %" PRIu64, n, first.drain, first.rebuild,
	       first.draw, first.drain + first.rebuild + first.draw,
	       again.drain + again.rebuild + again.draw, rss_kib(), stacks,
	       st.slot[STAT_KSTACK_NOMEM] + st.slot[STAT_KSTACK_FAULT] + st.slot[STAT_USTACK_NOMEM] +
		       st.slot[STAT_USTACK_FAULT]);
	printf(" %.2f", first.cpu);
	if (addresses)
		printf(" %zu %zu", addr_counts__bytes(profile__addresses(p)),
		       addr_counts__nsites(profile__addresses(p)));
	printf("\n");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	live__close(live);
	unwinder__free(unwinder);
	view__free(&v);
	screen__free(&s);
	profile__free(p);
	symbolizer__free(sym);
	return 0;
}
