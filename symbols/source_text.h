/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source_text: the lines of a source file a line table names, read so that
 * nothing in the table or the file can do harm. Only regular files are
 * opened (a directory, a FIFO, a device node is looked at, never opened);
 * a path the table names is read in the root of the process that ran the
 * code and with its credentials (rootfs__open_file_as()), so that the
 * process could have read it itself, and not at all where no process is
 * known to have run it (stacks read from a file); the directories the user named
 * (--source-dir) are read with flametop's own rights but never above
 * them ("..", symlinks: rootfs' RESOLVE_IN_ROOT). At most SOURCE_MAX_BYTES
 * of a file are read; a line keeps SOURCE_LINE_MAX bytes, its tabs become
 * spaces (to the next multiple of 8) and it is sanitized (sanitize.h).
 */
#ifndef FLAMETOP_SOURCE_TEXT_H
#define FLAMETOP_SOURCE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/procinfo.h"

#define SOURCE_MAX_BYTES (16u << 20)
#define SOURCE_LINE_MAX 240

/* Where a source file is looked for. */
struct source_place {
	const struct proc_creds *creds; /* the process's; NULL: what it names is not read */
	int root_fd;			/* its root directory (O_PATH); -1: the host's */
	const char *const *dirs;	/* --source-dir: more places to look */
	size_t ndirs;
	bool no_process; /* no process ran it (stacks read from a file): only @dirs are read */
};

/* A process's credentials and root directory, to read files as it would. */
struct source_process {
	struct proc_status status;
	int root_fd; /* O_PATH */
};

/*
 * source_process__open() reads the credentials of process @pid (in
 * @proc_root, "/proc") and opens its root directory. Returns 0, or -errno
 * with nothing open (the process has exited).
 */
int source_process__open(struct source_process *sp, const char *proc_root, uint32_t pid);

/* source_process__close() closes what source_process__open() opened. */
void source_process__close(struct source_process *sp);

/* What reading a source file found. */
struct source_file {
	char *found;	 /* where it was read (sanitized), or NULL */
	const char *why; /* why not read, or not whole ("not found", ...); NULL: read whole */
	uint32_t nlines; /* the lines it has (as far as it was read) */
};

/*
 * source_file__read() reads lines @lines (@n line numbers from 1, in
 * ascending order) of the file at @path (normalized, as line_table gives
 * it): @texts[i] becomes a new string holding line @lines[i], or NULL for
 * a line past the file's end. It looks at @path itself when absolute, in
 * the process's root and as the process (@pl->creds); then under each of
 * @pl->dirs: DIR/@path (as perf annotate --prefix), then DIR/ and @path
 * less its first component, its first two, ... (glibc's "./stdlib/msort.c"
 * is DIR/stdlib/msort.c, "/build/x/src/a.c" DIR/src/a.c). Returns 0, or
 * -errno with @out->why saying why in a few words (every @texts[i] NULL);
 * a file read only as far as SOURCE_MAX_BYTES is read (0), @out->why
 * saying so.
 */
int source_file__read(const struct source_place *pl, const char *path, const uint32_t *lines,
		      size_t n, char **texts, struct source_file *out);

/* Frees what @f holds; @f is then empty. */
void source_file__free(struct source_file *f);

#endif
