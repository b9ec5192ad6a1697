/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unit.h: what every cmocka unit test includes, plus small helpers for tests
 * that build their own fixtures at run time.
 */
#ifndef FLAMETOP_UNIT_H
#define FLAMETOP_UNIT_H

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

/*
 * How long a symbolizer under test waits for the symbol tables its threads
 * read, in a pass (symbolizer_opts.elf_wait_ns): as long as a loaded
 * machine, or ASan, makes it take.
 */
#define UNIT_ELF_WAIT_NS (60 * 1000000000ull)

/* Directory of checked-in fixtures, relative to the repository root. */
#define FIXTURES "tests/fixtures"

/*
 * unit_tmpdir() returns a fresh private directory under $TMPDIR (or /tmp)
 * for this test program; it is removed at exit.
 */
static char unit_tmpdir__[256];

static inline void unit_tmpdir_remove__(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_tmpdir__);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", unit_tmpdir__);
}

static inline const char *unit_tmpdir(void)
{
	if (!unit_tmpdir__[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(unit_tmpdir__, sizeof(unit_tmpdir__), "%s/flametop-unit-XXXXXX",
			 base ? base : "/tmp");
		if (!mkdtemp(unit_tmpdir__))
			abort();
		atexit(unit_tmpdir_remove__);
	}
	return unit_tmpdir__;
}

/* unit_write_file() writes @text to @path, created or emptied; fails the test on error. */
static inline void unit_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* unit_text_fd() returns a file (without a name) holding the @len bytes at @text, read from its start. */
static inline int unit_text_fd(const char *text, size_t len)
{
	int fd = open(unit_tmpdir(), O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/*
 * unit_read_file() returns the bytes of file @path, malloc()ed, and sets
 * *@len; fails the test on error.
 */
static inline unsigned char *unit_read_file(const char *path, size_t *len)
{
	unsigned char *buf;
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * unit_sh() runs a shell command and fails the current test when it does not
 * exit 0. Used to build fixtures with gcc, objcopy and strip.
 */
#define unit_sh(...)                                                                               \
	do {                                                                                       \
		char unit_cmd__[4096];                                                             \
		snprintf(unit_cmd__, sizeof(unit_cmd__), __VA_ARGS__);                             \
		int unit_rc__ = system(unit_cmd__);                                                \
		if (unit_rc__ != 0)                                                                \
			fail_msg("command failed (%d): %s", unit_rc__, unit_cmd__);               \
	} while (0)

/*
 * unit_fifo_writer() makes a FIFO at @path and a child that opens it for
 * writing, which blocks until someone opens it for reading; returns the
 * child once it waits in open(). unit_fifo_opened() tells whether the FIFO
 * was opened for reading since (the child got through and exited), and
 * ends the child.
 */
static inline pid_t unit_fifo_writer(const char *path)
{
	char proc[64], call[64] = "";
	pid_t pid;
	FILE *f;
	int i;

	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(path, O_WRONLY);

		_exit(fd < 0 ? 2 : 0);
	}
	/* /proc/PID/syscall starts with the number of the call the child waits in. */
	snprintf(proc, sizeof(proc), "/proc/%d/syscall", (int)pid);
	for (i = 0; i < 500; i++) {
		f = fopen(proc, "r");
		if (f && fgets(call, sizeof(call), f) && atoi(call) == SYS_openat) {
			fclose(f);
			return pid;
		}
		if (f)
			fclose(f);
		usleep(10000);
	}
	fail_msg("the FIFO writer never waited in open (%s)", call);
	return pid;
}

static inline bool unit_fifo_opened(pid_t writer)
{
	int status, i;

	for (i = 0; i < 20; i++) { /* an opened FIFO lets the child exit at once: 200 ms is plenty */
		if (waitpid(writer, &status, WNOHANG) == writer)
			return true;
		usleep(10000);
	}
	kill(writer, SIGKILL);
	waitpid(writer, &status, 0);
	return false;
}

#endif
