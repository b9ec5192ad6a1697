/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_file: a file the outputs are written to whole or not at all, in a
 * directory that cannot be swapped from under it. The target's directory
 * is opened once (O_PATH; a symbolic link as its last component is
 * refused), and every later step is taken relative to that descriptor: a
 * directory renamed or replaced by a symbolic link meanwhile (its owner may
 * do it while root writes) changes nothing, the file still lands in the
 * directory checked. The data go to a new file without a name in it
 * (O_TMPFILE; where the file system cannot, a temporary file made with
 * O_EXCL: it never follows a link), which takes the target's name only once
 * complete (renameat): a crash never leaves a half-written file at the
 * name, and a process killed before (kill -9) leaves no file at all. What is
 * in the way is refused, never written through: a symbolic link, and (as
 * the kernel's protected_regular rule has it) a file in a world-writable
 * sticky directory (/tmp) owned neither by this user nor by the directory's
 * owner. A FIFO or device (/dev/null) is written directly.
 */
#ifndef FLAMETOP_OUTPUT_FILE_H
#define FLAMETOP_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct output_file {
	FILE *f;      /* write here */
	int dir;      /* the target's directory (O_PATH), or -1: @f is the target itself */
	char *name;   /* the target's name in @dir */
	char *tmp;    /* the temporary file's name in @dir once it has one, else NULL */
	bool unnamed; /* @f has no name yet (O_TMPFILE) */
};

/*
 * output_file__open() checks @path and opens a temporary file for it in its
 * directory (or @path itself when it is a FIFO or device). Returns 0, -ELOOP
 * (a symbolic link at @path or as its directory's last component), -EPERM
 * (another user's file in a sticky directory), -EISDIR, or another -errno;
 * nothing is made then.
 */
int output_file__open(struct output_file *of, const char *path);

/*
 * output_file__open_beside() opens a temporary file in @path's directory
 * (opened as output_file__open() does), for output_file__commit_new().
 * Returns 0 or -errno.
 */
int output_file__open_beside(struct output_file *of, const char *path);

/*
 * output_file__commit() closes the file and gives it the target's name in
 * the directory opened, replacing what was there. Returns 0, or -errno with
 * the temporary file removed; either way @of is done with.
 */
int output_file__commit(struct output_file *of);

/*
 * output_file__commit_new() gives the file the name @name (one component,
 * no '/') in the directory opened, only when nothing has it (-EEXIST else:
 * @of stays open, to try another name). Returns 0 (the file closed) or
 * -errno.
 */
int output_file__commit_new(struct output_file *of, const char *name);

/* output_file__discard() closes and removes the file; a no-op when not open. */
void output_file__discard(struct output_file *of);

/* What an error of output_file__open() means, in a few words. */
const char *output_file__strerror(int err);

#endif
