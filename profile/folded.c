// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/folded.h"

static void write_frame(FILE *out, const struct profile *p, uint32_t frame)
{
	const char *name = profile__frame_name(p, frame);

	for (const char *s = name; *s; s++)
		putc(*s == ';' ? ':' : *s, out);
	if (profile__frame_info(p, frame)->kind == FRAME_KERNEL)
		fputs("_[k]", out);
}

/* Writes the path from the root's child down to @node; @path holds max_depth. */
static void write_path(FILE *out, const struct stack_trie *t, const struct profile *p,
		       uint32_t node, uint32_t *path)
{
	size_t n = 0;

	for (; node != TRIE_ROOT; node = t->nodes[node].parent)
		path[n++] = node;
	while (n--) {
		write_frame(out, p, t->nodes[path[n]].frame);
		if (n)
			putc(';', out);
	}
}

long folded__write(FILE *out, const struct stack_trie *t, const struct profile *p)
{
	uint32_t *path = malloc((t->max_depth + 1) * sizeof(*path));
	long lines = 0;

	if (!path)
		return -ENOMEM;
	/* Pre-order: a node's lines before its children's, siblings in order. */
	for (uint32_t node = t->n ? t->nodes[TRIE_ROOT].first_child : TRIE_NONE;
	     node != TRIE_NONE;) {
		const struct trie_node *n = &t->nodes[node];

		if (n->self) {
			write_path(out, t, p, node, path);
			fprintf(out, " %" PRIu64 "\n", n->self);
			lines++;
		}
		if (n->first_child != TRIE_NONE) {
			node = n->first_child;
			continue;
		}
		while (node != TRIE_NONE && t->nodes[node].next_sibling == TRIE_NONE)
			node = t->nodes[node].parent == TRIE_ROOT ? TRIE_NONE
								  : t->nodes[node].parent;
		if (node != TRIE_NONE)
			node = t->nodes[node].next_sibling;
	}
	free(path);
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return lines;
}
