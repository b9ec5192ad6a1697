// SPDX-License-Identifier: GPL-2.0
/*
 * stack_table.c: an append-only arena of frames, an index by hash, and
 * epochs that a sweep ends. See stack_table.h.
 */
#include "bpf/stack_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/*
 * A stack entry that holds a copied user stack (struct sent_cold), as
 * words: its registers, the copy's start and length (and cut flag), the
 * frames found and how many rules found, then the frames, then the bytes.
 */
#define STACK_COPIED 0xffff
enum { COPY_IP, COPY_SP, COPY_BP, COPY_BASE, COPY_LEN, COPY_NR, COPY_HEAD };
#define COPY_CUT (1ull << 32)

/*
 * Words the arena keeps room for once emptied: an epoch's copies and as
 * many frames. Under process churn an epoch's copies fill it again (a
 * smaller arena was grown again each epoch, its pages faulted in anew:
 * ~5% of flametop's CPU); an idle flametop never grows it that far.
 */
#define TABLE_KEEP (TABLE_COPIED_MAX + 64 * 1024)

int stack_table__init(struct stack_table *t)
{
	*t = (struct stack_table){ 0 };
	return hash_index__init(&t->index, 1024) ? -ENOMEM : 0;
}

#define STACK_ENTRY sizeof(struct stack_entry), offsetof(struct stack_entry, hash)

/* The entry of the stack with @hash, or NULL. */
static struct stack_entry *stack_table__find(const struct stack_table *t, uint64_t hash)
{
	uint32_t i = hash_index__find_key64(&t->index, hash, t->entries, STACK_ENTRY);

	return i != HASH_NONE ? &t->entries[i] : NULL;
}

/*
 * Room at the arena's end for a stack of @nr words with @hash, not known
 * yet, entered in the table: its words to fill, or NULL when out of
 * memory.
 */
static uint64_t *stack_table__append(struct stack_table *t, uint64_t hash, uint32_t nr,
				     uint16_t end)
{
	uint64_t *words;

	if (array__grow((void **)&t->arena, &t->arena_cap, t->arena_len + nr, sizeof(uint64_t),
			4096) ||
	    array__grow((void **)&t->entries, &t->cap, t->n + 1, sizeof(*t->entries), 256) ||
	    hash_index__insert_key64(&t->index, hash, t->n, t->entries, STACK_ENTRY))
		return NULL;
	words = t->arena + t->arena_len;
	t->entries[t->n++] = (struct stack_entry){ .hash = hash, .off = t->arena_len, .nr = nr,
						   .epoch = t->epoch, .end = end };
	t->arena_len += nr;
	t->current++;
	return words;
}

/* Marks the stack of @hash sent in this epoch; false when it is not known. */
static bool stack_table__sent_again(struct stack_table *t, uint64_t hash)
{
	struct stack_entry *e = stack_table__find(t, hash);

	if (!e)
		return false;
	t->current += e->epoch != t->epoch;
	e->epoch = t->epoch;
	return true;
}

int stack_table__add(struct stack_table *t, uint64_t hash, const uint64_t *ips, uint32_t nr,
		     uint16_t end)
{
	uint64_t *words;

	if (stack_table__sent_again(t, hash))
		return 0;
	words = stack_table__append(t, hash, nr, end);
	if (!words)
		return -ENOMEM;
	memcpy(words, ips, nr * sizeof(uint64_t));
	return 0;
}

void stack_table__new_epoch(struct stack_table *t)
{
	t->epoch++;
	t->current = 0;
	t->copied = 0;
	t->sweep = true;
}

void stack_table__keep(struct stack_table *t, uint64_t hash)
{
	struct stack_entry *e = stack_table__find(t, hash);

	if (e && e->epoch != t->epoch) {
		e->epoch = t->epoch;
		t->current++;
	}
}

void stack_table__sweep(struct stack_table *t)
{
	size_t kept = 0, len = 0;

	hash_index__clear(&t->index);
	for (size_t i = 0; i < t->n; i++) {
		struct stack_entry e = t->entries[i];

		if (e.epoch != t->epoch)
			continue;
		memmove(t->arena + len, t->arena + e.off, e.nr * sizeof(uint64_t));
		e.off = len;
		len += e.nr;
		t->entries[kept] = e;
		/* No growth: the index held all of them. */
		hash_index__insert_key64(&t->index, e.hash, kept++, t->entries, STACK_ENTRY);
	}
	t->n = kept;
	t->arena_len = len;
	t->sweep = false;
	if (t->arena_cap > TABLE_KEEP && len * 4 < t->arena_cap) {
		size_t cap = len > TABLE_KEEP ? len : TABLE_KEEP;
		uint64_t *arena = realloc(t->arena, cap * sizeof(uint64_t));

		if (arena) {
			t->arena = arena;
			t->arena_cap = cap;
		}
	}
}

void stack_table__free(struct stack_table *t)
{
	hash_index__free(&t->index);
	free(t->entries);
	free(t->arena);
}

/* Writes copy @c's words (a STACK_COPIED entry's) to @words: @nr frames, @len bytes. */
static void copy_words(uint64_t *words, const struct sent_cold *c, uint32_t nr, uint32_t len)
{
	words[COPY_IP] = c->ip;
	words[COPY_SP] = c->sp;
	words[COPY_BP] = c->bp;
	words[COPY_BASE] = c->base;
	words[COPY_LEN] = len | (c->cut ? COPY_CUT : 0);
	words[COPY_NR] = nr | (uint64_t)c->trusted << 32;
	memcpy(words + COPY_HEAD, c->ips, nr * sizeof(uint64_t));
	memcpy(words + COPY_HEAD + nr, c->bytes, len);
}

void stack_table__add_copy(struct stack_table *t, const struct sent_cold *c, size_t size)
{
	uint32_t len = c->len, nr = c->nr, words_nr = COPY_HEAD + nr + len / sizeof(uint64_t);
	uint64_t *words;

	if (len > sizeof(c->bytes) || len % sizeof(uint64_t) || size < SENT_COLD_HEAD + len ||
	    c->sp < c->base || c->sp - c->base > len || !nr || nr > MAX_STACK_DEPTH ||
	    c->trusted > nr)
		return; /* never: the BPF side sends whole pages from sp's, and a frame at least */
	if (!stack_table__sent_again(t, c->hash)) {
		words = stack_table__append(t, c->hash, words_nr, STACK_COPIED);
		if (!words)
			return;
		copy_words(words, c, nr, len); /* in place: no copy of 16 KiB on the stack first */
	}
	t->copied += words_nr;
}

/* Resolves one side of a key: its frames and how its walk ended, or why it has none. */
static void resolve_side(const struct stack_table *t, uint64_t hash, int32_t err,
			 const uint64_t **ips, uint32_t *nr, int32_t *why, uint32_t *end)
{
	const struct stack_entry *e = err ? NULL : stack_table__find(t, hash);

	*why = err ? err : e ? 0 : -ENOENT;
	*ips = e ? t->arena + e->off : NULL;
	*nr = e ? e->nr : 0;
	*end = e ? e->end : UNWIND_WHOLE;
}

/* Turns the user side of @st, a copy's words (STACK_COPIED), into st->ucopy. */
static void take_copy(struct capture_stack *st)
{
	const uint64_t *w = st->uips;
	uint32_t len = (uint32_t)w[COPY_LEN], skip = (uint32_t)(w[COPY_SP] - w[COPY_BASE]);
	uint32_t nr = (uint32_t)w[COPY_NR];

	st->ucopy = (struct stack_copy){ .ip = w[COPY_IP], .sp = w[COPY_SP], .bp = w[COPY_BP],
					 .found = w + COPY_HEAD, .nfound = nr,
					 .trusted = (uint32_t)(w[COPY_NR] >> 32),
					 .bytes = (const uint8_t *)(w + COPY_HEAD + nr) + skip,
					 .len = len - skip, .cut = (w[COPY_LEN] & COPY_CUT) != 0 };
	st->uips = NULL;
	st->nu = 0;
	st->uend = UNWIND_NOT_LOADED;
}

void stack_table__stack(struct stack_table *t, const struct stack_key *k,
			const struct stack_value *v, struct capture_stack *st)
{
	uint32_t kend; /* always whole */

	*st = (struct capture_stack){ .tgid = k->tgid, .pid = k->pid, .count = v->count,
				      .weight = v->weight };
	memcpy(st->comm, k->comm, COMM_LEN);
	st->comm[COMM_LEN] = '\0';
	resolve_side(t, k->kstack, k->kerr, &st->kips, &st->nk, &st->kerr, &kend);
	resolve_side(t, k->ustack, k->uerr, &st->uips, &st->nu, &st->uerr, &st->uend);
	if (st->uend == STACK_COPIED) {
		struct stack_entry *e = stack_table__find(t, k->ustack);

		take_copy(st);
		st->ucopy_new = !e->drained;
		e->drained = true;
	}
	resolve_side(t, k->pystack, k->pyerr, &st->pywords, &st->npy, &st->pyerr, &st->pyend);
	st->khash = k->kstack;
	st->uhash = k->ustack;
}
