// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_many: a process with many libraries, as big programs have (a
 * browser, an IDE, a plugin host): dlopen()s DIR/lib0.so .. DIR/lib{N-1}.so
 * (built by the test), then for SECONDS calls each one's lib_spin() in
 * turn, through call_each(): its samples read main;call_each;lib_spin.
 *
 *   dlopen_many DIR N SECONDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "frames.h"

typedef unsigned long (*spin_fn)(unsigned long);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

KEEP_FRAME unsigned long call_each(spin_fn *fns, int n)
{
	unsigned long sum = 0;

	for (int i = 0; i < n; i++)
		sum += fns[i](20000);
	KEEP_CALLER();
	return sum;
}

int main(int argc, char **argv)
{
	volatile unsigned long sink = 0;
	double end;
	spin_fn *fns;
	char path[4096];
	int n;

	if (argc < 4 || (n = atoi(argv[2])) <= 0)
		return 2;
	fns = calloc((size_t)n, sizeof(*fns));
	if (!fns)
		return 1;
	for (int i = 0; i < n; i++) {
		void *lib;

		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!lib || !(*(void **)&fns[i] = dlsym(lib, "lib_spin"))) {
			fprintf(stderr, "dlopen_many: %s\n", dlerror());
			return 1;
		}
	}
	end = now() + atof(argv[3]);
	while (now() < end)
		sink = sink + call_each(fns, n);
	return 0;
}
