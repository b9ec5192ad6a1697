// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo: the order is gdb's and perf's. The CRC is zlib's crc32(), and
 * xz streams are unpacked with liblzma under a memory limit.
 */
#include "symbols/debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/rootfs.h"

#define LZMA_MEMLIMIT (128UL << 20)
#define CRC_CHUNK (256 * 1024)

int debuginfo__build_id_path(char *buf, size_t size, const char *debug_root, const uint8_t *id,
			     size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1];
	size_t i;
	int n;

	if (!len || len > BUILD_ID_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	n = snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", debug_root, hex, hex + 2);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static bool plain_file_name(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

int debuginfo__link_paths(char paths[DEBUGLINK_PLACES][PATH_MAX], const char *debug_root,
			  const char *bin_path, const char *link)
{
	const char *slash = strrchr(bin_path, '/');
	int dir_len, count = 0, n[DEBUGLINK_PLACES], i;

	if (!plain_file_name(link) || bin_path[0] != '/' || !slash)
		return -EINVAL;
	dir_len = (int)(slash - bin_path);
	n[0] = snprintf(paths[0], PATH_MAX, "%.*s/%s", dir_len, bin_path, link);
	n[1] = snprintf(paths[1], PATH_MAX, "%.*s/.debug/%s", dir_len, bin_path, link);
	n[2] = snprintf(paths[2], PATH_MAX, "%s%.*s/%s", debug_root, dir_len, bin_path, link);
	for (i = 0; i < DEBUGLINK_PLACES; i++) {
		if (n[i] < 0 || n[i] >= PATH_MAX)
			continue; /* did not fit: dropped */
		if (count != i)
			memcpy(paths[count], paths[i], (size_t)n[i] + 1);
		count++;
	}
	return count;
}

int debuginfo__crc32(int fd, uint32_t *crc)
{
	unsigned char *buf = malloc(CRC_CHUNK);
	uLong c = crc32(0L, Z_NULL, 0);
	uint64_t total = 0;
	off_t off = 0;
	ssize_t n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while ((n = pread(fd, buf, CRC_CHUNK, off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		total += (uint64_t)n;
		if (total > DEBUG_FILE_MAX_BYTES) {
			err = -EFBIG;
			break;
		}
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	free(buf);
	*crc = (uint32_t)c;
	return err;
}

/* Gives @strm more room for output in @buf, never beyond @max bytes in all. */
static int unxz__grow(lzma_stream *strm, uint8_t **buf, size_t *cap, size_t max)
{
	size_t want = *cap ? *cap * 2 : 64 * 1024;
	uint8_t *p;

	if (*cap >= max)
		return -EFBIG;
	if (want > max)
		want = max;
	p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	strm->next_out = p + strm->total_out;
	strm->avail_out = want - strm->total_out;
	return 0;
}

int debuginfo__unxz(const void *in, size_t len, size_t max, void **out, size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_ret ret = LZMA_OK;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int err = 0;

	if (lzma_stream_decoder(&strm, LZMA_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	strm.next_in = in;
	strm.avail_in = len;
	while (ret == LZMA_OK) {
		if (!strm.avail_out && (err = unxz__grow(&strm, &buf, &cap, max)) != 0)
			break;
		ret = lzma_code(&strm, LZMA_FINISH);
	}
	if (!err && ret != LZMA_STREAM_END)
		err = ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR ? -ENOMEM : -EINVAL;
	if (err) {
		free(buf);
	} else {
		*out = buf;
		*out_len = strm.total_out;
	}
	lzma_end(&strm);
	return err;
}

/* The roots to look in, in order: the process's own (when not the host's), then the host. */
static int debug_roots(const struct debug_search *ds, int roots[2])
{
	int n = 0;

	if (ds->root_fd >= 0 && !rootfs__is_host(ds->root_fd))
		roots[n++] = ds->root_fd;
	roots[n++] = -1;
	return n;
}

/* True when @a and @b have the same build-id, or (unless @strict) either has none. */
static bool same_build_id(const struct elf_file *a, const struct elf_file *b, bool strict)
{
	uint8_t ia[BUILD_ID_MAX], ib[BUILD_ID_MAX];
	size_t la = elf_file__build_id(a, ia, sizeof(ia));
	size_t lb = elf_file__build_id(b, ib, sizeof(ib));

	if (!la || !lb)
		return !strict;
	return la == lb && !memcmp(ia, ib, la);
}

/*
 * Opens debug file @path in @root for @bin: a regular ELF file (nothing
 * else is opened: rootfs__open_file()) with a
 * .symtab whose build-id is @bin's. Found by a .gnu_debuglink (@crc not
 * NULL), its CRC-32 must match, and the build-ids only when both have one.
 * Returns it, or NULL.
 */
static struct elf_file *debug_file__open(int root, const char *path, const struct elf_file *bin,
					 const uint32_t *crc)
{
	struct stat st;
	int fd = rootfs__open_file(root, path, O_RDONLY, &st);
	struct elf_file *f;
	uint32_t c;

	if (fd < 0)
		return NULL;
	if (crc && (debuginfo__crc32(fd, &c) || c != *crc)) {
		close(fd);
		return NULL;
	}
	f = elf_file__open_fd(fd, true);
	if (f && (!elf_file__has_symtab(f) || !same_build_id(bin, f, !crc))) {
		elf_file__close(f);
		f = NULL;
	}
	return f;
}

static struct elf_file *debuginfo__by_build_id(const struct elf_file *bin,
					       const struct debug_search *ds)
{
	uint8_t id[BUILD_ID_MAX];
	size_t len = elf_file__build_id(bin, id, sizeof(id));
	struct elf_file *f = NULL;
	char path[PATH_MAX];
	int roots[2], n, i;

	if (!len || debuginfo__build_id_path(path, sizeof(path), ds->debug_root, id, len))
		return NULL;
	n = debug_roots(ds, roots);
	for (i = 0; i < n && !f; i++)
		f = debug_file__open(roots[i], path, bin, NULL);
	return f;
}

static struct elf_file *debuginfo__by_link(const struct elf_file *bin,
					   const struct debug_search *ds)
{
	char paths[DEBUGLINK_PLACES][PATH_MAX], link[NAME_MAX + 1];
	int roots[2], n_roots, n_paths, i, j;
	struct elf_file *f = NULL;
	uint32_t crc;

	if (elf_file__debuglink(bin, link, sizeof(link), &crc))
		return NULL;
	n_paths = debuginfo__link_paths(paths, ds->debug_root, ds->path, link);
	n_roots = debug_roots(ds, roots);
	for (i = 0; i < n_roots && !f; i++) {
		for (j = 0; j < n_paths && !f; j++)
			f = debug_file__open(roots[i], paths[j], bin, &crc);
	}
	return f;
}

static struct elf_file *debuginfo__minidebug(const struct elf_file *bin)
{
	const void *packed;
	struct elf_file *f;
	size_t len, out_len;
	void *image;

	if (elf_file__section(bin, ".gnu_debugdata", &packed, &len) ||
	    debuginfo__unxz(packed, len, MINIDEBUG_MAX_BYTES, &image, &out_len))
		return NULL;
	f = elf_file__open_image(image, out_len);
	if (f && !elf_file__has_symtab(f)) {
		elf_file__close(f);
		f = NULL;
	}
	return f;
}

struct elf_file *debuginfo__find(const struct elf_file *bin, const struct debug_search *ds)
{
	struct elf_file *f = debuginfo__by_build_id(bin, ds);

	if (!f)
		f = debuginfo__by_link(bin, ds);
	if (!f)
		f = debuginfo__minidebug(bin);
	return f;
}
