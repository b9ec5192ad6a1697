// SPDX-License-Identifier: GPL-2.0
/*
 * options__parse(): defaults, every flag, every error message, and several
 * parses in one process.
 */
#include "tests/unit/unit.h"

#include <ctype.h>

#include "options.h"

#define ERR_SIZE 256

static struct options opts;
static char err[ERR_SIZE];

/* Parses the NULL-terminated @args after a program name. */
static enum options_result parse_list(const char *const *args)
{
	char *argv[256] = {NULL};
	int argc = 0;

	argv[argc++] = "flametop";
	while (*args) {
		assert_true(argc < 255);
		argv[argc++] = (char *)*args++;
	}
	argv[argc] = NULL;
	memset(&opts, 0xA5, sizeof(opts)); /* defaults must come from the parser */
	memset(err, 0, sizeof(err));
	return options__parse(argc, argv, &opts, err, sizeof(err));
}

#define PARSE(...) parse_list((const char *const[]){__VA_ARGS__, NULL})
#define PARSE_NOTHING() parse_list((const char *const[]){NULL})

#define assert_run(...) assert_int_equal(PARSE(__VA_ARGS__), OPTIONS_RUN)

/* @s with control bytes as \ooo, for failure messages. */
static const char *escaped(const char *s)
{
	static char buf[4 * ERR_SIZE + 1];
	char *w = buf;

	for (; *s; s++) {
		if (iscntrl((unsigned char)*s))
			w += sprintf(w, "\\%03o", (unsigned char)*s);
		else
			*w++ = *s;
	}
	*w = '\0';
	return buf;
}

/* The parse fails with one line holding @want. */
static void check_error(const char *const *args, const char *want)
{
	enum options_result r = parse_list(args);

	if (r != OPTIONS_ERROR || !strstr(err, want))
		fail_msg("got result %d, message \"%s\"; want an error with \"%s\"", r,
			 escaped(err), want);
	assert_null(strchr(err, '\n'));
	for (const char *c = err; *c; c++)
		assert_false(iscntrl((unsigned char)*c));
}

#define ERROR(want, ...) check_error((const char *const[]){__VA_ARGS__, NULL}, want)

static int group_setup(void **state)
{
	(void)state;
	unsetenv("NO_COLOR");
	unsetenv("POSIXLY_CORRECT");
	return 0;
}

static void check_defaults(const struct options *o)
{
	assert_int_equal(o->mode, CAPTURE_SAMPLE);
	assert_int_equal(o->weight, WEIGHT_EVENTS);
	assert_int_equal(o->freq, 99);
	assert_true(o->delay == 2.0);
	assert_true(o->duration == 0.0);
	assert_false(o->folded);
	assert_false(o->kernel_only);
	assert_false(o->user_only);
	assert_false(o->no_color);
	assert_false(o->no_demangle);
	assert_null(o->input);
	assert_null(o->output);
	assert_int_equal(o->ntgids, 0);
	assert_null(o->comm);
	assert_int_equal(o->stack_entries, 0);
	assert_int_equal(o->count_entries, 0);
	assert_int_equal(o->max_stacks, DEFAULT_MAX_STACKS);
	assert_false(o->unwind_fp);
	assert_int_equal(o->unwind_memory, 0);
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(PARSE_NOTHING(), OPTIONS_RUN);
	check_defaults(&opts);
}

static void test_frequency(void **state)
{
	(void)state;
	assert_run("-F", "49");
	assert_int_equal(opts.freq, 49);
	assert_run("-F997");
	assert_int_equal(opts.freq, 997);
	assert_run("--frequency", "1");
	assert_int_equal(opts.freq, 1);
	assert_run("--frequency=4294967295");
	assert_int_equal(opts.freq, 4294967295u);
	/* The last one given wins. */
	assert_run("-F", "10", "-F", "20");
	assert_int_equal(opts.freq, 20);
}

static void test_pids(void **state)
{
	const char *many[MAX_FILTER_TGIDS * 2 + 1];
	char pids[MAX_FILTER_TGIDS][16];

	(void)state;
	assert_run("-p", "42");
	assert_int_equal(opts.ntgids, 1);
	assert_int_equal(opts.tgids[0], 42);
	assert_run("--pid", "1,22,333,1073741823");
	assert_int_equal(opts.ntgids, 4);
	assert_int_equal(opts.tgids[0], 1);
	assert_int_equal(opts.tgids[1], 22);
	assert_int_equal(opts.tgids[2], 333);
	assert_int_equal(opts.tgids[3], 1073741823);
	/* Several -p add up. */
	assert_run("-p", "5", "-p", "6,7");
	assert_int_equal(opts.ntgids, 3);
	assert_int_equal(opts.tgids[0], 5);
	assert_int_equal(opts.tgids[1], 6);
	assert_int_equal(opts.tgids[2], 7);
	/* Exactly 64, as separate options. */
	for (int i = 0; i < MAX_FILTER_TGIDS; i++) {
		snprintf(pids[i], sizeof(pids[i]), "%d", 1000 + i);
		many[2 * i] = "-p";
		many[2 * i + 1] = pids[i];
	}
	many[2 * MAX_FILTER_TGIDS] = NULL;
	assert_int_equal(parse_list(many), OPTIONS_RUN);
	assert_int_equal(opts.ntgids, MAX_FILTER_TGIDS);
	assert_int_equal(opts.tgids[0], 1000);
	assert_int_equal(opts.tgids[MAX_FILTER_TGIDS - 1], 1000 + MAX_FILTER_TGIDS - 1);
}

static void test_comm_and_visibility(void **state)
{
	(void)state;
	assert_run("-c", "bash");
	assert_string_equal(opts.comm, "bash");
	assert_run("--comm", "abcdefghijklmno"); /* 15 bytes: the most a comm has */
	assert_string_equal(opts.comm, "abcdefghijklmno");
	assert_run("-K");
	assert_true(opts.kernel_only);
	assert_false(opts.user_only);
	assert_run("--user-only");
	assert_true(opts.user_only);
	assert_false(opts.kernel_only);
	assert_run("--kernel-only");
	assert_true(opts.kernel_only);
}

static void test_delay(void **state)
{
	(void)state;
	assert_run("-d", "0.5");
	assert_true(opts.delay == 0.5);
	assert_run("--delay", "0.1");
	assert_true(opts.delay == 0.1);
	assert_run("-d", "3600");
	assert_true(opts.delay == 3600.0);
	assert_run("-d", ".25");
	assert_true(opts.delay == 0.25);
}

static void test_mode_and_weight(void **state)
{
	(void)state;
	assert_run("--mode", "read");
	assert_int_equal(opts.mode, CAPTURE_READ);
	assert_int_equal(opts.weight, WEIGHT_EVENTS);
	assert_run("--mode", "sample");
	assert_int_equal(opts.mode, CAPTURE_SAMPLE);
	assert_run("--weight", "bytes", "--mode", "read");
	assert_int_equal(opts.weight, WEIGHT_BYTES);
	assert_int_equal(opts.mode, CAPTURE_READ);
	assert_run("--mode=read", "--weight=calls");
	assert_int_equal(opts.weight, WEIGHT_EVENTS);
	assert_run("--weight", "calls");
	assert_int_equal(opts.weight, WEIGHT_EVENTS);
	assert_run("--mode", "offcpu");
	assert_int_equal(opts.mode, CAPTURE_OFFCPU);
	assert_true(opts.min_block_us == DEFAULT_MIN_BLOCK_US);
	assert_run("--mode", "offcpu", "--min-block", "0");
	assert_true(opts.min_block_us == 0);
	assert_run("--min-block=250", "--mode=offcpu");
	assert_true(opts.min_block_us == 250);
}

static void test_group(void **state)
{
	(void)state;
	assert_run("--folded");
	assert_int_equal(opts.group, GROUP_COMM);
	assert_run("--group", "pid");
	assert_int_equal(opts.group, GROUP_PID);
	assert_run("--group=tid", "--folded");
	assert_int_equal(opts.group, GROUP_TID);
	assert_run("--group", "comm");
	assert_int_equal(opts.group, GROUP_COMM);
	ERROR("--group: unknown grouping 'thread' (comm, pid or tid)", "--group", "thread");
}

static void test_folded_output_duration(void **state)
{
	(void)state;
	assert_run("--folded");
	assert_true(opts.folded);
	assert_null(opts.output);
	assert_true(opts.duration == 0.0);
	assert_run("--folded", "--duration", "2.5", "-o", "out.folded");
	assert_true(opts.folded);
	assert_true(opts.duration == 2.5);
	assert_string_equal(opts.output, "out.folded");
	assert_run("--output=x", "--folded");
	assert_string_equal(opts.output, "x");
	assert_run("--duration", "10", "--folded");
	assert_true(opts.duration == 10.0);
}

/* --svg and --pprof name their files; each alone is a run without the screen. */
static void test_svg_and_pprof(void **state)
{
	(void)state;
	assert_run("--svg", "cpu.svg", "--duration", "5");
	assert_string_equal(opts.svg, "cpu.svg");
	assert_null(opts.pprof);
	assert_false(opts.folded);
	assert_true(options__batch(&opts));
	assert_run("--pprof=cpu.pb.gz", "-i", "in.folded");
	assert_string_equal(opts.pprof, "cpu.pb.gz");
	assert_true(options__batch(&opts));
	assert_run("--folded", "--svg", "a.svg", "--pprof", "b.pb.gz");
	assert_true(opts.folded && opts.svg && opts.pprof);
	assert_run("-i", "in.folded");
	assert_false(options__batch(&opts));
	ERROR("option '--svg' needs a value", "--svg");
}

static void test_input(void **state)
{
	(void)state;
	assert_run("-i", "cpu.folded");
	assert_string_equal(opts.input, "cpu.folded");
	assert_run("--input", "-");
	assert_string_equal(opts.input, "-");
}

static void test_color_and_demangle(void **state)
{
	(void)state;
	assert_run("--no-color");
	assert_true(opts.no_color);
	assert_run("--no-colour");
	assert_true(opts.no_color);
	assert_run("--no-demangle");
	assert_true(opts.no_demangle);
	assert_false(opts.no_color);

	setenv("NO_COLOR", "1", 1);
	assert_int_equal(PARSE_NOTHING(), OPTIONS_RUN);
	assert_true(opts.no_color);
	/* NO_COLOR set but empty does not count (no-color.org). */
	setenv("NO_COLOR", "", 1);
	assert_int_equal(PARSE_NOTHING(), OPTIONS_RUN);
	assert_false(opts.no_color);
	unsetenv("NO_COLOR");
	assert_int_equal(PARSE_NOTHING(), OPTIONS_RUN);
	assert_false(opts.no_color);
}

static void test_map_entries(void **state)
{
	(void)state;
	assert_run("--stack-entries", "4096");
	assert_int_equal(opts.stack_entries, 4096);
	assert_int_equal(opts.count_entries, 0);
	assert_run("--count-entries", "64");
	assert_int_equal(opts.count_entries, 64);
	assert_int_equal(opts.stack_entries, 0);
	assert_run("--stack-entries=4194304", "--count-entries=100000");
	assert_int_equal(opts.stack_entries, 4194304);
	assert_int_equal(opts.count_entries, 100000);
	assert_run("--max-stacks", "100");
	assert_int_equal(opts.max_stacks, 100);
	assert_int_equal(opts.stack_entries, 0);
}

static void test_unwind(void **state)
{
	(void)state;
	assert_run("--unwind", "fp");
	assert_true(opts.unwind_fp);
	assert_run("--unwind=auto");
	assert_false(opts.unwind_fp);
	assert_run("--unwind-memory", "64");
	assert_int_equal(opts.unwind_memory, (size_t)64 << 20);
	assert_run("--unwind-memory=8", "--unwind", "auto");
	assert_int_equal(opts.unwind_memory, (size_t)8 << 20);
	ERROR("--unwind: unknown way 'dwarf' (auto or fp)", "--unwind", "dwarf");
	ERROR("--unwind: unknown way '' (auto or fp)", "--unwind=");
	ERROR("--unwind-memory: '7' is not a number of MB from 8 to 65536", "--unwind-memory", "7");
	ERROR("--unwind-memory: '65537' is not a number of MB from 8 to 65536", "--unwind-memory",
	      "65537");
	ERROR("--unwind-memory: '1e3' is not a number of MB from 8 to 65536", "--unwind-memory",
	      "1e3");
	ERROR("option '--unwind-memory' needs a value", "--unwind-memory");
}

static void test_everything_at_once(void **state)
{
	(void)state;
	assert_run("-F", "199", "-p", "7,8", "-c", "cat", "-U", "-d", "1.5", "--mode", "read",
		   "--weight", "bytes", "--folded", "--duration", "3", "-o", "o.txt", "--no-color",
		   "--no-demangle", "--stack-entries", "128", "--count-entries", "256", "-i", "in");
	assert_int_equal(opts.freq, 199);
	assert_int_equal(opts.ntgids, 2);
	assert_int_equal(opts.tgids[1], 8);
	assert_string_equal(opts.comm, "cat");
	assert_true(opts.user_only);
	assert_false(opts.kernel_only);
	assert_true(opts.delay == 1.5);
	assert_int_equal(opts.mode, CAPTURE_READ);
	assert_int_equal(opts.weight, WEIGHT_BYTES);
	assert_true(opts.folded);
	assert_true(opts.duration == 3.0);
	assert_string_equal(opts.output, "o.txt");
	assert_true(opts.no_color);
	assert_true(opts.no_demangle);
	assert_int_equal(opts.stack_entries, 128);
	assert_int_equal(opts.count_entries, 256);
	assert_string_equal(opts.input, "in");
}

/* --help's flags hold @want. */
static void usage_has(const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	options__print_usage(out);
	fclose(out);
	if (!strstr(text, want))
		fail_msg("--help has no \"%s\" in:\n%s", want, text);
	free(text);
}

static void test_help_and_version(void **state)
{
	(void)state;
	assert_int_equal(PARSE("--help"), OPTIONS_HELP);
	assert_int_equal(PARSE("-h"), OPTIONS_HELP);
	assert_int_equal(PARSE("-K", "--help"), OPTIONS_HELP);
	assert_int_equal(PARSE("--version"), OPTIONS_VERSION);
	/* The first problem met decides. */
	assert_int_equal(PARSE("--help", "-F", "abc"), OPTIONS_HELP);
	assert_int_equal(PARSE("-F", "abc", "--help"), OPTIONS_ERROR);
	usage_has("  -F, --frequency HZ     samples per second per CPU (default 99)\n");
	usage_has("      --count-entries N  count keys the kernel keeps (default: from the "
		  "expected load)\n");
	usage_has("      --unwind-memory MB kernel memory for unwind tables (default 128)\n");
	usage_has("      --max-stacks N     distinct stacks a live profile keeps; beyond, the "
		  "stacks of\n                         exited processes, then the rarest, fold "
		  "(default 32768)\n");
}

static void test_unknown_and_missing(void **state)
{
	(void)state;
	ERROR("unknown option '--bogus'", "--bogus");
	ERROR("unknown option '--frequencies'", "--frequencies", "9");
	ERROR("unknown option '-x'", "-x");
	ERROR("unknown option '-x'", "-K", "-x");
	ERROR("option '-F' needs a value", "-F");
	ERROR("option '--comm' needs a value", "--comm");
	ERROR("option '-p' needs a value", "-K", "-p");
	ERROR("option '--stack-entries' needs a value", "--stack-entries");
}

/* A flag that takes no value, given one: the message names that flag. */
static void test_value_given_to_a_flag(void **state)
{
	(void)state;
	ERROR("--folded", "--folded=1");
	ERROR("--kernel-only", "--kernel-only=yes");
}

static void test_bad_frequency(void **state)
{
	(void)state;
	ERROR("-F: 'abc' is not a number of samples per second", "-F", "abc");
	ERROR("-F 0: the frequency must be at least 1 Hz", "-F", "0");
	ERROR("-F: '-5' is not a number of samples per second", "-F", "-5");
	ERROR("-F: '99x' is not a number of samples per second", "-F", "99x");
	ERROR("-F: '' is not a number of samples per second", "-F", "");
	ERROR("-F: ' 9' is not a number of samples per second", "-F", " 9");
	ERROR("-F: '+9' is not a number of samples per second", "-F", "+9");
	ERROR("-F 4294967296: far above any kernel's sampling limit", "-F", "4294967296");
	ERROR("-F 99999999999999999999999: far above", "-F", "99999999999999999999999");
}

static void test_bad_pids(void **state)
{
	const char *many[] = {"-p", NULL, NULL};
	char list[MAX_FILTER_TGIDS * 8];
	char *w = list;

	(void)state;
	ERROR("-p: 'abc' is not a process id", "-p", "abc");
	ERROR("-p: '1,,2' is not a list of process ids", "-p", "1,,2");
	ERROR("-p: ',1' is not a list of process ids", "-p", ",1");
	ERROR("-p: '1,' ends with a comma", "-p", "1,");
	ERROR("-p: '0' is not a process id", "-p", "0");
	ERROR("-p: '-1' is not a process id", "-p", "-1");
	ERROR("-p: '12x' is not a process id", "-p", "1,12x");
	ERROR("-p: '1073741824' is not a process id", "-p", "1073741824");
	ERROR("-p: no process id given", "-p", "");

	/* 65 pids in one list. */
	for (int i = 0; i <= MAX_FILTER_TGIDS; i++)
		w += sprintf(w, "%s%d", i ? "," : "", 100 + i);
	many[1] = list;
	check_error(many, "-p: at most 64 processes");
	/* 64 in one list, and one more. */
	*strrchr(list, ',') = '\0';
	assert_int_equal(parse_list(many), OPTIONS_RUN);
	assert_int_equal(opts.ntgids, 64);
	ERROR("-p: at most 64 processes", "-p", list, "-p", "9");
}

static void test_bad_comm(void **state)
{
	(void)state;
	ERROR("-c: a command name has 1 to 15 bytes ('abcdefghijklmnop' has 16)", "-c",
	      "abcdefghijklmnop");
	ERROR("-c: a command name has 1 to 15 bytes ('' has 0)", "-c", "");
}

static void test_bad_combinations(void **state)
{
	(void)state;
	ERROR("-K and -U exclude each other", "-K", "-U");
	ERROR("-K and -U exclude each other", "--user-only", "--kernel-only");
	ERROR("--weight bytes needs --mode read", "--weight", "bytes");
	ERROR("--weight bytes needs --mode read", "--weight", "bytes", "--mode", "sample");
	ERROR("-o needs --folded", "-o", "out.folded");
	ERROR("--duration needs --folded, --svg, --pprof or --annotate", "--duration", "5");
}

/* --annotate: a batch run; its format; its source directories; what it can't go with. */
static void test_annotate(void **state)
{
	(void)state;
	assert_run("--annotate", "work", "--duration", "2", "-p", "12");
	assert_string_equal(opts.annotate, "work");
	assert_false(opts.annotate_insns);
	assert_true(options__batch(&opts));
	assert_int_equal(opts.nsource_dirs, 0);
	assert_run("--annotate", "work", "--annotate-format", "insns", "--source-dir", "/a",
		   "--source-dir", "/b");
	assert_true(opts.annotate_insns);
	assert_int_equal(opts.nsource_dirs, 2);
	assert_string_equal(opts.source_dirs[1], "/b");
	assert_run("--source-dir", "/src"); /* the screen's annotate view looks there too */
	assert_false(options__batch(&opts));
	assert_run("--annotate", "work", "--folded", "-o", "out.folded");
	ERROR("--annotate: no function name given", "--annotate", "");
	ERROR("--annotate-format: unknown format 'asm' (lines or insns)", "--annotate", "f",
	      "--annotate-format", "asm");
	ERROR("--annotate-format needs --annotate", "--annotate-format", "lines");
	ERROR("--annotate needs a live capture: stacks read with -i keep no addresses", "-i",
	      "x.folded", "--annotate", "f");
	ERROR("--annotate and --folded both write to stdout: give --folded an -o FILE",
	      "--annotate", "f", "--folded");
	ERROR("--source-dir: at most 16 directories", "--source-dir", "1", "--source-dir", "2",
	      "--source-dir", "3", "--source-dir", "4", "--source-dir", "5", "--source-dir", "6",
	      "--source-dir", "7", "--source-dir", "8", "--source-dir", "9", "--source-dir", "10",
	      "--source-dir", "11", "--source-dir", "12", "--source-dir", "13", "--source-dir",
	      "14", "--source-dir", "15", "--source-dir", "16", "--source-dir", "17");
}

static void test_bad_values(void **state)
{
	(void)state;
	ERROR("--mode: unknown mode 'write' (sample, read or offcpu)", "--mode", "write");
	ERROR("--min-block: 'x' is not a number of microseconds up to an hour", "--mode", "offcpu",
	      "--min-block", "x");
	ERROR("--min-block: '-5' is not a number", "--mode", "offcpu", "--min-block", "-5");
	ERROR("--min-block: '3600000001' is not a number", "--mode", "offcpu", "--min-block",
	      "3600000001");
	ERROR("--min-block needs --mode offcpu: only waits have a length", "--min-block", "10");
	ERROR("--mode: unknown mode 'READ'", "--mode", "READ");
	ERROR("--weight: unknown weight 'pages' (calls or bytes)", "--weight", "pages");
	ERROR("--duration: '0' is not a positive number of seconds", "--folded", "--duration", "0");
	ERROR("--duration: 'abc' is not a positive number", "--folded", "--duration", "abc");
	ERROR("--duration: '-1' is not a positive number", "--folded", "--duration", "-1");
	ERROR("-d: '0.01' is not a delay between 0.1 and 3600 seconds", "-d", "0.01");
	ERROR("-d: '3601' is not a delay between 0.1 and 3600 seconds", "-d", "3601");
	ERROR("-d: '1e1' is not a delay", "-d", "1e1");
	ERROR("-d: 'inf' is not a delay", "-d", "inf");
	ERROR("-d: 'nan' is not a delay", "-d", "nan");
	ERROR("-d: '0x10' is not a delay", "-d", "0x10");
	ERROR("--stack-entries: '63' is not a number from 64 to 4194304", "--stack-entries", "63");
	ERROR("--count-entries: '4194305' is not a number from 64 to 4194304", "--count-entries",
	      "4194305");
	ERROR("--count-entries: 'many' is not a number", "--count-entries", "many");
	ERROR("--max-stacks: '10' is not a number from 64 to 4194304", "--max-stacks", "10");
}

static void test_stray_argument(void **state)
{
	(void)state;
	ERROR("unexpected argument 'stray'", "stray");
	ERROR("unexpected argument 'stray'", "--folded", "stray");
	ERROR("unexpected argument 'stray'", "stray", "--folded");
	ERROR("unexpected argument '--folded'", "--", "--folded");
}

/* A small error buffer gets a cut but terminated message. */
static void test_small_error_buffer(void **state)
{
	char *argv[] = {"flametop", "--bogus", NULL};
	char small[8];

	(void)state;
	memset(small, 'X', sizeof(small));
	assert_int_equal(options__parse(2, argv, &opts, small, sizeof(small)), OPTIONS_ERROR);
	assert_string_equal(small, "unknown");
}

/* Each parse starts from scratch: nothing of an earlier one remains. */
static void test_parse_again(void **state)
{
	(void)state;
	assert_run("-K", "-F", "5", "-p", "9", "--folded");
	assert_int_equal(PARSE_NOTHING(), OPTIONS_RUN);
	check_defaults(&opts);

	ERROR("unknown option '-x'", "-x");
	assert_run("-U");
	assert_true(opts.user_only);
	assert_false(opts.kernel_only);

	ERROR("-F: 'abc' is not a number", "-F", "abc");
	assert_run("-F", "7");
	assert_int_equal(opts.freq, 7);

	/* A stray argument moved by getopt's permutation, then a clean parse. */
	ERROR("unexpected argument 'stray'", "stray", "-K");
	assert_run("-U");
	assert_false(opts.kernel_only);

	for (int i = 0; i < 100; i++) {
		assert_run("-d", "1");
		assert_true(opts.delay == 1.0);
	}
}

/*
 * A parse that stops inside a group of short flags ("-hK" stops at h, "-xK"
 * at x) must not leave the rest of that group to the next parse.
 */
static void test_parse_again_after_stopping_in_a_group(void **state)
{
	(void)state;
	assert_int_equal(PARSE("-hK"), OPTIONS_HELP);
	if (PARSE("-F", "7") != OPTIONS_RUN)
		fail_msg("parse after \"-hK\": %s", escaped(err));
	assert_int_equal(opts.freq, 7);
	assert_false(opts.kernel_only);

	ERROR("unknown option '-x'", "-xK");
	if (PARSE("-U", "-d", "1") != OPTIONS_RUN)
		fail_msg("parse after \"-xK\": %s", escaped(err));
	assert_true(opts.user_only);
	assert_false(opts.kernel_only);
	assert_true(opts.delay == 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_frequency),
	    cmocka_unit_test(test_pids),
	    cmocka_unit_test(test_comm_and_visibility),
	    cmocka_unit_test(test_delay),
	    cmocka_unit_test(test_mode_and_weight),
	    cmocka_unit_test(test_group),
	    cmocka_unit_test(test_folded_output_duration),
	    cmocka_unit_test(test_svg_and_pprof),
	    cmocka_unit_test(test_input),
	    cmocka_unit_test(test_color_and_demangle),
	    cmocka_unit_test(test_map_entries),
	    cmocka_unit_test(test_unwind),
	    cmocka_unit_test(test_everything_at_once),
	    cmocka_unit_test(test_help_and_version),
	    cmocka_unit_test(test_unknown_and_missing),
	    cmocka_unit_test(test_value_given_to_a_flag),
	    cmocka_unit_test(test_bad_frequency),
	    cmocka_unit_test(test_bad_pids),
	    cmocka_unit_test(test_bad_comm),
	    cmocka_unit_test(test_bad_combinations),
	    cmocka_unit_test(test_annotate),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_stray_argument),
	    cmocka_unit_test(test_small_error_buffer),
	    cmocka_unit_test(test_parse_again),
	    cmocka_unit_test(test_parse_again_after_stopping_in_a_group),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
