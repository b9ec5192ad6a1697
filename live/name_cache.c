// SPDX-License-Identifier: GPL-2.0
/*
 * name_cache: the names of a drain's frames, asked of the symbolizer once.
 *
 * Every address drained goes through frame_of(): a direct-mapped front
 * cache (HOT_BITS), then a hash index of named addresses, then the
 * symbolizer. Kernel stacks recur across processes and drains, and are
 * named once per hash; process frames once per raw comm; the outer frames
 * a process's stacks share once per drain (the depth memo). Each named
 * address also knows its site in the profile's address store (where in its
 * function it is, for the annotate view), asked for once per numbering of
 * the store's sites.
 */
#include "live/name_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "array.h"
#include "profile/addr_counts.h"
#include "profile/hash_index.h"
#include "symbols/procmaps.h"
#include "symbols/sanitize.h"

#define KERNEL_TGID UINT32_MAX
/*
 * The name cache starts over beyond this many names (~10 MB with its index).
 * Under process churn every new process's addresses are new names: beyond
 * PRUNE_NAMES (and beyond twice what the last pruning kept) the names of
 * processes that have exited are dropped first.
 */
#define MAX_NAMES (1u << 18)
#define PRUNE_NAMES (1u << 14)
#define HOT_BITS 14          /* the direct-mapped front of the name cache: 2^14 slots */
#define DRAIN_BITS 30 /* a name keeps its drain's number modulo 2^DRAIN_BITS: 32 bytes in all */
#define DRAIN_MASK ((1u << DRAIN_BITS) - 1)

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
	uint32_t site; /* its site in the profile's address store, ADDR_NONE, or SITE_UNASKED */
	uint32_t drain : DRAIN_BITS;
	uint32_t is_return : 1;
	uint32_t named : 1;
};

/*
 * Idle the kernel did not sample. On a NOHZ kernel a CPU-clock event can go
 * silent while its CPU idles (perf and bpftrace miss those samples too), and
 * shares would no longer add up to the machine. Each drain compares every
 * CPU's samples with rate x elapsed time and credits the shortfall, never
 * more than the idle time /proc/stat measured, to "swapper/N;[idle, not
 * sampled]".
 */
/* A slot of the front cache: which address (of which process) names_[entry] is. */
struct hot_name {
	uint64_t ip;
	uint32_t tgid;
	uint32_t entry1; /* entry + 1, with HOT_RETURN set for a return address; 0: empty */
};

#define HOT_RETURN 0x80000000u

/*
 * A name's site not asked for yet: the store's sites were renumbered since
 * it was (addr_counts__gen()), or the name is new.
 */
#define SITE_UNASKED (ADDR_NONE - 1)

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
	uint32_t off, n; /* into kstack_frames and kstack_sites */
	bool named;      /* every frame a function name */
};

#define MAX_KSTACK_FRAMES (1u << 17) /* the kernel stack cache starts over beyond this */
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
		uint32_t frame, site;
		bool is_return;
	} at[MAX_STACK_DEPTH];
};

/* A raw comm, as the kernel gave it, and its process frame. */
struct comm_slot {
	char comm[COMM_LEN];
	uint32_t frame1; /* frame id + 1; 0: empty */
};
struct name_cache {
	struct symbolizer *sym;
	struct profile *prof;
	bool traced;    /* events met by a tracing hook: its own kernel frames are cut */
	uint32_t drain; /* drains begun */

	struct name_entry *names;
	size_t nnames, names_cap;
	size_t prune_at; /* names beyond which those of exited processes are dropped */
	struct hash_index name_index;
	struct hot_name hot[1u << HOT_BITS]; /* most lookups end here, without a probe */
	uint8_t *hook_kind; /* per frame id: HOOK_UNKNOWN, HOOK_NO or HOOK_YES */
	size_t hook_kind_cap;

	struct kstack_entry *kstacks;
	size_t nkstacks, kstacks_cap;
	struct hash_index kstack_index;
	uint32_t *kstack_frames, *kstack_sites;
	size_t kstack_len, kstack_cap, kstack_sites_cap;

	struct addr_counts *addrs; /* the profile's address store, or NULL: no sites */
	uint64_t addrs_gen;        /* the numbering of its sites that the sites held are of */

	struct comm_slot comms[COMM_SLOTS];
	struct depth_memo user_memo;
	uint64_t frames_gen; /* the profile's numbering of frames these ids are of */
	struct python_frames *python; /* merges Python frames in; NULL: none */
};

enum { HOOK_UNKNOWN, HOOK_NO, HOOK_YES };

struct name_cache *name_cache__new(struct symbolizer *sym, struct profile *prof, bool traced)
{
	struct name_cache *nc = calloc(1, sizeof(*nc));

	if (!nc)
		return NULL;
	if (hash_index__init(&nc->name_index, 4096) || hash_index__init(&nc->kstack_index, 1024)) {
		name_cache__free(nc);
		return NULL;
	}
	nc->sym = sym;
	nc->prof = prof;
	nc->frames_gen = profile__frames_gen(prof);
	nc->addrs = profile__addresses(prof);
	nc->addrs_gen = nc->addrs ? addr_counts__gen(nc->addrs) : 0;
	nc->traced = traced;
	nc->prune_at = PRUNE_NAMES;
	return nc;
}

static uint64_t name_hash(uint32_t tgid, uint64_t ip, bool is_return)
{
	uint32_t w[4] = { tgid, (uint32_t)ip, (uint32_t)(ip >> 32), is_return };

	return hash_words(w, 4, 0);
}

struct name_probe {
	const struct name_cache *nc;
	uint64_t ip;
	uint32_t tgid;
	bool is_return;
};

static bool same_name(const void *ctx, uint32_t i)
{
	const struct name_probe *p = ctx;
	const struct name_entry *e = &p->nc->names[i];

	return e->ip == p->ip && e->tgid == p->tgid && e->is_return == p->is_return;
}

static uint64_t rehash_name(const void *ctx, uint32_t i)
{
	const struct name_cache *nc = ctx;

	return name_hash(nc->names[i].tgid, nc->names[i].ip, nc->names[i].is_return);
}

/* The symbolizer's generation of the names of @tgid (or of the kernel). */
static uint64_t names_gen(struct name_cache *nc, uint32_t tgid)
{
	if (tgid == KERNEL_TGID)
		return symbolizer__kernel_gen(nc->sym);
	return symbolizer__user_gen(nc->sym, tgid);
}

/*
 * Records where the named user function of @e lies (its file, build-id and
 * address), the first time its frame is seen: pprof tools look it up there.
 * Without it (no memory), pprof has the name alone.
 */
static void note_origin(struct name_cache *nc, const struct name_entry *e)
{
	struct frame_origin have;
	struct sym_origin o;

	if (profile__origin(nc->prof, e->frame, &have) ||
	    symbolizer__user_origin(nc->sym, e->tgid, e->ip, e->is_return, &o))
		return;
	profile__set_origin(nc->prof, e->frame,
			    &(struct frame_origin){ o.path, o.build_id, o.address });
}

/* Names the address of @e now. */
static void name_entry__resolve(struct name_cache *nc, struct name_entry *e)
{
	enum frame_kind kind = e->tgid == KERNEL_TGID ? FRAME_KERNEL : FRAME_USER;
	char buf[NAME_MAX_BYTES + 1], object[NAME_MAX_BYTES + 1];
	int status;

	object[0] = '\0';
	if (kind == FRAME_KERNEL)
		status = symbolizer__kernel(nc->sym, e->ip, e->is_return, buf, sizeof(buf));
	else
		status = symbolizer__user(nc->sym, e->tgid, e->ip, e->is_return, buf, sizeof(buf));
	if (kind == FRAME_USER && status != SYM_UNKNOWN)
		symbolizer__user_object(nc->sym, e->tgid, e->ip, e->is_return, object,
					sizeof(object));
	e->named = status == SYM_NAMED;
	e->frame = object[0] ? profile__frame_in(nc->prof, buf, strlen(buf), kind, e->named, object,
						 strlen(object))
			     : profile__frame(nc->prof, buf, strlen(buf), kind, e->named);
	if (kind == FRAME_USER && e->named && e->frame != PROFILE_NONE)
		note_origin(nc, e);
	e->gen = names_gen(nc, e->tgid);
	e->drain = nc->drain;
	e->site = SITE_UNASKED;
}

/* The module of @tgid's executable mapping @m, as the address store keeps it; false for none. */
static bool map_module(uint32_t tgid, const struct proc_map *m, struct addr_module *out)
{
	if (!(m->perms & MAP_PERM_X) || (m->kind != MAP_FILE && m->kind != MAP_VDSO &&
					 m->kind != MAP_ANON && m->kind != MAP_SPECIAL))
		return false;
	*out = (struct addr_module){
		.space = m->kind == MAP_FILE ? SPACE_FILE : SPACE_MEMORY,
		.tgid = (int32_t)tgid,
		.dev = makedev(m->dev_major, m->dev_minor),
		.inode = m->inode,
		.start = m->start,
		.end = m->end,
		.pgoff = m->pgoff,
		.path = m->path,
	};
	return true;
}

/*
 * The site of @e, named @e->frame: in the module its address lies in, at
 * the address the store keeps (a return address's call: ip - 1; in a file,
 * its offset). ADDR_NONE where there is none: no store, no executable
 * mapping holds it.
 */
static uint32_t site_of(struct name_cache *nc, const struct name_entry *e)
{
	uint64_t addr = e->is_return && e->ip ? e->ip - 1 : e->ip;
	struct addr_module m = { .space = SPACE_KERNEL };
	const struct proc_map *pm = NULL;
	const struct proc_maps *maps;
	uint32_t module;

	if (!nc->addrs || e->frame == PROFILE_NONE)
		return ADDR_NONE;
	if (e->tgid != KERNEL_TGID) {
		maps = symbolizer__maps(nc->sym, e->tgid);
		pm = maps ? proc_maps__find(maps, addr) : NULL;
		if (!pm || !map_module(e->tgid, pm, &m))
			return ADDR_NONE;
		if (m.space == SPACE_FILE)
			addr = addr - pm->start + pm->pgoff;
	}
	module = addr_counts__module(nc->addrs, &m);
	if (module == ADDR_NONE)
		return ADDR_NONE;
	return addr_counts__site(nc->addrs, e->frame, module, addr);
}

/* The site of named address @e, asked for once per numbering of the store's sites. */
static inline uint32_t entry_site(struct name_cache *nc, struct name_entry *e)
{
	if (e->site == SITE_UNASKED)
		e->site = site_of(nc, e);
	return e->site;
}

static struct hot_name *hot_slot(struct name_cache *nc, uint32_t tgid, uint64_t ip, bool is_return)
{
	uint64_t h = (ip ^ ((uint64_t)tgid << 32 | is_return)) * 0x9E3779B97F4A7C15ull;

	return &nc->hot[h >> (64 - HOT_BITS)];
}

/*
 * Is a name (or a kernel stack of names) made in generation @made_gen, in
 * drain @made_drain, still good for generation @gen? A function name is
 * while the generation holds; a placeholder only within the drain that made it.
 */
static bool names_fresh(const struct name_cache *nc, uint64_t made_gen, bool named, uint32_t made_drain,
			uint64_t gen)
{
	return made_gen == gen && (named || ((made_drain ^ nc->drain) & DRAIN_MASK) == 0);
}

/* Is @e's name good for @gen now? */
static bool name_entry__fresh(const struct name_cache *nc, const struct name_entry *e, uint64_t gen)
{
	return names_fresh(nc, e->gen, e->named, e->drain, gen);
}

/*
 * frame_of() when the front cache misses: the frame id naming @ip from the
 * name index, or from the symbolizer (then cached); @hot is the front
 * cache's slot for it, refilled.
 */
static uint32_t frame_of_indexed(struct name_cache *nc, struct hot_name *hot, uint32_t tgid, uint64_t gen,
				 uint64_t ip, bool is_return, uint32_t *site)
{
	uint32_t ret = is_return ? HOT_RETURN : 0;
	struct name_probe probe = { nc, ip, tgid, is_return };
	struct name_entry *e, once = { .ip = ip, .tgid = tgid, .is_return = is_return };
	uint64_t hash = name_hash(tgid, ip, is_return);
	struct hash_slot *slot = hash_index__find(&nc->name_index, hash, same_name, &probe);

	if (slot->entry1) {
		e = &nc->names[slot->entry1 - 1];
		if (!name_entry__fresh(nc, e, gen))
			name_entry__resolve(nc, e);
		*hot = (struct hot_name){ .ip = ip, .tgid = tgid, .entry1 = slot->entry1 | ret };
		*site = entry_site(nc, e);
		return e->frame;
	}
	if (array__grow((void **)&nc->names, &nc->names_cap, nc->nnames + 1, sizeof(*nc->names),
			4096)) {
		name_entry__resolve(nc, &once); /* named, but not cached */
		*site = entry_site(nc, &once);
		return once.frame;
	}
	e = &nc->names[nc->nnames];
	*e = once;
	name_entry__resolve(nc, e);
	*site = entry_site(nc, e);
	if (hash_index__insert(&nc->name_index, hash, nc->nnames, rehash_name, nc) == 0) {
		*hot = (struct hot_name){ .ip = ip, .tgid = tgid, .entry1 = (nc->nnames + 1) | ret };
		nc->nnames++;
	}
	return e->frame;
}

/*
 * The frame id naming @ip, from the cache or the symbolizer, and its site
 * in *@site. @gen is the symbolizer's generation of @tgid's names
 * (names_gen()), asked once per stack by the caller: a cached name made in
 * another generation is made again. Runs for every frame drained: the
 * front cache's hit is all it does inline.
 */
static inline uint32_t frame_of(struct name_cache *nc, uint32_t tgid, uint64_t gen, uint64_t ip,
				bool is_return, uint32_t *site)
{
	struct hot_name *hot = hot_slot(nc, tgid, ip, is_return);
	uint32_t ret = is_return ? HOT_RETURN : 0;
	struct name_entry *e;

	if (!hot->entry1 || hot->ip != ip || hot->tgid != tgid || (hot->entry1 & HOT_RETURN) != ret)
		return frame_of_indexed(nc, hot, tgid, gen, ip, is_return, site);
	e = &nc->names[(hot->entry1 & ~HOT_RETURN) - 1];
	if (!name_entry__fresh(nc, e, gen))
		name_entry__resolve(nc, e);
	*site = entry_site(nc, e);
	return e->frame;
}

/* A placeholder frame saying why a stack is missing, or PROFILE_NONE. */
static uint32_t lost_stack_frame(struct name_cache *nc, int32_t err, enum frame_kind kind)
{
	const char *side = kind == FRAME_KERNEL ? "kernel" : "user";
	char buf[96];

	if (err == 0 || err == STACK_NOT_WALKED || err == STACK_NO_USER || err == STACK_NO_KERNEL)
		return PROFILE_NONE;
	if (err == -ENOMEM || err == -E2BIG || err == -EAGAIN || err == -ENOSPC)
		snprintf(buf, sizeof(buf), "[%s stack lost: stack store full]", side);
	else
		snprintf(buf, sizeof(buf), "[%s stack lost: %s]", side, strerror(-err));
	return profile__frame(nc->prof, buf, strlen(buf), kind, false);
}

/*
 * The frame at depth @d, and its site in *@site: from the memo @m when the
 * previous stack had it there, else frame_of().
 */
static uint32_t memo_frame(struct name_cache *nc, struct depth_memo *m, uint32_t d, uint32_t tgid,
			   uint64_t gen, uint64_t ip, bool is_return, uint32_t *site)
{
	uint32_t f;

	if (d < m->valid && m->at[d].ip == ip && m->at[d].is_return == is_return) {
		*site = m->at[d].site;
		return m->at[d].frame;
	}
	f = frame_of(nc, tgid, gen, ip, is_return, site);
	if (d < MAX_STACK_DEPTH) {
		m->at[d].ip = ip;
		m->at[d].frame = f;
		m->at[d].site = *site;
		m->at[d].is_return = is_return;
		if (d == m->valid)
			m->valid++;
	}
	return f;
}

/*
 * Appends the names of @nips addresses of @tgid's (or the kernel's) stack,
 * leaf first in @ips, to @frames + @n outermost first, and their sites to
 * @sites + @n; returns the new count. Every frame but the leaf is a return
 * address; the leaf is too when @leaf_exact is false. With a depth memo @m
 * (may be NULL), the depths the previous stack of @tgid named alike in this
 * drain are taken from it.
 */
static uint32_t append_frames(struct name_cache *nc, uint32_t *frames, uint32_t *sites, uint32_t n,
			      uint32_t tgid, uint64_t gen, const uint64_t *ips, uint32_t nips,
			      bool leaf_exact, struct depth_memo *m)
{
	if (m && (m->tgid != tgid || m->gen != gen || m->drain != nc->drain)) {
		m->tgid = tgid;
		m->gen = gen;
		m->drain = nc->drain;
		m->valid = 0;
	}
	for (uint32_t i = nips, d = 0; i-- > 0; d++) {
		bool is_return = i > 0 || !leaf_exact;
		uint32_t site;
		uint32_t f = m ? memo_frame(nc, m, d, tgid, gen, ips[i], is_return, &site)
			       : frame_of(nc, tgid, gen, ips[i], is_return, &site);

		if (f != PROFILE_NONE) {
			sites[n] = site;
			frames[n++] = f;
		}
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
static bool frame_is_hook(struct name_cache *nc, uint32_t f)
{
	size_t cap = nc->hook_kind_cap;

	if (f >= cap) {
		if (array__grow((void **)&nc->hook_kind, &nc->hook_kind_cap, (size_t)f + 1, 1, 1024))
			return is_hook_machinery(profile__frame_name(nc->prof, f));
		memset(nc->hook_kind + cap, HOOK_UNKNOWN, nc->hook_kind_cap - cap);
	}
	if (nc->hook_kind[f] == HOOK_UNKNOWN)
		nc->hook_kind[f] = is_hook_machinery(profile__frame_name(nc->prof, f)) ? HOOK_YES
										     : HOOK_NO;
	return nc->hook_kind[f] == HOOK_YES;
}

/*
 * How many leaf-side kernel frames of a traced event belong to the hook (the
 * BPF program, the tracepoint or trampoline calling it) rather than to the
 * code that made the event. Unnamed frames among them go too.
 */
static uint32_t hook_frames(struct name_cache *nc, const uint64_t *ips, uint32_t nips)
{
	uint64_t gen = names_gen(nc, KERNEL_TGID);
	uint32_t cut = 0;

	for (uint32_t i = 0; i < nips; i++) {
		uint32_t site;
		uint32_t f = frame_of(nc, KERNEL_TGID, gen, ips[i], i > 0, &site);

		if (f == PROFILE_NONE)
			break;
		if (frame_is_hook(nc, f))
			cut = i + 1;
		else if (profile__frame_info(nc->prof, f)->named)
			break;
	}
	return cut;
}

/*
 * How many kernel frames from @from on lie in the scheduler's own text: a
 * traced thread leaving its CPU (off-CPU mode) is in __schedule() under
 * schedule(), schedule_timeout() and the like. They are the switch's, as
 * the hook's frames are the hook's, and the kernel leaves them out of a
 * blocked task's stack (as it walks one: /proc/PID/stack): cut, the waits
 * of threads blocked since before flametop started (walked so, see
 * bpf/offcpu.bpf.h's seed_waits) and those it saw begin read alike.
 */
static uint32_t sched_frames(struct name_cache *nc, const uint64_t *ips, uint32_t nips,
			     uint32_t from)
{
	uint32_t n = 0;

	while (from + n < nips && symbolizer__kernel_in_sched(nc->sym, ips[from + n], from + n > 0))
		n++;
	return n;
}

#define KSTACK_ENTRY sizeof(struct kstack_entry), offsetof(struct kstack_entry, hash)

/* Remembers @n frames of a kernel stack just named, and their sites (in @e when it was known). */
static void kstack_remember(struct name_cache *nc, struct kstack_entry *e, uint64_t hash, uint64_t gen,
			    const uint32_t *frames, const uint32_t *sites, uint32_t n)
{
	bool named = true;

	for (uint32_t i = 0; i < n; i++)
		named = named && profile__frame_info(nc->prof, frames[i])->named;
	if (array__grow((void **)&nc->kstack_frames, &nc->kstack_cap, nc->kstack_len + n,
			sizeof(*nc->kstack_frames), 4096) ||
	    array__grow((void **)&nc->kstack_sites, &nc->kstack_sites_cap, nc->kstack_len + n,
			sizeof(*nc->kstack_sites), 4096))
		return;
	if (!e) {
		if (array__grow((void **)&nc->kstacks, &nc->kstacks_cap, nc->nkstacks + 1,
				sizeof(*nc->kstacks), 256) ||
		    hash_index__insert_key64(&nc->kstack_index, hash, nc->nkstacks, nc->kstacks,
					     KSTACK_ENTRY))
			return;
		e = &nc->kstacks[nc->nkstacks++];
	}
	memcpy(nc->kstack_frames + nc->kstack_len, frames, n * sizeof(*frames));
	memcpy(nc->kstack_sites + nc->kstack_len, sites, n * sizeof(*sites));
	*e = (struct kstack_entry){ .hash = hash, .gen = gen, .drain = nc->drain,
				    .off = (uint32_t)nc->kstack_len, .n = n, .named = named };
	nc->kstack_len += n;
}

/*
 * Appends the named frames of a kernel stack of @nips addresses with hash
 * @hash, and their sites, from the cache when it was named before. In a
 * traced event the hook's own frames are left out.
 */
static uint32_t kernel_frames(struct name_cache *nc, uint32_t *frames, uint32_t *sites, uint32_t n,
			      uint64_t hash, const uint64_t *ips, uint32_t nips)
{
	uint32_t i = hash_index__find_key64(&nc->kstack_index, hash, nc->kstacks, KSTACK_ENTRY);
	struct kstack_entry *e = i != HASH_NONE ? &nc->kstacks[i] : NULL;
	uint64_t gen = names_gen(nc, KERNEL_TGID);
	uint32_t hook = 0, start = n;

	if (e && names_fresh(nc, e->gen, e->named, e->drain, gen)) {
		memcpy(frames + n, nc->kstack_frames + e->off, e->n * sizeof(*frames));
		memcpy(sites + n, nc->kstack_sites + e->off, e->n * sizeof(*sites));
		return n + e->n;
	}
	if (nc->traced) {
		hook = hook_frames(nc, ips, nips);
		hook += sched_frames(nc, ips, nips, hook);
	}
	n = append_frames(nc, frames, sites, n, KERNEL_TGID, gen, ips + hook, nips - hook, !hook,
			  NULL);
	kstack_remember(nc, e, hash, gen, frames + start, sites + start, n - start);
	return n;
}

/* The process frame of a raw comm, interned once per comm seen. */
static uint32_t comm_frame(struct name_cache *nc, const char *raw)
{
	struct comm_slot *c = &nc->comms[hash_bytes(raw, COMM_LEN) % COMM_SLOTS];
	char comm[COMM_LEN * 4];
	size_t len;
	uint32_t f;

	if (c->frame1 && memcmp(c->comm, raw, COMM_LEN) == 0)
		return c->frame1 - 1;
	len = sanitize_name(comm, sizeof(comm), raw, COMM_LEN);
	f = profile__frame(nc->prof, comm, len, FRAME_PROCESS, true);
	if (f != PROFILE_NONE) {
		memcpy(c->comm, raw, COMM_LEN);
		c->frame1 = f + 1;
	}
	return f;
}

/* Appends the frame saying why one side of a stack is missing, if it is (it has no site). */
static uint32_t append_lost(struct name_cache *nc, uint32_t *frames, uint32_t *sites, uint32_t n,
			    int32_t err, enum frame_kind kind)
{
	uint32_t lost = lost_stack_frame(nc, err, kind);

	if (lost != PROFILE_NONE) {
		sites[n] = ADDR_NONE;
		frames[n++] = lost;
	}
	return n;
}

/* The frame marking a user stack that stops short of its start code, or PROFILE_NONE. */
static uint32_t truncated_frame(struct name_cache *nc, uint32_t end)
{
	static const char truncated[] = "[truncated]";

	if (end == UNWIND_WHOLE)
		return PROFILE_NONE;
	return profile__frame(nc->prof, truncated, sizeof(truncated) - 1, FRAME_USER, false);
}

/*
 * How many of the user frames @ips (leaf first) lie in @tgid's code, from
 * the leaf to the first return address outside every executable mapping:
 * a walk that stopped short may have stepped by frame pointer past code
 * built without them, and read a number that is no return address. Such a
 * number never becomes a frame. The leaf, where the event was, counts.
 */
static uint32_t code_depth(struct name_cache *nc, uint32_t tgid, const uint64_t *ips, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (!symbolizer__in_code(nc->sym, tgid, ips[i] - 1))
			return i;
	return n;
}

void name_cache__set_python(struct name_cache *nc, struct python_frames *pf)
{
	nc->python = pf;
}

uint32_t name_cache__stack(struct name_cache *nc, const struct capture_stack *st, uint32_t *frames,
			   uint32_t *sites)
{
	uint32_t n;

	frames[0] = comm_frame(nc, st->comm);
	if (frames[0] == PROFILE_NONE)
		return 0;
	sites[0] = ADDR_NONE;
	n = append_lost(nc, frames, sites, 1, st->uerr, FRAME_USER);
	if (st->nu) {
		uint32_t cut = truncated_frame(nc, st->uend), nu = st->nu;

		if (cut != PROFILE_NONE) {
			sites[n] = ADDR_NONE;
			frames[n++] = cut;
			nu = code_depth(nc, st->tgid, st->uips, nu);
		}
		n = append_frames(nc, frames, sites, n, st->tgid, names_gen(nc, st->tgid), st->uips,
				  nu, true, &nc->user_memo);
	}
	if (nc->python && st->npy)
		n = 1 + python_frames__merge(nc->python, st, frames + 1, sites + 1, n - 1,
					     st->uerr || st->uend != UNWIND_WHOLE);
	n = append_lost(nc, frames, sites, n, st->kerr, FRAME_KERNEL);
	if (st->nk)
		n = kernel_frames(nc, frames, sites, n, st->khash, st->kips, st->nk);
	return n;
}

/*
 * Keeps only the names of the kernel and of the processes @gone does not
 * say have exited, and prunes again once the cache holds twice as many.
 */
static void prune_names(struct name_cache *nc, profile_gone_fn *gone, void *ctx)
{
	uint32_t last = KERNEL_TGID;
	bool last_gone = false;
	size_t kept = 0;

	hash_index__clear(&nc->name_index);
	memset(nc->hot, 0, sizeof(nc->hot));
	for (size_t i = 0; i < nc->nnames; i++) {
		const struct name_entry *e = &nc->names[i];

		if (e->tgid != last) {
			last = e->tgid;
			last_gone = e->tgid != KERNEL_TGID && gone(ctx, (int32_t)e->tgid);
		}
		if (last_gone)
			continue;
		nc->names[kept] = *e;
		if (hash_index__insert(&nc->name_index, name_hash(e->tgid, e->ip, e->is_return),
				       (uint32_t)kept, rehash_name, nc))
			break; /* the rest is asked again */
		kept++;
	}
	nc->nnames = kept;
	nc->prune_at = kept * 2 > PRUNE_NAMES ? kept * 2 : PRUNE_NAMES;
}

/* Forgets every named address. */
static void forget_names(struct name_cache *nc)
{
	hash_index__clear(&nc->name_index);
	memset(nc->hot, 0, sizeof(nc->hot));
	nc->nnames = 0;
	nc->prune_at = PRUNE_NAMES;
}

/* Forgets every named kernel stack. */
static void forget_kstacks(struct name_cache *nc)
{
	hash_index__clear(&nc->kstack_index);
	nc->nkstacks = 0;
	nc->kstack_len = 0;
}

/*
 * Forgets every site id held: the address store renumbered them (a fold,
 * a reset). Names ask for theirs again when next used.
 */
static void forget_sites(struct name_cache *nc)
{
	for (size_t i = 0; i < nc->nnames; i++)
		nc->names[i].site = SITE_UNASKED;
	forget_kstacks(nc);
	nc->user_memo.valid = 0;
	nc->addrs_gen = addr_counts__gen(nc->addrs);
}

/* Forgets every frame id held: the profile renumbered its frames (profile__fold()). */
static void forget_frames(struct name_cache *nc)
{
	forget_names(nc);
	forget_kstacks(nc);
	memset(nc->comms, 0, sizeof(nc->comms));
	nc->user_memo.valid = 0;
	if (nc->hook_kind)
		memset(nc->hook_kind, HOOK_UNKNOWN, nc->hook_kind_cap);
	nc->frames_gen = profile__frames_gen(nc->prof);
}

void name_cache__begin_drain(struct name_cache *nc, profile_gone_fn *gone, void *ctx)
{
	if (profile__frames_gen(nc->prof) != nc->frames_gen)
		forget_frames(nc);
	if (nc->addrs && addr_counts__gen(nc->addrs) != nc->addrs_gen)
		forget_sites(nc);
	if (nc->nnames > nc->prune_at)
		prune_names(nc, gone, ctx);
	if (nc->nnames > MAX_NAMES)
		forget_names(nc);
	if (nc->kstack_len > MAX_KSTACK_FRAMES || nc->nkstacks > MAX_NAMES)
		forget_kstacks(nc);
	if (nc->python)
		python_frames__begin_drain(nc->python);
	nc->drain++;
}

size_t name_cache__names(const struct name_cache *nc)
{
	return nc->nnames;
}

void name_cache__free(struct name_cache *nc)
{
	if (!nc)
		return;
	hash_index__free(&nc->name_index);
	free(nc->names);
	free(nc->hook_kind);
	hash_index__free(&nc->kstack_index);
	free(nc->kstacks);
	free(nc->kstack_frames);
	free(nc->kstack_sites);
	free(nc);
}
