// SPDX-License-Identifier: GPL-2.0
#include "tui/frame_path.h"

void frame_path__set(struct frame_path *path, const struct stack_trie *t, uint32_t node)
{
	uint32_t depth = stack_trie__depth(t, node);

	while (depth > FRAME_PATH_MAX) {
		node = t->nodes[node].parent;
		depth--;
	}
	path->n = depth;
	for (; node != TRIE_ROOT; node = t->nodes[node].parent)
		path->frames[--depth] = t->nodes[node].frame;
}

void frame_path__renumber(struct frame_path *path, const struct profile *p)
{
	for (uint32_t i = 0; i < path->n; i++) {
		uint32_t id = profile__renumbered(p, path->frames[i]);

		if (id == PROFILE_NONE) {
			path->n = i;
			return;
		}
		path->frames[i] = id;
	}
}

uint32_t frame_path__resolve(const struct frame_path *path, const struct stack_trie *t)
{
	uint32_t node = TRIE_ROOT;

	for (uint32_t i = 0; i < path->n; i++) {
		uint32_t child = stack_trie__child(t, node, path->frames[i]);

		if (child == TRIE_NONE)
			break;
		node = child;
	}
	return node;
}
