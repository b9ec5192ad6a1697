// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "array.h"
#include "live.h"
#include "profile/hash_index.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

#define KERNEL_TGID UINT32_MAX
#define MAX_FRAMES (1 + 2 * (MAX_STACK_DEPTH + 1))
#define MAX_NAMES (1u << 20) /* the name cache starts over beyond this */
#define HOT_BITS 14          /* the direct-mapped front of the name cache: 2^14 slots */
/*
 * Seconds between two wakeups for process notes. A process is first
 * sampled within ~10 ms of running at 99 Hz, and its note is read at most
 * this much later: one that runs for 60 ms is still snapshotted. Each
 * wakeup costs ~50 us here (under process churn they were most of
 * flametop's cost at 25 ms).
 */
#define EVENTS_QUIET 0.040

/*
 * A named address: (process or kernel, address, return address?) -> frame
 * id. A function name is trusted while the symbolizer's generation for its
 * process (or the kernel) lasts; a placeholder ("[unknown]", "lib+0x1f")
 * only within the drain that made it, so that a later drain asks again
 * (and a reload or re-read gets a chance to name it).
 */
struct name_entry {
	uint64_t ip;
	uint64_t gen;
	uint32_t tgid;
	uint32_t frame;
	uint32_t drain;
	bool is_return;
	bool named;
};

/*
 * Idle the kernel did not sample. On a NOHZ kernel a CPU-clock event can go
 * silent while its CPU idles (perf and bpftrace miss those samples too), and
 * shares would no longer add up to the machine. Each drain compares every
 * CPU's samples with rate x elapsed time and credits the shortfall, never
 * more than the idle time /proc/stat measured, to "swapper/N;[idle, not
 * sampled]".
 */
struct idle_account {
	bool on;
	unsigned int freq;
	int ncpus;            /* CPU ids tracked */
	uint64_t *events;     /* samples per CPU at the last drain */
	uint64_t *idle_ticks; /* idle + iowait per CPU at the last drain, in USER_HZ */
	double *carry;        /* fractions of a sample not credited yet */
	int stat_fd;          /* /proc/stat, kept open: read again from its start */
	char *stat_text;      /* room for its "cpu" lines */
	size_t stat_size;
	double last;          /* when (monotonic seconds) */
	bool filtered;        /* a pid or comm filter is on: credit nothing */
	long user_hz;
	uint64_t credited;
};

/* A slot of the front cache: which address (of which process) names_[entry] is. */
struct hot_name {
	uint64_t ip;
	uint32_t tgid;
	uint32_t entry1; /* entry + 1, with HOT_RETURN set for a return address; 0: empty */
};

#define HOT_RETURN 0x80000000u

/*
 * A named kernel stack: the stack's hash -> its frame ids, outermost first,
 * as kernel_frames() made them. Kernel stacks recur across processes and
 * drains (a user stack is mostly new when it is not its process's again).
 * Good while the names it was made of are: in the same generation of the
 * kernel's table, and when one of them is a placeholder, within the drain
 * that made it.
 */
struct kstack_entry {
	uint64_t hash;
	uint64_t gen;
	uint32_t drain;
	uint32_t off, n; /* into live.kstack_frames */
	bool named;      /* every frame a function name */
};

#define MAX_KSTACK_FRAMES (1u << 22) /* the kernel stack cache starts over beyond this */
#define COMM_SLOTS 256            /* the direct-mapped cache of process frames */

/*
 * The user frames named last, by depth from the outermost: the stacks of a
 * drain come process by process and share their outer frames (start-up,
 * main loop, framework), which are then taken from here without a lookup.
 * Good for one process, one generation of its names and one drain.
 */
struct depth_memo {
	uint32_t tgid, drain;
	uint64_t gen;
	uint32_t valid; /* depths [0, valid) hold a name */
	struct {
		uint64_t ip;
		uint32_t frame;
		bool is_return;
	} at[MAX_STACK_DEPTH];
};

/* A raw comm, as the kernel gave it, and its process frame. */
struct comm_slot {
	char comm[COMM_LEN];
	uint32_t frame1; /* frame id + 1; 0: empty */
};

struct live {
	struct capture *cap;
	struct symbolizer *sym;
	struct profile *prof;
	enum live_weight weight;
	uint32_t drain;
	struct idle_account idle;
	double events_quiet_until; /* live__poll_events() leaves the events alone until then */

	struct name_entry *names;
	size_t nnames, names_cap;
	struct hash_index name_index;
	struct hot_name hot[1u << HOT_BITS]; /* most lookups end here, without a probe */
	uint8_t *hook_kind; /* per frame id: HOOK_UNKNOWN, HOOK_NO or HOOK_YES */
	size_t hook_kind_cap;

	struct kstack_entry *kstacks;
	size_t nkstacks, kstacks_cap;
	struct hash_index kstack_index;
	uint32_t *kstack_frames;
	size_t kstack_len, kstack_cap;

	struct comm_slot comms[COMM_SLOTS];
	struct depth_memo user_memo;
};

enum { HOOK_UNKNOWN, HOOK_NO, HOOK_YES };

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

static void idle_account__free(struct idle_account *a)
{
	free(a->events);
	free(a->idle_ticks);
	free(a->carry);
	free(a->stat_text);
	if (a->stat_fd >= 0)
		close(a->stat_fd);
	memset(a, 0, sizeof(*a));
	a->stat_fd = -1;
}

/* Starts idle accounting when it applies: fixed-rate sampling, no filter. */
static void idle_account__start(struct idle_account *a, struct capture *cap,
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
	    capture__cpu_events(cap, a->events, n) < 0) {
		idle_account__free(a);
		return;
	}
	a->freq = o->freq;
	a->last = monotonic_seconds();
	a->on = true;
}

static void credit_idle(struct live *l, int cpu, uint64_t samples)
{
	char comm[32];
	const char *idle = "[idle, not sampled]";
	uint32_t frames[2];
	struct sample s = { .tgid = 0, .frames = frames, .n = 2, .count = samples };

	snprintf(comm, sizeof(comm), "swapper/%d", cpu);
	frames[0] = profile__frame(l->prof, comm, strlen(comm), FRAME_PROCESS, true);
	frames[1] = profile__frame(l->prof, idle, strlen(idle), FRAME_KERNEL, false);
	if (frames[0] != PROFILE_NONE && frames[1] != PROFILE_NONE &&
	    profile__add(l->prof, &s) == 0)
		l->idle.credited += samples;
}

/* Credits, per CPU, the samples the kernel skipped while the CPU was idle. */
static void idle_account__update(struct live *l)
{
	struct idle_account *a = &l->idle;
	uint64_t events[a->ncpus], ticks[a->ncpus];
	double now = monotonic_seconds(), expected = (now - a->last) * a->freq;

	memcpy(ticks, a->idle_ticks, sizeof(ticks));
	if (capture__cpu_events(l->cap, events, a->ncpus) < 0 || read_idle_ticks(a, ticks))
		return;
	for (int cpu = 0; cpu < a->ncpus; cpu++) {
		double got = (double)(events[cpu] - a->events[cpu]);
		double idle = (double)(ticks[cpu] - a->idle_ticks[cpu]) * a->freq / a->user_hz;
		double missing = expected - got;
		double credit = (missing < idle ? missing : idle) + a->carry[cpu];

		if (credit < 0 || a->filtered)
			credit = 0;
		a->carry[cpu] = credit - (uint64_t)credit;
		if ((uint64_t)credit)
			credit_idle(l, cpu, (uint64_t)credit);
	}
	memcpy(a->events, events, sizeof(events));
	memcpy(a->idle_ticks, ticks, sizeof(ticks));
	a->last = now;
}

int live__open(const struct capture_opts *copts, enum live_weight weight, struct symbolizer *sym,
	       struct profile *prof, struct live **out, char *err, size_t err_size)
{
	struct live *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l || hash_index__init(&l->name_index, 4096) || hash_index__init(&l->kstack_index, 1024)) {
		if (l)
			hash_index__free(&l->name_index);
		free(l);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	l->idle.stat_fd = -1;
	ret = capture__open(copts, &l->cap, err, err_size);
	if (ret) {
		live__close(l);
		return ret;
	}
	l->sym = sym;
	l->prof = prof;
	l->weight = weight;
	idle_account__start(&l->idle, l->cap, copts);
	*out = l;
	return 0;
}

static uint64_t name_hash(uint32_t tgid, uint64_t ip, bool is_return)
{
	uint32_t w[4] = { tgid, (uint32_t)ip, (uint32_t)(ip >> 32), is_return };

	return hash_words(w, 4, 0);
}

struct name_probe {
	const struct live *l;
	uint64_t ip;
	uint32_t tgid;
	bool is_return;
};

static bool same_name(const void *ctx, uint32_t i)
{
	const struct name_probe *p = ctx;
	const struct name_entry *e = &p->l->names[i];

	return e->ip == p->ip && e->tgid == p->tgid && e->is_return == p->is_return;
}

static uint64_t rehash_name(const void *ctx, uint32_t i)
{
	const struct live *l = ctx;

	return name_hash(l->names[i].tgid, l->names[i].ip, l->names[i].is_return);
}

/* The symbolizer's generation of the names of @tgid (or of the kernel). */
static uint64_t names_gen(struct live *l, uint32_t tgid)
{
	if (tgid == KERNEL_TGID)
		return symbolizer__kernel_gen(l->sym);
	return symbolizer__user_gen(l->sym, tgid);
}

/* Names the address of @e now. */
static void name_entry__resolve(struct live *l, struct name_entry *e)
{
	enum frame_kind kind = e->tgid == KERNEL_TGID ? FRAME_KERNEL : FRAME_USER;
	char buf[NAME_MAX_BYTES + 1];
	char object[NAME_MAX_BYTES + 1] = "";
	int status;

	if (kind == FRAME_KERNEL)
		status = symbolizer__kernel(l->sym, e->ip, e->is_return, buf, sizeof(buf));
	else
		status = symbolizer__user(l->sym, e->tgid, e->ip, e->is_return, buf, sizeof(buf));
	if (kind == FRAME_USER && status != SYM_UNKNOWN)
		symbolizer__user_object(l->sym, e->tgid, e->ip, e->is_return, object,
					sizeof(object));
	e->named = status == SYM_NAMED;
	e->frame = object[0] ? profile__frame_in(l->prof, buf, strlen(buf), kind, e->named, object,
						 strlen(object))
			     : profile__frame(l->prof, buf, strlen(buf), kind, e->named);
	e->gen = names_gen(l, e->tgid);
	e->drain = l->drain;
}

static struct hot_name *hot_slot(struct live *l, uint32_t tgid, uint64_t ip, bool is_return)
{
	uint64_t h = (ip ^ ((uint64_t)tgid << 32 | is_return)) * 0x9E3779B97F4A7C15ull;

	return &l->hot[h >> (64 - HOT_BITS)];
}

/*
 * Is a name (or a kernel stack of names) made in generation @made_gen, in
 * drain @made_drain, still good for generation @gen? A function name is
 * while the generation holds; a placeholder only within the drain that made it.
 */
static bool names_fresh(const struct live *l, uint64_t made_gen, bool named, uint32_t made_drain,
			uint64_t gen)
{
	return made_gen == gen && (named || made_drain == l->drain);
}

/* Is @e's name good for @gen now? */
static bool name_entry__fresh(const struct live *l, const struct name_entry *e, uint64_t gen)
{
	return names_fresh(l, e->gen, e->named, e->drain, gen);
}

/*
 * frame_of() when the front cache misses: the frame id naming @ip from the
 * name index, or from the symbolizer (then cached); @hot is the front
 * cache's slot for it, refilled.
 */
static uint32_t frame_of_indexed(struct live *l, struct hot_name *hot, uint32_t tgid, uint64_t gen,
				 uint64_t ip, bool is_return)
{
	uint32_t ret = is_return ? HOT_RETURN : 0;
	struct name_probe probe = { l, ip, tgid, is_return };
	struct name_entry *e, once = { .ip = ip, .tgid = tgid, .is_return = is_return };
	uint64_t hash = name_hash(tgid, ip, is_return);
	struct hash_slot *slot = hash_index__find(&l->name_index, hash, same_name, &probe);

	if (slot->entry1) {
		e = &l->names[slot->entry1 - 1];
		if (!name_entry__fresh(l, e, gen))
			name_entry__resolve(l, e);
		*hot = (struct hot_name){ .ip = ip, .tgid = tgid, .entry1 = slot->entry1 | ret };
		return e->frame;
	}
	if (array__grow((void **)&l->names, &l->names_cap, l->nnames + 1, sizeof(*l->names),
			4096)) {
		name_entry__resolve(l, &once); /* named, but not cached */
		return once.frame;
	}
	e = &l->names[l->nnames];
	*e = once;
	name_entry__resolve(l, e);
	if (hash_index__insert(&l->name_index, hash, l->nnames, rehash_name, l) == 0) {
		*hot = (struct hot_name){ .ip = ip, .tgid = tgid, .entry1 = (l->nnames + 1) | ret };
		l->nnames++;
	}
	return e->frame;
}

/*
 * The frame id naming @ip, from the cache or the symbolizer. @gen is the
 * symbolizer's generation of @tgid's names (names_gen()), asked once per
 * stack by the caller: a cached name made in another generation is made again.
 * Runs for every frame drained: the front cache's hit is all it does inline.
 */
static inline uint32_t frame_of(struct live *l, uint32_t tgid, uint64_t gen, uint64_t ip,
				bool is_return)
{
	struct hot_name *hot = hot_slot(l, tgid, ip, is_return);
	uint32_t ret = is_return ? HOT_RETURN : 0;
	struct name_entry *e;

	if (!hot->entry1 || hot->ip != ip || hot->tgid != tgid || (hot->entry1 & HOT_RETURN) != ret)
		return frame_of_indexed(l, hot, tgid, gen, ip, is_return);
	e = &l->names[(hot->entry1 & ~HOT_RETURN) - 1];
	if (!name_entry__fresh(l, e, gen))
		name_entry__resolve(l, e);
	return e->frame;
}

/* A placeholder frame saying why a stack is missing, or PROFILE_NONE. */
static uint32_t lost_stack_frame(struct live *l, int32_t err, enum frame_kind kind)
{
	const char *side = kind == FRAME_KERNEL ? "kernel" : "user";
	char buf[96];

	if (err == 0 || err == STACK_NOT_WALKED || err == STACK_NO_USER || err == STACK_NO_KERNEL)
		return PROFILE_NONE;
	if (err == -ENOMEM || err == -E2BIG || err == -EAGAIN || err == -ENOSPC)
		snprintf(buf, sizeof(buf), "[%s stack lost: stack store full]", side);
	else
		snprintf(buf, sizeof(buf), "[%s stack lost: %s]", side, strerror(-err));
	return profile__frame(l->prof, buf, strlen(buf), kind, false);
}

/* The frame at depth @d: from the memo @m when the previous stack had it there, else frame_of(). */
static uint32_t memo_frame(struct live *l, struct depth_memo *m, uint32_t d, uint32_t tgid,
			   uint64_t gen, uint64_t ip, bool is_return)
{
	uint32_t f;

	if (d < m->valid && m->at[d].ip == ip && m->at[d].is_return == is_return)
		return m->at[d].frame;
	f = frame_of(l, tgid, gen, ip, is_return);
	if (d < MAX_STACK_DEPTH) {
		m->at[d].ip = ip;
		m->at[d].frame = f;
		m->at[d].is_return = is_return;
		if (d == m->valid)
			m->valid++;
	}
	return f;
}

/*
 * Appends the names of @nips addresses of @tgid's (or the kernel's) stack,
 * leaf first in @ips, to @frames + @n outermost first; returns the new count.
 * Every frame but the leaf is a return address; the leaf is too when
 * @leaf_exact is false. With a depth memo @m (may be NULL), the depths the
 * previous stack of @tgid named alike in this drain are taken from it.
 */
static uint32_t append_frames(struct live *l, uint32_t *frames, uint32_t n, uint32_t tgid,
			      uint64_t gen, const uint64_t *ips, uint32_t nips, bool leaf_exact,
			      struct depth_memo *m)
{
	if (m && (m->tgid != tgid || m->gen != gen || m->drain != l->drain)) {
		m->tgid = tgid;
		m->gen = gen;
		m->drain = l->drain;
		m->valid = 0;
	}
	for (uint32_t i = nips, d = 0; i-- > 0; d++) {
		bool is_return = i > 0 || !leaf_exact;
		uint32_t f = m ? memo_frame(l, m, d, tgid, gen, ips[i], is_return)
			       : frame_of(l, tgid, gen, ips[i], is_return);

		if (f != PROFILE_NONE)
			frames[n++] = f;
	}
	return n;
}

/* Kernel functions between a traced event and the BPF program that records it. */
static const char *const hook_machinery[] = {
	"bpf_trace_run", "__bpf_trace_", "trace_call_bpf", "__traceiter_",
	"perf_trace_run_bpf_submit", "syscall_trace_enter", "__bpf_prog_enter",
	"__bpf_prog_exit", "bpf_trampoline_", "kprobe_ftrace_handler", "kprobe_perf_func",
	"kprobe_dispatcher", "ftrace_regs_caller", "ftrace_caller",
};

static bool is_hook_machinery(const char *name)
{
	size_t len = strlen(name);

	if (len > 6 && strcmp(name + len - 6, " [bpf]") == 0)
		return true;
	for (size_t i = 0; i < sizeof(hook_machinery) / sizeof(hook_machinery[0]); i++) {
		if (strncmp(name, hook_machinery[i], strlen(hook_machinery[i])) == 0)
			return true;
	}
	return false;
}

/* Is frame @f part of the hook's machinery? Decided once per frame id. */
static bool frame_is_hook(struct live *l, uint32_t f)
{
	size_t cap = l->hook_kind_cap;

	if (f >= cap) {
		if (array__grow((void **)&l->hook_kind, &l->hook_kind_cap, (size_t)f + 1, 1, 1024))
			return is_hook_machinery(profile__frame_name(l->prof, f));
		memset(l->hook_kind + cap, HOOK_UNKNOWN, l->hook_kind_cap - cap);
	}
	if (l->hook_kind[f] == HOOK_UNKNOWN)
		l->hook_kind[f] = is_hook_machinery(profile__frame_name(l->prof, f)) ? HOOK_YES
										     : HOOK_NO;
	return l->hook_kind[f] == HOOK_YES;
}

/*
 * How many leaf-side kernel frames of a traced event belong to the hook (the
 * BPF program, the tracepoint or trampoline calling it) rather than to the
 * code that made the event. Unnamed frames among them go too.
 */
static uint32_t hook_frames(struct live *l, const uint64_t *ips, uint32_t nips)
{
	uint64_t gen = names_gen(l, KERNEL_TGID);
	uint32_t cut = 0;

	for (uint32_t i = 0; i < nips; i++) {
		uint32_t f = frame_of(l, KERNEL_TGID, gen, ips[i], i > 0);

		if (f == PROFILE_NONE)
			break;
		if (frame_is_hook(l, f))
			cut = i + 1;
		else if (profile__frame_info(l->prof, f)->named)
			break;
	}
	return cut;
}

#define KSTACK_ENTRY sizeof(struct kstack_entry), offsetof(struct kstack_entry, hash)

/* Remembers @n frames of a kernel stack just named (in @e when it was known). */
static void kstack_remember(struct live *l, struct kstack_entry *e, uint64_t hash, uint64_t gen,
			    const uint32_t *frames, uint32_t n)
{
	bool named = true;

	for (uint32_t i = 0; i < n; i++)
		named = named && profile__frame_info(l->prof, frames[i])->named;
	if (array__grow((void **)&l->kstack_frames, &l->kstack_cap, l->kstack_len + n,
			sizeof(*l->kstack_frames), 4096))
		return;
	if (!e) {
		if (array__grow((void **)&l->kstacks, &l->kstacks_cap, l->nkstacks + 1,
				sizeof(*l->kstacks), 256) ||
		    hash_index__insert_key64(&l->kstack_index, hash, l->nkstacks, l->kstacks,
					     KSTACK_ENTRY))
			return;
		e = &l->kstacks[l->nkstacks++];
	}
	memcpy(l->kstack_frames + l->kstack_len, frames, n * sizeof(*frames));
	*e = (struct kstack_entry){ .hash = hash, .gen = gen, .drain = l->drain,
				    .off = (uint32_t)l->kstack_len, .n = n, .named = named };
	l->kstack_len += n;
}

/*
 * Appends the named frames of a kernel stack of @nips addresses with hash
 * @hash, from the cache when it was named before. In a traced event the
 * hook's own frames are left out.
 */
static uint32_t kernel_frames(struct live *l, uint32_t *frames, uint32_t n, uint64_t hash,
			      const uint64_t *ips, uint32_t nips)
{
	uint32_t i = hash_index__find_key64(&l->kstack_index, hash, l->kstacks, KSTACK_ENTRY);
	struct kstack_entry *e = i != HASH_NONE ? &l->kstacks[i] : NULL;
	uint64_t gen = names_gen(l, KERNEL_TGID);
	uint32_t hook = 0, start = n;

	if (e && names_fresh(l, e->gen, e->named, e->drain, gen)) {
		memcpy(frames + n, l->kstack_frames + e->off, e->n * sizeof(*frames));
		return n + e->n;
	}
	if (capture__mode(l->cap) != CAPTURE_SAMPLE)
		hook = hook_frames(l, ips, nips);
	n = append_frames(l, frames, n, KERNEL_TGID, gen, ips + hook, nips - hook, !hook, NULL);
	kstack_remember(l, e, hash, gen, frames + start, n - start);
	return n;
}

/* The process frame of a raw comm, interned once per comm seen. */
static uint32_t comm_frame(struct live *l, const char *raw)
{
	struct comm_slot *c = &l->comms[hash_bytes(raw, COMM_LEN) % COMM_SLOTS];
	char comm[COMM_LEN * 4];
	size_t len;
	uint32_t f;

	if (c->frame1 && memcmp(c->comm, raw, COMM_LEN) == 0)
		return c->frame1 - 1;
	len = sanitize_name(comm, sizeof(comm), raw, COMM_LEN);
	f = profile__frame(l->prof, comm, len, FRAME_PROCESS, true);
	if (f != PROFILE_NONE) {
		memcpy(c->comm, raw, COMM_LEN);
		c->frame1 = f + 1;
	}
	return f;
}

/* Appends the frame saying why one side of a stack is missing, if it is. */
static uint32_t append_lost(struct live *l, uint32_t *frames, uint32_t n, int32_t err,
			    enum frame_kind kind)
{
	uint32_t lost = lost_stack_frame(l, err, kind);

	if (lost != PROFILE_NONE)
		frames[n++] = lost;
	return n;
}

static void on_stack(void *ctx, const struct capture_stack *st)
{
	struct live *l = ctx;
	uint32_t frames[MAX_FRAMES];
	struct sample s = {
		.tgid = (int32_t)st->tgid,
		.tid = (int32_t)st->pid,
		.frames = frames,
		.count = l->weight == WEIGHT_BYTES ? st->bytes : st->count,
	};

	frames[0] = comm_frame(l, st->comm);
	if (frames[0] == PROFILE_NONE)
		return;
	s.n = append_lost(l, frames, 1, st->uerr, FRAME_USER);
	if (st->nu)
		s.n = append_frames(l, frames, s.n, st->tgid, names_gen(l, st->tgid), st->uips,
				    st->nu, true, &l->user_memo);
	s.n = append_lost(l, frames, s.n, st->kerr, FRAME_KERNEL);
	if (st->nk)
		s.n = kernel_frames(l, frames, s.n, st->khash, st->kips, st->nk);
	profile__add(l->prof, &s);
}

uint64_t live__idle_credited(const struct live *l)
{
	return l->idle.credited;
}

int live__drain(struct live *l)
{
	int ret;

	if (l->nnames > MAX_NAMES) {
		hash_index__clear(&l->name_index);
		memset(l->hot, 0, sizeof(l->hot));
		l->nnames = 0;
	}
	if (l->kstack_len > MAX_KSTACK_FRAMES || l->nkstacks > MAX_NAMES) {
		hash_index__clear(&l->kstack_index);
		l->nkstacks = 0;
		l->kstack_len = 0;
	}
	live__handle_events(l); /* snapshot new processes before their stacks are named */
	l->drain++;
	symbolizer__begin_pass(l->sym);
	ret = capture__drain(l->cap, on_stack, l);
	if (l->idle.on && ret >= 0)
		idle_account__update(l);
	return ret;
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
		pfd->fd = capture__stacks_fill_fd(l->cap);
		return (int)(quiet * 1000) + 1;
	}
	pfd->fd = capture__event_fd(l->cap);
	return -1;
}

static void on_proc_note(void *ctx, uint32_t tgid, bool starting, uint64_t start_boottime)
{
	struct live *l = ctx;

	symbolizer__note_process(l->sym, tgid, starting, start_boottime);
}

void live__handle_events(struct live *l)
{
	if (capture__consume_events(l->cap, on_proc_note, l) > 0)
		l->events_quiet_until = monotonic_seconds() + EVENTS_QUIET;
}

void live__stop(struct live *l)
{
	if (l->idle.on)
		idle_account__update(l);
	l->idle.on = false;
	capture__stop(l->cap);
}

struct capture *live__capture(const struct live *l)
{
	return l->cap;
}

void live__close(struct live *l)
{
	if (!l)
		return;
	capture__close(l->cap);
	idle_account__free(&l->idle);
	hash_index__free(&l->name_index);
	free(l->names);
	free(l->hook_kind);
	hash_index__free(&l->kstack_index);
	free(l->kstacks);
	free(l->kstack_frames);
	free(l);
}
