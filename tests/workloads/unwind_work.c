// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_work: a program built as users build theirs (plain -O2, calling
 * libc), for the unwinder's tests, which build it three ways: without frame
 * pointers, with -fno-omit-frame-pointer (gcc still drops them from leaf
 * functions), and stripped. For argv[1] seconds (default 10), over and over:
 *
 *	main -> work -> leaf_a          arithmetic, no call (a small leaf)
 *	             -> leaf_b          the same, a third of leaf_a's rounds
 *	             -> with_libc       memset() and strlen() in libc
 *	             -> sort_with_libc  qsort() in libc, calling back cmp_ints()
 *
 * so every function below main has one caller, and cmp_ints()'s is in libc.
 * The functions are kept out of line, and each call is followed by a
 * store, so that gcc neither inlines them nor turns a last call into a
 * jump: the stacks are the ones written here.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf_a(void)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < 3000000; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	sink = x;
}

__attribute__((noinline)) void leaf_b(void)
{
	unsigned long x = 5;

	for (unsigned long i = 0; i < 1000000; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	sink = x;
}

__attribute__((noinline)) void with_libc(void)
{
	static char buf[64 * 1024];

	for (int i = 0; i < 16; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf) - 1);
		sink += strlen(buf);
	}
}

__attribute__((noinline)) int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_with_libc(void)
{
	static int v[4096];

	for (int i = 0; i < 4096; i++)
		v[i] = rand();
	qsort(v, 4096, sizeof(v[0]), cmp_ints);
	sink += v[0];
}

__attribute__((noinline)) void work(void)
{
	leaf_a();
	leaf_b();
	with_libc();
	sort_with_libc();
	sink++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	time_t end = time(NULL) + (time_t)seconds;

	while (time(NULL) < end)
		work();
	return 0;
}
