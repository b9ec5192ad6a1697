// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_loop: spends its time in the kernel, reading /dev/zero in small
 * chunks, for argv[1] seconds (default 10), through libc's read(): its
 * stacks read main;read_zeros;read, then the kernel's frames from the
 * syscall entry down.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

KEEP_FRAME void read_zeros(int fd)
{
	char buf[64];

	for (int i = 0; i < 10000; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	time_t end = time(NULL) + (time_t)seconds;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	while (time(NULL) < end)
		read_zeros(fd);
	return 0;
}
