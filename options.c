// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum {
	OPT_MODE = 256,
	OPT_WEIGHT,
	OPT_GROUP,
	OPT_FOLDED,
	OPT_SVG,
	OPT_PPROF,
	OPT_DURATION,
	OPT_NO_COLOR,
	OPT_NO_DEMANGLE,
	OPT_STACK_ENTRIES,
	OPT_MAX_STACKS,
	OPT_COUNT_ENTRIES,
	OPT_UNWIND,
	OPT_UNWIND_MEMORY,
	OPT_MIN_BLOCK,
	OPT_ANNOTATE,
	OPT_ANNOTATE_FORMAT,
	OPT_SOURCE_DIR,
	OPT_PYTHON,
	OPT_VERSION,
};

/*
 * Every flag, in --help's order: the one table getopt's, --help's and the
 * docs' lists come from (tests/integration/docs.sh holds the man page and
 * the README to it).
 */
struct flag {
	int val;          /* its short letter, or an OPT_* code for a long one only */
	const char *name; /* its long name */
	const char *arg;  /* the name of its value, or NULL when it takes none */
	const char *help; /* --help's text, lines split by '\n'; NULL: an alias, not listed */
};

static const struct flag flags[] = {
	{ 'F', "frequency", "HZ", "samples per second per CPU (default 99)" },
	{ 'p', "pid", "PID[,PID]", "only these processes (at most 64)" },
	{ 'c', "comm", "COMM", "only processes with this exact name" },
	{ 'K', "kernel-only", NULL, "only kernel frames (K on the screen)" },
	{ 'U', "user-only", NULL, "only user frames (U on the screen)" },
	{ 'd', "delay", "SECS", "seconds between screen refreshes (default 2)" },
	{ OPT_MODE, "mode", "MODE",
	  "sample (default): on-CPU sampling; read: every vfs_read;\n"
	  "offcpu: time threads spend off the CPU, by stack" },
	{ OPT_WEIGHT, "weight", "WEIGHT", "read mode: calls (default) or bytes requested" },
	{ OPT_MIN_BLOCK, "min-block", "US",
	  "offcpu mode: drop waits shorter than US microseconds\n(default 1)" },
	{ OPT_GROUP, "group", "GROUP", "the tree's first level: comm (default), pid or tid" },
	{ OPT_FOLDED, "folded", NULL, "print folded stacks (for flamegraph.pl), no screen" },
	{ OPT_SVG, "svg", "FILE", "write an SVG flame graph (for a browser) to FILE, no screen" },
	{ OPT_PPROF, "pprof", "FILE",
	  "write a pprof profile (gzip'd profile.proto) to FILE, no screen" },
	{ OPT_ANNOTATE, "annotate", "SYMBOL",
	  "print where in function SYMBOL the samples were (its source\n"
	  "lines and call sites, as perf annotate --stdio; a Python\n"
	  "function by its qualname), no screen" },
	{ OPT_ANNOTATE_FORMAT, "annotate-format", "FORMAT",
	  "lines (default): by source line; insns: by instruction" },
	{ OPT_SOURCE_DIR, "source-dir", "DIR",
	  "also look for source files under DIR (the annotate view's\n"
	  "and --annotate's; may be given more than once)" },
	{ OPT_DURATION, "duration", "SECS",
	  "with --folded, --svg, --pprof or --annotate: stop after\n"
	  "SECS (default: at Ctrl-C, or once every process of -p has\n"
	  "exited)" },
	{ 'i', "input", "FILE",
	  "view a folded file, perf script's text, bpftrace's print of\n"
	  "a map keyed by stacks or a pprof profile (- for stdin)\n"
	  "instead of this machine" },
	{ 'o', "output", "FILE", "with --folded: write to FILE instead of stdout" },
	{ OPT_NO_COLOR, "no-color", NULL, "no colours (also when NO_COLOR is set)" },
	{ OPT_NO_COLOR, "no-colour", NULL, NULL },
	{ OPT_NO_DEMANGLE, "no-demangle", NULL,
	  "show C++ and Rust names as they are in the binary" },
	{ OPT_STACK_ENTRIES, "stack-entries", "N",
	  "stacks the kernel keeps (default: from the expected load)" },
	{ OPT_COUNT_ENTRIES, "count-entries", "N",
	  "count keys the kernel keeps (default: from the expected load)" },
	{ OPT_MAX_STACKS, "max-stacks", "N",
	  "distinct stacks a live profile keeps; beyond, the stacks of\n"
	  "exited processes, then the rarest, fold (default 32768)" },
	{ OPT_UNWIND, "unwind", "HOW",
	  "user stacks: auto (default): with unwind tables built from\n"
	  "each file's CFI, by frame pointer where there are none;\n"
	  "fp: by frame pointer only" },
	{ OPT_UNWIND_MEMORY, "unwind-memory", "MB",
	  "kernel memory for unwind tables (default 128)" },
	{ OPT_PYTHON, "python", "WHEN",
	  "on (default): CPython 3.10-3.13 processes show their Python\n"
	  "frames; all: and the interpreter's frames among them;\n"
	  "off: their native frames only" },
	{ 'h', "help", NULL, "this help" },
	{ OPT_VERSION, "version", NULL, "print the version" },
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))
#define HELP_COLUMN 25 /* where --help's texts start */

static const char usage_head[] =
	"Usage: flametop [OPTION]...\n"
	"A live, top-style eBPF profiler: samples every CPU's stacks (or traces every\n"
	"vfs_read, or times threads off the CPU), names kernel and user frames, and\n"
	"shows the hottest call paths.\n"
	"\n"
	"Options:\n";

const char options_examples[] =
	"\n"
	"Examples (live ones as root, or with sudo; man flametop tells all):\n"
	"  flametop                                live screen, all CPUs\n"
	"  flametop -p 1234 --group tid            one process, thread by thread\n"
	"  flametop --svg cpu.svg --duration 10    a flame graph of 10 s\n"
	"  perf script | flametop -i -             browse a perf.data\n"
	"  flametop --mode read -c cat             who reads, through which code\n"
	"  flametop --mode offcpu -p 1234          where a process waits, and how long\n"
	"  flametop -i out.folded                  browse a folded file\n"
	"\n"
	"Exit status: 0, or 2 after one line on stderr saying what was wrong.\n";

/* Writes @f's --help lines: its names and value, then its text from HELP_COLUMN. */
static void print_flag(FILE *out, const struct flag *f)
{
	const char *text = f->help;
	int n;

	if (f->val < 256)
		n = fprintf(out, "  -%c, --%s", f->val, f->name);
	else
		n = fprintf(out, "      --%s", f->name);
	if (f->arg)
		n += fprintf(out, " %s", f->arg);
	do {
		size_t len = strcspn(text, "\n");

		fprintf(out, "%*s%.*s\n", n < HELP_COLUMN ? HELP_COLUMN - n : 1, "", (int)len,
			text);
		n = 0;
		text += len + (text[len] == '\n');
	} while (*text);
}

void options__print_usage(FILE *out)
{
	fputs(usage_head, out);
	for (size_t i = 0; i < NFLAGS; i++) {
		if (flags[i].help)
			print_flag(out, &flags[i]);
	}
}

/*
 * getopt's tables, made from flags[] on first use: the long options
 * (NULL-terminated) and the short ones (":F:p:...", the ':' first to tell
 * a missing value from an unknown flag).
 */
static struct option long_options[NFLAGS + 1];
static char short_options[1 + 2 * NFLAGS + 1];

static void make_getopt_tables(void)
{
	size_t n = 0;

	if (long_options[0].name)
		return;
	short_options[n++] = ':';
	for (size_t i = 0; i < NFLAGS; i++) {
		long_options[i] = (struct option){ flags[i].name,
						   flags[i].arg ? required_argument : no_argument,
						   NULL, flags[i].val };
		if (flags[i].val >= 256)
			continue;
		short_options[n++] = (char)flags[i].val;
		if (flags[i].arg)
			short_options[n++] = ':';
	}
	short_options[n] = '\0';
}

/* Parses a whole decimal number in [min, max]; 0 or -EINVAL / -ERANGE. */
static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Parses seconds such as "2", "0.5"; 0 or -EINVAL / -ERANGE. */
static int parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!*s || *s == ' ' || *s == '+' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || s[strspn(s, "0123456789.")])
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_pids(struct options *o, const char *list, char *err, size_t size)
{
	const char *s = list;

	while (*s) {
		char item[32];
		size_t len = strcspn(s, ",");
		unsigned long pid;

		if (len == 0 || len >= sizeof(item)) {
			snprintf(err, size, "-p: '%s' is not a list of process ids", list);
			return -EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (parse_uint(item, 1, 0x3fffffff, &pid)) {
			snprintf(err, size, "-p: '%s' is not a process id", item);
			return -EINVAL;
		}
		if (o->ntgids == MAX_FILTER_TGIDS) {
			snprintf(err, size, "-p: at most %d processes", MAX_FILTER_TGIDS);
			return -E2BIG;
		}
		o->tgids[o->ntgids++] = pid;
		s += len;
		if (*s == ',' && !*++s) {
			snprintf(err, size, "-p: '%s' ends with a comma", list);
			return -EINVAL;
		}
	}
	if (!o->ntgids) {
		snprintf(err, size, "-p: no process id given");
		return -EINVAL;
	}
	return 0;
}

static int parse_group(struct options *o, const char *arg, char *err, size_t size)
{
	static const char *const names[GROUP_NR] = {
		[GROUP_COMM] = "comm",
		[GROUP_PID] = "pid",
		[GROUP_TID] = "tid",
	};

	for (int g = 0; g < GROUP_NR; g++) {
		if (strcmp(arg, names[g]) == 0) {
			o->group = (enum profile_group)g;
			return 0;
		}
	}
	snprintf(err, size, "--group: unknown grouping '%s' (comm, pid or tid)", arg);
	return -EINVAL;
}

/* Checks one option's value; returns 0 or -errno with @err set. */
static int apply(struct options *o, int opt, const char *arg, const char *name, char *err,
		 size_t size)
{
	unsigned long v;
	int e;

	switch (opt) {
	case 'F':
		e = parse_uint(arg, 1, UINT32_MAX, &v);
		if (e == -ERANGE && strspn(arg, "0") == strlen(arg))
			snprintf(err, size, "-F %s: the frequency must be at least 1 Hz", arg);
		else if (e == -ERANGE)
			snprintf(err, size, "-F %s: far above any kernel's sampling limit", arg);
		else if (e)
			snprintf(err, size, "-F: '%s' is not a number of samples per second", arg);
		else
			o->freq = v;
		return e;
	case 'p':
		return parse_pids(o, arg, err, size);
	case 'c':
		if (!*arg || strlen(arg) >= COMM_LEN) {
			snprintf(err, size, "-c: a command name has 1 to %d bytes ('%.40s' has %zu)",
				 COMM_LEN - 1, arg, strlen(arg));
			return -EINVAL;
		}
		o->comm = arg;
		return 0;
	case 'd':
		e = parse_seconds(arg, 0.1, 3600, &o->delay);
		if (e)
			snprintf(err, size, "-d: '%s' is not a delay between 0.1 and 3600 seconds", arg);
		return e;
	case OPT_DURATION:
		e = parse_seconds(arg, 0.001, 1e7, &o->duration);
		if (e)
			snprintf(err, size, "--duration: '%s' is not a positive number of seconds",
				 arg);
		return e;
	case OPT_MODE:
		e = capture_mode__parse(arg, &o->mode);
		if (e)
			snprintf(err, size, "--mode: unknown mode '%s' (sample, read or offcpu)", arg);
		return e;
	case OPT_WEIGHT:
		if (strcmp(arg, "calls") == 0) {
			o->weight = WEIGHT_EVENTS;
			return 0;
		}
		if (strcmp(arg, "bytes") == 0) {
			o->weight = WEIGHT_BYTES;
			return 0;
		}
		snprintf(err, size, "--weight: unknown weight '%s' (calls or bytes)", arg);
		return -EINVAL;
	case OPT_GROUP:
		return parse_group(o, arg, err, size);
	case OPT_STACK_ENTRIES:
	case OPT_COUNT_ENTRIES:
	case OPT_MAX_STACKS:
		e = parse_uint(arg, 64, 1u << 22, &v);
		if (e) {
			snprintf(err, size, "--%s: '%s' is not a number from 64 to %u", name, arg,
				 1u << 22);
			return e;
		}
		*(opt == OPT_STACK_ENTRIES   ? &o->stack_entries
		  : opt == OPT_COUNT_ENTRIES ? &o->count_entries
					     : &o->max_stacks) = v;
		return 0;
	case OPT_UNWIND:
		if (strcmp(arg, "auto") && strcmp(arg, "fp")) {
			snprintf(err, size, "--unwind: unknown way '%s' (auto or fp)", arg);
			return -EINVAL;
		}
		o->unwind_fp = strcmp(arg, "fp") == 0;
		return 0;
	case OPT_UNWIND_MEMORY:
		e = parse_uint(arg, 8, 65536, &v);
		if (e)
			snprintf(err, size, "--unwind-memory: '%s' is not a number of MB from 8 to 65536",
				 arg);
		else
			o->unwind_memory = (size_t)v << 20;
		return e;
	case OPT_PYTHON:
		if (strcmp(arg, "on") && strcmp(arg, "off") && strcmp(arg, "all")) {
			snprintf(err, size, "--python: unknown choice '%s' (on, off or all)", arg);
			return -EINVAL;
		}
		o->no_python = strcmp(arg, "off") == 0;
		o->python_all = strcmp(arg, "all") == 0;
		return 0;
	case OPT_MIN_BLOCK:
		e = parse_uint(arg, 0, 3600000000ul, &v);
		if (e)
			snprintf(err, size,
				 "--min-block: '%s' is not a number of microseconds up to an hour", arg);
		else
			o->min_block_us = v;
		o->min_block_set = !e;
		return e;
	case OPT_ANNOTATE:
		if (!*arg) {
			snprintf(err, size, "--annotate: no function name given");
			return -EINVAL;
		}
		o->annotate = arg;
		return 0;
	case OPT_ANNOTATE_FORMAT:
		if (strcmp(arg, "lines") && strcmp(arg, "insns")) {
			snprintf(err, size,
				 "--annotate-format: unknown format '%s' (lines or insns)", arg);
			return -EINVAL;
		}
		o->annotate_insns = strcmp(arg, "insns") == 0;
		o->annotate_format_set = true;
		return 0;
	case OPT_SOURCE_DIR:
		if (o->nsource_dirs == MAX_SOURCE_DIRS) {
			snprintf(err, size, "--source-dir: at most %d directories",
				 MAX_SOURCE_DIRS);
			return -E2BIG;
		}
		o->source_dirs[o->nsource_dirs++] = arg;
		return 0;
	}
	return 0;
}

static void defaults(struct options *o)
{
	const char *nc = getenv("NO_COLOR");

	memset(o, 0, sizeof(*o));
	o->mode = CAPTURE_SAMPLE;
	o->weight = WEIGHT_EVENTS;
	o->freq = DEFAULT_FREQ;
	o->delay = DEFAULT_DELAY;
	o->min_block_us = DEFAULT_MIN_BLOCK_US;
	o->max_stacks = DEFAULT_MAX_STACKS;
	o->no_color = nc && *nc;
}

bool options__batch(const struct options *o)
{
	return o->folded || o->svg || o->pprof || o->annotate;
}

/* The rules of --annotate and its options. */
static int check_annotate(const struct options *o, char *err, size_t size)
{
	if (o->annotate_format_set && !o->annotate) {
		snprintf(err, size, "--annotate-format needs --annotate");
		return -EINVAL;
	}
	if (o->annotate && o->input) {
		snprintf(err, size, "--annotate needs a live capture: stacks read with -i keep no "
				    "addresses, only names");
		return -EINVAL;
	}
	if (o->annotate && o->folded && !o->output) {
		snprintf(err, size, "--annotate and --folded both write to stdout: give --folded "
				    "an -o FILE");
		return -EINVAL;
	}
	return 0;
}

/* Rules between options, once all are read. */
static int check_combination(const struct options *o, char *err, size_t size)
{
	if (o->kernel_only && o->user_only) {
		snprintf(err, size, "-K and -U exclude each other: -K keeps only kernel frames");
		return -EINVAL;
	}
	if (o->weight == WEIGHT_BYTES && o->mode != CAPTURE_READ) {
		snprintf(err, size, "--weight bytes needs --mode read: samples have no size");
		return -EINVAL;
	}
	if (o->min_block_set && o->mode != CAPTURE_OFFCPU) {
		snprintf(err, size, "--min-block needs --mode offcpu: only waits have a length");
		return -EINVAL;
	}
	if (o->output && !o->folded) {
		snprintf(err, size, "-o needs --folded");
		return -EINVAL;
	}
	if (o->duration > 0 && !options__batch(o)) {
		snprintf(err, size, "--duration needs --folded, --svg, --pprof or --annotate");
		return -EINVAL;
	}
	return check_annotate(o, err, size);
}

/* Is @arg "--flag=value" for our flag whose value getopt reported in optopt? */
static bool flag_given_a_value(const char *arg, int opt)
{
	size_t len = strcspn(arg, "=");

	if (!opt || strncmp(arg, "--", 2) != 0 || !arg[len])
		return false;
	for (const struct option *lo = long_options; lo->name; lo++) {
		if (lo->val == opt && strlen(lo->name) == len - 2 &&
		    strncmp(lo->name, arg + 2, len - 2) == 0)
			return true;
	}
	return false;
}

enum options_result options__parse(int argc, char **argv, struct options *o, char *err,
				   size_t err_size)
{
	int opt, index = -1;

	defaults(o);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then also forgets a half-read "-abc" group */
	make_getopt_tables();
	while ((opt = getopt_long(argc, argv, short_options, long_options, &index)) != -1) {
		const char *name = index >= 0 ? long_options[index].name : "";
		const char *given = argv[optind - 1];

		switch (opt) {
		case 'h':
			return OPTIONS_HELP;
		case OPT_VERSION:
			return OPTIONS_VERSION;
		case 'K':
			o->kernel_only = true;
			break;
		case 'U':
			o->user_only = true;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FOLDED:
			o->folded = true;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_PPROF:
			o->pprof = optarg;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case ':':
			snprintf(err, err_size, "option '%s' needs a value", given);
			return OPTIONS_ERROR;
		case '?':
			if (flag_given_a_value(given, optopt))
				snprintf(err, err_size, "option '%.*s' takes no value",
					 (int)strcspn(given, "="), given);
			else if (optopt)
				snprintf(err, err_size, "unknown option '-%c'", optopt);
			else
				snprintf(err, err_size, "unknown option '%s'", given);
			return OPTIONS_ERROR;
		default:
			if (apply(o, opt, optarg, name, err, err_size))
				return OPTIONS_ERROR;
		}
		index = -1;
	}
	if (optind < argc) {
		snprintf(err, err_size, "unexpected argument '%s'", argv[optind]);
		return OPTIONS_ERROR;
	}
	return check_combination(o, err, err_size) ? OPTIONS_ERROR : OPTIONS_RUN;
}
