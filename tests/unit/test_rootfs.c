// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs and mapped_file: a path another process names is looked at
 * before anything is opened, and only a regular file is. A FIFO with a
 * writer waiting shows whether it was opened: the writer gets through.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <sys/sysmacros.h>

#include "symbols/mapped_file.h"
#include "symbols/rootfs.h"

/* "<tmp>/@name" into @path. */
static void tmp_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", unit_tmpdir(), name);
}

static void test_only_regular_files_are_opened(void **state)
{
	char file[600], fifo[600], dev[600], link[600];
	struct stat st;
	pid_t writer;
	int fd;

	(void)state;
	tmp_path(file, sizeof(file), "plain");
	tmp_path(fifo, sizeof(fifo), "fifo");
	tmp_path(dev, sizeof(dev), "null");
	tmp_path(link, sizeof(link), "link");
	unit_write_file(file, "text");
	fd = rootfs__open_file(-1, file, O_RDONLY, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	close(fd);
	/* A FIFO: refused, and not opened (its writer still waits). */
	writer = unit_fifo_writer(fifo);
	assert_int_equal(rootfs__open_file(-1, fifo, O_RDONLY, &st), -EPERM);
	assert_true(S_ISFIFO(st.st_mode));
	assert_false(unit_fifo_opened(writer));
	/* A device node, a directory, and a symlink not to be followed. */
	if (geteuid() == 0) {
		assert_int_equal(mknod(dev, S_IFCHR | 0600, makedev(1, 3)), 0);
		assert_int_equal(rootfs__open_file(-1, dev, O_RDONLY, &st), -EPERM);
	}
	assert_int_equal(rootfs__open_file(-1, unit_tmpdir(), O_RDONLY, &st), -EPERM);
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(rootfs__open_file(-1, link, O_RDONLY | O_NOFOLLOW, &st), -EPERM);
	fd = rootfs__open_file(-1, link, O_RDONLY, &st);
	assert_true(fd >= 0);
	close(fd);
}

/* What was looked at is what is opened, whatever took its path since. */
static void test_reopen_opens_what_was_looked_at(void **state)
{
	char file[600];
	struct stat st, opened;
	pid_t writer;
	int path_fd, fd;

	(void)state;
	tmp_path(file, sizeof(file), "swapped");
	unit_write_file(file, "text");
	path_fd = rootfs__look(-1, file, 0, &st);
	assert_true(path_fd >= 0);
	assert_int_equal(unlink(file), 0);
	writer = unit_fifo_writer(file);
	fd = rootfs__reopen(path_fd, &st, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &opened), 0);
	assert_int_equal(opened.st_ino, st.st_ino);
	assert_false(unit_fifo_opened(writer));
	close(fd);
	close(path_fd);
}

/*
 * A process mapped "/lib/x.so" and the path is a FIFO now. Without
 * map_files (the process gone), its root and then the host are tried: the
 * FIFO is refused in both, without being opened, even with the mapping's
 * inode and device.
 */
static void test_mapped_path_now_a_fifo(void **state)
{
	char proc[600], host[600], path[700];
	struct proc_map m = {.start = 0x1000, .end = 0x2000, .kind = MAP_FILE};
	struct stat st;
	pid_t writer;
	int fd;

	(void)state;
	tmp_path(proc, sizeof(proc), "proc");
	unit_sh("mkdir -p '%s/4242/root/lib'", proc);
	snprintf(path, sizeof(path), "%s/4242/root/lib/x.so", proc);
	writer = unit_fifo_writer(path);
	assert_int_equal(stat(path, &st), 0);
	m.inode = st.st_ino;
	m.dev_major = major(st.st_dev);
	m.dev_minor = minor(st.st_dev);
	m.path = "/lib/x.so";
	assert_int_equal(mapped_file__open(proc, 4242, &m), -ENOENT);
	assert_false(unit_fifo_opened(writer));
	/* On the host (no root for the process). */
	tmp_path(host, sizeof(host), "x.so");
	writer = unit_fifo_writer(host);
	assert_int_equal(stat(host, &st), 0);
	m.inode = st.st_ino;
	m.path = host;
	assert_int_equal(mapped_file__open(proc, 4243, &m), -ENOENT);
	assert_false(unit_fifo_opened(writer));
	/* The regular file the mapping names is opened. */
	assert_int_equal(unlink(host), 0);
	unit_write_file(host, "elf");
	assert_int_equal(stat(host, &st), 0);
	m.inode = st.st_ino;
	fd = mapped_file__open(proc, 4243, &m);
	assert_true(fd >= 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_only_regular_files_are_opened),
	    cmocka_unit_test(test_reopen_opens_what_was_looked_at),
	    cmocka_unit_test(test_mapped_path_now_a_fifo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
