// SPDX-License-Identifier: GPL-2.0
/*
 * symbols: what naming costs. Measures, never decides:
 *
 *   symbols kernel           kernel lookups per second (random text symbols)
 *   symbols user             cached user lookups per second (this process, libc)
 *   symbols first LIB FN     the first lookup of function FN in shared library
 *                            LIB (dlopen()ed here): maps, ELF read, table built
 *   symbols procs N          N processes sharing libc: what the caches hold
 *
 * Each prints "key=value" lines for tests/bench/symbols.sh.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbols/symbolizer.h"

#define KERNEL_ADDRS 65536
#define USER_LOOKUPS 4000000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct symbolizer *new_symbolizer(void)
{
	struct symbolizer *s = symbolizer__new(NULL);

	if (!s) {
		perror("symbolizer__new");
		exit(1);
	}
	return s;
}

/* Text symbols of /proc/kallsyms outside modules and BPF, shuffled, plus a small offset. */
static size_t kernel_addrs(uint64_t *addrs, size_t max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type;
	unsigned long long a;
	size_t n = 0, seen = 0;

	if (!f)
		return 0;
	srand(42);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &a, &type) != 2 || !a || strchr(line, '[') ||
		    (type != 't' && type != 'T'))
			continue;
		seen++;
		if (n < max)
			addrs[n++] = a + (uint64_t)(rand() % 16);
		else if ((size_t)rand() % seen < max)
			addrs[(size_t)rand() % max] = a + (uint64_t)(rand() % 16);
	}
	fclose(f);
	return n;
}

static int bench_kernel(void)
{
	static uint64_t addrs[KERNEL_ADDRS];
	struct symbolizer *s = new_symbolizer();
	size_t n = kernel_addrs(addrs, KERNEL_ADDRS), named = 0, total = 0;
	char buf[256];
	double t0, t;
	int round;

	if (!n || symbolizer__kernel_hidden(s)) {
		puts("kernel_lookups_per_sec=n/a");
		return 0;
	}
	t0 = now();
	for (round = 0; round < 64 || now() - t0 < 1.0; round++) {
		for (size_t i = 0; i < n; i++)
			named +=
			    symbolizer__kernel(s, addrs[i], true, buf, sizeof(buf)) == SYM_NAMED;
		total += n;
	}
	t = now() - t0;
	printf("kernel_lookups_per_sec=%.0f\nkernel_named_pct=%.1f\nkernel_symbols_sampled=%zu\n",
	       total / t, 100.0 * named / total, n);
	symbolizer__free(s);
	return 0;
}

static int bench_user(void)
{
	static const char *const fns[] = {"printf", "malloc", "free",	"memcpy", "strlen",
					  "qsort",  "fopen",  "fclose", "read",	  "write",
					  "open",   "close",  "getpid", "strcmp", "snprintf"};
	uint32_t self = (uint32_t)getpid();
	uint64_t addrs[sizeof(fns) / sizeof(fns[0]) + 2];
	size_t n = 0, named = 0, i;
	struct symbolizer *s = new_symbolizer();
	char buf[256];
	double t0, t;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *p = dlsym(RTLD_DEFAULT, fns[i]);

		if (p)
			addrs[n++] = (uint64_t)(uintptr_t)p + 4;
	}
	addrs[n++] = (uint64_t)(uintptr_t)&bench_user + 8;
	addrs[n++] = (uint64_t)(uintptr_t)&new_symbolizer + 8;
	for (i = 0; i < n; i++) /* warm: maps read, tables loaded */
		symbolizer__user(s, self, addrs[i], true, buf, sizeof(buf));
	t0 = now();
	for (i = 0; i < USER_LOOKUPS; i++)
		named +=
		    symbolizer__user(s, self, addrs[i % n], true, buf, sizeof(buf)) == SYM_NAMED;
	t = now() - t0;
	printf("user_lookups_per_sec=%.0f\nuser_named_pct=%.1f\n", USER_LOOKUPS / t,
	       100.0 * named / USER_LOOKUPS);
	symbolizer__free(s);
	return 0;
}

static int bench_first(const char *lib, const char *fn)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL), *p;
	struct symbolizer *s;
	struct symbolizer_stats st;
	char buf[1100];
	double t0, t;
	int rc;

	if (!h || !(p = dlsym(h, fn))) {
		fprintf(stderr, "symbols: %s\n", dlerror());
		return 1;
	}
	s = new_symbolizer();
	t0 = now();
	rc = symbolizer__user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)p + 1, false, buf,
			      sizeof(buf));
	t = now() - t0;
	symbolizer__stats(s, &st);
	printf("first_lookup_ms=%.1f\nfirst_named=%d\nfirst_name=%s\ntable_bytes=%zu\n", t * 1e3,
	       rc == SYM_NAMED, buf, st.elf_bytes);
	symbolizer__free(s);
	return 0;
}

/* Starts @n children that share this program and libc, each waiting on a pipe. */
static int start_children(pid_t *pids, int n, int *release)
{
	int fds[2], i;
	char c;

	if (pipe(fds))
		return -1;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(fds[1]);
			_exit(read(fds[0], &c, 1) < 0);
		}
	}
	close(fds[0]);
	*release = fds[1];
	return 0;
}

static int bench_procs(int n)
{
	uint64_t in_libc = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "printf") + 4;
	uint64_t in_self = (uint64_t)(uintptr_t)&bench_procs + 8;
	pid_t *pids = calloc((size_t)n, sizeof(*pids));
	struct mallinfo2 before, after;
	struct symbolizer_stats st;
	struct symbolizer *s;
	size_t named = 0;
	char buf[256];
	int release, i;

	if (!pids || start_children(pids, n, &release))
		return 1;
	s = new_symbolizer();
	before = mallinfo2();
	for (i = 0; i < n; i++) {
		named += symbolizer__user(s, (uint32_t)pids[i], in_libc, true, buf, sizeof(buf)) ==
			 SYM_NAMED;
		named += symbolizer__user(s, (uint32_t)pids[i], in_self, true, buf, sizeof(buf)) ==
			 SYM_NAMED;
	}
	after = mallinfo2();
	symbolizer__stats(s, &st);
	printf("procs=%zu\nprocs_named_pct=%.1f\nelf_tables=%zu\nelf_bytes=%zu\nproc_bytes=%zu\n"
	       "proc_bytes_each=%zu\nheap_growth=%zu\n",
	       st.processes, 50.0 * named / n, st.elf_tables, st.elf_bytes, st.proc_bytes,
	       st.proc_bytes / (st.processes ? st.processes : 1), after.uordblks - before.uordblks);
	close(release);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	symbolizer__free(s);
	free(pids);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "kernel"))
		return bench_kernel();
	if (argc >= 2 && !strcmp(argv[1], "user"))
		return bench_user();
	if (argc >= 4 && !strcmp(argv[1], "first"))
		return bench_first(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "procs"))
		return bench_procs(atoi(argv[2]));
	fprintf(stderr, "usage: symbols kernel | user | first LIB FN | procs N\n");
	return 2;
}
