/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate: the annotation of a native function (annotation.h) from the
 * addresses its samples and call sites were at. Where the function lies
 * and what its code is come from the module the addresses are in:
 *
 *  - a mapped file: its symbol table (or its debug file's, debuginfo.h),
 *    else the unwind information's entry (.eh_frame) around the address,
 *    gives the function's extent; the file's bytes its instructions; its
 *    own DWARF, else its debug file's (by build-id, .gnu_debuglink:
 *    libc6-dbg's), its lines (line_table.h), and the sources those name
 *    their text (source_text.h);
 *  - the kernel: /proc/kallsyms the extent, /proc/kcore the bytes where
 *    readable (else the addresses alone, said plainly);
 *  - a process's own memory (JIT code): its perf map the extent,
 *    /proc/PID/mem the bytes.
 *
 * The mapped file is opened as symbols/ opens every mapped file
 * (mapped_file.h), through the process that maps it. What is read of a
 * file (the file itself, its symbols, its debug information unpacked) is
 * kept in a cache of a few files and bytes, the least recently used
 * dropped first, and the kernel's table once read, so that opening the
 * same function or another of its file again costs little.
 *
 * All of it is plain data in and out, and runs in whatever thread calls
 * it: the screen runs it off its own (annotate_worker.h).
 */
#ifndef FLAMETOP_ANNOTATE_H
#define FLAMETOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/addr_module.h"
#include "symbols/annotation.h"
#include "symbols/source_text.h"

#define ANNOTATE_FILES 8		/* files the cache keeps open ... */
#define ANNOTATE_BYTES (256UL << 20) /* ... holding at most this much (more: the last one only) */

/* A site of the module and its counts, as addr_counts keeps it. */
struct annotate_site {
	uint64_t addr;
	uint64_t self, calls;
	bool own; /* the function's own (its frame's); others are counted where they fall in it */
};

/* What to annotate. */
struct annotate_request {
	char *function;		     /* the frame's name */
	struct addr_module module;   /* where its sites are (path owned by the request) */
	uint64_t at;		     /* one of its addresses: its hottest site's */
	struct annotate_site *sites; /* the module's sites */
	size_t nsites;
	uint64_t folded;		 /* its counts at sites folded away */
	const char *proc_root;		 /* "/proc" */
	const char *debug_root;		 /* "/usr/lib/debug" */
	const char *const *source_dirs; /* --source-dir */
	size_t nsource_dirs;
};

struct annotate_cache;

/* annotate_cache__new() returns an empty cache, or NULL when out of memory. */
struct annotate_cache *annotate_cache__new(void);

/*
 * annotate__run() makes the annotation of @req into @out (which it
 * initializes), reading what it needs through @cache. What can't be read
 * makes a note in @out (annotation.lines_note, insns_note), not an error.
 * Returns 0, or -ENOMEM (@out is then empty).
 */
int annotate__run(struct annotate_cache *cache, const struct annotate_request *req,
		  struct annotation *out);

/*
 * annotate__read_texts() reads the text of @a's lines (by file, then line;
 * @paths[f] the raw path of @a's file f, as its line information names it)
 * where @pl says (source_text.h), and says in @a's lines note what kept a
 * file's text from being shown (the first such file's reason, and how many
 * more). Returns 0, or -ENOMEM.
 */
int annotate__read_texts(struct annotation *a, const struct source_place *pl,
			 const char *const *paths);

/* annotate_request__free() frees what @req holds (not @req). */
void annotate_request__free(struct annotate_request *req);

/* annotate_cache__free(NULL) is a no-op. */
void annotate_cache__free(struct annotate_cache *c);

#endif
