/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_cache: the symbol tables of mapped files, one per file identity
 * (device, inode) and shared by every process that maps the file and may
 * read it, plus vDSO images by content. A stripped file's table comes from
 * its debug file (see debuginfo.h).
 *
 * Tables are read by two threads of the cache's (reading one can mean
 * checking a debug file's CRC, or unpacking MiniDebugInfo): a lookup that
 * needs a table waits for it, a fifth of the pass's wait budget at most,
 * and all lookups of one pass no longer than the budget together, so that
 * no file holds up a drain; a file whose table is not in by then is named
 * "file+0x..." until it is.
 *
 * A table is given to a process only when the process may read the file
 * (an execute-only binary is mapped by processes that may not) and, when
 * it came from a debug file not every user may read, only to processes
 * with the credentials it was found with.
 *
 * Bounded two ways: tables by the bytes they hold (the least recently used
 * go first), and files held open, waiting to be read, by count. A file is
 * held when a process is snapshotted (so that it can be named after it
 * exits) until its table is first needed, the cap is reached, or a grace
 * period passes.
 */
#ifndef FLAMETOP_ELF_CACHE_H
#define FLAMETOP_ELF_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/debuginfo.h"
#include "symbols/elfsyms.h"
#include "symbols/procinfo.h"
#include "symbols/procmaps.h"

/* How long the lookups of one pass may wait for tables being read, in all. */
#define ELF_CACHE_WAIT_NS (250 * 1000000ull)

struct elf_cache_opts {
	const char *proc_root;	/* e.g. "/proc" */
	const char *debug_root; /* e.g. "/usr/lib/debug" */
	size_t max_bytes;	/* table bytes kept */
	size_t max_files;	/* files held open */
	uint64_t wait_ns;	/* a pass's wait for tables being read; 0: ELF_CACHE_WAIT_NS */
};

struct elf_cache_stats {
	size_t files;	   /* entries, files that are not ELF or could not be read included */
	size_t tables;	   /* of those, the ones holding a symbol table */
	size_t bytes;	   /* heap bytes held by the tables and their entries */
	size_t held_files; /* files held open, not read yet */
	size_t reading;	   /* files whose tables are being read */
	uint64_t no_fds;   /* opens that failed for want of file descriptors (EMFILE, ENFILE) */
	uint64_t unreadable; /* files a process that maps them may not read: not read for it */
	uint64_t debug_refused[DEBUG_REFUSED_NR]; /* debug file candidates refused, by reason */
	uint64_t late;	     /* files whose table a lookup had to go without (file+0x...) */
};

struct elf_cache;

/*
 * elf_cache__new() copies what @o points to and starts the reading thread.
 * Returns NULL with errno set when out of memory or no thread can start.
 */
struct elf_cache *elf_cache__new(const struct elf_cache_opts *o);

/*
 * elf_cache__hold() opens the file of mapping @m of the running process
 * @tgid now (see elf_cache__table() for how) and keeps it open until its
 * table is needed, unless that table is cached already; whether the
 * process (its credentials in @creds) may read it is asked now, while it
 * runs. @pass is the caller's clock for elf_cache__expire(). Returns 0, or
 * -errno when the file could not be opened or memory ran out.
 */
int elf_cache__hold(struct elf_cache *c, uint32_t tgid, const struct proc_map *m, uint64_t pass,
		    struct proc_creds_memo *creds);

/*
 * elf_cache__table() returns the symbol table of the file mapping @m of
 * process @tgid names, or NULL when it has none, the process may not read
 * it (its credentials, from @creds, say), or it is still being read
 * (elf_cache.h's wait). On first use the file is read from where it is
 * held, else opened through "proc_root/tgid/map_files/start-end" (the
 * mapped file itself, even when deleted or replaced), else
 * "proc_root/tgid/root/path", else the host path; a candidate is used only
 * when its inode is the mapping's, and its device too unless it came
 * through map_files (btrfs shows a subvolume's device number there). A
 * file that is not ELF is remembered as such; one that could not be opened
 * is tried again in a later pass (@pass: the caller's clock) or when held;
 * one that failed for want of file descriptors is counted
 * (elf_cache_stats.no_fds). The table stays valid until the next call that
 * may add or read an entry.
 */
const struct elf_symtab *elf_cache__table(struct elf_cache *c, uint32_t tgid,
					  const struct proc_map *m, uint64_t pass,
					  struct proc_creds_memo *creds);

/*
 * elf_cache__vdso() returns the symbol table of the vDSO mapping @m of
 * process @tgid, or NULL. The image is read from the process's memory
 * ("proc_root/tgid/mem"); when that cannot be read (the process is gone),
 * flametop's own vDSO is used if it is the same size. *@key remembers the
 * image for the next call (0 the first time). Valid as for elf_cache__table().
 */
const struct elf_symtab *elf_cache__vdso(struct elf_cache *c, uint32_t tgid,
					 const struct proc_map *m, uint64_t *key);

/* elf_cache__expire() closes the files held since before pass @pass - @grace and not read. */
void elf_cache__expire(struct elf_cache *c, uint64_t pass, uint64_t grace);

/* elf_cache__stats() fills @st. */
void elf_cache__stats(struct elf_cache *c, struct elf_cache_stats *st);

/* elf_cache__free(NULL) is a no-op. It stops the reading thread first. */
void elf_cache__free(struct elf_cache *c);

#endif
