// SPDX-License-Identifier: GPL-2.0
/*
 * source_text: each place is looked at (rootfs__look() inside
 * rootfs__open_file()) before anything is opened; the file is read a block
 * at a time, its lines counted as they pass, and only the lines asked for
 * kept.
 */
#include "symbols/source_text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/rootfs.h"
#include "symbols/sanitize.h"

#define READ_BLOCK 65536

/* A few words for what kept a place from being read, worst first. */
static const char *why_of(int err)
{
	switch (err) {
	case -EPERM:
		return "not a regular file";
	case -EACCES:
		return "not readable as the process";
	case -ELOOP:
		return "a symbolic link loop";
	case -ENOENT:
	case -ENOTDIR:
		return "not found (--source-dir adds a place to look)";
	default:
		return "not readable";
	}
}

/* Keeps in *@worst the reason that says most: a place found but refused, over one not found. */
static void keep_worst(int *worst, int err)
{
	bool missing = err == -ENOENT || err == -ENOTDIR || err == -ENAMETOOLONG;

	if (!*worst || (!missing && (*worst == -ENOENT || *worst == -ENOTDIR)))
		*worst = err;
}

/* Opens @path in the process's root, as the process; -errno when it can't be. */
static int open_as_process(const struct source_place *pl, const char *path, struct stat *st)
{
	if (!pl->creds)
		return -ESRCH;
	return rootfs__open_file_as(pl->creds, pl->root_fd, path, O_RDONLY, st);
}

/* Opens "/@rel" under directory @dir_fd as its root; -errno when it can't be. */
static int open_under(int dir_fd, const char *rel, struct stat *st)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "/%s", rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return rootfs__open_file(dir_fd, path, O_RDONLY, st);
}

/*
 * Opens @path under directory @dir: DIR/@path, then DIR/ and @path less its
 * leading components, one more each time; writes where into @found. Keeps
 * the reason that says most in *@worst.
 */
static int open_in_dir(const char *dir, const char *path, int *worst, char *found, size_t size)
{
	int dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -ENOENT;
	const char *rel = path;
	struct stat st;

	if (dir_fd < 0) {
		keep_worst(worst, -errno);
		return -errno;
	}
	while (rel) {
		while (*rel == '/')
			rel++;
		fd = *rel ? open_under(dir_fd, rel, &st) : -ENOENT;
		if (fd >= 0) {
			snprintf(found, size, "%s/%s", dir, rel);
			break;
		}
		keep_worst(worst, fd);
		rel = strchr(rel, '/');
	}
	close(dir_fd);
	return fd;
}

/*
 * Opens the file @path names, where source_file__read() says, writing where
 * into @found; -errno (the reason that says most) if nowhere.
 */
static int open_source(const struct source_place *pl, const char *path, char *found, size_t size)
{
	struct stat st;
	int worst = 0, fd;

	if (path[0] == '/' && !pl->no_process) {
		fd = open_as_process(pl, path, &st);
		if (fd >= 0) {
			snprintf(found, size, "%s", path);
			return fd;
		}
		keep_worst(&worst, fd);
	}
	for (size_t i = 0; i < pl->ndirs; i++) {
		fd = open_in_dir(pl->dirs[i], path, &worst, found, size);
		if (fd >= 0)
			return fd;
	}
	return worst ? worst : -ENOENT;
}

/* The line's text as shown: its tabs as spaces to the next multiple of 8, sanitized. */
static char *line_text(const char *line, size_t len)
{
	char wide[SOURCE_LINE_MAX * 8 + 1], *text;
	size_t out = 0, col = 0;

	if (len > SOURCE_LINE_MAX)
		len = SOURCE_LINE_MAX;
	if (len && line[len - 1] == '\r')
		len--;
	for (size_t i = 0; i < len; i++) {
		if (line[i] != '\t') {
			wide[out++] = line[i];
			col++;
			continue;
		}
		do
			wide[out++] = ' ';
		while (++col % 8);
	}
	text = malloc(out * 4 + 3); /* each byte may become a 3-byte '?' at most, plus ".." */
	if (text)
		sanitize_name(text, out * 4 + 3, wide, out);
	return text;
}

/* Reading a file line by line: the lines wanted, kept as they pass. */
struct line_scan {
	const uint32_t *lines;
	size_t n, next; /* lines[next] is the next wanted */
	char **texts;
	uint32_t lineno; /* the line being read, from 1 */
	char partial[SOURCE_LINE_MAX];
	size_t partial_len;
};

/* Takes the end of the current line (its text so far in @s->partial): kept if wanted. */
static int end_line(struct line_scan *s)
{
	while (s->next < s->n && s->lines[s->next] < s->lineno)
		s->next++; /* asked twice, or out of order: skipped */
	if (s->next < s->n && s->lines[s->next] == s->lineno) {
		s->texts[s->next] = line_text(s->partial, s->partial_len);
		if (!s->texts[s->next])
			return -ENOMEM;
		s->next++;
	}
	s->lineno++;
	s->partial_len = 0;
	return 0;
}

/* Takes @len bytes of the file. */
static int scan(struct line_scan *s, const char *buf, size_t len)
{
	while (len && s->next < s->n) {
		const char *nl = memchr(buf, '\n', len);
		size_t part = nl ? (size_t)(nl - buf) : len;
		size_t room = sizeof(s->partial) - s->partial_len;
		int err;

		memcpy(s->partial + s->partial_len, buf, part < room ? part : room);
		s->partial_len += part < room ? part : room;
		if (!nl)
			return 0;
		err = end_line(s);
		if (err)
			return err;
		buf += part + 1;
		len -= part + 1;
	}
	return 0;
}

/* Reads the lines @s wants from @fd, at most SOURCE_MAX_BYTES; sets @out's count and note. */
static int read_lines(int fd, struct line_scan *s, struct source_file *out)
{
	char *buf = malloc(READ_BLOCK);
	size_t total = 0;
	ssize_t got = 1;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!err && s->next < s->n && total < SOURCE_MAX_BYTES &&
	       (got = read(fd, buf, READ_BLOCK)) > 0) {
		total += (size_t)got;
		err = scan(s, buf, (size_t)got);
	}
	if (!err && got < 0)
		err = -errno;
	if (!err && got == 0 && s->partial_len) /* a last line without its newline */
		err = end_line(s);
	if (!err && s->next < s->n && total >= SOURCE_MAX_BYTES)
		out->why = "read only as far as its first 16 MiB";
	out->nlines = s->lineno - 1;
	free(buf);
	return err;
}

int source_file__read(const struct source_place *pl, const char *path, const uint32_t *lines,
		      size_t n, char **texts, struct source_file *out)
{
	struct line_scan s = { .lines = lines, .n = n, .texts = texts, .lineno = 1 };
	char found[2 * PATH_MAX];
	int fd, err;

	*out = (struct source_file){ 0 };
	for (size_t i = 0; i < n; i++)
		texts[i] = NULL;
	fd = open_source(pl, path, found, sizeof(found));
	if (fd < 0) {
		out->why = fd == -ESRCH ? "the process has exited: its files are not read"
					: why_of(fd);
		return fd;
	}
	out->found = malloc(strlen(found) * 4 + 3);
	if (out->found)
		sanitize_name(out->found, strlen(found) * 4 + 3, found, strlen(found));
	err = read_lines(fd, &s, out);
	close(fd);
	if (err) {
		for (size_t i = 0; i < n; i++) {
			free(texts[i]);
			texts[i] = NULL;
		}
		out->why = "not readable";
	}
	return err;
}

int source_process__open(struct source_process *sp, const char *proc_root, uint32_t pid)
{
	int err = proc_info__status(proc_root, pid, &sp->status);

	sp->root_fd = err ? err : rootfs__open_root(proc_root, pid);
	return sp->root_fd < 0 ? sp->root_fd : 0;
}

void source_process__close(struct source_process *sp)
{
	if (sp->root_fd >= 0)
		close(sp->root_fd);
	sp->root_fd = -1;
}

void source_file__free(struct source_file *f)
{
	free(f->found);
	*f = (struct source_file){ 0 };
}
