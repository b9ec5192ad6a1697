/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms: kernel addresses to names, from /proc/kallsyms.
 *
 * Text symbols only (types t, T, w, W), in one sorted array; a lookup finds
 * the nearest preceding symbol, bounded so that an address past the end of
 * the core kernel text (_etext), past a module's end (from /proc/modules when
 * readable) or too far past the last symbol of a module or BPF program is not
 * given that symbol's name.
 */
#ifndef FLAMETOP_KALLSYMS_H
#define FLAMETOP_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint64_t size;      /* the addresses from @addr given its name */
	const char *name;   /* sanitized; __pfx_/__cfi_ prefixes removed */
	const char *module; /* NULL for the core kernel, "bpf" for BPF programs */
};

struct ksyms;

/*
 * ksyms__load() reads a kallsyms file (@kallsyms_path, e.g. /proc/kallsyms)
 * and, when @modules_path is not NULL and readable, module extents from a
 * /proc/modules-format file. Lines may come in any order; malformed lines are
 * skipped. `__pfx_X` and `__cfi_X` entries (function padding) are merged
 * into X, which then starts at its padding, so padding is attributed to the
 * function that follows it (a padding entry without its function is kept
 * as X on its own). Of
 * several symbols at one address the one with the fewest leading underscores
 * is kept, then global over weak over local. `_etext` and `_einittext` only
 * end the text before them. The last symbol of a module without a known
 * extent, and every BPF program, reach at most 128 KiB.
 * Returns NULL with errno set when the file cannot be read or has no text
 * symbol at all; a file whose addresses are all zero loads, with no symbols
 * (see ksyms__hidden()).
 */
struct ksyms *ksyms__load(const char *kallsyms_path, const char *modules_path);

/*
 * ksyms__map_addr() fills @out with the symbol containing @addr (its
 * strings valid until ksyms__free()) and returns true, or returns false
 * when no symbol may be given to it.
 */
bool ksyms__map_addr(const struct ksyms *ks, uint64_t addr, struct ksym *out);

/*
 * ksyms__in_sched_text() is true when @addr lies in the scheduler's own
 * text (.sched.text: __schedule(), schedule(), schedule_timeout() ...),
 * as the file's __sched_text_start and __sched_text_end bound it; false
 * when it has no such bounds.
 */
bool ksyms__in_sched_text(const struct ksyms *ks, uint64_t addr);

/*
 * ksyms__hidden() is true when every address in the file was zero: the
 * reader lacks privilege (kptr_restrict), and no kernel frame can be named.
 */
bool ksyms__hidden(const struct ksyms *ks);

/* ksyms__equal() is true when @a and @b hold the same symbols at the same addresses. */
bool ksyms__equal(const struct ksyms *a, const struct ksyms *b);

/* Number of text symbols loaded. */
size_t ksyms__count(const struct ksyms *ks);

/* ksyms__free(NULL) is a no-op. */
void ksyms__free(struct ksyms *ks);

#endif
