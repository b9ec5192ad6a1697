// SPDX-License-Identifier: GPL-2.0
/*
 * hook_chain__select(): the first hook that works wins; why each better one
 * failed is kept in the notes. Failures are injected through a script.
 */
#include "tests/unit/unit.h"

#include <errno.h>

#include "bpf/hook_chain.h"

#define MAX_STEPS 5

/* What each step returns and says, and what happened. */
struct script {
	int result[MAX_STEPS];
	const char *why[MAX_STEPS]; /* NULL: leave the reason empty */
	int calls[MAX_STEPS];
	int order[MAX_STEPS];
	int ncalls;
};

static int attempt(void *ctx, const struct hook_step *step, char *why, size_t size)
{
	struct script *s = ctx;
	int i = (int)(intptr_t)step->arg;

	assert_true(i >= 0 && i < MAX_STEPS);
	/* Each attempt gets an empty reason buffer of some room. */
	assert_non_null(why);
	assert_true(size >= 64);
	assert_string_equal(why, "");
	s->calls[i]++;
	s->order[s->ncalls++] = i;
	if (s->why[i])
		snprintf(why, size, "%s", s->why[i]);
	return s->result[i];
}

static const char *const labels[MAX_STEPS] = {"fentry/vfs_read", "kprobe/vfs_read",
					      "tracepoint/syscalls/sys_enter_read", "4th", "5th"};

static void make_steps(struct hook_step *steps, int n)
{
	for (int i = 0; i < n; i++)
		steps[i] = (struct hook_step){labels[i], (const void *)(intptr_t)i, attempt};
}

static void test_first_step_wins(void **state)
{
	struct hook_step steps[3];
	struct script s = {.result = {0, 0, 0}};
	char notes[256];

	(void)state;
	make_steps(steps, 3);
	strcpy(notes, "stale");
	assert_int_equal(hook_chain__select(steps, 3, &s, notes, sizeof(notes)), 0);
	assert_string_equal(notes, "");
	assert_int_equal(s.ncalls, 1);
	assert_int_equal(s.calls[0], 1);
	assert_int_equal(s.calls[1], 0);
	assert_int_equal(s.calls[2], 0);
}

static void test_third_step_wins_with_notes(void **state)
{
	struct hook_step steps[3];
	struct script s = {
	    .result = {-EPERM, -ENOENT, 0},
	    .why = {NULL, "kernel built without kprobes", NULL},
	};
	char notes[256];

	(void)state;
	make_steps(steps, 3);
	assert_int_equal(hook_chain__select(steps, 3, &s, notes, sizeof(notes)), 2);
	assert_string_equal(notes, "fentry/vfs_read: Operation not permitted; "
				   "kprobe/vfs_read: kernel built without kprobes");
	assert_int_equal(s.ncalls, 3);
	assert_int_equal(s.order[0], 0);
	assert_int_equal(s.order[1], 1);
	assert_int_equal(s.order[2], 2);
}

/* A reason given by one step does not carry over to the next. */
static void test_reason_does_not_leak_to_next_step(void **state)
{
	struct hook_step steps[3];
	struct script s = {
	    .result = {-EACCES, -EOPNOTSUPP, 0},
	    .why = {"needs CAP_BPF", NULL, NULL},
	};
	char notes[256];

	(void)state;
	make_steps(steps, 3);
	assert_int_equal(hook_chain__select(steps, 3, &s, notes, sizeof(notes)), 2);
	assert_string_equal(notes, "fentry/vfs_read: needs CAP_BPF; "
				   "kprobe/vfs_read: Operation not supported");
}

static void test_all_fail(void **state)
{
	struct hook_step steps[3];
	struct script s = {.result = {-EPERM, -EOPNOTSUPP, -ENOENT}};
	char notes[256];

	(void)state;
	make_steps(steps, 3);
	assert_int_equal(hook_chain__select(steps, 3, &s, notes, sizeof(notes)), -ENOENT);
	assert_string_equal(notes, "fentry/vfs_read: Operation not permitted; "
				   "kprobe/vfs_read: Operation not supported; "
				   "tracepoint/syscalls/sys_enter_read: No such file or directory");
	assert_int_equal(s.ncalls, 3);

	/* The last step's error, not the first's. */
	memset(&s, 0, sizeof(s));
	s.result[0] = -ENOENT;
	s.result[1] = -E2BIG;
	assert_int_equal(hook_chain__select(steps, 2, &s, notes, sizeof(notes)), -E2BIG);
	assert_string_equal(notes, "fentry/vfs_read: No such file or directory; "
				   "kprobe/vfs_read: Argument list too long");
}

static void test_steps_after_success_never_called(void **state)
{
	struct hook_step steps[5];
	struct script s = {.result = {-EPERM, 0, 0, -EPERM, 0}};
	char notes[256];

	(void)state;
	make_steps(steps, 5);
	assert_int_equal(hook_chain__select(steps, 5, &s, notes, sizeof(notes)), 1);
	assert_int_equal(s.ncalls, 2);
	assert_int_equal(s.calls[0], 1);
	assert_int_equal(s.calls[1], 1);
	assert_int_equal(s.calls[2], 0);
	assert_int_equal(s.calls[3], 0);
	assert_int_equal(s.calls[4], 0);
	assert_string_equal(notes, "fentry/vfs_read: Operation not permitted");
}

static void test_no_steps(void **state)
{
	struct hook_step steps[1];
	struct script s = {.result = {0}};
	char notes[16];

	(void)state;
	make_steps(steps, 1);
	strcpy(notes, "stale");
	assert_int_equal(hook_chain__select(steps, 0, &s, notes, sizeof(notes)), -ENOENT);
	assert_string_equal(notes, "");
	assert_int_equal(s.ncalls, 0);
	strcpy(notes, "stale");
	assert_int_equal(hook_chain__select(NULL, 0, &s, notes, sizeof(notes)), -ENOENT);
	assert_string_equal(notes, "");
}

/* A positive errno from a step counts as its negative. */
static void test_positive_errno(void **state)
{
	struct hook_step steps[2];
	struct script s = {.result = {EPERM, EACCES}};
	char notes[256];

	(void)state;
	make_steps(steps, 2);
	assert_int_equal(hook_chain__select(steps, 2, &s, notes, sizeof(notes)), -EACCES);
	assert_string_equal(notes, "fentry/vfs_read: Operation not permitted; "
				   "kprobe/vfs_read: Permission denied");

	memset(&s, 0, sizeof(s));
	s.result[0] = EPERM;
	assert_int_equal(hook_chain__select(steps, 2, &s, notes, sizeof(notes)), 1);
	assert_string_equal(notes, "fentry/vfs_read: Operation not permitted");
}

/*
 * Runs the all-failing three-step chain (or the one where the third wins)
 * with notes of @size inside a larger buffer filled with 'X': checks the
 * result, that notes is @want, and that nothing past @size was touched.
 */
static void check_small_notes(size_t size, int third, int want_ret, const char *want)
{
	struct hook_step steps[3];
	struct script s = {
	    .result = {-EPERM, -ENOENT, third},
	    .why = {NULL, "kernel built without kprobes", NULL},
	};
	char buf[300];

	make_steps(steps, 3);
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(hook_chain__select(steps, 3, &s, buf, size), want_ret);
	assert_int_equal(s.ncalls, 3);
	if (size) {
		assert_string_equal(buf, want);
		assert_true(strlen(buf) < size);
	}
	for (size_t i = size; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 'X');
}

static void test_notes_truncated(void **state)
{
	const char *full = "fentry/vfs_read: Operation not permitted; "
			   "kprobe/vfs_read: kernel built without kprobes";
	size_t len = strlen(full);

	(void)state;
	check_small_notes(0, 0, 2, NULL);
	check_small_notes(1, 0, 2, "");
	check_small_notes(1, -ENODEV, -ENODEV, "");
	check_small_notes(2, -ENODEV, -ENODEV, "f");
	check_small_notes(10, 0, 2, "fentry/vf");
	check_small_notes(10, -ENODEV, -ENODEV, "fentry/vf");
	/* Room for exactly the first note: the second does not fit. */
	check_small_notes(41, 0, 2, "fentry/vfs_read: Operation not permitted");
	/* One byte short of everything, then just enough. */
	check_small_notes(len, 0, 2,
			  "fentry/vfs_read: Operation not permitted; "
			  "kprobe/vfs_read: kernel built without kprobe");
	check_small_notes(len + 1, 0, 2, full);
	check_small_notes(len + 1, -ENODEV, -ENODEV,
			  "fentry/vfs_read: Operation not permitted; "
			  "kprobe/vfs_read: kernel built without kprobes");
}

/* A step's reason longer than its buffer is cut, never overflows. */
static void test_long_reason(void **state)
{
	struct hook_step steps[1];
	char reason[1000], notes[2000], want[2000];
	struct script s = {.result = {-EPERM}, .why = {reason}};
	size_t room;

	(void)state;
	make_steps(steps, 1);
	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	assert_int_equal(hook_chain__select(steps, 1, &s, notes, sizeof(notes)), -EPERM);
	/* The note is "fentry/vfs_read: " and at most what the step could write. */
	assert_memory_equal(notes, "fentry/vfs_read: ", 17);
	room = strlen(notes) - 17;
	assert_true(room >= 63 && room < sizeof(reason) - 1);
	memset(want, 'r', room);
	want[room] = '\0';
	assert_string_equal(notes + 17, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_step_wins),
	    cmocka_unit_test(test_third_step_wins_with_notes),
	    cmocka_unit_test(test_reason_does_not_leak_to_next_step),
	    cmocka_unit_test(test_all_fail),
	    cmocka_unit_test(test_steps_after_success_never_called),
	    cmocka_unit_test(test_no_steps),
	    cmocka_unit_test(test_positive_errno),
	    cmocka_unit_test(test_notes_truncated),
	    cmocka_unit_test(test_long_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
