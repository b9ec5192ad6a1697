/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text_match: how a search pattern finds text in a frame's name, the same
 * for the filter (stack_trie), the jumps (n, N) and the underlining: smart
 * case, as less -i and vim's 'smartcase' do. A pattern without an
 * upper-case letter matches in any case; one with an upper-case letter
 * matches exactly. Case is folded for ASCII letters only.
 */
#ifndef FLAMETOP_TEXT_MATCH_H
#define FLAMETOP_TEXT_MATCH_H

#include <stdbool.h>

/* True when @pattern holds an upper-case ASCII letter: it matches case and all. */
bool text_match__exact(const char *pattern);

/*
 * text_match() returns the first place in @text where @pattern (not empty)
 * matches, or NULL. A match is strlen(@pattern) bytes long.
 */
const char *text_match(const char *text, const char *pattern);

#endif
