// SPDX-License-Identifier: GPL-2.0
/*
 * fake_python: a program that lies to flametop's Python walk. Run as
 * "python3.11" (a copy or link of this binary by that name) it looks like
 * Debian's interpreter: a _PyRuntime and a Py_Version of 3.11.2 in its
 * symbol table, its runtime laid out as 3.11's is, as far as flametop checks
 * (an interpreter, its thread states, back-pointers, thread ids). What the
 * frames and code objects hold is hostile:
 *
 *	fake_python hostile SECONDS  four busy threads, each with a frame chain of
 *				     its own: one that loops on itself, one 300
 *				     frames deep, one whose code objects point at
 *				     garbage and unmapped memory, one whose code
 *				     objects' names are a megabyte long, hold control
 *				     bytes and escape sequences, invalid code points,
 *				     a string that is not compact, a line table of
 *				     garbage; and a thread that rewrites a code
 *				     object's name and first line all the time
 *	fake_python badback SECONDS  a thread state that does not point back to its
 *				     interpreter: a build that does not check out
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* 3.11's offsets (python/offsets.c's table_311). */
#define RUNTIME_INTERP_HEAD 40
#define INTERP_THREADS 16
#define TS_NEXT 8
#define TS_INTERP 16
#define TS_CFRAME 56
#define TS_THREAD_ID 152
#define TS_NATIVE_ID 160
#define CFRAME_FRAME 8
#define FRAME_CODE 32
#define FRAME_BACK 48
#define FRAME_INSTR 56
#define FRAME_ENTRY 68
#define CODE_FILENAME 112
#define CODE_NAME 128
#define CODE_LINETABLE 136
#define CODE_FIRSTLINENO 72
#define CODE_ADAPTIVE 184
#define STR_LENGTH 16
#define STR_STATE 32
#define STR_ASCII_SIZE 48
#define STR_COMPACT_SIZE 72

#define NTHREADS 4
#define DEEP 300

__attribute__((used)) uint8_t _PyRuntime[64 << 10];
__attribute__((used)) const unsigned long Py_Version = 0x030b02f0;

static uint8_t interp[8192];
static uint8_t tstates[NTHREADS][4096];
static uint8_t cframes[NTHREADS][64];
static double seconds;

static void put64(uint8_t *at, uint64_t v)
{
	memcpy(at, &v, 8);
}

static void put32(uint8_t *at, uint32_t v)
{
	memcpy(at, &v, 4);
}

static uint8_t *zalloc(size_t n)
{
	uint8_t *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

/* A compact string object of @kind holding @len characters of @text (each a code point). */
static uint8_t *string(uint32_t kind, bool ascii, const uint32_t *text, size_t len)
{
	size_t head = ascii ? STR_ASCII_SIZE : STR_COMPACT_SIZE;
	uint8_t *s = zalloc(head + (len + 1) * kind);

	put64(s + STR_LENGTH, len);
	put32(s + STR_STATE, kind << 2 | 0x20 | (ascii ? 0x40 : 0));
	for (size_t i = 0; i < len; i++)
		memcpy(s + head + i * kind, &text[i], kind);
	return s;
}

static uint8_t *ascii(const char *text)
{
	size_t len = strlen(text);
	uint32_t *cps = calloc(len + 1, sizeof(*cps));
	uint8_t *s;

	for (size_t i = 0; i < len; i++)
		cps[i] = (unsigned char)text[i];
	s = string(1, true, cps, len);
	free(cps);
	return s;
}

/* A code object named @name in @file, its line table @table (a bytes object, or garbage). */
static uint8_t *code(uint8_t *name, uint8_t *file, uint64_t table, int32_t first)
{
	uint8_t *c = zalloc(256);

	put64(c + CODE_NAME, (uint64_t)(uintptr_t)name);
	put64(c + CODE_FILENAME, (uint64_t)(uintptr_t)file);
	put64(c + CODE_LINETABLE, table);
	put32(c + CODE_FIRSTLINENO, (uint32_t)first);
	return c;
}

/* A frame running @code at @instr, called from @back. */
static uint8_t *frame(uint64_t code_addr, uint64_t back, uint64_t instr)
{
	uint8_t *f = zalloc(128);

	put64(f + FRAME_CODE, code_addr);
	put64(f + FRAME_BACK, back);
	put64(f + FRAME_INSTR, instr);
	f[FRAME_ENTRY] = 1;
	return f;
}

/* A frame chain that loops: each frame's caller is itself. */
static uint8_t *looping(void)
{
	uint8_t *f = frame((uint64_t)(uintptr_t)code(ascii("loop"), ascii("/loop.py"), 0, 1), 0, 0);

	put64(f + FRAME_BACK, (uint64_t)(uintptr_t)f);
	return f;
}

/* DEEP frames of one code object. */
static uint8_t *deep(void)
{
	uint8_t *c = code(ascii("deep"), ascii("/deep.py"), 0, 7), *f = NULL;

	for (int i = 0; i < DEEP; i++)
		f = frame((uint64_t)(uintptr_t)c, (uint64_t)(uintptr_t)f,
			  (uint64_t)(uintptr_t)c + CODE_ADAPTIVE + 2 * (uint64_t)i);
	return f;
}

/* Frames whose code objects and instructions point at garbage, unmapped and kernel memory. */
static uint8_t *garbage(void)
{
	static const uint64_t bad[] = { 0, 1, 0xffffffffffff0000ull, 0xffff888000000000ull,
					0x10, 0x7ffffffff000ull, 0xdeadbeefull };
	uint8_t *junk = zalloc(4096), *f = NULL;

	for (size_t i = 0; i < 4096; i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		f = frame(bad[i], (uint64_t)(uintptr_t)f, bad[(i + 3) % 7]);
	f = frame((uint64_t)(uintptr_t)junk, (uint64_t)(uintptr_t)f, (uint64_t)(uintptr_t)junk);
	return f;
}

/* The code object the mutator rewrites, and its name. */
static uint8_t *mutable_code, *mutable_name;

/* Frames whose code objects' names and files are hostile strings. */
static uint8_t *evil_names(void)
{
	static const uint32_t bad_points[] = { 'x', 0xd800, 0x110000, 0x202e, 0x9b, 'y' };
	uint32_t *huge = calloc(1 << 20, sizeof(uint32_t));
	uint8_t *f = NULL, *junk_table = zalloc(64), *notcompact = ascii("notcompact");
	uint8_t *names[6];

	for (size_t i = 0; i < 1 << 20; i++)
		huge[i] = 'A' + i % 26;
	names[0] = string(1, true, huge, 1 << 20);
	names[1] = ascii("\033[31mred\033[0m\a\r\nnext\x7f");
	names[2] = string(4, false, bad_points, 6);
	put32(notcompact + STR_STATE, 1 << 2 | 0x40); /* not compact */
	names[3] = notcompact;
	names[4] = ascii("ok_name");
	mutable_name = ascii("mutant_00");
	names[5] = mutable_name;
	put64(junk_table + 16, 40);
	for (int i = 32; i < 64; i++)
		junk_table[i] = (uint8_t)(i * 37);
	for (int i = 0; i < 6; i++) {
		/* The rewritten one runs at its first line, whatever its instruction: no table. */
		uint8_t *file = i == 4 ? ascii("/tmp/\033]0;title\a.py") : ascii("/evil.py");
		uint8_t *c = code(names[i], file, i == 5 ? 0 : (uint64_t)(uintptr_t)junk_table,
				  100 + i);

		if (i == 5)
			mutable_code = c;
		f = frame((uint64_t)(uintptr_t)c, (uint64_t)(uintptr_t)f,
			  (uint64_t)(uintptr_t)c + CODE_ADAPTIVE + 2 * (uint64_t)(i * 1000));
	}
	free(huge);
	return f;
}

/* Rewrites the mutable code object's name and first line, again and again. */
static void *mutate(void *arg)
{
	struct timespec start, now;
	unsigned int n = 0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		char text[16];

		snprintf(text, sizeof(text), "mutant_%02u", n % 100);
		memcpy(mutable_name + STR_ASCII_SIZE, text, 9);
		put32(mutable_code + CODE_FIRSTLINENO, 200 + n % 100);
		n++;
		usleep(100);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < seconds);
	return NULL;
}

/* Points thread state @i, of the calling thread, at frame chain @f; links it into the list. */
static void attach(int i, uint8_t *f)
{
	put64(tstates[i] + TS_INTERP, (uint64_t)(uintptr_t)interp);
	put64(tstates[i] + TS_NATIVE_ID, (uint64_t)gettid());
	put64(tstates[i] + TS_THREAD_ID, (uint64_t)pthread_self());
	put64(tstates[i] + TS_CFRAME, (uint64_t)(uintptr_t)cframes[i]);
	put64(cframes[i] + CFRAME_FRAME, (uint64_t)(uintptr_t)f);
}

/* Spins on the CPU until the time is up. */
static void spin(void)
{
	struct timespec start, now;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i * i;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < seconds);
}

/* A busy thread: thread state @i, running frame chain @chain (made before any thread starts). */
struct worker {
	int i;
	uint8_t *chain;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	attach(w->i, w->chain);
	spin();
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker workers[NTHREADS];
	pthread_t threads[NTHREADS], mutator;

	if (argc != 3 || (strcmp(argv[1], "hostile") && strcmp(argv[1], "badback"))) {
		fprintf(stderr, "usage: python3.11 hostile|badback SECONDS\n");
		return 2;
	}
	seconds = atof(argv[2]);
	put64(_PyRuntime + RUNTIME_INTERP_HEAD, (uint64_t)(uintptr_t)interp);
	put64(interp + INTERP_THREADS, (uint64_t)(uintptr_t)tstates[0]);
	for (int i = 0; i + 1 < NTHREADS; i++)
		put64(tstates[i] + TS_NEXT, (uint64_t)(uintptr_t)tstates[i + 1]);
	/* The main thread's state first: it names a thread of the process from the start. */
	attach(0, NULL);
	if (!strcmp(argv[1], "badback")) {
		put64(tstates[0] + TS_INTERP, (uint64_t)(uintptr_t)interp + 8);
		spin();
		return 0;
	}
	workers[0] = (struct worker){ 0, looping() };
	workers[1] = (struct worker){ 1, deep() };
	workers[2] = (struct worker){ 2, garbage() };
	workers[3] = (struct worker){ 3, evil_names() };
	mlockall(MCL_CURRENT); /* nothing the walk reads is paged out */
	for (int i = 1; i < NTHREADS; i++)
		pthread_create(&threads[i], NULL, work, &workers[i]);
	pthread_create(&mutator, NULL, mutate, NULL);
	work(&workers[0]);
	for (int i = 1; i < NTHREADS; i++)
		pthread_join(threads[i], NULL);
	pthread_join(mutator, NULL);
	return 0;
}
