// SPDX-License-Identifier: GPL-2.0
/*
 * naming: what symbolizer__user() says about real processes whose names
 * live elsewhere: stripped binaries with a build-id debug file, a
 * .gnu_debuglink or MiniDebugInfo; C++ names (demangled, or raw when asked
 * for); JIT code named by a perf map. Binaries are built here; expected
 * addresses come from nm and the processes' maps.
 */
#include "tests/unit/fixtures.h"

#include <inttypes.h>

#include "symbols/symbolizer.h"

#define KALLSYMS FIXTURES "/kallsyms.txt"

/* Says "ready", then lives until its stdin closes. */
static const char prog_c[] =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "__attribute__((noinline)) int hidden_work(int x) { return x * 7 + 1; }\n"
    "int main(void)\n"
    "{\n"
    "\tchar c;\n"
    "\tvolatile int v = hidden_work(3);\n"
    "\t(void)v;\n"
    "\tprintf(\"ready\\n\");\n"
    "\tfflush(stdout);\n"
    "\treturn read(0, &c, 1) < 0;\n"
    "}\n";

static const char prog_cc[] =
    "#include <cstdio>\n"
    "#include <unistd.h>\n"
    "namespace shapes {\n"
    "template <typename T> struct Spinner {\n"
    "\t__attribute__((noinline)) static T spin(T n) { return n * 3 + 1; }\n"
    "};\n"
    "}\n"
    "int main()\n"
    "{\n"
    "\tchar c;\n"
    "\tvolatile long v = shapes::Spinner<long>::spin(2);\n"
    "\t(void)v;\n"
    "\tstd::printf(\"ready\\n\");\n"
    "\tstd::fflush(stdout);\n"
    "\treturn read(0, &c, 1) < 0;\n"
    "}\n";

#define SPIN_MANGLED "_ZN6shapes7SpinnerIlE4spinEl"

static char dir[512];

/*
 * In "<tmp>/bin": the variants of prog.c that build_debug_variants() makes
 * (full, stripped, linked, mini and their debug files), and cxx (C++, with
 * symbols).
 */
static void build_fixtures(void)
{
	static int built;
	char src[700];

	if (built)
		return;
	snprintf(dir, sizeof(dir), "%s/bin", unit_tmpdir());
	build_debug_variants(dir, prog_c);
	snprintf(src, sizeof(src), "%s/prog.cc", dir);
	unit_write_file(src, prog_cc);
	unit_sh("cd '%s' && g++ -O1 -o cxx prog.cc", dir);
	built = 1;
}

/*
 * Runs @bin and names the address of function @fn (whose file offset is
 * that of @fn in @with_symbols) with a symbolizer of @opts; checks the
 * name and status.
 */
static void expect_function(const struct symbolizer_opts *opts, const char *bin,
			    const char *with_symbols, const char *fn, int want_status,
			    const char *want)
{
	char path[700], other[700], buf[256];
	struct symbolizer *s = symbolizer__new(opts);
	uint64_t value, size, off, addr;
	struct child c;

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/%s", dir, bin);
	snprintf(other, sizeof(other), "%s/%s", dir, with_symbols);
	nm_symbol(other, fn, &value, &size);
	off = file_offset(other, value);
	child_start(&c, path);
	addr = live_address(c.pid, path, off);
	assert_int_equal(symbolizer__user(s, (uint32_t)c.pid, addr + 1, false, buf, sizeof(buf)),
			 want_status);
	child_stop(&c);
	if (want)
		assert_string_equal(buf, want);
	else
		assert_true(!strncmp(buf, bin, strlen(bin)) && strstr(buf, "+0x"));
	symbolizer__free(s);
}

static void test_stripped_without_debug_file(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = KALLSYMS,
				       .debug_root = "/nonexistent"};

	(void)state;
	build_fixtures();
	expect_function(&opts, "stripped", "full", "hidden_work", SYM_MODULE_OFF, NULL);
}

static void test_build_id_debug_file(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS};
	char root[600], hex[256], full[600];

	(void)state;
	build_fixtures();
	snprintf(full, sizeof(full), "%s/full", dir);
	readelf_build_id(full, hex, sizeof(hex));
	snprintf(root, sizeof(root), "%s/debug", unit_tmpdir());
	unit_sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/full.debug' '%s/.build-id/%.2s/%s.debug'",
		root, hex, dir, root, hex, hex + 2);
	opts.debug_root = root;
	expect_function(&opts, "stripped", "full", "hidden_work", SYM_NAMED, "hidden_work");
}

static void test_debuglink(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = KALLSYMS,
				       .debug_root = "/nonexistent"};

	(void)state;
	build_fixtures();
	expect_function(&opts, "linked", "linked_full", "hidden_work", SYM_NAMED, "hidden_work");
	/* The debug file changed since the link was made: its CRC no longer matches. */
	unit_sh("cd '%s' && cp linked.debug linked.debug.good && printf x >> linked.debug", dir);
	expect_function(&opts, "linked", "linked_full", "hidden_work", SYM_MODULE_OFF, NULL);
	unit_sh("cd '%s' && mv linked.debug.good linked.debug", dir);
}

static void test_minidebuginfo(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = KALLSYMS,
				       .debug_root = "/nonexistent"};

	(void)state;
	build_fixtures();
	expect_function(&opts, "mini", "full", "hidden_work", SYM_NAMED, "hidden_work");
}

static void test_cxx_names(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS};

	(void)state;
	build_fixtures();
	expect_function(&opts, "cxx", "cxx", SPIN_MANGLED, SYM_NAMED,
			"shapes::Spinner<long>::spin(long)");
	opts.raw_names = true;
	expect_function(&opts, "cxx", "cxx", SPIN_MANGLED, SYM_NAMED, SPIN_MANGLED);
}

/* A process with two executable anonymous mappings and a perf map for the first. */
static void fake_jit_proc(const char *name, char *root, size_t size)
{
	char path[800];

	snprintf(root, size, "%s/%s", unit_tmpdir(), name);
	unit_sh("mkdir -p '%s/4242/root/tmp'", root);
	snprintf(path, sizeof(path), "%s/4242/maps", root);
	unit_write_file(path,
			"7f0000000000-7f0000010000 r-xp 00000000 00:00 0\n"
			"7f0000100000-7f0000101000 rwxp 00000000 00:00 0 \n"
			"7f0000200000-7f0000201000 r-xp 00000000 00:00 0    [anon:jit code]\n");
	snprintf(path, sizeof(path), "%s/4242/status", root);
	unit_write_file(path, "Name:\tjit\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nNSpid:\t4242\t17\n");
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	unit_write_file(path,
			"7f0000000100 40 jitted_fn\n"
			"7f0000000200 10 " SPIN_MANGLED "\n"
			"7f0000200000 20 LazyCompile:~f \x1b[2Jx.js:1\n");
}

static void expect_name(struct symbolizer *s, uint64_t ip, int status, const char *want)
{
	char buf[256];

	assert_int_equal(symbolizer__user(s, 4242, ip, false, buf, sizeof(buf)), status);
	assert_string_equal(buf, want);
}

static void test_perf_map_names_jit_code(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS};
	struct symbolizer *s;
	char root[600], path[800];

	(void)state;
	fake_jit_proc("jit-proc", root, sizeof(root));
	opts.proc_root = root;
	s = symbolizer__new(&opts);
	assert_non_null(s);
	expect_name(s, 0x7f0000000110, SYM_NAMED, "jitted_fn");
	expect_name(s, 0x7f0000000205, SYM_NAMED, "shapes::Spinner<long>::spin(long)");
	expect_name(s, 0x7f0000000300, SYM_UNKNOWN, "[jit]");
	expect_name(s, 0x7f0000100010, SYM_UNKNOWN, "[anon]");
	expect_name(s, 0x7f0000200004, SYM_NAMED, "LazyCompile:~f ?[2Jx.js:1");
	/* Entries the JIT adds later are read again, at most once per pass. */
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	unit_sh("echo '7f0000000300 10 late_fn' >> '%s'", path);
	expect_name(s, 0x7f0000000300, SYM_UNKNOWN, "[jit]");
	symbolizer__begin_pass(s);
	expect_name(s, 0x7f0000000300, SYM_NAMED, "late_fn");
	symbolizer__free(s);
}

static void test_perf_map_of_another_owner_ignored(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS};
	struct symbolizer *s;
	char root[600], path[800];

	(void)state;
	if (geteuid() != 0)
		skip(); /* a file owned by someone else needs root to make */
	fake_jit_proc("jit-planted", root, sizeof(root));
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	assert_int_equal(chown(path, 4001, 4001), 0);
	opts.proc_root = root;
	s = symbolizer__new(&opts);
	assert_non_null(s);
	expect_name(s, 0x7f0000000110, SYM_UNKNOWN, "[anon]");
	expect_name(s, 0x7f0000000300, SYM_UNKNOWN, "[anon]");
	symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stripped_without_debug_file),
	    cmocka_unit_test(test_build_id_debug_file),
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_minidebuginfo),
	    cmocka_unit_test(test_cxx_names),
	    cmocka_unit_test(test_perf_map_names_jit_code),
	    cmocka_unit_test(test_perf_map_of_another_owner_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
