/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_path: a node of a view trie named by the frames on the way to it
 * (the root's child first), so that it can be found again after the trie
 * is rebuilt and node numbers have changed. The selection and the icicle's
 * zoom are frame paths.
 */
#ifndef FLAMETOP_FRAME_PATH_H
#define FLAMETOP_FRAME_PATH_H

#include <stdint.h>

#include "profile/profile.h"
#include "profile/stack_trie.h"

#define FRAME_PATH_MAX 1024 /* deeper nodes are named by their ancestor at this depth */

struct frame_path {
	uint32_t n; /* 0: the root */
	uint32_t frames[FRAME_PATH_MAX];
};

/* frame_path__set() names @node of @t in @path. */
void frame_path__set(struct frame_path *path, const struct stack_trie *t, uint32_t node);

/*
 * frame_path__renumber() maps the frames of @path through @p's last
 * renumbering (profile__renumbered()); the path ends before the first
 * frame that was dropped.
 */
void frame_path__renumber(struct frame_path *path, const struct profile *p);

/*
 * frame_path__resolve() returns the node of @t that @path names, or, when
 * part of the path is not in @t (any more), the deepest node that is: the
 * root at worst. @t must hold at least its root.
 */
uint32_t frame_path__resolve(const struct frame_path *path, const struct stack_trie *t);

#endif
