// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo: the order is gdb's and perf's. The CRC is zlib's crc32(), and
 * xz streams are unpacked with liblzma under a memory limit. Each candidate
 * is opened by a thread that has taken the process's credentials
 * (rootfs__open_file_as()), and read by the caller's, whose CPU time the
 * work budget counts.
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

#define LZMA_MEMLIMIT MINIDEBUG_MAX_BYTES /* a dictionary past the output it makes is no use */
#define CRC_CHUNK (256 * 1024)
#define UNXZ_STEP (1UL << 20) /* output unpacked between two looks at the budget */

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

int debuginfo__crc32(int fd, const struct work_budget *time, uint32_t *crc)
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
		if ((err = work_budget__spent(time)) != 0)
			break;
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	free(buf);
	*crc = (uint32_t)c;
	return err;
}

/*
 * Gives @strm room for UNXZ_STEP more bytes of output in @buf (grown as
 * needed, never beyond @max bytes in all).
 */
static int unxz__room(lzma_stream *strm, uint8_t **buf, size_t *cap, size_t max)
{
	size_t want = *cap ? *cap : 64 * 1024;
	uint8_t *p;

	if (strm->total_out >= max)
		return -EFBIG;
	while (want < strm->total_out + UNXZ_STEP && want < max)
		want *= 2;
	if (want > max)
		want = max;
	if (want != *cap) {
		p = realloc(*buf, want);
		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = want;
	}
	strm->next_out = *buf + strm->total_out;
	strm->avail_out = *cap - strm->total_out < UNXZ_STEP ? *cap - strm->total_out : UNXZ_STEP;
	return 0;
}

int debuginfo__unxz(const void *in, size_t len, size_t max, const struct work_budget *time,
		    void **out, size_t *out_len)
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
		if (!strm.avail_out && ((err = work_budget__spent(time)) != 0 ||
					(err = unxz__room(&strm, &buf, &cap, max)) != 0))
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

/* The most places a search looks in: the build-id path and the debug link's, in two roots. */
#define CANDIDATES_MAX (2 * (1 + DEBUGLINK_PLACES))

/* A place a debug file may be, and what opening it gave. */
struct candidate {
	int root;
	char path[PATH_MAX];
	bool by_link; /* a .gnu_debuglink place: its CRC must match */
	int fd;	      /* or -errno */
	struct stat st;
};

/* A search under way. */
struct finder {
	const struct elf_file *bin;
	struct debug_search *ds;
	struct candidate c[CANDIDATES_MAX];
	int n;
	uint32_t crc; /* the .gnu_debuglink's */
};

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

/* True when a debug file of @size bytes is not too large beside a binary of @bin_size. */
static bool sane_size(uint64_t size, uint64_t bin_size)
{
	return size <= DEBUG_FILE_MAX_BYTES &&
	       size <= bin_size * DEBUG_FILE_RATIO + DEBUG_FILE_SLACK;
}

/* The section a debug file must hold. */
static const char *wanted(const struct debug_search *ds)
{
	return ds->section ? ds->section : ".symtab";
}

/* Adds @path in @root to the places to look in. */
static void add_candidate(struct finder *f, int root, const char *path, bool by_link)
{
	struct candidate *c = &f->c[f->n++];
	size_t len = strnlen(path, sizeof(c->path) - 1); /* paths are made to fit */

	c->root = root;
	memcpy(c->path, path, len);
	c->path[len] = '\0';
	c->by_link = by_link;
	c->fd = -ENOENT;
}

/*
 * The roots to look in, in order: the process's own (when not the host's),
 * then the host. @host_global[i] says that in root i only the global debug
 * directory may be looked in: the host, for a process in another root.
 */
static int debug_roots(const struct debug_search *ds, int roots[2], bool host_global[2])
{
	int n = 0;

	if (ds->root_fd >= 0 && !rootfs__is_host(ds->root_fd)) {
		roots[n] = ds->root_fd;
		host_global[n++] = false;
	}
	roots[n] = -1;
	host_global[n] = n > 0;
	return n + 1;
}

/* True when @path lies under directory @dir. */
static bool under_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/* Lists the places, in order: the build-id path in each root, then the debug link's. */
static void list_candidates(struct finder *f)
{
	char paths[DEBUGLINK_PLACES][PATH_MAX], link[NAME_MAX + 1], path[PATH_MAX];
	const struct debug_search *ds = f->ds;
	uint8_t id[BUILD_ID_MAX];
	size_t len = elf_file__build_id(f->bin, id, sizeof(id));
	bool host_global[2];
	int roots[2], n_roots = debug_roots(ds, roots, host_global), n_paths;

	if (len && !debuginfo__build_id_path(path, sizeof(path), ds->debug_root, id, len))
		for (int i = 0; i < n_roots; i++)
			add_candidate(f, roots[i], path, false);
	if (elf_file__debuglink(f->bin, link, sizeof(link), &f->crc))
		return;
	n_paths = debuginfo__link_paths(paths, ds->debug_root, ds->path, link);
	for (int i = 0; i < n_roots; i++)
		for (int j = 0; j < n_paths; j++) /* the host, for a contained process: its debug root */
			if (!host_global[i] || under_dir(paths[j], ds->debug_root))
				add_candidate(f, roots[i], paths[j], true);
}

/* Opens every place (a regular file only: rootfs__open_file()), with the caller's rights. */
static int open_candidates(void *arg)
{
	struct finder *f = arg;

	for (int i = 0; i < f->n; i++)
		f->c[i].fd = rootfs__open_file(f->c[i].root, f->c[i].path, O_RDONLY, &f->c[i].st);
	return 0;
}

/*
 * Opens the places as the process may: all in one thread that has taken
 * its credentials. Where they are unknown or can't be taken, with
 * flametop's, keeping only files every user may read.
 */
static void open_as_process(struct finder *f)
{
	const struct debug_search *ds = f->ds;

	if (ds->creds && rootfs__run_as(ds->creds, open_candidates, f) != -EOPNOTSUPP)
		return;
	open_candidates(f);
	for (int i = 0; i < f->n; i++) {
		struct candidate *c = &f->c[i];

		if (c->fd >= 0 && !rootfs__open_to_all(c->fd, &c->st)) {
			close(c->fd);
			c->fd = -EACCES;
		}
	}
}

/*
 * Takes candidate @c (its fd then the file's) when it is a debug file of
 * the binary: of a sane size, holding the wanted section, with the
 * binary's build-id; found by a .gnu_debuglink, its CRC-32 must match too,
 * and the build-ids only when both have one. Refusals are counted.
 */
static struct elf_file *take(struct finder *f, struct candidate *c)
{
	struct debug_search *ds = f->ds;
	struct elf_file *e;
	uint32_t crc;
	int err = 0, fd = c->fd;

	c->fd = -ENOENT;
	ds->refused[DEBUG_REFUSED_ACCESS] += fd == -EACCES;
	if (fd < 0)
		return NULL;
	if (!sane_size((uint64_t)c->st.st_size, ds->bin_size)) {
		ds->refused[DEBUG_REFUSED_SIZE]++;
		close(fd);
		return NULL;
	}
	if (c->by_link && ((err = debuginfo__crc32(fd, ds->time, &crc)) != 0 || crc != f->crc)) {
		if (err == -ETIME || err == -ECANCELED)
			ds->spent = err;
		close(fd);
		return NULL;
	}
	e = elf_file__open_fd(fd, true);
	if (e && (!elf_file__find(e, wanted(ds), SHT_NULL) ||
		  !same_build_id(f->bin, e, !c->by_link))) {
		elf_file__close(e);
		e = NULL;
	}
	ds->private = e && !rootfs__open_to_all(fd, &c->st);
	return e;
}

static struct elf_file *debuginfo__minidebug(const struct elf_file *bin, struct debug_search *ds)
{
	const void *packed;
	struct elf_file *f;
	size_t len, out_len;
	void *image;
	int err;

	if (strcmp(wanted(ds), ".symtab") || elf_file__section(bin, ".gnu_debugdata", &packed, &len))
		return NULL;
	err = debuginfo__unxz(packed, len, MINIDEBUG_MAX_BYTES, ds->time, &image, &out_len);
	ds->refused[DEBUG_REFUSED_UNPACKED] += err == -EFBIG;
	if (err == -ETIME || err == -ECANCELED)
		ds->spent = err;
	if (err)
		return NULL;
	f = elf_file__open_image(image, out_len);
	if (f && !elf_file__has_symtab(f)) {
		elf_file__close(f);
		f = NULL;
	}
	return f;
}

struct elf_file *debuginfo__find(const struct elf_file *bin, struct debug_search *ds)
{
	struct finder f = { .bin = bin, .ds = ds };
	struct elf_file *found = NULL;

	ds->private = false;
	list_candidates(&f);
	open_as_process(&f);
	for (int i = 0; i < f.n; i++) {
		if (!found && !ds->spent && !(ds->spent = work_budget__spent(ds->time)))
			found = take(&f, &f.c[i]);
		if (f.c[i].fd >= 0)
			close(f.c[i].fd);
	}
	if (!found && !ds->spent)
		found = debuginfo__minidebug(bin, ds); /* the binary's own: as readable as it */
	return found;
}
