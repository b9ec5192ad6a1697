// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c: load, attach, drain. See capture.h for the contract and
 * capture.bpf.c for the kernel side of the double buffering.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/capture.h"
#include "bpf/hook_chain.h"
#include "bpf/map_pair.h"
#include "bpf/python_maps.h"
#include "bpf/stack_table.h"
#include "bpf/unwind_maps.h"
#include "capture.skel.h"
#include "thread.h"

#define MIN_STACK_ENTRIES 1024
#define MAX_DRAIN_EVENTS 32768 /* a sample-mode drain's events, at most: faster rates drain more often */
#define MAX_MAP_ENTRIES (1u << 22)
#define READ_MODE_STACK_ENTRIES 8192
#define READ_MODE_COUNT_ENTRIES 16384
#define MAX_CPUS 4096
#define RING_BYTES_PER_STACK 128 /* the stacks ring buffer's size per seen map entry */
#define MIN_RING_BYTES (512u << 10)
#define COLD_RING_BYTES (2u << 20) /* room for 128 copied stacks (cold_stack.bpf.h) */
#define MAX_RING_BYTES (64u << 20)
#define READ_CHECK_EVERY 64 /* records or slots read between two looks at a read's end */

/* A slot's key, once the BPF side sent it. */
struct slot_key {
	struct stack_key key;
	bool known;
};

struct capture {
	struct capture_bpf *skel;
	const struct capture_opts *opts; /* only during capture__open() */
	enum capture_mode mode;
	const char *hook;
	char hook_notes[512];
	char hook_name[64];

	struct ring_buffer *proc_notes; /* NULL: no process notes */
	struct ring_buffer *stack_ring; /* the stacks ring buffer */
	int stacks_fill_fd;             /* epoll, edge-triggered: the stacks ring past a quarter */
	capture_proc_fn proc_fn;        /* only during capture__consume_events() */
	void *proc_ctx;
	int notes_read;                 /* by proc_fn, in this capture__consume_events() */

	struct bpf_link **links; /* perf_event links, one per CPU */
	int nlinks;
	bool fixed_rate;
	int ncpus;
	int npossible;
	bool unwind_tables; /* user stacks walked with the unwind maps */
	bool exit_notes;    /* with them, ended processes noted (on_process_exit attached) */
	struct bpf_program *at_drain; /* the hook's program to run at each drain, or NULL */
	double started;     /* when the hook was attached, CLOCK_MONOTONIC seconds */
	uint64_t stopped_ns; /* when it stopped counting (0: not yet), CLOCK_MONOTONIC ns */
	uint64_t stop_at_ns; /* the deadline the BPF programs keep (0: none), the same clock */
	pthread_t deadline;  /* pauses the capture at deadline_at ... */
	bool deadline_on;    /* ... while this is set */
	struct timespec deadline_at; /* CLOCK_MONOTONIC */

	uint32_t stack_entries, count_entries, ring_bytes;
	double drain_period; /* seconds between drains the sizes are for */
	int active; /* the set events go to */

	/* Counts: the slots' keys as sent, and both sets' counts arrays, mmapped. */
	struct slot_key *slot_keys;         /* 2 * count_entries */
	struct stack_value *counts_mem[2];  /* per set, 2 * count_entries */
	size_t counts_bytes;
	int sweep_half;                     /* the half to read once more and forget; -1: none */
	uint64_t unattributed;              /* events counted in a slot whose key never came */
	struct map_pair key_slots;          /* per half of the slots */
	struct map_pair seen;               /* per epoch of the stack table, by seen_sel */
	struct stack_table stacks;
	/* The stats map, mapped: npossible entries that the programs update as flametop reads */
	const volatile struct stat_counters *counters;
	size_t counters_bytes;

	/* When a read ends early (see capture_opts.read_budget). */
	double read_budget;
	bool (*stop)(void *ctx);
	void *stop_ctx;
	double read_until;  /* this read's end by the budget, CLOCK_MONOTONIC seconds */
	uint32_t read_cost; /* read in this read since its end was last looked at */
	bool read_ended;    /* this read ended early: the rest is left */
	uint64_t undrained; /* events left in the counts by drains that ended early */
};

/* libbpf's last complaint, kept for the error line instead of printed. */
static char libbpf_last[512];

static int libbpf_keep_last(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t len;

	if (getenv("FLAMETOP_DEBUG_LIBBPF")) {
		va_list copy;

		va_copy(copy, ap);
		vfprintf(stderr, fmt, copy);
		va_end(copy);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		line[--len] = '\0';
	if (len)
		memcpy(libbpf_last, line, len + 1);
	return 0;
}

static const char *const mode_names[CAPTURE_MODE_NR] = {
	[CAPTURE_SAMPLE] = "sample",
	[CAPTURE_READ] = "read",
	[CAPTURE_OFFCPU] = "offcpu",
};

const char *capture_mode__name(enum capture_mode mode)
{
	return (unsigned int)mode < CAPTURE_MODE_NR ? mode_names[mode] : NULL;
}

const char *unwind_end__name(uint32_t end)
{
	static const char *const names[UNWIND_END_NR] = {
		[UNWIND_NO_TABLE] = "no table, no frame pointer",
		[UNWIND_NOT_LOADED] = "table not loaded yet",
		[UNWIND_UNSUPPORTED] = "unsupported CFI",
		[UNWIND_UNREADABLE] = "unreadable stack",
		[UNWIND_BAD_FRAME] = "bad frame",
		[UNWIND_DEPTH] = "depth limit",
		[UNWIND_SLOTS_FULL] = "process slots full",
		[UNWIND_MAPS_LIMIT] = "mappings per process",
		[UNWIND_MEMORY] = "unwind memory",
	};

	return end < UNWIND_END_NR ? names[end] : NULL;
}

const char *py_end__name(uint32_t end)
{
	static const char *const names[PY_END_NR] = {
		[PY_END_NO_THREAD] = "no thread state",
		[PY_END_UNREADABLE] = "frame chain unreadable",
		[PY_END_DEPTH] = "depth limit",
		[PY_END_UNSUPPORTED] = "unsupported build",
	};

	return end < PY_END_NR ? names[end] : NULL;
}

int capture_mode__parse(const char *name, enum capture_mode *mode)
{
	for (int i = 0; i < CAPTURE_MODE_NR; i++) {
		if (strcmp(name, mode_names[i]) == 0) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts a read (a drain, or events): its budget runs from now. */
static void read_begin(struct capture *cap)
{
	cap->read_until = cap->read_budget > 0 ? monotonic_seconds() + cap->read_budget : 0;
	cap->read_cost = 0;
	cap->read_ended = false;
}

/*
 * True once the read going on is to end, its budget spent or the caller's
 * stop callback saying so; looked at once READ_CHECK_EVERY of @cost were
 * read since the last look.
 */
static bool read_ends(struct capture *cap, uint32_t cost)
{
	cap->read_cost += cost;
	if (cap->read_ended || cap->read_cost < READ_CHECK_EVERY)
		return cap->read_ended;
	cap->read_cost = 0;
	cap->read_ended = (cap->read_until > 0 && monotonic_seconds() >= cap->read_until) ||
			  (cap->stop && cap->stop(cap->stop_ctx));
	return cap->read_ended;
}

/* The least power of two from @min up that holds @n, but never above @max. */
static uint32_t pow2_within(uint64_t n, uint32_t min, uint32_t max)
{
	uint32_t p = min;

	while (p < n && p < max)
		p <<= 1;
	return p;
}

static uint32_t pow2_entries(uint64_t n)
{
	return pow2_within(n, 1, MAX_MAP_ENTRIES);
}

/*
 * Sizes the maps from the expected load. In sample mode a drain sees at
 * most freq * cpus * period events (plus perf's overshoot), so at most that
 * many keys and twice that many stacks (a kernel and a user stack each);
 * the seen map keeps stacks for many drains, so it gets 4 times that. Where
 * the rate would bring a drain more than MAX_DRAIN_EVENTS, the period is
 * shortened instead: at 100 kHz on 2 CPUs the maps took ~200 MB of kernel
 * memory with 1 s drains, and seconds to allocate on a VM.
 */
static void choose_sizes(struct capture *cap, const struct capture_opts *o)
{
	cap->drain_period = o->drain_period > 0 ? o->drain_period : 1.0;
	if (o->mode == CAPTURE_SAMPLE) {
		double rate = o->freq * (double)cap->ncpus * 1.25;
		uint64_t events;

		if (rate * cap->drain_period + 64 > MAX_DRAIN_EVENTS)
			cap->drain_period = (MAX_DRAIN_EVENTS - 64) / rate;
		events = (uint64_t)(rate * cap->drain_period) + 64;
		cap->stack_entries = pow2_entries(8 * events);
		cap->count_entries = pow2_entries(2 * events);
	} else {
		cap->stack_entries = READ_MODE_STACK_ENTRIES;
		cap->count_entries = READ_MODE_COUNT_ENTRIES;
	}
	if (cap->stack_entries < MIN_STACK_ENTRIES)
		cap->stack_entries = MIN_STACK_ENTRIES;
	if (o->stack_entries)
		cap->stack_entries = pow2_entries(o->stack_entries);
	if (o->count_entries)
		cap->count_entries = o->count_entries;
	cap->ring_bytes = pow2_within((uint64_t)cap->stack_entries * RING_BYTES_PER_STACK +
					      (o->unwind && o->cold_copies ? COLD_RING_BYTES : 0),
				      MIN_RING_BYTES, MAX_RING_BYTES);
}

/* Parses a cpu list such as "0-3,5" into a mask; returns the count or -errno. */
static int parse_cpu_list(const char *s, bool *online, int max)
{
	int count = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= max)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= max)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b; c++) {
			if (!online[c])
				count++;
			online[c] = true;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return count;
}

static int read_online_cpus(bool *online, int max)
{
	char buf[1024];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = -ENOENT;

	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f))
		n = parse_cpu_list(buf, online, max);
	fclose(f);
	return n;
}

/*
 * Opens one sampling event on @cpu. The CPU clock counts nanoseconds, so a
 * fixed period of 1e9 / freq samples exactly freq times per second, idle
 * included; in frequency mode the kernel lets idle CPUs go unsampled.
 * Cycles have no fixed rate, so they use frequency mode.
 */
static int open_perf_event(uint32_t type, uint64_t config, unsigned int freq, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
	};
	int fd;

	if (type == PERF_TYPE_SOFTWARE) {
		attr.sample_period = 1000000000ull / freq;
	} else {
		attr.freq = 1;
		attr.sample_freq = freq;
	}
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Hardware cycles when this machine counts them, else the CPU clock. */
static int attach_sampling(struct capture *cap, char *why, size_t size)
{
	bool online[MAX_CPUS] = { false };
	uint32_t type = PERF_TYPE_HARDWARE;
	uint64_t config = PERF_COUNT_HW_CPU_CYCLES;
	int n = read_online_cpus(online, MAX_CPUS);

	if (n <= 0) {
		snprintf(why, size, "can't read the online CPUs");
		return n < 0 ? n : -ENOENT;
	}
	cap->links = calloc(n, sizeof(*cap->links));
	if (!cap->links)
		return -ENOMEM;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct bpf_link *link;
		int fd;

		if (!online[cpu])
			continue;
		fd = open_perf_event(type, config, cap->opts->freq, cpu);
		if (fd < 0 && type == PERF_TYPE_HARDWARE) {
			type = PERF_TYPE_SOFTWARE;
			config = PERF_COUNT_SW_CPU_CLOCK;
			fd = open_perf_event(type, config, cap->opts->freq, cpu);
		}
		if (fd < 0) {
			snprintf(why, size, "perf_event_open on CPU %d: %s", cpu, strerror(-fd));
			return fd;
		}
		link = bpf_program__attach_perf_event(cap->skel->progs.on_sample, fd);
		if (!link) {
			int err = -errno;

			close(fd);
			snprintf(why, size, "attach to CPU %d: %s", cpu, strerror(-err));
			return err;
		}
		cap->links[cap->nlinks++] = link;
	}
	cap->ncpus = cap->nlinks;
	cap->fixed_rate = type == PERF_TYPE_SOFTWARE;
	snprintf(cap->hook_name, sizeof(cap->hook_name), "perf_event %s",
		 type == PERF_TYPE_HARDWARE ? "cycles" : "cpu-clock");
	cap->hook = cap->hook_name;
	return 0;
}

static int attach_fentry(struct capture *cap, char *why, size_t size)
{
	(void)why, (void)size;
	cap->skel->links.on_vfs_read_fentry = bpf_program__attach(cap->skel->progs.on_vfs_read_fentry);
	return cap->skel->links.on_vfs_read_fentry ? 0 : -errno;
}

/* Whether the running kernel's config (/proc/config.gz or /boot) has @line. */
static bool kernel_config_says(const char *line)
{
	char boot[128], buf[512];
	struct utsname u;
	bool found = false;
	gzFile f = gzopen("/proc/config.gz", "rb");

	if (!f && uname(&u) == 0) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
		f = gzopen(boot, "rb"); /* zlib reads plain files too */
	}
	if (!f)
		return false;
	while (!found && gzgets(f, buf, sizeof(buf))) {
		buf[strcspn(buf, "\n")] = '\0';
		found = strcmp(buf, line) == 0;
	}
	gzclose(f);
	return found;
}

static int attach_kprobe(struct capture *cap, char *why, size_t size)
{
	int err;

	cap->skel->links.on_vfs_read_kprobe = bpf_program__attach(cap->skel->progs.on_vfs_read_kprobe);
	if (cap->skel->links.on_vfs_read_kprobe)
		return 0;
	err = -errno;
	if (access("/sys/bus/event_source/devices/kprobe", F_OK) != 0) {
		if (kernel_config_says("# CONFIG_KPROBES is not set"))
			snprintf(why, size, "kernel built without kprobes");
		else
			snprintf(why, size, "no kprobe PMU (%s)", strerror(-err));
	}
	return err;
}

static int attach_sys_enter(struct capture *cap, char *why, size_t size)
{
	(void)why, (void)size;
	cap->skel->links.on_sys_enter_read = bpf_program__attach(cap->skel->progs.on_sys_enter_read);
	return cap->skel->links.on_sys_enter_read ? 0 : -errno;
}

/*
 * Attaches the exit hook when it was loaded; without it (cap->exit_notes
 * false) the unwinder asks after its processes itself.
 */
static void attach_exit_notes(struct capture *cap)
{
	if (cap->exit_notes)
		cap->skel->links.on_process_exit =
			bpf_program__attach(cap->skel->progs.on_process_exit);
	cap->exit_notes = cap->exit_notes && cap->skel->links.on_process_exit;
}

/* A hook: a BPF program of the skeleton and how to attach it. */
struct hook {
	const char *label; /* in the notes when it fails */
	const char *name;  /* shown when chosen; NULL: attach() names it */
	struct bpf_program *(*prog)(struct capture_bpf *skel);
	int (*attach)(struct capture *cap, char *why, size_t size);
	/* A program the loader runs at each drain, before it switches sets; NULL: none. */
	struct bpf_program *(*at_drain)(struct capture_bpf *skel);
	/* An iterator the loader runs once, attached: seeds what began before; NULL: none. */
	struct bpf_program *(*at_start)(struct capture_bpf *skel);
};

static struct bpf_program *prog_sample(struct capture_bpf *s)
{
	return s->progs.on_sample;
}

static struct bpf_program *prog_fentry(struct capture_bpf *s)
{
	return s->progs.on_vfs_read_fentry;
}

static struct bpf_program *prog_kprobe(struct capture_bpf *s)
{
	return s->progs.on_vfs_read_kprobe;
}

static struct bpf_program *prog_sys_enter(struct capture_bpf *s)
{
	return s->progs.on_sys_enter_read;
}

static int attach_sched_switch(struct capture *cap, char *why, size_t size)
{
	(void)why, (void)size;
	cap->skel->links.on_sched_switch = bpf_program__attach(cap->skel->progs.on_sched_switch);
	return cap->skel->links.on_sched_switch ? 0 : -errno;
}

static struct bpf_program *prog_sched_switch(struct capture_bpf *s)
{
	return s->progs.on_sched_switch;
}

static struct bpf_program *prog_credit_waits(struct capture_bpf *s)
{
	return s->progs.credit_waits;
}

static struct bpf_program *prog_seed_waits(struct capture_bpf *s)
{
	return s->progs.seed_waits;
}

static const struct hook sample_hooks[] = {
	{ "perf_event", NULL, prog_sample, attach_sampling, NULL, NULL },
};

static const struct hook read_hooks[] = {
	{ "fentry/vfs_read", "fentry/vfs_read", prog_fentry, attach_fentry, NULL, NULL },
	{ "kprobe/vfs_read", "kprobe/vfs_read", prog_kprobe, attach_kprobe, NULL, NULL },
	{ "tp_btf/sys_enter", "syscall-entry tracepoint", prog_sys_enter, attach_sys_enter, NULL,
	  NULL },
};

/*
 * Off-CPU: with the waits open when it starts (a sleepable task iterator,
 * 5.18 and later), else from each thread's next wait on.
 */
static const struct hook offcpu_hooks[] = {
	{ "tp_btf/sched_switch + iter.s/task", "sched_switch BTF tracepoint", prog_sched_switch,
	  attach_sched_switch, prog_credit_waits, prog_seed_waits },
	{ "tp_btf/sched_switch", "sched_switch BTF tracepoint", prog_sched_switch,
	  attach_sched_switch, prog_credit_waits, NULL },
};

/* The modes: each a list of hooks, best first. */
#define MAX_HOOKS 8

static const struct {
	const struct hook *hooks;
	int n;
} mode_table[CAPTURE_MODE_NR] = {
	[CAPTURE_SAMPLE] = { sample_hooks, sizeof(sample_hooks) / sizeof(sample_hooks[0]) },
	[CAPTURE_READ] = { read_hooks, sizeof(read_hooks) / sizeof(read_hooks[0]) },
	[CAPTURE_OFFCPU] = { offcpu_hooks, sizeof(offcpu_hooks) / sizeof(offcpu_hooks[0]) },
};

static void detach_links(struct capture *cap)
{
	for (int i = 0; i < cap->nlinks; i++)
		bpf_link__destroy(cap->links[i]);
	free(cap->links);
	cap->links = NULL;
	cap->nlinks = 0;
	if (cap->skel)
		capture_bpf__detach(cap->skel);
}

/* The deadline thread: pauses its capture at deadline_at. */
static void *pause_at_deadline(void *arg)
{
	struct capture *cap = arg;

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &cap->deadline_at, NULL) == EINTR)
		;
	capture__pause(cap);
	return NULL;
}

/* Pauses @cap @seconds after its attach, from a thread ahead of the others when allowed. */
static void start_deadline(struct capture *cap, double seconds)
{
	double at = cap->started + seconds;

	cap->deadline_at.tv_sec = (time_t)at;
	cap->deadline_at.tv_nsec = (long)((at - (double)cap->deadline_at.tv_sec) * 1e9);
	cap->stop_at_ns = (uint64_t)cap->deadline_at.tv_sec * 1000000000 +
			  (uint64_t)cap->deadline_at.tv_nsec;
	cap->skel->bss->stop_at_ns = cap->stop_at_ns; /* the programs stop on time by themselves */
	cap->deadline_on = thread_start(&cap->deadline, pause_at_deadline, cap) == 0;
	/* It runs for microseconds once awake: SCHED_FIFO, as root, so nothing delays it. */
	if (cap->deadline_on)
		pthread_setschedparam(cap->deadline, SCHED_FIFO,
				      &(struct sched_param){ .sched_priority = 1 });
}

static void end_deadline(struct capture *cap)
{
	if (!cap->deadline_on)
		return;
	pthread_cancel(cap->deadline);
	pthread_join(cap->deadline, NULL);
	cap->deadline_on = false;
}

static void detach(struct capture *cap)
{
	end_deadline(cap);
	detach_links(cap);
	ring_buffer__free(cap->proc_notes);
	cap->proc_notes = NULL;
	ring_buffer__free(cap->stack_ring);
	cap->stack_ring = NULL;
	if (cap->stacks_fill_fd >= 0)
		close(cap->stacks_fill_fd);
	cap->stacks_fill_fd = -1;
	capture_bpf__destroy(cap->skel);
	cap->skel = NULL;
}

/* Loads the programs against the unwind maps, when user stacks are walked with them. */
static int use_unwind_maps(struct capture *cap)
{
	struct capture_bpf *s = cap->skel;
	struct unwind_maps_fds fds;

	s->rodata->unwind_with_tables = cap->unwind_tables;
	s->rodata->cold_copies = cap->unwind_tables && cap->opts->cold_copies;
	if (!cap->unwind_tables)
		return 0;
	unwind_maps__fds(cap->opts->unwind, &fds);
	return bpf_map__reuse_fd(s->maps.unwind_tables, fds.tables) ?:
	       bpf_map__reuse_fd(s->maps.unwind_rules, fds.rules) ?:
	       bpf_map__reuse_fd(s->maps.unwind_pids, fds.pids) ?:
	       bpf_map__reuse_fd(s->maps.unwind_procs, fds.procs) ?:
	       bpf_map__reuse_fd(s->maps.unwind_mappings, fds.mappings);
}

/* Loads the programs against the Python processes' map, when Python frames are walked. */
static int use_python_maps(struct capture *cap)
{
	struct capture_bpf *s = cap->skel;
	int procs, frees;

	s->rodata->walk_python = cap->opts->python != NULL;
	if (!cap->opts->python)
		return 0;
	python_maps__fds(cap->opts->python, &procs, &frees);
	return bpf_map__reuse_fd(s->maps.python_procs, procs) ?:
	       bpf_map__reuse_fd(s->maps.python_frees, frees);
}

static int size_maps(struct capture *cap)
{
	struct capture_bpf *s = cap->skel;
	struct bpf_map *counts[] = { s->maps.counts0, s->maps.counts1 };
	int err = bpf_map__set_max_entries(s->maps.stacks, cap->ring_bytes) ?:
		  bpf_map__set_max_entries(s->maps.stats, (uint32_t)cap->npossible) ?:
		  bpf_map__reuse_fd(s->maps.seen, cap->seen.outer) ?:
		  bpf_map__reuse_fd(s->maps.key_slots, cap->key_slots.outer) ?: use_unwind_maps(cap) ?:
		  use_python_maps(cap);

	for (int i = 0; i < 2 && !err; i++)
		err = bpf_map__set_max_entries(counts[i], 2 * cap->count_entries);
	return err;
}

/*
 * Opens a fresh skeleton with only @h's program, loads it and sets the
 * filters. Returns 0 or -errno (the skeleton stays, for detach() to
 * destroy).
 */
static int load_skeleton(struct capture *cap, const struct hook *h)
{
	struct bpf_program *prog;

	libbpf_last[0] = '\0';
	cap->skel = capture_bpf__open();
	if (!cap->skel)
		return -errno;
	bpf_object__for_each_program(prog, cap->skel->obj)
		bpf_program__set_autoload(prog, prog == h->prog(cap->skel) ||
							(h->at_drain && prog == h->at_drain(cap->skel)) ||
							(h->at_start && prog == h->at_start(cap->skel)) ||
							(cap->exit_notes &&
							 prog == cap->skel->progs.on_process_exit));
	cap->at_drain = h->at_drain ? h->at_drain(cap->skel) : NULL;
	cap->skel->rodata->self_tgid = getpid();
	cap->skel->rodata->min_block_ns = cap->opts->min_block_ns;
	cap->skel->rodata->memo_walks = cap->mode == CAPTURE_OFFCPU || cap->mode == CAPTURE_READ;
	cap->skel->rodata->walk_kernel = cap->opts->kernel_stacks;
	cap->skel->rodata->walk_user = cap->opts->user_stacks;
	cap->skel->rodata->half_slots = cap->count_entries;
	/* The filters go in before the hook is attached: no event escapes them. */
	return size_maps(cap) ?: capture_bpf__load(cap->skel) ?:
	       capture__set_filter(cap, cap->opts->tgids, cap->opts->ntgids, cap->opts->comm);
}

/* A record of the stacks ring buffer: a stack or a copy into the table, or a slot's key. */
static int on_stack_record(void *ctx, void *data, size_t size)
{
	struct capture *cap = ctx;
	const struct sent_stack *r = data;
	const struct sent_key *k = data;

	if (size < SENT_STACK_HEAD)
		return 0;
	if (r->kind == SENT_STACK && r->nr <= MAX_STACK_DEPTH &&
	    size >= SENT_STACK_HEAD + (size_t)r->nr * sizeof(uint64_t))
		stack_table__add(&cap->stacks, r->hash, (const uint64_t *)r->ips, r->nr,
				 r->end < UNWIND_END_NR ? r->end : UNWIND_BAD_FRAME);
	else if (r->kind == SENT_COLD && size >= SENT_COLD_HEAD)
		stack_table__add_copy(&cap->stacks, data, size);
	else if (r->kind == SENT_PYSTACK && r->nr <= PY_WORDS_PER_FRAME * PY_MAX_DEPTH &&
		 size >= SENT_STACK_HEAD + (size_t)r->nr * sizeof(uint64_t))
		stack_table__add(&cap->stacks, r->hash, (const uint64_t *)r->ips, r->nr,
				 r->end < PY_END_NR ? r->end : PY_END_UNREADABLE);
	else if (r->kind == SENT_KEY && size >= sizeof(*k) && k->slot < 2 * cap->count_entries)
		cap->slot_keys[k->slot] = (struct slot_key){ .key = k->key, .known = true };
	return read_ends(cap, 1) ? -ECANCELED : 0; /* the records after it wait */
}

static int on_proc_note(void *ctx, void *data, size_t size)
{
	struct capture *cap = ctx;
	const struct proc_note *e = data;

	if (size >= sizeof(*e) && cap->proc_fn) {
		cap->proc_fn(cap->proc_ctx, e->tgid, e->kind, e->start_boottime);
		cap->notes_read += e->kind != PROC_NOTE_EXIT; /* exits come with no hurry */
	}
	/* A note costs as much as many stacks: each is followed by a look at the read's end. */
	return read_ends(cap, READ_CHECK_EVERY) ? -ECANCELED : 0;
}

/*
 * Sets cap->stacks_fill_fd to an epoll set that polls readable only after
 * a wakeup of the stacks ring buffer (edge-triggered), which the BPF side
 * asks for once, when the ring fills past a quarter; -1 when none can be
 * had (then a quiet time for notes is not cut short by the stacks).
 */
static void watch_stacks_fill(struct capture *cap)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int fd = epoll_create1(EPOLL_CLOEXEC);

	if (fd >= 0 && epoll_ctl(fd, EPOLL_CTL_ADD, bpf_map__fd(cap->skel->maps.stacks), &ev)) {
		close(fd);
		fd = -1;
	}
	cap->stacks_fill_fd = fd;
}

/* Loads a skeleton for hook @h, attaches it and starts reading process notes. */
#define SEED_READ 4096 /* bytes of an iterator read: a wait each, at most a page of waits */

/*
 * Runs the iterator @prog to its end, reading what it writes a page at a
 * time and emptying the stacks ring between two reads (each byte is a wait
 * opened, with a stack copy sent). A failure leaves what was seeded.
 */
static void run_at_start(struct capture *cap, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach_iter(prog, NULL);
	char buf[SEED_READ];
	int fd;

	if (!link)
		return;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			ring_buffer__consume(cap->stack_ring);
		close(fd);
	}
	bpf_link__destroy(link);
	ring_buffer__consume(cap->stack_ring);
}

static int hook_attempt(void *ctx, const struct hook_step *step, char *why, size_t size)
{
	const struct hook *h = step->arg;
	struct capture *cap = ctx;
	int err;

	/* No event before the maps are in. */
	err = load_skeleton(cap, h) ?: map_pair__wait(&cap->seen) ?:
	      map_pair__wait(&cap->key_slots);
	if (!err) {
		cap->hook = h->name;
		cap->started = monotonic_seconds();
		/* Now: at a high rate the rest of the opening takes a second under the load. */
		if (cap->opts->duration > 0)
			start_deadline(cap, cap->opts->duration);
		err = h->attach(cap, why, size);
	}
	if (err) {
		if (!why[0] && libbpf_last[0] && err != -EPERM)
			snprintf(why, size, "%s (%s)", strerror(-err), libbpf_last);
		detach(cap);
		return err;
	}
	attach_exit_notes(cap);
	cap->stack_ring =
		ring_buffer__new(bpf_map__fd(cap->skel->maps.stacks), on_stack_record, cap, NULL);
	if (!cap->stack_ring) {
		err = -errno;
		snprintf(why, size, "stacks ring buffer: %s", strerror(-err));
		detach(cap);
		return err;
	}
	watch_stacks_fill(cap);
	/* Without notes (no ring buffer), capture still works, naming fewer short processes. */
	cap->proc_notes =
		ring_buffer__new(bpf_map__fd(cap->skel->maps.proc_notes), on_proc_note, cap, NULL);
	if (cap->proc_notes) {
		/* One descriptor to poll: the notes' epoll set watches the stacks' too. */
		struct epoll_event ev = { .events = EPOLLIN };

		epoll_ctl(ring_buffer__epoll_fd(cap->proc_notes), EPOLL_CTL_ADD,
			  ring_buffer__epoll_fd(cap->stack_ring), &ev);
	}
	return 0;
}

/* Tries the mode's hooks in order; returns the index of the one attached or -errno. */
static int attach_first_hook(struct capture *cap, enum capture_mode mode)
{
	struct hook_step steps[MAX_HOOKS];
	int n = mode_table[mode].n;

	for (int i = 0; i < n; i++)
		steps[i] = (struct hook_step){ .label = mode_table[mode].hooks[i].label,
					       .arg = &mode_table[mode].hooks[i],
					       .attempt = hook_attempt };
	return hook_chain__select(steps, n, cap, cap->hook_notes, sizeof(cap->hook_notes));
}

/* Maps both sets' counts arrays and the stats into this process. Returns 0 or -errno. */
static int map_counts(struct capture *cap)
{
	struct bpf_map *maps[] = { cap->skel->maps.counts0, cap->skel->maps.counts1 };
	void *stats;

	cap->counters_bytes = (size_t)cap->npossible * sizeof(struct stat_counters);
	stats = mmap(NULL, cap->counters_bytes, PROT_READ, MAP_SHARED,
		     bpf_map__fd(cap->skel->maps.stats), 0);
	if (stats == MAP_FAILED)
		return -errno;
	cap->counters = stats;
	cap->counts_bytes = 2 * (size_t)cap->count_entries * sizeof(struct stack_value);
	for (int set = 0; set < 2; set++) {
		void *mem = mmap(NULL, cap->counts_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
				 bpf_map__fd(maps[set]), 0);

		if (mem == MAP_FAILED)
			return -errno;
		cap->counts_mem[set] = mem;
	}
	return 0;
}

static int alloc_scratch(struct capture *cap)
{
	cap->slot_keys = calloc(2 * (size_t)cap->count_entries, sizeof(*cap->slot_keys));
	cap->sweep_half = -1;
	if (stack_table__init(&cap->stacks))
		return -ENOMEM;
	if (!cap->slot_keys)
		return -ENOMEM;
	return map_counts(cap);
}

int capture__open(const struct capture_opts *opts, struct capture **out, char *err_buf,
		  size_t err_size)
{
	struct capture *cap;
	int err, chosen;

	*out = NULL;
	if ((unsigned int)opts->mode >= CAPTURE_MODE_NR) {
		snprintf(err_buf, err_size, "unknown capture mode");
		return -EINVAL;
	}
	cap = calloc(1, sizeof(*cap));
	if (!cap)
		return -ENOMEM;
	cap->seen = cap->key_slots = (struct map_pair){ .outer = -1, .fd = { -1, -1 } };
	cap->stacks_fill_fd = -1;
	libbpf_set_print(libbpf_keep_last);
	cap->mode = opts->mode;
	cap->opts = opts;
	cap->read_budget = opts->read_budget;
	cap->stop = opts->stop;
	cap->stop_ctx = opts->stop_ctx;
	cap->unwind_tables = opts->unwind &&
			     libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 1;
	cap->exit_notes = cap->unwind_tables; /* tp_btf: in every kernel that has bpf_loop() */
	cap->npossible = libbpf_num_possible_cpus();
	cap->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cap->npossible <= 0) {
		snprintf(err_buf, err_size, "can't count the possible CPUs");
		free(cap);
		return -ENOENT;
	}
	choose_sizes(cap, opts);
	/* Made once, for whichever hook's skeleton loads. */
	err = map_pair__open(&cap->seen, "flametop_seen", sizeof(uint64_t), sizeof(uint8_t),
			     cap->stack_entries) ?:
	      map_pair__open(&cap->key_slots, "flametop_slots", sizeof(struct stack_key),
			     sizeof(uint32_t), cap->count_entries);
	if (err) {
		snprintf(err_buf, err_size, "can't make the capture's maps: %s", strerror(-err));
		goto cleanup;
	}
	map_pair__start(&cap->seen, -1);
	map_pair__start(&cap->key_slots, -1);

	chosen = attach_first_hook(cap, opts->mode);
	if (chosen < 0) {
		snprintf(err_buf, err_size, "can't attach %s mode: %s", mode_names[opts->mode],
			 cap->hook_notes);
		err = chosen;
		goto cleanup;
	}
	err = alloc_scratch(cap);
	if (err) {
		snprintf(err_buf, err_size, "can't set up capture: %s", strerror(-err));
		goto cleanup;
	}
	if (mode_table[opts->mode].hooks[chosen].at_start)
		run_at_start(cap, mode_table[opts->mode].hooks[chosen].at_start(cap->skel));
	cap->opts = NULL;
	*out = cap;
	return 0;

cleanup:
	cap->opts = NULL;
	capture__close(cap);
	return err;
}

const char *capture__hook(const struct capture *cap)
{
	return cap->hook;
}

const char *capture__hook_notes(const struct capture *cap)
{
	return cap->hook_notes;
}

bool capture__unwinds_with_tables(const struct capture *cap)
{
	return cap->unwind_tables;
}

bool capture__notes_exits(const struct capture *cap)
{
	return cap->exit_notes;
}

enum capture_mode capture__mode(const struct capture *cap)
{
	return cap->mode;
}

double capture__drain_period(const struct capture *cap)
{
	return cap->drain_period;
}

double capture__started(const struct capture *cap)
{
	return cap->started;
}

double capture__stopped(const struct capture *cap)
{
	return (double)__atomic_load_n(&cap->stopped_ns, __ATOMIC_SEQ_CST) / 1e9;
}

int capture__ncpus(const struct capture *cap)
{
	return cap->ncpus;
}

int capture__set_filter(struct capture *cap, const uint32_t *tgids, size_t ntgids,
			const char *comm)
{
	struct capture_bpf__bss *bss = cap->skel->bss;
	int fd = bpf_map__fd(cap->skel->maps.tgid_filter);
	uint8_t one = 1;
	int err;

	if (ntgids > MAX_FILTER_TGIDS || (comm && strlen(comm) >= COMM_LEN))
		return -EINVAL;
	bss->filter_tgids_on = 0;
	bss->filter_comm_on = 0;
	err = clear_map(fd, sizeof(uint32_t));
	for (size_t i = 0; i < ntgids && !err; i++)
		err = bpf_map_update_elem(fd, &tgids[i], &one, BPF_ANY);
	if (err)
		return err;
	memset(bss->filter_comm, 0, sizeof(bss->filter_comm));
	if (comm)
		memcpy(bss->filter_comm, comm, strlen(comm));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	bss->filter_tgids_on = ntgids > 0;
	bss->filter_comm_on = comm != NULL;
	return 0;
}

/* Events still recording into @set, over every CPU. */
static int64_t inflight_sum(const struct capture *cap, int set)
{
	int64_t sum = 0;

	for (int i = 0; i < cap->npossible; i++)
		sum += cap->counters[i].inflight[set];
	return sum;
}

/* Waits (briefly) until no event is still recording into @set. */
static void wait_quiescent(struct capture *cap, int set)
{
	for (int i = 0; i < 10000; i++) {
		if (inflight_sum(cap, set) <= 0)
			return;
		if (i < 100)
			sched_yield();
		else
			usleep(100);
	}
}

/*
 * Switches to the other seen map, empty, so that the BPF side sends the
 * stacks it meets again, and starts a new epoch of the stack table.
 */
static void forget_stacks(struct capture *cap)
{
	uint32_t *sel = &cap->skel->bss->seen_sel;

	map_pair__wait(&cap->seen); /* the other map renewed */
	__atomic_store_n(sel, (__atomic_load_n(sel, __ATOMIC_SEQ_CST) & 1) ^ 1, __ATOMIC_SEQ_CST);
	stack_table__new_epoch(&cap->stacks);
	/* Stacks the BPF side remembers (the idle memo) are to be sent again too. */
	__atomic_fetch_add(&cap->skel->bss->stack_gen, 1, __ATOMIC_SEQ_CST);
}

/* Slots of @half taken so far. */
static uint32_t slots_taken(const struct capture *cap, int half)
{
	uint32_t n = __atomic_load_n(&cap->skel->bss->slot_next[half], __ATOMIC_SEQ_CST);

	return n < cap->count_entries ? n : cap->count_entries;
}

/*
 * Passes every counted slot of @half in @set's (quiescent) counts array to
 * @fn and zeroes it; once the read ends early, counts the rest as
 * undrained instead. Returns the number of stacks passed.
 */
static int emit_half(struct capture *cap, int set, int half, capture_stack_fn fn, void *ctx)
{
	uint32_t base = half * cap->count_entries, n = slots_taken(cap, half);
	struct stack_value *counts = cap->counts_mem[set] + base;
	const struct slot_key *keys = cap->slot_keys + base;
	int total = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct stack_value v = counts[i];
		struct capture_stack st;

		if (!v.count && !v.weight)
			continue;
		counts[i] = (struct stack_value){ 0 };
		if (read_ends(cap, 1)) {
			cap->undrained += v.count;
			continue;
		}
		if (!keys[i].known) {
			cap->unattributed += v.count;
			continue;
		}
		stack_table__stack(&cap->stacks, &keys[i].key, &v, &st);
		fn(ctx, &st);
		total++;
	}
	return total;
}

/*
 * Moves new keys to the other half of the slots and its key_slots map
 * (empty). The half left keeps its keys for one more drain: the set active
 * now may still count there.
 */
static void switch_halves(struct capture *cap)
{
	struct capture_bpf__bss *bss = cap->skel->bss;
	int half = bss->slot_half & 1;

	map_pair__wait(&cap->key_slots); /* the other half's map renewed */
	/* A key given a slot of the old half after this is given up (see new_slot()). */
	__atomic_store_n(&bss->slot_next[half ^ 1], 0, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&bss->slot_half, 1, __ATOMIC_SEQ_CST); /* & 1 is now half ^ 1 */
	cap->sweep_half = half;
}

/*
 * Forgets the keys of the half left at the last switch (its slots taken),
 * now read in both sets, and gives that half an empty key_slots map.
 */
static void forget_half(struct capture *cap, int half)
{
	memset(cap->slot_keys + half * cap->count_entries, 0,
	       slots_taken(cap, half) * sizeof(*cap->slot_keys));
	map_pair__start(&cap->key_slots, half);
	cap->sweep_half = -1;
}

/* Keeps the stacks of wait @w when it is still open. */
static void keep_open_wait(struct capture *cap, const struct offcpu_wait *w)
{
	if (w->from == WAIT_CLOSED)
		return; /* closed: its thread runs, or has ended */
	if (!w->key.kerr)
		stack_table__keep(&cap->stacks, w->key.kstack);
	if (!w->key.uerr)
		stack_table__keep(&cap->stacks, w->key.ustack);
	if (!w->key.pyerr)
		stack_table__keep(&cap->stacks, w->key.pystack);
}

#define WAITS_BATCH 256 /* waits read by one system call */

/*
 * Reads the waits map WAITS_BATCH entries a call; returns 0, or -errno
 * when the kernel can't batch it (then the waits read so far were kept:
 * keeping one twice does no harm).
 */
static int keep_open_waits_batched(struct capture *cap, int fd)
{
	struct offcpu_wait waits[WAITS_BATCH];
	uint32_t pids[WAITS_BATCH], token = 0;
	bool first = true;

	for (;;) {
		uint32_t n = WAITS_BATCH;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token, pids, waits, &n,
					       NULL);

		err = err ? -errno : 0;
		for (uint32_t i = 0; i < n && (!err || err == -ENOENT); i++)
			keep_open_wait(cap, &waits[i]);
		if (err)
			return err == -ENOENT ? 0 : err; /* -ENOENT: that was the last batch */
		first = false;
	}
}

/*
 * Off-CPU mode, before a drain that sweeps the stack table: the stacks of
 * the waits open now were sent when they opened, maybe epochs ago, and are
 * counted when they close: the sweep keeps them. (A wait that opens later
 * sends its stacks in this epoch.) The map holds an entry per thread that
 * ever waited: it is read in batches, or an entry at a time where the
 * kernel can't batch.
 */
static void keep_open_waits(struct capture *cap)
{
	int fd = bpf_map__fd(cap->skel->maps.offcpu_waits);
	struct offcpu_wait w;
	uint32_t pid, *prev = NULL;

	if (keep_open_waits_batched(cap, fd) == 0)
		return;
	while (bpf_map_get_next_key(fd, prev, &pid) == 0) {
		prev = &pid;
		if (bpf_map_lookup_elem(fd, &pid, &w) == 0)
			keep_open_wait(cap, &w);
	}
}

/* Runs the hook's program for drains (off-CPU: counts the waits still open up to now). */
static void run_at_drain(struct capture *cap)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (cap->at_drain && cap->skel)
		bpf_prog_test_run_opts(bpf_program__fd(cap->at_drain), &opts);
}

int capture__drain(struct capture *cap, capture_stack_fn fn, void *ctx)
{
	int set = cap->active, half, total;

	if (cap->mode == CAPTURE_OFFCPU && cap->stacks.sweep)
		keep_open_waits(cap);
	run_at_drain(cap);
	read_begin(cap);
	cap->active = set ^ 1;
	__atomic_store_n(&cap->skel->bss->active_set, cap->active, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wait_quiescent(cap, set);

	/*
	 * Every stack and key the set's counts refer to was sent before they were
	 * counted; a read that ends early reads none of the counts.
	 */
	ring_buffer__consume(cap->stack_ring);
	half = cap->skel->bss->slot_half & 1;
	total = emit_half(cap, set, half, fn, ctx);
	if (cap->sweep_half >= 0) {
		total += emit_half(cap, set, cap->sweep_half, fn, ctx);
		forget_half(cap, cap->sweep_half);
	} else if (slots_taken(cap, half) * 4 > cap->count_entries * 3) {
		switch_halves(cap);
	}
	/* The counts that may refer to stacks of a past epoch are read now. */
	if (cap->stacks.sweep) {
		stack_table__sweep(&cap->stacks);
		map_pair__start(&cap->seen, (cap->skel->bss->seen_sel & 1) ^ 1);
	} else if (cap->stacks.current * 4 > cap->stack_entries * 3 ||
		   cap->stacks.copied > TABLE_COPIED_MAX) {
		forget_stacks(cap);
	}
	return total;
}

int capture__cpu_events(const struct capture *cap, uint64_t *events, int n)
{
	if (n > cap->npossible)
		n = cap->npossible;
	for (int cpu = 0; cpu < n; cpu++)
		events[cpu] = cap->counters[cpu].slot[STAT_EVENTS];
	return n;
}

int capture__event_fd(const struct capture *cap)
{
	return ring_buffer__epoll_fd(cap->proc_notes ? cap->proc_notes : cap->stack_ring);
}

int capture__arm_stacks_fill(struct capture *cap)
{
	struct epoll_event ev;

	if (cap->stacks_fill_fd >= 0) /* takes the edge: the fd polls readable at the next */
		epoll_wait(cap->stacks_fill_fd, &ev, 1, 0);
	read_begin(cap);
	ring_buffer__consume(cap->stack_ring); /* what came before it: read now */
	return cap->stacks_fill_fd;
}

int capture__consume_events(struct capture *cap, capture_proc_fn fn, void *ctx)
{
	read_begin(cap);
	ring_buffer__consume(cap->stack_ring); /* keeps the stacks ring buffer from filling */
	if (!cap->proc_notes || cap->read_ended)
		return 0;
	cap->proc_fn = fn;
	cap->proc_ctx = ctx;
	cap->notes_read = 0;
	ring_buffer__consume(cap->proc_notes);
	cap->proc_fn = NULL;
	cap->proc_ctx = NULL;
	return cap->notes_read;
}

bool capture__fixed_rate(const struct capture *cap)
{
	return cap->fixed_rate;
}

/* Notes when the capture stopped counting, once: the first caller's time stays. */
/* Notes when counting stopped: now, or the deadline the programs kept if that came first. */
static void note_stopped(struct capture *cap)
{
	struct timespec ts;
	uint64_t none = 0, ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	if (cap->stop_at_ns && ns > cap->stop_at_ns)
		ns = cap->stop_at_ns;
	__atomic_compare_exchange_n(&cap->stopped_ns, &none, ns, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
}

void capture__pause(struct capture *cap)
{
	if (cap->mode == CAPTURE_OFFCPU || !cap->skel || !cap->skel->bss)
		return;
	__atomic_store_n(&cap->skel->bss->paused, 1, __ATOMIC_SEQ_CST);
	note_stopped(cap);
}

void capture__stop(struct capture *cap)
{
	detach_links(cap);
	note_stopped(cap);
	/* Waits still open count up to now, not up to the last drains. */
	run_at_drain(cap);
	cap->at_drain = NULL;
}

uint64_t capture_stats__lost(const struct capture_stats *st)
{
	return st->slot[STAT_LOST_COUNTS_FULL] + st->slot[STAT_LOST_BUSY] +
	       st->slot[STAT_LOST_WAITS_FULL] + st->undrained;
}

void capture_stats__since(struct capture_stats *out, const struct capture_stats *now,
			  const struct capture_stats *mark)
{
	for (int slot = 0; slot < STAT_NR; slot++)
		out->slot[slot] = now->slot[slot] - mark->slot[slot];
	out->undrained = now->undrained - mark->undrained;
}

void capture_stats__add(struct capture_stats *sum, const struct capture_stats *more)
{
	for (int slot = 0; slot < STAT_NR; slot++)
		sum->slot[slot] += more->slot[slot];
	sum->undrained += more->undrained;
}

void capture__stats(const struct capture *cap, struct capture_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	for (int cpu = 0; cpu < cap->npossible; cpu++) {
		for (int slot = 0; slot < STAT_NR; slot++)
			stats->slot[slot] += cap->counters[cpu].slot[slot];
	}
	stats->slot[STAT_LOST_COUNTS_FULL] += cap->unattributed;
	stats->undrained = cap->undrained;
}

void capture__close(struct capture *cap)
{
	if (!cap)
		return;
	detach(cap);
	for (int set = 0; set < 2; set++) {
		if (cap->counts_mem[set])
			munmap(cap->counts_mem[set], cap->counts_bytes);
	}
	free(cap->slot_keys);
	map_pair__close(&cap->seen);
	map_pair__close(&cap->key_slots);
	stack_table__free(&cap->stacks);
	if (cap->counters)
		munmap((void *)cap->counters, cap->counters_bytes);
	free(cap);
}
