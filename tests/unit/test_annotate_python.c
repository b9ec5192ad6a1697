// SPDX-License-Identifier: GPL-2.0
/*
 * The annotate view of Python frames (live/python_annotate.h): a function's
 * frames, one per line, gathered by qualname and file; each stack through
 * it counted once, at its innermost frame of it, as self where that frame
 * is the leaf; the processes to read its file as, most counted first; its
 * text read as a live process would, only under --source-dir for stacks
 * read from a file, never from what is not a regular file; --annotate's
 * names for it; and i, which has no instructions to switch to.
 */
#include "tests/unit/profile_fixture.h"

#include <errno.h>
#include <limits.h>

#include "live/annotate_source.h"
#include "live/python_annotate.h"
#include "profile/addr_counts.h"
#include "tui/annotate_view.h"

enum { PROC, MODULE, W10, W12, W14, OTHER, HELPER, NATIVE, KERNEL, GONE, NFRAMES };

/* The frames of the profile below, the function work() in file @file. */
static void make_frames(struct profile *p, const char *file, uint32_t *f)
{
	char name[PATH_MAX + 64];

	f[PROC] = frame(p, "python3.11", FRAME_PROCESS);
	f[MODULE] = frame(p, "<module> (/app/w.py:40)", FRAME_PYTHON);
	for (int i = W10; i <= W14; i++) {
		snprintf(name, sizeof(name), "work (%s:%d)", file, 10 + 2 * (i - W10));
		f[i] = frame(p, name, FRAME_PYTHON);
	}
	f[OTHER] = frame(p, "work (/app/other.py:10)", FRAME_PYTHON);
	snprintf(name, sizeof(name), "helper (%s:30)", file);
	f[HELPER] = frame(p, name, FRAME_PYTHON);
	f[NATIVE] = frame(p, "long_add", FRAME_USER);
	f[KERNEL] = frame(p, "do_syscall_64", FRAME_KERNEL);
	f[GONE] = frame(p, "[python: code object gone]", FRAME_PYTHON);
}

/*
 * A profile of work() in @file, in processes @tgids[0] (11 samples through
 * it), @tgids[2] (4) and @tgids[1] (2); @live: one that keeps addresses, as
 * a live capture's does. Its lines: 10 self 9; 12 self 1, calls 5; 14
 * calls 2.
 */
static struct profile *work_profile_of(const char *file, const int32_t *tgids, bool live,
				       uint32_t *f)
{
	struct profile *p = profile__new();
	int32_t tgid = tgids[0];

	assert_non_null(p);
	if (live)
		assert_non_null(profile__keep_addresses(p));
	make_frames(p, file, f);
	ADD(p, tgid, 5, f[PROC], f[MODULE], f[W10]);
	ADD(p, tgid, 3, f[PROC], f[MODULE], f[W12], f[NATIVE]);
	ADD(p, tgid, 1, f[PROC], f[MODULE], f[W12]);
	ADD(p, tgid, 2, f[PROC], f[MODULE], f[W14], f[HELPER]);
	ADD(p, tgids[2], 4, f[PROC], f[MODULE], f[W14], f[W10]); /* recursive: once, at 10 */
	ADD(p, tgids[1], 2, f[PROC], f[W12], f[KERNEL]);
	ADD(p, tgid, 6, f[PROC], f[MODULE], f[OTHER]); /* another file's work() */
	ADD(p, tgid, 1, f[PROC], f[MODULE], f[HELPER]);
	ADD(p, tgid, 3, f[PROC], f[MODULE], f[GONE]);
	return p;
}

/* work_profile_of() in processes @tgid, @tgid + 1 and @tgid + 2. */
static struct profile *work_profile(const char *file, int32_t tgid, bool live, uint32_t *f)
{
	const int32_t tgids[] = { tgid, tgid + 1, tgid + 2 };

	return work_profile_of(file, tgids, live, f);
}

static void check_line(const struct py_line_count *l, uint32_t line, uint64_t self,
		       uint64_t calls)
{
	assert_int_equal(l->line, line);
	assert_int_equal(l->self, self);
	assert_int_equal(l->calls, calls);
}

static void test_lines_counted(void **state)
{
	uint32_t f[NFRAMES];
	struct profile *p = work_profile("/app/w.py", 700, false, f);
	struct py_function_lines fl;

	(void)state;
	for (int from = W10; from <= W14; from++) { /* any of its frames: the same function */
		assert_int_equal(py_function_lines__count(p, f[from], &fl), 0);
		assert_string_equal(fl.qualname, "work");
		assert_string_equal(fl.file, "/app/w.py");
		assert_int_equal(fl.nlines, 3);
		check_line(&fl.lines[0], 10, 9, 0);
		check_line(&fl.lines[1], 12, 1, 5);
		check_line(&fl.lines[2], 14, 0, 2);
		assert_int_equal(fl.self, 10);
		assert_int_equal(fl.calls, 7);
		assert_int_equal(fl.tgids[0], 700);
		assert_int_equal(fl.tgids[1], 702);
		assert_int_equal(fl.tgids[2], 701);
		assert_int_equal(fl.tgids[3], TGID_UNKNOWN);
		py_function_lines__free(&fl);
	}
	/* The module's one line: every stack through it, none ending in it. */
	assert_int_equal(py_function_lines__count(p, f[MODULE], &fl), 0);
	assert_int_equal(fl.nlines, 1);
	check_line(&fl.lines[0], 40, 0, 25);
	py_function_lines__free(&fl);
	assert_int_equal(py_function_lines__count(p, f[GONE], &fl), -EINVAL);
	assert_int_equal(py_function_lines__count(p, f[NATIVE], &fl), -EINVAL);
	profile__free(p);
}

/* The annotation of frame @frame of @p, read with --source-dir @dir (NULL: none). */
static struct annotation annotate(const struct profile *p, uint32_t frame, const char *dir)
{
	const char *dirs[] = { dir };
	struct annotate_ctx ctx = { .prof = p, .proc_root = "/proc", .debug_root = "/usr/lib/debug",
				    .source_dirs = dirs, .nsource_dirs = dir ? 1 : 0 };
	struct annotation a;
	char why[256];
	struct annotate_job *job = annotate_source__job(&ctx, frame, why, sizeof(why));

	assert_non_null(job);
	assert_int_equal(job->run(job, NULL, &a), 0);
	annotate_job__free(job);
	return a;
}

/* Writes a .py file of 40 lines, "line N", at @path. */
static void write_source(const char *path)
{
	char text[512] = "";

	for (int i = 1; i <= 40; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "line %d\n", i);
	unit_write_file(path, text);
}

static void check_texts(const struct annotation *a, bool shown)
{
	assert_int_equal(a->nlines, 3);
	for (size_t i = 0; i < 3; i++) {
		char want[32];

		snprintf(want, sizeof(want), "line %u", a->lines[i].line);
		if (shown)
			assert_string_equal(a->lines[i].text, want);
		else
			assert_null(a->lines[i].text);
	}
}

static void test_annotation_of_a_file(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	uint32_t f[NFRAMES];
	struct profile *p;
	struct annotation a;
	struct ann_row *rows;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/src", unit_tmpdir());
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/app", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/app/w.py", dir);
	write_source(path);
	/* Stacks read from a file: the file they name is read under --source-dir alone. */
	p = work_profile("/app/w.py", getpid(), false, f);
	a = annotate(p, f[W12], dir);
	assert_string_equal(a.function, "work");
	assert_string_equal(a.object, "/app/w.py");
	assert_true(a.has_lines && a.lines_only);
	assert_int_equal(a.self, 10);
	assert_int_equal(a.calls, 7);
	check_texts(&a, true);
	assert_string_equal(a.lines_note, "");
	assert_int_equal(annotation__rows(&a, ANN_LINES, &rows), 3);
	assert_string_equal(annotation__file_name(&a, a.lines[rows[1].index].file), "w.py");
	free(rows);
	annotation__free(&a);
	profile__free(p);

	/*
	 * Its file readable here, its stacks claiming to be this process's: not read
	 * without --source-dir, as a file's pids are no process to read as.
	 */
	p = work_profile(path, getpid(), false, f);
	a = annotate(p, f[W10], NULL);
	check_texts(&a, false);
	assert_non_null(strstr(a.lines_note, "source text not read: stacks read from a file"));
	annotation__free(&a);
	profile__free(p);
}

/* The note of the annotation of work() in @file, live in this process; its text shown or not. */
static void check_live(const char *file, bool shown, const char *note)
{
	uint32_t f[NFRAMES];
	struct profile *p = work_profile(file, getpid(), true, f);
	struct annotation a = annotate(p, f[W14], NULL);

	check_texts(&a, shown);
	if (!strstr(a.lines_note, note))
		fail_msg("%s: '%s' has no '%s'", file, a.lines_note, note);
	annotation__free(&a);
	profile__free(p);
}

static void test_annotation_live(void **state)
{
	char path[PATH_MAX], fifo[PATH_MAX], dir[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/live.py", unit_tmpdir());
	write_source(path);
	check_live(path, true, "");
	snprintf(fifo, sizeof(fifo), "%s/a_fifo", unit_tmpdir());
	assert_int_equal(mkfifo(fifo, 0644), 0);
	check_live(fifo, false, "not shown: not a regular file"); /* not opened: no hang */
	snprintf(dir, sizeof(dir), "%s/a_dir.py", unit_tmpdir());
	assert_int_equal(mkdir(dir, 0755), 0);
	check_live(dir, false, "not shown: not a regular file");
	check_live("<string>", false, "no source text: <string> names no file");
	check_live("relative.py", false, "not found (--source-dir adds a place to look)");
}

/*
 * Processes that have exited: their files are not read. (Three of this
 * test's own children, reaped: the pids after one may be any process's.)
 */
static void test_annotation_exited(void **state)
{
	char path[PATH_MAX];
	uint32_t f[NFRAMES];
	struct profile *p;
	struct annotation a;
	int32_t tgids[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		pid_t child = fork();

		if (!child)
			_exit(0);
		assert_int_equal(waitpid(child, NULL, 0), child);
		tgids[i] = child;
	}
	snprintf(path, sizeof(path), "%s/exited.py", unit_tmpdir());
	write_source(path);
	p = work_profile_of(path, tgids, true, f);
	a = annotate(p, f[W10], NULL);
	check_texts(&a, false);
	assert_non_null(strstr(a.lines_note, "the process has exited"));
	annotation__free(&a);
	profile__free(p);
}

static void test_find(void **state)
{
	uint32_t f[NFRAMES];
	struct profile *p = work_profile("/app/w.py", 700, true, f);
	uint32_t found = annotate_source__find(p, "work");

	(void)state;
	/* By qualname: a frame of the file with the most counts (17, against other.py's 6). */
	assert_true(found == f[W10] || found == f[W12] || found == f[W14]);
	assert_int_equal(annotate_source__find(p, "work (/app/other.py)"), f[OTHER]);
	found = annotate_source__find(p, "work (/app/w.py)");
	assert_true(found == f[W10] || found == f[W12] || found == f[W14]);
	assert_int_equal(annotate_source__find(p, "work (/app/w.py:12)"), f[W12]);
	assert_int_equal(annotate_source__find(p, "work (/app/w.py:99)"), PROFILE_NONE);
	assert_int_equal(annotate_source__find(p, "work (/app/w.p)"), PROFILE_NONE);
	assert_int_equal(annotate_source__find(p, "wor"), PROFILE_NONE);
	assert_int_equal(annotate_source__find(p, "long_add"), f[NATIVE]);
	profile__free(p);
}

/* i on a Python function's annotation: nothing to switch to, and says why. */
static void test_no_instructions(void **state)
{
	uint32_t f[NFRAMES];
	struct profile *p = work_profile("/app/w.py", 700, false, f);
	struct annotate_pane pane;
	struct annotation a = annotate(p, f[W12], NULL);

	(void)state;
	annotate_pane__init(&pane);
	annotate_pane__open(&pane, p, f[W12]);
	annotate_pane__job_started(&pane, 1);
	assert_int_equal(annotate_pane__take(&pane, 1, &a), 0);
	assert_int_equal(pane.mode, ANN_LINES);
	assert_int_equal(pane.ann.lines[pane.rows[pane.sel].index].line, 10); /* the hottest */
	assert_int_equal(annotate_pane__toggle(&pane), -EOPNOTSUPP);
	assert_int_equal(pane.mode, ANN_LINES);
	assert_non_null(strstr(pane.ann.insns_note, "Python code has no instructions"));
	annotate_pane__free(&pane);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_counted),
		cmocka_unit_test(test_annotation_of_a_file),
		cmocka_unit_test(test_annotation_live),
		cmocka_unit_test(test_annotation_exited),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_no_instructions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
