// SPDX-License-Identifier: GPL-2.0
/*
 * symbolizer: the facade, on this process, on workloads it starts, on a
 * made-up /proc tree, and on the kallsyms fixtures.
 *
 * Expected addresses and offsets come from nm, readelf, dlsym and the maps
 * files read here with sscanf, never from the code under test.
 */
#include "tests/unit/fixtures.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "symbols/procinfo.h"
#include "symbols/symbolizer.h"

#define KALLSYMS FIXTURES "/kallsyms.txt"
#define MODULES FIXTURES "/modules.txt"

/* Says "ready", then lives until its stdin closes (so it never outlives the test). */
static const char workload_c[] =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "__attribute__((noinline, aligned(64))) int work_fn(int x) { return x * 5 + 3; }\n"
    "int main(void)\n"
    "{\n"
    "\tchar c;\n"
    "\tvolatile int v = work_fn(1);\n"
    "\t(void)v;\n"
    "\tprintf(\"ready\\n\");\n"
    "\tfflush(stdout);\n"
    "\treturn read(0, &c, 1) < 0;\n"
    "}\n";

/* Two functions back to back: adj_b starts where adj_a ends. */
static const char adjacent_c[] = "int adj_a(int x) { return x + 1; }\n"
				 "int adj_b(int x) { return x + 2; }\n";

/* A function with no symbol once stripped, and an exported way to reach it. */
static const char hidden_c[] = "static __attribute__((noinline)) int hidden_fn(int x)\n"
			       "{ return x * 11 + (x >> 3); }\n"
			       "void *get_hidden(void) { return (void *)hidden_fn; }\n";

static char workload[512], libadj[512], libstripped[512], libhidden_full[512];

/* The function this process names in itself; global so its symbol keeps its name. */
__attribute__((noinline, noclone)) int symbolizer_test_target(int x)
{
	return x * 13 + 1;
}

static void build_fixtures(void)
{
	static int built;
	const char *d = unit_tmpdir();
	char src[512];

	if (built)
		return;
	snprintf(workload, sizeof(workload), "%s/workload", d);
	snprintf(libadj, sizeof(libadj), "%s/libadj.so", d);
	snprintf(libstripped, sizeof(libstripped), "%s/libstripped.so", d);
	snprintf(libhidden_full, sizeof(libhidden_full), "%s/libhidden-full.so", d);
	snprintf(src, sizeof(src), "%s/workload.c", d);
	unit_write_file(src, workload_c);
	unit_sh("gcc -O1 -fPIE -pie -o '%s' '%s'", workload, src);
	snprintf(src, sizeof(src), "%s/adjacent.c", d);
	unit_write_file(src, adjacent_c);
	unit_sh("gcc -O1 -fPIC -shared -falign-functions=1 -fno-toplevel-reorder "
		"-fno-reorder-functions -o '%s' '%s'",
		libadj, src);
	snprintf(src, sizeof(src), "%s/hidden.c", d);
	unit_write_file(src, hidden_c);
	unit_sh("gcc -O1 -fPIC -shared -o '%s' '%s'", libhidden_full, src);
	unit_sh("strip --strip-all -o '%s' '%s'", libstripped, libhidden_full);
	built = 1;
}

static struct symbolizer *new_symbolizer(const char *proc_root)
{
	struct symbolizer_opts opts = {
	    .elf_wait_ns = UNIT_ELF_WAIT_NS,
	    .kallsyms_path = KALLSYMS,
	    .modules_path = MODULES,
	    .proc_root = proc_root,
	};
	struct symbolizer *s = symbolizer__new(&opts);

	assert_non_null(s);
	return s;
}

static void expect_user(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return,
			int status, const char *want)
{
	char buf[256];
	int rc;

	memset(buf, 'X', sizeof(buf));
	rc = symbolizer__user(s, tgid, ip, is_return, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(rc, status);
}

static void expect_kernel(struct symbolizer *s, uint64_t ip, bool is_return, int status,
			  const char *want)
{
	char buf[256];
	int rc;

	memset(buf, 'X', sizeof(buf));
	rc = symbolizer__kernel(s, ip, is_return, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(rc, status);
}

static void test_names_function_in_own_process(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint64_t fn = (uint64_t)(uintptr_t)&symbolizer_test_target;

	(void)state;
	assert_int_equal(symbolizer_test_target(1), 14);
	expect_user(s, (uint32_t)getpid(), fn, false, SYM_NAMED, "symbolizer_test_target");
	expect_user(s, (uint32_t)getpid(), fn + 1, false, SYM_NAMED, "symbolizer_test_target");
	symbolizer__free(s);
}

static void test_names_function_in_live_workload(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint64_t value, size, addr;
	struct child c;

	(void)state;
	build_fixtures();
	nm_symbol(workload, "work_fn", &value, &size);
	child_start(&c, workload);
	addr = live_address(c.pid, workload, file_offset(workload, value));
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	expect_user(s, (uint32_t)c.pid, addr + size - 1, false, SYM_NAMED, "work_fn");
	/* A return address just past the end belongs to work_fn too. */
	expect_user(s, (uint32_t)c.pid, addr + size, true, SYM_NAMED, "work_fn");
	child_stop(&c);
	symbolizer__free(s);
}

static void test_elf_table_shared_between_processes(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	struct symbolizer_stats st;
	uint64_t value, size, off;
	struct child a, b;

	(void)state;
	build_fixtures();
	nm_symbol(workload, "work_fn", &value, &size);
	off = file_offset(workload, value);
	child_start(&a, workload);
	child_start(&b, workload);
	expect_user(s, (uint32_t)a.pid, live_address(a.pid, workload, off), false, SYM_NAMED,
		    "work_fn");
	expect_user(s, (uint32_t)b.pid, live_address(b.pid, workload, off), false, SYM_NAMED,
		    "work_fn");
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 2);
	assert_int_equal(st.elf_files, 1);
	assert_int_equal(st.elf_tables, 1);
	assert_true(st.elf_bytes > 0);
	assert_int_equal(st.maps_reads, 2);
	child_stop(&a);
	child_stop(&b);
	symbolizer__free(s);
}

static void test_deleted_binary_still_named(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	char copy[600], deleted[620];
	uint64_t value, size, addr;
	struct child c;

	(void)state;
	build_fixtures();
	snprintf(copy, sizeof(copy), "%s/workload-deleted", unit_tmpdir());
	unit_sh("cp '%s' '%s'", workload, copy);
	nm_symbol(copy, "work_fn", &value, &size);
	child_start(&c, copy);
	assert_int_equal(unlink(copy), 0);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", copy);
	addr = live_address(c.pid, deleted, file_offset(workload, value));
	/* Only map_files still reaches the file. */
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	child_stop(&c);
	symbolizer__free(s);
}

static void test_stripped_library_gives_module_offset(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint64_t value, size, off, ip;
	void *(*get_hidden)(void);
	char want[600];
	void *h;

	(void)state;
	build_fixtures();
	nm_symbol(libhidden_full, "hidden_fn", &value, &size);
	off = file_offset(libhidden_full, value) + 2;
	h = dlopen(libstripped, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	*(void **)&get_hidden = dlsym(h, "get_hidden");
	assert_non_null(get_hidden);
	ip = (uint64_t)(uintptr_t)get_hidden() + 2;
	snprintf(want, sizeof(want), "libstripped.so+0x%" PRIx64, off);
	expect_user(s, (uint32_t)getpid(), ip, false, SYM_MODULE_OFF, want);
	/* The exported function keeps its name from .dynsym. */
	expect_user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)get_hidden, false, SYM_NAMED,
		    "get_hidden");
	symbolizer__free(s);
	dlclose(h);
}

static void test_is_return_looks_up_previous_byte(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint64_t a_value, a_size, b_value, b_size, b;
	void *h;

	(void)state;
	build_fixtures();
	nm_symbol(libadj, "adj_a", &a_value, &a_size);
	nm_symbol(libadj, "adj_b", &b_value, &b_size);
	assert_int_equal(a_value + a_size, b_value); /* back to back */
	h = dlopen(libadj, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	b = (uint64_t)(uintptr_t)dlsym(h, "adj_b");
	assert_true(b != 0);
	expect_user(s, (uint32_t)getpid(), b, false, SYM_NAMED, "adj_b");
	expect_user(s, (uint32_t)getpid(), b, true, SYM_NAMED, "adj_a");
	expect_user(s, (uint32_t)getpid(), b + 1, true, SYM_NAMED, "adj_b");
	symbolizer__free(s);
	dlclose(h);
}

static void test_unmapped_and_gone(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	pid_t pid;
	int status;

	(void)state;
	expect_user(s, (uint32_t)getpid(), 0x10, false, SYM_UNKNOWN, "[unknown]");
	expect_user(s, (uint32_t)getpid(), 0, true, SYM_UNKNOWN, "[unknown]");
	/* A process that has exited and been reaped. */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	expect_user(s, (uint32_t)pid, (uint64_t)(uintptr_t)&symbolizer_test_target, false,
		    SYM_UNKNOWN, "[unknown]");
	symbolizer__free(s);
}

static void test_anonymous_and_vdso(void **state)
{
	void *anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *data = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	struct symbolizer *s = new_symbolizer(NULL);

	(void)state;
	assert_true(anon != MAP_FAILED && data != MAP_FAILED);
	expect_user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)anon + 16, false, SYM_UNKNOWN,
		    "[anon]");
	expect_user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)data + 16, false, SYM_UNKNOWN,
		    "[unknown]");
	if (vdso)
		expect_user(s, (uint32_t)getpid(), vdso + 16, false, SYM_MODULE_OFF, "[vdso]+0x10");
	symbolizer__free(s);
	munmap(anon, 4096);
	munmap(data, 4096);
}

static void test_maps_reread_at_most_once_per_pass(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint32_t self = (uint32_t)getpid();
	struct symbolizer_stats st;
	void *late;
	uint64_t ip;

	(void)state;
	expect_user(s, self, (uint64_t)(uintptr_t)&symbolizer_test_target, false, SYM_NAMED,
		    "symbolizer_test_target");
	late = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(late != MAP_FAILED);
	ip = (uint64_t)(uintptr_t)late;
	/* Same pass as the first read: the new mapping is not seen. */
	expect_user(s, self, ip, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, 1);
	/* A new pass allows one re-read. */
	symbolizer__begin_pass(s);
	expect_user(s, self, ip, false, SYM_UNKNOWN, "[anon]");
	expect_user(s, self, 0x10, false, SYM_UNKNOWN, "[unknown]");
	expect_user(s, self, 0x20, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, 2);
	/*
	 * The sizes of its mappings changed: a miss in the next pass reads the
	 * maps again. (Unchanged, it would not: test_maps_reread_backs_off,
	 * with a process whose mappings hold still, unlike this one's under
	 * ASan.)
	 */
	munmap(late, 4096);
	late = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(late != MAP_FAILED);
	symbolizer__begin_pass(s);
	expect_user(s, self, 0x10, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, 3);
	assert_int_equal(st.processes, 1);
	symbolizer__free(s);
	munmap(late, 8192);
}

/* Makes "<tmp>/<name>/4242/maps" from @text and returns the proc root in @root. */
static void fake_proc(const char *name, const char *text, char *root, size_t size)
{
	char path[700];

	snprintf(root, size, "%s/%s", unit_tmpdir(), name);
	unit_sh("mkdir -p '%s/4242'", root);
	snprintf(path, sizeof(path), "%s/4242/maps", root);
	unit_write_file(path, text);
}

static void test_fixture_maps_under_other_proc_root(void **state)
{
	char root[600], cmd[800];
	struct symbolizer_stats st;
	struct symbolizer *s;

	(void)state;
	snprintf(root, sizeof(root), "%s/fixture-proc", unit_tmpdir());
	snprintf(cmd, sizeof(cmd), "%s/4242", root);
	unit_sh("mkdir -p '%s' && cp " FIXTURES "/maps.txt '%s/maps'", cmd, cmd);
	s = new_symbolizer(root);
	/* A deleted file that cannot be opened: its base name and file offset. */
	expect_user(s, 4242, 0x7f0000010100, false, SYM_MODULE_OFF, "my lib.so+0x1100");
	expect_user(s, 4242, 0x7f0000020010, false, SYM_MODULE_OFF, "bin ary+0xa010");
	expect_user(s, 4242, 0x7f0000040010, false, SYM_MODULE_OFF, "esc?[31mname+0x10");
	expect_user(s, 4242, 0x7f0000000010, false, SYM_UNKNOWN, "[anon]");
	expect_user(s, 4242, 0x7f0000001010, false, SYM_UNKNOWN, "[unknown]");
	expect_user(s, 4242, 0x55d4c9000010, false, SYM_UNKNOWN, "[unknown]");
	expect_user(s, 4242, 0xffffffffff600000, false, SYM_NAMED, "gettimeofday [vsyscall]");
	expect_user(s, 4242, 0xffffffffff600400, false, SYM_NAMED, "time [vsyscall]");
	expect_user(s, 4242, 0xffffffffff600805, false, SYM_NAMED, "getcpu [vsyscall]");
	expect_user(s, 4242, 0xffffffffff600c00, false, SYM_UNKNOWN, "[vsyscall]");
	expect_user(s, 4242, 0x7f0000005000, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.elf_files, 3); /* three files, none readable: negative entries */
	assert_int_equal(st.elf_tables, 0);
	/* Files that could not be opened are not tried again within the pass. */
	expect_user(s, 4242, 0x7f0000010100, false, SYM_MODULE_OFF, "my lib.so+0x1100");
	symbolizer__stats(s, &st);
	assert_int_equal(st.elf_files, 3);
	/* No process memory to read the vDSO from: at most flametop's own, same size. */
	expect_user(s, 4242, 0x7ffd00102010, false, SYM_MODULE_OFF, "[vdso]+0x10");
	symbolizer__free(s);
}

/* adj_b's file offset in @lib (libadj.so or a copy), the page holding it, and @lib's identity. */
static uint64_t adj_b_offset(const char *lib, uint64_t *pgoff, struct stat *st)
{
	uint64_t value, size, off;

	nm_symbol(lib, "adj_b", &value, &size);
	off = file_offset(lib, value);
	*pgoff = off & ~0xfffULL;
	assert_int_equal(stat(lib, st), 0);
	return off;
}

static void test_file_identity_checked_before_use(void **state)
{
	char root[600], maps[2048];
	uint64_t off, pgoff;
	struct symbolizer *s;
	struct stat st;
	char want[600];

	(void)state;
	build_fixtures();
	off = adj_b_offset(libadj, &pgoff, &st);
	/* The same host file, once with its real identity and once with a wrong inode. */
	snprintf(maps, sizeof(maps),
		 "7f1000000000-7f1000010000 r-xp %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n"
		 "7f2000000000-7f2000010000 r-xp %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n",
		 pgoff, major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino, libadj, pgoff,
		 major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino + 1, libadj);
	fake_proc("identity-proc", maps, root, sizeof(root));
	s = new_symbolizer(root);
	expect_user(s, 4242, 0x7f1000000000 + (off - pgoff), false, SYM_NAMED, "adj_b");
	snprintf(want, sizeof(want), "libadj.so+0x%" PRIx64, off);
	expect_user(s, 4242, 0x7f2000000000 + (off - pgoff), false, SYM_MODULE_OFF, want);
	symbolizer__free(s);
}

/* Through map_files the mapped file is taken even when the device differs (btrfs). */
static void test_map_files_trusted_over_device(void **state)
{
	char root[600], maps[2048], link[800], want[700];
	uint64_t off, pgoff;
	struct symbolizer *s;
	struct stat st;

	(void)state;
	build_fixtures();
	off = adj_b_offset(libadj, &pgoff, &st);
	/* The right inode, another device, and a path that leads nowhere. */
	snprintf(maps, sizeof(maps),
		 "7f1000000000-7f1000010000 r-xp %08" PRIx64 " %02x:%02x %" PRIu64
		 " /nonexistent/libadj.so\n"
		 "7f2000000000-7f2000010000 r-xp %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n",
		 pgoff, major(st.st_dev) + 1, minor(st.st_dev), (uint64_t)st.st_ino, pgoff,
		 major(st.st_dev) + 1, minor(st.st_dev), (uint64_t)st.st_ino, libadj);
	fake_proc("btrfs-proc", maps, root, sizeof(root));
	unit_sh("mkdir -p '%s/4242/map_files'", root);
	snprintf(link, sizeof(link), "%s/4242/map_files/7f1000000000-7f1000010000", root);
	assert_int_equal(symlink(libadj, link), 0);
	s = new_symbolizer(root);
	expect_user(s, 4242, 0x7f1000000000 + (off - pgoff), false, SYM_NAMED, "adj_b");
	symbolizer__free(s);
	/* By path, the device must match too: another device may reuse the inode number. */
	s = new_symbolizer(root);
	snprintf(want, sizeof(want), "libadj.so+0x%" PRIx64, off);
	expect_user(s, 4242, 0x7f2000000000 + (off - pgoff), false, SYM_MODULE_OFF, want);
	symbolizer__free(s);
}

static void test_unopened_file_tried_again_next_pass(void **state)
{
	char root[600], maps[2048], copy[600], away[620], want[700];
	uint64_t off, pgoff, ip;
	struct symbolizer *s;
	struct stat st;

	(void)state;
	build_fixtures();
	snprintf(copy, sizeof(copy), "%s/libadj-late.so", unit_tmpdir());
	snprintf(away, sizeof(away), "%s.away", copy);
	unit_sh("cp '%s' '%s'", libadj, copy);
	off = adj_b_offset(copy, &pgoff, &st);
	snprintf(maps, sizeof(maps),
		 "7f1000000000-7f1000010000 r-xp %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n", pgoff,
		 major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino, copy);
	fake_proc("late-file-proc", maps, root, sizeof(root));
	s = new_symbolizer(root);
	ip = 0x7f1000000000 + (off - pgoff);
	/* The file is away (a filesystem not mounted yet, say): no name. */
	assert_int_equal(rename(copy, away), 0);
	snprintf(want, sizeof(want), "libadj-late.so+0x%" PRIx64, off);
	expect_user(s, 4242, ip, false, SYM_MODULE_OFF, want);
	assert_int_equal(rename(away, copy), 0);
	expect_user(s, 4242, ip, false, SYM_MODULE_OFF, want);
	symbolizer__begin_pass(s);
	expect_user(s, 4242, ip, false, SYM_NAMED, "adj_b");
	symbolizer__free(s);
}

/* flametop's own vDSO, written to a file so that nm can read it. */
static void dump_own_vdso(char *path, size_t size, uint64_t *start)
{
	char line[512];
	unsigned long long a, b;
	FILE *maps = fopen("/proc/self/maps", "r"), *out;

	*start = 0;
	snprintf(path, size, "%s/vdso.so", unit_tmpdir());
	assert_non_null(maps);
	while (fgets(line, sizeof(line), maps)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2)
			*start = a;
	}
	fclose(maps);
	if (!*start)
		return;
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(fwrite((void *)(uintptr_t)a, 1, b - a, out), b - a);
	assert_int_equal(fclose(out), 0);
}

/* The value nm -D gives @name in @bin, or 0. */
static uint64_t nm_dynamic(const char *bin, const char *name)
{
	char cmd[1024];
	unsigned long long v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' | awk '$3 == \"%s\" { print $1 }'",
		 bin, name);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fscanf(p, "%llx", &v) != 1)
		v = 0;
	pclose(p);
	return v;
}

static void test_vdso_functions_named(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	char path[600];
	uint64_t start, value;

	(void)state;
	dump_own_vdso(path, sizeof(path), &start);
	if (!start)
		skip(); /* no vDSO on this system */
	/* The global __vdso_ name wins over its weak alias at the same address. */
	value = nm_dynamic(path, "__vdso_clock_gettime@@LINUX_2.6");
	if (!value)
		value = nm_dynamic(path, "__vdso_clock_gettime");
	assert_true(value != 0);
	expect_user(s, (uint32_t)getpid(), start + value + 1, false, SYM_NAMED,
		    "__vdso_clock_gettime");
	expect_user(s, (uint32_t)getpid(), start + value + 1, true, SYM_NAMED,
		    "__vdso_clock_gettime");
	symbolizer__free(s);
}

static void write_proc_file(const char *root, const char *name, const char *text)
{
	char path[800];

	snprintf(path, sizeof(path), "%s/4242/%s", root, name);
	unit_write_file(path, text);
}

/* A stat line of process 4242 started at @start. */
static void write_stat(const char *root, unsigned long long start)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "4242 (fake) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0\n", start);
	write_proc_file(root, "stat", text);
}

static void test_pid_reuse_starts_new_snapshot(void **state)
{
	char root[600];
	struct symbolizer_stats st;
	struct symbolizer *s;
	uint64_t gen;

	(void)state;
	fake_proc("reuse-proc", "7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n", root,
		  sizeof(root));
	write_stat(root, 100);
	s = new_symbolizer(root);
	expect_user(s, 4242, 0x7f0000000010, false, SYM_UNKNOWN, "[anon]");
	gen = symbolizer__user_gen(s, 4242);
	assert_true(gen != 0);
	/* Another process gets pid 4242. Within the pass nothing is checked again. */
	write_proc_file(root, "maps", "7f0000100000-7f0000101000 r-xp 00000000 00:00 0\n");
	write_stat(root, 200);
	expect_user(s, 4242, 0x7f0000000010, false, SYM_UNKNOWN, "[anon]");
	assert_int_equal(symbolizer__user_gen(s, 4242), gen);
	symbolizer__begin_pass(s);
	expect_user(s, 4242, 0x7f0000100010, false, SYM_UNKNOWN, "[anon]");
	expect_user(s, 4242, 0x7f0000000010, false, SYM_UNKNOWN, "[unknown]");
	assert_true(symbolizer__user_gen(s, 4242) != gen);
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.maps_reads, 2);
	symbolizer__free(s);
}

static void test_generation_follows_maps(void **state)
{
	char root[600];
	struct symbolizer_stats st;
	struct symbolizer *s;
	uint64_t gen;

	(void)state;
	fake_proc("gen-proc", "7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n", root,
		  sizeof(root));
	write_stat(root, 100);
	s = new_symbolizer(root);
	gen = symbolizer__user_gen(s, 4242);
	assert_int_equal(symbolizer__user_gen(s, 4242), gen);
	/* A miss re-reads the maps; the same maps keep the generation. */
	symbolizer__begin_pass(s);
	expect_user(s, 4242, 0x7f0000100010, false, SYM_UNKNOWN, "[unknown]");
	assert_int_equal(symbolizer__user_gen(s, 4242), gen);
	/*
	 * A new mapping read on a miss is a new generation. That re-read found
	 * nothing new: the next one waits a pass more.
	 */
	write_proc_file(root, "maps",
			"7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n"
			"7f0000100000-7f0000101000 r-xp 00000000 00:00 0\n");
	symbolizer__begin_pass(s);
	expect_user(s, 4242, 0x7f0000100010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__begin_pass(s);
	expect_user(s, 4242, 0x7f0000100010, false, SYM_UNKNOWN, "[anon]");
	assert_true(symbolizer__user_gen(s, 4242) != gen);
	/* An empty maps file (an exiting process) keeps the snapshot. */
	gen = symbolizer__user_gen(s, 4242);
	write_proc_file(root, "maps", "");
	symbolizer__begin_pass(s);
	expect_user(s, 4242, 0x10, false, SYM_UNKNOWN, "[unknown]");
	expect_user(s, 4242, 0x7f0000100010, false, SYM_UNKNOWN, "[anon]");
	assert_int_equal(symbolizer__user_gen(s, 4242), gen);
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, 4);
	assert_true(st.proc_bytes > 0);
	symbolizer__free(s);
}

static void test_kernel_reload_on_miss(void **state)
{
	char path[600];
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .modules_path = MODULES};
	struct symbolizer_stats st;
	struct symbolizer *s;
	uint64_t gen;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms-reload", unit_tmpdir());
	unit_sh("cp " KALLSYMS " '%s'", path);
	opts.kallsyms_path = path;
	s = symbolizer__new(&opts);
	assert_non_null(s);
	gen = symbolizer__kernel_gen(s);
	/* The table was read in this pass: a miss does not read it again. */
	expect_kernel(s, 0xffffffffc0100010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 1);
	/* In the next pass it does, once. */
	symbolizer__begin_pass(s);
	expect_kernel(s, 0xffffffffc0100010, false, SYM_UNKNOWN, "[unknown]");
	expect_kernel(s, 0xffffffffc0100010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 2);
	assert_int_equal(symbolizer__kernel_gen(s), gen); /* the same table: nothing changed */
	/* A module is loaded. That reload found nothing new: the next waits two passes. */
	unit_sh("printf 'ffffffffc0100000 t late_fn\\t[late_mod]\\n' >> '%s'", path);
	symbolizer__begin_pass(s);
	expect_kernel(s, 0xffffffffc0100010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 2);
	symbolizer__begin_pass(s);
	expect_kernel(s, 0xffffffffc0100010, false, SYM_NAMED, "late_fn [late_mod]");
	assert_true(symbolizer__kernel_gen(s) != gen);
	expect_kernel(s, 0xffffffff81001010, false, SYM_NAMED, "do_one");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 3);
	/* Hits never reload. */
	symbolizer__begin_pass(s);
	expect_kernel(s, 0xffffffff81001010, false, SYM_NAMED, "do_one");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 3);
	symbolizer__free(s);
}

static void test_kernel_bpf_programs_checked_again(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS, .modules_path = MODULES};
	struct symbolizer_stats st;
	struct symbolizer *s;
	char path[600];

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms-bpf", unit_tmpdir());
	unit_sh("cp " KALLSYMS " '%s'", path);
	opts.kallsyms_path = path;
	s = symbolizer__new(&opts);
	assert_non_null(s);
	expect_kernel(s, 0xffffffffc0020004, false, SYM_NAMED,
		      "bpf_prog_6deef7357e7b4530_sd_fw_ingress [bpf]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 1); /* the table is from this pass */
	/* The program is unloaded and another one lands at its address. */
	unit_sh(
	    "sed -i 's/bpf_prog_6deef7357e7b4530_sd_fw_ingress/bpf_prog_00000000000000ff_newer/' "
	    "'%s'",
	    path);
	symbolizer__begin_pass(s);
	expect_kernel(s, 0xffffffffc0020004, false, SYM_NAMED,
		      "bpf_prog_00000000000000ff_newer [bpf]");
	expect_kernel(s, 0xffffffffc0020008, false, SYM_NAMED,
		      "bpf_prog_00000000000000ff_newer [bpf]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.kernel_loads, 2);
	symbolizer__free(s);
}

/* Copies the workload to @copy, starts it, and returns where work_fn runs in it. */
static uint64_t start_copy(struct child *c, const char *name, char *copy, size_t size)
{
	uint64_t value, fn_size;

	build_fixtures();
	snprintf(copy, size, "%s/%s", unit_tmpdir(), name);
	unit_sh("cp '%s' '%s'", workload, copy);
	nm_symbol(copy, "work_fn", &value, &fn_size);
	child_start(c, copy);
	return live_address(c->pid, copy, file_offset(copy, value));
}

static void test_noted_process_named_after_exit(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	struct symbolizer_stats st;
	char copy[600];
	struct child c;
	uint64_t addr;

	(void)state;
	addr = start_copy(&c, "workload-noted", copy, sizeof(copy));
	assert_int_equal(symbolizer__note_process(s, (uint32_t)c.pid, true, 0), 0);
	symbolizer__stats(s, &st);
	assert_true(st.held_files >= 2); /* the workload, libc, ld.so */
	assert_int_equal(st.elf_tables, 0);
	/* Gone, and its binary deleted: only the file held open still reaches it. */
	assert_int_equal(unlink(copy), 0);
	child_stop(&c);
	symbolizer__begin_pass(s);
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	symbolizer__stats(s, &st);
	assert_int_equal(st.elf_tables, 1);
	symbolizer__free(s);
}

/*
 * A process that ended before it was noted: /proc has nothing left of it.
 * As root, the kernel announced its mappings as it made them (mmap_watch)
 * and they describe it; else it stays unnamed. No maps file is read.
 */
static void test_unnoted_process_after_exit(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	bool announced = geteuid() == 0;
	struct symbolizer_stats st;
	char copy[600];
	struct child c;
	uint64_t addr;

	(void)state;
	addr = start_copy(&c, "workload-unnoted", copy, sizeof(copy));
	child_stop(&c);
	if (announced)
		expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	else
		expect_user(s, (uint32_t)c.pid, addr, false, SYM_UNKNOWN, "[unknown]");
	assert_int_equal(symbolizer__note_process(s, (uint32_t)c.pid, false, 0),
			 announced ? 0 : -ENOENT);
	/* Known gone (no such pid) before /proc was asked: no maps file was opened. */
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, 0);
	assert_true(announced ? st.logged_maps >= 1 : st.logged_maps == 0);
	symbolizer__free(s);
}

/*
 * The path an announced mapping named now names another file (the binary
 * was replaced after the process ended): that file is never read for it.
 * The frame keeps its module and offset.
 */
static void test_announced_path_of_another_file_not_read(void **state)
{
	struct symbolizer *s;
	char copy[600], want[700];
	uint64_t addr, value, size;
	struct child c;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the kernel announces mappings to privileged watchers only */
	s = new_symbolizer(NULL);
	addr = start_copy(&c, "workload-replaced", copy, sizeof(copy));
	nm_symbol(copy, "work_fn", &value, &size);
	snprintf(want, sizeof(want), "workload-replaced+0x%" PRIx64, file_offset(copy, value));
	child_stop(&c);
	/* The same bytes under a new inode: only the identity tells them apart. */
	unit_sh("cp '%s' '%s.new' && mv '%s.new' '%s'", copy, copy, copy, copy);
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_MODULE_OFF, want);
	symbolizer__free(s);
}

/*
 * A miss that re-reading the maps does not mend (an address no mapping
 * holds, as at the end of a stack walked through libc) has the maps read
 * again in the next pass, and then, the sizes of the process's mappings
 * unchanged, not before MAPS_BACKOFF_MAX (64) passes: not every pass.
 * (Where the sizes can't be had, the re-reads back off 2, 4, 8 ... passes:
 * test_generation_follows_maps.)
 */
static void test_maps_reread_backs_off(void **state)
{
	/* maps files read by the end of passes 1 to 20 */
	const uint64_t want[] = { 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	struct symbolizer *s = new_symbolizer(NULL);
	struct symbolizer_stats st;
	char copy[600];
	struct child c;

	(void)state;
	start_copy(&c, "workload-misses", copy, sizeof(copy));
	for (size_t pass = 0; pass < sizeof(want) / sizeof(want[0]); pass++) {
		if (pass)
			symbolizer__begin_pass(s);
		expect_user(s, (uint32_t)c.pid, 0x10, false, SYM_UNKNOWN, "[unknown]");
		symbolizer__stats(s, &st);
		assert_int_equal(st.maps_reads, want[pass]);
	}
	child_stop(&c);
	symbolizer__free(s);
}

static void test_exited_processes_released_after_grace(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint32_t self = (uint32_t)getpid();
	struct symbolizer_stats st;
	char copy[600];
	struct child c;

	(void)state;
	start_copy(&c, "workload-grace", copy, sizeof(copy));
	assert_int_equal(symbolizer__note_process(s, (uint32_t)c.pid, false, 0), 0);
	child_stop(&c);
	for (int i = 0; i < PROC_GRACE_PASSES; i++) {
		symbolizer__begin_pass(s);
		expect_user(s, self, 0x10, false, SYM_UNKNOWN, "[unknown]");
	}
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 2);
	assert_true(st.held_files > 0);
	symbolizer__begin_pass(s);
	expect_user(s, self, 0x10, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 1); /* this one, looked up every pass, stays */
	assert_int_equal(st.held_files, 0);
	symbolizer__free(s);
}

/*
 * A process not looked up for longer than the grace is kept while it runs:
 * sampled again, it is not read again and its names keep their generation
 * (the name cache's are still good). Once it has exited, it goes.
 */
static void test_quiet_process_kept_while_it_runs(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	struct symbolizer_stats st;
	uint64_t addr, gen, reads;
	char copy[600];
	struct child c;

	(void)state;
	addr = start_copy(&c, "workload-quiet", copy, sizeof(copy));
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	gen = symbolizer__user_gen(s, (uint32_t)c.pid);
	symbolizer__stats(s, &st);
	reads = st.maps_reads;
	for (int pass = 0; pass < 3 * PROC_GRACE_PASSES; pass++)
		symbolizer__begin_pass(s);
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 1);
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	assert_int_equal(symbolizer__user_gen(s, (uint32_t)c.pid), gen);
	symbolizer__stats(s, &st);
	assert_int_equal(st.maps_reads, reads);
	child_stop(&c);
	for (int pass = 0; pass <= PROC_GRACE_PASSES; pass++)
		symbolizer__begin_pass(s);
	symbolizer__stats(s, &st);
	assert_int_equal(st.processes, 0);
	symbolizer__free(s);
}

/*
 * A known process is checked once per pass: its start time is read from
 * /proc once, then a pidfd opened just before that read answers whether it
 * still runs; when it has exited the pidfd is closed and nothing is read.
 */
static void test_running_process_checked_by_pidfd(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	struct symbolizer_stats st;
	char copy[600];
	struct child c;
	uint64_t addr, gen;

	(void)state;
	addr = start_copy(&c, "workload-pidfd", copy, sizeof(copy));
	expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	gen = symbolizer__user_gen(s, (uint32_t)c.pid);
	for (int pass = 0; pass < 3; pass++) {
		symbolizer__begin_pass(s);
		expect_user(s, (uint32_t)c.pid, addr, false, SYM_NAMED, "work_fn");
	}
	symbolizer__stats(s, &st);
	assert_int_equal(st.start_reads, 1);
	assert_int_equal(st.pidfds, 1);
	assert_int_equal(symbolizer__user_gen(s, (uint32_t)c.pid), gen);
	child_stop(&c);
	symbolizer__begin_pass(s);
	assert_int_equal(symbolizer__user_gen(s, (uint32_t)c.pid), gen);
	symbolizer__stats(s, &st);
	assert_int_equal(st.start_reads, 1);
	assert_int_equal(st.pidfds, 0);
	symbolizer__free(s);
}

/*
 * A note carries the process's start time: the one /proc gives keeps the
 * entry; another one means the pid was reused, and what was known of it is
 * dropped (its names' generation changes).
 */
static void test_note_start_time_tells_pids_apart(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint32_t self = (uint32_t)getpid();
	uint64_t ticks, ns_per_tick = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK), gen;

	(void)state;
	assert_int_equal(proc_info__start_time("/proc", self, &ticks), 0);
	assert_int_equal(symbolizer__note_process(s, self, false, ticks * ns_per_tick), 0);
	gen = symbolizer__user_gen(s, self);
	assert_int_equal(symbolizer__note_process(s, self, false, ticks * ns_per_tick + 1), 0);
	assert_int_equal(symbolizer__user_gen(s, self), gen);
	assert_int_equal(symbolizer__note_process(s, self, false, (ticks + 500) * ns_per_tick), 0);
	assert_int_not_equal(symbolizer__user_gen(s, self), gen);
	symbolizer__free(s);
}

static void test_open_files_capped(void **state)
{
	struct symbolizer_opts opts = {
	    .elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS, .max_open_files = 2};
	struct symbolizer *s = symbolizer__new(&opts);
	struct symbolizer_stats st;

	(void)state;
	assert_non_null(s);
	/* This test maps far more than two executable files. */
	assert_int_equal(symbolizer__note_process(s, (uint32_t)getpid(), false, 0), 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.held_files, 2);
	expect_user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)&symbolizer_test_target, false,
		    SYM_NAMED, "symbolizer_test_target");
	symbolizer__free(s);
}

/*
 * Out of file descriptors, a file cannot be opened and its functions show
 * as "file+0x...": counted, for the header and the summary to say why; a
 * later pass with descriptors to spare names them.
 */
static void test_out_of_fds_counted(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	uint64_t fn = (uint64_t)(uintptr_t)&symbolizer_test_target;
	uint32_t self = (uint32_t)getpid();
	struct symbolizer_stats st;
	struct rlimit old, none;
	char buf[256];
	int fd;

	(void)state;
	assert_true(symbolizer__in_code(s, self, fn)); /* the maps are read now */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	none = (struct rlimit){.rlim_cur = (rlim_t)fd, .rlim_max = old.rlim_max}; /* no new fd */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	assert_int_equal(symbolizer__user(s, self, fn, false, buf, sizeof(buf)), SYM_MODULE_OFF);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_true(strncmp(buf, "test_symbolizer+0x", 18) == 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.no_fds, 1);
	symbolizer__begin_pass(s);
	expect_user(s, self, fn, false, SYM_NAMED, "symbolizer_test_target");
	symbolizer__stats(s, &st);
	assert_int_equal(st.no_fds, 1);
	symbolizer__free(s);
}

static void test_tables_bounded_by_bytes(void **state)
{
	struct symbolizer_opts opts = {
	    .elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS, .elf_cache_bytes = 1};
	struct symbolizer *s = symbolizer__new(&opts);
	uint64_t own = (uint64_t)(uintptr_t)&symbolizer_test_target, b;
	struct symbolizer_stats st;
	void *h;

	(void)state;
	assert_non_null(s);
	build_fixtures();
	h = dlopen(libadj, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	b = (uint64_t)(uintptr_t)dlsym(h, "adj_b");
	/* Each table evicts the one before; every name is still right. */
	for (int i = 0; i < 3; i++) {
		expect_user(s, (uint32_t)getpid(), own, false, SYM_NAMED, "symbolizer_test_target");
		expect_user(s, (uint32_t)getpid(), b, false, SYM_NAMED, "adj_b");
		symbolizer__stats(s, &st);
		assert_int_equal(st.elf_tables, 1);
		assert_int_equal(st.elf_files, 1);
	}
	symbolizer__free(s);
	dlclose(h);
}

static void test_kernel_names_through_facade(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);

	(void)state;
	assert_false(symbolizer__kernel_hidden(s));
	expect_kernel(s, 0xffffffff81001010, false, SYM_NAMED, "do_one");
	expect_kernel(s, 0xffffffff81001008, false, SYM_NAMED, "do_one");
	expect_kernel(s, 0xffffffffc0001004, false, SYM_NAMED, "mod_a_fn1 [mod_a]");
	expect_kernel(s, 0xffffffffc0020004, false, SYM_NAMED,
		      "bpf_prog_6deef7357e7b4530_sd_fw_ingress [bpf]");
	expect_kernel(s, 0xffffffff81001280, false, SYM_NAMED, "esc?[31mname");
	expect_kernel(s, 0xffffffff81001400, false, SYM_UNKNOWN, "[unknown]");
	expect_kernel(s, 0xffffffffc0003000, false, SYM_UNKNOWN, "[unknown]");
	/* A return address at weak_fn's first byte came from a call in the one before. */
	expect_kernel(s, 0xffffffff81001200, false, SYM_NAMED, "weak_fn");
	expect_kernel(s, 0xffffffff81001200, true, SYM_NAMED, "do_two");
	symbolizer__free(s);
}

static void test_kernel_hidden(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = FIXTURES "/kallsyms_hidden.txt"};
	struct symbolizer *s = symbolizer__new(&opts);

	(void)state;
	assert_non_null(s);
	assert_true(symbolizer__kernel_hidden(s));
	expect_kernel(s, 0xffffffff81001010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__free(s);
}

/* With defer_kernel, the table is read by symbolizer__load_kernel() or at the first lookup. */
static void test_kernel_table_deferred(void **state)
{
	struct symbolizer_opts opts = {
	    .elf_wait_ns = UNIT_ELF_WAIT_NS, .kallsyms_path = KALLSYMS, .defer_kernel = true};
	struct symbolizer_opts missing = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
					  .kallsyms_path = FIXTURES "/no-such-kallsyms",
					  .defer_kernel = true};
	struct symbolizer *s = symbolizer__new(&opts), *m = symbolizer__new(&missing);

	(void)state;
	assert_non_null(s);
	expect_kernel(s, 0xffffffff81001010, false, SYM_NAMED, "do_one");
	assert_int_equal(symbolizer__load_kernel(s), 0);
	symbolizer__free(s);

	s = symbolizer__new(&opts);
	assert_int_equal(symbolizer__load_kernel(s), 0);
	expect_kernel(s, 0xffffffff81001010, false, SYM_NAMED, "do_one");
	symbolizer__free(s);

	assert_non_null(m); /* not read yet, so not failed yet */
	assert_int_equal(symbolizer__load_kernel(m), -ENOENT);
	assert_false(symbolizer__kernel_hidden(m));
	expect_kernel(m, 0xffffffff81001010, false, SYM_UNKNOWN, "[unknown]");
	symbolizer__free(m);
	missing.defer_kernel = false;
	assert_null(symbolizer__new(&missing));
	assert_int_equal(errno, ENOENT);
}

static void test_buffer_sizes(void **state)
{
	struct symbolizer *s = new_symbolizer(NULL);
	char buf[32];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(symbolizer__kernel(s, 0xffffffffc0001004, false, buf, 8), SYM_NAMED);
	assert_string_equal(buf, "mod_a..");
	assert_int_equal(buf[8], 'X');
	assert_int_equal(symbolizer__kernel(s, 0xffffffff81001010, false, buf, 1), SYM_NAMED);
	assert_string_equal(buf, "");
	assert_int_equal(symbolizer__kernel(s, 0xffffffff81001010, false, buf, 0), -EINVAL);
	assert_int_equal(symbolizer__kernel(s, 0xffffffff81001010, false, NULL, 32), -EINVAL);
	assert_int_equal(symbolizer__user(s, (uint32_t)getpid(), 0x10, false, NULL, 32), -EINVAL);
	assert_int_equal(symbolizer__user(s, (uint32_t)getpid(), 0x10, false, buf, 0), -EINVAL);
	assert_int_equal(symbolizer__user(s, (uint32_t)getpid(), 0x10, false, buf, 4), SYM_UNKNOWN);
	assert_string_equal(buf, "[..");
	symbolizer__free(s);
}

static void test_new_fails_without_kallsyms(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = FIXTURES "/no-such-kallsyms-file"};

	(void)state;
	errno = 0;
	assert_null(symbolizer__new(&opts));
	assert_int_equal(errno, ENOENT);
	symbolizer__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_function_in_own_process),
	    cmocka_unit_test(test_names_function_in_live_workload),
	    cmocka_unit_test(test_elf_table_shared_between_processes),
	    cmocka_unit_test(test_deleted_binary_still_named),
	    cmocka_unit_test(test_stripped_library_gives_module_offset),
	    cmocka_unit_test(test_is_return_looks_up_previous_byte),
	    cmocka_unit_test(test_unmapped_and_gone),
	    cmocka_unit_test(test_anonymous_and_vdso),
	    cmocka_unit_test(test_maps_reread_at_most_once_per_pass),
	    cmocka_unit_test(test_maps_reread_backs_off),
	    cmocka_unit_test(test_fixture_maps_under_other_proc_root),
	    cmocka_unit_test(test_file_identity_checked_before_use),
	    cmocka_unit_test(test_map_files_trusted_over_device),
	    cmocka_unit_test(test_unopened_file_tried_again_next_pass),
	    cmocka_unit_test(test_vdso_functions_named),
	    cmocka_unit_test(test_pid_reuse_starts_new_snapshot),
	    cmocka_unit_test(test_generation_follows_maps),
	    cmocka_unit_test(test_kernel_reload_on_miss),
	    cmocka_unit_test(test_kernel_bpf_programs_checked_again),
	    cmocka_unit_test(test_noted_process_named_after_exit),
	    cmocka_unit_test(test_unnoted_process_after_exit),
	    cmocka_unit_test(test_announced_path_of_another_file_not_read),
	    cmocka_unit_test(test_exited_processes_released_after_grace),
	    cmocka_unit_test(test_quiet_process_kept_while_it_runs),
	    cmocka_unit_test(test_running_process_checked_by_pidfd),
	    cmocka_unit_test(test_note_start_time_tells_pids_apart),
	    cmocka_unit_test(test_open_files_capped),
	    cmocka_unit_test(test_out_of_fds_counted),
	    cmocka_unit_test(test_tables_bounded_by_bytes),
	    cmocka_unit_test(test_kernel_names_through_facade),
	    cmocka_unit_test(test_kernel_hidden),
	    cmocka_unit_test(test_kernel_table_deferred),
	    cmocka_unit_test(test_buffer_sizes),
	    cmocka_unit_test(test_new_fails_without_kallsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
