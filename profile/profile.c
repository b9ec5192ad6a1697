// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/addr_counts.h"
#include "profile/hash_index.h"
#include "profile/process_name.h"
#include "profile/profile.h"
#include "profile/stack_sort.h"
#include "profile/strtab.h"
#include "python/frame_names.h"
#include "symbols/sanitize.h"

struct stack_entry {
	uint64_t hash;
	const uint32_t *frames; /* in one of profile.chunks */
	uint32_t n;
	int32_t tgid, tid;
	uint32_t kernel_at; /* see profile_stack */
	uint64_t total, open, recent; /* cumulative; the open interval; the last closed one */
};

/*
 * The frame ids of the stacks, back to back. A stack's frames never move
 * (profile.h promises it), so they are kept in chunks, each twice the size
 * of the one before up to CHUNK_MAX_FRAMES, not in one array that moves
 * when it grows.
 */
#define CHUNK_MIN_FRAMES (16u << 10)
#define CHUNK_MAX_FRAMES (4u << 20)

struct frames_chunk {
	struct frames_chunk *next; /* the chunk before */
	size_t used, size;         /* in frames */
	uint32_t ids[];
};

/* The counts of a stack when the profile was frozen. */
struct frozen_counts {
	uint64_t total, recent;
};

/* Where a frame's function lies (profile__set_origin()): string ids, and its address. */
struct origin {
	uint32_t file; /* PROFILE_NONE: none recorded */
	uint32_t build_id;
	uint64_t address;
};

/* A process (or thread) group frame, by what it groups. */
struct group_entry {
	uint32_t comm, frame; /* the comm's frame, the group's frame */
	int32_t tgid, tid;    /* tid 0: the whole process */
};

struct profile {
	struct strtab *names;

	struct frame *frames;
	size_t nframes, frames_cap;
	struct hash_index frame_index;
	struct origin *origins; /* per frame id below norigins */
	size_t norigins, origins_cap;

	struct frames_chunk *chunks; /* the newest first */
	size_t chunk_bytes;
	struct stack_entry *stacks;
	size_t nstacks, stacks_cap;
	struct hash_index stack_index;
	uint32_t *sorted; /* stacks[sorted[0]], ... stacks[sorted[nsorted - 1]]: the sorted order */
	size_t nsorted, sorted_cap;
	bool has_tgids;
	bool saturated; /* some sum did not fit and stopped at COUNT_MAX */
	uint64_t folded; /* stacks folded into others by profile__fold() */
	size_t fold_base; /* stacks held after profile__fold()'s last try */

	uint64_t total, open, recent;

	struct frozen_counts *frozen; /* the counts of stacks [0, nfrozen) when frozen */
	size_t nfrozen, frozen_cap;
	bool is_frozen;
	uint64_t frozen_total, frozen_recent;

	/* profile__group(): each stack's group frame, for stacks [0, ngrouped[g]) */
	uint32_t *group_of[GROUP_NR];
	size_t ngrouped[GROUP_NR], group_cap[GROUP_NR];
	struct group_entry *groups;
	size_t ngroups, groups_cap;
	struct hash_index group_index;

	/* compact_frames(): how many times frames were renumbered, and the last renumbering */
	uint64_t frames_gen;
	uint32_t *renumbered; /* old frame id -> new one, or PROFILE_NONE: gone */
	size_t nrenumbered;

	struct addr_counts *addrs; /* profile__keep_addresses(), or NULL */
	uint32_t *scratch; /* profile__add(): a stack with its interp twins */
	size_t scratch_cap;
};

struct profile *profile__new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->names = strtab__new();
	if (!p->names || hash_index__init(&p->frame_index, 1024) ||
	    hash_index__init(&p->stack_index, 1024) || hash_index__init(&p->group_index, 64)) {
		profile__free(p);
		return NULL;
	}
	return p;
}

static uint64_t frame_hash(uint32_t name, uint32_t object, uint8_t kind, bool interp)
{
	uint32_t w[3] = { name, object, kind | (uint32_t)interp << 8 };

	return hash_words(w, 3, 0);
}

struct frame_probe {
	const struct profile *p;
	uint32_t name, object;
	uint8_t kind;
	bool interp;
};

static bool same_frame(const void *ctx, uint32_t id)
{
	const struct frame_probe *fp = ctx;
	const struct frame *f = &fp->p->frames[id];

	return f->name == fp->name && f->object == fp->object && f->kind == fp->kind &&
	       f->interp == fp->interp;
}

/* The hash of frame @id of the array @frames (a profile's frames). */
static uint64_t rehash_frame(const void *frames, uint32_t id)
{
	const struct frame *f = (const struct frame *)frames + id;

	return frame_hash(f->name, f->object, f->kind, f->interp);
}

/*
 * Interns the frame (@name, @object, @kind), or with @interp its interp
 * twin; @object is a string id or PROFILE_NONE.
 */
static uint32_t intern_frame(struct profile *p, uint32_t name, uint32_t object,
			     enum frame_kind kind, bool named, bool interp)
{
	struct frame_probe probe = { p, name, object, kind, interp };
	uint64_t hash = frame_hash(name, object, kind, interp);
	struct hash_slot *slot = hash_index__find(&p->frame_index, hash, same_frame, &probe);

	if (slot->entry1)
		return slot->entry1 - 1;
	if (array__grow((void **)&p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames),
			256))
		return PROFILE_NONE;
	p->frames[p->nframes] = (struct frame){ .name = name, .object = object, .kind = kind,
						.named = named, .interp = interp };
	if (hash_index__insert(&p->frame_index, hash, p->nframes, rehash_frame, p->frames))
		return PROFILE_NONE;
	return p->nframes++;
}

uint32_t profile__frame(struct profile *p, const char *name, size_t len, enum frame_kind kind,
			bool named)
{
	uint32_t id = strtab__intern(p->names, name, len);

	return id == STRTAB_NONE ? PROFILE_NONE
				 : intern_frame(p, id, PROFILE_NONE, kind, named, false);
}

uint32_t profile__frame_in(struct profile *p, const char *name, size_t len, enum frame_kind kind,
			   bool named, const char *object, size_t object_len)
{
	uint32_t id = strtab__intern(p->names, name, len);
	uint32_t obj = strtab__intern(p->names, object, object_len);

	if (id == STRTAB_NONE || obj == STRTAB_NONE)
		return PROFILE_NONE;
	return intern_frame(p, id, obj, kind, named, false);
}

struct addr_counts *profile__keep_addresses(struct profile *p)
{
	if (!p->addrs)
		p->addrs = addr_counts__new();
	return p->addrs;
}

struct addr_counts *profile__addresses(const struct profile *p)
{
	return p->addrs;
}

size_t profile__nframes(const struct profile *p)
{
	return p->nframes;
}

const struct frame *profile__frame_info(const struct profile *p, uint32_t id)
{
	return &p->frames[id];
}

const char *profile__frame_name(const struct profile *p, uint32_t id)
{
	return strtab__str(p->names, p->frames[id].name);
}

const char *profile__frame_object(const struct profile *p, uint32_t id)
{
	uint32_t object = p->frames[id].object;

	return object == PROFILE_NONE ? NULL : strtab__str(p->names, object);
}

int profile__set_origin(struct profile *p, uint32_t id, const struct frame_origin *o)
{
	struct origin *to;
	uint32_t file, build_id;

	if (id < p->norigins && p->origins[id].file != PROFILE_NONE)
		return 0;
	file = strtab__intern(p->names, o->file, strlen(o->file));
	build_id = strtab__intern(p->names, o->build_id, strlen(o->build_id));
	if (file == STRTAB_NONE || build_id == STRTAB_NONE ||
	    array__grow((void **)&p->origins, &p->origins_cap, (size_t)id + 1, sizeof(*p->origins),
			256))
		return -ENOMEM;
	for (; p->norigins <= id; p->norigins++)
		p->origins[p->norigins].file = PROFILE_NONE;
	to = &p->origins[id];
	*to = (struct origin){ .file = file, .build_id = build_id, .address = o->address };
	return 0;
}

bool profile__origin(const struct profile *p, uint32_t id, struct frame_origin *out)
{
	const struct origin *o = id < p->norigins ? &p->origins[id] : NULL;

	if (!o || o->file == PROFILE_NONE)
		return false;
	*out = (struct frame_origin){ .file = strtab__str(p->names, o->file),
				      .build_id = strtab__str(p->names, o->build_id),
				      .address = o->address };
	return true;
}

/* A thread id as stored: 0 when not known. */
static int32_t known_tid(int32_t tid)
{
	return tid > 0 ? tid : 0;
}

static uint64_t stack_hash(const struct sample *s)
{
	uint32_t seed = (uint32_t)s->tgid * 0x9E3779B1u ^ (uint32_t)known_tid(s->tid);

	return hash_words(s->frames, s->n, seed);
}

struct stack_probe {
	const struct profile *p;
	const struct sample *s;
};

static bool same_stack(const void *ctx, uint32_t i)
{
	const struct stack_probe *sp = ctx;
	const struct stack_entry *e = &sp->p->stacks[i];

	return e->tgid == sp->s->tgid && e->tid == known_tid(sp->s->tid) && e->n == sp->s->n &&
	       memcmp(e->frames, sp->s->frames, e->n * sizeof(uint32_t)) == 0;
}

static uint64_t rehash_stack(const void *ctx, uint32_t i)
{
	const struct profile *p = ctx;

	return p->stacks[i].hash;
}

/*
 * Room for @n frames at the end of the newest chunk (a new chunk when it
 * has none), taken only when the caller adds @n to its used count; NULL
 * when out of memory.
 */
static uint32_t *frames_room(struct profile *p, uint32_t n)
{
	struct frames_chunk *c = p->chunks;
	size_t size;

	if (c && c->size - c->used >= n)
		return c->ids + c->used;
	size = c ? c->size * 2 : CHUNK_MIN_FRAMES;
	if (size > CHUNK_MAX_FRAMES)
		size = CHUNK_MAX_FRAMES;
	if (size < n)
		size = n;
	c = malloc(sizeof(*c) + size * sizeof(uint32_t));
	if (!c)
		return NULL;
	*c = (struct frames_chunk){ .next = p->chunks, .size = size };
	p->chunks = c;
	p->chunk_bytes += sizeof(*c) + size * sizeof(uint32_t);
	return c->ids;
}

/*
 * Where the kernel frames of @s begin, when its frames after the process
 * are user frames then kernel frames, as a capture gives them; PROFILE_NONE
 * when they are mixed otherwise.
 */
static uint32_t kernel_start(const struct profile *p, const struct sample *s)
{
	uint32_t k = s->n;

	while (k > 1 && p->frames[s->frames[k - 1]].kind == FRAME_KERNEL)
		k--;
	for (uint32_t i = 1; i < k; i++) {
		if (p->frames[s->frames[i]].kind != FRAME_USER)
			return PROFILE_NONE;
	}
	return k;
}

static int store_stack(struct profile *p, const struct sample *s, uint64_t hash)
{
	uint32_t *frames = frames_room(p, s->n);
	struct stack_entry *e;

	if (!frames || array__grow((void **)&p->stacks, &p->stacks_cap, p->nstacks + 1,
				   sizeof(*p->stacks), 256))
		return -ENOMEM;
	e = &p->stacks[p->nstacks];
	*e = (struct stack_entry){ .hash = hash, .frames = frames, .n = s->n, .tgid = s->tgid,
				   .tid = known_tid(s->tid), .kernel_at = kernel_start(p, s) };
	memcpy(frames, s->frames, s->n * sizeof(uint32_t));
	if (hash_index__insert(&p->stack_index, hash, p->nstacks, rehash_stack, p))
		return -ENOMEM;
	p->chunks->used += s->n;
	p->nstacks++;
	p->has_tgids |= s->tgid != TGID_UNKNOWN;
	return 0;
}

/* *@sum += @n, saturating (see count__add()); true when it did not fit. */
static bool add_saturating(uint64_t *sum, uint64_t n)
{
	bool over = __builtin_add_overflow(*sum, n, sum);

	if (over)
		*sum = COUNT_MAX;
	return over;
}

/* Adds @total to stack @e's cumulative count and @open to its open interval's, and to the profile's. */
static void add_counts(struct profile *p, struct stack_entry *e, uint64_t total, uint64_t open)
{
	bool over = add_saturating(&e->total, total);

	over |= add_saturating(&e->open, open);
	over |= add_saturating(&p->total, total);
	over |= add_saturating(&p->open, open);
	p->saturated |= over;
}

/* The entry of the stack @s describes, stored when new; NULL when out of memory. */
static struct stack_entry *stack_of(struct profile *p, const struct sample *s)
{
	struct stack_probe probe = { p, s };
	uint64_t hash = stack_hash(s);
	struct hash_slot *slot = hash_index__find(&p->stack_index, hash, same_stack, &probe);

	if (slot->entry1)
		return &p->stacks[slot->entry1 - 1];
	if (store_stack(p, s, hash))
		return NULL;
	return &p->stacks[p->nstacks - 1];
}

enum { DISPATCH_UNKNOWN, DISPATCH_NO, DISPATCH_YES };

/* Whether user frame @id is named as the interpreter's dispatch machinery; decided once. */
static bool is_dispatch(struct profile *p, uint32_t id)
{
	struct frame *f = &p->frames[id];

	if (f->dispatch == DISPATCH_UNKNOWN)
		f->dispatch = py_frame_is_interpreter(strtab__str(p->names, f->name),
						      f->object != PROFILE_NONE
							      ? strtab__str(p->names, f->object)
							      : NULL)
				      ? DISPATCH_YES
				      : DISPATCH_NO;
	return f->dispatch == DISPATCH_YES;
}

/*
 * @s with the interp twins of its dispatch frames, in the profile's scratch
 * (@out's frames), when it has Python frames; else @s. NULL when out of
 * memory.
 */
static const struct sample *with_interp_frames(struct profile *p, const struct sample *s,
					       struct sample *out)
{
	uint32_t i = 1;

	while (i < s->n && p->frames[s->frames[i]].kind != FRAME_PYTHON)
		i++;
	if (i == s->n)
		return s;
	if (array__grow((void **)&p->scratch, &p->scratch_cap, s->n, sizeof(*p->scratch), 256))
		return NULL;
	for (i = 0; i < s->n; i++) {
		const struct frame *f = &p->frames[s->frames[i]];

		p->scratch[i] = s->frames[i];
		if (f->kind == FRAME_USER && !f->interp && is_dispatch(p, s->frames[i]))
			p->scratch[i] = intern_frame(p, f->name, f->object, FRAME_USER, f->named, true);
		if (p->scratch[i] == PROFILE_NONE)
			return NULL;
	}
	*out = *s;
	out->frames = p->scratch;
	return out;
}

int profile__add(struct profile *p, const struct sample *s)
{
	struct stack_entry *e;
	struct sample twins;

	if (s->n == 0 || s->frames[0] >= p->nframes || p->frames[s->frames[0]].kind != FRAME_PROCESS)
		return -EINVAL;
	for (uint32_t i = 1; i < s->n; i++) {
		if (s->frames[i] >= p->nframes)
			return -EINVAL;
	}
	s = with_interp_frames(p, s, &twins);
	if (!s)
		return -ENOMEM;
	e = stack_of(p, s);
	if (!e)
		return -ENOMEM;
	add_counts(p, e, s->count, s->count);
	if (s->sites && p->addrs)
		addr_counts__add(p->addrs, s->frames, s->sites, s->n,
				 s->leaf_exact ? s->n - 1 : s->n, s->count);
	return 0;
}

bool profile__saturated(const struct profile *p)
{
	return p->saturated;
}

void profile__close_interval(struct profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		p->stacks[i].recent = p->stacks[i].open;
		p->stacks[i].open = 0;
	}
	p->recent = p->open;
	p->open = 0;
}

/* Frees the chunks from @c on, older and older; returns the bytes they took. */
static size_t free_chunk_list(struct frames_chunk *c)
{
	size_t bytes = 0;

	while (c) {
		struct frames_chunk *next = c->next;

		bytes += sizeof(*c) + c->size * sizeof(uint32_t);
		free(c);
		c = next;
	}
	return bytes;
}

/* Frees the chunks older than @keep (all of them for NULL). */
static void free_chunks(struct profile *p, struct frames_chunk *keep)
{
	p->chunk_bytes -= free_chunk_list(keep ? keep->next : p->chunks);
	if (keep)
		keep->next = NULL;
	else
		p->chunks = NULL;
}

void profile__reset(struct profile *p)
{
	profile__thaw(p);
	hash_index__clear(&p->stack_index);
	p->nstacks = 0;
	p->nsorted = 0;
	free_chunks(p, p->chunks); /* the newest one is used again */
	if (p->chunks)
		p->chunks->used = 0;
	p->has_tgids = false;
	p->saturated = false;
	p->folded = 0;
	p->fold_base = 0;
	p->total = p->open = p->recent = 0;
	for (int g = 0; g < GROUP_NR; g++)
		p->ngrouped[g] = 0;
	if (p->addrs)
		addr_counts__reset(p->addrs);
}

int profile__freeze(struct profile *p)
{
	if (array__grow((void **)&p->frozen, &p->frozen_cap, p->nstacks, sizeof(*p->frozen), 256))
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++)
		p->frozen[i] = (struct frozen_counts){ p->stacks[i].total, p->stacks[i].recent };
	p->nfrozen = p->nstacks;
	p->frozen_total = p->total;
	p->frozen_recent = p->recent;
	p->is_frozen = true;
	if (p->addrs)
		addr_counts__freeze(p->addrs);
	return 0;
}

void profile__thaw(struct profile *p)
{
	p->is_frozen = false;
	if (p->addrs)
		addr_counts__thaw(p->addrs);
}

size_t profile__nstacks(const struct profile *p)
{
	return p->nstacks;
}

void profile__stack(const struct profile *p, size_t i, struct profile_stack *out)
{
	const struct stack_entry *e = &p->stacks[i];

	*out = (struct profile_stack){ .id = (uint32_t)i, .tgid = e->tgid, .tid = e->tid,
				       .frames = e->frames, .n = e->n, .kernel_at = e->kernel_at,
				       .total = e->total, .recent = e->recent };
	if (p->is_frozen) {
		out->total = i < p->nfrozen ? p->frozen[i].total : 0;
		out->recent = i < p->nfrozen ? p->frozen[i].recent : 0;
	}
}

bool profile__has_tgids(const struct profile *p)
{
	return p->has_tgids;
}

static uint64_t group_hash(uint32_t comm, int32_t tgid, int32_t tid)
{
	uint32_t w[3] = { comm, (uint32_t)tgid, (uint32_t)tid };

	return hash_words(w, 3, 0x51ED270B);
}

struct group_probe {
	const struct profile *p;
	const struct group_entry *want;
};

static bool same_group(const void *ctx, uint32_t i)
{
	const struct group_probe *gp = ctx;
	const struct group_entry *g = &gp->p->groups[i];

	return g->comm == gp->want->comm && g->tgid == gp->want->tgid && g->tid == gp->want->tid;
}

static uint64_t rehash_group(const void *ctx, uint32_t i)
{
	const struct profile *p = ctx;

	return group_hash(p->groups[i].comm, p->groups[i].tgid, p->groups[i].tid);
}

/* The frame of group @want ("comm [tgid]" or "comm [tgid/tid]"), made on first use. */
static uint32_t group_frame(struct profile *p, struct group_entry *want)
{
	struct group_probe probe = { p, want };
	uint64_t hash = group_hash(want->comm, want->tgid, want->tid);
	struct hash_slot *slot = hash_index__find(&p->group_index, hash, same_group, &probe);
	const char *comm = profile__frame_name(p, want->comm);
	char name[NAME_MAX_BYTES + 32];
	struct process_name pn;
	int len;

	if (slot->entry1)
		return p->groups[slot->entry1 - 1].frame;
	/* A comm that carries its ids already ("perl-4242", from a file) keeps only the comm. */
	process_name__parse(comm, strlen(comm), &pn);
	if (pn.tgid != want->tgid)
		pn.comm_len = strlen(comm);
	if (want->tid)
		len = snprintf(name, sizeof(name), "%.*s [%d/%d]", (int)pn.comm_len, comm,
			       want->tgid, want->tid);
	else
		len = snprintf(name, sizeof(name), "%.*s [%d]", (int)pn.comm_len, comm, want->tgid);
	if (len < 0 || (size_t)len >= sizeof(name) ||
	    array__grow((void **)&p->groups, &p->groups_cap, p->ngroups + 1, sizeof(*p->groups),
			64))
		return PROFILE_NONE;
	want->frame = profile__frame(p, name, (size_t)len, FRAME_PROCESS, true);
	if (want->frame == PROFILE_NONE ||
	    hash_index__insert(&p->group_index, hash, (uint32_t)p->ngroups, rehash_group, p))
		return PROFILE_NONE;
	p->groups[p->ngroups++] = *want;
	return want->frame;
}

/* The group frame of stack @e under @g (PROFILE_NONE when out of memory). */
static uint32_t stack_group_frame(struct profile *p, const struct stack_entry *e,
				  enum profile_group g)
{
	struct group_entry want = { .comm = e->frames[0], .tgid = e->tgid,
				    .tid = g == GROUP_TID ? e->tid : 0 };

	if (e->tgid == TGID_UNKNOWN)
		return want.comm;
	return group_frame(p, &want);
}

int profile__group(struct profile *p, enum profile_group g)
{
	if (g == GROUP_COMM)
		return 0;
	if (array__grow((void **)&p->group_of[g], &p->group_cap[g], p->nstacks,
			sizeof(*p->group_of[g]), 256))
		return -ENOMEM;
	for (; p->ngrouped[g] < p->nstacks; p->ngrouped[g]++) {
		uint32_t f = stack_group_frame(p, &p->stacks[p->ngrouped[g]], g);

		if (f == PROFILE_NONE)
			return -ENOMEM;
		p->group_of[g][p->ngrouped[g]] = f;
	}
	return 0;
}

uint32_t profile__stack_group(const struct profile *p, uint32_t id, enum profile_group g)
{
	if (g != GROUP_COMM && id < p->ngrouped[g])
		return p->group_of[g][id];
	return p->stacks[id].frames[0];
}

/* Stack @i as stack_sort sees it. */
static struct stack_key key_of(const struct profile *p, uint32_t i)
{
	const struct stack_entry *e = &p->stacks[i];

	return (struct stack_key){ e->frames, e->n, e->tgid, i };
}

/* Does stack @i come after @key in the sorted order? */
static bool comes_after(const struct profile *p, uint32_t i, const struct stack_key *key)
{
	struct stack_key k = key_of(p, i);

	return stack_key__compare(&k, key) > 0;
}

/*
 * How many stacks of the sorted @run[0, @n) come before @key, which is not
 * among them. Gallops down from the end, so a stack that belongs near the
 * end costs few comparisons.
 */
static size_t rank_in(const struct profile *p, const uint32_t *run, size_t n,
		      const struct stack_key *key)
{
	size_t lo, hi = n, step = 1;

	/* run[hi, n) comes after @key. */
	while (hi >= step && comes_after(p, run[hi - step], key)) {
		hi -= step;
		step *= 2;
	}
	/* run[0, lo) comes before @key. */
	lo = hi >= step ? hi - step + 1 : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (comes_after(p, run[mid], key))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Merges the sorted @fresh[0, @k) into the sorted order, which has room for
 * them, from the back: each stack of the order moves once.
 */
static void merge_sorted(struct profile *p, const struct stack_key *fresh, size_t k)
{
	size_t hi = p->nsorted;

	while (k > 0) {
		const struct stack_key *key = &fresh[--k];
		size_t at = rank_in(p, p->sorted, hi, key);

		memmove(p->sorted + at + k + 1, p->sorted + at, (hi - at) * sizeof(*p->sorted));
		p->sorted[at + k] = key->id;
		hi = at;
	}
	p->nsorted = p->nstacks;
}

int profile__sort(struct profile *p)
{
	size_t k = p->nstacks - p->nsorted;
	struct stack_key *fresh;

	if (!k)
		return 0;
	if (array__grow((void **)&p->sorted, &p->sorted_cap, p->nstacks, sizeof(*p->sorted), 256))
		return -ENOMEM;
	fresh = malloc(k * sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		fresh[i] = key_of(p, (uint32_t)(p->nsorted + i));
	if (stack_sort(fresh, k)) {
		free(fresh);
		return -ENOMEM;
	}
	merge_sorted(p, fresh, k);
	free(fresh);
	return 0;
}

/* The index of the stack at @rank. */
static size_t at_rank(const struct profile *p, size_t rank)
{
	return rank < p->nsorted ? p->sorted[rank] : rank;
}

/*
 * Sorted stacks lie all over memory. Walked in rank order, each would wait
 * for memory twice (its entry, then its frames), so the memory is asked
 * early: for the entry RANKS_AHEAD ranks on, and for the frames half as
 * far on, whose entry was asked for already. (Here, not in a helper: gcc
 * drops a call to a static function whose only effect is a prefetch.)
 */
#define RANKS_AHEAD 16
#define FRAMES_PER_LINE 16 /* 64-byte cache lines */

void profile__stack_sorted(const struct profile *p, size_t rank, struct profile_stack *out)
{
	if (rank + RANKS_AHEAD < p->nstacks) {
		const char *e = (const char *)&p->stacks[at_rank(p, rank + RANKS_AHEAD)];

		__builtin_prefetch(e);
		__builtin_prefetch(e + sizeof(struct stack_entry) - 1); /* it may span two lines */
	}
	if (rank + RANKS_AHEAD / 2 < p->nstacks) {
		const struct stack_entry *e = &p->stacks[at_rank(p, rank + RANKS_AHEAD / 2)];
		const uint32_t *frames = e->frames;

		for (uint32_t i = 0; i < e->n; i += FRAMES_PER_LINE)
			__builtin_prefetch(frames + i);
		__builtin_prefetch(frames + e->n - 1);
	}
	profile__stack(p, at_rank(p, rank), out);
}

size_t profile__nsorted(const struct profile *p)
{
	return p->nsorted;
}

/*
 * Moves each stack to its rank, in place (a second array would double the
 * profile's biggest part), its frozen counts with it when frozen:
 * @rank_of[i] is stack i's, and is spent.
 */
static void renumber(struct profile *p, uint32_t *rank_of)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		while (rank_of[i] != i) {
			uint32_t to = rank_of[i];
			struct stack_entry e = p->stacks[to];

			p->stacks[to] = p->stacks[i];
			p->stacks[i] = e;
			if (p->is_frozen) {
				struct frozen_counts f = p->frozen[to];

				p->frozen[to] = p->frozen[i];
				p->frozen[i] = f;
			}
			rank_of[i] = rank_of[to];
			rank_of[to] = to;
		}
	}
}

/* Frozen counts for every stack, none for those added since the freeze. */
static int freeze_all(struct profile *p)
{
	if (array__grow((void **)&p->frozen, &p->frozen_cap, p->nstacks, sizeof(*p->frozen), 256))
		return -ENOMEM;
	memset(p->frozen + p->nfrozen, 0, (p->nstacks - p->nfrozen) * sizeof(*p->frozen));
	p->nfrozen = p->nstacks;
	return 0;
}

int profile__pack(struct profile *p)
{
	size_t total = 0, used = 0;
	struct frames_chunk *c;
	uint32_t *rank_of;

	for (size_t i = 0; i < p->nstacks; i++)
		total += p->stacks[i].n;
	if (p->is_frozen && freeze_all(p))
		return -ENOMEM;
	c = malloc(sizeof(*c) + total * sizeof(uint32_t));
	rank_of = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*rank_of));
	if (!c || !rank_of) {
		free(c);
		free(rank_of);
		return -ENOMEM;
	}
	for (size_t rank = 0; rank < p->nstacks; rank++) {
		size_t i = at_rank(p, rank);
		struct stack_entry *e = &p->stacks[i];

		memcpy(c->ids + used, e->frames, e->n * sizeof(uint32_t));
		e->frames = c->ids + used;
		used += e->n;
		rank_of[i] = (uint32_t)rank;
	}
	free_chunks(p, NULL);
	*c = (struct frames_chunk){ .size = total, .used = total };
	p->chunks = c;
	p->chunk_bytes = sizeof(*c) + total * sizeof(uint32_t);
	/* The stacks are renumbered by rank: the index follows. */
	for (size_t i = 0; i <= p->stack_index.mask; i++) {
		struct hash_slot *slot = &p->stack_index.slots[i];

		if (slot->entry1)
			slot->entry1 = rank_of[slot->entry1 - 1] + 1;
	}
	renumber(p, rank_of);
	for (size_t rank = 0; rank < p->nsorted; rank++)
		p->sorted[rank] = (uint32_t)rank;
	for (int g = 0; g < GROUP_NR; g++)
		p->ngrouped[g] = 0; /* by the old numbers: profile__group() names them again */
	free(rank_of);
	return 0;
}

/*
 * Folding. A stack folds into the stack its fold level makes of it (see
 * folded_sample()); the stacks are laid out anew, each fold target once,
 * with the counts of every stack folded into it.
 */
enum fold_level {
	FOLD_KEEP,    /* as it is */
	FOLD_PROCESS, /* its process exited: the same stack of its command */
	FOLD_COMMAND, /* its command's "[other]" stack */
	FOLD_ALL,     /* the one stack "[other]" */
};

static const char other_name[] = "[other]";

/* The stacks of a profile, as profile__fold() takes them out to lay them out again. */
struct stack_set {
	struct frames_chunk *chunks;
	size_t chunk_bytes;
	struct stack_entry *stacks;
	size_t nstacks, stacks_cap;
	struct hash_index stack_index;
	struct frozen_counts *frozen;
	size_t nfrozen, frozen_cap;
};

/* Swaps the stacks of @p with those of @set. */
static void swap_stacks(struct profile *p, struct stack_set *set)
{
	struct stack_set mine = { p->chunks, p->chunk_bytes, p->stacks, p->nstacks,
				  p->stacks_cap, p->stack_index, p->frozen, p->nfrozen,
				  p->frozen_cap };

	p->chunks = set->chunks;
	p->chunk_bytes = set->chunk_bytes;
	p->stacks = set->stacks;
	p->nstacks = set->nstacks;
	p->stacks_cap = set->stacks_cap;
	p->stack_index = set->stack_index;
	p->frozen = set->frozen;
	p->nfrozen = set->nfrozen;
	p->frozen_cap = set->frozen_cap;
	*set = mine;
}

static void stack_set__free(struct stack_set *set)
{
	free_chunk_list(set->chunks);
	free(set->stacks);
	hash_index__free(&set->stack_index);
	free(set->frozen);
}

/*
 * The stack @e becomes at @level: its frames in @frames (room for two when
 * not FOLD_KEEP), in @s. @other and @other_process are the "[other]" frames.
 */
static void folded_sample(const struct stack_entry *e, enum fold_level level, uint32_t other,
			  uint32_t other_process, uint32_t *frames, struct sample *s)
{
	*s = (struct sample){ .tgid = e->tgid, .tid = e->tid, .frames = e->frames, .n = e->n };
	if (level >= FOLD_PROCESS) {
		s->tgid = TGID_UNKNOWN;
		s->tid = 0;
	}
	if (level == FOLD_COMMAND) {
		frames[0] = e->frames[0];
		frames[1] = other;
		s->frames = frames;
		s->n = 2;
	} else if (level == FOLD_ALL) {
		frames[0] = other_process;
		s->frames = frames;
		s->n = 1;
	}
}

/* Adds the counts of @from (frozen: @frozen, or NULL) to @to, the stack it folds into. */
static void merge_counts(struct profile *p, struct stack_entry *to, const struct stack_entry *from,
			 const struct frozen_counts *frozen)
{
	p->saturated |= add_saturating(&to->total, from->total);
	p->saturated |= add_saturating(&to->open, from->open);
	p->saturated |= add_saturating(&to->recent, from->recent);
	if (frozen) {
		struct frozen_counts *f = &p->frozen[to - p->stacks];

		p->saturated |= add_saturating(&f->total, frozen->total);
		p->saturated |= add_saturating(&f->recent, frozen->recent);
	}
}

/*
 * Lays the stacks of @old out again in @p (which has none), stack i folded
 * as @level[i] says, in the order they come; with @frozen, their frozen
 * counts too. 0 or -ENOMEM.
 */
static int refold_into(struct profile *p, const struct stack_set *old, const uint8_t *level,
		       bool frozen, uint32_t other, uint32_t other_process)
{
	for (size_t i = 0; i < old->nstacks; i++) {
		const struct stack_entry *from = &old->stacks[i];
		uint32_t frames[2];
		struct stack_entry *to;
		struct sample s;

		folded_sample(from, level[i], other, other_process, frames, &s);
		to = stack_of(p, &s);
		if (!to || (frozen && freeze_all(p)))
			return -ENOMEM;
		merge_counts(p, to, from, frozen && i < old->nfrozen ? &old->frozen[i] : NULL);
	}
	return 0;
}

/*
 * Folds the stacks of @p as @level says (one per stack). The profile's
 * totals and its frozen picture's stay as they are: every count moves with
 * its stack. 0, or -ENOMEM with the profile as it was.
 */
static int refold(struct profile *p, const uint8_t *level)
{
	uint32_t other = profile__frame(p, other_name, sizeof(other_name) - 1, FRAME_USER, false);
	uint32_t other_process =
		profile__frame(p, other_name, sizeof(other_name) - 1, FRAME_PROCESS, false);
	struct stack_set set = { 0 };
	size_t before = p->nstacks;

	if (other == PROFILE_NONE || other_process == PROFILE_NONE ||
	    hash_index__init(&set.stack_index, 1024))
		return -ENOMEM;
	swap_stacks(p, &set); /* @p holds no stack now, @set the old ones */
	if (refold_into(p, &set, level, p->is_frozen, other, other_process)) {
		swap_stacks(p, &set);
		stack_set__free(&set);
		return -ENOMEM;
	}
	stack_set__free(&set);
	p->folded += before - p->nstacks;
	p->nsorted = 0;
	for (int g = 0; g < GROUP_NR; g++)
		p->ngrouped[g] = 0;
	p->has_tgids = false;
	for (size_t i = 0; i < p->nstacks && !p->has_tgids; i++)
		p->has_tgids = p->stacks[i].tgid != TGID_UNKNOWN;
	return 0;
}

struct rank_key {
	uint64_t total;
	uint32_t id;
	bool active; /* counted in the open or the last interval */
};

/* Least worth keeping first: what is not active, then the least counted. */
static int by_worth(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;

	if (x->active != y->active)
		return x->active ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sets @level[i] to @to for the @k stacks least worth keeping (by_worth()). 0 or -ENOMEM. */
static int mark_least(const struct profile *p, uint8_t *level, size_t k, enum fold_level to)
{
	struct rank_key *keys = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack_entry *e = &p->stacks[i];

		keys[i] = (struct rank_key){ e->total, (uint32_t)i, e->open || e->recent };
	}
	if (p->nstacks > 1)
		qsort(keys, p->nstacks, sizeof(*keys), by_worth);
	for (size_t i = 0; i < k && i < p->nstacks; i++)
		level[keys[i].id] = (uint8_t)to;
	free(keys);
	return 0;
}

/* Marks FOLD_PROCESS the stacks of processes @gone says have exited; how many it marked. */
static size_t mark_gone(const struct profile *p, uint8_t *level, profile_gone_fn *gone, void *ctx)
{
	int32_t last = TGID_UNKNOWN;
	bool last_gone = false;
	size_t marked = 0;

	for (size_t i = 0; gone && i < p->nstacks; i++) {
		int32_t tgid = p->stacks[i].tgid;

		if (tgid == TGID_UNKNOWN)
			continue;
		if (tgid != last) {
			last = tgid;
			last_gone = gone(ctx, tgid);
		}
		if (last_gone) {
			level[i] = FOLD_PROCESS;
			marked++;
		}
	}
	return marked;
}

/* One step of profile__fold(): stacks of exited processes, then the least worth keeping. */
static int fold_step(struct profile *p, enum fold_level step, size_t target, profile_gone_fn *gone,
		     void *ctx)
{
	uint8_t *level = calloc(p->nstacks ? p->nstacks : 1, 1);
	int err = 0;

	if (!level)
		return -ENOMEM;
	if (step == FOLD_PROCESS) {
		if (!mark_gone(p, level, gone, ctx)) {
			free(level);
			return 0;
		}
	} else {
		/* Room for one [other] stack (one per command: the next step, if needed). */
		err = mark_least(p, level, p->nstacks - target + 1, step);
	}
	if (!err)
		err = refold(p, level);
	free(level);
	return err;
}

#define COMPACT_MIN_FRAMES (1u << 16) /* fewer frames are never worth renumbering */

/* Marks in @map (one per frame, zeroed) the frames some stack uses; how many. */
static size_t mark_used_frames(const struct profile *p, uint32_t *map)
{
	size_t used = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack_entry *e = &p->stacks[i];

		for (uint32_t k = 0; k < e->n; k++) {
			used += !map[e->frames[k]];
			map[e->frames[k]] = 1;
		}
	}
	return used;
}

/*
 * Interns into @names, @frames and @index the frames @map marks, in the
 * order of their ids, setting each one's @map entry to its new id and the
 * others' to PROFILE_NONE. 0 or -ENOMEM.
 */
static int copy_used_frames(const struct profile *p, uint32_t *map, struct strtab *names,
			    struct frame *frames, struct hash_index *index)
{
	uint32_t n = 0;

	for (size_t id = 0; id < p->nframes; id++) {
		const struct frame *f = &p->frames[id];
		struct frame *to = &frames[n];

		if (!map[id]) {
			map[id] = PROFILE_NONE;
			continue;
		}
		*to = *f;
		to->name = strtab__intern(names, strtab__str(p->names, f->name),
					  strtab__len(p->names, f->name));
		if (f->object != PROFILE_NONE)
			to->object = strtab__intern(names, strtab__str(p->names, f->object),
						    strtab__len(p->names, f->object));
		if (to->name == STRTAB_NONE || (f->object != PROFILE_NONE && to->object == STRTAB_NONE) ||
		    hash_index__insert(index, frame_hash(to->name, to->object, to->kind, to->interp), n,
				       rehash_frame, frames))
			return -ENOMEM;
		map[id] = n++;
	}
	return 0;
}

/*
 * The origins of the frames @map keeps, under their new ids, their strings
 * interned into @names: a new array (to free()) of @used, in *@out. 0 or
 * -ENOMEM.
 */
static int copy_origins(const struct profile *p, const uint32_t *map, size_t used,
			struct strtab *names, struct origin **out)
{
	struct origin *to;

	*out = NULL;
	if (!p->norigins)
		return 0;
	to = malloc((used ? used : 1) * sizeof(*to));
	if (!to)
		return -ENOMEM;
	for (size_t i = 0; i < used; i++)
		to[i].file = PROFILE_NONE;
	for (size_t id = 0; id < p->norigins; id++) {
		const struct origin *o = &p->origins[id];
		struct origin *n = &to[map[id]];

		if (map[id] == PROFILE_NONE || o->file == PROFILE_NONE)
			continue;
		n->file = strtab__intern(names, strtab__str(p->names, o->file),
					 strtab__len(p->names, o->file));
		n->build_id = strtab__intern(names, strtab__str(p->names, o->build_id),
					     strtab__len(p->names, o->build_id));
		n->address = o->address;
		if (n->file == STRTAB_NONE || n->build_id == STRTAB_NONE) {
			free(to);
			return -ENOMEM;
		}
	}
	*out = to;
	return 0;
}

/*
 * Gives the stacks their frames' new ids from @map, and the index their new
 * hashes. Never fails: the index holds as many entries as before, in as
 * many slots.
 */
static void renumber_stacks(struct profile *p, const uint32_t *map)
{
	hash_index__clear(&p->stack_index);
	for (size_t i = 0; i < p->nstacks; i++) {
		struct stack_entry *e = &p->stacks[i];
		uint32_t *frames = (uint32_t *)e->frames; /* in a chunk of ours */
		struct sample s = { .tgid = e->tgid, .tid = e->tid, .frames = frames, .n = e->n };

		for (uint32_t k = 0; k < e->n; k++)
			frames[k] = map[frames[k]];
		e->hash = stack_hash(&s);
		hash_index__insert(&p->stack_index, e->hash, (uint32_t)i, rehash_stack, p);
	}
}

/* Forgets the groups (their frames are not used by any stack: compact_frames() drops them). */
static void forget_groups(struct profile *p)
{
	p->ngroups = 0;
	hash_index__clear(&p->group_index);
	for (int g = 0; g < GROUP_NR; g++)
		p->ngrouped[g] = 0;
}

/*
 * Drops the frames (and their names) no stack uses any more and renumbers
 * the others, once there are COMPACT_MIN_FRAMES frames and at least half
 * of them unused: after folds, the names of what was folded away would
 * otherwise stay for the rest of the session. Without the memory to, it
 * leaves the profile as it was.
 */
static void compact_frames(struct profile *p)
{
	uint32_t *map = p->nframes >= COMPACT_MIN_FRAMES ? calloc(p->nframes, sizeof(*map)) : NULL;
	struct hash_index index = { 0 };
	struct strtab *names = NULL;
	struct frame *frames = NULL;
	struct origin *origins = NULL;
	size_t used;

	if (!map)
		return;
	used = mark_used_frames(p, map);
	if (used * 2 > p->nframes || !(names = strtab__new()) ||
	    !(frames = malloc((used ? used : 1) * sizeof(*frames))) ||
	    hash_index__init(&index, used * 2 + 16) ||
	    copy_used_frames(p, map, names, frames, &index) ||
	    copy_origins(p, map, used, names, &origins)) {
		hash_index__free(&index);
		free(frames);
		strtab__free(names);
		free(map);
		return;
	}
	strtab__free(p->names);
	hash_index__free(&p->frame_index);
	free(p->frames);
	free(p->renumbered);
	free(p->origins);
	p->names = names;
	p->frame_index = index;
	p->frames = frames;
	p->frames_cap = used;
	p->origins = origins;
	p->norigins = p->origins_cap = origins ? used : 0;
	p->renumbered = map;
	p->nrenumbered = p->nframes;
	p->nframes = used;
	p->frames_gen++;
	p->nsorted = 0;
	forget_groups(p);
	renumber_stacks(p, map);
	if (p->addrs)
		addr_counts__renumber_frames(p->addrs, map, p->nrenumbered);
}

long profile__fold(struct profile *p, size_t max_stacks, profile_gone_fn *gone, void *ctx)
{
	size_t target = max_stacks - max_stacks / 4, before = p->nstacks;
	enum fold_level last = FOLD_ALL;

	if (!max_stacks)
		return 0;
	if (p->addrs) /* without the memory to, its sites stay as they were */
		addr_counts__fold(p->addrs, max_stacks);
	if (p->nstacks <= max_stacks) {
		/* Within the limit: exited processes only, each time a quarter more came. */
		if (p->nstacks < p->fold_base + max_stacks / 4)
			return 0;
		last = FOLD_PROCESS;
		target = 0;
	}
	for (enum fold_level step = FOLD_PROCESS; step <= last && p->nstacks > target; step++) {
		int err = fold_step(p, step, target, gone, ctx);

		if (err)
			return err;
	}
	p->fold_base = p->nstacks;
	if (p->nstacks < before) /* only a fold leaves frames unused */
		compact_frames(p);
	return (long)(before - p->nstacks);
}

uint64_t profile__frames_gen(const struct profile *p)
{
	return p->frames_gen;
}

uint32_t profile__renumbered(const struct profile *p, uint32_t id)
{
	return id < p->nrenumbered ? p->renumbered[id] : PROFILE_NONE;
}

uint64_t profile__folded(const struct profile *p)
{
	return p->folded;
}

uint64_t profile__total(const struct profile *p, enum profile_window window)
{
	if (p->is_frozen)
		return window == WINDOW_RECENT ? p->frozen_recent : p->frozen_total;
	return window == WINDOW_RECENT ? p->recent : p->total;
}

size_t profile__bytes(const struct profile *p)
{
	return sizeof(*p) + strtab__bytes(p->names) + p->frames_cap * sizeof(*p->frames) +
	       p->origins_cap * sizeof(*p->origins) +
	       p->chunk_bytes + p->stacks_cap * sizeof(*p->stacks) +
	       p->sorted_cap * sizeof(*p->sorted) + p->frozen_cap * sizeof(*p->frozen) +
	       (p->group_cap[GROUP_PID] + p->group_cap[GROUP_TID]) * sizeof(uint32_t) +
	       p->groups_cap * sizeof(*p->groups) + p->nrenumbered * sizeof(*p->renumbered) +
	       (p->frame_index.mask + 1 + p->stack_index.mask + 1 + p->group_index.mask + 1) *
		       sizeof(struct hash_slot) +
	       (p->addrs ? addr_counts__bytes(p->addrs) : 0);
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	strtab__free(p->names);
	hash_index__free(&p->frame_index);
	hash_index__free(&p->stack_index);
	hash_index__free(&p->group_index);
	for (int g = 0; g < GROUP_NR; g++)
		free(p->group_of[g]);
	free(p->groups);
	free(p->frozen);
	free(p->frames);
	free(p->origins);
	free_chunks(p, NULL);
	free(p->stacks);
	free(p->sorted);
	free(p->renumbered);
	addr_counts__free(p->addrs);
	free(p->scratch);
	free(p);
}
