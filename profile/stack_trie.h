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
 * same name and another kind). Nodes are addressed by index; the
 * array moves when the trie is rebuilt. The nodes are stored in depth-first
 * order: a node's descendants are the nodes right after it, so a loop over
 * the indexes meets a parent before its children and every subtree in one
 * piece (though not always in sibling order).
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
	bool hide_kernel;      /* drop kernel frames (stacks keep their user part) */
	bool hide_user;        /* drop user frames */
	const int32_t *tgids;  /* keep only these processes ... */
	size_t ntgids;         /* ... when ntgids > 0 */
	const char *comm;      /* keep only processes with this exact name (perf's "name-PID"
				* too), when not NULL */
	const char *text;      /* keep only stacks with a frame containing this (text_match.h),
				* when not NULL */
	enum profile_group group; /* the first level: commands, processes or threads
				   * (profile__group() names them first) */
};

struct trie_node {
	uint32_t frame;        /* frame id in the profile; PROFILE_NONE for the root */
	uint32_t parent;       /* TRIE_NONE for the root */
	uint32_t first_child;  /* TRIE_NONE when a leaf */
	uint32_t next_sibling; /* TRIE_NONE when last */
	uint64_t total;        /* the count of stacks ending here plus every child's total */
};			       /* 24 bytes: a big profile's trie has tens of millions */

/* A step of a stack's path: a node, its frame, and where that frame is in the stack. */
struct trie_step {
	uint32_t frame, node, at;
};

struct stack_trie {
	struct trie_node *nodes;
	size_t n, cap;
	uint32_t max_depth;
	/* While building: */
	struct hash_index children; /* (parent, frame) -> node, for nodes [1, indexed) */
	size_t indexed;
	struct trie_step *last_path; /* the previous stack's path */
	size_t last_len, last_cap;
};

/* stack_trie__init() makes an empty trie; returns 0 or -ENOMEM. */
int stack_trie__init(struct stack_trie *t);

/*
 * stack_trie__build() replaces @t's contents with the stacks of @p that pass
 * @f, counted in @f->window. It takes the stacks in the profile's sorted
 * order (profile__stack_sorted()): the part of it profile__sort() brought
 * up to date costs least. Returns 0 or -ENOMEM (the trie is then empty but
 * valid).
 */
int stack_trie__build(struct stack_trie *t, const struct profile *p, const struct view_filter *f);

/*
 * stack_trie__self() returns the count of the stacks ending at @node: its
 * total less its children's (kept that way, a node takes 32 bytes, not 40).
 */
uint64_t stack_trie__self(const struct stack_trie *t, uint32_t node);

/*
 * stack_trie__depth() returns how deep @node is: the root 0, processes 1,
 * and so on. It steps up through @node's ancestors (walks over the nodes
 * in order know the depth as they go).
 */
uint32_t stack_trie__depth(const struct stack_trie *t, uint32_t node);

/*
 * stack_trie__child() returns the child of @parent for frame @frame, or
 * TRIE_NONE. Used to follow a path of frames across rebuilds; it steps
 * through @parent's children, so it costs one step per child.
 */
uint32_t stack_trie__child(const struct stack_trie *t, uint32_t parent, uint32_t frame);

/*
 * stack_trie__build_callers() replaces @out's contents with the callers of
 * @frame in @t, an inverted tree: the root stands for @frame (its total is
 * the count of every stack through @frame, counted once per stack even
 * when @frame recurses), its children are the direct callers, theirs the
 * callers' callers, and so on up to the processes. Sorted as
 * stack_trie__build() sorts. Returns 0 or -ENOMEM (@out is then empty).
 */
int stack_trie__build_callers(struct stack_trie *out, const struct stack_trie *t,
			      const struct profile *p, uint32_t frame);

/* Releases the trie's memory; it must be re-initialized before reuse. */
void stack_trie__free(struct stack_trie *t);

/* The stacks that would pass @f, ignoring the kernel/user visibility. */
bool view_filter__keeps(const struct view_filter *f, const struct profile *p,
			const struct profile_stack *s);

#endif
