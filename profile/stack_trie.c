// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/process_name.h"
#include "profile/stack_trie.h"
#include "profile/text_match.h"

#define TRIE_LAZY (UINT32_MAX - 1) /* trie_node.children: not made yet */
#define NO_GROUP UINT32_MAX	   /* a stack that ends at the node being expanded */
#define STACKS_AHEAD 16		   /* how far group_stacks() asks for frames ahead */
#define RADIX_MIN 64		   /* fewer children are sorted by comparisons */

/* Bits of stack_trie.marks, per frame id. */
enum frame_mark {
	MARK_HIDDEN = 1 << 0, /* not shown (kernel/user visibility) */
	MARK_TEXT = 1 << 1,   /* its name contains the filter's text */
	MARK_COMM = 1 << 2,   /* a process frame with the filter's comm */
};

/* The children of a node while they are made: one per frame that follows it. */
struct trie_group {
	uint32_t frame;
	uint32_t start, n; /* its stacks: stacks[start, start + n) once grouped */
	uint32_t last;	   /* its place among its siblings in the last build, or NO_RANK */
	uint64_t total, self;
};

#define NO_RANK UINT32_MAX

/* A node of the last build (stack_trie__keep_order()). */
struct trie_rank {
	uint64_t key;  /* its path's: stack_trie__path_key() */
	uint32_t rank; /* its place among its siblings */
};

int stack_trie__init(struct stack_trie *t)
{
	memset(t, 0, sizeof(*t));
	t->dir = 1;
	return 0;
}

void stack_trie__free(struct stack_trie *t)
{
	free(t->nodes);
	free(t->stacks);
	free(t->marks);
	free(t->groups);
	free(t->sorted);
	free(t->group_of);
	free(t->stamp_of);
	free(t->keys);
	free(t->spare);
	free(t->ranks);
	hash_index__free(&t->rank_index);
	memset(t, 0, sizeof(*t));
}

void stack_trie__keep_order(struct stack_trie *t, uint64_t (*shown_unit)(uint64_t count))
{
	t->keep_order = true;
	t->shown_unit = shown_unit;
}

int stack_trie__error(const struct stack_trie *t)
{
	return t->err;
}

uint64_t stack_trie__self(const struct stack_trie *t, uint32_t node)
{
	return t->nodes[node].self;
}

uint32_t stack_trie__depth(const struct stack_trie *t, uint32_t node)
{
	return t->nodes[node].depth;
}

bool stack_trie__has_children(const struct stack_trie *t, uint32_t node)
{
	return t->nodes[node].total > t->nodes[node].self;
}

size_t stack_trie__nstacks(const struct stack_trie *t)
{
	return t->nstacks;
}

const struct trie_stack *stack_trie__stack(const struct stack_trie *t, size_t i)
{
	return &t->stacks[i];
}

bool stack_trie__shows(const struct stack_trie *t, uint32_t frame)
{
	return !t->hiding || !(t->marks[frame] & MARK_HIDDEN);
}

/*
 * Moves @s->next past the frames @t hides: to its next shown frame, or to
 * its end. Past its process, a stack of user then kernel frames skips
 * either part at once.
 */
static void skip_hidden(const struct stack_trie *t, struct trie_stack *s)
{
	if (!t->hiding)
		return;
	if (s->kernel_at != PROFILE_NONE && s->next > 0) {
		if (t->hide_user && s->next < s->kernel_at)
			s->next = s->kernel_at;
		if (t->hide_kernel && s->next >= s->kernel_at)
			s->next = s->n;
		return;
	}
	while (s->next < s->n && t->marks[trie_stack__frame(t, s, s->next)] & MARK_HIDDEN)
		s->next++;
}

/*
 * Each (depth, frame) step of a path stands for a 64-bit value, mixed from
 * both (the finalizer of splitmix64, one-to-one); a path's key is the xor
 * of its steps', so a step is added or taken away by the same xor.
 */
uint64_t path_key(uint64_t key, uint32_t depth, uint32_t frame)
{
	uint64_t h = (uint64_t)depth << 32 | frame;

	h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
	h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
	return key ^ h ^ (h >> 31);
}

uint64_t stack_trie__path_key(const struct stack_trie *t, uint32_t node)
{
	uint64_t key = PATH_KEY_ROOT;

	for (; node != TRIE_ROOT; node = t->nodes[node].parent)
		key = path_key(key, t->nodes[node].depth, t->nodes[node].frame);
	return key;
}

/*
 * Nodes whose order a build keeps for the next, at most: the first made,
 * those on screen (a tree expanded whole makes them all).
 */
#define RANKS_MAX 65536

/*
 * Records where each node made so far stands among its siblings, by its
 * path's key, for the next build (RANKS_MAX of them); when memory runs
 * short, nothing.
 */
static void remember_order(struct stack_trie *t)
{
	uint32_t n = t->n < RANKS_MAX ? (uint32_t)t->n : RANKS_MAX;

	t->nranks = 0;
	if (t->rank_index.slots)
		hash_index__clear(&t->rank_index);
	else if (hash_index__init(&t->rank_index, n))
		return;
	if (array__grow((void **)&t->ranks, &t->ranks_cap, n, sizeof(*t->ranks), 256))
		return;
	t->ranks[TRIE_ROOT] = (struct trie_rank){ PATH_KEY_ROOT, 0 };
	for (uint32_t i = 1; i < n; i++) {
		const struct trie_node *x = &t->nodes[i];
		uint64_t key = path_key(t->ranks[x->parent].key, x->depth, x->frame);

		/* A node's siblings are consecutive from its parent's first child. */
		t->ranks[i] = (struct trie_rank){ key, i - t->nodes[x->parent].children };
		if (hash_index__insert_key64(&t->rank_index, key, i, t->ranks, sizeof(*t->ranks),
					     offsetof(struct trie_rank, key))) {
			hash_index__clear(&t->rank_index);
			return;
		}
	}
	t->nranks = n;
}

/* Empties @t for a build of @p's stacks, @dir as trie_stack says. */
static void clear(struct stack_trie *t, const struct profile *p, int dir)
{
	if (t->keep_order && t->n > 1)
		remember_order(t);
	t->n = 0;
	t->nstacks = 0;
	t->max_depth = 0;
	t->err = 0;
	t->p = p;
	t->dir = dir;
	t->hiding = false;
}

/* Makes the root over every stack kept; 0 or -ENOMEM. */
static int add_root(struct stack_trie *t, uint64_t total, uint64_t self)
{
	if (array__grow((void **)&t->nodes, &t->cap, 1, sizeof(*t->nodes), 256))
		return -ENOMEM;
	t->nodes[TRIE_ROOT] = (struct trie_node){
	    .frame = PROFILE_NONE,
	    .parent = TRIE_NONE,
	    .next_sibling = TRIE_NONE,
	    .total = total,
	    .self = self,
	    .children = total > self ? TRIE_LAZY : TRIE_NONE,
	    .hi = (uint32_t)t->nstacks,
	};
	t->n = 1;
	return 0;
}

/* Makes room for @n stacks' group keys, and for regrouping them; 0 or -ENOMEM. */
static int reserve_scratch(struct stack_trie *t, size_t n)
{
	size_t nframes = profile__nframes(t->p);

	if (nframes > t->frames_cap) {
		uint32_t *g = realloc(t->group_of, nframes * sizeof(*g));
		uint32_t *s = g ? realloc(t->stamp_of, nframes * sizeof(*s)) : NULL;

		if (g)
			t->group_of = g;
		if (!s)
			return -ENOMEM;
		t->stamp_of = s;
		memset(s, 0, nframes * sizeof(*s));
		t->frames_cap = nframes;
		t->stamp = 0;
	}
	if (++t->stamp == 0) { /* wrapped: stamps of 0 mean "not seen" again */
		memset(t->stamp_of, 0, t->frames_cap * sizeof(*t->stamp_of));
		t->stamp = 1;
	}
	return array__grow((void **)&t->keys, &t->keys_cap, n, sizeof(*t->keys), 1024);
}

/* The group of @frame among @ngroups, made when it has none; NO_GROUP when out of memory. */
static uint32_t group_of(struct stack_trie *t, uint32_t frame, size_t *ngroups, uint32_t start,
			 bool *regroup)
{
	uint32_t g;

	if (t->stamp_of[frame] == t->stamp) {
		*regroup = true; /* its stacks are not all together */
		return t->group_of[frame];
	}
	if (array__grow((void **)&t->groups, &t->groups_cap, *ngroups + 1, sizeof(*t->groups), 64))
		return NO_GROUP;
	g = (uint32_t)(*ngroups)++;
	t->groups[g] = (struct trie_group){.frame = frame, .start = start};
	t->stamp_of[frame] = t->stamp;
	t->group_of[frame] = g;
	return g;
}

/*
 * Puts the stacks of a node, stacks[lo, hi), in order of their groups
 * (t->keys): those that end at the node first, then each group's, groups
 * in the order they were met. Sets each group's start. 0 or -ENOMEM.
 */
static int regroup(struct stack_trie *t, uint32_t lo, uint32_t hi, size_t ngroups)
{
	uint32_t at = hi, ends = lo;

	if (array__grow((void **)&t->spare, &t->spare_cap, hi - lo, sizeof(*t->spare), 1024))
		return -ENOMEM;
	for (size_t g = ngroups; g-- > 0;) { /* the last group ends at @hi */
		at -= t->groups[g].n;
		t->groups[g].start = at;
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t g = t->keys[i - lo];
		uint32_t to = g == NO_GROUP ? ends++ : t->groups[g].start++;

		t->spare[to - lo] = t->stacks[i];
	}
	for (size_t g = 0; g < ngroups; g++)
		t->groups[g].start -= t->groups[g].n;
	if (lo == 0 && hi == t->nstacks) { /* all of them (the root's): no copy back */
		struct trie_stack *stacks = t->stacks;
		size_t cap = t->stacks_cap;

		t->stacks = t->spare;
		t->stacks_cap = t->spare_cap;
		t->spare = stacks;
		t->spare_cap = cap;
	} else {
		memcpy(t->stacks + lo, t->spare, (hi - lo) * sizeof(*t->stacks));
	}
	return 0;
}

/*
 * Moves @s->next past its frame there and the hidden ones after, counting
 * @s in @g (and in its self, when @s ends there).
 */
static void count_in(const struct stack_trie *t, struct trie_stack *s, struct trie_group *g)
{
	g->n++;
	g->total = count__add(g->total, s->count);
	s->next++;
	skip_hidden(t, s);
	if (s->next == s->n)
		g->self = count__add(g->self, s->count);
}

/*
 * Groups the stacks of node @x, stacks[lo, hi), by the frame that follows
 * it in each (a stack's next shown frame), moving each stack's next past
 * that frame; stacks that end at @x go in no group. When the stacks of a
 * group are not all together (the profile was not sorted, or hidden frames
 * were skipped), they are put together. Returns the number of groups, or
 * -ENOMEM.
 */
static long group_stacks(struct stack_trie *t, const struct trie_node *x)
{
	uint32_t lo = x->lo, hi = x->hi, run = NO_GROUP;
	bool regrouped = false, grouping = false;
	size_t ngroups = 0;

	if (reserve_scratch(t, hi - lo))
		return -ENOMEM;
	for (uint32_t i = lo; i < hi; i++) {
		struct trie_stack *s = &t->stacks[i];
		uint32_t frame;

		/*
		 * The stacks of a node lie all over memory (the profile keeps them
		 * in the order they came): their frames are asked for early, so
		 * that the waits overlap. (Here, not in a helper: gcc drops a call
		 * to a static function whose only effect is a prefetch.)
		 */
		if (i + STACKS_AHEAD < hi) {
			const struct trie_stack *a = &t->stacks[i + STACKS_AHEAD];

			__builtin_prefetch(t->dir > 0 ? a->frames + a->next
						      : a->frames - 1 - (ptrdiff_t)a->next);
		}
		if (s->next == s->n) {
			t->keys[i - lo] = NO_GROUP;
			regrouped |= grouping; /* it ends here, after stacks that go on */
			continue;
		}
		frame = trie_stack__frame(t, s, s->next);
		if (run == NO_GROUP || t->groups[run].frame != frame)
			run = group_of(t, frame, &ngroups, i, &regrouped);
		if (run == NO_GROUP)
			return -ENOMEM;
		grouping = true;
		t->keys[i - lo] = run;
		count_in(t, s, &t->groups[run]);
	}
	if (regrouped && regroup(t, lo, hi, ngroups))
		return -ENOMEM;
	return (long)ngroups;
}

/* Does sibling @a go before @b? Larger total first, then by name, then by frame id. */
static int sibling_order(const void *a, const void *b, void *arg)
{
	const struct trie_group *x = a, *y = b;
	const struct profile *p = arg;
	int by_name;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	by_name = strcmp(profile__frame_name(p, x->frame), profile__frame_name(p, y->frame));
	if (by_name)
		return by_name;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/*
 * Sorts the @n groups of a node into sibling order. A node of a big trie
 * can have thousands of children, so past a few dozen they are sorted by
 * total with a radix sort, a byte at a time (larger first; stable), and
 * then only the runs of equal totals by name. 0 or -ENOMEM.
 */
static int sort_siblings(struct stack_trie *t, size_t n)
{
	struct trie_group *from = t->groups, *to;
	uint64_t max = 0;

	if (n < RADIX_MIN) {
		if (n > 1) /* no siblings, maybe no array: qsort_r() takes none */
			qsort_r(t->groups, n, sizeof(*t->groups), sibling_order, (void *)t->p);
		return 0;
	}
	if (array__grow((void **)&t->sorted, &t->sorted_cap, n, sizeof(*t->sorted), 64))
		return -ENOMEM;
	to = t->sorted;
	for (size_t i = 0; i < n; i++)
		max |= from[i].total;
	for (unsigned int shift = 0; shift < 64 && max >> shift; shift += 8) {
		size_t at[256] = {0}, sum = 0;
		struct trie_group *swap;

		for (size_t i = 0; i < n; i++)
			at[255 - (from[i].total >> shift & 0xff)]++;
		for (size_t d = 0; d < 256; d++) {
			size_t k = at[d];

			at[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			to[at[255 - (from[i].total >> shift & 0xff)]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != t->groups)
		memcpy(t->groups, from, n * sizeof(*t->groups));
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && t->groups[i + run].total == t->groups[i].total; run++)
			;
		if (run > 1)
			qsort_r(t->groups + i, run, sizeof(*t->groups), sibling_order,
				(void *)t->p);
	}
	return 0;
}

uint64_t stack_trie__jitter(const struct stack_trie *t, uint64_t total)
{
	uint64_t unit = t->shown_unit ? t->shown_unit(total) / 2 : 0;
	uint64_t share = t->nodes[TRIE_ROOT].total / 2000;
	uint64_t hidden = unit < share ? unit : share;

	return hidden > 1 ? hidden : 1;
}

/* Their places in the last build first (NO_RANK last), then sibling order. */
static int last_order(const void *a, const void *b, void *arg)
{
	const struct trie_group *x = a, *y = b;

	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return sibling_order(a, b, arg);
}

/*
 * Gives the @n sorted groups of @node, within each run of totals that lie
 * within stack_trie__jitter() of the run's first, the order of the last build
 * (stack_trie__keep_order()).
 */
static void keep_last_order(struct stack_trie *t, uint32_t node, size_t n)
{
	uint64_t key = stack_trie__path_key(t, node);
	uint32_t depth = t->nodes[node].depth + 1;
	bool known = false;

	for (size_t i = 0; i < n; i++) {
		uint32_t at = hash_index__find_key64(&t->rank_index,
						     path_key(key, depth, t->groups[i].frame),
						     t->ranks, sizeof(*t->ranks),
						     offsetof(struct trie_rank, key));

		t->groups[i].last = at == HASH_NONE ? NO_RANK : t->ranks[at].rank;
		known |= at != HASH_NONE;
	}
	for (size_t i = 0, run; known && i < n; i += run) {
		uint64_t jitter = stack_trie__jitter(t, t->groups[i].total);
		uint64_t least = t->groups[i].total > jitter ? t->groups[i].total - jitter : 0;

		for (run = 1; i + run < n && t->groups[i + run].total >= least; run++)
			;
		if (run > 1)
			qsort_r(t->groups + i, run, sizeof(*t->groups), last_order, (void *)t->p);
	}
}

/*
 * make_children() for a node with one stack, stacks[@i], so one child
 * (most nodes of a big trie, the ends of its branches): no grouping.
 */
static int make_only_child(struct stack_trie *t, uint32_t node, uint32_t i)
{
	struct trie_stack *s = &t->stacks[i];
	uint32_t frame = trie_stack__frame(t, s, s->next);
	uint64_t self;

	if (array__grow((void **)&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 256))
		return -ENOMEM;
	s->next++;
	skip_hidden(t, s);
	self = s->next == s->n ? s->count : 0;
	t->nodes[node].children = (uint32_t)t->n;
	t->nodes[t->n++] = (struct trie_node){
	    .frame = frame,
	    .parent = node,
	    .next_sibling = TRIE_NONE,
	    .depth = t->nodes[node].depth + 1,
	    .total = s->count,
	    .self = self,
	    .children = self ? TRIE_NONE : TRIE_LAZY,
	    .lo = i,
	    .hi = i + 1,
	};
	return 0;
}

/* Makes the children of @node, which has stacks of its own, not made yet: 0 or -ENOMEM. */
static int make_children(struct stack_trie *t, uint32_t node)
{
	uint32_t first = (uint32_t)t->n, depth = t->nodes[node].depth + 1;
	long ngroups = group_stacks(t, &t->nodes[node]);

	if (ngroups < 0)
		return -ENOMEM;
	if (ngroups > 1 && sort_siblings(t, (size_t)ngroups))
		return -ENOMEM;
	if (ngroups > 1 && t->nranks)
		keep_last_order(t, node, (size_t)ngroups);
	if (array__grow((void **)&t->nodes, &t->cap, t->n + (size_t)ngroups, sizeof(*t->nodes),
			256))
		return -ENOMEM;
	for (long g = 0; g < ngroups; g++) {
		const struct trie_group *gr = &t->groups[g];

		t->nodes[t->n++] = (struct trie_node){
		    .frame = gr->frame,
		    .parent = node,
		    .next_sibling = g + 1 < ngroups ? first + (uint32_t)g + 1 : TRIE_NONE,
		    .depth = depth,
		    .total = gr->total,
		    .self = gr->self,
		    .children = gr->total > gr->self ? TRIE_LAZY : TRIE_NONE,
		    .lo = gr->start,
		    .hi = gr->start + gr->n,
		};
	}
	t->nodes[node].children = ngroups ? first : TRIE_NONE;
	return 0;
}

uint32_t stack_trie__first_child(const struct stack_trie *ct, uint32_t node)
{
	/* Making children changes what is in memory, not what the trie holds. */
	struct stack_trie *t = (struct stack_trie *)ct;

	if (t->nodes[node].children != TRIE_LAZY)
		return t->nodes[node].children;
	/* After a failure the stacks may be half grouped: no more children. */
	if (t->err || (t->nodes[node].hi - t->nodes[node].lo == 1
			   ? make_only_child(t, node, t->nodes[node].lo)
			   : make_children(t, node))) {
		t->err = -ENOMEM;
		return TRIE_NONE;
	}
	return t->nodes[node].children;
}

uint32_t stack_trie__child(const struct stack_trie *t, uint32_t parent, uint32_t frame)
{
	uint32_t c = t->n ? stack_trie__first_child(t, parent) : TRIE_NONE;

	while (c != TRIE_NONE && t->nodes[c].frame != frame)
		c = t->nodes[c].next_sibling;
	return c;
}

/* @name is @comm, or @comm with the ids process_name.h reads ("-PID", " [PID/TID]"). */
static bool comm_matches(const char *name, const char *comm)
{
	size_t n = strlen(comm);
	struct process_name pn;

	if (strncmp(name, comm, n) != 0)
		return false;
	process_name__parse(name, strlen(name), &pn);
	return !name[n] || pn.comm_len == n;
}

static bool has_frame_with(const struct profile *p, const struct profile_stack *s, const char *text)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (text_match(profile__frame_name(p, s->frames[i]), text))
			return true;
	}
	return false;
}

static bool keeps_tgid(const struct view_filter *f, int32_t tgid)
{
	size_t i = 0;

	while (i < f->ntgids && f->tgids[i] != tgid)
		i++;
	return !f->ntgids || i < f->ntgids;
}

bool view_filter__keeps(const struct view_filter *f, const struct profile *p,
			const struct profile_stack *s)
{
	if (!keeps_tgid(f, s->tgid))
		return false;
	if (f->comm && !comm_matches(profile__frame_name(p, s->frames[0]), f->comm))
		return false;
	return !f->text || has_frame_with(p, s, f->text);
}

static bool frame_hidden(const struct view_filter *f, const struct frame *fr)
{
	return (f->hide_kernel && fr->kind == FRAME_KERNEL) ||
	       (f->hide_user && (fr->kind == FRAME_USER || fr->kind == FRAME_PYTHON)) ||
	       (f->hide_interp && fr->interp);
}

/*
 * Marks each frame of @p once (MARK_HIDDEN, MARK_TEXT, MARK_COMM) for
 * what @f asks, so that a stack is filtered without a look at any name.
 * 0 or -ENOMEM.
 */
static int mark_frames(struct stack_trie *t, const struct profile *p, const struct view_filter *f)
{
	size_t n = profile__nframes(p);

	if (array__grow((void **)&t->marks, &t->marks_cap, n ? n : 1, 1, 1024))
		return -ENOMEM;
	t->hiding = f->hide_kernel || f->hide_user || f->hide_interp;
	t->hide_kernel = f->hide_kernel;
	t->hide_user = f->hide_user;
	for (size_t i = 0; i < n; i++) {
		const struct frame *fr = profile__frame_info(p, (uint32_t)i);
		const char *name = f->text || f->comm ? profile__frame_name(p, (uint32_t)i) : NULL;
		uint8_t m = frame_hidden(f, fr) ? MARK_HIDDEN : 0;

		if (f->text && text_match(name, f->text))
			m |= MARK_TEXT;
		if (f->comm && fr->kind == FRAME_PROCESS && comm_matches(name, f->comm))
			m |= MARK_COMM;
		t->marks[i] = m;
	}
	return 0;
}

/* view_filter__keeps() for @t's marks: the same answer, without a look at any name. */
static bool keeps(const struct stack_trie *t, const struct view_filter *f,
		  const struct profile_stack *s)
{
	bool text = !f->text;

	if (!keeps_tgid(f, s->tgid) || (f->comm && !(t->marks[s->frames[0]] & MARK_COMM)))
		return false;
	for (uint32_t i = 0; !text && i < s->n; i++)
		text = t->marks[s->frames[i]] & MARK_TEXT;
	return text;
}

/* How many frames of @s @t shows: counted only when its frames are mixed (see profile_stack). */
static uint32_t shown_frames(const struct stack_trie *t, const struct trie_stack *s)
{
	uint32_t n = 0;

	if (!t->hiding)
		return s->n;
	if (s->kernel_at != PROFILE_NONE) /* its process frame, its user part, its kernel part */
		return 1 + (t->hide_user ? 0 : s->kernel_at - 1) +
		       (t->hide_kernel ? 0 : s->n - s->kernel_at);
	for (uint32_t i = 0; i < s->n; i++)
		n += !(t->marks[trie_stack__frame(t, s, i)] & MARK_HIDDEN);
	return n;
}

/*
 * Keeps stack @s of @count (not 0), its first shown frame found, the trie
 * as deep as it. Adds its count to *@total, and to *@self when it shows no
 * frame. 0 or -ENOMEM.
 */
static int keep_stack(struct stack_trie *t, const struct trie_stack *s, uint64_t *total,
		      uint64_t *self)
{
	struct trie_stack *k;
	uint32_t depth;

	if (array__grow((void **)&t->stacks, &t->stacks_cap, t->nstacks + 1, sizeof(*t->stacks),
			1024))
		return -ENOMEM;
	k = &t->stacks[t->nstacks++];
	*k = *s;
	k->next = 0;
	skip_hidden(t, k);
	*total = count__add(*total, k->count);
	if (k->next == k->n)
		*self = count__add(*self, k->count);
	depth = shown_frames(t, k);
	if (depth > t->max_depth)
		t->max_depth = depth;
	return 0;
}

int stack_trie__build(struct stack_trie *t, const struct profile *p, const struct view_filter *f)
{
	size_t n = profile__nstacks(p);
	uint64_t total = 0, self = 0;
	int err;

	clear(t, p, 1);
	err = mark_frames(t, p, f)
		  ?: array__grow((void **)&t->stacks, &t->stacks_cap, n, sizeof(*t->stacks), 1024);
	for (size_t i = 0; i < n && !err; i++) {
		struct profile_stack s;
		uint64_t count;

		profile__stack_sorted(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		if (count && keeps(t, f, &s))
			err = keep_stack(t,
					 &(struct trie_stack){.frames = s.frames,
							      .n = s.n,
							      .kernel_at = s.kernel_at,
							      .first = profile__stack_group(
								  p, s.id, f->group),
							      .count = count},
					 &total, &self);
	}
	if (!err)
		err = add_root(t, total, self);
	if (err)
		clear(t, p, 1);
	return err;
}

/* The first frame of @s that is @frame and shown, or @s->n. */
static uint32_t first_shown(const struct stack_trie *t, const struct trie_stack *s, uint32_t frame)
{
	uint32_t i = 0;

	while (i < s->n && (trie_stack__frame(t, s, i) != frame ||
			    (t->hiding && t->marks[frame] & MARK_HIDDEN)))
		i++;
	return i;
}

int stack_trie__build_callers(struct stack_trie *out, const struct stack_trie *t,
			      const struct profile *p, uint32_t frame)
{
	uint64_t total = 0, self = 0;
	int err = 0;

	clear(out, p, -1);
	if (array__grow((void **)&out->marks, &out->marks_cap, t->marks_cap, 1, 1024))
		err = -ENOMEM;
	else if (t->marks_cap)
		memcpy(out->marks, t->marks, t->marks_cap);
	out->hiding = t->hiding;
	out->hide_kernel = t->hide_kernel;
	out->hide_user = t->hide_user;
	for (size_t i = 0; i < t->nstacks && !err; i++) {
		const struct trie_stack *s = &t->stacks[i];
		uint32_t at = first_shown(t, s, frame);

		/* The callers of @frame's outermost call, nearest first. */
		if (at < s->n)
			err = keep_stack(out,
					 &(struct trie_stack){.frames = s->frames + at,
							      .n = at,
							      .kernel_at = PROFILE_NONE,
							      .first = s->first,
							      .count = s->count},
					 &total, &self);
	}
	if (!err)
		err = add_root(out, total, self);
	if (err)
		clear(out, p, -1);
	return err;
}

/* Forgets every node but the root, and where each stack is in the trie. */
static void forget(struct stack_trie *t)
{
	if (!t->n)
		return;
	t->n = 1;
	t->nodes[TRIE_ROOT].children =
	    stack_trie__has_children(t, TRIE_ROOT) ? TRIE_LAZY : TRIE_NONE;
	for (size_t i = 0; i < t->nstacks; i++) {
		t->stacks[i].next = 0;
		skip_hidden(t, &t->stacks[i]);
	}
}

/* Forgets the children of @node, the last nodes made. */
static void drop_children(struct stack_trie *t, uint32_t node)
{
	uint32_t c = t->nodes[node].children;

	if (c == TRIE_NONE || c == TRIE_LAZY)
		return;
	t->n = c;
	t->nodes[node].children = TRIE_LAZY;
}

/*
 * Hands @v the chain below @node (see struct trie_visitor), which has one
 * stack and children not made: the frames the trie shows of the rest of
 * that stack, gathered in @frames (room for the trie's depth).
 */
static void visit_chain(const struct stack_trie *t, uint32_t node, const struct trie_visitor *v,
			uint32_t *frames)
{
	const struct trie_stack *s = &t->stacks[t->nodes[node].lo];
	uint32_t n = 0;

	for (uint32_t i = s->next; i < s->n; i++) {
		uint32_t frame = trie_stack__frame(t, s, i);

		if (stack_trie__shows(t, frame))
			frames[n++] = frame;
	}
	v->chain(v->ctx, t, node, frames, n, s->count);
}

int stack_trie__walk(struct stack_trie *t, const struct trie_visitor *v)
{
	uint32_t node = TRIE_ROOT, *chain = NULL;
	bool down;

	forget(t);
	if (!t->n)
		return 0;
	if (v->chain && !(chain = malloc((t->max_depth + 1) * sizeof(*chain))))
		return -ENOMEM;
	down = v->node(v->ctx, t, node);
	for (;;) {
		uint32_t next = TRIE_NONE;

		if (down && chain && t->nodes[node].hi - t->nodes[node].lo == 1 &&
		    t->nodes[node].children == TRIE_LAZY)
			visit_chain(t, node, v, chain);
		else if (down)
			next = stack_trie__first_child(t, node);
		if (t->err)
			break;
		while (next == TRIE_NONE && node != TRIE_ROOT) {
			/* The node's descendants are done: on to its next sibling. */
			drop_children(t, node);
			next = t->nodes[node].next_sibling;
			if (next == TRIE_NONE)
				node = t->nodes[node].parent;
		}
		if (next == TRIE_NONE)
			break;
		node = next;
		down = v->node(v->ctx, t, node);
	}
	free(chain);
	forget(t);
	return t->err;
}

/* Does a stack of @node, which has no children made, show a marked frame below it? */
static bool stacks_below_have(const struct stack_trie *t, const struct trie_node *x,
			      const uint8_t *marks)
{
	for (uint32_t i = x->lo; i < x->hi; i++) {
		const struct trie_stack *s = &t->stacks[i];

		for (uint32_t k = s->next; k < s->n; k++) {
			uint32_t frame = trie_stack__frame(t, s, k);

			if (marks[frame] && stack_trie__shows(t, frame))
				return true;
		}
	}
	return false;
}

bool stack_trie__below_has(const struct stack_trie *t, uint32_t node, const uint8_t *marks)
{
	uint32_t at = node;

	/* Through the nodes made below @node, depth first; the stacks where none are. */
	for (;;) {
		const struct trie_node *x = &t->nodes[at];

		if (at != node && marks[x->frame])
			return true;
		if (x->children == TRIE_LAZY && stacks_below_have(t, x, marks))
			return true;
		if (x->children != TRIE_LAZY && x->children != TRIE_NONE) {
			at = x->children;
			continue;
		}
		while (at != node && t->nodes[at].next_sibling == TRIE_NONE)
			at = t->nodes[at].parent;
		if (at == node)
			return false;
		at = t->nodes[at].next_sibling;
	}
}
