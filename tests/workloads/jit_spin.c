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
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* push %rbp; mov %rsp, %rbp; mov $1000000, %ecx; 1: dec %ecx; jnz 1b; pop %rbp; ret */
static const unsigned char spin_code[] = {0x55, 0x48, 0x89, 0xe5, 0xb9, 0x40, 0x42, 0x0f,
					  0x00, 0xff, 0xc9, 0x75, 0xfc, 0x5d, 0xc3};
#define CODE_OFFSET 0x100 /* the function starts here in the mapping */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	while (now() < end)
		spin();
	return 0;
}
#else
int main(void)
{
	puts("unsupported");
	return 3;
}
#endif
