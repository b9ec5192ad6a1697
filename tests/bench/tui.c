// SPDX-License-Identifier: GPL-2.0
/*
 * What a refresh of the screen costs: rebuild the view (keep the stacks
 * that pass, make the tree's rows) from a profile and draw a 200x50 screen
 * (the icicle makes the nodes it draws), for synthetic profiles of 1k, 10k
 * and 100k unique stacks, sorted once beforehand as the live screen keeps
 * its profile (the sort is not timed: with no new stacks, the live
 * screen's sort costs nothing). Prints Markdown table rows: the whole
 * trie's nodes (counted by a walk of a trie of its own), the nodes the
 * screen made, and times, each the median of RUNS runs. Measures, never
 * judges.
 *
 * With "--load FILE", what the file viewer does instead: read FILE into a
 * profile, sort it and pack its frames, build the view and draw the first
 * screen, then answer the keys of a first look (E, C, a search and its
 * end, K twice, U twice, Tab through every layout); prints the seconds to
 * the first screen, the peak resident memory in MiB and each key's
 * milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_clock.h"
#include "profile/input.h"
#include "profile/profile.h"
#include "tui/actions.h"
#include "tui/screen.h"
#include "tui/view.h"

#define RUNS 7
#define WIDTH 200
#define HEIGHT 50
#define DIGITS 6 /* base-8 digits of the stack number: each one a level of the tree */

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	return x ^ (x >> 16);
}

static uint32_t intern(struct profile *p, enum frame_kind kind, const char *fmt, unsigned int a,
		       unsigned int b)
{
	char name[64];
	int n = snprintf(name, sizeof(name), fmt, a, b);

	return profile__frame(p, name, (size_t)n, kind, true);
}

/*
 * Stack @i: one of 20 processes, a run of framework frames as deep as the
 * process says (5 to 24), then one frame per base-8 digit of @i (so every
 * stack is unique and the tree branches 8 ways), and for one stack in three
 * four kernel frames.
 */
static int add_stack(struct profile *p, unsigned int i)
{
	static const char *const kernel[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read",
					      "vfs_read" };
	uint32_t frames[64];
	unsigned int proc = i % 20, n = 0;
	struct sample s = { .tgid = (int32_t)(1000 + proc), .frames = frames };

	frames[n++] = intern(p, FRAME_PROCESS, "proc%u%.0u", proc, 0);
	for (unsigned int k = 0; k < 5 + proc; k++)
		frames[n++] = intern(p, FRAME_USER, "framework_%u_layer_%u", proc, k);
	for (unsigned int k = 0, v = i / 20; k < DIGITS; k++, v /= 8)
		frames[n++] = intern(p, FRAME_USER, "fn_level%u_%u", k, v % 8);
	if (mix(i) % 3 == 0) {
		for (size_t k = 0; k < sizeof(kernel) / sizeof(kernel[0]); k++)
			frames[n++] = profile__frame(p, kernel[k], strlen(kernel[k]), FRAME_KERNEL,
						     true);
	}
	s.n = n;
	s.count = 1 + mix(i + 7) % 100;
	return profile__add(p, &s);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[n / 2];
}

/* Rebuild and draw RUNS times; the medians go to @rebuild and @draw. */
static int measure(struct view *v, struct screen *s, const struct profile *p, double *rebuild,
		   double *draw)
{
	double r[RUNS], d[RUNS];

	for (int i = 0; i < RUNS; i++) {
		double t0 = now_ms(), t1;

		if (view__rebuild(v, p))
			return -1;
		t1 = now_ms();
		view__draw(s, v);
		d[i] = now_ms() - t1;
		r[i] = t1 - t0;
	}
	*rebuild = median(r, RUNS);
	*draw = median(d, RUNS);
	return 0;
}

static bool count_node(void *ctx, const struct stack_trie *t, uint32_t node)
{
	(void)t;
	(void)node;
	++*(size_t *)ctx;
	return true;
}

/*
 * The nodes of the whole view of @p (through @v's filter), counted by a
 * walk; 0 when out of memory.
 */
static size_t whole_trie(const struct view *v, const struct profile *p)
{
	struct view_filter f;
	struct stack_trie t;
	size_t n = 0;

	view__filter(v, &f);
	stack_trie__init(&t);
	if (stack_trie__build(&t, p, &f) ||
	    stack_trie__walk(&t, &(struct trie_visitor){ .node = count_node, .ctx = &n }))
		n = 0;
	stack_trie__free(&t);
	return n;
}

static int bench(unsigned int stacks, double target)
{
	struct profile *p = profile__new();
	struct screen s = { 0 };
	struct view v;
	double rebuild, draw, rebuild_all, draw_all;
	size_t made, nkeys;
	const struct key_binding *keys = actions__bindings(&nkeys);

	if (!p || view__init(&v, true, 2.0, keys, nkeys) || screen__resize(&s, WIDTH, HEIGHT))
		return -1;
	v.window = WINDOW_CUMULATIVE;
	view__resize(&v, WIDTH, HEIGHT);
	for (unsigned int i = 0; i < stacks; i++) {
		if (add_stack(p, i))
			return -1;
	}
	if (profile__sort(p) || measure(&v, &s, p, &rebuild, &draw))
		return -1;
	made = v.trie.n;
	actions__key(&v, 'E'); /* every row expanded: the most rows to flatten */
	if (measure(&v, &s, p, &rebuild_all, &draw_all))
		return -1;
	printf("| %u | %zu | %zu | %.2f | %.2f | **%.2f** | %.2f | %.0f |\n", stacks,
	       whole_trie(&v, p), made, rebuild, draw, rebuild + draw, rebuild_all + draw_all,
	       target);
	view__free(&v);
	screen__free(&s);
	profile__free(p);
	return 0;
}

/*
 * Keys as the app takes them: each changes the view, which is rebuilt or
 * refreshed as the key asks, then drawn. Returns the milliseconds taken.
 */
static double press(struct view *v, struct screen *s, const struct profile *p, const char *keys)
{
	double t0 = now_ms();
	unsigned int flags = 0;

	for (const char *k = keys; *k; k++)
		flags |= actions__key(v, *k);
	if (flags & ACT_REBUILD)
		view__rebuild(v, p);
	else if (flags & ACT_REDRAW)
		view__refresh(v);
	view__draw(s, v);
	return now_ms() - t0;
}

/*
 * The file viewer's start: read @path, build the view, draw once; then the
 * keys of a first look at it. Prints the seconds to the first screen, the
 * peak resident memory in MiB, and each key's milliseconds.
 */
static int load(const char *path)
{
	static const char *const presses[] = { "E", "C", "/json\n", "/\x15\n", "K", "K", "U", "U",
					       "\t", "\t", "\t", "\t", "\t" };
	struct input_stats st;
	struct profile *p = profile__new();
	FILE *in = fopen(path, "re");
	struct screen s = { 0 };
	struct rusage ru;
	struct view v;
	double t0 = now_ms(), first, ms[sizeof(presses) / sizeof(presses[0])];
	size_t nkeys;
	const struct key_binding *keys = actions__bindings(&nkeys);

	if (!p || !in || input__read(in, p, &st) || profile__sort(p) || profile__pack(p) ||
	    view__init(&v, false, 2.0, keys, nkeys) || screen__resize(&s, WIDTH, HEIGHT))
		return -1;
	view__resize(&v, WIDTH, HEIGHT);
	if (view__rebuild(&v, p))
		return -1;
	view__draw(&s, &v);
	first = (now_ms() - t0) / 1e3;
	getrusage(RUSAGE_SELF, &ru);
	for (size_t i = 0; i < sizeof(presses) / sizeof(presses[0]); i++)
		ms[i] = press(&v, &s, p, presses[i]);
	printf("%.2f %.0f", first, ru.ru_maxrss / 1024.0);
	for (size_t i = 0; i < sizeof(presses) / sizeof(presses[0]); i++)
		printf(" %.1f", ms[i]);
	printf("\n");
	fclose(in);
	view__free(&v);
	screen__free(&s);
	profile__free(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--load") == 0) {
		if (load(argv[2])) {
			fprintf(stderr, "tui bench: can't load %s\n", argv[2]);
			return 1;
		}
		return 0;
	}
	printf("| unique stacks | trie nodes | nodes made for the screen | rebuild (ms) "
	       "| draw %dx%d (ms) | refresh (ms) | refresh, all rows expanded (ms) "
	       "| target (ms) |\n",
	       WIDTH, HEIGHT);
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	if (bench(1000, 2) || bench(10000, 15) || bench(100000, 150)) {
		fprintf(stderr, "tui bench: out of memory\n");
		return 1;
	}
	return 0;
}
