// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "live/annotate_worker.h"
#include "symbols/procinfo.h"
#include "tui/actions.h"
#include "tui/app.h"
#include "tui/header.h"
#include "tui/snapshot.h"
#include "tui/term.h"
#include "tui/view.h"

#define QUIET_STACKS 256 /* a drain that passed fewer stacks: an idle machine */
#define FIRST_REFRESH 0.05 /* seconds from start (or r, or m) to the first screen with data */
#define QUICK_REFRESH 0.25 /* seconds between refreshes while the first ones find little ... */
#define QUICK_EVENTS 100   /* ... fewer events than this */
#define APP_RESIZE (1u << 16) /* beside the ACT_* flags: the terminal changed size */
/*
 * Seconds one read of the capture may take: keys (q) and signals are
 * honoured within about twice that (a drain reads twice), whatever the
 * rate and the backlog. What a drain could not read in it is counted as
 * lost ("not drained").
 */
#define READ_BUDGET 0.2

struct app {
	const struct app_config *cfg;
	struct view view;
	struct screen screen;
	struct profile *shown;                    /* the profile on screen */
	struct live_units units;                  /* what the live source's counts are */
	bool quit;
	struct annotate_worker *annotator;        /* makes the annotate pane's annotations */
	uint64_t annotate_tickets;                /* jobs handed to it so far */

	/* live */
	struct symbolizer *sym;
	struct unwinder *unwinder;
	struct python_procs *python;
	struct profile *profs[CAPTURE_MODE_NR];   /* each mode keeps its own */
	struct live *live;
	enum capture_mode mode;
	struct header_info info;                  /* the last refresh's figures */
	struct capture_stats mark;                /* the capture's counters at the last refresh */
	struct capture_stats recent;              /* what it counted in the last interval */
	struct capture_stats counted[CAPTURE_MODE_NR]; /* each mode's cumulative window's */
	double window_start;                      /* when the open interval began */
	double covered[CAPTURE_MODE_NR];          /* seconds each mode's cumulative window holds */
	double quick_until;                       /* till then, an empty window refreshes soon */
	double next_drain, next_refresh;
	char hook[128], notes[512];
	/* The last refresh's texts, and the screen's copies, by window (enum profile_window): */
	char walks[2][256], shown_walks[2][256];  /* how user stacks were walked */
	char offcpu[2][256], shown_offcpu[2][256]; /* off-CPU time by state */
	char symbols[256], shown_symbols[256];    /* what kept frames from being named */
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The view's pid and comm filters, as the capture takes them. */
static size_t capture_pids(const struct view *v, uint32_t *out)
{
	for (size_t i = 0; i < v->ntgids; i++)
		out[i] = (uint32_t)v->tgids[i];
	return v->ntgids;
}

/* The live screen's p asks what the command line's -p asks. */
static bool pid_exists(int32_t pid)
{
	return proc_info__exists("/proc", (uint32_t)pid);
}

/* Which of the view's pids have ended: the header says so ("pid 12 exited"). */
static void look_for_exits(struct view *v)
{
	v->exited = 0;
	for (size_t i = 0; i < v->ntgids && i < 64; i++) {
		if (proc_info__ended("/proc", (uint32_t)v->tgids[i]))
			v->exited |= 1ull << i;
	}
}

/* Points *@text, when set, at a copy of it in @copy (@size bytes). */
static void keep_copy(const char **text, char *copy, size_t size)
{
	if (!*text)
		return;
	snprintf(copy, size, "%s", *text);
	*text = copy;
}

/*
 * Shows the last refresh: the view reads the profile's counts as they are
 * now, and the header the refresh's figures, until the next one. A paused
 * screen is not shown anything new.
 */
static void publish(struct app *a)
{
	if (profile__freeze(a->shown))
		view__say(&a->view, true, "no memory for new counts: the screen shows older ones");
	a->view.info = a->info;
	/* Refreshes go on while the screen is paused: it keeps copies. */
	for (int w = 0; w < 2; w++) {
		keep_copy(&a->view.info.win[w].walks, a->shown_walks[w], sizeof(a->shown_walks[w]));
		keep_copy(&a->view.info.win[w].offcpu, a->shown_offcpu[w],
			  sizeof(a->shown_offcpu[w]));
	}
	keep_copy(&a->view.info.symbols, a->shown_symbols, sizeof(a->shown_symbols));
}

/* The header's figures for a source just opened in @mode; a window starts now. */
static void start_figures(struct app *a, double now)
{
	const struct capture *cap = live__capture(a->live);
	bool sample = a->mode == CAPTURE_SAMPLE;

	a->units = live_units(a->mode, a->cfg->weight);
	snprintf(a->hook, sizeof(a->hook), "%s", capture__hook(cap));
	snprintf(a->notes, sizeof(a->notes), "%s", capture__hook_notes(cap));
	a->info = (struct header_info){
		.mode = capture_mode__name(a->mode),
		.hook = a->hook,
		.notes = a->notes,
		.freq = sample ? a->cfg->capture.freq : 0,
		.ncpus = capture__ncpus(cap),
		.win = { { .rate = -1 }, { .rate = -1 } },
		.event = a->units.event,
		.unit = a->units.type,
		.time_us = a->units.weight == WEIGHT_TIME,
		.covered = a->covered[a->mode],
	};
	a->window_start = now;
	a->quick_until = now + a->view.delay;
	a->next_refresh = now + FIRST_REFRESH;
}

/* Starts capturing in @mode with the view's filters; returns 0 or -errno with @err. */
static int open_source(struct app *a, enum capture_mode mode, char *err, size_t size)
{
	uint32_t pids[VIEW_MAX_PIDS];
	struct capture_opts copts = a->cfg->capture;
	enum live_weight weight = live_units(mode, a->cfg->weight).weight;
	int ret;

	copts.mode = mode;
	copts.read_budget = READ_BUDGET;
	copts.ntgids = capture_pids(&a->view, pids);
	copts.tgids = pids;
	copts.comm = a->view.comm[0] ? a->view.comm : NULL;
	ret = live__open(&copts, weight, a->sym, a->unwinder, a->python, a->profs[mode], &a->live,
			 err, size);
	if (ret)
		return ret;
	a->mode = mode;
	a->shown = a->profs[mode];
	memset(&a->mark, 0, sizeof(a->mark)); /* a new capture counts from zero */
	/* What the profile held when it was swapped out is no recent window of this one. */
	profile__close_interval(a->shown);
	profile__close_interval(a->shown);
	/* From the attach: the processes running were described since, while sampling ran. */
	start_figures(a, capture__started(live__capture(a->live)));
	publish(a);
	return 0;
}

/* Stops capturing; what was still in flight reaches the profile. */
static void close_source(struct app *a)
{
	if (!a->live)
		return;
	live__stop(a->live);
	live__drain(a->live);
	live__drain(a->live);
	live__close(a->live);
	a->live = NULL;
}

/* m: the next mode (sample, read, offcpu), with its own profile; back to this one if it can't start. */
static int swap_mode(struct app *a, char *err, size_t size)
{
	enum capture_mode from = a->mode, to = (from + 1) % CAPTURE_MODE_NR;
	char why[512];

	close_source(a);
	if (open_source(a, to, why, sizeof(why)) == 0) {
		view__say(&a->view, false, "%s mode: %s", capture_mode__name(to), a->hook);
	} else {
		view__say(&a->view, true, "can't start %s mode: %s", capture_mode__name(to), why);
		if (open_source(a, from, err, size))
			return -EIO;
	}
	view__forget(&a->view); /* frame ids belong to a profile */
	return 0;
}

static void push_filter(struct app *a)
{
	uint32_t pids[VIEW_MAX_PIDS];
	size_t n = capture_pids(&a->view, pids);
	int err = live__set_filter(a->live, pids, n, a->view.comm[0] ? a->view.comm : NULL);

	if (err)
		view__say(&a->view, true, "can't filter in the kernel: %s", strerror(-err));
	look_for_exits(&a->view);
}

/* What a saved view says about itself: where it came from, what it counts, its filters. */
static void saved_info(const struct app *a, char *title, size_t title_size, char *filters,
		       size_t filters_size, struct output_info *info)
{
	const struct header_info *h = &a->view.info;
	bool sample = a->live && a->mode == CAPTURE_SAMPLE;

	if (h->file)
		snprintf(title, title_size, "flametop: %s", h->file);
	else if (h->freq)
		snprintf(title, title_size, "flametop: %s, %u Hz, %d CPUs", h->hook, h->freq,
			 h->ncpus);
	else
		snprintf(title, title_size, "flametop: %s mode, %s", h->mode, h->hook);
	view__window_line(&a->view, filters, filters_size);
	*info = (struct output_info){
		.title = title,
		.subtitle = filters,
		.type = h->unit,
		.unit = a->units.unit,
		.period_ns = sample ? 1000000000ull / a->cfg->capture.freq : 0,
	};
}

static void save(struct app *a)
{
	/* What output__write() counts: folded lines, SVG frames, pprof samples (one a stack). */
	static const char *const what[] = { "stacks", "frames", "stacks" };
	char path[4096], title[512], filters[512], amount[64];
	enum output_format format = output__format_of(a->view.save_path);
	struct output_info info;
	struct view_filter f;
	uint64_t events;
	long n;

	saved_info(a, title, sizeof(title), filters, sizeof(filters), &info);
	view__filter(&a->view, &f);
	n = snapshot__save(a->view.save_path, a->shown, &f, &info, path, sizeof(path), &events);
	view__amount(&a->view, events, amount, sizeof(amount));
	if (n < 0)
		view__say(&a->view, true, "s: can't save %s: %s", a->view.save_path,
			  strerror((int)-n));
	else
		view__say(&a->view, false, "saved %s (%ld %s) as %s to %s", amount, n,
			  what[format], output__format_name(format), path);
}

/*
 * Drains the capture into the profile, saying on the status line when it
 * fails. Drains come a drain period apart (capture__drain_period(): a
 * second, less at high rates). A drain that found little (an idle machine)
 * is followed by the refresh's own, up to two periods later: the kernel's
 * maps hold two periods of distinct keys at the sampling rate
 * (choose_sizes() in bpf/capture.c), so a burst after a quiet drain fits.
 */
static void drain(struct app *a)
{
	int ret = live__drain(a->live);
	double period = capture__drain_period(live__capture(a->live));

	if (ret < 0)
		view__say(&a->view, true, "reading the capture failed: %s", strerror(-ret));
	else if (ret < QUIET_STACKS && a->view.delay > period)
		period = a->view.delay < 2 * period ? a->view.delay : 2 * period;
	a->next_drain = now_seconds() + period;
}

/* The header's figures of window @w, from what the capture counted in it in @seconds. */
static void window_figures(struct app *a, enum profile_window w, const struct capture_stats *st,
			   double seconds)
{
	struct header_window *hw = &a->info.win[w];

	hw->rate = seconds > 0 ? (double)st->slot[STAT_EVENTS] / seconds : -1;
	hw->lost = capture_stats__lost(st);
	hw->undrained = st->undrained;
	live__walks_text(a->live, st, true, a->walks[w], sizeof(a->walks[w]));
	hw->walks = a->walks[w];
	hw->offcpu = NULL;
	if (a->mode == CAPTURE_OFFCPU) {
		live__offcpu_text(st, a->offcpu[w], sizeof(a->offcpu[w]));
		hw->offcpu = a->offcpu[w];
	}
}

/*
 * Closes the capture's counters' interval, @span seconds long: what it
 * counted is the recent window's, and adds to the mode's cumulative one;
 * both windows' figures go to the header. The names' troubles too.
 */
static void count_interval(struct app *a, double span)
{
	struct capture_stats now;

	live__stats(a->live, &now);
	capture_stats__since(&a->recent, &now, &a->mark);
	a->mark = now;
	capture_stats__add(&a->counted[a->mode], &a->recent);
	window_figures(a, WINDOW_RECENT, &a->recent, span);
	window_figures(a, WINDOW_CUMULATIVE, &a->counted[a->mode], a->covered[a->mode]);
	live__symbols_text(a->live, a->symbols, sizeof(a->symbols));
	a->info.symbols = a->symbols;
}

/* r: the samples taken before it are forgotten, drained ones and those in flight alike. */
static void reset(struct app *a)
{
	double now;

	drain(a);
	profile__reset(a->shown);
	now = now_seconds();
	a->covered[a->mode] = 0;
	memset(&a->counted[a->mode], 0, sizeof(a->counted[a->mode]));
	live__stats(a->live, &a->mark); /* from now on */
	start_figures(a, now);
	publish(a);
}

/*
 * Keeps the live profile within its limit of stacks (live__fold()), the
 * header saying how many were folded. True when stacks moved: the view must
 * be made again (its trie borrows their frames).
 */
static bool fold(struct app *a)
{
	uint64_t gen = profile__frames_gen(a->shown);
	long n = live__fold(a->live, a->cfg->max_stacks);

	if (profile__frames_gen(a->shown) != gen) /* the frames were renumbered */
		view__renumber(&a->view, a->shown);
	if (n < 0)
		view__say(&a->view, true, "no memory to fold the stacks over %zu: the profile grows",
			  a->cfg->max_stacks);
	a->info.folded = profile__folded(a->shown);
	a->info.max_stacks = a->cfg->max_stacks;
	return n > 0;
}

/*
 * Starts making the annotation the annotate pane wants (of its function,
 * from the profile on screen) in the worker; says on the status line, and
 * closes the pane, when there is nothing to annotate.
 */
static void start_annotation(struct app *a)
{
	struct annotate_pane *p = &a->view.annotate;
	struct annotate_ctx ctx = { .prof = a->shown,
				    .proc_root = "/proc",
				    .debug_root = "/usr/lib/debug",
				    .source_dirs = a->cfg->source_dirs,
				    .nsource_dirs = a->cfg->nsource_dirs };
	struct annotate_job *job;
	char why[512];
	int err;

	if (!p->open || !p->want_job)
		return;
	job = annotate_source__job(&ctx, p->frame, why, sizeof(why));
	if (!job) {
		annotate_pane__close(p);
		view__say(&a->view, true, "a: %s", why);
		return;
	}
	if (!a->annotator && !(a->annotator = annotate_worker__new())) {
		annotate_job__free(job);
		err = -ENOMEM;
	} else {
		err = annotate_worker__submit(a->annotator, job, ++a->annotate_tickets);
	}
	if (err) {
		annotate_pane__close(p);
		view__say(&a->view, true, "a: can't start reading the code: %s", strerror(-err));
		return;
	}
	annotate_pane__job_started(p, a->annotate_tickets);
}

/* Takes the annotation the worker made, if one waits: the pane shows it. */
static unsigned int take_annotation(struct app *a)
{
	struct annotation ann;
	uint64_t ticket;
	int err;

	if (!a->annotator || !annotate_worker__take(a->annotator, &ticket, &ann, &err))
		return 0;
	if (!err)
		err = annotate_pane__take(&a->view.annotate, ticket, &ann);
	if (err)
		view__say(&a->view, true, "a: out of memory");
	return ACT_REDRAW;
}

/*
 * A refresh: the interval closes and becomes the recent window, its span
 * and rate go to the header; the profile folds when over its limit; shown
 * unless the display is paused. While the
 * first refreshes after a start find little, the next comes soon: the
 * first screen, from a twentieth of a second of sampling, is soon followed
 * by fuller ones.
 */
static unsigned int refresh_data(struct app *a)
{
	double now = now_seconds(), span;
	uint64_t fresh;
	bool folded;

	drain(a);
	span = now - a->window_start;
	profile__close_interval(a->shown);
	folded = fold(a);
	a->window_start = now;
	a->covered[a->mode] += span;
	a->info.span = span;
	a->info.covered = a->covered[a->mode];
	count_interval(a, span);
	look_for_exits(&a->view);
	fresh = a->recent.slot[STAT_EVENTS];
	a->next_refresh = now + a->view.delay;
	if (a->view.paused) /* its picture stays, folded: the view is made again */
		return folded ? ACT_REBUILD : 0;
	publish(a);
	if (now < a->quick_until && fresh < QUICK_EVENTS && QUICK_REFRESH < a->view.delay)
		a->next_refresh = now + QUICK_REFRESH;
	if (a->view.annotate.open) { /* its counts moved on: made again */
		a->view.annotate.want_job = true;
		start_annotation(a);
	}
	return ACT_REBUILD;
}

/* When the next drain or refresh is due. */
static double next_tick(const struct app *a)
{
	return a->next_drain < a->next_refresh ? a->next_drain : a->next_refresh;
}

/* Waits for a key, a live event or the next clock tick; returns the keys' flags. */
static unsigned int wait_for_input(struct app *a)
{
	struct pollfd fds[4] = {
		{ .fd = term__input_fd(), .events = POLLIN },
		{ .fd = term__wake_fd(), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
		{ .fd = a->annotator ? annotate_worker__fd(a->annotator) : -1, .events = POLLIN },
	};
	int timeout = -1;
	unsigned int flags = 0;
	int key, ready;

	if (a->live) {
		double left = next_tick(a) - now_seconds();
		int events = live__poll_events(a->live, &fds[2]);

		timeout = left > 0 ? (int)ceil(left * 1000) : 0;
		if (events >= 0 && events < timeout)
			timeout = events;
	}
	ready = poll(fds, 4, timeout);
	/*
	 * Keys are read when typed and after a signal (a resize, Ctrl-Z); not on
	 * the clock's ticks, nor when capture events or their quiet period alone
	 * woke the loop (curses would poll the terminal once more each time).
	 * They come before the events: q is not kept waiting behind a busy capture.
	 */
	if (ready < 0 || fds[0].revents || fds[1].revents) {
		while (!(flags & ACT_QUIT) && (key = term__read_key()) != TERM_NO_KEY)
			flags |= key == TERM_RESIZED ? APP_RESIZE : actions__key(&a->view, key);
	}
	if (ready > 0 && fds[2].revents && !(flags & ACT_QUIT))
		live__handle_events(a->live);
	if (ready > 0 && fds[3].revents)
		flags |= take_annotation(a);
	return flags;
}

/* Does what the keys asked for beyond the view; returns 0 or -errno (fatal). */
static int apply(struct app *a, unsigned int flags, char *err, size_t size)
{
	if (flags & ACT_QUIT)
		a->quit = true;
	if (flags & ACT_SAVE)
		save(a);
	if (flags & ACT_ANNOTATE)
		start_annotation(a);
	if (!a->live)
		return 0;
	if (flags & ACT_FILTER)
		push_filter(a);
	if (flags & ACT_RESET)
		reset(a);
	if (flags & ACT_PAUSE && !a->view.paused)
		publish(a); /* resumed: what came meanwhile */
	if (flags & ACT_DELAY)
		a->next_refresh = now_seconds() + a->view.delay;
	return flags & ACT_SWAP_MODE ? swap_mode(a, err, size) : 0;
}

static int resize(struct app *a)
{
	int w, h;

	term__size(&w, &h);
	view__resize(&a->view, w, h);
	return screen__resize(&a->screen, w, h);
}

/*
 * Readies the profile for a rebuild: sorted (the view is built fastest from
 * a sorted profile, see stack_trie.h), and its first level named as the
 * view groups it.
 */
static void ready_profile(struct app *a)
{
	if (a->live && profile__sort(a->shown))
		view__say(&a->view, true, "no memory to sort the stacks: the view builds slower");
	if (profile__group(a->shown, a->view.group))
		view__say(&a->view, true, "no memory to name processes: some keep their command");
}

/* Brings the view up to date as @flags say, and draws it when anything changed. */
static int show(struct app *a, unsigned int flags)
{
	int err = 0;

	if (flags & APP_RESIZE)
		err = resize(a);
	if (!err && flags & ACT_REBUILD) {
		ready_profile(a);
		err = view__rebuild(&a->view, a->shown);
	} else if (!err && flags & (ACT_REDRAW | APP_RESIZE)) {
		err = view__refresh(&a->view);
	}
	if (err)
		return err;
	if (flags & (ACT_REBUILD | ACT_REDRAW | APP_RESIZE)) {
		view__draw(&a->screen, &a->view);
		term__draw(&a->screen);
	}
	return 0;
}

static int loop(struct app *a, char *err, size_t size)
{
	int ret = show(a, APP_RESIZE | ACT_REBUILD);

	while (!ret && !a->quit && !term__stop_requested()) {
		unsigned int flags = wait_for_input(a);

		ret = apply(a, flags, err, size);
		if (a->quit || term__stop_requested())
			break; /* at once: no drain, no drawing */
		if (!ret && a->live && now_seconds() >= a->next_refresh)
			flags |= refresh_data(a);
		else if (!ret && a->live && now_seconds() >= a->next_drain)
			drain(a);
		if (!ret)
			ret = show(a, flags);
		if (ret == -ENOMEM)
			snprintf(err, size, "out of memory");
	}
	return ret;
}

/* Sets the view's filters, hidden frames and grouping as the command line asked. */
static int start_view(struct app *a, bool live)
{
	const struct capture_opts *c = &a->cfg->capture;
	struct view *v = &a->view;
	const struct key_binding *keys;
	size_t nkeys;

	keys = actions__bindings(&nkeys);
	if (view__init(v, live, a->cfg->delay, keys, nkeys))
		return -ENOMEM;
	v->hide_kernel = a->cfg->hide_kernel;
	v->hide_user = a->cfg->hide_user;
	v->hide_interp = a->cfg->hide_interp;
	v->group = a->cfg->group;
	v->ntgids = c->ntgids < VIEW_MAX_PIDS ? c->ntgids : VIEW_MAX_PIDS;
	for (size_t i = 0; i < v->ntgids; i++)
		v->tgids[i] = (int32_t)c->tgids[i];
	if (c->comm)
		snprintf(v->comm, sizeof(v->comm), "%s", c->comm);
	if (live)
		v->pid_exists = pid_exists;
	return 0;
}

static int run_screen(struct app *a, char *err, size_t size)
{
	int ret = term__open(a->cfg->color, err, size);

	if (!ret)
		ret = loop(a, err, size);
	term__close();
	return ret;
}

static void free_app(struct app *a)
{
	annotate_worker__free(a->annotator);
	live__close(a->live); /* what is still in flight would not be shown */
	for (int i = 0; i < CAPTURE_MODE_NR; i++)
		profile__free(a->profs[i]);
	unwinder__free(a->unwinder);
	python_procs__free(a->python);
	symbolizer__free(a->sym);
	view__free(&a->view);
	screen__free(&a->screen);
}

int app__run_live(const struct app_config *c, char *err, size_t err_size)
{
	struct app a = { .cfg = c };
	int ret = term__check(err, err_size);

	if (ret) /* before anything is attached */
		return ret;
	ret = start_view(&a, true);

	a.sym = ret ? NULL : symbolizer__new(&c->symbols);
	if (a.sym && !c->unwind_fp && (ret = unwinder__new(&c->unwind, &a.unwinder))) {
		snprintf(err, err_size, "can't make the unwind tables' maps: %s", strerror(-ret));
		free_app(&a);
		return ret;
	}
	if (a.sym && c->python && (ret = python_procs__new(NULL, &a.python))) {
		snprintf(err, err_size, "can't make the Python processes' map: %s", strerror(-ret));
		free_app(&a);
		return ret;
	}
	for (int i = 0; i < CAPTURE_MODE_NR && a.sym; i++) {
		a.profs[i] = profile__new();
		/* The annotate view reads where in each function the samples were. */
		if (!a.profs[i] || !profile__keep_addresses(a.profs[i]))
			ret = -ENOMEM;
	}
	if (ret || !a.sym) {
		snprintf(err, err_size, "can't start: %s", strerror(ret ? -ret : ENOMEM));
		free_app(&a);
		return ret ? ret : -ENOMEM;
	}
	/* The kernel table is read while the programs load: it sets the first screen's time. */
	symbolizer__load_kernel_begin(a.sym);
	ret = open_source(&a, c->capture.mode, err, err_size);
	/* The terminal is made ready while the kernel table may still be read (live__start()). */
	if (!ret)
		ret = term__open(c->color, err, err_size);
	if (!ret && (ret = live__start(a.live)))
		snprintf(err, err_size, "can't read /proc/kallsyms: %s", strerror(-ret));
	if (!ret) {
		if (symbolizer__kernel_hidden(a.sym))
			view__say(&a.view, true,
				  "kernel addresses are hidden (kptr_restrict): kernel frames show "
				  "as [unknown]");
		/* The first screen comes from the first twentieth of a second of sampling:
		 * a tree at once, not an empty screen for a whole refresh delay. */
		a.next_drain = a.next_refresh;
		ret = loop(&a, err, err_size);
	}
	term__close();
	free_app(&a);
	return ret;
}

int app__run_file(const struct app_config *c, struct profile *p, const char *file,
		  const struct input_stats *st, char *err, size_t err_size)
{
	struct app a = { .cfg = c, .shown = p };
	int ret = start_view(&a, false);

	if (ret) {
		snprintf(err, err_size, "can't start: %s", strerror(-ret));
		return ret;
	}
	a.view.info = (struct header_info){
		.file = file,
		.stacks = st->stacks,
		.bad = st->bad,
		.first_bad_line = st->first_bad_line,
		.first_bad_why = st->first_bad_why,
		.unit = st->unit,
		.time_us = strcmp(st->count_unit, "microseconds") == 0,
		.notes = "",
		.win = { { .rate = -1 }, { .rate = -1 } },
	};
	a.units = (struct live_units){ .type = st->unit, .unit = st->count_unit };
	ret = run_screen(&a, err, err_size);
	free_app(&a);
	return ret;
}
