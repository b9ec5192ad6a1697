// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/output_file.h"

#define FILE_MODE 0644 /* less the umask */
#define TMP_TRIES 100  /* temporary names tried before giving up */

static const struct output_file closed = { NULL, -1, NULL, NULL, false };

/* Closes what @of holds but its stream, and leaves it closed. */
static void release(struct output_file *of)
{
	if (of->dir >= 0)
		close(of->dir);
	free(of->name);
	free(of->tmp);
	*of = closed;
}

/*
 * Opens @path's directory (O_PATH) into of->dir, not through a symbolic
 * link as its last component, and copies @path's last component into
 * of->name. Returns 0, -ELOOP, -EISDIR (@path ends in '/') or -errno.
 */
static int open_dir(struct output_file *of, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir;
	struct stat st;
	int err = 0;

	if (!base[0])
		return -EISDIR;
	dir = !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
	of->name = strdup(base);
	if (!dir || !of->name) {
		free(dir);
		return -ENOMEM;
	}
	of->dir = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (of->dir < 0) {
		err = -errno;
		if (err == -ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			err = -ELOOP;
	}
	free(dir);
	return err;
}

/*
 * The kernel's protected_regular rule: in a world-writable sticky
 * directory, a file owned neither by this user nor by the directory's
 * owner is not to be written.
 */
static int check_owner(const struct output_file *of, const struct stat *st)
{
	struct stat ds;

	if (fstat(of->dir, &ds))
		return -errno;
	if ((ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) && st->st_uid != geteuid() &&
	    st->st_uid != ds.st_uid)
		return -EPERM;
	return 0;
}

/* Gives of->tmp (allocated here) a new random name beside the target: ".NAME.XXXXXX". */
static int random_tmp_name(struct output_file *of)
{
	unsigned int r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (unsigned int)random();
	free(of->tmp);
	if (asprintf(&of->tmp, ".%s.%06x", of->name, r & 0xffffff) < 0) {
		of->tmp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Opens a file in of->dir: without a name (O_TMPFILE), so that a process
 * killed before naming it leaves nothing; where the file system cannot, a
 * new file of a temporary name (O_EXCL: never through a link). Returns the
 * descriptor or -errno.
 */
static int open_temp(struct output_file *of, mode_t mode)
{
	int fd = openat(of->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	int err = -EEXIST;

	of->unnamed = fd >= 0;
	if (fd >= 0)
		return fd;
	for (int i = 0; i < TMP_TRIES && err == -EEXIST; i++) {
		err = random_tmp_name(of);
		if (err)
			return err;
		fd = openat(of->dir, of->tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		err = fd < 0 ? -errno : 0;
	}
	if (err) {
		free(of->tmp);
		of->tmp = NULL;
		return err;
	}
	return fd;
}

/* Opens of->f on a temporary file in of->dir, mode 0644 less the umask. */
static int open_temp_stream(struct output_file *of)
{
	mode_t mask = umask(0);
	int fd, err;

	umask(mask);
	fd = open_temp(of, FILE_MODE & ~mask);
	if (fd < 0)
		return fd;
	if (!fchmod(fd, FILE_MODE & ~mask) && (of->f = fdopen(fd, "w")))
		return 0;
	err = -errno;
	close(fd);
	if (of->tmp)
		unlinkat(of->dir, of->tmp, 0);
	return err;
}

/* Opens the FIFO or device of->name in of->dir itself; the directory is let go. */
static int open_special(struct output_file *of)
{
	int fd = openat(of->dir, of->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	of->f = fdopen(fd, "w");
	if (!of->f) {
		err = -errno;
		close(fd);
		return err;
	}
	close(of->dir);
	of->dir = -1;
	return 0;
}

int output_file__open_beside(struct output_file *of, const char *path)
{
	int err;

	*of = closed;
	err = open_dir(of, path) ?: open_temp_stream(of);
	if (err)
		release(of);
	return err;
}

/* Checks what of->name is in of->dir, and opens what to write for it. */
static int open_target(struct output_file *of)
{
	struct stat st;
	int err;

	if (fstatat(of->dir, of->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? open_temp_stream(of) : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	err = check_owner(of, &st);
	if (err)
		return err;
	return S_ISREG(st.st_mode) ? open_temp_stream(of) : open_special(of);
}

int output_file__open(struct output_file *of, const char *path)
{
	int err;

	*of = closed;
	err = open_dir(of, path) ?: open_target(of);
	if (err)
		release(of);
	return err;
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

/* Gives the unnamed file of @of the name @name in of->dir, unless it is taken (-EEXIST). */
static int link_unnamed(const struct output_file *of, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(of->f));
	return linkat(AT_FDCWD, proc, of->dir, name, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/*
 * Names @of's unnamed file with a temporary name, so that it can be renamed
 * over the target (a link cannot replace a file).
 */
static int name_temporary(struct output_file *of)
{
	int err = -EEXIST;

	for (int i = 0; i < TMP_TRIES && err == -EEXIST; i++)
		err = random_tmp_name(of) ?: link_unnamed(of, of->tmp);
	if (err) {
		free(of->tmp);
		of->tmp = NULL;
		return err;
	}
	of->unnamed = false;
	return 0;
}

int output_file__commit(struct output_file *of)
{
	int err;

	if (!of->f)
		return -EBADF;
	err = fflush(of->f) || ferror(of->f) ? -EIO : 0;
	if (!err && of->unnamed)
		err = name_temporary(of);
	err = close_stream(of) ?: err;
	if (of->tmp && !err && renameat(of->dir, of->tmp, of->dir, of->name))
		err = -errno;
	if (of->tmp && err)
		unlinkat(of->dir, of->tmp, 0);
	release(of);
	return err;
}

int output_file__commit_new(struct output_file *of, const char *name)
{
	int err;

	if (!of->f || of->dir < 0)
		return -EBADF;
	if (!name[0] || strchr(name, '/'))
		return -EINVAL;
	if (fflush(of->f) || ferror(of->f))
		return -EIO;
	/* A hard link takes the name only when it is free; then a temporary name goes. */
	if (of->unnamed)
		err = link_unnamed(of, name);
	else
		err = linkat(of->dir, of->tmp, of->dir, name, 0) ? -errno : 0;
	if (err)
		return err;
	if (!of->unnamed)
		unlinkat(of->dir, of->tmp, 0);
	of->unnamed = false;
	err = close_stream(of);
	if (err)
		unlinkat(of->dir, name, 0);
	release(of);
	return err;
}

void output_file__discard(struct output_file *of)
{
	if (!of->f)
		return;
	fclose(of->f);
	if (of->tmp && !of->unnamed)
		unlinkat(of->dir, of->tmp, 0);
	release(of);
}

const char *output_file__strerror(int err)
{
	if (err == -ELOOP)
		return "a symbolic link: not written through";
	if (err == -EPERM)
		return "another user's file in a world-writable sticky directory: not replaced";
	return strerror(-err);
}
