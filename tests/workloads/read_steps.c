// SPDX-License-Identifier: GPL-2.0
/*
 * read_steps: reads /dev/zero one byte at a time in steps a test commands,
 * so that read mode's exact counts make known numbers on the screen. Each
 * line of stdin is a step: "a N" makes N read() calls from read_a(), "b N"
 * N from read_b(); after each it prints "done" on stdout. Meanwhile, and
 * until stdin ends, it reads a byte every 10 ms from wait_step() (a tracer
 * started meanwhile sees the process and builds its unwind tables before
 * the counted reads begin). Every read goes through libc's read(): a stack
 * reads main;read_a;read (or read_b, wait_step), then the kernel's frames.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "frames.h"

KEEP_FRAME void read_a(int fd, long n)
{
	char c;

	for (long i = 0; i < n; i++) {
		if (read(fd, &c, 1) != 1)
			exit(1);
	}
}

KEEP_FRAME void read_b(int fd, long n)
{
	char c;

	for (long i = 0; i < n; i++) {
		if (read(fd, &c, 1) != 1)
			exit(1);
	}
}

/* Reads a byte every 10 ms until stdin has a line (or ends). */
KEEP_FRAME void wait_step(int fd)
{
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;

	while (poll(&in, 1, 10) == 0) {
		if (read(fd, &c, 1) != 1)
			exit(1);
	}
}

int main(void)
{
	int fd = open("/dev/zero", O_RDONLY);
	char line[64], which;
	long n;

	if (fd < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stdin, NULL, _IONBF, 0);
	for (;;) {
		wait_step(fd);
		if (!fgets(line, sizeof(line), stdin))
			return 0;
		if (sscanf(line, " %c %ld", &which, &n) != 2 || n < 0 ||
		    (which != 'a' && which != 'b'))
			return 2;
		if (which == 'a')
			read_a(fd, n);
		else
			read_b(fd, n);
		printf("done\n");
	}
}
