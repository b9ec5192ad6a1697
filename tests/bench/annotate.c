// SPDX-License-Identifier: GPL-2.0
/*
 * annotate open | memory: the annotate view's costs, through the same code
 * as the live screen. Run as root.
 *
 * open: build/workloads/annotate_work sorts with libc's qsort() while it is
 * sampled (sample mode, 999 Hz, 2 s); then the libc function with the most
 * samples of its own is annotated twice with one cache, as the screen's
 * worker does: the first time reads libc's debug file and line table, the
 * second finds them kept (with the workload stopped and sampling over, so
 * that only the machine's other work shares the CPUs). Prints "first_ms
 * first_cpu_ms again_ms again_cpu_ms rows function": wall-clock and this
 * thread's CPU time (the machine is shared).
 *
 * memory: compilers (cc1 of flametop's own sources, -O2, over and over: deep
 * and varied stacks, as a build makes them) are sampled at 999 Hz until the
 * profile holds N stacks (default 10000; at most 60 s). Prints "stacks
 * sites addr_bytes names profile_bytes": the address counts' bytes beside
 * the profile's own.
 */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"
#include "live/annotate_source.h"
#include "live/live.h"
#include "profile/addr_counts.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

/* Handles the capture's events for @ms milliseconds, draining every 500 ms. */
static void sample_for(struct live *live, double ms)
{
	double end = now_ms() + ms, next_drain = now_ms() + 500;

	while (now_ms() < end) {
		struct pollfd pfd;
		int wait = live__poll_events(live, &pfd);

		if (poll(&pfd, 1, wait >= 0 && wait < 20 ? wait : 20) > 0 && pfd.revents)
			live__handle_events(live);
		if (now_ms() >= next_drain) {
			live__drain(live);
			next_drain = now_ms() + 500;
		}
	}
	live__drain(live);
}

/*
 * Starts sampling @comm (or @tgid, when not 0) into @p, which keeps
 * addresses, its user stacks walked with the tables of *@u (made here).
 */
static struct live *start(struct symbolizer *sym, struct profile *p, uint32_t *tgid,
			  const char *comm, struct unwinder **u)
{
	struct capture_opts o = {
		.mode = CAPTURE_SAMPLE,
		.freq = 999,
		.drain_period = 0.5,
		.kernel_stacks = true,
		.user_stacks = true,
		.tgids = *tgid ? tgid : NULL,
		.ntgids = *tgid ? 1 : 0,
		.comm = comm,
	};
	struct live *live;
	char err[512] = "no unwinder";

	if (unwinder__new(&(struct unwinder_opts){ 0 }, u) ||
	    live__open(&o, WEIGHT_EVENTS, sym, *u, NULL, p, &live, err, sizeof(err)) ||
	    live__start(live)) {
		fprintf(stderr, "annotate bench: can't sample: %s\n", err);
		exit(1);
	}
	return live;
}

/* The libc function with the most samples of its own. */
static uint32_t hottest_libc_function(const struct profile *p)
{
	const struct addr_counts *ac = profile__addresses(p);
	uint32_t best = PROFILE_NONE;
	uint64_t most = 0;

	for (uint32_t i = 0; i < addr_counts__nsites(ac); i++) {
		struct addr_site s;
		const struct addr_module *m;

		addr_counts__site_at(ac, i, &s);
		m = addr_counts__module_info(ac, s.module);
		if (m->space == SPACE_FILE && strstr(m->path, "/libc.so") && s.self > most) {
			most = s.self;
			best = s.frame;
		}
	}
	return best;
}

/*
 * Makes the annotation of @frame through @cache: its milliseconds (its CPU
 * time in *@cpu), and its rows in *@rows.
 */
static double time_annotation(const struct profile *p, uint32_t frame,
			      struct annotate_cache *cache, double *cpu, size_t *rows)
{
	struct annotate_ctx ctx = { .prof = p, .proc_root = "/proc",
				    .debug_root = "/usr/lib/debug" };
	struct annotation a;
	struct annotate_job *job;
	double t0 = now_ms(), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), ms;
	char why[256];

	job = annotate_source__job(&ctx, frame, why, sizeof(why));
	if (!job || job->run(job, cache, &a)) {
		fprintf(stderr, "annotate bench: %s\n", job ? "out of memory" : why);
		exit(1);
	}
	ms = now_ms() - t0;
	*cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
	*rows = a.nlines;
	annotation__free(&a);
	annotate_job__free(job);
	return ms;
}

static int bench_open(void)
{
	struct symbolizer *sym = symbolizer__new(&(struct symbolizer_opts){ .defer_kernel = true });
	struct profile *p = profile__new();
	struct annotate_cache *cache = annotate_cache__new();
	pid_t child = fork();
	uint32_t tgid = (uint32_t)child, frame;
	struct unwinder *u = NULL;
	double first, again, first_cpu, again_cpu;
	struct live *live;
	size_t rows;

	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a bench cut short takes its workload along */
		execl("build/workloads/annotate_work", "annotate_work", "qsort", "30",
		      (char *)NULL);
		_exit(127);
	}
	if (child < 0 || !sym || !p || !cache || !profile__keep_addresses(p))
		return 1;
	live = start(sym, p, &tgid, NULL, &u);
	sample_for(live, 2000);
	/* Timed alone: the workload and the sampling stopped. */
	kill(child, SIGSTOP);
	live__stop(live);
	frame = hottest_libc_function(p);
	if (frame == PROFILE_NONE) {
		fprintf(stderr, "annotate bench: no libc function was sampled\n");
		kill(child, SIGKILL);
		return 1;
	}
	first = time_annotation(p, frame, cache, &first_cpu, &rows);
	again = time_annotation(p, frame, cache, &again_cpu, &rows);
	printf("%.2f %.2f %.2f %.2f %zu %s\n", first, first_cpu, again, again_cpu, rows,
	       profile__frame_name(p, frame));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	live__close(live);
	unwinder__free(u);
	annotate_cache__free(cache);
	profile__free(p);
	symbolizer__free(sym);
	return 0;
}

static int bench_memory(size_t want)
{
	struct symbolizer *sym = symbolizer__new(&(struct symbolizer_opts){ .defer_kernel = true });
	struct profile *p = profile__new();
	pid_t child = fork();
	struct unwinder *u = NULL;
	uint32_t none = 0;
	struct live *live;
	double end;

	if (child == 0) {
		setpgid(0, 0); /* the compilers it starts go with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/bin/sh", "sh", "-c",
		      "while :; do for f in profile/*.c symbols/*.c tui/*.c; do "
		      "cc -O2 -D_GNU_SOURCE -I. -Ibuild -c $f -o /dev/null; done; done",
		      (char *)NULL);
		_exit(127);
	}
	if (child < 0 || !sym || !p || !profile__keep_addresses(p))
		return 1;
	live = start(sym, p, &none, "cc1", &u);
	end = now_ms() + 60000;
	while (profile__nstacks(p) < want && now_ms() < end)
		sample_for(live, 500);
	printf("%zu %zu %zu %zu\n", profile__nstacks(p),
	       addr_counts__nsites(profile__addresses(p)),
	       addr_counts__bytes(profile__addresses(p)), profile__bytes(p));
	kill(-child, SIGKILL);
	waitpid(child, NULL, 0);
	live__close(live);
	unwinder__free(u);
	profile__free(p);
	symbolizer__free(sym);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "open"))
		return bench_open();
	if (argc > 1 && !strcmp(argv[1], "memory"))
		return bench_memory(argc > 2 ? (size_t)atoi(argv[2]) : 10000);
	fprintf(stderr, "usage: annotate open | memory [STACKS]\n");
	return 2;
}
