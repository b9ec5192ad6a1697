/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile_fixture.h: profiles written by hand for the tests of profile/
 * (profile, stack_trie, folded__write): frames by name with frame(), stacks
 * with ADD(), and a cmocka fixture holding a profile and a trie built from
 * it.
 */
#ifndef FLAMETOP_PROFILE_FIXTURE_H
#define FLAMETOP_PROFILE_FIXTURE_H

#include "tests/unit/unit.h"

#include "profile/output.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"

/* The id of frame @name of @kind in @p, added when new; fails the test when there is none. */
static inline uint32_t frame(struct profile *p, const char *name, enum frame_kind kind)
{
	uint32_t id = profile__frame(p, name, strlen(name), kind, true);

	assert_int_not_equal(id, PROFILE_NONE);
	return id;
}

/* Adds @count samples of stack @frames[0, @n) of process @tgid to @p: profile__add()'s result. */
static inline int add_stack(struct profile *p, int32_t tgid, const uint32_t *frames, uint32_t n,
			    uint64_t count)
{
	struct sample s = {.tgid = tgid, .frames = frames, .n = n, .count = count};

	return profile__add(p, &s);
}

/* ADD(p, tgid, count, frames...) adds one stack, outermost frame first, or fails the test. */
#define ADD(p, tgid, count, ...)                                                                   \
	do {                                                                                       \
		const uint32_t add_frames__[] = {__VA_ARGS__};                                     \
		uint32_t add_n__ = sizeof(add_frames__) / sizeof(uint32_t);                        \
		assert_int_equal(add_stack(p, tgid, add_frames__, add_n__, count), 0);             \
	} while (0)

/*
 * The view of @p through @f written in @format (to free()), as -i FILE with
 * --folded, --svg or --pprof writes it; @info says what the formats that
 * say so say (NULL: "samples" of counts).
 */
static inline char *output_text(const struct profile *p, const struct view_filter *f,
				enum output_format format, const struct output_info *info)
{
	const struct output_info samples = { .title = "t", .type = "samples", .unit = "count" };
	struct stack_trie t;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__build(&t, p, f), 0);
	assert_true(output__write(m, format, &t, p, f, info ? info : &samples) >= 0);
	assert_int_equal(fclose(m), 0);
	stack_trie__free(&t);
	return out;
}

/* @p as folded text, through @f, in the trie's order (to free()). */
static inline char *folded_text(const struct profile *p, const struct view_filter *f)
{
	return output_text(p, f, OUTPUT_FOLDED, NULL);
}

/* A small deterministic generator (xorshift32, @state not 0): the same stacks on every run. */
static inline uint32_t next_random(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* A profile, a trie built from it, and the frames small_profile_frames() adds. */
struct trie_fixture {
	struct profile *p;
	struct stack_trie t;
	uint32_t bash, sleep, main, foo, bar, sys_read;
};

/* A cmocka setup: an empty profile and an empty trie. */
static inline int trie_setup(void **state)
{
	struct trie_fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->p = profile__new();
	if (!f->p || stack_trie__init(&f->t))
		return -1;
	*state = f;
	return 0;
}

static inline int trie_teardown(void **state)
{
	struct trie_fixture *f = *state;

	stack_trie__free(&f->t);
	profile__free(f->p);
	free(f);
	return 0;
}

/* Makes every node of @t, which makes them only as they are asked for. */
static inline void make_all(const struct stack_trie *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		stack_trie__first_child(t, i);
	assert_int_equal(stack_trie__error(t), 0);
}

/* Builds @f's trie from its profile through @filter and makes every node, or fails the test. */
static inline void trie_build(struct trie_fixture *f, const struct view_filter *filter)
{
	assert_int_equal(stack_trie__build(&f->t, f->p, filter), 0);
	make_all(&f->t);
}

/*
 * The frames of the small profile both trie tests start from: processes
 * bash and sleep, user frames main, foo and bar, kernel frame sys_read.
 */
static inline void small_profile_frames(struct trie_fixture *f)
{
	f->bash = frame(f->p, "bash", FRAME_PROCESS);
	f->sleep = frame(f->p, "sleep", FRAME_PROCESS);
	f->main = frame(f->p, "main", FRAME_USER);
	f->foo = frame(f->p, "foo", FRAME_USER);
	f->bar = frame(f->p, "bar", FRAME_USER);
	f->sys_read = frame(f->p, "sys_read", FRAME_KERNEL);
}

#endif
