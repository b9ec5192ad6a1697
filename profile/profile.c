// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/hash_index.h"
#include "profile/profile.h"
#include "profile/strtab.h"

struct stack_entry {
	uint64_t hash;
	size_t frames; /* offset into profile.arena */
	uint32_t n;
	int32_t tgid;
	uint64_t total, open, recent; /* cumulative; the open interval; the last closed one */
};

struct profile {
	struct strtab *names;

	struct frame *frames;
	size_t nframes, frames_cap;
	struct hash_index frame_index;

	uint32_t *arena; /* the frame ids of every stack, back to back */
	size_t arena_len, arena_cap;
	struct stack_entry *stacks;
	size_t nstacks, stacks_cap;
	struct hash_index stack_index;

	uint64_t total, open, recent;
};

struct profile *profile__new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->names = strtab__new();
	if (!p->names || hash_index__init(&p->frame_index, 1024) ||
	    hash_index__init(&p->stack_index, 1024)) {
		profile__free(p);
		return NULL;
	}
	return p;
}

static uint64_t frame_hash(uint32_t name, uint8_t kind)
{
	uint32_t w[2] = { name, kind };

	return hash_words(w, 2, 0);
}

struct frame_probe {
	const struct profile *p;
	uint32_t name;
	uint8_t kind;
};

static bool same_frame(const void *ctx, uint32_t id)
{
	const struct frame_probe *fp = ctx;
	const struct frame *f = &fp->p->frames[id];

	return f->name == fp->name && f->kind == fp->kind;
}

static uint64_t rehash_frame(const void *ctx, uint32_t id)
{
	const struct profile *p = ctx;

	return frame_hash(p->frames[id].name, p->frames[id].kind);
}

uint32_t profile__frame(struct profile *p, const char *name, size_t len, enum frame_kind kind,
			bool named)
{
	struct frame_probe probe = { p, strtab__intern(p->names, name, len), kind };
	uint64_t hash;
	struct hash_slot *slot;

	if (probe.name == STRTAB_NONE)
		return PROFILE_NONE;
	hash = frame_hash(probe.name, kind);
	slot = hash_index__find(&p->frame_index, hash, same_frame, &probe);
	if (slot->entry1)
		return slot->entry1 - 1;
	if (array__grow((void **)&p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames),
			256))
		return PROFILE_NONE;
	p->frames[p->nframes] = (struct frame){ .name = probe.name, .kind = kind, .named = named };
	if (hash_index__insert(&p->frame_index, hash, p->nframes, rehash_frame, p))
		return PROFILE_NONE;
	return p->nframes++;
}

const struct frame *profile__frame_info(const struct profile *p, uint32_t id)
{
	return &p->frames[id];
}

const char *profile__frame_name(const struct profile *p, uint32_t id)
{
	return strtab__str(p->names, p->frames[id].name);
}

static uint64_t stack_hash(const struct sample *s)
{
	return hash_words(s->frames, s->n, (uint32_t)s->tgid);
}

struct stack_probe {
	const struct profile *p;
	const struct sample *s;
};

static bool same_stack(const void *ctx, uint32_t i)
{
	const struct stack_probe *sp = ctx;
	const struct stack_entry *e = &sp->p->stacks[i];

	return e->tgid == sp->s->tgid && e->n == sp->s->n &&
	       memcmp(sp->p->arena + e->frames, sp->s->frames, e->n * sizeof(uint32_t)) == 0;
}

static uint64_t rehash_stack(const void *ctx, uint32_t i)
{
	const struct profile *p = ctx;

	return p->stacks[i].hash;
}

static int store_stack(struct profile *p, const struct sample *s, uint64_t hash)
{
	struct stack_entry *e;

	if (array__grow((void **)&p->arena, &p->arena_cap, p->arena_len + s->n, sizeof(uint32_t),
			256) ||
	    array__grow((void **)&p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(*p->stacks),
			256))
		return -ENOMEM;
	e = &p->stacks[p->nstacks];
	*e = (struct stack_entry){ .hash = hash, .frames = p->arena_len, .n = s->n,
				   .tgid = s->tgid };
	memcpy(p->arena + p->arena_len, s->frames, s->n * sizeof(uint32_t));
	if (hash_index__insert(&p->stack_index, hash, p->nstacks, rehash_stack, p))
		return -ENOMEM;
	p->arena_len += s->n;
	p->nstacks++;
	return 0;
}

int profile__add(struct profile *p, const struct sample *s)
{
	struct stack_probe probe = { p, s };
	struct stack_entry *e;
	struct hash_slot *slot;
	uint64_t hash;

	if (s->n == 0 || s->frames[0] >= p->nframes || p->frames[s->frames[0]].kind != FRAME_PROCESS)
		return -EINVAL;
	for (uint32_t i = 1; i < s->n; i++) {
		if (s->frames[i] >= p->nframes)
			return -EINVAL;
	}
	hash = stack_hash(s);
	slot = hash_index__find(&p->stack_index, hash, same_stack, &probe);
	if (slot->entry1) {
		e = &p->stacks[slot->entry1 - 1];
	} else {
		if (store_stack(p, s, hash))
			return -ENOMEM;
		e = &p->stacks[p->nstacks - 1];
	}
	e->total += s->count;
	e->open += s->count;
	p->total += s->count;
	p->open += s->count;
	return 0;
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

void profile__reset(struct profile *p)
{
	hash_index__clear(&p->stack_index);
	p->nstacks = 0;
	p->arena_len = 0;
	p->total = p->open = p->recent = 0;
}

size_t profile__nstacks(const struct profile *p)
{
	return p->nstacks;
}

void profile__stack(const struct profile *p, size_t i, struct profile_stack *out)
{
	const struct stack_entry *e = &p->stacks[i];

	*out = (struct profile_stack){ .tgid = e->tgid, .frames = p->arena + e->frames, .n = e->n,
				       .total = e->total, .recent = e->recent };
}

uint64_t profile__total(const struct profile *p, enum profile_window window)
{
	return window == WINDOW_RECENT ? p->recent : p->total;
}

size_t profile__bytes(const struct profile *p)
{
	return sizeof(*p) + strtab__bytes(p->names) + p->frames_cap * sizeof(*p->frames) +
	       p->arena_cap * sizeof(uint32_t) + p->stacks_cap * sizeof(*p->stacks) +
	       (p->frame_index.mask + 1 + p->stack_index.mask + 1) * sizeof(struct hash_slot);
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	strtab__free(p->names);
	hash_index__free(&p->frame_index);
	hash_index__free(&p->stack_index);
	free(p->frames);
	free(p->arena);
	free(p->stacks);
	free(p);
}
