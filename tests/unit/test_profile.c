// SPDX-License-Identifier: GPL-2.0
/*
 * The model: strtab (interned strings) and profile (frames, stacks, windows).
 */
#include "tests/unit/profile_fixture.h"

#include <errno.h>

#include "profile/process_name.h"
#include "profile/profile.h"
#include "profile/stack_sort.h"
#include "profile/strtab.h"
#include "profile/text_match.h"

/* strtab */

static uint32_t intern(struct strtab *t, const char *s)
{
	return strtab__intern(t, s, strlen(s));
}

static void test_strtab_same_string_same_id(void **state)
{
	struct strtab *t = strtab__new();
	char copy[8];

	(void)state;
	assert_non_null(t);
	assert_int_equal(strtab__count(t), 0);
	assert_int_equal(intern(t, "main"), 0);
	assert_int_equal(intern(t, "foo"), 1);
	assert_int_equal(intern(t, "main"), 0);
	/* Equality is by content, not by pointer. */
	strcpy(copy, "foo");
	assert_int_equal(intern(t, copy), 1);
	assert_int_equal(strtab__count(t), 2);
	assert_string_equal(strtab__str(t, 0), "main");
	assert_string_equal(strtab__str(t, 1), "foo");
	assert_int_equal(strtab__len(t, 0), 4);
	assert_int_equal(strtab__len(t, 1), 3);
	strtab__free(t);
}

static void test_strtab_different_strings_different_ids(void **state)
{
	struct strtab *t = strtab__new();
	const char *names[] = {"a", "b", "ab", "ba", "A", "a ", " a", "aa", ""};
	size_t n = sizeof(names) / sizeof(names[0]);

	(void)state;
	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(intern(t, names[i]), i);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(intern(t, names[i]), i);
		assert_string_equal(strtab__str(t, i), names[i]);
		assert_int_equal(strtab__len(t, i), strlen(names[i]));
	}
	assert_int_equal(strtab__count(t), n);
	strtab__free(t);
}

/* @len bounds the input: it need not be NUL-terminated. */
static void test_strtab_len_bounded_input(void **state)
{
	struct strtab *t = strtab__new();
	char *raw = malloc(6); /* "abcdef" without a NUL: ASan catches a read past it */
	uint32_t id;

	(void)state;
	assert_non_null(t);
	assert_non_null(raw);
	memcpy(raw, "abcdef", 6);
	id = strtab__intern(t, raw, 3);
	assert_int_equal(id, 0);
	assert_string_equal(strtab__str(t, id), "abc");
	assert_int_equal(strtab__len(t, id), 3);
	assert_int_equal(intern(t, "abc"), id);
	assert_int_equal(strtab__intern(t, raw, 6), 1);
	assert_string_equal(strtab__str(t, 1), "abcdef");
	assert_int_equal(strtab__intern(t, raw + 3, 3), 2);
	assert_string_equal(strtab__str(t, 2), "def");
	assert_int_equal(strtab__intern(t, "mainXYZ", 4), intern(t, "main"));
	assert_int_equal(strtab__count(t), 4);
	free(raw);
	strtab__free(t);
}

/* A NUL inside the @len bytes ends the string there. */
static void test_strtab_embedded_nul_truncates(void **state)
{
	struct strtab *t = strtab__new();
	uint32_t ab;

	(void)state;
	assert_non_null(t);
	ab = strtab__intern(t, "ab\0cd", 5);
	assert_int_equal(strtab__len(t, ab), 2);
	assert_string_equal(strtab__str(t, ab), "ab");
	assert_int_equal(intern(t, "ab"), ab);
	assert_int_equal(strtab__intern(t, "ab\0xy", 5), ab);
	assert_int_equal(strtab__intern(t, "\0zz", 3), intern(t, ""));
	assert_int_equal(strtab__len(t, intern(t, "")), 0);
	assert_int_equal(strtab__count(t), 2);
	strtab__free(t);
}

#define NSTRINGS 200000

/* Pointers stay put while the table grows: arena chunks, entries and index. */
static void test_strtab_pointers_stable_across_growth(void **state)
{
	struct strtab *t = strtab__new();
	const char *first, *big;
	char *long_name = malloc(100001);
	char buf[32];

	(void)state;
	assert_non_null(t);
	assert_non_null(long_name);
	first = strtab__str(t, intern(t, "first"));
	memset(long_name, 'L', 100000); /* longer than an arena chunk */
	long_name[100000] = '\0';
	assert_int_equal(intern(t, long_name), 1);
	big = strtab__str(t, 1);
	for (int i = 0; i < NSTRINGS; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		assert_int_equal(intern(t, buf), i + 2);
	}
	assert_int_equal(strtab__count(t), NSTRINGS + 2);
	assert_ptr_equal(strtab__str(t, 0), first);
	assert_string_equal(first, "first");
	assert_ptr_equal(strtab__str(t, 1), big);
	assert_int_equal(strtab__len(t, 1), 100000);
	assert_memory_equal(big, long_name, 100001);
	for (int i = 0; i < NSTRINGS; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		assert_string_equal(strtab__str(t, i + 2), buf);
		assert_int_equal(intern(t, buf), i + 2);
	}
	assert_int_equal(intern(t, "first"), 0);
	assert_int_equal(strtab__count(t), NSTRINGS + 2);
	assert_true(strtab__bytes(t) > 100000 + NSTRINGS * 8);
	free(long_name);
	strtab__free(t);
	strtab__free(NULL);
}

/* profile */

/* The index of the stored stack (tgid, frames), or -1. */
static long find_stack(const struct profile *p, int32_t tgid, const uint32_t *frames, uint32_t n)
{
	for (size_t i = 0; i < profile__nstacks(p); i++) {
		struct profile_stack s;

		profile__stack(p, i, &s);
		if (s.tgid == tgid && s.n == n &&
		    memcmp(s.frames, frames, n * sizeof(*frames)) == 0)
			return (long)i;
	}
	return -1;
}

static struct profile_stack stack_at(const struct profile *p, long i)
{
	struct profile_stack s;

	assert_true(i >= 0);
	profile__stack(p, (size_t)i, &s);
	return s;
}

static void test_frames_interned_by_name_and_kind(void **state)
{
	struct profile *p = profile__new();
	uint32_t bash, main_u, main_u2, main_k, main_p, unknown;

	(void)state;
	assert_non_null(p);
	bash = frame(p, "bash", FRAME_PROCESS);
	main_u = frame(p, "main", FRAME_USER);
	main_k = frame(p, "main", FRAME_KERNEL);
	main_p = frame(p, "main", FRAME_PROCESS);
	main_u2 = profile__frame(p, "mainXYZ", 4, FRAME_USER, true);
	unknown = profile__frame(p, "[unknown]", 9, FRAME_USER, false);

	assert_int_equal(main_u2, main_u);
	assert_int_not_equal(main_u, main_k);
	assert_int_not_equal(main_u, main_p);
	assert_int_not_equal(main_k, main_p);
	assert_int_not_equal(bash, main_u);
	assert_int_not_equal(unknown, main_u);
	assert_int_equal(frame(p, "bash", FRAME_PROCESS), bash);
	assert_int_equal(frame(p, "main", FRAME_KERNEL), main_k);

	assert_string_equal(profile__frame_name(p, main_k), "main");
	assert_int_equal(profile__frame_info(p, main_k)->kind, FRAME_KERNEL);
	assert_int_equal(profile__frame_info(p, main_u)->kind, FRAME_USER);
	assert_int_equal(profile__frame_info(p, bash)->kind, FRAME_PROCESS);
	assert_true(profile__frame_info(p, main_u)->named);
	assert_false(profile__frame_info(p, unknown)->named);
	assert_string_equal(profile__frame_name(p, unknown), "[unknown]");
	/* The name is stored once for the three kinds. */
	assert_int_equal(profile__frame_info(p, main_u)->name,
			 profile__frame_info(p, main_k)->name);
	profile__free(p);
}

static void test_same_stack_twice_sums(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[3];
	struct profile_stack s;

	(void)state;
	assert_non_null(p);
	st[0] = frame(p, "bash", FRAME_PROCESS);
	st[1] = frame(p, "main", FRAME_USER);
	st[2] = frame(p, "sys_read", FRAME_KERNEL);
	assert_int_equal(add_stack(p, 100, st, 3, 3), 0);
	assert_int_equal(add_stack(p, 100, st, 3, 4), 0);
	assert_int_equal(profile__nstacks(p), 1);
	s = stack_at(p, 0);
	assert_int_equal(s.tgid, 100);
	assert_int_equal(s.n, 3);
	assert_memory_equal(s.frames, st, sizeof(st));
	assert_int_equal(s.total, 7);
	assert_int_equal(s.recent, 0);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 7);
	profile__free(p);
}

static void test_stack_identity(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[3], other[3];

	(void)state;
	assert_non_null(p);
	st[0] = other[0] = frame(p, "bash", FRAME_PROCESS);
	st[1] = other[1] = frame(p, "main", FRAME_USER);
	st[2] = frame(p, "foo", FRAME_USER);
	other[2] = frame(p, "foo", FRAME_KERNEL);

	assert_int_equal(add_stack(p, 100, st, 3, 1), 0);
	assert_int_equal(add_stack(p, 101, st, 3, 10), 0);	/* another process */
	assert_int_equal(add_stack(p, 100, st, 2, 100), 0);	/* a prefix */
	assert_int_equal(add_stack(p, 100, other, 3, 1000), 0);	/* same names, kernel leaf */
	assert_int_equal(add_stack(p, TGID_UNKNOWN, st, 3, 10000), 0);
	assert_int_equal(profile__nstacks(p), 5);
	assert_int_equal(stack_at(p, find_stack(p, 100, st, 3)).total, 1);
	assert_int_equal(stack_at(p, find_stack(p, 101, st, 3)).total, 10);
	assert_int_equal(stack_at(p, find_stack(p, 100, st, 2)).total, 100);
	assert_int_equal(stack_at(p, find_stack(p, 100, other, 3)).total, 1000);
	assert_int_equal(stack_at(p, find_stack(p, TGID_UNKNOWN, st, 3)).total, 10000);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 11111);
	profile__free(p);
}

/* The profile keeps its own copy of the frames. */
static void test_add_copies_frames(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[2], want[2];

	(void)state;
	assert_non_null(p);
	st[0] = want[0] = frame(p, "bash", FRAME_PROCESS);
	st[1] = want[1] = frame(p, "main", FRAME_USER);
	assert_int_equal(add_stack(p, 1, st, 2, 1), 0);
	st[1] = frame(p, "other", FRAME_USER);
	assert_memory_equal(stack_at(p, 0).frames, want, sizeof(want));
	profile__free(p);
}

/* Checks that @p still holds exactly its one stack of 5 and nothing else. */
static void check_unchanged(const struct profile *p, const uint32_t *st)
{
	assert_int_equal(profile__nstacks(p), 1);
	assert_int_equal(stack_at(p, find_stack(p, 1, st, 2)).total, 5);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 5);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 0);
}

static void test_add_rejects_bad_stacks(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[2], bad[3];
	uint32_t user, kern;

	(void)state;
	assert_non_null(p);
	st[0] = frame(p, "bash", FRAME_PROCESS);
	st[1] = user = frame(p, "main", FRAME_USER);
	kern = frame(p, "sys_read", FRAME_KERNEL);
	assert_int_equal(add_stack(p, 1, st, 2, 5), 0);

	/* Empty. */
	assert_int_equal(add_stack(p, 1, st, 0, 7), -EINVAL);
	check_unchanged(p, st);
	/* First frame not a process frame. */
	bad[0] = user;
	bad[1] = kern;
	assert_int_equal(add_stack(p, 1, bad, 2, 7), -EINVAL);
	check_unchanged(p, st);
	bad[0] = kern;
	assert_int_equal(add_stack(p, 1, bad, 1, 7), -EINVAL);
	check_unchanged(p, st);
	/* Unknown frame ids (3 frames exist: 0..2) first, in the middle, last. */
	bad[0] = 3;
	assert_int_equal(add_stack(p, 1, bad, 1, 7), -EINVAL);
	check_unchanged(p, st);
	bad[0] = st[0];
	bad[1] = 3;
	bad[2] = kern;
	assert_int_equal(add_stack(p, 1, bad, 3, 7), -EINVAL);
	check_unchanged(p, st);
	bad[1] = user;
	bad[2] = PROFILE_NONE;
	assert_int_equal(add_stack(p, 1, bad, 3, 7), -EINVAL);
	check_unchanged(p, st);
	/* After all that, adding still works and sums into the same stack. */
	assert_int_equal(add_stack(p, 1, st, 2, 1), 0);
	assert_int_equal(stack_at(p, 0).total, 6);
	profile__free(p);
}

static void test_windows(void **state)
{
	struct profile *p = profile__new();
	uint32_t a[2], b[2];
	long ia, ib;

	(void)state;
	assert_non_null(p);
	a[0] = b[0] = frame(p, "bash", FRAME_PROCESS);
	a[1] = frame(p, "foo", FRAME_USER);
	b[1] = frame(p, "bar", FRAME_USER);

	assert_int_equal(add_stack(p, 1, a, 2, 3), 0);
	assert_int_equal(add_stack(p, 1, b, 2, 2), 0);
	ia = find_stack(p, 1, a, 2);
	ib = find_stack(p, 1, b, 2);
	/* Nothing is recent before the first interval closes. */
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 5);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 0);
	assert_int_equal(stack_at(p, ia).recent, 0);

	profile__close_interval(p);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 5);
	assert_int_equal(stack_at(p, ia).recent, 3);
	assert_int_equal(stack_at(p, ib).recent, 2);

	/* Counts of the open interval are cumulative at once, recent only later. */
	assert_int_equal(add_stack(p, 1, a, 2, 10), 0);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 15);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 5);
	assert_int_equal(stack_at(p, ia).total, 13);
	assert_int_equal(stack_at(p, ia).recent, 3);

	profile__close_interval(p);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 10);
	assert_int_equal(stack_at(p, ia).recent, 10);
	assert_int_equal(stack_at(p, ib).recent, 0);
	assert_int_equal(stack_at(p, ib).total, 2);

	/* An empty interval empties the recent window. */
	profile__close_interval(p);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 0);
	assert_int_equal(stack_at(p, ia).recent, 0);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 15);
	assert_int_equal(stack_at(p, ia).total, 13);
	profile__free(p);
}

static void test_reset_keeps_frames(void **state)
{
	struct profile *p = profile__new();
	uint32_t st[3];
	struct profile_stack s;

	(void)state;
	assert_non_null(p);
	st[0] = frame(p, "bash", FRAME_PROCESS);
	st[1] = frame(p, "main", FRAME_USER);
	st[2] = frame(p, "sys_read", FRAME_KERNEL);
	assert_int_equal(add_stack(p, 1, st, 3, 4), 0);
	assert_int_equal(add_stack(p, 2, st, 2, 6), 0);
	profile__close_interval(p);
	assert_int_equal(add_stack(p, 1, st, 3, 1), 0);

	profile__reset(p);
	assert_int_equal(profile__nstacks(p), 0);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 0);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 0);
	/* Frame ids keep their meaning. */
	assert_string_equal(profile__frame_name(p, st[1]), "main");
	assert_int_equal(profile__frame_info(p, st[2])->kind, FRAME_KERNEL);
	assert_int_equal(frame(p, "main", FRAME_USER), st[1]);
	assert_int_equal(frame(p, "bash", FRAME_PROCESS), st[0]);

	/* Counting starts over; the open interval was forgotten too. */
	assert_int_equal(add_stack(p, 1, st, 3, 2), 0);
	assert_int_equal(profile__nstacks(p), 1);
	s = stack_at(p, 0);
	assert_int_equal(s.tgid, 1);
	assert_int_equal(s.n, 3);
	assert_memory_equal(s.frames, st, sizeof(st));
	assert_int_equal(s.total, 2);
	assert_int_equal(s.recent, 0);
	profile__close_interval(p);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 2);
	assert_int_equal(stack_at(p, 0).recent, 2);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 2);
	profile__free(p);
}

#define NSTACKS 50000

/* Many stacks of different lengths, through the growth of every table. */
static void test_many_stacks(void **state)
{
	struct profile *p = profile__new();
	bool *seen = calloc(NSTACKS, sizeof(*seen));
	uint32_t st[8];
	uint64_t want = 0;

	(void)state;
	assert_non_null(p);
	assert_non_null(seen);
	st[0] = frame(p, "proc", FRAME_PROCESS);
	for (int i = 0; i < NSTACKS; i++) {
		char name[32];
		uint32_t n = 2 + i % 6;

		snprintf(name, sizeof(name), "f%d", i);
		st[1] = frame(p, name, FRAME_USER);
		for (uint32_t j = 2; j < n; j++)
			st[j] = st[1];
		assert_int_equal(add_stack(p, i % 7, st, n, i + 1), 0);
		want += i + 1;
	}
	assert_int_equal(profile__nstacks(p), NSTACKS);
	for (int i = 0; i < NSTACKS; i++) {
		char name[32];
		uint32_t n = 2 + i % 6;

		snprintf(name, sizeof(name), "f%d", i);
		st[1] = frame(p, name, FRAME_USER);
		for (uint32_t j = 2; j < n; j++)
			st[j] = st[1];
		assert_int_equal(add_stack(p, i % 7, st, n, 1), 0);
	}
	assert_int_equal(profile__nstacks(p), NSTACKS);
	/* Stack "proc;f<i>..." has i % 6 + 2 frames, tgid i % 7 and count i + 1 + 1. */
	for (size_t k = 0; k < NSTACKS; k++) {
		struct profile_stack s = stack_at(p, (long)k);
		int i = atoi(profile__frame_name(p, s.frames[1]) + 1);

		assert_true(i >= 0 && i < NSTACKS);
		assert_false(seen[i]);
		seen[i] = true;

		assert_int_equal(s.frames[0], st[0]);
		assert_int_equal(s.n, 2 + i % 6);
		assert_int_equal(s.tgid, i % 7);
		for (uint32_t j = 2; j < s.n; j++)
			assert_int_equal(s.frames[j], s.frames[1]);
		assert_int_equal(s.total, (uint64_t)i + 2);
	}
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), want + NSTACKS);
	assert_true(profile__bytes(p) > NSTACKS * sizeof(uint32_t) * 2);
	free(seen);
	profile__free(p);
	profile__free(NULL);
}

/* The sorted order */

/*
 * The order profile.h promises, written out here on its own: frame ids as
 * numbers, position by position; a stack before the longer stacks it
 * begins; then tgid.
 */
static int expected_order(const uint32_t *fa, uint32_t na, int32_t ta, const uint32_t *fb,
			  uint32_t nb, int32_t tb)
{
	for (uint32_t i = 0; i < na && i < nb; i++) {
		if (fa[i] != fb[i])
			return fa[i] < fb[i] ? -1 : 1;
	}
	if (na != nb)
		return na < nb ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static int stacks_in_order(const struct profile_stack *a, const struct profile_stack *b)
{
	return expected_order(a->frames, a->n, a->tgid, b->frames, b->n, b->tgid);
}

/* Which stored stack the one at @rank is: the index find_stack() gives. */
static long index_at_rank(const struct profile *p, size_t rank)
{
	struct profile_stack s;

	profile__stack_sorted(p, rank, &s);
	return find_stack(p, s.tgid, s.frames, s.n);
}

/*
 * Every stack once, and the first profile__nsorted() ranks in the expected
 * order, each strictly after the one before; the rest are the stacks added
 * since, in the order they came.
 */
static void check_sorted_order(const struct profile *p)
{
	size_t n = profile__nstacks(p), nsorted = profile__nsorted(p);
	bool *seen = calloc(n + 1, sizeof(*seen));

	assert_non_null(seen);
	assert_true(nsorted <= n);
	for (size_t rank = 0; rank < n; rank++) {
		long i = index_at_rank(p, rank);

		assert_true(i >= 0 && (size_t)i < n);
		assert_false(seen[i]);
		seen[i] = true;
		if (rank >= nsorted)
			assert_int_equal(i, rank);
		if (rank > 0 && rank < nsorted) {
			struct profile_stack before, now;

			profile__stack_sorted(p, rank - 1, &before);
			profile__stack_sorted(p, rank, &now);
			assert_true(stacks_in_order(&before, &now) < 0);
		}
	}
	free(seen);
}

#define SORT_ALPHABET 6

/*
 * Adds @n random stacks that share prefixes a lot: one of two processes,
 * then 0 to 9 frames of SORT_ALPHABET, so many stacks begin others; tgid 1
 * to 3, so some differ in tgid only.
 */
static void add_random_stacks(struct profile *p, const uint32_t *procs, const uint32_t *alphabet,
			      size_t n, uint32_t *state)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t st[10], len = 1 + next_random(state) % 10;
		int32_t tgid = 1 + (int32_t)(next_random(state) % 3);

		st[0] = procs[next_random(state) % 2];
		for (uint32_t j = 1; j < len; j++)
			st[j] = alphabet[next_random(state) % SORT_ALPHABET];
		assert_int_equal(add_stack(p, tgid, st, len, 1), 0);
	}
}

/*
 * Stacks come in batches in random order; each profile__sort() sorts the
 * new ones and merges them in. Stacks added after the last sort come last,
 * in the order they came. A reset forgets the order with the stacks.
 */
static void test_sorted_order_in_batches(void **state)
{
	struct profile *p = profile__new();
	const size_t batches[] = {700, 1, 0, 300, 2000};
	uint32_t procs[2], alphabet[SORT_ALPHABET], seed = 12345;

	(void)state;
	assert_non_null(p);
	/* Interned out of name order: ids, not names, decide. */
	procs[1] = frame(p, "b_proc", FRAME_PROCESS);
	procs[0] = frame(p, "a_proc", FRAME_PROCESS);
	for (int i = 0; i < SORT_ALPHABET; i++) {
		char name[8];

		snprintf(name, sizeof(name), "f%d", SORT_ALPHABET - i);
		alphabet[i] = frame(p, name, i % 2 ? FRAME_KERNEL : FRAME_USER);
	}
	assert_int_equal(profile__nsorted(p), 0);
	assert_int_equal(profile__sort(p), 0);
	for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
		add_random_stacks(p, procs, alphabet, batches[b], &seed);
		check_sorted_order(p);
		assert_int_equal(profile__sort(p), 0);
		assert_int_equal(profile__nsorted(p), profile__nstacks(p));
		check_sorted_order(p);
	}
	assert_true(profile__nstacks(p) > 1000);

	/* Unsorted stacks after the sorted ones; sorting again sorts them in. */
	add_random_stacks(p, procs, alphabet, 500, &seed);
	assert_true(profile__nsorted(p) < profile__nstacks(p));
	check_sorted_order(p);
	assert_int_equal(profile__sort(p), 0);
	check_sorted_order(p);

	profile__reset(p);
	assert_int_equal(profile__nstacks(p), 0);
	assert_int_equal(profile__nsorted(p), 0);
	assert_int_equal(profile__sort(p), 0);
	add_random_stacks(p, procs, alphabet, 400, &seed);
	assert_int_equal(profile__nsorted(p), 0);
	check_sorted_order(p);
	assert_int_equal(profile__sort(p), 0);
	assert_int_equal(profile__nsorted(p), profile__nstacks(p));
	check_sorted_order(p);
	profile__free(p);
}

/*
 * Stacks of one program: a trunk of 30 frames (two trunks, parting at frame
 * 15), some stacks ending inside it, the rest with 0 to 4 frames of their
 * own. The sort skips shared runs of frames: ends inside them still order
 * first, and the parting still splits.
 */
static void test_sorted_order_long_shared_prefixes(void **state)
{
	struct profile *p = profile__new();
	uint32_t trunk[2][31], alphabet[SORT_ALPHABET], seed = 777;

	(void)state;
	assert_non_null(p);
	trunk[0][0] = trunk[1][0] = frame(p, "prog", FRAME_PROCESS);
	for (int j = 1; j < 31; j++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", j);
		trunk[0][j] = trunk[1][j] = frame(p, name, FRAME_USER);
		if (j >= 15) {
			snprintf(name, sizeof(name), "u%d", j);
			trunk[1][j] = frame(p, name, FRAME_USER);
		}
	}
	for (int i = 0; i < SORT_ALPHABET; i++) {
		char name[16];

		snprintf(name, sizeof(name), "g%d", i);
		alphabet[i] = frame(p, name, FRAME_USER);
	}
	for (int i = 0; i < 3000; i++) {
		uint32_t st[35], len = 31, own = next_random(&seed) % 5;
		const uint32_t *t = trunk[next_random(&seed) % 2];

		if (next_random(&seed) % 10 == 0) {
			len = 1 + next_random(&seed) % 31; /* ends inside the trunk */
			own = 0;
		}
		memcpy(st, t, len * sizeof(*st));
		for (uint32_t j = 0; j < own; j++)
			st[len + j] = alphabet[next_random(&seed) % SORT_ALPHABET];
		assert_int_equal(add_stack(p, 1 + (int32_t)(next_random(&seed) % 2), st, len + own, 1),
				 0);
	}
	assert_int_equal(profile__sort(p), 0);
	assert_int_equal(profile__nsorted(p), profile__nstacks(p));
	check_sorted_order(p);
	profile__free(p);
}

/* The order, spelled out: a stack before those it begins, tgid last, ids not names. */
static void test_sorted_order_prefixes(void **state)
{
	struct profile *p = profile__new();
	uint32_t z, a, x, y;

	(void)state;
	assert_non_null(p);
	z = frame(p, "z_proc", FRAME_PROCESS); /* id 0 */
	a = frame(p, "a_proc", FRAME_PROCESS); /* id 1 */
	x = frame(p, "x", FRAME_USER);         /* id 2 */
	y = frame(p, "y", FRAME_USER);         /* id 3 */
	ADD(p, 7, 1, a);
	ADD(p, 5, 1, z, y);
	ADD(p, 5, 1, z, x, y);
	ADD(p, 9, 1, z, x);
	ADD(p, 5, 1, z);
	ADD(p, 5, 1, z, x);
	ADD(p, 5, 1, z, x, x);
	assert_int_equal(profile__sort(p), 0);
	{
		const uint32_t want[][5] = {
		    {1, 5, z}, {2, 5, z, x}, {2, 9, z, x}, {3, 5, z, x, x},
		    {3, 5, z, x, y}, {2, 5, z, y}, {1, 7, a},
		};

		assert_int_equal(profile__nstacks(p), 7);
		for (size_t r = 0; r < 7; r++) {
			struct profile_stack s;

			profile__stack_sorted(p, r, &s);
			assert_int_equal(s.n, want[r][0]);
			assert_int_equal(s.tgid, want[r][1]);
			assert_memory_equal(s.frames, &want[r][2], s.n * sizeof(uint32_t));
		}
	}
	profile__free(p);
}

static int by_expected_order(const void *a, const void *b)
{
	const struct stack_key *x = a, *y = b;

	return expected_order(x->frames, x->n, x->tgid, y->frames, y->n, y->tgid);
}

#define SORT_KEYS 5000
#define SORT_DEPTH 40

/*
 * stack_sort() against qsort() with the order written out above, on stacks
 * that share long prefixes, end at every depth and often differ in tgid
 * only, so every path of the sort runs: big groups, small ones, stacks that
 * end inside a group, equal frames.
 */
static void test_stack_sort_matches_plain_sort(void **state)
{
	uint32_t *frames = malloc(SORT_KEYS * SORT_DEPTH * sizeof(*frames));
	struct stack_key *keys = malloc(SORT_KEYS * sizeof(*keys));
	struct stack_key *want = malloc(SORT_KEYS * sizeof(*want));
	uint32_t seed = 777;

	(void)state;
	assert_non_null(frames);
	assert_non_null(keys);
	assert_non_null(want);
	for (uint32_t i = 0; i < SORT_KEYS; i++) {
		uint32_t *f = frames + i * SORT_DEPTH;
		uint32_t shared = next_random(&seed) % SORT_DEPTH;

		/* A common trunk, then a few branches; ids up to UINT32_MAX - 1. */
		for (uint32_t d = 0; d < SORT_DEPTH; d++)
			f[d] = d < shared ? d * 7 : next_random(&seed) % 3 * (UINT32_MAX / 2 - 1);
		keys[i] = (struct stack_key){ f, 1 + next_random(&seed) % SORT_DEPTH,
					      (int32_t)(next_random(&seed) % 5) - 2, i };
	}
	memcpy(want, keys, SORT_KEYS * sizeof(*keys));
	qsort(want, SORT_KEYS, sizeof(*want), by_expected_order);
	assert_int_equal(stack_sort(keys, SORT_KEYS), 0);
	for (uint32_t i = 0; i < SORT_KEYS; i++) {
		assert_int_equal(by_expected_order(&keys[i], &want[i]), 0);
		if (i > 0)
			assert_true(stack_key__compare(&keys[i - 1], &keys[i]) <= 0);
	}
	assert_int_equal(stack_sort(keys, 0), 0);
	free(frames);
	free(keys);
	free(want);
}

/* Where a stack's kernel frames begin, when its frames after the process are user then kernel. */
static void test_kernel_frames_begin(void **state)
{
	struct profile *p = profile__new();
	uint32_t proc, u1, u2, k1, k2, other;

	(void)state;
	assert_non_null(p);
	proc = frame(p, "bash", FRAME_PROCESS);
	other = frame(p, "sh", FRAME_PROCESS);
	u1 = frame(p, "main", FRAME_USER);
	u2 = frame(p, "read", FRAME_USER);
	k1 = frame(p, "read", FRAME_KERNEL);
	k2 = frame(p, "vfs_read", FRAME_KERNEL);
	{
		const uint32_t layered[] = {proc, u1, u2, k1, k2}, user[] = {proc, u1, u2},
			       kernel[] = {proc, k1, k2}, mixed[] = {proc, u1, k1, u2},
			       two_procs[] = {proc, other, k1};

		assert_int_equal(add_stack(p, 1, layered, 5, 1), 0);
		assert_int_equal(add_stack(p, 1, user, 3, 1), 0);
		assert_int_equal(add_stack(p, 1, kernel, 3, 1), 0);
		assert_int_equal(add_stack(p, 1, mixed, 4, 1), 0);
		assert_int_equal(add_stack(p, 1, two_procs, 3, 1), 0);
		assert_int_equal(add_stack(p, 1, layered, 1, 1), 0);
	}
	assert_int_equal(stack_at(p, 0).kernel_at, 3);
	assert_int_equal(stack_at(p, 1).kernel_at, 3); /* none: where they would begin */
	assert_int_equal(stack_at(p, 2).kernel_at, 1);
	assert_int_equal(stack_at(p, 3).kernel_at, PROFILE_NONE);
	assert_int_equal(stack_at(p, 4).kernel_at, PROFILE_NONE);
	assert_int_equal(stack_at(p, 5).kernel_at, 1); /* the process alone */
	profile__free(p);
}

/* Adds @count samples of @frames (@n) of process @tgid, thread @tid. */
static void add_thread(struct profile *p, int32_t tgid, int32_t tid, const uint32_t *frames,
		       uint32_t n, uint64_t count)
{
	struct sample s = { .tgid = tgid, .tid = tid, .frames = frames, .n = n, .count = count };

	assert_int_equal(profile__add(p, &s), 0);
}

/*
 * Threads are part of a stack's identity; grouping names the first level
 * "comm [pid]" or "comm [pid/tid]", and a stack of no known process keeps
 * its comm.
 */
static void test_threads_and_groups(void **state)
{
	struct profile *p = profile__new();
	uint32_t f[2];
	struct profile_stack st;

	(void)state;
	f[0] = frame(p, "python3", FRAME_PROCESS);
	f[1] = frame(p, "work", FRAME_USER);
	add_thread(p, 1234, 1234, f, 2, 3);
	add_thread(p, 1234, 1240, f, 2, 5);
	add_thread(p, 1234, 1240, f, 2, 1);
	add_thread(p, TGID_UNKNOWN, 0, f, 2, 7);
	assert_int_equal(profile__nstacks(p), 3);
	profile__stack(p, 1, &st);
	assert_int_equal(st.id, 1);
	assert_int_equal(st.tid, 1240);
	assert_int_equal(st.total, 6);
	assert_int_equal(profile__stack_group(p, 0, GROUP_PID), f[0]); /* not named yet */
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	assert_int_equal(profile__group(p, GROUP_TID), 0);
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 0, GROUP_PID)),
			    "python3 [1234]");
	assert_int_equal(profile__stack_group(p, 0, GROUP_PID),
			 profile__stack_group(p, 1, GROUP_PID));
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 1, GROUP_TID)),
			    "python3 [1234/1240]");
	assert_int_equal(profile__frame_info(p, profile__stack_group(p, 1, GROUP_TID))->kind,
			 FRAME_PROCESS);
	assert_int_equal(profile__stack_group(p, 2, GROUP_PID), f[0]);
	assert_int_equal(profile__stack_group(p, 2, GROUP_COMM), f[0]);
	assert_true(profile__has_tgids(p));
	profile__reset(p);
	assert_false(profile__has_tgids(p));
	profile__free(p);
}

/* A comm that carries its ids already (perf's "perl-4242") is grouped under the comm alone. */
static void test_group_of_a_named_process(void **state)
{
	struct profile *p = profile__new();
	uint32_t f[2];

	(void)state;
	f[0] = frame(p, "perl-4242/4250", FRAME_PROCESS);
	f[1] = frame(p, "run", FRAME_USER);
	add_thread(p, 4242, 4250, f, 2, 1);
	f[0] = frame(p, "worker-7", FRAME_PROCESS); /* not its pid: a name */
	add_thread(p, 99, 0, f, 2, 1);
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	assert_int_equal(profile__group(p, GROUP_TID), 0);
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 0, GROUP_PID)),
			    "perl [4242]");
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 0, GROUP_TID)),
			    "perl [4242/4250]");
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 1, GROUP_TID)),
			    "worker-7 [99]");
	profile__free(p);
}

/* A frozen profile shows the counts it had; adds and interval closes go on underneath. */
static void test_freeze(void **state)
{
	struct profile *p = profile__new();
	uint32_t a[2], b[2];
	struct profile_stack st;

	(void)state;
	a[0] = b[0] = frame(p, "app", FRAME_PROCESS);
	a[1] = frame(p, "a", FRAME_USER);
	b[1] = frame(p, "b", FRAME_USER);
	ADD(p, 1, 10, a[0], a[1]);
	profile__close_interval(p);
	assert_int_equal(profile__freeze(p), 0);
	ADD(p, 1, 5, a[0], a[1]);
	ADD(p, 1, 7, b[0], b[1]);
	profile__close_interval(p);
	profile__stack(p, 0, &st);
	assert_int_equal(st.total, 10);
	assert_int_equal(st.recent, 10);
	profile__stack(p, 1, &st); /* added since: nothing in the picture */
	assert_int_equal(st.total, 0);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 10);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 10);
	assert_int_equal(profile__freeze(p), 0); /* a new picture */
	profile__stack(p, 0, &st);
	assert_int_equal(st.total, 15);
	assert_int_equal(st.recent, 5);
	assert_int_equal(profile__total(p, WINDOW_RECENT), 12);
	profile__thaw(p);
	ADD(p, 1, 1, b[0], b[1]);
	profile__stack(p, 1, &st);
	assert_int_equal(st.total, 8);
	profile__free(p);
}

/*
 * Counts saturate at COUNT_MAX instead of wrapping: a stack of 2^64 - 1 and
 * one more stays at 2^64 - 1, in the stack, the profile's total and a
 * trie's nodes (two maximal stacks under one command), and the profile
 * says so.
 */
static void test_counts_saturate(void **state)
{
	struct profile *p = profile__new();
	struct view_filter all = { .window = WINDOW_CUMULATIVE };
	struct stack_trie t;
	struct profile_stack st;
	uint32_t a, d, e;

	(void)state;
	assert_non_null(p);
	a = frame(p, "a", FRAME_PROCESS);
	d = frame(p, "d", FRAME_USER);
	e = frame(p, "e", FRAME_USER);
	assert_int_equal(count__add(COUNT_MAX - 1, 1), COUNT_MAX);
	assert_int_equal(count__add(COUNT_MAX, COUNT_MAX), COUNT_MAX);
	assert_int_equal(count__add(2, 3), 5);
	ADD(p, TGID_UNKNOWN, COUNT_MAX, a, d);
	assert_false(profile__saturated(p)); /* at the maximum, not over it */
	ADD(p, TGID_UNKNOWN, 1, a, d);
	assert_true(profile__saturated(p));
	profile__stack(p, 0, &st);
	assert_true(st.total == COUNT_MAX);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == COUNT_MAX);
	ADD(p, TGID_UNKNOWN, COUNT_MAX, a, e);
	profile__close_interval(p);
	assert_true(profile__total(p, WINDOW_RECENT) == COUNT_MAX);
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__build(&t, p, &all), 0);
	make_all(&t);
	assert_true(t.nodes[TRIE_ROOT].total == COUNT_MAX);
	assert_true(t.nodes[stack_trie__first_child(&t, TRIE_ROOT)].total == COUNT_MAX);
	stack_trie__free(&t);
	profile__reset(p);
	assert_false(profile__saturated(p));
	profile__free(p);
}

/* Folding (profile__fold()) */

/* Sums the counts of every stack of @p in @window, as profile__stack() shows them. */
static uint64_t stacks_sum(const struct profile *p, enum profile_window window)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < profile__nstacks(p); i++) {
		struct profile_stack st;

		profile__stack(p, i, &st);
		sum += window == WINDOW_RECENT ? st.recent : st.total;
	}
	return sum;
}

/* The stack of @p with these frames and process, or fails the test. */
static struct profile_stack found(const struct profile *p, int32_t tgid, const uint32_t *frames,
				  uint32_t n)
{
	long i = find_stack(p, tgid, frames, n);

	assert_true(i >= 0);
	return stack_at(p, i);
}

/* Processes below 100 have exited. */
static bool below_100_gone(void *ctx, int32_t tgid)
{
	(void)ctx;
	return tgid < 100;
}

/*
 * Over its limit, a profile folds the stacks of exited processes into their
 * command's (the process no longer known), first: totals stay exact, in
 * both windows, in the stack they fold into, and in the count of stacks
 * folded. Within a quarter of the limit nothing moves.
 */
static void test_fold_exited_processes(void **state)
{
	struct profile *p = profile__new();
	struct profile_stack st;
	uint32_t bash, main_, foo;

	(void)state;
	bash = frame(p, "bash", FRAME_PROCESS);
	main_ = frame(p, "main", FRAME_USER);
	foo = frame(p, "foo", FRAME_USER);
	for (int32_t tgid = 1; tgid <= 10; tgid++)
		ADD(p, tgid, (uint64_t)tgid, bash, main_, foo);
	ADD(p, 100, 7, bash, main_, foo);
	profile__close_interval(p);
	ADD(p, 3, 1000, bash, main_);
	assert_int_equal(profile__nstacks(p), 12);
	assert_int_equal(profile__fold(p, 64, below_100_gone, NULL), 0); /* 12 < 64 / 4 */
	assert_int_equal(profile__nstacks(p), 12);
	assert_int_equal(profile__fold(p, 8, below_100_gone, NULL), 9);
	assert_int_equal(profile__nstacks(p), 3);
	assert_int_equal(profile__folded(p), 9);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 55 + 7 + 1000);
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 55 + 7 + 1000);
	assert_true(stacks_sum(p, WINDOW_RECENT) == 55 + 7);
	st = found(p, TGID_UNKNOWN, (uint32_t[]){ bash, main_, foo }, 3);
	assert_true(st.total == 55 && st.recent == 55);
	st = found(p, 100, (uint32_t[]){ bash, main_, foo }, 3);
	assert_true(st.total == 7);
	st = found(p, TGID_UNKNOWN, (uint32_t[]){ bash, main_ }, 2);
	assert_true(st.total == 1000);
	/* The open interval moved with its stacks: it closes into the recent window. */
	profile__close_interval(p);
	assert_true(stacks_sum(p, WINDOW_RECENT) == 1000);
	profile__reset(p);
	assert_int_equal(profile__folded(p), 0);
	profile__free(p);
}

/*
 * Within the limit, each quarter of it more stacks folds the exited
 * processes' (counts exact) and nothing else: not the least counted, not
 * the stacks of processes still running.
 */
static void test_fold_exited_early(void **state)
{
	struct profile *p = profile__new();
	uint32_t bash, main_, f[12];
	char name[8];

	(void)state;
	bash = frame(p, "bash", FRAME_PROCESS);
	main_ = frame(p, "main", FRAME_USER);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "f%u", (unsigned)i & 0xff);
		f[i] = frame(p, name, FRAME_USER);
	}
	for (int32_t tgid = 1; tgid <= 9; tgid++) /* 9 exited, 3 running */
		ADD(p, tgid, 1, bash, main_, f[0]);
	for (int i = 0; i < 3; i++)
		ADD(p, 100, 1, bash, main_, f[i + 1]);
	assert_int_equal(profile__fold(p, 40, below_100_gone, NULL), 8); /* 12 >= 40 / 4 */
	assert_int_equal(profile__nstacks(p), 4);
	assert_true(found(p, TGID_UNKNOWN, (uint32_t[]){ bash, main_, f[0] }, 3).total == 9);
	assert_int_equal(profile__folded(p), 8);
	/* A quarter more than after that fold: 4 + 10. */
	for (int i = 4; i < 12; i++)
		ADD(p, 100 + i, 1, bash, main_, f[i]);
	ADD(p, 5, 1, bash, f[4]);
	assert_int_equal(profile__nstacks(p), 13);
	assert_int_equal(profile__fold(p, 40, below_100_gone, NULL), 0); /* 13 < 4 + 10 */
	ADD(p, 6, 2, bash, f[4]);
	assert_int_equal(profile__fold(p, 40, below_100_gone, NULL), 1); /* the two exited ones */
	assert_int_equal(profile__nstacks(p), 13);
	assert_true(found(p, TGID_UNKNOWN, (uint32_t[]){ bash, f[4] }, 2).total == 3);
	/* Nothing exited: nothing folds, however little counted. */
	for (int i = 0; i < 10; i++)
		ADD(p, 200 + i, 1, bash, f[i]);
	assert_int_equal(profile__nstacks(p), 23);
	assert_int_equal(profile__fold(p, 40, below_100_gone, NULL), 0);
	assert_int_equal(profile__nstacks(p), 23);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 9 + 3 + 8 + 3 + 10);
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 9 + 3 + 8 + 3 + 10);
	profile__free(p);
}

/*
 * Still over the limit, the stacks least worth keeping go into their
 * command's "[other]" stack: not those counted lately, then the least
 * counted. Each command's total stays exact; with more commands than room,
 * the rest goes into one "[other]" stack, and the whole total still does.
 */
static void test_fold_least_into_other(void **state)
{
	struct profile *p = profile__new();
	uint32_t app, other, other_process, fn[20];
	struct profile_stack st;
	char name[16];

	(void)state;
	app = frame(p, "app", FRAME_PROCESS);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		fn[i] = frame(p, name, FRAME_USER);
		ADD(p, 100 + i, (uint64_t)(i + 1) * 10, app, fn[i]); /* alive: gone is NULL */
	}
	profile__close_interval(p);
	profile__close_interval(p); /* nothing counted lately ... */
	ADD(p, 100, 1, app, fn[0]); /* ... but fn0, the least counted */
	assert_int_equal(profile__fold(p, 8, NULL, NULL), 14);
	assert_int_equal(profile__nstacks(p), 6); /* 3/4 of 8 */
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 2101);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 2101);
	other = frame(p, "[other]", FRAME_USER);
	st = found(p, 100, (uint32_t[]){ app, fn[0] }, 2); /* kept: counted lately */
	assert_true(st.total == 11);
	for (int i = 16; i < 20; i++) { /* kept: counted most */
		st = found(p, 100 + i, (uint32_t[]){ app, fn[i] }, 2);
		assert_true(st.total == (uint64_t)(i + 1) * 10);
	}
	st = found(p, TGID_UNKNOWN, (uint32_t[]){ app, other }, 2);
	assert_true(st.total == 10 * (2 + 16) * 15 / 2); /* fn1 .. fn15: 20 + ... + 160 */
	profile__free(p);

	/* Ten commands of two stacks each into 4 stacks: [other] of no command. */
	p = profile__new();
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "cmd%d", i / 2);
		app = frame(p, name, FRAME_PROCESS);
		snprintf(name, sizeof(name), "fn%d", i);
		ADD(p, 100 + i, (uint64_t)i + 1, app, frame(p, name, FRAME_USER));
	}
	profile__close_interval(p);
	profile__close_interval(p);
	assert_true(profile__fold(p, 5, NULL, NULL) >= 16);
	assert_true(profile__nstacks(p) <= 4);
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 210);
	other_process = frame(p, "[other]", FRAME_PROCESS);
	st = found(p, TGID_UNKNOWN, (uint32_t[]){ other_process }, 1);
	assert_true(st.total > 0);
	profile__free(p);
}

/*
 * A session whose every stack has a name never seen before (a JIT's fresh
 * functions): folding keeps the stacks within their limit, and the names
 * of what was folded away go too, so the frames stay bounded. Those still
 * used keep their names, under new ids that profile__renumbered() gives;
 * every count stays.
 */
static void test_fold_drops_unused_names(void **state)
{
	struct profile *p = profile__new();
	uint32_t app, kept = PROFILE_NONE, kept_id;
	uint64_t gen = profile__frames_gen(p);
	struct frame_origin origin;
	size_t most = 0;
	char name[32];

	(void)state;
	for (uint32_t i = 0; i < 300000; i++) {
		app = frame(p, "app", FRAME_PROCESS);
		snprintf(name, sizeof(name), "jit_fn_%u", i);
		ADD(p, 100, i == 7 ? 1000000 : 1, app, frame(p, name, FRAME_USER));
		if (i % 1000 == 7) /* where some functions lie: the counted one's goes with it */
			assert_int_equal(profile__set_origin(p, frame(p, name, FRAME_USER),
							     &(struct frame_origin){ "/bin/app", "ab12",
										     0x1000 + i }),
					 0);
		if (i == 7)
			kept = frame(p, name, FRAME_USER);
		profile__close_interval(p);
		assert_true(profile__fold(p, 4096, NULL, NULL) >= 0);
		if (profile__frames_gen(p) != gen) { /* renumbered: the counted one keeps its name */
			gen = profile__frames_gen(p);
			kept = profile__renumbered(p, kept);
			assert_int_not_equal(kept, PROFILE_NONE);
			assert_string_equal(profile__frame_name(p, kept), "jit_fn_7");
			assert_true(profile__origin(p, kept, &origin));
			assert_string_equal(origin.file, "/bin/app");
			assert_string_equal(origin.build_id, "ab12");
			assert_int_equal(origin.address, 0x1007);
		}
		if (profile__nframes(p) > most)
			most = profile__nframes(p);
	}
	assert_true(profile__frames_gen(p) > 0);
	assert_true(most < 2 * 65536 + 4096);
	assert_true(profile__nstacks(p) <= 4096);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 1000000 + 299999);
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 1000000 + 299999);
	/* The counted stack is whole, found by its frames' names under their new ids. */
	app = frame(p, "app", FRAME_PROCESS);
	kept_id = frame(p, "jit_fn_7", FRAME_USER);
	assert_int_equal(kept_id, kept);
	assert_true(found(p, 100, (uint32_t[]){ app, kept_id }, 2).total == 1000000);
	profile__free(p);
}

/* Where a function lies: recorded once, the first record staying; none for the others. */
static void test_origins(void **state)
{
	struct profile *p = profile__new();
	uint32_t f = frame(p, "main", FRAME_USER), g = frame(p, "other", FRAME_USER);
	struct frame_origin o;

	(void)state;
	assert_false(profile__origin(p, f, &o));
	assert_int_equal(profile__set_origin(p, g, &(struct frame_origin){ "/bin/b", "", 0x20 }), 0);
	assert_false(profile__origin(p, f, &o));
	assert_int_equal(profile__set_origin(p, f, &(struct frame_origin){ "/bin/a", "beef", 0x10 }),
			 0);
	assert_int_equal(profile__set_origin(p, f, &(struct frame_origin){ "/bin/c", "", 0x30 }), 0);
	assert_true(profile__origin(p, f, &o));
	assert_string_equal(o.file, "/bin/a");
	assert_string_equal(o.build_id, "beef");
	assert_int_equal(o.address, 0x10);
	assert_true(profile__origin(p, g, &o));
	assert_string_equal(o.file, "/bin/b");
	assert_string_equal(o.build_id, "");
	assert_false(profile__origin(p, frame(p, "new", FRAME_USER), &o));
	profile__free(p);
}

/*
 * A frozen picture (the screen's) folds with its stacks: its totals stay,
 * the stacks added since it was taken have none in it, and it still sorts
 * and groups.
 */
static void test_fold_frozen(void **state)
{
	struct profile *p = profile__new();
	uint32_t bash, f[2];

	(void)state;
	bash = frame(p, "bash", FRAME_PROCESS);
	f[0] = frame(p, "f0", FRAME_USER);
	f[1] = frame(p, "f1", FRAME_USER);
	for (int i = 0; i < 6; i++)
		ADD(p, 10 + i, 5, bash, f[i % 2]); /* exited processes, two stacks of bash */
	profile__close_interval(p);
	assert_int_equal(profile__freeze(p), 0);
	ADD(p, 200, 3, bash, f[0]); /* after the picture */
	assert_int_equal(profile__fold(p, 4, below_100_gone, NULL), 4);
	assert_int_equal(profile__nstacks(p), 3);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 30); /* the picture's */
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 30);
	assert_true(stacks_sum(p, WINDOW_RECENT) == 30);
	assert_int_equal(profile__sort(p), 0);
	assert_int_equal(profile__nsorted(p), profile__nstacks(p));
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	profile__thaw(p);
	assert_true(profile__total(p, WINDOW_CUMULATIVE) == 33);
	assert_true(stacks_sum(p, WINDOW_CUMULATIVE) == 33);
	profile__free(p);
}

/*
 * Packed, a frozen profile keeps its picture, each stack's counts moved
 * with it (a stack added since the freeze has none), and the groups are
 * named again by the new numbers.
 */
static void test_pack_frozen_and_grouped(void **state)
{
	struct profile *p = profile__new();
	uint32_t proc, a, b, c;
	struct profile_stack st;

	(void)state;
	proc = frame(p, "app", FRAME_PROCESS);
	a = frame(p, "a", FRAME_USER);
	b = frame(p, "b", FRAME_USER);
	c = frame(p, "c", FRAME_USER);
	ADD(p, 1, 1, proc, c); /* stack 0, rank 2 */
	ADD(p, 2, 2, proc, a); /* stack 1, rank 0 */
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	assert_int_equal(profile__freeze(p), 0);
	ADD(p, 1, 10, proc, c);
	ADD(p, 3, 3, proc, b); /* stack 2, rank 1: after the freeze */
	assert_int_equal(profile__sort(p), 0);
	assert_int_equal(profile__pack(p), 0);
	profile__stack(p, 0, &st);
	assert_int_equal(st.frames[1], a);
	assert_int_equal(st.total, 2);
	profile__stack(p, 1, &st);
	assert_int_equal(st.frames[1], b);
	assert_int_equal(st.total, 0);
	profile__stack(p, 2, &st);
	assert_int_equal(st.frames[1], c);
	assert_int_equal(st.total, 1);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 3);
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 0, GROUP_PID)),
			    "app [2]");
	assert_string_equal(profile__frame_name(p, profile__stack_group(p, 2, GROUP_PID)),
			    "app [1]");
	profile__thaw(p);
	profile__stack(p, 2, &st);
	assert_int_equal(st.total, 11);
	profile__free(p);
}

/* The same name in two shared objects makes two frames; without one, profile__frame()'s. */
static void test_frames_in_objects(void **state)
{
	struct profile *p = profile__new();
	uint32_t plain = frame(p, "main", FRAME_USER);
	uint32_t in_a = profile__frame_in(p, "main", 4, FRAME_USER, true, "a.out", 5);
	uint32_t in_b = profile__frame_in(p, "main", 4, FRAME_USER, true, "bash", 4);

	(void)state;
	assert_int_not_equal(plain, in_a);
	assert_int_not_equal(in_a, in_b);
	assert_int_equal(profile__frame_in(p, "main", 4, FRAME_USER, true, "a.out", 5), in_a);
	assert_null(profile__frame_object(p, plain));
	assert_string_equal(profile__frame_object(p, in_b), "bash");
	assert_string_equal(profile__frame_name(p, in_b), "main");
	profile__free(p);
}

/* Smart case: lower case matches any case, a capital matches exactly. */
static void test_text_match(void **state)
{
	(void)state;
	assert_string_equal(text_match("do_SYSCALL_64", "syscall"), "SYSCALL_64");
	assert_null(text_match("do_syscall_64", "Syscall"));
	assert_string_equal(text_match("do_Syscall_64", "Syscall"), "Syscall_64");
	assert_null(text_match("leaf", "leaf_b"));
	assert_true(text_match__exact("leafB"));
	assert_false(text_match__exact("leaf_b [k]"));
}

/* Names that carry a process's ids, as perf and flametop write them, and names that don't. */
static void test_process_names(void **state)
{
	static const struct {
		const char *name;
		size_t comm_len;
		int32_t tgid, tid;
	} cases[] = {
		{ "perl-4343", 4, 4343, 0 },
		{ "perl-4343/4350", 4, 4343, 4350 },
		{ "python3 [1234]", 7, 1234, 0 },
		{ "python3 [1234/1240]", 7, 1234, 1240 },
		{ "bash", 4, TGID_UNKNOWN, 0 },
		{ "-12", 3, TGID_UNKNOWN, 0 },
		{ "[12]", 4, TGID_UNKNOWN, 0 },
		{ "x-1234567890", 12, TGID_UNKNOWN, 0 }, /* ten digits: a name */
		{ "swapper/0", 9, TGID_UNKNOWN, 0 },
		{ "a [12/]", 7, TGID_UNKNOWN, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct process_name pn;

		process_name__parse(cases[i].name, strlen(cases[i].name), &pn);
		if (pn.comm_len != cases[i].comm_len || pn.tgid != cases[i].tgid ||
		    pn.tid != cases[i].tid)
			fail_msg("%s: comm %zu pid %d tid %d", cases[i].name, pn.comm_len, pn.tgid,
				 pn.tid);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strtab_same_string_same_id),
	    cmocka_unit_test(test_strtab_different_strings_different_ids),
	    cmocka_unit_test(test_strtab_len_bounded_input),
	    cmocka_unit_test(test_strtab_embedded_nul_truncates),
	    cmocka_unit_test(test_strtab_pointers_stable_across_growth),
	    cmocka_unit_test(test_frames_interned_by_name_and_kind),
	    cmocka_unit_test(test_same_stack_twice_sums),
	    cmocka_unit_test(test_stack_identity),
	    cmocka_unit_test(test_add_copies_frames),
	    cmocka_unit_test(test_add_rejects_bad_stacks),
	    cmocka_unit_test(test_windows),
	    cmocka_unit_test(test_reset_keeps_frames),
	    cmocka_unit_test(test_many_stacks),
	    cmocka_unit_test(test_sorted_order_in_batches),
	    cmocka_unit_test(test_sorted_order_prefixes),
	    cmocka_unit_test(test_sorted_order_long_shared_prefixes),
	    cmocka_unit_test(test_stack_sort_matches_plain_sort),
	    cmocka_unit_test(test_kernel_frames_begin),
	    cmocka_unit_test(test_threads_and_groups),
	    cmocka_unit_test(test_group_of_a_named_process),
	    cmocka_unit_test(test_freeze),
	    cmocka_unit_test(test_counts_saturate),
	    cmocka_unit_test(test_fold_exited_processes),
	    cmocka_unit_test(test_fold_exited_early),
	    cmocka_unit_test(test_fold_least_into_other),
	    cmocka_unit_test(test_fold_frozen),
	    cmocka_unit_test(test_fold_drops_unused_names),
	    cmocka_unit_test(test_pack_frozen_and_grouped),
	    cmocka_unit_test(test_frames_in_objects),
	    cmocka_unit_test(test_text_match),
	    cmocka_unit_test(test_process_names),
	    cmocka_unit_test(test_origins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
