// SPDX-License-Identifier: GPL-2.0
/*
 * first_line COMMAND [ARG]...: runs COMMAND with its standard output on a
 * pipe and says when its output began and when it ended, in milliseconds of
 * the monotonic clock since just before the fork:
 *
 *   first_byte_ms=1084.2   (or "none" when nothing came)
 *   exit_ms=1091.7         (the pipe closed and COMMAND was reaped)
 *   status=0               (COMMAND's exit status, or 128 + its signal)
 *
 * What COMMAND writes is read and dropped; its standard error is left alone.
 * Measures, never judges: the exit status is 0 whenever COMMAND could be run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

int main(int argc, char **argv)
{
	double start, first = -1, end;
	char buf[65536];
	int fds[2], wstatus, status;
	ssize_t n;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: first_line COMMAND [ARG]...\n");
		return 2;
	}
	if (pipe(fds)) {
		fprintf(stderr, "first_line: pipe: %s\n", strerror(errno));
		return 2;
	}
	start = now_ms();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "first_line: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "first_line: can't run %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (first < 0)
			first = now_ms();
	}
	close(fds[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	end = now_ms();
	status = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);

	if (first < 0)
		printf("first_byte_ms=none\n");
	else
		printf("first_byte_ms=%.1f\n", first - start);
	printf("exit_ms=%.1f\nstatus=%d\n", end - start, status);
	return 0;
}
