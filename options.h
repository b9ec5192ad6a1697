/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options: flametop's command line, parsed and checked. Flags follow bcc's
 * profile and perf top: -F, -p, -c, -K, -U, -d, plus --mode, --folded,
 * --svg, --pprof, --duration, --group, -i and -o.
 */
#ifndef FLAMETOP_OPTIONS_H
#define FLAMETOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/capture.h"
#include "live/live.h"
#include "profile/profile.h"

#define DEFAULT_FREQ 99
#define DEFAULT_DELAY 2.0
#define DEFAULT_MIN_BLOCK_US 1
#define DEFAULT_MAX_STACKS 32768 /* --max-stacks: distinct stacks a live profile keeps */
#define MAX_SOURCE_DIRS 16       /* --source-dir given this many times at most */

struct options {
	enum capture_mode mode;
	enum live_weight weight;
	enum profile_group group;  /* --group: the first level of the tree and of folded stacks */
	unsigned int freq;         /* -F */
	double delay;              /* -d: seconds between screen refreshes */
	double duration;           /* --duration: seconds; 0 runs until interrupted */
	bool folded;               /* --folded: print folded stacks, no screen */
	bool kernel_only;          /* -K */
	bool user_only;            /* -U */
	bool no_color;             /* --no-color or NO_COLOR */
	bool no_demangle;          /* --no-demangle */
	const char *input;         /* -i FILE: offline viewer; "-" is stdin */
	const char *output;        /* -o FILE: where --folded writes */
	const char *svg;           /* --svg FILE: write an SVG flame graph there */
	const char *pprof;         /* --pprof FILE: write a pprof profile there */
	uint32_t tgids[MAX_FILTER_TGIDS];
	size_t ntgids;             /* -p */
	const char *comm;          /* -c */
	uint32_t stack_entries;    /* --stack-entries */
	uint32_t count_entries;    /* --count-entries */
	uint32_t max_stacks;       /* --max-stacks: stacks a live profile keeps, more fold */
	bool unwind_fp;            /* --unwind fp: user stacks along frame pointers only */
	size_t unwind_memory;      /* --unwind-memory: bytes; 0 is the default */
	bool no_python;            /* --python off: no Python frames walked */
	bool python_all;           /* --python all: the interpreter's frames shown among them */
	uint64_t min_block_us;     /* --min-block: off-CPU waits shorter are dropped */
	bool min_block_set;        /* --min-block was given */
	const char *annotate;      /* --annotate SYMBOL: print its hot lines after the run */
	bool annotate_insns;       /* --annotate-format insns: its instructions instead */
	bool annotate_format_set;  /* --annotate-format was given */
	const char *source_dirs[MAX_SOURCE_DIRS]; /* --source-dir: more places for sources */
	size_t nsource_dirs;
};

enum options_result {
	OPTIONS_RUN,     /* go on */
	OPTIONS_HELP,    /* print usage, exit 0 */
	OPTIONS_VERSION, /* print the version, exit 0 */
	OPTIONS_ERROR,   /* @err holds one line; exit 2 */
};

/*
 * options__parse() fills @o from @argv, checking every value: numbers are
 * numbers in range, -p holds at most MAX_FILTER_TGIDS positive pids, -c at
 * most COMM_LEN - 1 bytes, -K and -U exclude each other, --weight bytes needs
 * --mode read. What needs the running system (a pid exists, the kernel's
 * sample-rate limit) is checked by the caller. On OPTIONS_ERROR, @err
 * (capacity @err_size) holds one line without a trailing newline.
 */
enum options_result options__parse(int argc, char **argv, struct options *o, char *err,
				   size_t err_size);

/* True when flametop writes files or stdout instead of showing the screen. */
bool options__batch(const struct options *o);

/*
 * options__print_usage() writes --help's first part to @out: the usage
 * line, what flametop is, and every flag with its text, from the one table
 * of flags. options_examples is its last part: examples and the exit status.
 */
void options__print_usage(FILE *out);
extern const char options_examples[];

#endif
