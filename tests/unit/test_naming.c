// SPDX-License-Identifier: GPL-2.0
/*
 * naming: what symbolizer__user() says about real processes whose names
 * live elsewhere: stripped binaries with a build-id debug file, a
 * .gnu_debuglink or MiniDebugInfo; C++ names (demangled, or raw when asked
 * for); JIT code named by a perf map. Binaries are built here; expected
 * addresses come from nm and the processes' maps.
 */
#include "tests/unit/unit.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/wait.h>

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

struct child {
	pid_t pid;
	int to_child;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * In "<tmp>/bin": full (symbols, build-id) and its stripped copy and
 * debug file; linked (stripped, debuglink to linked.debug, no build-id);
 * mini (stripped, MiniDebugInfo); cxx (C++, with symbols).
 */
static void build_fixtures(void)
{
	static int built;
	char src[700];

	if (built)
		return;
	snprintf(dir, sizeof(dir), "%s/bin", unit_tmpdir());
	unit_sh("mkdir -p '%s'", dir);
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	write_file(src, prog_c);
	snprintf(src, sizeof(src), "%s/prog.cc", dir);
	write_file(src, prog_cc);
	unit_sh(
	    "cd '%s' && gcc -O1 -g -Wl,--build-id=sha1 -o full prog.c && "
	    "objcopy --only-keep-debug full full.debug && strip --strip-all -o stripped full && "
	    "gcc -O1 -g -Wl,--build-id=none -o linked_full prog.c && "
	    "objcopy --only-keep-debug linked_full linked.debug && "
	    "strip --strip-all -o linked linked_full && "
	    "objcopy --add-gnu-debuglink=linked.debug linked && "
	    "nm --format=posix --defined-only full | awk '$2 ~ /[Tt]/ { print $1 }' | sort > funcs "
	    "&& "
	    "nm -D --format=posix --defined-only full | awk '{ print $1 }' | sort > dynsyms && "
	    "comm -23 funcs dynsyms > keep && objcopy --only-keep-debug full mini.dbg && "
	    "objcopy -S --remove-section .gdb_index --remove-section .comment "
	    "--keep-symbols=keep mini.dbg mini.elf && xz -f mini.elf && "
	    "strip --strip-all -o mini full && objcopy --add-section .gnu_debugdata=mini.elf.xz "
	    "mini && "
	    "g++ -O1 -o cxx prog.cc",
	    dir);
	built = 1;
}

/* The value nm gives function @name of @bin. */
static uint64_t nm_value(const char *bin, const char *name)
{
	char cmd[1400], line[512], sym[256], type[8];
	unsigned long long v, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %7s %255s", &v, type, sym) == 3 && !strcmp(sym, name))
			found = v;
	}
	pclose(p);
	if (!found)
		fail_msg("nm: no %s in %s", name, bin);
	return found;
}

/* The file offset of function @name of @bin (built with symbols), per nm and readelf. */
static uint64_t function_offset(const char *bin, const char *name)
{
	unsigned long long off, va, pa, fsz, msz, v = nm_value(bin, name);
	char cmd[1400], line[512], type[32];
	uint64_t result = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %31s %llx %llx %llx %llx %llx", type, &off, &va, &pa, &fsz,
			   &msz) == 6 &&
		    !strcmp(type, "LOAD") && strchr(line, 'E') && v >= va && v < va + fsz)
			result = v - va + off;
	}
	pclose(p);
	if (!result)
		fail_msg("no text segment holds %s in %s", name, bin);
	return result;
}

/* Where file offset @off of executable @path runs in process @pid, per its maps. */
static uint64_t live_address(pid_t pid, const char *path, uint64_t off)
{
	char maps[64], line[4600], perms[8], file[4096];
	unsigned long long start, end, pgoff;
	uint64_t addr = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (!addr && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms,
			   &pgoff, file) == 5 &&
		    !strcmp(file, path) && perms[2] == 'x' && off >= pgoff &&
		    off - pgoff < end - start)
			addr = start + (off - pgoff);
	}
	fclose(f);
	if (!addr)
		fail_msg("offset 0x%jx of %s is not mapped in %d", (uintmax_t)off, path, (int)pid);
	return addr;
}

static void child_start(struct child *c, const char *path)
{
	int in[2], out[2];
	char ready[6];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(126);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to_child = in[1];
	assert_int_equal(read(out[0], ready, sizeof(ready)), sizeof(ready));
	close(out[0]);
}

static void child_stop(struct child *c)
{
	int status;

	close(c->to_child);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
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
	struct child c;
	uint64_t off, addr;

	assert_non_null(s);
	snprintf(path, sizeof(path), "%s/%s", dir, bin);
	snprintf(other, sizeof(other), "%s/%s", dir, with_symbols);
	off = function_offset(other, fn);
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
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS, .debug_root = "/nonexistent"};

	(void)state;
	build_fixtures();
	expect_function(&opts, "stripped", "full", "hidden_work", SYM_MODULE_OFF, NULL);
}

static void test_build_id_debug_file(void **state)
{
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS};
	char root[600], hex[256], cmd[800];
	FILE *p;

	(void)state;
	build_fixtures();
	snprintf(cmd, sizeof(cmd), "readelf -n '%s/full' | sed -n 's/.*Build ID: //p'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(hex, sizeof(hex), p));
	pclose(p);
	hex[strcspn(hex, "\n")] = '\0';
	snprintf(root, sizeof(root), "%s/debug", unit_tmpdir());
	unit_sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/full.debug' '%s/.build-id/%.2s/%s.debug'",
		root, hex, dir, root, hex, hex + 2);
	opts.debug_root = root;
	expect_function(&opts, "stripped", "full", "hidden_work", SYM_NAMED, "hidden_work");
}

static void test_debuglink(void **state)
{
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS, .debug_root = "/nonexistent"};

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
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS, .debug_root = "/nonexistent"};

	(void)state;
	build_fixtures();
	expect_function(&opts, "mini", "full", "hidden_work", SYM_NAMED, "hidden_work");
}

static void test_cxx_names(void **state)
{
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS};

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
	write_file(path, "7f0000000000-7f0000010000 r-xp 00000000 00:00 0\n"
			 "7f0000100000-7f0000101000 rwxp 00000000 00:00 0 \n"
			 "7f0000200000-7f0000201000 r-xp 00000000 00:00 0    [anon:jit code]\n");
	snprintf(path, sizeof(path), "%s/4242/status", root);
	write_file(path, "Name:\tjit\nUid:\t0\t0\t0\t0\nNSpid:\t4242\t17\n");
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	write_file(path, "7f0000000100 40 jitted_fn\n"
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
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS};
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
	struct symbolizer_opts opts = {.kallsyms_path = KALLSYMS};
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
