// SPDX-License-Identifier: GPL-2.0
/*
 * input__read() beyond folded files: the text of `perf script`, pprof
 * profiles (what pprof__write() makes, and hostile ones), and telling the
 * formats apart by their content.
 */
#include "tests/unit/profile_fixture.h"

#include <errno.h>
#include <zlib.h>

#include "profile/folded.h"
#include "profile/input.h"
#include "profile/pprof.h"
#include "profile/reader.h"

struct loaded {
	struct profile *p;
	struct input_stats st;
	int ret;
};

static struct loaded load(const void *data, size_t len)
{
	struct loaded l = { .p = profile__new() };
	FILE *f = fmemopen((void *)data, len, "r");

	assert_non_null(l.p);
	assert_non_null(f);
	l.ret = input__read(f, l.p, &l.st);
	fclose(f);
	return l;
}

static const struct view_filter all = { .window = WINDOW_CUMULATIVE };

/* A sample of `perf record -g` on x86-64: kernel frames (one in a module) under user ones. */
static const char perf_text[] =
	"# ========\n"
	"# captured on: today\n"
	"syscall_loop  4242/4243 [001]  845.244099:    2004008 cpu-clock:pppH: \n"
	"\tffffffff813a1f20 read_zero+0x10 ([kernel.kallsyms])\n"
	"\tffffffffc0a01234 xfs_file_read_iter+0x44 ([xfs])\n"
	"\tffffffff81e00099 entry_SYSCALL_64_after_hwframe+0x63 ([kernel.kallsyms])\n"
	"\t            1169 read_zeros+0x20 (/usr/bin/syscall_loop)\n"
	"\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	"Web Content 77 [000] 845.3: 1 cpu-clock: \n"
	"\t            7f00 operator()(int, char const*)+0x1 (/usr/lib/libxul.so)\n"
	"\t            7e00 [unknown] (/usr/lib/libxul.so)\n"
	"\t            7d00 [unknown] ([unknown])\n"
	"\n"
	"Web Content 77 [000] 845.4: 1 cpu-clock: \n"
	"\t            7f00 operator()(int, char const*)+0x1 (/usr/lib/libxul.so)\n"
	"\t            7e00 [unknown] (/usr/lib/libxul.so)\n"
	"\t            7d00 [unknown] ([unknown])\n";

static void test_perf_script(void **state)
{
	struct loaded l = load(perf_text, sizeof(perf_text) - 1);
	int32_t pid = 77;
	struct view_filter by_pid = { .window = WINDOW_CUMULATIVE, .tgids = &pid, .ntgids = 1 };
	char *text;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_PERF_SCRIPT);
	assert_int_equal(l.st.stacks, 3);
	assert_int_equal(l.st.bad, 0);
	text = folded_text(l.p, &all);
	/* Outermost first, offsets dropped, the module named as flametop names it live. */
	assert_string_equal(text,
			    "Web Content;[unknown];[libxul.so];operator()(int, char const*) 2\n"
			    "syscall_loop;__libc_start_call_main;read_zeros;"
			    "entry_SYSCALL_64_after_hwframe_[k];xfs_file_read_iter [xfs]_[k];"
			    "read_zero_[k] 1\n");
	free(text);
	/* "PID/TID" gives the pid; a lone number is taken as it is. */
	text = folded_text(l.p, &by_pid);
	assert_non_null(strstr(text, "Web Content;"));
	assert_null(strstr(text, "syscall_loop"));
	free(text);
	pid = 4242;
	text = folded_text(l.p, &by_pid);
	assert_non_null(strstr(text, "syscall_loop;"));
	free(text);
	/* ... and the tid is kept, for grouping by thread. */
	by_pid.group = GROUP_TID;
	assert_int_equal(profile__group(l.p, GROUP_TID), 0);
	text = folded_text(l.p, &by_pid);
	assert_non_null(strstr(text, "syscall_loop [4242/4243];"));
	free(text);
	profile__free(l.p);
}

static void test_perf_script_malformed(void **state)
{
	static const char text[] = "app 10 [000] 1.0: 1 cpu-clock:\n"
				   "\tffff main (/bin/app)\n"
				   "\tnot-an-address here\n"
				   "\n"
				   "\t1234 orphan (/bin/app)\n"
				   "header-without-pid [000] 1.0:\n"
				   "\t1234 lost (/bin/app)\n"
				   "\n"
				   "app 10 [000] 1.0: 1 cpu-clock:\n"
				   "\t1234 f\x01 (/bin/app)\n"
				   "\t1235 g (/bin/app)\n";
	struct loaded l = load(text, sizeof(text) - 1);
	char *folded;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_PERF_SCRIPT);
	assert_int_equal(l.st.stacks, 2);
	assert_int_equal(l.st.bad, 5);
	assert_int_equal(l.st.first_bad_line, 3);
	assert_string_equal(l.st.first_bad_why, "a frame line without an address");
	folded = folded_text(l.p, &all);
	assert_string_equal(folded, "app;g 1\napp;main 1\n");
	free(folded);
	profile__free(l.p);
}

/* A profile with every kind of frame, pids, a comm-only stack and a placeholder. */
static struct profile *mixed_profile(void)
{
	struct profile *p = profile__new();
	uint32_t app = frame(p, "app", FRAME_PROCESS), sh = frame(p, "sh", FRAME_PROCESS);
	uint32_t main_ = frame(p, "main", FRAME_USER), work = frame(p, "work<int>&", FRAME_USER);
	uint32_t libc = profile__frame(p, "libc.so.6+0x27249", 17, FRAME_USER, false);
	uint32_t sys = frame(p, "do_syscall_64", FRAME_KERNEL);
	uint32_t rd = frame(p, "read [xfs]", FRAME_KERNEL);

	ADD(p, 10, 300, app, libc, main_, work);
	ADD(p, 11, 5, app, libc, main_, work);
	ADD(p, 10, 40, app, libc, main_, sys, rd);
	ADD(p, TGID_UNKNOWN, 7, sh, main_);
	return p;
}

/* @p written as pprof with @f and @info, into a buffer (to free()). */
static char *pprof_of(const struct profile *p, const struct view_filter *f,
		      const struct pprof_info *info, size_t *len)
{
	char *out = NULL;
	FILE *m = open_memstream(&out, len);

	assert_non_null(m);
	assert_true(pprof__write(m, p, f, info) > 0);
	fclose(m);
	return out;
}

static void test_pprof_round_trip(void **state)
{
	struct profile *p = mixed_profile();
	struct pprof_info info = { "samples", "count", 10000000, 1, 2 };
	size_t len;
	char *gz = pprof_of(p, &all, &info, &len);
	struct loaded l = load(gz, len);
	char *want = folded_text(p, &all), *got;
	int32_t pid = 11;
	struct view_filter by_pid = { .window = WINDOW_CUMULATIVE, .tgids = &pid, .ntgids = 1 };

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_PPROF);
	assert_string_equal(l.st.unit, "samples"); /* "samples" is shown before "cpu" */
	assert_string_equal(l.st.count_unit, "count");
	assert_int_equal(l.st.stacks, 4);
	got = folded_text(l.p, &all);
	assert_string_equal(got, want);
	free(got);
	/* The pid came through the label: one stack of pid 11. */
	got = folded_text(l.p, &by_pid);
	assert_string_equal(got, "app;libc.so.6+0x27249;main;work<int>& 5\n");
	free(got);
	for (size_t i = 0; i < profile__nframes(l.p); i++) {
		const char *name = profile__frame_name(l.p, (uint32_t)i);

		if (strcmp(name, "libc.so.6+0x27249") == 0)
			assert_false(profile__frame_info(l.p, (uint32_t)i)->named);
		if (strcmp(name, "read [xfs]") == 0)
			assert_int_equal(profile__frame_info(l.p, (uint32_t)i)->kind, FRAME_KERNEL);
	}
	free(want);
	free(gz);
	profile__free(l.p);
	profile__free(p);
}

/* The view's choices reach the pprof file: hidden kernel frames, a comm filter. */
static void test_pprof_filtered(void **state)
{
	struct profile *p = mixed_profile();
	struct pprof_info info = { "reads", "count", 0, 0, 0 };
	struct view_filter f = { .window = WINDOW_CUMULATIVE, .hide_kernel = true, .comm = "app" };
	size_t len;
	char *gz = pprof_of(p, &f, &info, &len);
	struct loaded l = load(gz, len);
	char *got = folded_text(l.p, &all);

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_string_equal(l.st.unit, "reads");
	assert_string_equal(got, "app;libc.so.6+0x27249;main 40\n"
				 "app;libc.so.6+0x27249;main;work<int>& 305\n");
	free(got);
	free(gz);
	profile__free(l.p);
	profile__free(p);
}

/* Hostile pprof input: one reason, -EBADMSG, never a crash. */
static void test_pprof_hostile(void **state)
{
	struct profile *p = mixed_profile();
	struct pprof_info info = { "samples", "count", 0, 0, 0 };
	size_t len, raw_len = 1 << 16;
	char *gz = pprof_of(p, &all, &info, &len);
	unsigned char *raw = malloc(raw_len);
	struct loaded l;
	z_stream z = { 0 };

	(void)state;
	/* Cut short: the gzip stream ends early. */
	l = load(gz, len / 2);
	assert_int_equal(l.ret, -EBADMSG);
	assert_string_equal(l.st.error, "corrupt or truncated gzip data");
	profile__free(l.p);
	/* Inflated but cut short: not a message. */
	assert_int_equal(inflateInit2(&z, 15 + 32), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)raw_len;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	raw_len = z.total_out;
	inflateEnd(&z);
	l = load(raw, raw_len);
	assert_int_equal(l.ret, 0); /* the whole message, bare, reads as well */
	assert_int_equal(l.st.format, INPUT_PPROF);
	profile__free(l.p);
	l = load(raw, raw_len - 3);
	assert_int_equal(l.ret, -EBADMSG);
	assert_string_equal(l.st.error, "not a profile.proto message");
	profile__free(l.p);
	/* A gzip header over garbage. */
	memcpy(raw + 2, "garbage that is not deflate", 27);
	raw[0] = 0x1f;
	raw[1] = 0x8b;
	l = load(raw, 29);
	assert_int_equal(l.ret, -EBADMSG);
	profile__free(l.p);
	free(raw);
	free(gz);
	profile__free(p);
}

/* Content, not the name, tells the format; a folded file may start with a blank line. */
/* @path read whole into memory (to free()), *@len bytes. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *data = NULL;

	assert_non_null(f);
	assert_int_equal(getdelim(&data, len, '\0', f) > 0, 1);
	*len = strlen(data);
	fclose(f);
	return data;
}

/*
 * bpftrace's own print of @[kstack, ustack, comm] = count(), as a real run
 * printed it (tests/fixtures/bpftrace.txt): each entry a stack, the comm
 * its process, the first stack kernel frames, the second user frames, an
 * empty stack nothing; the values the counts.
 */
static void test_bpftrace_print(void **state)
{
	size_t len;
	char *data = slurp(FIXTURES "/bpftrace.txt", &len);
	struct loaded l = load(data, len);
	char *text;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_BPFTRACE);
	assert_int_equal(l.st.stacks, 6);
	assert_int_equal(l.st.bad, 0);
	assert_int_equal(profile__total(l.p, WINDOW_CUMULATIVE), 2 + 44 + 1 + 1 + 1 + 270);
	text = folded_text(l.p, &all);
	assert_non_null(strstr(text, "\ncpu_split;leaf_b 44\n"));
	assert_non_null(strstr(text, "\nsyscall_loop;__libc_read;entry_SYSCALL_64_after_hwframe_[k];"
				     "do_syscall_64_[k];ksys_read_[k];vfs_read_[k];read_zero_[k] 1\n"));
	assert_non_null(strstr(text, "\nsyscall_loop;__libc_read 1\n"));
	assert_non_null(strstr(text, "\nkdamond.0;ret_from_fork_asm_[k];"));
	assert_null(strstr(text, "]:"));
	free(text);
	free(data);
	profile__free(l.p);
}

/*
 * Which stack is the kernel's: by the addresses of kstack(perf) and
 * ustack(perf) frames, or of frames bpftrace could not name, whatever
 * their place; by their place where no frame has one.
 */
static void test_bpftrace_sides(void **state)
{
	static const char perf[] =
		"Attaching 1 probe...\n\n\n"
		"@[\n"
		"\t7f5f5ae902ad __libc_read+13 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\t55d0c0de1169 main+25 (/usr/bin/app)\n"
		", \n"
		"\tffffffff81d73cfc read_zero+156\n"
		"\tffffffff81000130 entry_SYSCALL_64_after_hwframe+118\n"
		", 4242, app]: 5\n"
		"@[\n"
		"\t7f5f5ae902ad 0x7f5f5ae902ad ([unknown])\n"
		", app]: 2\n";
	static const char names[] = "@x[\n"
				    "    leaf+4\n"
				    "    main+20\n"
				    "]: 3\n"
				    "@x[\n"
				    "    0x7f0000001000\n"
				    "    main+20\n"
				    "]: 1\n";
	struct loaded l = load(perf, sizeof(perf) - 1);
	char *text;

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.bad, 0);
	text = folded_text(l.p, &all);
	assert_string_equal(text, "app;main;__libc_read;entry_SYSCALL_64_after_hwframe_[k];"
				  "read_zero_[k] 5\n"
				  "app;[unknown] 2\n");
	free(text);
	profile__free(l.p);
	/* No comm: "[unknown]"; a lone stack of names is the kernel's, one with a user address not. */
	l = load(names, sizeof(names) - 1);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_BPFTRACE);
	text = folded_text(l.p, &all);
	assert_string_equal(text, "[unknown];main_[k];leaf_[k] 3\n"
				  "[unknown];main;[unknown] 1\n");
	free(text);
	profile__free(l.p);
}

/*
 * What is not a map keyed by stacks is refused (a histogram, a count by
 * comm); in a print that has one, the rest is counted as malformed: the
 * entries of other maps, values that are not counts, stray lines.
 */
static void test_bpftrace_refused(void **state)
{
	static const char hist[] = "Attaching 1 probe...\n\n@h: \n"
				   "[16K, 32K)   120 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n"
				   "@z[bash]: 3\n";
	static const char empty[] = "Attaching 1 probe...\n\n\n";
	static const char mixed[] = "@[\n    a+1\n, bash]: 3\n"
				    "@[\n    b+1\n, bash]: -4\n"
				    "@y[\n    c+1\n, bash]: 5\n"
				    "@[\n    d+1\n, bash]\n"
				    "stray\n"
				    "@[\n    e+1\n, bash]: 6\n";
	struct loaded l = load(hist, sizeof(hist) - 1);
	char *text;

	(void)state;
	assert_int_equal(l.ret, -EBADMSG);
	assert_int_equal(l.st.format, INPUT_BPFTRACE);
	assert_non_null(strstr(l.st.error, "keyed by stacks"));
	profile__free(l.p);
	l = load(empty, sizeof(empty) - 1);
	assert_int_equal(l.ret, -EBADMSG);
	assert_int_equal(l.st.format, INPUT_BPFTRACE);
	profile__free(l.p);
	l = load(mixed, sizeof(mixed) - 1);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.stacks, 2);
	assert_int_equal(l.st.bad, 3);
	assert_int_equal(l.st.first_bad_line, 6);
	assert_string_equal(l.st.first_bad_why, "a value that is not a count");
	text = folded_text(l.p, &all);
	assert_string_equal(text, "bash;e_[k] 6\nbash;a_[k] 3\n");
	free(text);
	profile__free(l.p);
}

static void test_detection(void **state)
{
	static const char folded[] = "\n\napp;main 3\n";
	static const char folded_tabs[] = "app;main\t3\n\tstray 4\n";
	struct loaded l = load(folded, sizeof(folded) - 1);

	(void)state;
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_FOLDED);
	assert_int_equal(l.st.stacks, 1);
	profile__free(l.p);
	l = load(folded_tabs, sizeof(folded_tabs) - 1);
	assert_int_equal(l.st.format, INPUT_FOLDED);
	profile__free(l.p);
	l = load("", 0);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_FOLDED);
	profile__free(l.p);
	/* A process named "Attaching" is no bpftrace's "Attaching 1 probe...". */
	l = load("Attaching 1\n", 12);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.format, INPUT_FOLDED);
	assert_int_equal(l.st.stacks, 1);
	profile__free(l.p);
}

/*
 * reader__has_control_bytes(): every C0 byte but a tab, and DEL, at every
 * place of lines of every length up to a few of its blocks (it reads them
 * a word, or 32 bytes, at a time); never a tab, a printable byte or one of
 * UTF-8's (0x80 up), and only within the length given.
 */
static void test_control_bytes(void **state)
{
	char line[80];

	(void)state;
	for (size_t i = 0; i < sizeof(line); i++)
		line[i] = (char)(0x80 + i);
	memcpy(line, "text\twith a tab and \xc3\xa9 ", 23);
	assert_false(reader__has_control_bytes(line, sizeof(line)));
	for (int c = 0; c < 0x100; c++) {
		bool control = (c < 0x20 && c != '\t') || c == 0x7f;

		for (size_t at = 0; at < sizeof(line); at++) {
			char keep = line[at];

			line[at] = (char)c;
			for (size_t len = 0; len <= sizeof(line); len++) {
				if (reader__has_control_bytes(line, len) != (control && at < len))
					fail_msg("byte 0x%02x at %zu of %zu: %s", c, at, len,
						 control ? "wrong" : "taken for a control byte");
			}
			line[at] = keep;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_script),
		cmocka_unit_test(test_perf_script_malformed),
		cmocka_unit_test(test_pprof_round_trip),
		cmocka_unit_test(test_pprof_filtered),
		cmocka_unit_test(test_pprof_hostile),
		cmocka_unit_test(test_bpftrace_print),
		cmocka_unit_test(test_bpftrace_sides),
		cmocka_unit_test(test_bpftrace_refused),
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_control_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
