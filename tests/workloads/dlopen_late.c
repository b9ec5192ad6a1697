// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_late: loads a library after it started, then spins in it. Waits
 * argv[2] seconds, dlopen()s argv[1] and calls its late_lib_spin() until
 * argv[3] seconds have passed since the start: its samples read
 * main;late_lib_spin. The library is built by the test, at -O2 as well.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double start = now(), delay, total;
	void (*spin)(void);
	void *lib;

	if (argc < 4)
		return 2;
	delay = atof(argv[2]);
	total = atof(argv[3]);
	while (now() - start < delay)
		usleep(10000);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen_late: %s\n", dlerror());
		return 1;
	}
	*(void **)&spin = dlsym(lib, "late_lib_spin");
	if (!spin)
		return 1;
	while (now() - start < total)
		spin();
	return 0;
}
