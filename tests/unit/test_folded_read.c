// SPDX-License-Identifier: GPL-2.0
/*
 * folded__read(): flametop's own output, perf's stackcollapse output with
 * pids, and hostile input, which is counted and never fatal.
 */
#include "tests/unit/profile_fixture.h"

#include "profile/folded.h"
#include "profile/input.h"
#include "profile/profile.h"
#include "profile/stack_trie.h"

struct loaded {
	struct profile *p;
	struct input_stats st;
	int ret;
};

static struct loaded load(const char *text, size_t len)
{
	struct loaded l = { .p = profile__new() };
	FILE *f = fmemopen((void *)text, len, "r");

	assert_non_null(l.p);
	assert_non_null(f);
	l.ret = input__read(f, l.p, &l.st);
	fclose(f);
	return l;
}

static struct loaded load_str(const char *text)
{
	return load(text, strlen(text));
}

/* The stored stack whose frames read @want joined by ';' (kernel frames as "name[k]"). */
static const struct profile_stack *find_stack(const struct profile *p, const char *want,
					      struct profile_stack *out)
{
	for (size_t i = 0; i < profile__nstacks(p); i++) {
		char joined[4096] = "";

		profile__stack(p, i, out);
		for (uint32_t j = 0; j < out->n; j++) {
			const struct frame *fr = profile__frame_info(p, out->frames[j]);

			if (j)
				strcat(joined, ";");
			strcat(joined, profile__frame_name(p, out->frames[j]));
			if (fr->kind == FRAME_KERNEL)
				strcat(joined, "[k]");
		}
		if (strcmp(joined, want) == 0)
			return out;
	}
	return NULL;
}

static const struct frame *frame_named(const struct profile *p, const struct profile_stack *s,
				       const char *name)
{
	for (uint32_t j = 0; j < s->n; j++) {
		if (strcmp(profile__frame_name(p, s->frames[j]), name) == 0)
			return profile__frame_info(p, s->frames[j]);
	}
	return NULL;
}

static void test_flametop_output(void **state)
{
	struct loaded l = load_str("cpu_split;libc.so.6+0x27249;main;work;leaf_a 1488\n"
				   "cpu_split;libc.so.6+0x27249;main;work;leaf_b 506\n"
				   "sh;main;read_zeros;entry_SYSCALL_64_[k];vfs_read_[k] 38\n"
				   "swapper/0;do_idle_[k];default_idle_[k] 284\n");
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.lines, 4);
	assert_int_equal(l.st.stacks, 4);
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(profile__total(l.p, WINDOW_CUMULATIVE), 1488 + 506 + 38 + 284);
	assert_non_null(find_stack(l.p, "cpu_split;libc.so.6+0x27249;main;work;leaf_a", &s));
	assert_int_equal(s.total, 1488);
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	assert_false(frame_named(l.p, &s, "libc.so.6+0x27249")->named);
	assert_true(frame_named(l.p, &s, "leaf_a")->named);
	assert_int_equal(frame_named(l.p, &s, "cpu_split")->kind, FRAME_PROCESS);
	assert_non_null(find_stack(l.p, "sh;main;read_zeros;entry_SYSCALL_64[k];vfs_read[k]", &s));
	assert_int_equal(s.total, 38);
	assert_int_equal(frame_named(l.p, &s, "vfs_read")->kind, FRAME_KERNEL);
	assert_int_equal(frame_named(l.p, &s, "read_zeros")->kind, FRAME_USER);
	/* swapper/0 is a process name, not "swapper" with pid 0. */
	assert_non_null(find_stack(l.p, "swapper/0;do_idle[k];default_idle[k]", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	profile__free(l.p);
}

/* Reading then writing gives back the same lines (in the trie's order). */
static void test_round_trip(void **state)
{
	const char *in = "b;x;y_[k] 7\n"
			 "a;m;n 3\n"
			 "a;m 2\n"
			 "a;m;n;k1_[k] 1\n";
	const char *want = "b;x;y_[k] 7\n"
			   "a;m 2\n"
			   "a;m;n 3\n"
			   "a;m;n;k1_[k] 1\n";
	struct loaded l = load_str(in);
	struct view_filter all = { .window = WINDOW_CUMULATIVE };
	struct stack_trie t;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	(void)state;
	assert_int_equal(stack_trie__init(&t), 0);
	assert_int_equal(stack_trie__build(&t, l.p, &all), 0);
	assert_int_equal(folded__write(f, &t, l.p, GROUP_COMM), 4);
	fclose(f);
	assert_string_equal(out, want);
	free(out);
	stack_trie__free(&t);
	profile__free(l.p);
}

/*
 * stackcollapse-perf.pl --pid and --tid name every process "comm-PID" or
 * "comm-PID/TID": the stacks group by command, their pids and tids kept
 * (for -p, P and -c).
 */
static void test_perf_pids(void **state)
{
	struct loaded l = load_str("bash-1234;main;loop 5\n"
				   "bash-1234/1240;main;worker 6\n"
				   "bash-99;main;loop 1\n"
				   "java-77;main 1\n");
	struct profile_stack s;
	int32_t pid = 1234;
	struct view_filter by_pid = { .window = WINDOW_CUMULATIVE, .tgids = &pid, .ntgids = 1 };
	struct view_filter by_comm = { .window = WINDOW_CUMULATIVE, .comm = "bash" };
	struct view_filter all = { .window = WINDOW_CUMULATIVE };
	struct stack_trie t;

	(void)state;
	assert_int_equal(l.st.bad, 0);
	assert_true(profile__has_tgids(l.p));
	assert_non_null(find_stack(l.p, "bash;main;worker", &s));
	assert_int_equal(s.tgid, 1234);
	assert_int_equal(s.tid, 1240);
	assert_int_equal(s.total, 6);
	assert_non_null(find_stack(l.p, "java;main", &s));
	assert_int_equal(s.tgid, 77);

	assert_int_equal(stack_trie__init(&t), 0);
	/* Grouped by command: one "bash" of 12, one "java" of 1. */
	assert_int_equal(stack_trie__build(&t, l.p, &all), 0);
	assert_int_equal(t.nodes[stack_trie__first_child(&t, TRIE_ROOT)].total, 12);
	assert_string_equal(
	    profile__frame_name(l.p, t.nodes[stack_trie__first_child(&t, TRIE_ROOT)].frame), "bash");
	assert_int_equal(stack_trie__build(&t, l.p, &by_pid), 0);
	assert_int_equal(t.nodes[TRIE_ROOT].total, 11);
	assert_int_equal(stack_trie__build(&t, l.p, &by_comm), 0);
	assert_int_equal(t.nodes[TRIE_ROOT].total, 12);
	/* By thread: "bash [1234/1240]" named from the ids kept. */
	by_pid.group = GROUP_TID;
	assert_int_equal(profile__group(l.p, GROUP_TID), 0);
	assert_int_equal(stack_trie__build(&t, l.p, &by_pid), 0);
	assert_string_equal(
	    profile__frame_name(l.p, t.nodes[stack_trie__first_child(&t, TRIE_ROOT)].frame),
	    "bash [1234/1240]");
	stack_trie__free(&t);
	profile__free(l.p);
}

/*
 * In a file whose processes do not all carry ids, "comm-N" is a command's
 * name ("gcc-12", "kworker/0:1-events"); flametop's "comm [PID/TID]" always
 * carries them.
 */
static void test_names_like_pids(void **state)
{
	struct loaded l = load_str("gcc-12;main 5\n"
				   "kworker/0:1-events;worker_thread_[k] 2\n"
				   "x-;main 1\n"
				   "java-99999999999;main 1\n"
				   "python3 [77/78];run 4\n");
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.st.bad, 0);
	assert_non_null(find_stack(l.p, "gcc-12;main", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	assert_non_null(find_stack(l.p, "kworker/0:1-events;worker_thread[k]", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	assert_non_null(find_stack(l.p, "x-;main", &s));
	assert_non_null(find_stack(l.p, "java-99999999999;main", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	assert_non_null(find_stack(l.p, "python3;run", &s));
	assert_int_equal(s.tgid, 77);
	assert_int_equal(s.tid, 78);
	profile__free(l.p);
}

/*
 * Commands whose names read like "comm-PID" or "comm [PID]", written under
 * the default grouping, read back as those commands, without ids; written
 * grouped by process, "comm [PID]" reads back as the command and its pid.
 */
static void test_round_trip_commands(void **state)
{
	struct profile *p = profile__new();
	uint32_t gcc = frame(p, "gcc-12", FRAME_PROCESS), x = frame(p, "x [12]", FRAME_PROCESS);
	uint32_t bash = frame(p, "bash", FRAME_PROCESS), main = frame(p, "main", FRAME_USER);
	struct view_filter by_pid = { .window = WINDOW_CUMULATIVE, .group = GROUP_PID };
	struct profile_stack s;
	char *first, *second;
	struct loaded l;

	(void)state;
	ADD(p, TGID_UNKNOWN, 9, gcc, main);
	ADD(p, TGID_UNKNOWN, 5, x, main);
	ADD(p, 77, 3, bash, main);
	first = folded_text(p, &(struct view_filter){ .window = WINDOW_CUMULATIVE });
	l = load_str(first);
	assert_non_null(find_stack(l.p, "gcc-12;main", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	assert_non_null(find_stack(l.p, "x [12];main", &s));
	assert_int_equal(s.tgid, TGID_UNKNOWN);
	second = folded_text(l.p, &(struct view_filter){ .window = WINDOW_CUMULATIVE });
	assert_string_equal(first, second);
	free(first);
	free(second);
	profile__free(l.p);
	assert_int_equal(profile__group(p, GROUP_PID), 0);
	first = folded_text(p, &by_pid);
	assert_non_null(strstr(first, "bash [77];main 3\n"));
	l = load_str(first);
	assert_non_null(find_stack(l.p, "bash;main", &s));
	assert_int_equal(s.tgid, 77);
	free(first);
	profile__free(l.p);
	profile__free(p);
}

/* A profile written, read back and written again: the same profile, the same text. */
static void test_round_trip_escapes(void **state)
{
	/* name, kind: each one a frame of its own, none merging with another */
	static const struct {
		const char *name;
		enum frame_kind kind;
	} frames[] = {
		{ "a;b", FRAME_USER },   { "a:b", FRAME_USER },    { "x_[k]", FRAME_USER },
		{ "x", FRAME_KERNEL },   { "x_[k]", FRAME_KERNEL }, { "trailing ", FRAME_USER },
		{ "trailing", FRAME_USER }, { "back\\slash", FRAME_USER }, { "\\x3b", FRAME_USER },
		{ "", FRAME_USER },      { "sp ", FRAME_KERNEL },   { "", FRAME_PROCESS },
	};
	const size_t n = sizeof(frames) / sizeof(frames[0]);
	struct profile *p = profile__new();
	uint32_t proc = profile__frame(p, "cmd;x ", 6, FRAME_PROCESS, true), ids[2];
	struct view_filter all = { .window = WINDOW_CUMULATIVE };
	char *first, *second;
	struct loaded l;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct sample smp = { .tgid = TGID_UNKNOWN, .frames = ids, .n = 2, .count = i + 1 };

		ids[0] = frames[i].kind == FRAME_PROCESS
			     ? profile__frame(p, frames[i].name, strlen(frames[i].name), FRAME_PROCESS, true)
			     : proc;
		ids[1] = frames[i].kind == FRAME_PROCESS
			     ? profile__frame(p, "main", 4, FRAME_USER, true)
			     : profile__frame(p, frames[i].name, strlen(frames[i].name), frames[i].kind,
					      true);
		assert_int_equal(profile__add(p, &smp), 0);
	}
	first = folded_text(p, &all);
	l = load_str(first);
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(profile__nstacks(l.p), n);
	for (size_t i = 0; i < n; i++) {
		struct profile_stack s;
		char want[64];

		if (frames[i].kind == FRAME_PROCESS)
			snprintf(want, sizeof(want), "%s;main", frames[i].name);
		else
			snprintf(want, sizeof(want), "cmd;x ;%s%s", frames[i].name,
				 frames[i].kind == FRAME_KERNEL ? "[k]" : "");
		assert_non_null(find_stack(l.p, want, &s));
		assert_int_equal(s.total, i + 1);
	}
	second = folded_text(l.p, &all);
	assert_string_equal(first, second);
	free(first);
	free(second);
	profile__free(l.p);
	profile__free(p);
}

static void test_malformed_lines(void **state)
{
	const char text[] = "good;one 1\n"        /* 1 */
			    "a;b x\n"             /* 2: count not a number */
			    "a;b 12x\n"           /* 3 */
			    "a;b -3\n"            /* 4 */
			    "a;b\n"               /* 5: no count */
			    "a;;b 3\n"            /* 6: empty frame */
			    ";a 3\n"              /* 7 */
			    "a; 3\n"              /* 8: trailing empty frame */
			    "a;b\x1b[31m 3\n"     /* 9: ESC */
			    "a;\0b 3\n"           /* 10: NUL */
			    " 5\n"                /* 11: no stack */
			    "a 99999999999999999999999\n" /* 12: overflow */
			    "good;two 2\n";       /* 13 */
	struct loaded l = load(text, sizeof(text) - 1);
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.lines, 13);
	assert_int_equal(l.st.stacks, 2);
	assert_int_equal(l.st.bad, 11);
	assert_int_equal(l.st.first_bad_line, 2);
	assert_non_null(l.st.first_bad_why);
	assert_non_null(strstr(l.st.first_bad_why, "whole number"));
	assert_non_null(find_stack(l.p, "good;one", &s));
	assert_non_null(find_stack(l.p, "good;two", &s));
	assert_int_equal(profile__total(l.p, WINDOW_CUMULATIVE), 3);
	profile__free(l.p);
}

static void test_first_bad_reason(void **state)
{
	struct loaded l = load_str("ok 1\n\nx;;y 2\nz 3\n");

	(void)state;
	assert_int_equal(l.st.bad, 1);
	assert_int_equal(l.st.first_bad_line, 3);
	assert_string_equal(l.st.first_bad_why, "an empty frame");
	profile__free(l.p);
}

static void test_line_over_a_mebibyte(void **state)
{
	size_t big = (1u << 20) + 10, len;
	char *text = malloc(big + 64);
	struct loaded l;
	struct profile_stack s;

	(void)state;
	assert_non_null(text);
	memset(text, 'a', big);
	memcpy(text + big, " 4\nafter 2\n", 12);
	len = big + 11;
	l = load(text, len);
	assert_int_equal(l.st.bad, 1);
	assert_int_equal(l.st.first_bad_line, 1);
	assert_string_equal(l.st.first_bad_why, "a line over 1 MiB");
	assert_int_equal(l.st.stacks, 1);
	assert_non_null(find_stack(l.p, "after", &s));
	free(text);
	profile__free(l.p);
}

static void test_blank_crlf_zero_and_tabs(void **state)
{
	struct loaded l = load_str("\n   \r\na;b 3\r\nc;d\t4\nz;y 0\n\n");
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(l.st.stacks, 3);
	assert_non_null(find_stack(l.p, "a;b", &s));
	assert_int_equal(s.total, 3);
	assert_non_null(find_stack(l.p, "c;d", &s));
	assert_int_equal(s.total, 4);
	assert_null(find_stack(l.p, "z;y", &s)); /* a zero count adds nothing */
	profile__free(l.p);
}

static void test_names_sanitized_and_kinds(void **state)
{
	struct loaded l = load_str("p;caf\xc3\xa9;bad\xff\xfe;[vdso];lib.so+0x1f;x+0xzz_[k];op+0x 1\n");
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.st.bad, 0);
	assert_non_null(find_stack(l.p, "p;caf\xc3\xa9;bad??;[vdso];lib.so+0x1f;x+0xzz[k];op+0x", &s));
	assert_true(frame_named(l.p, &s, "caf\xc3\xa9")->named);
	assert_false(frame_named(l.p, &s, "[vdso]")->named);
	assert_false(frame_named(l.p, &s, "lib.so+0x1f")->named);
	assert_true(frame_named(l.p, &s, "x+0xzz")->named); /* not hex: a real name */
	assert_true(frame_named(l.p, &s, "op+0x")->named);
	profile__free(l.p);
}

/* Lines that share a prefix with the line before, but not always whole frames. */
static void test_shared_prefixes(void **state)
{
	struct loaded l = load_str("a;b;c 1\n"
				   "a;b;cd 2\n"
				   "a;b;c;d 4\n"
				   "a;bb;c 8\n"
				   "a;b 16\n"
				   "ab;b 32\n"
				   "x [7];b;c 64\n"
				   "x [7];b;c_[k] 128\n"
				   "a;b;c 256\n");
	struct profile_stack s;

	(void)state;
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(profile__nstacks(l.p), 8);
	assert_non_null(find_stack(l.p, "a;b;c", &s));
	assert_int_equal(s.total, 1 + 256);
	assert_non_null(find_stack(l.p, "a;b;cd", &s));
	assert_int_equal(s.total, 2);
	assert_non_null(find_stack(l.p, "a;b;c;d", &s));
	assert_int_equal(s.total, 4);
	assert_non_null(find_stack(l.p, "a;bb;c", &s));
	assert_int_equal(s.total, 8);
	assert_non_null(find_stack(l.p, "a;b", &s));
	assert_int_equal(s.total, 16);
	assert_non_null(find_stack(l.p, "ab;b", &s));
	assert_int_equal(s.total, 32);
	assert_non_null(find_stack(l.p, "x;b;c", &s));
	assert_int_equal(s.total, 64);
	assert_int_equal(s.tgid, 7);
	assert_non_null(find_stack(l.p, "x;b;c[k]", &s));
	assert_int_equal(s.total, 128);
	assert_int_equal(s.tgid, 7); /* the shared process frame keeps its pid */
	profile__free(l.p);
}

static void test_binary_garbage(void **state)
{
	unsigned char junk[4096];
	struct loaded l;

	(void)state;
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = rand() & 0xff;
	l = load((const char *)junk, sizeof(junk));
	assert_int_equal(l.ret, 0);
	assert_true(l.st.bad > 0);
	assert_true(l.st.stacks + l.st.bad <= l.st.lines);
	profile__free(l.p);
}

/* Reads, a byte at a time (ASan checks each), the 8 bytes after each line's NUL. */
static void touch_after_lines(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct line_reader r;
	volatile char sum = 0;
	char *line;
	size_t n;

	assert_non_null(f);
	assert_int_equal(line_reader__init(&r, f), 0);
	while (line_reader__next(&r, &line, &n) == 1) {
		for (size_t i = 1; i <= 8; i++)
			sum += line[n + i];
	}
	(void)sum;
	line_reader__free(&r);
	fclose(f);
}

/*
 * A line that ends where the reader's buffer ends (its first read fills
 * it: LINE_READER_MAX + LINE_READER_BLOCK bytes): frames are read a word
 * at a time, past a line's end, which stays inside the buffer (ASan would
 * say otherwise).
 */
static void test_line_at_the_buffers_end(void **state)
{
	size_t size = LINE_READER_MAX + LINE_READER_BLOCK, len = 0, lines = 0;
	char *text = malloc(size);
	struct profile_stack s;
	struct loaded l;

	(void)state;
	assert_non_null(text);
	while (len < size) {
		/* "a;b 1\n" to the end, after one longer line that makes the sizes meet. */
		const char *line = len ? "a;b 1\n" : (size % 6 == 2 ? "a;bcd 1\n" : NULL);

		assert_non_null(line);
		memcpy(text + len, line, strlen(line));
		len += strlen(line);
		lines++;
	}
	assert_int_equal(len, size);
	touch_after_lines(text, size);
	l = load(text, size);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(l.st.stacks, lines);
	assert_non_null(find_stack(l.p, "a;b", &s));
	assert_int_equal(s.total, lines - 1);
	profile__free(l.p);
	free(text);
}


/*
 * A line after a read that refilled the reader's buffer, which moved what
 * it held: the line before is gone from where it was, and what lies there
 * now must not pass for it. Lines of one width W alternate frames A and B;
 * the first read holds c whole lines (c odd, W chosen so), and line c, a B,
 * comes after a refill that leaves line 2c - 1, a B too, where line c - 1,
 * an A, was. Every line must keep its own frame.
 */
static void test_line_after_a_refill(void **state)
{
	size_t first = LINE_READER_MAX + LINE_READER_BLOCK, width = 22, lines, len = 0;
	char *text, want[64];
	struct profile_stack s;
	struct loaded l;

	(void)state;
	while ((first / width) % 2 == 0)
		width++;
	lines = 2 * (first / width) + 10;
	text = malloc(lines * width + 1);
	assert_non_null(text);
	for (size_t i = 0; i < lines; i++)
		len += (size_t)sprintf(text + len, "proc;%c;leaf_%0*zu 1\n", i % 2 ? 'B' : 'A',
				       (int)width - 15, i);
	assert_int_equal(len, lines * width);
	l = load(text, len);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.stacks, lines);
	assert_int_equal(profile__nstacks(l.p), lines);
	for (size_t i = 0; i < lines; i++) {
		profile__stack(l.p, i, &s);
		assert_int_equal(s.n, 3);
		assert_int_equal(s.total, 1);
		snprintf(want, sizeof(want), "leaf_%0*zu", (int)width - 15, i);
		assert_string_equal(profile__frame_name(l.p, s.frames[2]), want);
		assert_string_equal(profile__frame_name(l.p, s.frames[1]), i % 2 ? "B" : "A");
	}
	profile__free(l.p);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flametop_output),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_perf_pids),
		cmocka_unit_test(test_names_like_pids),
		cmocka_unit_test(test_round_trip_escapes),
		cmocka_unit_test(test_round_trip_commands),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_first_bad_reason),
		cmocka_unit_test(test_line_over_a_mebibyte),
		cmocka_unit_test(test_blank_crlf_zero_and_tabs),
		cmocka_unit_test(test_names_sanitized_and_kinds),
		cmocka_unit_test(test_shared_prefixes),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_line_at_the_buffers_end),
		cmocka_unit_test(test_line_after_a_refill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
