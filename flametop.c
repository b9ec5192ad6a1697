// SPDX-License-Identifier: GPL-2.0
/*
 * flametop: the table of contents.
 *
 *   options -> source (live capture, or a folded file) -> profile -> front end
 *
 * Every check of the outside world that can fail (privileges, BTF, the
 * kernel's limits, pids) happens here, before anything is attached, and
 * ends the program with one line on stderr and exit code 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live/annotate_source.h"
#include "live/live.h"
#include "options.h"
#include "profile/input.h"
#include "profile/output.h"
#include "profile/output_file.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"
#include "symbols/sanitize.h"
#include "symbols/procinfo.h"
#include "symbols/symbolizer.h"
#include "textbuf.h"
#include "tui/actions.h"
#include "tui/annotate_view.h"
#include "tui/app.h"
#include "tui/help_view.h"

#define FLAMETOP_VERSION "0.1.0"
#define EXIT_USAGE 2

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static volatile sig_atomic_t stop_signals; /* SIGINT, SIGTERM, SIGHUP or SIGQUIT received */
static struct capture *volatile signal_pauses; /* a batch run's capture, paused at a stop signal */

static void on_stop_signal(int sig)
{
	struct capture *cap = signal_pauses;

	(void)sig;
	stop_signals++;
	if (cap)
		capture__pause(cap);
}

/* Prints "flametop: <message>" on stderr and returns EXIT_USAGE. */
static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	char msg[4096], clean[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* File names and the like from outside: no control byte reaches the terminal. */
	sanitize_name(clean, sizeof(clean), msg, strlen(msg));
	fprintf(stderr, "flametop: %s\n", clean);
	return EXIT_USAGE;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool has_capability(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

static long read_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* What live capture needs from this machine; returns 0 or EXIT_USAGE. */
static int check_live_prerequisites(const struct options *o)
{
	long max_rate = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
	char path[64];
	struct stat st;

	if (o->mode == CAPTURE_SAMPLE && max_rate > 0 && o->freq > max_rate)
		return fail("-F %u is above this kernel's limit of %ld samples per second "
			    "(kernel.perf_event_max_sample_rate)",
			    o->freq, max_rate);
	for (size_t i = 0; i < o->ntgids; i++) {
		snprintf(path, sizeof(path), "/proc/%u", o->tgids[i]);
		if (stat(path, &st) != 0)
			return fail("-p %u: no such process", o->tgids[i]);
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return fail("this kernel has no BTF (/sys/kernel/btf/vmlinux): flametop needs a "
			    "kernel built with CONFIG_DEBUG_INFO_BTF=y");
	if (!has_capability(CAP_SYS_ADMIN) &&
	    !(has_capability(CAP_BPF) && has_capability(CAP_PERFMON)))
		return fail("needs root, or the capabilities CAP_BPF and CAP_PERFMON "
			    "(and CAP_SYS_PTRACE, CAP_SYSLOG to name every frame)");
	return 0;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal }; /* no SA_RESTART: wake sleeps */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Waits until @deadline, handling the live source's events (new processes
 * to snapshot) as they come. A signal ends the wait early.
 */
static void wait_until(struct live *live, double deadline)
{
	while (!stop_signals) {
		double left = deadline - now_seconds();
		int timeout = (int)(left * 1000) + 1, events;
		struct pollfd pfd;

		if (left <= 0)
			return;
		events = live__poll_events(live, &pfd);
		if (events >= 0 && events < timeout)
			timeout = events;
		if (poll(&pfd, 1, timeout) > 0 && pfd.revents)
			live__handle_events(live);
	}
}

static void capture_opts_from(const struct options *o, struct capture_opts *c)
{
	*c = (struct capture_opts){
		.mode = o->mode,
		.freq = o->freq,
		.drain_period = 1.0,
		.kernel_stacks = !o->user_only,
		.user_stacks = !o->kernel_only,
		.tgids = o->tgids,
		.ntgids = o->ntgids,
		.comm = o->comm,
		.stack_entries = o->stack_entries,
		.count_entries = o->count_entries,
		.min_block_ns = o->min_block_us * 1000,
	};
}

static const char *const stat_labels[STAT_NR] = {
	[STAT_LOST_COUNTS_FULL] = "counts map full",
	[STAT_LOST_BUSY] = "map swap",
	[STAT_KSTACK_NOMEM] = "kernel stack store full",
	[STAT_KSTACK_FAULT] = "kernel walk failed",
	[STAT_USTACK_NOMEM] = "user stack store full",
	[STAT_USTACK_FAULT] = "user walk failed",
	[STAT_LOST_WAITS_FULL] = "waits map full",
};

/* Where the stats' labelled slots end: the walks' ends follow (live__walks_text()). */
#define STAT_LABELLED STAT_UWALK

/* Appends printf-style text to the NUL-terminated @buf of @size bytes; what does not fit is cut. */
static void __attribute__((format(printf, 3, 4))) appendf(char *buf, size_t size, const char *fmt,
							  ...)
{
	struct textbuf t;
	va_list ap;

	textbuf__init(&t, buf, size);
	va_start(ap, fmt);
	textbuf__vadd(&t, fmt, ap);
	va_end(ap);
}

/*
 * Appends " (label: n, label: n)" for the nonzero slots in [from, to), and
 * for @undrained events left in the maps when reading them ended.
 */
static void append_reasons(char *buf, size_t size, const struct capture_stats *st, int from,
			   int to, uint64_t undrained)
{
	struct textbuf t;

	textbuf__init(&t, buf, size);
	textbuf__list(&t, " (");
	for (int i = from; i < to; i++) {
		if (st->slot[i])
			textbuf__item(&t, "%s: %" PRIu64, stat_labels[i], st->slot[i]);
	}
	if (undrained)
		textbuf__item(&t, "not drained: %" PRIu64, undrained);
	textbuf__end_list(&t, ")");
}

/*
 * The time sampling ran for a batch run: from the hooks' attach
 * (capture__started()) to their detach. The capture's buffers are set up,
 * the running processes described to the unwinder and the kernel's symbols
 * loaded inside it, while sampling runs.
 */
struct run_window {
	double start, stop;
	int64_t started; /* the start, in Unix ns */
};

/* The first part of the summary: events, the time and rate, the stacks. */
static void summary_events(char *buf, size_t size, const struct live *live,
			   const struct capture_stats *st, const struct options *o, double seconds,
			   long lines)
{
	const struct capture *cap = live__capture(live);

	if (o->mode == CAPTURE_SAMPLE)
		appendf(buf, size, "%" PRIu64 " samples in %.2f s (%s, %u Hz, %d CPUs), %ld stacks",
			st->slot[STAT_EVENTS], seconds, capture__hook(cap), o->freq,
			capture__ncpus(cap), lines);
	else
		appendf(buf, size, "%" PRIu64 " %s in %.2f s (%s), %ld stacks",
			st->slot[STAT_EVENTS], live_units(o->mode, o->weight).event, seconds,
			capture__hook(cap), lines);
	if (o->mode == CAPTURE_OFFCPU)
		appendf(buf, size, ", counts in microseconds off the CPU");
}

/* Events not counted, by reason; or counted and not read, at the end. */
static void summary_lost(char *buf, size_t size, const struct capture_stats *st)
{
	appendf(buf, size, ", %" PRIu64 " lost", capture_stats__lost(st));
	append_reasons(buf, size, st, STAT_LOST_COUNTS_FULL, STAT_KSTACK_NOMEM, st->undrained);
}

/* Idle samples the kernel skipped, credited from /proc/stat. */
static void summary_idle(char *buf, size_t size, uint64_t idle)
{
	if (idle)
		appendf(buf, size,
			", %" PRIu64 " idle samples the kernel skipped added from /proc/stat",
			idle);
}

/* Stacks recorded with one side missing, by reason. */
static void summary_partial(char *buf, size_t size, const struct capture_stats *st)
{
	uint64_t partial = 0;

	for (int i = STAT_KSTACK_NOMEM; i < STAT_LABELLED; i++)
		partial += st->slot[i];
	if (!partial)
		return;
	appendf(buf, size, ", %" PRIu64 " with a stack missing", partial);
	append_reasons(buf, size, st, STAT_KSTACK_NOMEM, STAT_LABELLED, 0);
}

/*
 * The summary of a batch run, on stderr: one line of what was counted in
 * window @w, never more than the rate allows in its time (one part per
 * function above); in off-CPU mode one of the waits' states; in off-CPU and
 * read mode one of the walks a thread's memo gave, and how many were
 * checked; one of how user stacks were walked, and one of what kept frames
 * from being named, when something did.
 */
static void print_summary(struct live *live, const struct profile *prof,
			  const struct run_window *w, const struct options *o, long lines)
{
	struct capture_stats st = { .undrained = 0 };
	char buf[1024] = "";

	live__stats(live, &st);
	summary_events(buf, sizeof(buf), live, &st, o, w->stop - w->start, lines);
	summary_lost(buf, sizeof(buf), &st);
	summary_idle(buf, sizeof(buf), live__idle_credited(live));
	summary_partial(buf, sizeof(buf), &st);
	if (profile__folded(prof))
		appendf(buf, sizeof(buf), ", %" PRIu64 " stacks folded (--max-stacks %u)",
			profile__folded(prof), o->max_stacks);
	fprintf(stderr, "flametop: %s\n", buf);
	if (o->mode == CAPTURE_OFFCPU) {
		live__offcpu_text(&st, buf, sizeof(buf));
		fprintf(stderr, "flametop: %s\n", buf);
	}
	if (o->mode != CAPTURE_SAMPLE) {
		live__memo_text(&st, buf, sizeof(buf));
		fprintf(stderr, "flametop: %s\n", buf);
	}
	if (!o->kernel_only) {
		live__walks_text(live, &st, false, buf, sizeof(buf));
		fprintf(stderr, "flametop: %s\n", buf);
	}
	live__symbols_text(live, buf, sizeof(buf));
	if (buf[0])
		fprintf(stderr, "flametop: %s\n", buf);
}

/* The files a batch run writes: folded stacks (stdout or -o), --svg, --pprof. */
struct outputs {
	FILE *folded, *svg, *pprof;
	struct output_file files[3]; /* -o, --svg and --pprof's, until written whole */
};

static const char *const output_flags[] = { "-o", "--svg", "--pprof" };

/* The paths of -o (NULL for stdout), --svg and --pprof, in output_flags' order. */
static void output_paths(const struct options *o, const char **paths)
{
	bool to_stdout = !o->output || strcmp(o->output, "-") == 0;

	paths[0] = o->folded && !to_stdout ? o->output : NULL;
	paths[1] = o->svg;
	paths[2] = o->pprof;
}

/*
 * Opens every file the command line names before any work starts, so that
 * a path that can't be written costs nothing; each is written beside its
 * name and takes it once whole (close_outputs()). Returns 0 or EXIT_USAGE
 * after saying why.
 */
static int open_outputs(const struct options *o, struct outputs *out)
{
	FILE **streams[] = { &out->folded, &out->svg, &out->pprof };
	const char *paths[3];

	memset(out, 0, sizeof(*out));
	output_paths(o, paths);
	if (o->folded && !paths[0])
		out->folded = stdout;
	for (int i = 0; i < 3; i++) {
		int err = paths[i] ? output_file__open(&out->files[i], paths[i]) : 0;

		if (err)
			return fail("%s %s: %s", output_flags[i], paths[i], output_file__strerror(err));
		if (paths[i])
			*streams[i] = out->files[i].f;
	}
	return 0;
}

/*
 * Gives each file written its name when @ret is 0, else removes it. Returns
 * @ret, or EXIT_USAGE after saying why one could not be written.
 */
static int close_outputs(const struct options *o, struct outputs *out, int ret)
{
	const char *paths[3];

	output_paths(o, paths);
	for (int i = 0; i < 3; i++) {
		int err;

		if (!out->files[i].f)
			continue;
		if (ret) {
			output_file__discard(&out->files[i]);
			continue;
		}
		err = output_file__commit(&out->files[i]);
		if (err)
			ret = fail("%s %s: %s", output_flags[i], paths[i], strerror(-err));
	}
	out->folded = out->svg = out->pprof = NULL;
	return ret;
}

/* The view the command line asks for: the whole run, with -K, -U, -p, -c and --group. */
static void filter_from(const struct options *o, struct view_filter *f, int32_t *tgids)
{
	for (size_t i = 0; i < o->ntgids; i++)
		tgids[i] = (int32_t)o->tgids[i];
	*f = (struct view_filter){
		.window = WINDOW_CUMULATIVE,
		.hide_kernel = o->user_only,
		.hide_user = o->kernel_only,
		.hide_interp = !o->python_all,
		.tgids = tgids,
		.ntgids = o->ntgids,
		.comm = o->comm,
		.group = o->group,
	};
}

/* The filters, as the SVG's second line says them ("" for none). */
static void describe_filters(const struct options *o, char *buf, size_t size)
{
	struct textbuf t;

	textbuf__start(&t, buf, size);
	textbuf__list(&t, "");
	for (size_t i = 0; i < o->ntgids; i++) {
		if (i)
			textbuf__add(&t, ",%u", o->tgids[i]);
		else
			textbuf__item(&t, "pid %u", o->tgids[i]);
	}
	if (o->comm)
		textbuf__item(&t, "comm %s", o->comm);
	if (o->kernel_only || o->user_only)
		textbuf__item(&t, "%s frames only", o->kernel_only ? "kernel" : "user");
}

/* Counts @node when stacks end there: a folded line of its own. */
static bool count_stack_end(void *ctx, const struct stack_trie *t, uint32_t node)
{
	*(long *)ctx += stack_trie__self(t, node) != 0;
	return true;
}

/* A chain's last node is where its stack ends. */
static void count_chain_end(void *ctx, const struct stack_trie *t, uint32_t above,
			    const uint32_t *frames, uint32_t n, uint64_t count)
{
	(void)t, (void)above, (void)frames, (void)n, (void)count;
	++*(long *)ctx;
}

/* Stacks in the view: trie nodes that stacks end at, as many as folded lines; or -ENOMEM. */
static long count_stacks(struct stack_trie *t)
{
	struct trie_visitor v = { count_stack_end, count_chain_end, NULL };
	long n = 0;
	int err;

	v.ctx = &n;
	err = stack_trie__walk(t, &v);

	return err ? err : n;
}

/*
 * Writes every output of @out from @prof, filtered and grouped as the
 * command line says. Returns 0, or -errno with *@what naming the output
 * that failed. With @stacks, the number of stacks written goes there: the
 * folded lines, counted again when no folded stacks were asked for.
 */
static int write_outputs(const struct options *o, struct outputs *out, struct profile *prof,
			 const struct output_info *info, const char **what, long *stacks)
{
	int32_t tgids[MAX_FILTER_TGIDS];
	FILE *files[] = { out->folded, out->svg, out->pprof };
	const enum output_format formats[] = { OUTPUT_FOLDED, OUTPUT_SVG, OUTPUT_PPROF };
	const char *names[] = { "writing folded stacks", "--svg", "--pprof" };
	struct view_filter filter;
	struct stack_trie trie;
	long ret, lines = -1;

	filter_from(o, &filter, tgids);
	*what = "building the view";
	stack_trie__init(&trie);
	if (profile__group(prof, o->group))
		return -ENOMEM;
	ret = stack_trie__build(&trie, prof, &filter);
	for (int i = 0; i < 3 && !ret; i++) {
		long n = files[i] ? output__write(files[i], formats[i], &trie, prof, &filter, info) : 0;

		*what = names[i];
		ret = n < 0 ? n : 0;
		if (files[i] && formats[i] == OUTPUT_FOLDED)
			lines = n;
	}
	if (!ret && stacks)
		ret = *stacks = lines >= 0 ? lines : count_stacks(&trie);
	stack_trie__free(&trie);
	return ret < 0 ? (int)ret : 0;
}

static int64_t unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Seconds a batch run reads what is left once sampling stopped, at most:
 * with the outputs written, it ends within a second of its --duration or
 * a signal, whatever the rate and the backlog.
 */
#define FINAL_READ 0.5
/* Seconds the end waits for tables that stacks copied before they were in need. */
#define COLD_SETTLE 1.0
#define LATE_READ 2.0 /* seconds a drain begun before --duration's end may go on past it */

/*
 * When a batch run's sampling and reading of the capture end: sampling at
 * --duration's end or at a stop signal; a read begun before then at the
 * signal or up to LATE_READ seconds after the end (at the top rates the
 * drains run long while sampling takes the CPU; it is paused at the end,
 * so they then end soon); once the hooks are detached, the last reads
 * FINAL_READ seconds later, or at one more signal.
 */
struct read_cutoff {
	double at;       /* CLOCK_MONOTONIC seconds */
	double grace;    /* seconds a read may go on past @at */
	int signals;     /* stop signals already acted on */
};

/* True once @c's time, @late seconds past @c->at, has come, or a signal since. */
static bool cutoff_passed(const struct read_cutoff *c, double late)
{
	return stop_signals > c->signals || now_seconds() >= c->at + late;
}

/* Whether a stop signal came since @ctx's cutoff was set (live__settle()'s stop callback). */
static bool signalled_again(void *ctx)
{
	const struct read_cutoff *c = ctx;

	return stop_signals > c->signals;
}

/* The capture's stop callback (capture_opts.stop) for a batch run. */
static bool cutoff_reached(void *ctx)
{
	const struct read_cutoff *c = ctx;

	return cutoff_passed(c, c->grace);
}

/* What the outputs say about a live run in window @w. */
static void live_info(const struct options *o, const struct live *live, const struct run_window *w,
		      char *title, size_t size, struct output_info *info)
{
	const struct capture *cap = live__capture(live);
	struct live_units u = live_units(o->mode, o->weight);
	bool sample = o->mode == CAPTURE_SAMPLE;
	double seconds = w->stop - w->start;

	if (sample)
		snprintf(title, size, "flametop: %s, %u Hz, %d CPUs, %.1f s", capture__hook(cap),
			 o->freq, capture__ncpus(cap), seconds);
	else
		snprintf(title, size, "flametop: %s mode, %s, %.1f s", capture_mode__name(o->mode),
			 capture__hook(cap), seconds);
	*info = (struct output_info){
		.title = title,
		.type = u.type,
		.unit = u.unit,
		.period_ns = sample ? 1000000000ull / o->freq : 0,
		.time_ns = w->started,
		.duration_ns = (int64_t)(seconds * 1e9),
	};
}

/*
 * True when -p named processes and every one has ended: the run ends then,
 * saying so, as perf record -p's does.
 */
static bool targets_ended(const struct options *o)
{
	for (size_t i = 0; i < o->ntgids; i++) {
		if (!proc_info__ended("/proc", o->tgids[i]))
			return false;
	}
	if (o->ntgids)
		fprintf(stderr, "flametop: every process of -p has exited: the run ends\n");
	return o->ntgids > 0;
}

#define ANNOTATE_WIDTH 200 /* --annotate's lines are cut at this many columns */

/*
 * The format --annotate prints in: --annotate-format's, else the lines,
 * or the instructions where there are none (as the annotate view opens).
 */
static enum ann_mode annotate_mode(const struct options *o, const struct annotation *a)
{
	if (o->annotate_format_set)
		return o->annotate_insns ? ANN_INSNS : ANN_LINES;
	return a->has_lines ? ANN_LINES : ANN_INSNS;
}

/*
 * --annotate: the table of the function it names (its hottest frame of
 * that name), as the screen's annotate view shows it, on stdout. Returns
 * 0, or EXIT_USAGE after one line on stderr.
 */
static int print_annotation(const struct options *o, const struct profile *prof)
{
	struct annotate_ctx ctx = { .prof = prof, .proc_root = "/proc",
				    .debug_root = "/usr/lib/debug", .source_dirs = o->source_dirs,
				    .nsource_dirs = o->nsource_dirs };
	struct annotate_draw d = { live_units(o->mode, o->weight).event,
				   o->mode == CAPTURE_OFFCPU, false };
	uint32_t frame = annotate_source__find(prof, o->annotate);
	struct annotate_cache *cache = annotate_cache__new();
	struct annotate_job *job = NULL;
	struct annotation a = { 0 };
	char why[512], *text = NULL;
	int ret = 0;

	if (frame == PROFILE_NONE)
		ret = fail("--annotate %s: no function of that name was sampled", o->annotate);
	else if (!(job = annotate_source__job(&ctx, frame, why, sizeof(why))))
		ret = fail("--annotate %s", why);
	else if (!cache || job->run(job, cache, &a) ||
		 !(text = annotate_text(&a, annotate_mode(o, &a), &d, ANNOTATE_WIDTH)))
		ret = fail("--annotate %s: out of memory", o->annotate);
	else if (fputs(text, stdout) == EOF || fflush(stdout))
		ret = fail("--annotate: writing to stdout: %s", strerror(errno));
	free(text);
	annotation__free(&a);
	annotate_job__free(job);
	annotate_cache__free(cache);
	return ret;
}

/* Samples (or traces) until --duration, a signal or -p's end, then writes the outputs asked for. */
static int run_batch_live(const struct options *o)
{
	/* The kernel table is read while the programs load and sampling starts. */
	struct symbolizer_opts sopts = { .raw_names = o->no_demangle, .defer_kernel = true };
	struct capture_opts copts;
	struct symbolizer *sym = NULL;
	struct unwinder *unwinder = NULL;
	struct python_procs *python = NULL;
	struct profile *prof = NULL;
	struct live *live = NULL;
	struct outputs out;
	struct output_info info;
	struct run_window w;
	struct read_cutoff cutoff = { INFINITY, 0, 0 };
	char err[1024], title[256], filters[512];
	const char *what;
	double next, period;
	long lines;
	int ret = open_outputs(o, &out);

	if (ret)
		return close_outputs(o, &out, ret);
	ret = EXIT_USAGE;
	sym = symbolizer__new(&sopts);
	prof = profile__new();
	if (prof && o->annotate && !profile__keep_addresses(prof))
		errno = ENOMEM;
	if (!sym || !prof || (o->annotate && !profile__addresses(prof))) {
		fail("can't start: %s", strerror(errno ? errno : ENOMEM));
		goto cleanup;
	}
	capture_opts_from(o, &copts);
	copts.duration = o->duration;
	copts.stop = cutoff_reached;
	copts.stop_ctx = &cutoff;
	catch_stop_signals();
	if (!o->unwind_fp && !o->kernel_only &&
	    (ret = unwinder__new(&(struct unwinder_opts){ .memory_bytes = o->unwind_memory },
				 &unwinder))) {
		ret = fail("can't make the unwind tables' maps: %s", strerror(-ret));
		goto cleanup;
	}
	if (!o->no_python && !o->kernel_only && (ret = python_procs__new(NULL, &python))) {
		ret = fail("can't make the Python processes' map: %s", strerror(-ret));
		goto cleanup;
	}
	ret = EXIT_USAGE;
	/*
	 * Until the hooks are attached the deadline counts from before the
	 * load, so it can only come early: the running processes described
	 * meanwhile stop being described (the rest are at their first sample).
	 */
	if (o->duration > 0)
		cutoff.at = now_seconds() + o->duration;
	symbolizer__load_kernel_begin(sym); /* while the programs load */
	if (live__open(&copts, live_units(o->mode, o->weight).weight, sym, unwinder, python, prof, &live,
		       err, sizeof(err))) {
		fail("%s", err);
		goto cleanup;
	}
	w.start = capture__started(live__capture(live));
	w.started = unix_ns() - (int64_t)((now_seconds() - w.start) * 1e9);
	signal_pauses = live__capture(live);
	if (stop_signals)
		capture__pause(live__capture(live));
	if (o->duration > 0)
		cutoff.at = w.start + o->duration;
	ret = live__start(live);
	if (ret) {
		ret = fail("can't read /proc/kallsyms: %s", strerror(-ret));
		goto cleanup;
	}
	ret = EXIT_USAGE;
	if (capture__hook_notes(live__capture(live))[0])
		fprintf(stderr, "flametop: hook: %s (%s)\n", capture__hook(live__capture(live)),
			capture__hook_notes(live__capture(live)));
	if (symbolizer__kernel_hidden(sym))
		fprintf(stderr, "flametop: kernel addresses hidden (kptr_restrict): kernel frames "
				"will show as [unknown]\n");

	/*
	 * A drain a period (a second, less at high rates); one that ran late (a
	 * big perf map read) is not caught up on. None starts within a period of
	 * the deadline: the final reads below take that last stretch.
	 */
	period = capture__drain_period(live__capture(live));
	cutoff.grace = LATE_READ; /* for the drains: the load's waits above end at the deadline */
	for (next = w.start + period; !cutoff_passed(&cutoff, 0); next = now_seconds() + period) {
		bool last = next + period > cutoff.at;

		wait_until(live, last ? cutoff.at : next);
		if (last || cutoff_passed(&cutoff, 0) || live__drain(live) < 0)
			break;
		live__fold(live, o->max_stacks); /* out of memory: it grows */
		if (targets_ended(o))
			break;
	}
	/*
	 * Detach first (at a high rate, sampling itself takes most of the CPU),
	 * then drain twice: the second catches events that were still running
	 * on the other map set when the hooks went away.
	 */
	live__stop(live); /* may have been stopped already, waiting for the kernel's symbols */
	w.stop = capture__stopped(live__capture(live));
	cutoff = (struct read_cutoff){ now_seconds() + FINAL_READ, 0, stop_signals };
	live__drain(live);
	live__drain(live);
	/* A run ended by a signal (Ctrl-C) prints at once; one ended on time waits for tables. */
	cutoff.at = now_seconds() + (stop_signals ? 0 : COLD_SETTLE);
	live__settle(live, cutoff.at, signalled_again, &cutoff);
	live__fold(live, o->max_stacks);

	live_info(o, live, &w, title, sizeof(title), &info);
	describe_filters(o, filters, sizeof(filters));
	info.subtitle = filters;
	what = "sorting the stacks";
	ret = profile__sort(prof);
	if (!ret)
		ret = write_outputs(o, &out, prof, &info, &what, &lines);
	if (ret) {
		ret = fail("%s: %s", what, strerror(-ret));
		goto cleanup;
	}
	print_summary(live, prof, &w, o, lines);
	ret = o->annotate ? print_annotation(o, prof) : 0;
cleanup:
	signal_pauses = NULL;
	live__close(live);
	unwinder__free(unwinder);
	python_procs__free(python);
	profile__free(prof);
	symbolizer__free(sym);
	return close_outputs(o, &out, ret);
}

/*
 * Raises the soft limit on open files to the hard one: the symbolizer holds
 * the files of short-lived processes open (a quarter of the limit at most).
 */
static void raise_open_files_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* How late the kernel may wake flametop's timed waits, to fold them into other wakeups. */
#define TIMER_SLACK_NS 4000000UL

/*
 * Lets the kernel wake flametop's timed waits (the end of a notes' quiet
 * time, a drain, a refresh) up to 4 ms late, with a timer that fires
 * anyway, rather than program a wakeup of their own. On this project's VM
 * a wakeup of its own costs ~30 us of CPU; under process churn flametop
 * waits ~25 times a second, and this took its CPU from 2.6 to 2.3 ms a
 * second. Nothing it does needs a wakeup on time to 4 ms: a note's quiet
 * time is 200 ms, a refresh a second.
 */
static void allow_late_wakeups(void)
{
	prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS);
}

/*
 * The screen's settings from the command line. The screen walks both sides
 * of every stack, so that K and U can show what -U and -K hid at first.
 */
static void app_config_from(const struct options *o, struct app_config *c)
{
	*c = (struct app_config){
		.weight = o->weight,
		.symbols = { .raw_names = o->no_demangle, .defer_kernel = true },
		.delay = o->delay,
		.max_stacks = o->max_stacks,
		.color = !o->no_color,
		.hide_kernel = o->user_only,
		.hide_user = o->kernel_only,
		.hide_interp = !o->python_all,
		.unwind = { .memory_bytes = o->unwind_memory },
		.unwind_fp = o->unwind_fp,
		.python = !o->no_python,
		.group = o->group,
		.source_dirs = o->source_dirs,
		.nsource_dirs = o->nsource_dirs,
	};
	capture_opts_from(o, &c->capture);
	c->capture.kernel_stacks = c->capture.user_stacks = true;
}

static int need_terminal(void)
{
	if (isatty(STDOUT_FILENO))
		return 0;
	return fail("the screen needs a terminal on stdout: use --folded for text output");
}

/* The live screen. */
static int run_screen_live(const struct options *o)
{
	struct app_config c;
	char err[1024];

	app_config_from(o, &c);
	if (app__run_live(&c, err, sizeof(err)))
		return fail("%s", err);
	return 0;
}

/* Says how many lines of @file were malformed, and the first one, on stderr. */
static void report_bad_lines(const char *file, const struct input_stats *st)
{
	const char *what = st->format == INPUT_PPROF ? "sample" : "line";

	if (st->bad)
		fprintf(stderr,
			"flametop: %s: %" PRIu64 " malformed %s%s skipped (first: %s %" PRIu64
			", %s)\n",
			file, st->bad, what, st->bad == 1 ? "" : "s", what, st->first_bad_line,
			st->first_bad_why ? st->first_bad_why : "malformed");
}

/* Says once, on stderr, that some counts of @prof (from @what) stopped at their maximum. */
static void report_saturated(const char *what, const struct profile *prof)
{
	if (profile__saturated(prof))
		fprintf(stderr,
			"flametop: %s: counts over %" PRIu64 " stop there (saturated): the totals "
			"shown are lower bounds\n",
			what, (uint64_t)COUNT_MAX);
}

/*
 * Reads -i FILE (or stdin) into @prof. Returns 0, or EXIT_USAGE after saying
 * why: it can't be read, or not one line of it is a stack.
 */
static int read_input(const struct options *o, struct profile *prof, struct input_stats *st)
{
	bool is_stdin = strcmp(o->input, "-") == 0;
	FILE *in = is_stdin ? stdin : fopen(o->input, "re");
	struct stat sb;
	int err;

	if (!in)
		return fail("-i %s: %s", o->input, strerror(errno));
	if (fstat(fileno(in), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		if (!is_stdin)
			fclose(in);
		return fail("-i %s: is a directory", o->input);
	}
	err = input__read(in, prof, st);
	if (!is_stdin)
		fclose(in);
	if (err == -EBADMSG)
		return fail("-i %s: not a %s profile: %s", o->input, input__format_name(st->format),
			    st->error ? st->error : "malformed");
	if (err == -EFBIG)
		return fail("-i %s: a %s profile over 1 GiB", o->input,
			    input__format_name(st->format));
	if (err)
		return fail("-i %s: %s", o->input, strerror(-err));
	if (!st->stacks && st->bad && st->format == INPUT_FOLDED)
		return fail("-i %s: not one line is a folded stack (comm;frame;... count): %" PRIu64
			    " malformed line%s, the first on line %" PRIu64 " (%s)",
			    o->input, st->bad, st->bad == 1 ? "" : "s", st->first_bad_line,
			    st->first_bad_why);
	if (!st->stacks && st->bad)
		return fail("-i %s: not one stack in this %s input: %" PRIu64 " malformed",
			    o->input, input__format_name(st->format), st->bad);
	if (!st->stacks)
		return fail("-i %s: no stack in it: the input is empty", o->input);
	return 0;
}

/*
 * -p and --group pid|tid ask for process ids, which a file may not name
 * (folded stacks without them): then says so, as the screen's p and P do,
 * and returns EXIT_USAGE; else 0.
 */
static int need_pids(const struct options *o, const struct profile *prof, const char *file)
{
	const char *flag = o->ntgids ? "-p" : o->group != GROUP_COMM ? "--group" : NULL;

	if (!flag || profile__has_tgids(prof))
		return 0;
	return fail("-i %s: %s: this file names no process ids (only names such as perf's "
		    "comm-PID do)",
		    file, flag);
}

/* -i FILE with --folded, --svg or --pprof: the stacks read, filtered, written to @out. */
static int rewrite(const struct options *o, struct outputs *out, struct profile *prof,
		   const char *name, const struct input_stats *st)
{
	struct output_info info = { .type = st->unit, .unit = st->count_unit };
	char title[NAME_MAX_BYTES + 64], filters[512];
	const char *what;
	int err;

	snprintf(title, sizeof(title), "flametop: %s", name);
	describe_filters(o, filters, sizeof(filters));
	info.title = title;
	info.subtitle = filters;
	err = write_outputs(o, out, prof, &info, &what, NULL);
	return err ? fail("%s: %s", what, strerror(-err)) : 0;
}

/* -i FILE: the viewer, or with --folded, --svg or --pprof the same stacks, filtered, written. */
static int run_input(const struct options *o)
{
	char file[NAME_MAX_BYTES + 1], err[1024], name[NAME_MAX_BYTES + 32];
	struct input_stats st;
	struct app_config c;
	struct profile *prof;
	struct outputs out;
	int ret;

	/* The name it is shown by (messages, titles): sanitized, as every name from outside. */
	if (strcmp(o->input, "-") == 0)
		snprintf(file, sizeof(file), "stdin");
	else
		sanitize_name(file, sizeof(file), o->input, strlen(o->input));

	if (!options__batch(o) && need_terminal())
		return EXIT_USAGE;
	ret = open_outputs(o, &out);
	if (ret)
		return close_outputs(o, &out, ret);
	prof = profile__new();
	if (!prof)
		return close_outputs(o, &out, fail("can't start: %s", strerror(ENOMEM)));
	ret = read_input(o, prof, &st) ?: need_pids(o, prof, file);
	/* "perf.txt (perf script)": a file of another format than folded says which. */
	snprintf(name, sizeof(name), st.format == INPUT_FOLDED ? "%s" : "%s (%s)", file,
		 input__format_name(st.format));
	if (!ret)
		report_saturated(file, prof);
	if (!ret && options__batch(o)) {
		report_bad_lines(file, &st);
		ret = rewrite(o, &out, prof, name, &st);
	} else if (!ret) {
		/*
		 * The viewer makes its views from the stacks over and over: sorted,
		 * with their frames in that order in memory, it reads memory in
		 * order. (Without the memory for it, it reads them as they are.)
		 */
		if (!profile__sort(prof))
			profile__pack(prof);
		app_config_from(o, &c);
		if (app__run_file(&c, prof, name, &st, err, sizeof(err)))
			ret = fail("%s", err);
	}
	profile__free(prof);
	return close_outputs(o, &out, ret);
}

/* Each --source-dir must be a directory; returns 0 or EXIT_USAGE after saying which is not. */
static int check_source_dirs(const struct options *o)
{
	struct stat st;

	for (size_t i = 0; i < o->nsource_dirs; i++) {
		if (stat(o->source_dirs[i], &st))
			return fail("--source-dir %s: %s", o->source_dirs[i], strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return fail("--source-dir %s: not a directory", o->source_dirs[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct key_binding *keys;
	size_t nkeys;
	struct options o;
	char err[512];
	int ret;

	switch (options__parse(argc, argv, &o, err, sizeof(err))) {
	case OPTIONS_HELP:
		options__print_usage(stdout);
		keys = actions__bindings(&nkeys);
		help__print_keys(stdout, keys, nkeys);
		fputs(options_examples, stdout);
		return 0;
	case OPTIONS_VERSION:
		puts("flametop " FLAMETOP_VERSION);
		return 0;
	case OPTIONS_ERROR:
		return fail("%s (try --help)", err);
	case OPTIONS_RUN:
		break;
	}
	raise_open_files_limit();
	if (check_source_dirs(&o))
		return EXIT_USAGE;
	if (o.input)
		return run_input(&o);
	if (!options__batch(&o) && need_terminal())
		return EXIT_USAGE;
	ret = check_live_prerequisites(&o);
	if (ret)
		return ret;
	allow_late_wakeups();
	return options__batch(&o) ? run_batch_live(&o) : run_screen_live(&o);
}
