// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames in the profile and its outputs: a stack with Python frames
 * gets the interp twins of the interpreter's dispatch frames, which the
 * view hides (I) while the same frames in a stack without Python frames
 * stay; K and U treat Python frames as user frames; folded stacks keep
 * py-spy's "qualname (file:LINE)" and read back as Python frames; pprof
 * puts the qualname, file and line in its Function and Line, and reads
 * them back; the SVG draws them in a colour of their own; the screen shows
 * a file by its base name, the flat list's object column the whole path.
 */
#include "tests/unit/profile_fixture.h"

#include <zlib.h>

#include "profile/folded.h"
#include "profile/input.h"
#include "profile/pprof.h"
#include "profile/pprof.pb-c.h"
#include "profile/svg.h"
#include "tui/flat_view.h"
#include "tui/frame_label.h"

static const char *const PY_STACK[] = {
	"python3.11", "_start", "main", "Py_BytesMain", "_PyEval_EvalFrameDefault",
	"<module> (/app/main.py:40)", "outer (/app/main.py:12)", "builtin_sorted",
	"PyObject_CallOneArg", "_PyEval_EvalFrameDefault", "<lambda> (/app/main.py:13)",
	"do_syscall_64",
};

/* A profile: 3 samples of a Python process's stack, 2 of one without Python frames. */
static struct profile *python_profile(void)
{
	struct profile *p = profile__new();
	uint32_t f[12];

	assert_non_null(p);
	for (int i = 0; i < 12; i++)
		f[i] = frame(p, PY_STACK[i],
			     i == 0 ? FRAME_PROCESS : i == 11 ? FRAME_KERNEL
			     : strchr(PY_STACK[i], '(') ? FRAME_PYTHON : FRAME_USER);
	assert_int_equal(add_stack(p, 7, f, 12, 3), 0);
	ADD(p, 8, 2, f[0], f[4], f[7]); /* an unsupported build: native frames only */
	return p;
}

/* @p through @f as folded text (to free()). */
static char *folded_of(const struct profile *p, const struct view_filter *f)
{
	struct stack_trie t;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__build(&t, p, f), 0);
	assert_true(folded__write(m, &t, p, GROUP_COMM) >= 0);
	fclose(m);
	stack_trie__free(&t);
	return out;
}

static void check_folded(const struct profile *p, const struct view_filter *f, const char *want)
{
	char *got = folded_of(p, f);

	assert_string_equal(got, want);
	free(got);
}

static const char WHOLE[] =
	"python3.11;_start;main;Py_BytesMain;_PyEval_EvalFrameDefault;<module> (/app/main.py:40);"
	"outer (/app/main.py:12);builtin_sorted;PyObject_CallOneArg;_PyEval_EvalFrameDefault;"
	"<lambda> (/app/main.py:13);do_syscall_64_[k] 3\n"
	"python3.11;_PyEval_EvalFrameDefault;builtin_sorted 2\n";

static const char NO_INTERP[] =
	"python3.11;_start;main;<module> (/app/main.py:40);outer (/app/main.py:12);builtin_sorted;"
	"<lambda> (/app/main.py:13);do_syscall_64_[k] 3\n"
	"python3.11;_PyEval_EvalFrameDefault;builtin_sorted 2\n";

static void test_interp_twins(void **state)
{
	struct profile *p = python_profile();
	struct profile_stack s;
	int twins = 0;

	(void)state;
	for (size_t i = 0; i < profile__nstacks(p); i++) {
		profile__stack(p, i, &s);
		for (uint32_t k = 1; k < s.n; k++) {
			const struct frame *fr = profile__frame_info(p, s.frames[k]);
			const char *name = profile__frame_name(p, s.frames[k]);
			bool dispatch = !strcmp(name, "_PyEval_EvalFrameDefault") ||
					!strcmp(name, "Py_BytesMain") ||
					!strcmp(name, "PyObject_CallOneArg");

			/* The twins only in the stack with Python frames, only for dispatch. */
			assert_int_equal(fr->interp, dispatch && s.tgid == 7);
			twins += fr->interp;
		}
		/* A stack with Python frames is no plain user-then-kernel one. */
		assert_true(s.tgid == 7 ? s.kernel_at == PROFILE_NONE : s.kernel_at == 3);
	}
	assert_int_equal(twins, 4);
	profile__free(p);
}

static void test_hide_interp(void **state)
{
	struct profile *p = python_profile();
	struct view_filter f = { .window = WINDOW_CUMULATIVE };

	(void)state;
	check_folded(p, &f, WHOLE);
	f.hide_interp = true;
	check_folded(p, &f, NO_INTERP);
	/* U: Python frames are user frames; K: they stay with the user part. */
	f.hide_user = true;
	check_folded(p, &f, "python3.11 2\npython3.11;do_syscall_64_[k] 3\n");
	f.hide_user = false;
	f.hide_kernel = true;
	check_folded(p, &f,
		     "python3.11;_start;main;<module> (/app/main.py:40);outer (/app/main.py:12);"
		     "builtin_sorted;<lambda> (/app/main.py:13) 3\n"
		     "python3.11;_PyEval_EvalFrameDefault;builtin_sorted 2\n");
	/* A search finds Python frames by their file too. */
	f = (struct view_filter){ .window = WINDOW_CUMULATIVE, .hide_interp = true,
				  .text = "main.py:13" };
	check_folded(p, &f,
		     "python3.11;_start;main;<module> (/app/main.py:40);outer (/app/main.py:12);"
		     "builtin_sorted;<lambda> (/app/main.py:13);do_syscall_64_[k] 3\n");
	profile__free(p);
}

/* Reads @text (folded, or any format input__read() knows) into a new profile. */
static struct profile *read_back(const void *text, size_t len)
{
	struct profile *p = profile__new();
	struct input_stats st;
	FILE *in = fmemopen((void *)text, len, "r");

	assert_non_null(in);
	assert_int_equal(input__read(in, p, &st), 0);
	fclose(in);
	return p;
}

/* The kind of the frame named @name in @p; fails when there is none. */
static enum frame_kind kind_of(const struct profile *p, const char *name)
{
	for (uint32_t i = 0; i < profile__nframes(p); i++)
		if (!strcmp(profile__frame_name(p, i), name))
			return profile__frame_info(p, i)->kind;
	fail_msg("no frame %s", name);
	return FRAME_USER;
}

static void test_folded_round_trip(void **state)
{
	struct profile *p = read_back(WHOLE, sizeof(WHOLE) - 1);
	struct view_filter f = { .window = WINDOW_CUMULATIVE };

	(void)state;
	/* The rule: a user frame "qualname (file:LINE)" is a Python frame. */
	assert_int_equal(kind_of(p, "outer (/app/main.py:12)"), FRAME_PYTHON);
	assert_int_equal(kind_of(p, "<lambda> (/app/main.py:13)"), FRAME_PYTHON);
	assert_int_equal(kind_of(p, "builtin_sorted"), FRAME_USER);
	check_folded(p, &f, WHOLE);
	f.hide_interp = true;
	check_folded(p, &f, NO_INTERP);
	profile__free(p);
	/* Not Python: C++ argument lists, a colon without a line, kernel frames. */
	p = read_back("app;f(int) (x);g (a.cc:);h (x.py:3)_[k] 1\n", 41);
	assert_int_equal(kind_of(p, "f(int) (x)"), FRAME_USER);
	assert_int_equal(kind_of(p, "g (a.cc:)"), FRAME_USER);
	assert_int_equal(kind_of(p, "h (x.py:3)"), FRAME_KERNEL);
	profile__free(p);
}

/* Gunzips @len bytes at @gz into a profile.proto message (to free with its unpack's free). */
static Perftools__Profiles__Profile *unpack(const char *gz, size_t len)
{
	size_t cap = 1 << 20;
	unsigned char *raw = malloc(cap);
	z_stream z = { 0 };
	Perftools__Profiles__Profile *m;

	assert_int_equal(inflateInit2(&z, 15 + 32), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	m = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	free(raw);
	assert_non_null(m);
	return m;
}

static void test_pprof(void **state)
{
	struct profile *p = python_profile(), *back;
	struct view_filter f = { .window = WINDOW_CUMULATIVE };
	struct pprof_info info = { "samples", "count", 0, 0, 0 };
	char *gz = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&gz, &len);
	Perftools__Profiles__Profile *msg;
	bool found = false;

	(void)state;
	assert_true(pprof__write(m, p, &f, &info) > 0);
	fclose(m);
	msg = unpack(gz, len);
	/* outer's Function: its qualname, its file; its Line: 12. */
	for (size_t i = 0; i < msg->n_location; i++) {
		const Perftools__Profiles__Location *loc = msg->location[i];
		const Perftools__Profiles__Function *fn = NULL;

		for (size_t k = 0; k < msg->n_function; k++)
			if (loc->n_line && msg->function[k]->id == loc->line[0]->function_id)
				fn = msg->function[k];
		if (!fn || strcmp(msg->string_table[fn->name], "outer"))
			continue;
		assert_string_equal(msg->string_table[fn->filename], "/app/main.py");
		assert_int_equal(loc->line[0]->line, 12);
		found = true;
	}
	assert_true(found);
	perftools__profiles__profile__free_unpacked(msg, NULL);
	/* Read back: Python frames again, named as before. */
	back = read_back(gz, len);
	assert_int_equal(kind_of(back, "outer (/app/main.py:12)"), FRAME_PYTHON);
	assert_int_equal(kind_of(back, "<module> (/app/main.py:40)"), FRAME_PYTHON);
	f.hide_interp = true;
	check_folded(back, &f, NO_INTERP);
	profile__free(back);
	free(gz);
	profile__free(p);
}

static void test_svg_colour(void **state)
{
	struct profile *p = python_profile();
	struct view_filter f = { .window = WINDOW_CUMULATIVE, .hide_interp = true };
	struct svg_info info = { .title = "t", .unit = "samples" };
	struct stack_trie t;
	char *out = NULL, *g;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	int r, gr, b;

	(void)state;
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__build(&t, p, &f), 0);
	assert_true(svg__write(m, &t, p, &info) > 0);
	fclose(m);
	/* Python frames: a class and a green of their own; native ones the warm palette. */
	g = strstr(out, "<g class=\"f y\" data-n=\"3\"><title>outer (/app/main.py:12)");
	assert_non_null(g);
	assert_int_equal(sscanf(strstr(g, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &gr, &b), 3);
	assert_true(gr > r && gr > b);
	g = strstr(out, "<g class=\"f u\" data-n=\"3\"><title>builtin_sorted");
	assert_non_null(g);
	assert_int_equal(sscanf(strstr(g, "fill=\"rgb("), "fill=\"rgb(%d,%d,%d)", &r, &gr, &b), 3);
	assert_true(r > gr && r > b);
	free(out);
	stack_trie__free(&t);
	profile__free(p);
}

static void test_screen_names(void **state)
{
	struct profile *p = profile__new();
	char label[FRAME_LABEL_MAX], object[256];
	uint32_t py, bare, native;

	(void)state;
	assert_non_null(p);
	py = frame(p, "Foo.<locals>.<lambda> (/srv/app (v2)/lib/app.py:13)", FRAME_PYTHON);
	bare = frame(p, "<module> (<string>:1)", FRAME_PYTHON);
	native = frame(p, "outer (/srv/app.py:12)", FRAME_USER); /* not a Python frame */
	/* The tree, the icicle: the file by its base name. */
	assert_string_equal(frame_label__text(p, py, label, sizeof(label)),
			    "Foo.<locals>.<lambda> (app.py:13)");
	assert_string_equal(frame_label__text(p, bare, label, sizeof(label)),
			    "<module> (<string>:1)");
	assert_string_equal(frame_label__text(p, native, label, sizeof(label)),
			    "outer (/srv/app.py:12)");
	/* The flat list's object column: the whole path. */
	frame_object(p, py, object, sizeof(object));
	assert_string_equal(object, "/srv/app (v2)/lib/app.py");
	frame_object(p, bare, object, sizeof(object));
	assert_string_equal(object, "<string>");
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interp_twins),
		cmocka_unit_test(test_hide_interp),
		cmocka_unit_test(test_folded_round_trip),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_svg_colour),
		cmocka_unit_test(test_screen_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
