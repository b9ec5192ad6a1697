// SPDX-License-Identifier: GPL-2.0
/*
 * The annotate view's readers: paths made whole, DWARF line tables (this
 * test's own, compiled -O2 -g: its functions' lines are known by
 * __LINE__), instructions decoded with capstone, source text read only
 * from regular files and as the process could, and the annotation of a
 * function made from its sites, with and without line information.
 */
#include "tests/unit/unit.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <sys/sysmacros.h>

#include "symbols/annotate.h"
#include "symbols/disasm.h"
#include "symbols/elffile.h"
#include "symbols/line_table.h"
#include "symbols/source_text.h"

#define PATH_BYTES 512 /* room for this test's paths, with unit_sh()'s commands */

static const int marked_first = __LINE__ + 2;
__attribute__((noinline, noclone)) unsigned long marked(unsigned long n)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < n; i++) x = x * x + i; /* MARK */
	return x;
}
static const int marked_last = __LINE__ - 1;
static const int marked_loop = __LINE__ - 4;

/* Is @line one of marked()'s? */
static bool in_marked(uint32_t line)
{
	return (int)line >= marked_first && (int)line <= marked_last;
}

static void test_path_normalize(void **state)
{
	static const char *const cases[][2] = {
		{ "/a/./b/../c", "/a/c" },	  { "./stdlib/msort.c", "stdlib/msort.c" },
		{ "a//b/", "a/b" },		  { "/../../etc/x", "/etc/x" },
		{ "../x/../y", "../y" },	  { "a/../../b", "../b" },
		{ "/", "/" },			  { ".", "" },
		{ "a/b/c/../../d", "a/d" },
		{ "/build/g/string/../sysdeps/m.S", "/build/g/sysdeps/m.S" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[PATH_MAX];

		snprintf(buf, sizeof(buf), "%s", cases[i][0]);
		path__normalize(buf);
		if (strcmp(buf, cases[i][1]))
			fail_msg("%s: %s, not %s", cases[i][0], buf, cases[i][1]);
	}
}

/* The load bias of this program (its addresses minus its ELF virtual addresses). */
static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	*(uintptr_t *)ctx = info->dlpi_addr;
	return 1;
}

static uint64_t own_vaddr(const void *p)
{
	uintptr_t bias = 0;

	dl_iterate_phdr(first_object, &bias);
	return (uint64_t)(uintptr_t)p - bias;
}

/* The size of function @name of this program, as nm says. */
static uint64_t nm_size(const char *name)
{
	char cmd[256], line[256];
	unsigned long long addr, size = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S /proc/%d/exe", (int)getpid());
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char sym[128];

		if (sscanf(line, "%llx %llx %*s %127s", &addr, &size, sym) == 3 &&
		    !strcmp(sym, name))
			break;
		size = 0;
	}
	pclose(p);
	assert_true(size > 0);
	return size;
}

/* This test's own line table, for marked(): its rows are its lines. */
static void test_line_table(void **state)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct elf_file *f = elf_file__open_fd(fd, true);
	Dwarf *dw = dwarf_begin_elf(elf_file__elf(f), DWARF_C_READ, NULL);
	uint64_t lo = own_vaddr((const void *)marked);
	const struct line_row *r;
	struct line_table t;
	bool loop = false;

	(void)state;
	assert_non_null(dw);
	assert_int_equal(line_table__read(dw, lo, lo + nm_size("marked"), &t), 0);
	assert_true(t.n > 0);
	assert_int_equal(t.rows[0].addr, lo);
	for (size_t i = 0; i < t.n; i++) {
		if (t.rows[i].file == LINE_NO_FILE)
			continue;
		assert_true(strstr(t.files[t.rows[i].file], "tests/unit/test_annotate.c") != NULL);
		/* made whole with the unit's directory */
		assert_true(t.files[t.rows[i].file][0] == '/');
		assert_true(in_marked(t.rows[i].line));
		loop |= (int)t.rows[i].line == marked_loop;
		if (i)
			assert_true(t.rows[i].addr > t.rows[i - 1].addr);
	}
	assert_true(loop);
	r = line_table__find(&t, lo);
	assert_non_null(r);
	assert_null(line_table__find(&t, lo - 1));
	line_table__free(&t);
	/* No unit holds an address past the program. */
	assert_int_equal(line_table__read(dw, 0xfffffff000, 0xfffffff100, &t), -ENOENT);
	dwarf_end(dw);
	elf_file__close(f);
}

static void test_disasm(void **state)
{
	/* imul %rdx,%rdx; a byte no x86-64 instruction starts with; ret */
	static const uint8_t code[] = { 0x48, 0x0f, 0xaf, 0xd2, 0x06, 0xc3 };
	struct disasm_insn *in;
	long n = disasm__decode(code, sizeof(code), 0x1000, &in);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(in[0].addr, 0x1000);
	assert_int_equal(in[0].len, 4);
	assert_string_equal(in[0].text, "imulq  %rdx, %rdx");
	assert_int_equal(in[1].addr, 0x1004);
	assert_string_equal(in[1].text, "(bad)");
	assert_int_equal(in[2].addr, 0x1005);
	assert_string_equal(in[2].text, "retq");
	free(in);
}

/* A source file's lines @lines (@n) read as @pl says, into @texts; returns the error. */
static int read_lines(const struct source_place *pl, const char *path, const uint32_t *lines,
		      size_t n, char **texts, struct source_file *sf)
{
	return source_file__read(pl, path, lines, n, texts, sf);
}

static void free_texts(char **texts, size_t n, struct source_file *sf)
{
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	source_file__free(sf);
}

/* Reads line 1 of @path (as root, in the host's root) and says why it was not read. */
static const char *why_not(const char *path)
{
	static const struct proc_creds root = { 0 };
	const struct source_place pl = { .creds = &root, .root_fd = -1 };
	const uint32_t one = 1;
	struct source_file sf;
	char *text;
	const char *why;

	assert_true(read_lines(&pl, path, &one, 1, &text, &sf) < 0);
	assert_null(text);
	why = sf.why;
	source_file__free(&sf);
	return why;
}

/* Only regular files are opened: a directory, a FIFO, a device are looked at. */
static void test_source_not_regular(void **state)
{
	char dir[PATH_MAX], fifo[PATH_MAX];
	pid_t writer;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/a_dir", unit_tmpdir());
	snprintf(fifo, sizeof(fifo), "%s/a_fifo", unit_tmpdir());
	assert_int_equal(mkdir(dir, 0755), 0);
	writer = unit_fifo_writer(fifo);
	assert_string_equal(why_not(dir), "not a regular file");
	assert_string_equal(why_not(fifo), "not a regular file");
	assert_string_equal(why_not("/dev/zero"), "not a regular file");
	assert_false(unit_fifo_opened(writer));
	assert_string_equal(why_not("/nonexistent/x.c"),
			    "not found (--source-dir adds a place to look)");
}

/* Lines asked for, past the end, cut, with tabs and control bytes. */
static void test_source_lines(void **state)
{
	static const struct proc_creds root = { 0 };
	const struct source_place pl = { .creds = &root, .root_fd = -1 };
	const uint32_t want[] = { 1, 2, 3, 9 };
	char path[PATH_MAX], long_line[2000], *texts[4];
	struct source_file sf;

	(void)state;
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/lines.c", unit_tmpdir());
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f, "\tint x;\r\nred \033[31mRED\033[0m \302\233 bidi \342\200\256!\n%s",
			long_line);
		fclose(f);
	}
	assert_int_equal(read_lines(&pl, path, want, 4, texts, &sf), 0);
	assert_null(sf.why);
	assert_string_equal(texts[0], "        int x;");
	assert_string_equal(texts[1], "red ?[31mRED?[0m ? bidi ?!");
	/* cut, the file's last line, without a newline */
	assert_int_equal(strlen(texts[2]), SOURCE_LINE_MAX);
	assert_null(texts[3]); /* past the end */
	assert_int_equal(sf.nlines, 3);
	assert_string_equal(sf.found, path);
	free_texts(texts, 4, &sf);
}

/* A huge file is read as far as SOURCE_MAX_BYTES, and says so. */
static void test_source_huge(void **state)
{
	static const struct proc_creds root = { 0 };
	const struct source_place pl = { .creds = &root, .root_fd = -1 };
	const uint32_t want[] = { 1, 3 };
	char path[PATH_MAX], *texts[2];
	struct source_file sf;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge.c", unit_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "one\n", 4), 4);
	assert_int_equal(ftruncate(fd, 4ll << 30), 0); /* 4 GiB, sparse, one line */
	close(fd);
	assert_int_equal(read_lines(&pl, path, want, 2, texts, &sf), 0);
	assert_string_equal(texts[0], "one");
	assert_null(texts[1]);
	assert_string_equal(sf.why, "read only as far as its first 16 MiB");
	free_texts(texts, 2, &sf);
}

/* As the process: a file it may not read is not read; a process gone reads nothing of its own. */
static void test_source_as_process(void **state)
{
	static const struct proc_creds nobody = { .uid = 65534, .gid = 65534 };
	const struct source_place as_nobody = { .creds = &nobody, .root_fd = -1 };
	const struct source_place gone = { .creds = NULL, .root_fd = -1 };
	const uint32_t one = 1;
	char path[PATH_MAX], *text;
	struct source_file sf;

	(void)state;
	if (geteuid() != 0) {
		skip(); /* taking another's credentials needs root (CI runs as root) */
		return;
	}
	snprintf(path, sizeof(path), "%s/secret.c", unit_tmpdir());
	unit_write_file(path, "secret\n");
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(chmod(unit_tmpdir(), 0755), 0);
	assert_int_equal(read_lines(&as_nobody, path, &one, 1, &text, &sf), -EACCES);
	assert_string_equal(sf.why, "not readable as the process");
	assert_null(text);
	source_file__free(&sf);
	assert_int_equal(read_lines(&gone, path, &one, 1, &text, &sf), -ESRCH);
	assert_string_equal(sf.why, "the process has exited: its files are not read");
	source_file__free(&sf);
}

/*
 * --source-dir: the path under the directory, then less its first
 * components; never above the directory, a symlink out of it included.
 */
static void test_source_dirs(void **state)
{
	static const struct proc_creds root = { 0 };
	char dir[PATH_BYTES], *text;
	const char *dirs[1] = { dir };
	const struct source_place pl = { .creds = &root, .root_fd = -1, .dirs = dirs, .ndirs = 1 };
	const uint32_t one = 1;
	struct source_file sf;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/glibc", unit_tmpdir());
	unit_sh("mkdir -p '%s/stdlib' && echo 'msort line' >'%s/stdlib/msort.c'", dir, dir);
	unit_sh("echo 'outside' >'%s/outside.c' && ln -s ../outside.c '%s/stdlib/link.c'",
		unit_tmpdir(), dir);
	unit_sh("ln -s '%s/outside.c' '%s/stdlib/abs.c'", unit_tmpdir(), dir);
	assert_int_equal(read_lines(&pl, "stdlib/msort.c", &one, 1, &text, &sf), 0);
	assert_string_equal(text, "msort line");
	free_texts(&text, 1, &sf);
	/* The build's own directory in front of it: taken away. */
	assert_int_equal(read_lines(&pl, "/build/glibc-x/stdlib/msort.c", &one, 1, &text, &sf), 0);
	assert_string_equal(text, "msort line");
	free_texts(&text, 1, &sf);
	/* ".." and symlinks stay inside the directory. */
	assert_true(read_lines(&pl, "../outside.c", &one, 1, &text, &sf) < 0);
	assert_null(text);
	source_file__free(&sf);
	assert_true(read_lines(&pl, "stdlib/link.c", &one, 1, &text, &sf) < 0);
	assert_null(text);
	source_file__free(&sf);
	assert_true(read_lines(&pl, "stdlib/abs.c", &one, 1, &text, &sf) < 0);
	assert_null(text);
	source_file__free(&sf);
}

/* A request for a function of file @path, mapped by no process: its sites at file offsets. */
static void file_request(struct annotate_request *req, const char *path, uint64_t at,
			 struct annotate_site *sites, size_t n)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	*req = (struct annotate_request){
		.function = "f",
		.module = { .space = SPACE_FILE, .tgid = getpid(), .dev = st.st_dev,
			    .inode = st.st_ino, .start = 1, .end = 2, .path = path },
		.at = at,
		.sites = sites,
		.nsites = n,
		.proc_root = "/proc",
		.debug_root = "/nonexistent",
	};
}

/* This program's path, into @buf. */
static void own_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	assert_true(n > 0);
	buf[n] = '\0';
}

/* The file offset of marked()'s address @p: in this test, offsets are virtual addresses. */
static uint64_t own_offset(const void *p)
{
	return own_vaddr(p); /* PIE text: p_offset == p_vaddr (checked by readelf below) */
}

/* marked(), annotated from its sites: its loop's line holds them, its instructions too. */
static void test_annotate_own_function(void **state)
{
	char exe[PATH_BYTES];
	uint64_t at = own_offset((const void *)marked);
	struct annotate_site sites[3] = {
		{ .addr = at + 8, .self = 30, .own = true },
		{ .addr = at + 12, .calls = 10, .own = true },
		{ .addr = 0xffffff, .self = 5, .own = true }, /* outside the function */
	};
	struct annotate_cache *cache = annotate_cache__new();
	struct annotate_request req;
	struct annotation a;
	uint64_t placed = 0;

	(void)state;
	own_exe(exe, sizeof(exe));
	unit_sh("readelf -lW '%s' | awk '$1 == \"LOAD\" && $6 ~ /E/ { exit !($2 == $3) }'", exe);
	file_request(&req, exe, at, sites, 3);
	assert_int_equal(annotate__run(cache, &req, &a), 0);
	assert_string_equal(a.function, "f");
	assert_string_equal(a.object, exe);
	assert_int_equal(strlen(a.build_id), 40);
	assert_true(a.has_lines);
	assert_int_equal(a.start, at);
	assert_int_equal(a.self, 35);
	assert_int_equal(a.calls, 10);
	assert_int_equal(a.outside, 5);
	assert_true(a.ninsns > 2);
	for (size_t i = 0; i < a.nlines; i++) {
		assert_true(in_marked(a.lines[i].line));
		placed += a.lines[i].self + a.lines[i].calls;
		if (a.lines[i].line == (uint32_t)marked_loop)
			assert_non_null(strstr(a.lines[i].text, "/* MARK */"));
	}
	assert_int_equal(placed + a.no_line, 40);
	annotation__free(&a);
	/* Again, from the cache: the same. */
	assert_int_equal(annotate__run(cache, &req, &a), 0);
	assert_int_equal(a.self, 35);
	annotation__free(&a);
	annotate_cache__free(cache);
}

/* A stripped file, no debug file: its instructions, by its unwind entry's extent; why no lines. */
static void test_annotate_stripped(void **state)
{
	char exe[PATH_BYTES], stripped[PATH_BYTES];
	uint64_t at = own_offset((const void *)marked);
	struct annotate_site site = { .addr = at + 8, .self = 3, .own = true };
	struct annotate_cache *cache = annotate_cache__new();
	struct annotate_request req;
	struct annotation a;

	(void)state;
	own_exe(exe, sizeof(exe));
	snprintf(stripped, sizeof(stripped), "%s/stripped", unit_tmpdir());
	unit_sh("strip --strip-all -o '%s' '%s'", stripped, exe);
	file_request(&req, stripped, at, &site, 1);
	assert_int_equal(annotate__run(cache, &req, &a), 0);
	assert_false(a.has_lines);
	assert_int_equal(a.nlines, 0);
	assert_non_null(strstr(a.lines_note, "is stripped, and no debug file was found"));
	assert_int_equal(a.start, at); /* .eh_frame's entry starts where the symbol did */
	assert_true(a.ninsns > 2);
	assert_int_equal(a.self, 3);
	assert_int_equal(a.no_line, 3);
	annotation__free(&a);
	annotate_cache__free(cache);
}

/* Where nothing says where the function lies: its addresses alone, with their counts. */
static void test_annotate_addresses_alone(void **state)
{
	char exe[PATH_BYTES], stripped[PATH_BYTES];
	struct annotate_site sites[2] = {
		{ .addr = 0x20, .self = 3, .own = true }, /* in the ELF header: no function */
		{ .addr = 0x40, .calls = 2, .own = true },
	};
	struct annotate_cache *cache = annotate_cache__new();
	struct annotate_request req;
	struct annotation a;

	(void)state;
	own_exe(exe, sizeof(exe));
	snprintf(stripped, sizeof(stripped), "%s/stripped2", unit_tmpdir());
	unit_sh("strip --strip-all -o '%s' '%s'", stripped, exe);
	file_request(&req, stripped, 0x20, sites, 2);
	assert_int_equal(annotate__run(cache, &req, &a), 0);
	assert_string_equal(a.insns_note, "no symbol table, unwind entry or perf map says where the "
					  "function lies: its addresses alone");
	assert_int_equal(a.ninsns, 2);
	assert_int_equal(a.insns[0].addr, 0x20);
	assert_string_equal(a.insns[0].text, "");
	assert_int_equal(a.insns[0].self, 3);
	assert_int_equal(a.insns[1].calls, 2);
	assert_int_equal(a.self + a.calls, 5);
	assert_int_equal(a.outside, 0);
	annotation__free(&a);
	annotate_cache__free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test(test_line_table),
		cmocka_unit_test(test_disasm),
		cmocka_unit_test(test_source_not_regular),
		cmocka_unit_test(test_source_lines),
		cmocka_unit_test(test_source_huge),
		cmocka_unit_test(test_source_as_process),
		cmocka_unit_test(test_source_dirs),
		cmocka_unit_test(test_annotate_own_function),
		cmocka_unit_test(test_annotate_stripped),
		cmocka_unit_test(test_annotate_addresses_alone),
	};

	if (marked(1) == 0) /* keeps marked() in the program, called */
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
