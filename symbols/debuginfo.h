/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo: what was stripped from a binary (its symbol table, its CFI,
 * its line tables), from wherever its distribution put it: a debug file
 * found by build-id, the debug file its .gnu_debuglink names (CRC-checked),
 * or the xz-compressed MiniDebugInfo in its own .gnu_debugdata section.
 *
 * A debug file is read as the process the binary runs in could read it:
 * each candidate is opened with that process's credentials (rootfs.h's
 * rootfs__run_as()) and resolved inside its root, so that no symlink or
 * bind mount it plants leads to a file it could not read itself. A
 * process in a container is looked up in its own root first, then in the
 * host's global debug directory only (never beside a path of its choosing
 * on the host). The work is bounded: a debug file larger than its binary
 * allows (DEBUG_FILE_RATIO times it, plus DEBUG_FILE_SLACK, at most
 * DEBUG_FILE_MAX_BYTES) is not read for its CRC, MiniDebugInfo unpacks to
 * MINIDEBUG_MAX_BYTES at most, and a work budget ends a search early.
 * What is refused is counted, by reason.
 */
#ifndef FLAMETOP_DEBUGINFO_H
#define FLAMETOP_DEBUGINFO_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elffile.h"
#include "symbols/procinfo.h"
#include "work_budget.h"

/* The most a debug file may take: DEBUG_FILE_RATIO times its binary, DEBUG_FILE_SLACK more. */
#define DEBUG_FILE_MAX_BYTES (1UL << 30)
#define DEBUG_FILE_RATIO 32
#define DEBUG_FILE_SLACK (16UL << 20)
/* The most MiniDebugInfo unpacks to (a distribution's are a few hundred KiB). */
#define MINIDEBUG_MAX_BYTES (32UL << 20)

/* Number of places a .gnu_debuglink name is looked for (in each root). */
#define DEBUGLINK_PLACES 3

/* Why a candidate was not taken, where that is worth telling. */
enum debug_refusal {
	DEBUG_REFUSED_SIZE,	/* too large beside its binary: not read */
	DEBUG_REFUSED_UNPACKED, /* MiniDebugInfo larger than MINIDEBUG_MAX_BYTES unpacked */
	DEBUG_REFUSED_ACCESS,	/* the process may not read it */
	DEBUG_REFUSED_NR,
};

/* Where a binary's debug file may be, whose rights it is read with, and what came of it. */
struct debug_search {
	int root_fd;		/* the process's root directory, or -1 (host only) */
	const char *debug_root; /* the global debug directory, e.g. "/usr/lib/debug" */
	const char *path;	/* the binary's path as the process sees it; "" if unknown */
	const struct proc_creds *creds; /* the process's; NULL (unknown): files all may read */
	uint64_t bin_size;	/* the binary's size in bytes */
	const char *section;	/* what a debug file must hold (NULL: ".symtab") */
	const struct work_budget *time; /* NULL: no limit */
	/* Set by the search. */
	uint32_t refused[DEBUG_REFUSED_NR]; /* candidates refused, by reason */
	int spent;			    /* the budget's error when it ran out, else 0 */
	bool private;			    /* the file found is not one every user may read */
};

/*
 * debuginfo__find() returns the debug file of @bin that holds ds->section,
 * or NULL when none is found. In order: "<debug_root>/.build-id/xx/
 * rest.debug" whose build-id is @bin's; the .gnu_debuglink name next to
 * the binary, in ".debug/" beside it, and under "<debug_root>/<its dir>/",
 * taken only when its CRC-32 matches (and its build-id, when both have
 * one); for a symbol table, the .gnu_debugdata MiniDebugInfo image. Each
 * path is tried in the process's root, then (the debug root's only) on the
 * host. Where the credentials are not known, or flametop may not take
 * them (it lacks CAP_SETUID), only files every user may read are taken.
 * Counts what it refuses in @ds, and says whether the file found is one
 * only some may read (ds->private: what it names is for its process's
 * user alone).
 */
struct elf_file *debuginfo__find(const struct elf_file *bin, struct debug_search *ds);

/*
 * debuginfo__build_id_path() writes "@debug_root/.build-id/xx/rest.debug"
 * for build-id @id (@len bytes, lower-case hex) into @buf (capacity @size).
 * Returns 0, -EINVAL for an empty id, or -ENAMETOOLONG.
 */
int debuginfo__build_id_path(char *buf, size_t size, const char *debug_root, const uint8_t *id,
			     size_t len);

/*
 * debuginfo__link_paths() writes the DEBUGLINK_PLACES paths where debug
 * file @link of the binary at @bin_path may be: "dir/link",
 * "dir/.debug/link" and "@debug_root/dir/link", dir being @bin_path's
 * directory. Returns the number written (those that fit), or -EINVAL when
 * @link is not a plain file name (empty, ".", "..", or with a '/') or
 * @bin_path is not absolute.
 */
int debuginfo__link_paths(char paths[DEBUGLINK_PLACES][PATH_MAX], const char *debug_root,
			  const char *bin_path, const char *link);

/*
 * debuginfo__crc32() computes the CRC-32 (the .gnu_debuglink one, zlib's)
 * of the whole file open on @fd, reading from offset 0, under budget @time
 * (NULL: none), looked at every 256 KiB. Returns 0, -EFBIG beyond
 * DEBUG_FILE_MAX_BYTES, the budget's error, or -errno.
 */
int debuginfo__crc32(int fd, const struct work_budget *time, uint32_t *crc);

/*
 * debuginfo__unxz() decompresses the xz stream of @len bytes at @in into a
 * new malloc()ed buffer (*@out, *@out_len) of at most @max bytes, under
 * budget @time (NULL: none), looked at every MiB. Returns 0, -EFBIG when
 * the output would be larger, the budget's error, or -EINVAL for a corrupt
 * or truncated stream.
 */
int debuginfo__unxz(const void *in, size_t len, size_t max, const struct work_budget *time,
		    void **out, size_t *out_len);

#endif
