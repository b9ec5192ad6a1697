// SPDX-License-Identifier: GPL-2.0
/*
 * py_first_frame PYTHON: how soon a new Python process's samples carry its
 * Python frames under a running flametop. Starts PYTHON on a script that
 * writes the monotonic time of its first line and then spins for 3 s, and
 * watches the newest BPF map named flametop_py (a running flametop's map of
 * the Python processes its walk describes) for the process's entry. Prints
 * "MS_TO_DESCRIBED MS_TO_FIRST_LINE", both from the exec; exits 1 when the
 * process was not described within 2 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "python/py_layout.h"
#include "tests/bench/bench_clock.h"

#define SCRIPT                                                                                     \
	"import sys, time\n"                                                                       \
	"print(time.clock_gettime(time.CLOCK_MONOTONIC), flush=True)\n"                            \
	"end = time.monotonic() + 3\n"                                                             \
	"while time.monotonic() < end:\n"                                                          \
	"    sum(range(100))\n"

/* The fd of the newest map named flametop_py, or -1. */
static int newest_python_map(void)
{
	__u32 id = 0, newest = 0;

	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "flametop_py"))
			newest = id;
		close(fd);
	}
	return newest ? bpf_map_get_fd_by_id(newest) : -1;
}

int main(int argc, char **argv)
{
	int map = newest_python_map(), out[2];
	double start, described = -1, first_line = -1;
	struct py_proc proc;
	char line[64] = "";
	pid_t pid;
	FILE *f;

	if (argc != 2 || map < 0 || pipe(out)) {
		fprintf(stderr, "usage: py_first_frame PYTHON, under a running flametop\n");
		return 2;
	}
	start = now_ms();
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		execl(argv[1], argv[1], "-c", SCRIPT, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	while (now_ms() - start < 2000 && described < 0) {
		if (!bpf_map_lookup_elem(map, &pid, &proc) && (proc.flags & PY_PROC_SUPPORTED))
			described = now_ms() - start;
		usleep(200);
	}
	f = fdopen(out[0], "r");
	if (f && fgets(line, sizeof(line), f))
		first_line = atof(line) * 1e3 - start;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if (described < 0)
		return 1;
	printf("%.1f %.1f\n", described, first_line);
	return 0;
}
