// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char options_usage[] =
	"Usage: flametop [OPTION]...\n"
	"A live, top-style eBPF profiler: samples every CPU's stacks (or traces every\n"
	"vfs_read, or times threads off the CPU), names kernel and user frames, and\n"
	"shows the hottest call paths.\n"
	"\n"
	"  -F, --frequency HZ     samples per second per CPU (default 99)\n"
	"  -p, --pid PID[,PID]    only these processes (at most 64)\n"
	"  -c, --comm COMM        only processes with this exact name\n"
	"  -K, --kernel-only      only kernel frames\n"
	"  -U, --user-only        only user frames\n"
	"  -d, --delay SECS       seconds between screen refreshes (default 2)\n"
	"      --mode MODE        sample (default): on-CPU sampling; read: every vfs_read;\n"
	"                         offcpu: time threads spend off the CPU, by stack\n"
	"      --weight WEIGHT    read mode: calls (default) or bytes requested\n"
	"      --min-block US     offcpu mode: drop waits shorter than US microseconds\n"
	"                         (default 1)\n"
	"      --group GROUP      the tree's first level: comm (default), pid or tid\n"
	"      --folded           print folded stacks (for flamegraph.pl), no screen\n"
	"      --svg FILE         write an SVG flame graph (for a browser) to FILE, no screen\n"
	"      --pprof FILE       write a pprof profile (gzip'd profile.proto) to FILE, no screen\n"
	"      --duration SECS    with --folded, --svg or --pprof: stop after SECS (default:\n"
	"                         at Ctrl-C)\n"
	"  -i, --input FILE       view a folded file, perf script's text or a pprof profile\n"
	"                         (- for stdin) instead of this machine\n"
	"  -o, --output FILE      with --folded: write to FILE instead of stdout\n"
	"      --no-color         no colours (also when NO_COLOR is set)\n"
	"      --no-demangle      show C++ and Rust names as they are in the binary\n"
	"      --stack-entries N  stacks the kernel keeps (default: from the expected load)\n"
	"      --count-entries N  count keys the kernel keeps (default: from the expected load)\n"
	"      --max-stacks N     distinct stacks a live profile keeps; beyond, the stacks of\n"
	"                         exited processes, then the rarest, fold (default 32768)\n"
	"      --unwind HOW       user stacks: auto (default): with unwind tables built from\n"
	"                         each file's CFI, by frame pointer where there are none;\n"
	"                         fp: by frame pointer only\n"
	"      --unwind-memory MB kernel memory for unwind tables (default 128)\n"
	"      --python WHEN      on (default): CPython 3.10-3.13 processes show their Python\n"
	"                         frames; all: and the interpreter's frames among them;\n"
	"                         off: their native frames only\n"
	"  -h, --help             this help\n"
	"      --version          print the version\n"
	"\n"
	"Examples (live ones as root, or with sudo; keys: ? on the screen, man flametop):\n"
	"  flametop                                live screen, all CPUs\n"
	"  flametop -p 1234 --group tid            one process, thread by thread\n"
	"  flametop --svg cpu.svg --duration 10    a flame graph of 10 s\n"
	"  perf script | flametop -i -             browse a perf.data\n"
	"  flametop --mode read -c cat             who reads, through which code\n"
	"  flametop --mode offcpu -p 1234          where a process waits, and how long\n"
	"  flametop -i out.folded                  browse a folded file\n"
	"\n"
	"Exit status: 0, or 2 after one line on stderr saying what was wrong.\n";

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
	OPT_PYTHON,
	OPT_VERSION,
};

static const struct option long_options[] = {
	{ "frequency", required_argument, NULL, 'F' },
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'c' },
	{ "kernel-only", no_argument, NULL, 'K' },
	{ "user-only", no_argument, NULL, 'U' },
	{ "delay", required_argument, NULL, 'd' },
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "no-colour", no_argument, NULL, OPT_NO_COLOR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "stack-entries", required_argument, NULL, OPT_STACK_ENTRIES },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "count-entries", required_argument, NULL, OPT_COUNT_ENTRIES },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "unwind-memory", required_argument, NULL, OPT_UNWIND_MEMORY },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "python", required_argument, NULL, OPT_PYTHON },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

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
	return o->folded || o->svg || o->pprof;
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
		snprintf(err, size, "--duration needs --folded, --svg or --pprof");
		return -EINVAL;
	}
	return 0;
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
	while ((opt = getopt_long(argc, argv, ":F:p:c:KUd:i:o:h", long_options, &index)) != -1) {
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
