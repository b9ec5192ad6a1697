// SPDX-License-Identifier: GPL-2.0
/*
 * rootfs and mapped_file: a path another process names is looked at
 * before anything is opened, and only a regular file is. A FIFO with a
 * writer waiting shows whether it was opened: the writer gets through.
 * A file mapped by a process is read for it only if it may read it: an
 * execute-only binary run by nobody may not.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <grp.h>
#include <sys/sysmacros.h>

#include "symbols/procmaps.h"

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

/* Starts a copy of sleep(1) of @mode at @path, run as nobody; returns its pid. */
static pid_t sleep_as_nobody(const char *path, mode_t mode)
{
	pid_t pid;

	unit_sh("cp /bin/sleep '%s' && chmod %o '%s'", path, (unsigned int)mode, path);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1);
		execl(path, "sleep", "30", (char *)NULL);
		_exit(1);
	}
	return pid;
}

/* The mapping of @path in process @pid, once it has exec'd (2 s at most); fails the test else. */
static struct proc_map map_of(pid_t pid, const char *path, struct proc_maps *maps)
{
	for (int i = 0; i < 200; i++) {
		assert_int_equal(proc_maps__read("/proc", pid, maps), 0);
		for (size_t j = 0; j < maps->n; j++)
			if (!strcmp(maps->maps[j].path, path))
				return maps->maps[j];
		proc_maps__free(maps);
		usleep(10000);
	}
	fail_msg("%s never mapped in %d", path, (int)pid);
	return (struct proc_map){ 0 };
}

/* Who may read @path, as a cache would learn it: from the file, opened as flametop. */
static struct read_access access_of(const char *path)
{
	struct read_access a;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	read_access__init(&a, fd, &st);
	close(fd);
	return a;
}

/*
 * An execute-only binary (0711) that nobody runs: nobody may not read it,
 * so it is not read for nobody's process (asked of the kernel through
 * map_files, with nobody's credentials); root may. A 0755 copy is anyone's
 * to read: no one is asked. Root only.
 */
static void test_execute_only_binary(void **state)
{
	const struct proc_creds nobody = { .uid = 65534, .gid = 65534 }, root = { 0 };
	char xo[600], rx[600];
	struct proc_maps maps;
	struct read_access a;
	struct proc_map m;
	pid_t pid;

	(void)state;
	if (geteuid())
		skip();
	assert_int_equal(chmod(unit_tmpdir(), 0711), 0);
	tmp_path(xo, sizeof(xo), "xo_sleep");
	tmp_path(rx, sizeof(rx), "rx_sleep");
	pid = sleep_as_nobody(xo, 0711);
	m = map_of(pid, xo, &maps);
	a = access_of(xo);
	assert_false(a.to_all);
	assert_int_equal(read_access__known(&a, &nobody), -1);
	assert_false(mapped_file__may_read(&a, "/proc", (uint32_t)pid, &m, &nobody));
	assert_int_equal(read_access__known(&a, &nobody), 0); /* remembered */
	assert_true(mapped_file__may_read(&a, "/proc", (uint32_t)pid, &m, &root));
	assert_false(mapped_file__may_read(&a, "/proc", (uint32_t)pid, &m, NULL));
	read_access__free(&a);
	proc_maps__free(&maps);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pid = sleep_as_nobody(rx, 0755);
	m = map_of(pid, rx, &maps);
	a = access_of(rx);
	assert_true(a.to_all);
	assert_true(mapped_file__may_read(&a, "/proc", (uint32_t)pid, &m, &nobody));
	assert_true(mapped_file__may_read(&a, "/proc", (uint32_t)pid, &m, NULL));
	read_access__free(&a);
	proc_maps__free(&maps);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_only_regular_files_are_opened),
	    cmocka_unit_test(test_reopen_opens_what_was_looked_at),
	    cmocka_unit_test(test_mapped_path_now_a_fifo),
	    cmocka_unit_test(test_execute_only_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
