// SPDX-License-Identifier: GPL-2.0
/*
 * jit_spin: runs machine code it generated in anonymous executable memory,
 * as a JIT does. Usage: jit_spin SECONDS [write-map]. With "write-map" it
 * describes the code in /tmp/perf-PID.map itself (the file is then its
 * own); either way it prints "ready ADDRESS SIZE" once the code runs, and
 * spins in it for SECONDS. The generated function keeps a frame record, as
 * JIT compilers' code does: code without unwind tables is stepped through
 * by frame pointer, so its samples read main;jit_spin_loop (the name from
 * the perf map, else [anon]). x86-64 only: elsewhere it exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit_code.h"

#if defined(__x86_64__)
#define CODE_OFFSET 0x100 /* the function starts here in the mapping */

static void write_perf_map(const unsigned char *code)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		exit(1);
	fprintf(f, "%lx %zx jit_spin_loop\n", (unsigned long)code, sizeof(spin_code));
	fclose(f);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end = now() + seconds;
	unsigned char *mem =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*spin)(void);

	if (mem == MAP_FAILED)
		return 1;
	memset(mem, 0xcc, 4096);
	memcpy(mem + CODE_OFFSET, spin_code, sizeof(spin_code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	if (argc > 2 && !strcmp(argv[2], "write-map"))
		write_perf_map(mem + CODE_OFFSET);
	*(void **)&spin = mem + CODE_OFFSET;
	printf("ready %lx %zx\n", (unsigned long)(mem + CODE_OFFSET), sizeof(spin_code));
	fflush(stdout);
	spin_until(spin, end);
	return 0;
}
#else
int main(void)
{
	puts("unsupported");
	return 3;
}
#endif
