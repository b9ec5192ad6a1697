/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo: the symbols of a stripped binary, from wherever its
 * distribution put them: a debug file found by build-id, the debug file its
 * .gnu_debuglink names (CRC-checked), or the xz-compressed MiniDebugInfo in
 * its own .gnu_debugdata section. A process in a container is looked up in
 * its own root first, then on the host.
 */
#ifndef FLAMETOP_DEBUGINFO_H
#define FLAMETOP_DEBUGINFO_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elffile.h"

/* Largest debug file CRC-checked, and largest MiniDebugInfo image unpacked. */
#define DEBUG_FILE_MAX_BYTES (1UL << 30)
#define MINIDEBUG_MAX_BYTES (256UL << 20)

/* Number of places a .gnu_debuglink name is looked for (in each root). */
#define DEBUGLINK_PLACES 3

/* Where a binary's debug file may be. */
struct debug_search {
	int root_fd;		/* the process's root directory, or -1 (host only) */
	const char *debug_root; /* the global debug directory, e.g. "/usr/lib/debug" */
	const char *path;	/* the binary's path as the process sees it; "" if unknown */
};

/*
 * debuginfo__find() returns the file that holds the symbol table stripped
 * from @bin, or NULL when none is found. In order: "<debug_root>/.build-id/
 * xx/rest.debug" whose build-id is @bin's; the .gnu_debuglink name next to
 * the binary, in ".debug/" beside it, and under "<debug_root>/<its dir>/",
 * taken only when its CRC-32 matches (and its build-id, when both have
 * one); the .gnu_debugdata MiniDebugInfo image. Each path is tried in the
 * process's root before the host's. Only files with a .symtab count.
 */
struct elf_file *debuginfo__find(const struct elf_file *bin, const struct debug_search *ds);

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
 * of the whole file open on @fd, reading from offset 0. Returns 0, -EFBIG
 * beyond DEBUG_FILE_MAX_BYTES, or -errno.
 */
int debuginfo__crc32(int fd, uint32_t *crc);

/*
 * debuginfo__unxz() decompresses the xz stream of @len bytes at @in into a
 * new malloc()ed buffer (*@out, *@out_len) of at most @max bytes. Returns
 * 0, -EFBIG when the output would be larger, or -EINVAL for a corrupt or
 * truncated stream.
 */
int debuginfo__unxz(const void *in, size_t len, size_t max, void **out, size_t *out_len);

#endif
