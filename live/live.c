// SPDX-License-Identifier: GPL-2.0
/*
 * live: the event loop's side of the live source. A drain moves what the
 * capture counted through the name cache into the profile, credits the
 * idle the kernel skipped, and lets the unwinder take in what its loader
 * finished. Process notes are read as they come (after a burst, with a
 * short quiet time), snapshotted by the symbolizer and described to the
 * unwinder.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "live/cold_stacks.h"
#include "live/idle_account.h"
#include "live/live.h"
#include "live/name_cache.h"
#include "symbols/procinfo.h"
#include "textbuf.h"
#include "unwind/cfa_program.h"

/*
 * Seconds between two wakeups for process notes, while they come in a
 * burst (closer than NOTES_BURST): a process is first sampled within
 * ~10 ms of running at 99 Hz, and its note is read at most this much
 * later: one that runs for 80 ms is still snapshotted while it runs (its
 * files opened with its rights, its mappings handed to the walk); one that
 * ended before is described by the mappings the kernel announced
 * (symbols/mmap_watch.h: its files opened by path, only those every user
 * may read) and its copied stacks walked with them. Each wakeup costs
 * 30-50 us here: under process churn (~20 notes a second) they were a
 * fifth of flametop's main thread at 40 ms, and the notes of processes
 * still running (their maps read, their mappings written for the walk,
 * an exit note later) cost twice those of processes gone. Not longer: a
 * Python process's frames are named from its first description, read
 * with its note (at most 100 ms after its first sample, issue 33's bound,
 * however many processes come; 200 ms halved the wakeups again). A note
 * alone (a process first sampled on a quiet machine) is read when it
 * comes, and no wakeup follows to look for more.
 */
#define EVENTS_QUIET 0.080
#define NOTES_BURST 0.160

struct live {
	struct capture *cap;
	struct symbolizer *sym;
	struct unwinder *unwinder; /* NULL: user stacks walked by frame pointer */
	struct python_procs *python; /* NULL: no Python frames walked */
	struct profile *prof;
	struct name_cache *names;
	struct cold_stacks *cold; /* copied user stacks, walked once their tables are in */
	struct python_frames *py_frames; /* the names' Python frames, with @python */
	enum live_weight weight;
	bool sampled; /* events are samples: a stack's leaf is where the code was */
	struct idle_account idle;
	double events_quiet_until; /* live__poll_events() leaves the events alone until then */
	double notes_read_at;      /* when notes were last read */
	double trimmed;                         /* when freed memory was last given back */
	bool (*stop)(void *ctx);             /* the capture's stop callback, or NULL */
	void *stop_ctx;
};

#define TRIM_PERIOD 60.0 /* seconds between two returns of freed memory, folds aside */

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int live__open(const struct capture_opts *copts, enum live_weight weight, struct symbolizer *sym,
	       struct unwinder *unwinder, struct python_procs *python, struct profile *prof,
	       struct live **out, char *err, size_t err_size)
{
	struct live *l = calloc(1, sizeof(*l));
	struct capture_opts o = *copts;
	int ret;

	*out = NULL;
	if (!l) {
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	idle_account__init(&l->idle);
	o.unwind = unwinder ? unwinder__maps(unwinder) : NULL;
	o.cold_copies = unwinder && (l->cold = cold_stacks__new()) != NULL;
	o.python = python ? python_procs__maps(python) : NULL;
	ret = capture__open(&o, &l->cap, err, err_size);
	if (ret) {
		live__close(l);
		return ret;
	}
	/*
	 * The tables of what runs now are built while the first samples come in
	 * (built during the load, they slowed it by half: the verifier and the
	 * builds share two CPUs and the memory bus), once the kernel's symbol
	 * table is read (live__start()): the first screen waits for that table,
	 * and with one CPU busy the builds took its time.
	 */
	if (unwinder && symbolizer__kernel_loading(sym))
		unwinder__hold(unwinder, true);
	if (unwinder)
		unwinder__note_running(unwinder, o.tgids, o.ntgids, o.comm, o.stop, o.stop_ctx);
	l->names = name_cache__new(sym, prof, capture__mode(l->cap) != CAPTURE_SAMPLE);
	l->py_frames = python ? python_frames__new(python, prof) : NULL;
	if (!l->names || (python && !l->py_frames)) {
		live__close(l);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	name_cache__set_python(l->names, l->py_frames);
	l->sym = sym;
	l->unwinder = unwinder;
	l->python = python;
	l->prof = prof;
	l->weight = weight;
	l->sampled = capture__mode(l->cap) == CAPTURE_SAMPLE;
	l->stop = copts->stop;
	l->stop_ctx = copts->stop_ctx;

	if (unwinder)
		unwinder__exits_noted(unwinder, capture__notes_exits(l->cap));
	idle_account__start(&l->idle, l->cap, &o);
	*out = l;
	return 0;
}

struct live_units live_units(enum capture_mode mode, enum live_weight weight)
{
	if (mode == CAPTURE_OFFCPU)
		return (struct live_units){ WEIGHT_TIME, "waits", "off-CPU time", "microseconds" };
	if (mode == CAPTURE_READ && weight == WEIGHT_BYTES)
		return (struct live_units){ WEIGHT_BYTES, "reads", "bytes", "bytes" };
	if (mode == CAPTURE_READ)
		return (struct live_units){ WEIGHT_EVENTS, "reads", "reads", "count" };
	return (struct live_units){ WEIGHT_EVENTS, "samples", "samples", "count" };
}

/* What stack @st counts in the profile, weighed by @weight. */
static uint64_t count_of(enum live_weight weight, const struct capture_stack *st)
{
	switch (weight) {
	case WEIGHT_BYTES:
		return st->weight;
	case WEIGHT_TIME:
		return (st->weight + 500) / 1000; /* ns to the nearest microsecond */
	default:
		return st->count;
	}
}

/* A stack whose user side was walked: named into the profile. */
static void on_walked(void *ctx, const struct capture_stack *st)
{
	struct live *l = ctx;
	uint32_t frames[NAME_CACHE_MAX_FRAMES], sites[NAME_CACHE_MAX_FRAMES];
	struct sample s = {
		.tgid = (int32_t)st->tgid,
		.tid = (int32_t)st->pid,
		.frames = frames,
		.count = count_of(l->weight, st),
		.sites = sites,
		.leaf_exact = l->sampled,
	};

	s.n = name_cache__stack(l->names, st, frames, sites);
	if (s.n)
		profile__add(l->prof, &s);
}

/* A stack drained: its user side walked already, or copied to be walked here. */
static void on_stack(void *ctx, const struct capture_stack *st)
{
	struct live *l = ctx;

	if (st->ucopy.bytes && l->cold)
		cold_stacks__take(l->cold, l->unwinder, st, monotonic_seconds(), on_walked, l);
	else
		on_walked(l, st);
}

/* Walks the copied stacks kept for their tables again; with @final, all are passed on. */
static void retry_cold(struct live *l, bool final)
{
	if (l->cold)
		cold_stacks__retry(l->cold, l->unwinder, monotonic_seconds(), final, on_walked, l);
}

/* Adds to the profile the samples the kernel skipped on idle CPU @cpu. */
static bool credit_idle(void *ctx, int cpu, uint64_t samples)
{
	struct live *l = ctx;
	const char *idle = "[idle, not sampled]";
	uint32_t frames[2];
	struct sample s = { .tgid = 0, .frames = frames, .n = 2, .count = samples };
	char comm[32];

	snprintf(comm, sizeof(comm), "swapper/%d", cpu);
	frames[0] = profile__frame(l->prof, comm, strlen(comm), FRAME_PROCESS, true);
	frames[1] = profile__frame(l->prof, idle, strlen(idle), FRAME_KERNEL, false);
	return frames[0] != PROFILE_NONE && frames[1] != PROFILE_NONE &&
	       profile__add(l->prof, &s) == 0;
}

#define KERNEL_WAIT_MS 2 /* how often the wait for the kernel table looks again */

int live__start(struct live *l)
{
	struct pollfd pfd;
	int err;

	if (symbolizer__load_kernel_begin(l->sym) == 0) {
		while (symbolizer__kernel_loading(l->sym)) {
			int quiet;

			if (l->stop && l->stop(l->stop_ctx)) {
				/* Sampling at a high rate slows the reading: it stops first. */
				live__stop(l);
				break;
			}
			quiet = live__poll_events(l, &pfd);

			if (poll(&pfd, 1, quiet >= 0 && quiet < KERNEL_WAIT_MS ? quiet : KERNEL_WAIT_MS) >
			    0)
				live__handle_events(l);
		}
	}
	err = symbolizer__load_kernel(l->sym);
	if (l->unwinder)
		unwinder__hold(l->unwinder, false);
	return err;
}

uint64_t live__idle_credited(const struct live *l)
{
	return l->idle.credited;
}

/* Has process @tgid exited? (the name cache's and the profile's callback) */
static bool process_gone(void *ctx, int32_t tgid)
{
	(void)ctx;
	return proc_info__exited(tgid);
}

int live__drain(struct live *l)
{
	int ret;

	live__handle_events(l); /* snapshot new processes before their stacks are named */
	name_cache__begin_drain(l->names, process_gone, NULL);
	symbolizer__begin_pass(l->sym);
	ret = capture__drain(l->cap, on_stack, l);
	if (l->idle.on && ret >= 0)
		idle_account__update(&l->idle, l->cap, credit_idle, l, false);
	retry_cold(l, false);
	if (l->unwinder)
		unwinder__pass(l->unwinder);
	if (l->python)
		python_procs__pass(l->python, monotonic_seconds());
	return ret;
}

#define SETTLE_POLL_MS 10

void live__settle(struct live *l, double deadline, bool (*stop)(void *ctx), void *ctx)
{
	struct cold_stats st;

	if (!l->cold)
		return;
	for (;;) {
		cold_stacks__stats(l->cold, &st);
		if (!st.kept || monotonic_seconds() >= deadline || (stop && stop(ctx)))
			break;
		poll(NULL, 0, SETTLE_POLL_MS);
		unwinder__pass(l->unwinder); /* takes in the tables built meanwhile */
		retry_cold(l, false);
	}
	retry_cold(l, true);
}

long live__fold(struct live *l, size_t max_stacks)
{
	long folded = profile__fold(l->prof, max_stacks, process_gone, NULL);
	double now = monotonic_seconds();

	/*
	 * What a fold frees (the stacks it folded away, its own copies), and
	 * once a minute what the caches let go of, goes back to the system:
	 * glibc would keep the pages in its arenas, and a long session's RSS
	 * step up at each fold.
	 */
	if (folded > 0 || now - l->trimmed >= TRIM_PERIOD) {
		malloc_trim(0);
		l->trimmed = now;
	}
	return folded;
}

int live__set_filter(struct live *l, const uint32_t *tgids, size_t ntgids, const char *comm)
{
	int err = capture__set_filter(l->cap, tgids, ntgids, comm);

	if (!err)
		l->idle.filtered = ntgids || comm;
	return err;
}

int live__poll_events(struct live *l, struct pollfd *pfd)
{
	double quiet = l->events_quiet_until - monotonic_seconds();

	/* What came during a quiet time is read at its end: no poll() to ask. */
	if (quiet <= 0 && l->events_quiet_until > 0) {
		l->events_quiet_until = 0;
		live__handle_events(l);
		quiet = l->events_quiet_until - monotonic_seconds();
	}
	pfd->events = POLLIN;
	pfd->revents = 0;
	if (quiet > 0) { /* notes wait; stacks filling their ring buffer do not */
		pfd->fd = capture__arm_stacks_fill(l->cap);
		return (int)(quiet * 1000) + 1;
	}
	pfd->fd = capture__event_fd(l->cap);
	return -1;
}

/*
 * A process to snapshot now (what it maps goes to the unwinder too), or
 * one that ended: the unwinder lets its slot go, once it has its last
 * mappings (as the kernel announced them) for the copies of its stacks
 * still to walk: read while it ran, its maps may have missed a library.
 */
static void on_proc_note(void *ctx, uint32_t tgid, uint32_t kind, uint64_t start_boottime)
{
	struct live *l = ctx;
	bool exit = kind == PROC_NOTE_EXIT, ended = exit;
	const struct proc_maps *maps = NULL;
	uint64_t gen;

	if (exit && l->python)
		python_procs__exited(l->python, tgid);
	if (exit && !l->unwinder)
		return;
	if (!symbolizer__note_process(l->sym, tgid, kind != PROC_NOTE_SAMPLE, start_boottime)) {
		gen = symbolizer__user_gen(l->sym, tgid);
		ended |= symbolizer__ended(l->sym, tgid);
		maps = symbolizer__maps(l->sym, tgid); /* valid until the next call into it */
	}
	/* Ended: described (its last mappings, the kernel's mmap records) for its copies only. */
	if (maps && l->unwinder && ended)
		unwinder__note_ended(l->unwinder, tgid, maps, gen);
	else if (maps && l->unwinder)
		unwinder__note_process(l->unwinder, tgid, maps, gen);
	else if (exit)
		unwinder__process_exited(l->unwinder, tgid);
	/* Ended: no interpreter left to walk, nor code objects to read. */
	if (maps && l->python && !ended)
		python_procs__note(l->python, tgid, maps, gen);
}

void live__handle_events(struct live *l)
{
	double now;

	if (capture__consume_events(l->cap, on_proc_note, l) <= 0)
		return;
	now = monotonic_seconds();
	if (now - l->notes_read_at < NOTES_BURST)
		l->events_quiet_until = now + EVENTS_QUIET;
	l->notes_read_at = now;
}

void live__stop(struct live *l)
{
	if (l->idle.on)
		idle_account__update(&l->idle, l->cap, credit_idle, l, true);
	l->idle.on = false;
	capture__stop(l->cap);
}

/* Why a walk ended, in a few words: unwind_end__name(), and the copies' own end. */
static const char *walk_end_name(uint32_t end)
{
	return end == COLD_COPY_SHORT ? "stack copy too short" : unwind_end__name(end);
}

/*
 * Appends to @t what @u refused so far, e.g. "; tables refused: 1 over 1 s
 * of CPU, 2 FDEs cut short (a DWARF register past 129), 1 file its process
 * may not read".
 */
static void refused_tables_text(const struct unwinder *u, struct textbuf *t)
{
	struct unwinder_stats st;

	unwinder__stats(u, &st);
	textbuf__list(t, "; tables refused: ");
	for (int r = 0; r < TABLE_REFUSED_NR; r++)
		if (st.refused[r])
			textbuf__item(t, "%zu %s", st.refused[r],
				      table_refusal__text((enum table_refusal)r));
	if (st.refused_fdes)
		textbuf__item(t, "%" PRIu64 " FDE%s cut short (a DWARF register past %d)",
			      st.refused_fdes, st.refused_fdes == 1 ? "" : "s", CFA_REG_MAX);
	if (st.unreadable)
		textbuf__item(t, "%" PRIu64 " file%s its process may not read", st.unreadable,
			      st.unreadable == 1 ? "" : "s");
}


/*
 * Appends how the Python walks counted in @st ended, when there were some:
 * "; python: 120 whole, 3 without a thread state, 2 cut (depth limit: 2),
 * 5 in unsupported builds".
 */
static void python_walks_text(const struct capture_stats *st, struct textbuf *t)
{
	const uint64_t *walks = st->slot + STAT_PYWALK;
	uint64_t any = 0, cut;

	for (uint32_t end = 0; end < PY_END_NR; end++)
		any += walks[end];
	if (!any)
		return;
	cut = walks[PY_END_UNREADABLE] + walks[PY_END_DEPTH];
	textbuf__add(t, "; python: %" PRIu64 " whole", walks[PY_END_WHOLE]);
	if (walks[PY_END_NO_THREAD])
		textbuf__add(t, ", %" PRIu64 " without a thread state", walks[PY_END_NO_THREAD]);
	if (cut) {
		textbuf__add(t, ", %" PRIu64 " cut", cut);
		textbuf__list(t, " (");
		for (uint32_t end = PY_END_UNREADABLE; end <= PY_END_DEPTH; end++)
			if (walks[end])
				textbuf__item(t, "%s: %" PRIu64, py_end__name(end), walks[end]);
		textbuf__end_list(t, ")");
	}
	if (walks[PY_END_UNSUPPORTED])
		textbuf__add(t, ", %" PRIu64 " in unsupported builds (native frames only)",
			     walks[PY_END_UNSUPPORTED]);
}

void live__walks_text(const struct live *l, const struct capture_stats *st, bool share, char *buf,
		      size_t size)
{
	uint64_t walks[COLD_WALK_NR], cut = 0, copied = 0;
	struct textbuf t;

	for (uint32_t end = 0; end < COLD_WALK_NR; end++) {
		uint64_t later = st->slot[STAT_COLD_WALK + end];

		walks[end] = (end < UNWIND_END_NR ? st->slot[STAT_UWALK + end] : 0) + later;
		cut += end == UNWIND_WHOLE ? 0 : walks[end];
		copied += later;
	}
	textbuf__start(&t, buf, size);
	textbuf__add(&t, "user stacks by %s: ",
		     capture__unwinds_with_tables(l->cap) ? "unwind tables" : "frame pointers");
	if (!walks[UNWIND_WHOLE] && !cut) {
		textbuf__add(&t, "none walked");
		return;
	}
	if (share)
		textbuf__add(&t, "%.1f%% whole",
			     100.0 * (double)walks[UNWIND_WHOLE] /
				     (double)(walks[UNWIND_WHOLE] + cut));
	else
		textbuf__add(&t, "%" PRIu64 " whole", walks[UNWIND_WHOLE]);
	textbuf__add(&t, ", %" PRIu64 " truncated", cut);
	textbuf__list(&t, " (");
	for (uint32_t end = UNWIND_WHOLE + 1; end < COLD_WALK_NR; end++) {
		if (walks[end])
			textbuf__item(&t, "%s: %" PRIu64, walk_end_name(end), walks[end]);
	}
	textbuf__end_list(&t, ")");
	if (copied)
		textbuf__add(&t, "; %" PRIu64 " walked from copies of the stack, later", copied);
	if (l->unwinder)
		refused_tables_text(l->unwinder, &t);
	python_walks_text(st, &t);
}

void live__offcpu_text(const struct capture_stats *st, char *buf, size_t size)
{
	static const char *const names[OFFCPU_STATE_NR] = {
		[OFFCPU_PREEMPTED] = "preempted",
		[OFFCPU_SLEEPING] = "sleeping",
		[OFFCPU_DISK] = "uninterruptible (disk)",
		[OFFCPU_IDLE] = "idle or stopped",
	};
	const uint64_t *ns = st->slot + STAT_OFFCPU_NS;
	uint64_t total = 0, shorter = st->slot[STAT_OFFCPU_SHORT];
	struct textbuf t;

	for (int i = 0; i < OFFCPU_STATE_NR; i++)
		total += ns[i];
	textbuf__start(&t, buf, size);
	textbuf__add(&t, "off-CPU %.3f s", (double)total / 1e9);
	textbuf__list(&t, ": ");
	for (int i = 0; i < OFFCPU_STATE_NR; i++) {
		if (ns[i])
			textbuf__item(&t, "%.0f%% %s", 100.0 * (double)ns[i] / (double)total,
				      names[i]);
	}
	if (shorter)
		textbuf__add(&t, "; %" PRIu64 " waits under --min-block dropped", shorter);
}

void live__memo_text(const struct capture_stats *st, char *buf, size_t size)
{
	static const struct {
		const char *side;
		int slot;
	} memo[] = { { "kernel", STAT_KMEMO }, { "user", STAT_UMEMO } };
	struct textbuf t;

	textbuf__start(&t, buf, size);
	textbuf__list(&t, "walks reused: ");
	for (size_t i = 0; i < sizeof(memo) / sizeof(memo[0]); i++) {
		const uint64_t *n = st->slot + memo[i].slot; /* uses, checks, differences */

		textbuf__item(&t,
			      "%" PRIu64 " %s stacks as the thread's last walk found them (%" PRIu64
			      " walked again to check: %" PRIu64 " differed)",
			      n[0], memo[i].side, n[1], n[2]);
	}
}

/* Appends to @t the debug files refused in @st, by reason. */
static void debug_refused_text(const struct symbolizer_stats *st, struct textbuf *t)
{
	static const char *const why[DEBUG_REFUSED_NR] = {
		[DEBUG_REFUSED_SIZE] = "too large beside its binary",
		[DEBUG_REFUSED_UNPACKED] = "MiniDebugInfo past 32 MiB unpacked",
		[DEBUG_REFUSED_ACCESS] = "its process may not read it",
	};

	for (int r = 0; r < DEBUG_REFUSED_NR; r++)
		if (st->debug_refused[r])
			textbuf__item(t, "%" PRIu64 " debug file%s not read (%s)",
				      st->debug_refused[r], st->debug_refused[r] == 1 ? "" : "s",
				      why[r]);
}

/* Adds to the list @t what kept Python frames from being named, when something did. */
static void python_names_text(const struct live *l, struct textbuf *t)
{
	struct python_procs_stats st;

	if (!l->python)
		return;
	python_procs__stats(l->python, &st);
	if (st.gone)
		textbuf__item(t, "%" PRIu64 " Python frame%s whose code object was gone (freed, "
				 "maybe made anew) when read: [python: code object gone]",
			      st.gone, st.gone == 1 ? "" : "s");
	if (st.unreadable)
		textbuf__item(t, "%" PRIu64 " Python frame%s whose code object could not be read",
			      st.unreadable, st.unreadable == 1 ? "" : "s");
	if (st.frees_busy)
		textbuf__item(t, "%zu Python process%s freeing code objects over %d a second: "
				 "not counted, their walks read every code object",
			      st.frees_busy, st.frees_busy == 1 ? "" : "es", FREES_MAX_RATE);
	if (st.probe_err)
		textbuf__item(t, "Python 3.10/3.11 code objects' frees not counted (uprobe: %s): "
				 "their walks read every code object",
			      strerror(-st.probe_err));
}

void live__symbols_text(const struct live *l, char *buf, size_t size)
{
	struct symbolizer_stats st;
	struct textbuf t;
	struct rlimit rl;

	symbolizer__stats(l->sym, &st);
	textbuf__start(&t, buf, size);
	textbuf__list(&t, "symbols: ");
	python_names_text(l, &t);
	if (st.perf_maps_dropped)
		textbuf__item(&t, "%" PRIu64 " perf map%s dropped (over their %zu MiB budget)",
			      st.perf_maps_dropped, st.perf_maps_dropped == 1 ? "" : "s",
			      st.perf_map_budget >> 20);
	if (st.unreadable)
		textbuf__item(&t,
			      "%" PRIu64 " file%s not read for a process that may not read %s"
			      " (execute-only): its functions show as file+0x...",
			      st.unreadable, st.unreadable == 1 ? "" : "s",
			      st.unreadable == 1 ? "it" : "them");
	debug_refused_text(&st, &t);
	if (st.late)
		textbuf__item(&t,
			      "%" PRIu64 " file%s read late: file+0x... until %s symbols came",
			      st.late, st.late == 1 ? "" : "s", st.late == 1 ? "its" : "their");
	if (!st.no_fds)
		return;
	textbuf__item(&t, "%" PRIu64 " file%s not opened: out of file descriptors", st.no_fds,
		      st.no_fds == 1 ? "" : "s");
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		textbuf__add(&t, " (ulimit -n %llu)", (unsigned long long)rl.rlim_cur);
	textbuf__add(&t, ", their functions show as file+0x...");
}

struct capture *live__capture(const struct live *l)
{
	return l->cap;
}

_Static_assert(STAT_COLD_WALK + COLD_WALK_NR == STAT_NR, "a stats slot for each copy's end");

void live__stats(const struct live *l, struct capture_stats *st)
{
	struct cold_stats cold = { 0 };

	capture__stats(l->cap, st);
	if (l->cold)
		cold_stacks__stats(l->cold, &cold);
	for (uint32_t end = 0; end < COLD_WALK_NR; end++)
		st->slot[STAT_COLD_WALK + end] += cold.walks[end];
}

void live__close(struct live *l)
{
	if (!l)
		return;
	capture__close(l->cap);
	cold_stacks__free(l->cold);
	idle_account__free(&l->idle);
	name_cache__free(l->names);
	python_frames__free(l->py_frames);
	free(l);
}
