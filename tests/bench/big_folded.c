// SPDX-License-Identifier: GPL-2.0
/*
 * big_folded LINES random|graph: writes a synthetic folded file of LINES
 * stacks to stdout, the big inputs the viewer is measured on (make bench).
 * Both draw on 40 processes and 5,000 function names of 8 to 30 characters
 * (500 of them kernel functions); stacks are 10 to 30 frames deep, counts 1
 * to 1000, and the same arguments always give the same file.
 *
 * random: every frame drawn at random (kernel frames, 1 to 5, end a third
 * of the stacks), so stacks share nothing but their process: the worst
 * case for the view trie, one node per frame.
 *
 * graph: shaped like a real profile: a random call graph per process in
 * which kernel functions only call kernel functions, walked depth first so
 * that neighbouring lines share their callers, as flametop and
 * stackcollapse-perf.pl write them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMES 5000
#define KERNEL_NAMES 500 /* the last ones */
#define PROCESSES 40
#define MIN_DEPTH 10
#define MAX_DEPTH 30
#define NAME_MAX_LEN 30

static char names[NAMES][NAME_MAX_LEN + 5];
static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(next_random() % n);
}

/* Names such as "json_parse_value_17" or "tcp_sendmsg_locked_[k]", 8 to 30 characters. */
static void make_names(void)
{
	static const char *const words[] = {
		"json", "parse", "value", "http", "request", "handle", "cache", "lookup", "alloc",
		"free", "render", "frame", "sched", "task", "io", "submit", "read", "write", "net",
		"send", "recv", "hash", "table", "insert", "buffer", "flush", "lock", "unlock",
		"queue", "pop", "push", "encode", "decode", "string", "copy", "compare", "tree",
		"walk", "update", "event", "loop", "poll", "timer", "init", "run", "main",
	};
	const size_t nwords = sizeof(words) / sizeof(words[0]);

	for (int i = 0; i < NAMES; i++) {
		char *s = names[i];
		size_t len = 0;
		int nparts = 1 + (int)below(4);

		for (int k = 0; k < nparts; k++) {
			const char *w = words[below((uint32_t)nwords)];

			if (len + strlen(w) + 1 > NAME_MAX_LEN - 6)
				break;
			len += (size_t)sprintf(s + len, "%s%s", k ? "_" : "", w);
		}
		len += (size_t)sprintf(s + len, "_%d", i);
		if (i >= NAMES - KERNEL_NAMES)
			strcpy(s + len, "_[k]");
	}
}

/* The @k-th function that @fn calls: kernel functions call only kernel functions. */
static uint32_t callee(uint32_t fn, uint32_t k)
{
	uint64_t h = (fn + 1) * 0x9E3779B97F4A7C15ull ^ (k + 1) * 0xBF58476D1CE4E5B9ull;

	h ^= h >> 31;
	if (fn >= NAMES - KERNEL_NAMES || h % 64 == 0)
		return NAMES - KERNEL_NAMES + (uint32_t)(h >> 8) % KERNEL_NAMES;
	return (uint32_t)(h >> 8) % (NAMES - KERNEL_NAMES);
}

/* One of @n callees: the first half the time, the second a quarter, and so on. */
static uint32_t hot_pick(uint32_t n)
{
	uint32_t k = (uint32_t)__builtin_ctzll(next_random() | 1ull << 63);

	return k < n ? k : n - 1;
}

static uint32_t path[MAX_DEPTH + 1];
static unsigned long lines_left;

static void print_line(int depth)
{
	for (int i = 0; i < depth; i++) {
		fputs(names[path[i]], stdout);
		putchar(i + 1 < depth ? ';' : ' ');
	}
	printf("%u\n", 1 + below(1000));
	lines_left--;
}

/*
 * Writes @budget lines below the stack path[0, @depth): a line ending here
 * (from MIN_DEPTH on), the rest shared out between 1 to 4 callees. At the
 * deepest level every line gets a callee of its own.
 */
static void walk(int depth, unsigned long budget)
{
	unsigned long share[4] = { 0 };
	uint32_t ncallees;

	if (!budget || !lines_left)
		return;
	if (depth >= MIN_DEPTH && (budget == 1 || below(8) == 0)) {
		print_line(depth);
		budget--;
	}
	if (depth == MAX_DEPTH - 1) {
		for (uint32_t k = 0; k < budget && lines_left; k++) {
			path[depth] = callee(path[depth - 1], k);
			print_line(depth + 1);
		}
		return;
	}
	ncallees = below(2) ? 1 : 2 + below(3); /* often a chain of single calls */
	ncallees = ncallees < budget ? ncallees : (uint32_t)budget;
	for (unsigned long i = 0; i < budget; i++) /* the first callee is the hottest */
		share[i < ncallees ? i : hot_pick(ncallees)]++;
	for (uint32_t k = 0; k < ncallees; k++) {
		path[depth] = callee(path[depth - 1], k);
		walk(depth + 1, share[k]);
	}
}

/* A stack of random frames, 10 to 30 deep with its process. */
static void random_line(void)
{
	int depth = MIN_DEPTH + (int)below(MAX_DEPTH - MIN_DEPTH + 1);
	int kernel = below(3) == 0 ? 1 + (int)below(5) : 0;

	path[0] = below(PROCESSES);
	for (int i = 1; i < depth; i++)
		path[i] = i < depth - kernel ? below(NAMES - KERNEL_NAMES)
					     : NAMES - KERNEL_NAMES + below(KERNEL_NAMES);
	print_line(depth);
}

int main(int argc, char **argv)
{
	unsigned long lines = argc == 3 ? strtoul(argv[1], NULL, 10) : 0;
	static char buf[1 << 20];

	if (!lines || (strcmp(argv[2], "random") != 0 && strcmp(argv[2], "graph") != 0)) {
		fprintf(stderr, "usage: big_folded LINES random|graph\n");
		return 2;
	}
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	make_names();
	lines_left = lines;
	while (argv[2][0] == 'r' && lines_left)
		random_line();
	for (uint32_t proc = 0; proc < PROCESSES && lines_left; proc++) {
		unsigned long budget = lines / PROCESSES + (proc < lines % PROCESSES);

		path[0] = proc; /* the process: its name is one of the names */
		walk(1, budget);
	}
	return fflush(stdout) ? 1 : 0;
}
