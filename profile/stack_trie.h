/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_trie: the view of a profile that every front end reads. Built from
 * the profile's stacks through a filter (window, kernel/user visibility,
 * pids, comm, frame text), so filters act on data already collected.
 *
 * Node 0 is the root (all stacks); its children are processes (commands,
 * processes or threads, as the filter groups them), theirs are user frames
 * outermost first, then kernel frames. Siblings are sorted by
 * total, largest first, ties by name (then by frame id, for frames of the
 * same name and another kind). A trie told to keep its order
 * (stack_trie__keep_order()) sorts siblings a sample apart (or less than
 * the screen shows) as its last build did instead: see there.
 *
 * The trie is made as it is looked at. stack_trie__build() keeps the
 * stacks that pass the filter, with their counts as they are then, and
 * makes the root; a node's children are made, all at once from the stacks
 * through the node, the first time they are asked for
 * (stack_trie__first_child()). A big profile's trie has tens of millions of
 * nodes, of which a screen shows a few hundred. Children are made through
 * a const pointer too: what the trie holds never changes until the next
 * build, only how much of it is in memory.
 *
 * Nodes are addressed by index, stable until the next build; a node made
 * later has a higher index than every node made before it, its parent
 * among them. A node's children are consecutive (next_sibling is the index
 * after, or TRIE_NONE for the last). The array moves when nodes are made:
 * a pointer into it is valid only until the next call that may make nodes.
 *
 * The trie borrows the frames of the profile's stacks (see profile.h) until
 * its next build.
 */
#ifndef FLAMETOP_STACK_TRIE_H
#define FLAMETOP_STACK_TRIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/hash_index.h"
#include "profile/profile.h"

#define TRIE_ROOT 0
#define TRIE_NONE UINT32_MAX

struct view_filter {
	enum profile_window window;
	bool hide_kernel;	  /* drop kernel frames (stacks keep their user part) */
	bool hide_user;		  /* drop user frames (Python frames are user frames) */
	bool hide_interp;	  /* drop the interpreter's dispatch frames under Python frames
				   * (struct frame's interp) */
	const int32_t *tgids;	  /* keep only these processes ... */
	size_t ntgids;		  /* ... when ntgids > 0 */
	const char *comm;	  /* keep only processes with this exact name (perf's "name-PID"
				   * too), when not NULL */
	const char *text;	  /* keep only stacks with a frame containing this (text_match.h),
				   * when not NULL */
	enum profile_group group; /* the first level: commands, processes or threads
				   * (profile__group() names them first) */
};

struct trie_node {
	uint32_t frame;	       /* frame id in the profile; PROFILE_NONE for the root */
	uint32_t parent;       /* TRIE_NONE for the root */
	uint32_t next_sibling; /* TRIE_NONE when last */
	uint32_t depth;	       /* the root 0, processes 1, ... */
	uint64_t total;	       /* the count of every stack through it */
	uint64_t self;	       /* the count of the stacks that end here */
	/* Private to stack_trie.c: */
	uint32_t children; /* the first child, TRIE_NONE for none; TRIE_LAZY until made */
	uint32_t lo, hi;   /* its stacks: stacks[lo, hi) */
};

/*
 * A stack the trie keeps: its frames, as many as @n. Frame i is frames[i],
 * outermost first, but for its process frame (frames[0]), shown as @first;
 * in a callers trie (stack_trie__build_callers()) the frames go the other
 * way: frame i is frames[-1 - i], the nearest caller first, the process
 * last. See trie_stack__frame().
 */
struct trie_stack {
	const uint32_t *frames;
	uint32_t n;
	uint32_t kernel_at; /* as in profile_stack; PROFILE_NONE in a callers trie */
	uint32_t first;	    /* its first level: profile__stack_group() of the filter's group */
	uint32_t next;	/* private: the first frame below the deepest node made it goes through */
	uint64_t count; /* in the filter's window, when the trie was built */
};

struct trie_group;
struct trie_rank;

struct stack_trie {
	struct trie_node *nodes;
	size_t n, cap;
	uint32_t max_depth; /* the deepest node's depth */

	/* Private to stack_trie.c: */
	const struct profile *p;
	struct trie_stack *stacks;
	size_t nstacks, stacks_cap;
	int dir;     /* 1, or -1 in a callers trie */
	bool hiding; /* some frames are hidden: see marks */
	bool hide_kernel, hide_user;
	uint8_t *marks; /* per frame id: hidden, and the filter's matches while building */
	size_t marks_cap;
	int err; /* -ENOMEM when children could not be made */
	/* Scratch for making children: */
	struct trie_group *groups, *sorted;
	size_t groups_cap, sorted_cap;
	uint32_t *group_of, *stamp_of; /* per frame id: its group, when its stamp is @stamp */
	size_t frames_cap;
	uint32_t stamp;
	uint32_t *keys;		  /* per stack of the node: its group */
	struct trie_stack *spare; /* the stacks of a node, regrouped */
	size_t keys_cap, spare_cap;
	/* The sibling order of the last build, when kept (stack_trie__keep_order()): */
	bool keep_order;
	uint64_t (*shown_unit)(uint64_t count); /* the last digit's unit a count shows in */
	struct trie_rank *ranks; /* per node made then: its path's key, its place */
	size_t nranks, ranks_cap;
	struct hash_index rank_index; /* over ranks, by key */
};

/* stack_trie__init() makes an empty trie; returns 0 (it cannot fail). */
int stack_trie__init(struct stack_trie *t);

/*
 * stack_trie__keep_order() makes each later build of @t keep the order its
 * last build gave siblings that only jitter apart, so that a live view does
 * not reorder at every refresh: a run of siblings whose totals lie within
 * stack_trie__jitter() of the run's largest (one sample, or less than the
 * screen shows: @shown_unit, NULL for none, gives the unit of the last
 * digit a count shows in) is ordered as it was in the last build (those
 * made then; the others after them, in sorted order). A row thus never
 * shows above a sibling whose count is higher by more than that. Siblings
 * are told apart by their path of frames from the root. A build remembers
 * the first 65536 nodes made, those on screen; where memory runs short,
 * the order is the sorted one.
 */
void stack_trie__keep_order(struct stack_trie *t, uint64_t (*shown_unit)(uint64_t count));

/*
 * stack_trie__jitter() says how far apart two counts near @total may be and
 * hold still on a screen of @t (stack_trie__keep_order()): one sample, or
 * as much as the screen can't tell apart, whichever is more: the less of
 * half a unit of the last digit a count of @total shows in (the
 * @shown_unit given; 0 without it) and half of a 0.1% share of the root
 * (the shares' precision).
 */
uint64_t stack_trie__jitter(const struct stack_trie *t, uint64_t total);

/*
 * stack_trie__build() replaces @t's contents with the stacks of @p that pass
 * @f, counted in @f->window: it keeps them, in the profile's sorted order
 * (profile__stack_sorted(): stacks that share a prefix are neighbours, and
 * children are made fastest from them), and makes the root. Returns 0 or
 * -ENOMEM (the trie is then empty but valid).
 */
int stack_trie__build(struct stack_trie *t, const struct profile *p, const struct view_filter *f);

/*
 * stack_trie__first_child() returns @node's first child, or TRIE_NONE for a
 * leaf, making @node's children first when they were not made yet (the
 * node array may move). When memory runs out it returns TRIE_NONE, and
 * stack_trie__error() says so: no more children are made until the next
 * build.
 */
uint32_t stack_trie__first_child(const struct stack_trie *t, uint32_t node);

/* Does @node have children? Answered without making them. */
bool stack_trie__has_children(const struct stack_trie *t, uint32_t node);

/* -ENOMEM when making children failed since the last build, else 0. */
int stack_trie__error(const struct stack_trie *t);

/* stack_trie__self() returns the count of the stacks ending at @node. */
uint64_t stack_trie__self(const struct stack_trie *t, uint32_t node);

/* stack_trie__depth() returns how deep @node is: the root 0, processes 1, and so on. */
uint32_t stack_trie__depth(const struct stack_trie *t, uint32_t node);

/*
 * A path of frames from the root is named by a 64-bit key, the same in
 * every build: PATH_KEY_ROOT with each of its frames added, in any order.
 * path_key() returns the key of path @key with @frame at @depth (1 for the
 * root's child) added, or taken away; so a node's key is found walking up
 * from it as well as down to it. Two different paths share a key with a
 * chance of about n^2 / 2^64. stack_trie__path_key() returns @node's.
 */
#define PATH_KEY_ROOT 0x9e3779b97f4a7c15ull
uint64_t path_key(uint64_t key, uint32_t depth, uint32_t frame);
uint64_t stack_trie__path_key(const struct stack_trie *t, uint32_t node);

/*
 * stack_trie__child() returns the child of @parent for frame @frame, or
 * TRIE_NONE. Used to follow a path of frames across rebuilds; it makes
 * @parent's children and steps through them.
 */
uint32_t stack_trie__child(const struct stack_trie *t, uint32_t parent, uint32_t frame);

/*
 * stack_trie__build_callers() replaces @out's contents with the callers of
 * @frame in @t, an inverted tree: the root stands for @frame (its total is
 * the count of every stack through @frame, counted once per stack even
 * when @frame recurses), its children are the direct callers, theirs the
 * callers' callers, and so on up to the processes. Sorted and made as
 * stack_trie__build() does, with the frames @t hides hidden. Returns 0 or
 * -ENOMEM (@out is then empty).
 */
int stack_trie__build_callers(struct stack_trie *out, const struct stack_trie *t,
			      const struct profile *p, uint32_t frame);

/*
 * What a walk (stack_trie__walk()) calls: @node for each node, and, when
 * not NULL, @chain for all that lies below a node with one stack: a chain
 * of nodes, one per frame of that stack the trie shows after the node's,
 * each the only child of the one before, each of the stack's count, the
 * last one's its self. @chain gets the node above the chain, the chain's
 * frames (outermost first, @n of them, @n > 0) and the count, in place of
 * a call to @node for each: most nodes of a big trie are in such chains.
 */
struct trie_visitor {
	bool (*node)(void *ctx, const struct stack_trie *t, uint32_t node);
	void (*chain)(void *ctx, const struct stack_trie *t, uint32_t above, const uint32_t *frames,
		      uint32_t n, uint64_t count);
	void *ctx;
};

/*
 * stack_trie__walk() visits every node of @t in depth-first order, a node
 * before its children, siblings in order (see struct trie_visitor), without
 * keeping them all in memory: only the path to the node visited and its
 * siblings' are. When @v->node returns false, the walk leaves out the
 * node's descendants. The nodes made before are dropped first, and the walk
 * ends with the root alone: node indexes other than the root's are only
 * valid during a call. Returns 0 or -ENOMEM.
 */
int stack_trie__walk(struct stack_trie *t, const struct trie_visitor *v);

/*
 * stack_trie__below_has() is true when a node below @node (not @node
 * itself) has a frame marked in @marks (one byte per frame id of the
 * profile). It looks at the stacks through @node, not at every node.
 */
bool stack_trie__below_has(const struct stack_trie *t, uint32_t node, const uint8_t *marks);

/* The stacks @t keeps: stacks[0, nstacks). */
size_t stack_trie__nstacks(const struct stack_trie *t);
const struct trie_stack *stack_trie__stack(const struct stack_trie *t, size_t i);

/* Frame @i (< @s->n) of stack @s of @t, as the trie shows it. */
static inline uint32_t trie_stack__frame(const struct stack_trie *t, const struct trie_stack *s,
					 uint32_t i)
{
	if (t->dir > 0)
		return i ? s->frames[i] : s->first;
	return i + 1 < s->n ? s->frames[-1 - (ptrdiff_t)i] : s->first;
}

/* Does @t show @frame (or hide it, by the filter's kernel/user visibility)? */
bool stack_trie__shows(const struct stack_trie *t, uint32_t frame);

/* Releases the trie's memory; it must be initialized again before reuse. */
void stack_trie__free(struct stack_trie *t);

/* The stacks that would pass @f, ignoring the kernel/user visibility. */
bool view_filter__keeps(const struct view_filter *f, const struct profile *p,
			const struct profile_stack *s);

#endif
