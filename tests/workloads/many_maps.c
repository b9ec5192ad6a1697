// SPDX-License-Identifier: GPL-2.0
/*
 * many_maps: a process with tens of thousands of mappings, running code in
 * the last of them. Usage: many_maps SECONDS [COUNT]. It maps COUNT
 * (default 30000) pages of executable anonymous memory, each apart from
 * the next (a page without access between them keeps them from merging),
 * copies a function that spins into each, prints "ready" and calls the
 * last one's for SECONDS. Its walk meets code beyond the mappings an
 * unwinder describes (256), so the capture keeps saying its maps are
 * stale: tests/integration/many_maps.sh checks what that costs flametop.
 * x86-64 only: elsewhere it exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jit_code.h"

#if defined(__x86_64__)
#define PAGE 4096

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end = now() + seconds;
	long count = argc > 2 ? atol(argv[2]) : 30000;
	unsigned char *mem;
	void (*spin)(void);

	if (count < 1)
		return 2;
	mem = mmap(NULL, (size_t)count * 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	for (long i = 0; i < count; i++) {
		unsigned char *page = mem + i * 2 * PAGE;

		if (mprotect(page, PAGE, PROT_READ | PROT_WRITE))
			return 1;
		memcpy(page, spin_code, sizeof(spin_code));
		if (mprotect(page, PAGE, PROT_READ | PROT_EXEC))
			return 1;
	}
	*(void **)&spin = mem + (count - 1) * 2 * PAGE;
	puts("ready");
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
