// SPDX-License-Identifier: GPL-2.0
/*
 * python_frames: named Python frames in a hash index over an array, as
 * the name cache keeps native ones; the role of each native frame id for
 * the merge (eval loop, trampoline, other), decided once per frame id.
 */
#include "live/python_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/addr_counts.h"
#include "profile/hash_index.h"
#include "python/code_name.h"
#include "python/merge.h"

#define MAX_NAMES (1u << 18) /* named frames kept; beyond, the cache starts over */

/* A named Python frame: what the walk recorded -> the profile's frame id. */
struct py_name {
	uint64_t code, word;
	uint32_t tgid, gen;
	uint32_t frame;
	uint32_t drain; /* a placeholder's drain: good only within it */
	bool named;
};

enum { ROLE_UNKNOWN = 0xff };

struct python_frames {
	struct python_procs *pp;
	struct profile *prof;
	uint64_t frames_gen; /* the profile's numbering of frames the ids are of */
	uint32_t drain;
	struct py_name *names;
	size_t nnames, names_cap;
	struct hash_index index;
	uint8_t *roles; /* per native frame id: enum py_native_role, or ROLE_UNKNOWN */
	size_t roles_cap;
};

struct python_frames *python_frames__new(struct python_procs *pp, struct profile *prof)
{
	struct python_frames *pf = calloc(1, sizeof(*pf));

	if (!pf || hash_index__init(&pf->index, 1024)) {
		free(pf);
		return NULL;
	}
	pf->pp = pp;
	pf->prof = prof;
	pf->frames_gen = profile__frames_gen(prof);
	return pf;
}

/* Forgets every frame id held. */
static void forget(struct python_frames *pf)
{
	hash_index__clear(&pf->index);
	pf->nnames = 0;
	if (pf->roles)
		memset(pf->roles, ROLE_UNKNOWN, pf->roles_cap);
	pf->frames_gen = profile__frames_gen(pf->prof);
}

void python_frames__begin_drain(struct python_frames *pf)
{
	if (profile__frames_gen(pf->prof) != pf->frames_gen || pf->nnames > MAX_NAMES)
		forget(pf);
	pf->drain++;
}

static uint64_t name_hash(uint32_t tgid, uint32_t gen, uint64_t code, uint64_t word)
{
	uint32_t w[6] = { tgid, gen, (uint32_t)code, (uint32_t)(code >> 32), (uint32_t)word,
			  (uint32_t)(word >> 32) };

	return hash_words(w, 6, 0);
}

struct name_probe {
	const struct python_frames *pf;
	const struct py_name *key;
};

static bool same_name(const void *ctx, uint32_t i)
{
	const struct name_probe *p = ctx;
	const struct py_name *a = &p->pf->names[i], *b = p->key;

	return a->code == b->code && a->word == b->word && a->tgid == b->tgid && a->gen == b->gen;
}

static uint64_t rehash_name(const void *ctx, uint32_t i)
{
	const struct py_name *e = &((const struct python_frames *)ctx)->names[i];

	return name_hash(e->tgid, e->gen, e->code, e->word);
}

/* Names @e now, in this drain. */
static void resolve(struct python_frames *pf, struct py_name *e)
{
	char buf[PY_FRAME_NAME_MAX];
	int status = python_procs__name(pf->pp, e->tgid, e->code, e->word, buf, sizeof(buf));

	e->named = status == PY_NAMED;
	e->frame = profile__frame(pf->prof, buf, strlen(buf), FRAME_PYTHON, e->named);
	e->drain = pf->drain;
}

/* The frame id of Python frame (@code, @word) of @tgid, from the cache or named now. */
static uint32_t python_frame(struct python_frames *pf, uint32_t tgid, uint32_t gen, uint64_t code,
			     uint64_t word)
{
	struct py_name key = { .code = code, .word = word & ~(uint64_t)PY_ENTRY, .tgid = tgid,
			       .gen = gen };
	struct name_probe probe = { pf, &key };
	uint64_t hash = name_hash(tgid, gen, key.code, key.word);
	struct hash_slot *slot = hash_index__find(&pf->index, hash, same_name, &probe);
	struct py_name *e;

	if (slot->entry1) {
		e = &pf->names[slot->entry1 - 1];
		if (!e->named && e->drain != pf->drain)
			resolve(pf, e);
		return e->frame;
	}
	if (array__grow((void **)&pf->names, &pf->names_cap, pf->nnames + 1, sizeof(*pf->names),
			1024)) {
		resolve(pf, &key); /* named, not kept */
		return key.frame;
	}
	e = &pf->names[pf->nnames];
	*e = key;
	resolve(pf, e);
	if (!hash_index__insert(&pf->index, hash, (uint32_t)pf->nnames, rehash_name, pf))
		pf->nnames++;
	return e->frame;
}

/* The merge's role of native frame @f, decided once per frame id. */
static uint8_t role_of(struct python_frames *pf, uint32_t f)
{
	size_t cap = pf->roles_cap;

	if (f >= cap) {
		if (array__grow((void **)&pf->roles, &pf->roles_cap, (size_t)f + 1, 1, 1024))
			return (uint8_t)py_native_role(profile__frame_name(pf->prof, f));
		memset(pf->roles + cap, ROLE_UNKNOWN, pf->roles_cap - cap);
	}
	if (pf->roles[f] == ROLE_UNKNOWN)
		pf->roles[f] = (uint8_t)py_native_role(profile__frame_name(pf->prof, f));
	return pf->roles[f];
}

/* The frame saying how the Python walk ended short, or PROFILE_NONE. */
static uint32_t cut_frame(struct python_frames *pf, uint32_t end)
{
	char buf[64];
	const char *why = py_end__name(end);

	if (end == PY_END_WHOLE || !why)
		return PROFILE_NONE;
	snprintf(buf, sizeof(buf), "[python: %s]", why);
	return profile__frame(pf->prof, buf, strlen(buf), FRAME_PYTHON, false);
}

uint32_t python_frames__merge(struct python_frames *pf, const struct capture_stack *st,
			      uint32_t *frames, uint32_t *sites, uint32_t n, bool native_cut)
{
	uint32_t gen = python_procs__gen(pf->pp, st->tgid), npy = 0, cut, nout;
	uint32_t py[PYTHON_FRAMES_MAX], native[PYTHON_NATIVE_MAX], native_sites[PYTHON_NATIVE_MAX];
	uint8_t roles[PYTHON_NATIVE_MAX];
	bool entry[PYTHON_FRAMES_MAX];
	struct py_merge_out out[PYTHON_NATIVE_MAX + PYTHON_FRAMES_MAX];
	struct py_merge_in in;

	if (st->pyerr || !st->npy || !gen || n > PYTHON_NATIVE_MAX)
		return n;
	cut = cut_frame(pf, st->pyend);
	if (cut != PROFILE_NONE) { /* the outermost, a run of its own */
		py[npy] = cut;
		entry[npy++] = true;
	}
	/* The walk recorded them leaf first. */
	for (uint32_t w = st->npy / PY_WORDS_PER_FRAME; w-- > 0 && npy < PYTHON_FRAMES_MAX;) {
		uint64_t code = st->pywords[w * PY_WORDS_PER_FRAME],
			 word = st->pywords[w * PY_WORDS_PER_FRAME + 1];

		py[npy] = python_frame(pf, st->tgid, gen, code, word);
		entry[npy++] = (word & PY_ENTRY) != 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		native[i] = frames[i];
		native_sites[i] = sites[i];
		roles[i] = role_of(pf, frames[i]);
	}
	in = (struct py_merge_in){ .roles = roles, .nnative = n, .native_cut = native_cut,
				   .entry = entry, .npy = npy, .py_cut = cut != PROFILE_NONE };
	nout = py_merge(&in, out);
	for (uint32_t i = 0; i < nout; i++) {
		frames[i] = out[i].python ? py[out[i].index] : native[out[i].index];
		sites[i] = out[i].python ? ADDR_NONE : native_sites[out[i].index];
	}
	return nout;
}

void python_frames__free(struct python_frames *pf)
{
	if (!pf)
		return;
	hash_index__free(&pf->index);
	free(pf->names);
	free(pf->roles);
	free(pf);
}
