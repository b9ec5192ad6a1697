// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/output_file.h"

#define FILE_MODE 0644 /* less the umask */

/* @path's directory, as a new string ("." for a bare name); NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/*
 * The kernel's protected_regular rule: in a world-writable sticky
 * directory, a file owned neither by this user nor by the directory's
 * owner is not to be written.
 */
static int check_owner(const char *path, const struct stat *st)
{
	char *dir = dir_of(path);
	struct stat ds;
	int err = 0;

	if (!dir)
		return -ENOMEM;
	if (stat(dir, &ds))
		err = -errno;
	else if ((ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) && st->st_uid != geteuid() &&
		 st->st_uid != ds.st_uid)
		err = -EPERM;
	free(dir);
	return err;
}

/*
 * Opens a file without a name in @path's directory (O_TMPFILE): killed
 * before it is named, the process leaves nothing. Returns the descriptor,
 * or -errno (-EOPNOTSUPP and the like where the file system cannot).
 */
static int open_unnamed(const char *path, mode_t mode)
{
	char *dir = dir_of(path);
	int fd;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	free(dir);
	return fd < 0 ? -errno : fd;
}

/* Gives @of's unnamed file the name @name, unless it is taken (-EEXIST). */
static int name_unnamed(const struct output_file *of, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(of->f));
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

int output_file__open_beside(struct output_file *of, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0, fd;
	mode_t mask = umask(0);

	umask(mask);
	*of = (struct output_file){ NULL, NULL, false };
	if (asprintf(&of->tmp, "%.*s.%s.XXXXXX", dir_len, path, base) < 0) {
		of->tmp = NULL;
		return -ENOMEM;
	}
	fd = open_unnamed(path, FILE_MODE & ~mask);
	of->unnamed = fd >= 0;
	if (fd < 0)
		fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, FILE_MODE & ~mask) || !(of->f = fdopen(fd, "w"))) {
		int err = -errno;

		if (fd >= 0) {
			close(fd);
			if (!of->unnamed)
				unlink(of->tmp);
		}
		free(of->tmp);
		of->tmp = NULL;
		return err;
	}
	return 0;
}

/* Opens the FIFO or device @path itself. */
static int open_special(struct output_file *of, const char *path)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	*of = (struct output_file){ NULL, NULL, false };
	if (fd < 0)
		return -errno;
	of->f = fdopen(fd, "w");
	if (!of->f) {
		int err = -errno;

		close(fd);
		return err;
	}
	return 0;
}

int output_file__open(struct output_file *of, const char *path)
{
	struct stat st;
	int err;

	*of = (struct output_file){ NULL, NULL, false };
	if (lstat(path, &st))
		return errno == ENOENT ? output_file__open_beside(of, path) : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	err = check_owner(path, &st);
	if (err)
		return err;
	return S_ISREG(st.st_mode) ? output_file__open_beside(of, path) : open_special(of, path);
}

/* Closes the stream; returns 0 or -errno (a write that failed, now or before). */
static int close_stream(struct output_file *of)
{
	int err = ferror(of->f) ? -EIO : 0;

	if (fclose(of->f) && !err)
		err = -(errno ? errno : EIO);
	of->f = NULL;
	return err;
}

/*
 * Names @of's unnamed file after its template of->tmp, made unique, so
 * that it can be renamed over the target (a link cannot replace a file).
 */
static int name_temporary(struct output_file *of)
{
	size_t len = strlen(of->tmp);
	int err = -EEXIST;

	for (int i = 0; i < 100 && err == -EEXIST; i++) {
		snprintf(of->tmp + len - 6, 7, "%06lx", (unsigned long)random() & 0xffffff);
		err = name_unnamed(of, of->tmp);
	}
	if (!err)
		of->unnamed = false;
	return err;
}

int output_file__commit(struct output_file *of, const char *path)
{
	int err;

	if (!of->f)
		return -EBADF;
	err = fflush(of->f) || ferror(of->f) ? -EIO : 0;
	if (!err && of->unnamed)
		err = name_temporary(of);
	err = close_stream(of) ?: err;
	if (of->tmp && !of->unnamed && !err && rename(of->tmp, path))
		err = -errno;
	if (of->tmp && !of->unnamed && err)
		unlink(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	of->unnamed = false;
	return err;
}

int output_file__commit_new(struct output_file *of, const char *path)
{
	int err;

	if (!of->f || !of->tmp)
		return -EBADF;
	if (fflush(of->f) || ferror(of->f))
		return -EIO;
	/* A hard link takes the name only when it is free; then a temporary name goes. */
	if (of->unnamed)
		err = name_unnamed(of, path);
	else
		err = link(of->tmp, path) ? -errno : 0;
	if (err)
		return err;
	if (!of->unnamed)
		unlink(of->tmp);
	of->unnamed = false;
	err = close_stream(of);
	free(of->tmp);
	of->tmp = NULL;
	if (err)
		unlink(path);
	return err;
}

void output_file__discard(struct output_file *of)
{
	if (of->f)
		fclose(of->f);
	if (of->tmp && !of->unnamed)
		unlink(of->tmp);
	free(of->tmp);
	*of = (struct output_file){ NULL, NULL, false };
}

const char *output_file__strerror(int err)
{
	if (err == -ELOOP)
		return "a symbolic link: not written through";
	if (err == -EPERM)
		return "another user's file in a world-writable sticky directory: not replaced";
	return strerror(-err);
}
