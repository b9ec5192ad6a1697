// SPDX-License-Identifier: GPL-2.0
/*
 * python/: the offset tables against CPython's own headers (build/py_offsets,
 * made by tests/tools/cpython/offsets.sh from each interpreter installed
 * here: an independent source), 3.13's _Py_DebugOffsets as CPython lays it
 * out, the line tables against CPython's own lines (python_linetables.h),
 * the merge, the names of frames, and code objects and interpreter states
 * read from a made-up, often hostile, address space.
 */
#include "tests/unit/unit.h"

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python/code_name.h"
#include "python/frame_names.h"
#include "python/interp.h"
#include "python/linetable.h"
#include "python/merge.h"
#include "python/offsets.h"
#include "tests/unit/python_linetables.h"

#define OFFSETS_DIR "build/py_offsets"

/* The fields of struct py_layout a header file names, by name. */
static const struct {
	const char *name;
	size_t at;
} layout_fields[] = {
#define F(f) { #f, offsetof(struct py_layout, f) }
	F(runtime_interp_head), F(runtime_interp_main), F(interp_next), F(interp_threads), F(interp_id),
	F(interp_code_count), F(ts_next),
	F(ts_interp),
	F(ts_thread_id), F(ts_native_id), F(ts_frame), F(cframe_frame), F(frame_code),
	F(frame_back), F(frame_instr), F(frame_entry), F(frame_owner), F(code_adaptive),
	F(code_filename), F(code_name), F(code_linetable), F(code_firstlineno), F(code_argcount),
	F(code_version),
	F(str_length), F(str_state), F(str_ascii_size), F(str_compact_size), F(bytes_size),
	F(bytes_data),
#undef F
};

static __u16 layout_field(const struct py_layout *l, const char *name)
{
	for (size_t i = 0; i < sizeof(layout_fields) / sizeof(layout_fields[0]); i++)
		if (!strcmp(layout_fields[i].name, name))
			return *(const __u16 *)((const char *)l + layout_fields[i].at);
	fail_msg("struct py_layout has no field %s", name);
	return 0;
}

/* The file of build/py_offsets matching @pattern, or NULL (said why, and the test skipped). */
static char *offsets_file(const char *pattern)
{
	char path[256];
	glob_t g;
	char *found = NULL;

	snprintf(path, sizeof(path), OFFSETS_DIR "/%s.txt", pattern);
	if (glob(path, 0, NULL, &g) == 0 && g.gl_pathc)
		found = strdup(g.gl_pathv[0]);
	globfree(&g);
	if (!found)
		print_message("# no %s: its headers are not installed here (not checked)\n", path);
	return found;
}

/*
 * Compares every "field value" line of @path with @l, and for 3.13 feeds
 * its "debug_offsets" bytes to py_layout__debug_offsets() first; returns
 * how many fields it compared.
 */
static int compare_offsets(const char *path, uint32_t version)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[64];
	struct py_layout l;
	int compared = 0;
	size_t value;

	assert_non_null(f);
	if (version < 0x030d)
		assert_int_equal(py_layout__table(version, &l), 0);
	while (version >= 0x030d && fgets(line, sizeof(line), f)) {
		uint8_t buf[PY_DEBUG_OFFSETS_BYTES] = { 0 };
		uint64_t hexversion;
		size_t n = 0;

		if (strncmp(line, "debug_offsets ", 14))
			continue;
		for (const char *h = line + 14; h[0] && h[1] && h[0] != '\n'; h += 2)
			assert_int_equal(sscanf(h, "%2hhx", &buf[n++]), 1);
		assert_true(n <= sizeof(buf));
		assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &hexversion), 0);
		assert_int_equal(hexversion >> 16, version);
		version = 0; /* found */
	}
	assert_int_not_equal(version, 0x030d);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %zu", name, &value) != 2 || !strcmp(name, "version") ||
		    !strcmp(name, "debug_offsets"))
			continue;
		if (!strcmp(name, "owned_by_cstack")) {
			assert_int_equal(value, PY_OWNED_BY_CSTACK);
			continue;
		}
		if (layout_field(&l, name) != value)
			fail_msg("%s: %s is %zu in CPython's headers, %u in flametop", path, name,
				 value, layout_field(&l, name));
		compared++;
	}
	fclose(f);
	return compared;
}

static void check_offsets(const char *pattern, uint32_t version)
{
	char *path = offsets_file(pattern);

	if (!path)
		skip();
	assert_true(compare_offsets(path, version) >= 20);
	free(path);
}

static void test_offsets_debian_311(void **state)
{
	(void)state;
	check_offsets("debian-3.11", 0x030b);
}

static void test_offsets_pyenv_310(void **state)
{
	(void)state;
	check_offsets("pyenv-3.10.*", 0x030a);
}

static void test_offsets_pyenv_311(void **state)
{
	(void)state;
	check_offsets("pyenv-3.11.*", 0x030b);
}

static void test_offsets_pyenv_312(void **state)
{
	(void)state;
	check_offsets("pyenv-3.12.*", 0x030c);
}

static void test_offsets_pyenv_313(void **state)
{
	(void)state;
	check_offsets("pyenv-3.13.*", 0x030d);
}

/* Sets word @at of a _Py_DebugOffsets to @v. */
static void put_word(uint8_t *buf, size_t at, uint64_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

/*
 * A 3.13 debug offsets block that parses: every struct's size (its first
 * word, at these offsets of _Py_DebugOffsets) 4096, every field at 16.
 */
static void plausible_debug_offsets(uint8_t *buf)
{
	static const size_t struct_at[] = { 24,  48,  152, 224, 272, 352, 368, 400,
					    424, 448, 472, 488, 512, 536, 568 };

	memset(buf, 0, PY_DEBUG_OFFSETS_BYTES);
	memcpy(buf, "xdebugpy", 8);
	put_word(buf, 8, 0x030d00f0);
	for (size_t at = 24; at < 584; at += 8)
		put_word(buf, at, 16);
	for (size_t i = 0; i < sizeof(struct_at) / sizeof(struct_at[0]); i++)
		put_word(buf, struct_at[i], 4096);
	put_word(buf, 560, 40); /* asciiobject_size */
}

/* Puts in @buf's interpreter state the size and fields of 3.13.0's headers. */
static void interp_as_headers(uint8_t *buf)
{
	static const uint64_t fields[] = { 194968, 7272, 7264, 7344, 7400, 7656, 7640, 7648 };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		put_word(buf, 48 + 8 * i, fields[i]);
}

static void test_debug_offsets_hostile(void **state)
{
	uint8_t buf[PY_DEBUG_OFFSETS_BYTES];
	struct py_layout l;
	uint64_t v;

	(void)state;
	plausible_debug_offsets(buf);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.ts_native_id, 16);
	assert_int_equal(l.str_compact_size, 56);
	/* Code objects laid out otherwise than CPython's headers: no co_version trusted. */
	assert_int_equal(l.code_version, PY_OFF_NONE);
	put_word(buf, 280, 112); /* co_filename, co_qualname, co_linetable, co_firstlineno, ... */
	put_word(buf, 296, 128);
	put_word(buf, 304, 136);
	put_word(buf, 312, 68);
	put_word(buf, 320, 52);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.code_version, 92);
	/* Its co_version counter: only in an interpreter state laid out as the headers say. */
	assert_int_equal(l.interp_code_count, PY_OFF_NONE);
	interp_as_headers(buf);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.interp_code_count, 17000);
	put_word(buf, 104, 7656); /* builtins elsewhere */
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.interp_code_count, PY_OFF_NONE);
	interp_as_headers(buf);
	put_word(buf, 48, 194976); /* a bigger interpreter state */
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.interp_code_count, PY_OFF_NONE);
	put_word(buf, 320, 56);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), 0);
	assert_int_equal(l.code_version, PY_OFF_NONE);
	plausible_debug_offsets(buf);
	/* Too short, another cookie, another version, free-threaded. */
	assert_int_equal(py_layout__debug_offsets(buf, 583, &l, &v), -EPROTO);
	buf[0] = 'X';
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	plausible_debug_offsets(buf);
	put_word(buf, 8, 0x030e00a0);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	plausible_debug_offsets(buf);
	put_word(buf, 16, 1);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	/* A field past its struct's size; a frame field past what the walk reads; huge values. */
	plausible_debug_offsets(buf);
	put_word(buf, 232, 4096);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	plausible_debug_offsets(buf);
	put_word(buf, 232, PY_READ_MAX);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	plausible_debug_offsets(buf);
	put_word(buf, 72, UINT64_MAX - 4);
	put_word(buf, 48, UINT64_MAX);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
	plausible_debug_offsets(buf);
	put_word(buf, 560, 1u << 20);
	assert_int_equal(py_layout__debug_offsets(buf, sizeof(buf), &l, &v), -EPROTO);
}

static void check_linetables(const struct lt_case *cases, size_t n)
{
	for (size_t c = 0; c < n; c++) {
		const struct lt_case *k = &cases[c];

		for (size_t r = 0; r < k->nranges; r++) {
			int want = k->ranges[r].line < 0 ? k->firstlineno : k->ranges[r].line;

			for (int off = k->ranges[r].start; off < k->ranges[r].end; off += 2) {
				int got = py_line(k->version, k->table, k->len, k->firstlineno,
						  off / 2);

				if (got != want)
					fail_msg("%x %s: byte %d is at line %d, flametop says %d",
						 k->version, k->name, off, want, got);
			}
		}
		/* Not started yet, past the end: the first line. */
		assert_int_equal(py_line(k->version, k->table, k->len, k->firstlineno, -1),
				 k->firstlineno);
		assert_int_equal(py_line(k->version, k->table, k->len, k->firstlineno, 1 << 30),
				 k->firstlineno);
	}
}

static void test_linetables_310(void **state)
{
	(void)state;
	check_linetables(lt310, sizeof(lt310) / sizeof(lt310[0]));
}

static void test_linetables_311(void **state)
{
	(void)state;
	check_linetables(lt311, sizeof(lt311) / sizeof(lt311[0]));
}

static void test_linetables_312(void **state)
{
	(void)state;
	check_linetables(lt312, sizeof(lt312) / sizeof(lt312[0]));
}

static void test_linetables_313(void **state)
{
	(void)state;
	check_linetables(lt313, sizeof(lt313) / sizeof(lt313[0]));
}

/*
 * Garbage and cut tables: every read stays inside the table (each one in a
 * buffer of exactly its length: a read past it is ASan's), and an
 * instruction past the last entry gets the first line.
 */
static void test_linetable_hostile(void **state)
{
	uint8_t table[64];
	unsigned int seed = 1;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % (sizeof(table) + 1));
		uint8_t *copy = malloc(len ? len : 1);

		for (size_t i = 0; i < len; i++)
			copy[i] = (uint8_t)rand_r(&seed);
		for (int lasti = -1; lasti < 80; lasti++) {
			py_line(0x030a, copy, len, 7, lasti);
			py_line(0x030b, copy, len, 7, lasti);
		}
		/* 3.10's entries cover at most 255 bytes each: past them all, the first line. */
		assert_int_equal(py_line(0x030a, copy, len, 7, 255 * 33), 7);
		free(copy);
	}
	/* A long-form entry of one code unit whose varint's continuation bits never end. */
	table[0] = 0x80 | 14 << 3;
	memset(table + 1, 0x7f, 30);
	assert_int_equal(py_line(0x030c, table, 31, 5, 1), 5); /* no second entry */
	/* An entry of 8 code units at line 5 + 1, then bytes that start no entry. */
	table[0] = 0x80 | 11 << 3 | 7;
	assert_int_equal(py_line(0x030c, table, 31, 5, 7), 6);
	assert_int_equal(py_line(0x030c, table, 31, 5, 8), 5);
	assert_int_equal(py_line(0x030c, NULL, 0, 9, 3), 9);
}

/*
 * The merge of natives @roles (a string: 'e' eval loop, 't' trampoline, else
 * other) and Python frames.
 */
static void merge(const char *roles, bool native_cut, const char *entries, bool py_cut,
		  const char *want)
{
	uint8_t r[64];
	bool e[64];
	struct py_merge_out out[128];
	struct py_merge_in in = { .roles = r, .nnative = (uint32_t)strlen(roles),
				  .native_cut = native_cut, .entry = e,
				  .npy = (uint32_t)strlen(entries), .py_cut = py_cut };
	char got[256] = "";
	uint32_t n;

	for (uint32_t i = 0; i < in.nnative; i++)
		r[i] = roles[i] == 'e' ? PY_NATIVE_EVAL : roles[i] == 't' ? PY_NATIVE_TRAMPOLINE
									: PY_NATIVE_OTHER;
	for (uint32_t i = 0; i < in.npy; i++)
		e[i] = entries[i] == 'E';
	n = py_merge(&in, out);
	for (uint32_t i = 0; i < n; i++) {
		size_t len = strlen(got);

		snprintf(got + len, sizeof(got) - len, "%s%c%u", i ? " " : "",
			 out[i].python ? 'p' : 'n', out[i].index);
	}
	if (strcmp(got, want))
		fail_msg("merge(%s, %s): %s, not %s", roles, entries, got, want);
}

static void test_merge(void **state)
{
	(void)state;
	/* main, eval{outer, middle}, sorted (C), eval{<lambda>}: each run after its eval frame. */
	merge("neoe", false, "EeE", false, "n0 n1 p0 p1 n2 n3 p2");
	/* 3.10: one frame per eval frame. */
	merge("nenene", false, "EEE", false, "n0 n1 p0 n2 n3 p1 n4 n5 p2");
	/* -X perf: the trampolines go once Python frames stand for them ... */
	merge("ntente", false, "EE", false, "n0 n2 p0 n3 n5 p1");
	/* ... and stay without them. */
	merge("ntente", false, "", false, "n0 n1 n2 n3 n4 n5");
	/* Neither cut: from the root; an eval call just begun (the innermost) runs nothing yet. */
	merge("neoeoe", false, "EE", false, "n0 n1 p0 n2 n3 p1 n4 n5");
	/* Native walk cut: from the leaf; the outer run goes first. */
	merge("oeoe", true, "EeEE", false, "p0 p1 n0 n1 p2 n2 n3 p3");
	/* Python walk cut: from the leaf; the outer eval frame keeps no run. */
	merge("eoeoe", false, "eEe", true, "n0 n1 n2 p0 n3 n4 p1 p2");
	/* No eval frame named (a stripped interpreter): the Python frames first. */
	merge("ooo", false, "Ee", false, "p0 p1 n0 n1 n2");
	/* No native frame at all. */
	merge("", true, "EE", false, "p0 p1");
	/* Runs left at the inner end with neither walk cut go after the last pair. */
	merge("oeo", false, "EEE", false, "n0 n1 p0 p1 p2 n2");
}

static void test_frame_names(void **state)
{
	struct py_frame_parts parts;
	const char *n = "Foo.bar.<locals>.<lambda> (/srv/app (v2)/app.py:1234)";
	bool flags;

	(void)state;
	assert_true(py_frame_name_split(n, strlen(n), &parts));
	assert_int_equal(parts.qualname_len, strlen("Foo.bar.<locals>.<lambda>"));
	assert_int_equal(parts.line, 1234);
	assert_int_equal(parts.file_at, strlen("Foo.bar.<locals>.<lambda> ("));
	assert_int_equal(parts.file_len, strlen("/srv/app (v2)/app.py"));
	assert_true(py_frame_name_is_python("<module> (<string>:1)", 21));
	assert_false(py_frame_name_is_python("main", 4));
	assert_false(py_frame_name_is_python("foo(int)", 8));
	assert_false(py_frame_name_is_python("x (:12)", 7));
	assert_false(py_frame_name_is_python(" (a.py:12)", 10));
	assert_false(py_frame_name_is_python("f (a.py:)", 9));
	assert_false(py_frame_name_is_python("f (a.py:12", 10));
	assert_false(py_frame_name_is_python("f (a.py:12345678901)", 20));
	assert_int_equal(py_native_role("_PyEval_EvalFrameDefault"), PY_NATIVE_EVAL);
	assert_int_equal(py_native_role("_PyEval_EvalFrameDefault.cold"), PY_NATIVE_EVAL);
	assert_int_equal(py_native_role("_PyEval_EvalFrameDefaultX"), PY_NATIVE_OTHER);
	assert_int_equal(py_native_role("py::outer:/tmp/app.py"), PY_NATIVE_TRAMPOLINE);
	assert_true(py_frame_is_interpreter("_PyFunction_Vectorcall", NULL));
	assert_true(py_frame_is_interpreter("PyObject_CallOneArg", "libpython3.12.so.1.0"));
	assert_true(py_frame_is_interpreter("main", "python3.11"));
	assert_false(py_frame_is_interpreter("main", "bash"));
	assert_false(py_frame_is_interpreter("builtin_sorted", NULL));
	assert_false(py_frame_is_interpreter("__libc_start_call_main", "libc.so.6"));
	assert_true(py_file_is_python("/usr/lib/python3.11/json/decoder.py"));
	assert_true(py_file_is_python("<frozen importlib._bootstrap>"));
	assert_false(py_file_is_python("/src/main.go"));
	assert_int_equal(py_interp__version_of("python3.11", &flags), 0x030b);
	assert_false(flags);
	assert_int_equal(py_interp__version_of("libpython3.12.so.1.0", &flags), 0x030c);
	assert_int_equal(py_interp__version_of("libpython3.9.so", &flags), 0x0309);
	assert_int_equal(py_interp__version_of("python3", &flags), 0);
	assert_int_equal(py_interp__version_of("python3.11-config", &flags), 0);
	assert_int_equal(py_interp__version_of("libpython3.11.so.x", &flags), 0);
	assert_int_equal(py_interp__version_of("python3.11d", &flags), 0x030b);
	assert_true(flags);
	assert_int_equal(py_interp__version_of("libpython3.13t.so.1.0", &flags), 0x030d);
	assert_true(flags);
}

static void test_interp_find(void **state)
{
	struct proc_map m[3] = {
		{ .start = 0x1000, .end = 0x2000, .perms = MAP_PERM_R | MAP_PERM_X,
		  .kind = MAP_FILE, .path = "/opt/py/bin/python3.12" },
		{ .start = 0x3000, .end = 0x4000, .perms = MAP_PERM_R, .kind = MAP_FILE,
		  .path = "/opt/py/lib/libpython3.12.so.1.0" },
		{ .start = 0x4000, .end = 0x5000, .perms = MAP_PERM_R | MAP_PERM_X,
		  .kind = MAP_FILE, .path = "/opt/py/lib/libpython3.12.so.1.0" },
	};
	struct proc_maps maps = { m, 3 };
	struct py_interp in;

	(void)state;
	assert_int_equal(py_interp__find(&maps, &in), 0);
	assert_ptr_equal(in.map, &m[2]); /* the library's code, not the executable */
	assert_true(in.shared);
	assert_int_equal(in.version, 0x030c);
	maps.n = 1;
	assert_int_equal(py_interp__find(&maps, &in), 0);
	assert_false(in.shared);
	m[0].path = "/usr/bin/bash";
	assert_int_equal(py_interp__find(&maps, &in), -ENOENT);
}

/*
 * Locates the interpreter of this test's own process, which has @path (a
 * libpython3.11.so laid out as tests/fixtures/fake_libpython.c is) loaded,
 * with @c; its _PyRuntime's address, as dlsym() gives it, must come out.
 */
static void locate_own(struct py_interp_cache *c, const char *path, void *handle)
{
	struct proc_maps maps;
	struct py_interp in;
	struct stat st;
	size_t i;

	assert_int_equal(proc_maps__read("/proc", getpid(), &maps), 0);
	assert_int_equal(stat(path, &st), 0);
	for (i = 0; i < maps.n && !(maps.maps[i].inode == st.st_ino &&
				   (maps.maps[i].perms & MAP_PERM_X)); i++)
		;
	assert_true(i < maps.n);
	memset(&in, 0, sizeof(in));
	in.map = &maps.maps[i];
	assert_int_equal(py_interp__locate(c, "/proc", (uint32_t)getpid(), &maps, &in), 0);
	assert_int_equal(in.runtime, (uint64_t)(uintptr_t)dlsym(handle, "_PyRuntime"));
	assert_int_equal(in.hexversion_addr, (uint64_t)(uintptr_t)dlsym(handle, "Py_Version"));
	assert_int_not_equal(in.code_free_off, 0);
	proc_maps__free(&maps);
}

/*
 * What an interpreter's file says is read once and kept by the identity of
 * the file opened: the same file again is not read, a file changed in
 * place (its ctime moves) and a copy of the same bytes (another inode, the
 * same build-id) are.
 */
static void test_interp_files_read_once(void **state)
{
	const char *d = unit_tmpdir();
	char lib[512], copy[512];
	struct py_interp_cache *c = py_interp_cache__new();
	void *h, *h2;

	(void)state;
	assert_non_null(c);
	snprintf(lib, sizeof(lib), "%s/libpython3.11.so", d);
	snprintf(copy, sizeof(copy), "%s/copy/libpython3.11.so", d);
	unit_sh("cc -O2 -shared -fPIC -Wl,--build-id=sha1 -o '%s' tests/fixtures/fake_libpython.c",
		lib);
	unit_sh("mkdir -p '%s/copy' && cp '%s' '%s'", d, lib, copy);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	h2 = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	assert_non_null(h2);
	locate_own(c, lib, h);
	assert_int_equal(py_interp_cache__reads(c), 1);
	locate_own(c, lib, h);
	assert_int_equal(py_interp_cache__reads(c), 1); /* kept */
	usleep(20000); /* a ctime the clock's tick tells apart */
	unit_sh("touch '%s'", lib);
	locate_own(c, lib, h);
	assert_int_equal(py_interp_cache__reads(c), 2);
	locate_own(c, copy, h2);
	assert_int_equal(py_interp_cache__reads(c), 3);
	locate_own(c, copy, h2);
	locate_own(c, lib, h);
	assert_int_equal(py_interp_cache__reads(c), 3);
	dlclose(h2);
	dlclose(h);
	py_interp_cache__free(c);
}

/* A made-up address space: regions of bytes, read all or nothing. */
#define MEM_REGIONS 16

struct fake_mem {
	struct {
		uint64_t addr;
		uint8_t *bytes;
		size_t len;
	} r[MEM_REGIONS];
	int n;
	long reads;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = ctx;

	m->reads++;
	for (int i = 0; i < m->n; i++)
		if (addr >= m->r[i].addr && addr - m->r[i].addr <= m->r[i].len &&
		    len <= m->r[i].len - (addr - m->r[i].addr)) {
			memcpy(buf, m->r[i].bytes + (addr - m->r[i].addr), len);
			return 0;
		}
	return -EFAULT;
}

/* Maps @len zeroed bytes at @addr; returns them. */
static uint8_t *fake_map(struct fake_mem *m, uint64_t addr, size_t len)
{
	assert_true(m->n < MEM_REGIONS);
	m->r[m->n].addr = addr;
	m->r[m->n].bytes = calloc(1, len);
	m->r[m->n].len = len;
	return m->r[m->n++].bytes;
}

static void fake_free(struct fake_mem *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->r[i].bytes);
	m->n = 0;
}

static void put64(uint8_t *at, uint64_t v)
{
	memcpy(at, &v, 8);
}

static void put32(uint8_t *at, uint32_t v)
{
	memcpy(at, &v, 4);
}

/* A compact string of @kind at @at (3.12 layout): @len characters from @text, in that kind. */
static void put_str(uint8_t *at, const struct py_layout *l, uint32_t kind, const char *text,
		    size_t len, bool ascii)
{
	uint32_t state = kind << 2 | PY_STR_COMPACT | (ascii ? PY_STR_ASCII : 0);
	uint8_t *data = at + (ascii ? l->str_ascii_size : l->str_compact_size);

	put64(at + l->str_length, len);
	put32(at + l->str_state, state);
	for (size_t i = 0; i < len; i++) {
		uint32_t c = (uint8_t)text[i];

		if (kind == 2 && text[i] == '*')
			c = 0x263a; /* a smiling face */
		if (kind == 4 && text[i] == '*')
			c = 0x1f40d; /* a snake */
		memcpy(data + i * kind, &c, kind);
	}
}

#define CODE 0x10000
#define NAME 0x20000
#define FILE_ 0x30000
#define TABLE 0x40000

/* A 3.12 code object "outer" of "/tmp/app.py", first line 10, with a line table. */
static void fake_code(struct fake_mem *m, const struct py_layout *l)
{
	uint8_t *code = fake_map(m, CODE, 256), *name = fake_map(m, NAME, 4096),
		*file = fake_map(m, FILE_, 4096), *table = fake_map(m, TABLE, 64);

	put64(code + l->code_name, NAME);
	put64(code + l->code_filename, FILE_);
	put64(code + l->code_linetable, TABLE);
	put32(code + l->code_firstlineno, 10);
	put32(code + l->code_argcount, 2);
	put_str(name, l, 1, "outer", 5, true);
	put_str(file, l, 1, "/tmp/app.py", 11, true);
	/* Two entries: 2 code units at line 10 + 1, 3 at 10 + 2 (one-line forms). */
	put64(table + l->bytes_size, 2);
	table[l->bytes_data] = 0x80 | 11 << 3 | 1;
	table[l->bytes_data + 1] = 0x80 | 11 << 3 | 2;
}

static void test_code_read(void **state)
{
	struct fake_mem m = { .n = 0 };
	struct py_mem mem = { fake_read, &m };
	struct py_layout l;
	struct py_code c;
	char name[PY_FRAME_NAME_MAX];
	uint32_t tag;

	(void)state;
	assert_int_equal(py_layout__table(0x030c, &l), 0);
	fake_code(&m, &l);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	tag = c.tag;
	assert_int_not_equal(tag, 0);
	assert_string_equal(c.qualname, "outer");
	assert_string_equal(c.filename, "/tmp/app.py");
	py_code__frame_name(&c, py_code__line(&c, 0x030c, 3), name, sizeof(name));
	assert_string_equal(name, "outer (/tmp/app.py:12)");
	py_code__frame_name(&c, py_code__line(&c, 0x030c, PY_LASTI_NONE), name, sizeof(name));
	assert_string_equal(name, "outer (/tmp/app.py:10)");
	py_code__free(&c);
	/* The same object read again: the same tag, and the recorded tag accepted. */
	assert_int_equal(py_code__read(&mem, &l, CODE, tag, &c), 0);
	assert_int_equal(c.tag, tag);
	py_code__free(&c);
	/*
	 * Freed, and another made in its place: same addresses, another name of
	 * the same length; another file's text; another first line. Never the
	 * old name: the recorded tag no longer matches.
	 */
	put_str(m.r[1].bytes, &l, 1, "outes", 5, true);
	assert_int_equal(py_code__read(&mem, &l, CODE, tag, &c), -ESTALE);
	put_str(m.r[1].bytes, &l, 1, "outer", 5, true);
	put_str(m.r[2].bytes, &l, 1, "/tmp/app.px", 11, true);
	assert_int_equal(py_code__read(&mem, &l, CODE, tag, &c), -ESTALE);
	put_str(m.r[2].bytes, &l, 1, "/tmp/app.py", 11, true);
	put32(m.r[0].bytes + l.code_firstlineno, 11);
	assert_int_equal(py_code__read(&mem, &l, CODE, tag, &c), -ESTALE);
	put32(m.r[0].bytes + l.code_firstlineno, 10);
	assert_int_equal(py_code__read(&mem, &l, CODE, tag, &c), 0);
	py_code__free(&c);
	fake_free(&m);
}

static void test_code_read_hostile(void **state)
{
	struct fake_mem m = { .n = 0 };
	struct py_mem mem = { fake_read, &m };
	struct py_layout l;
	struct py_code c;
	char ctrl[64], big[3000];

	(void)state;
	assert_int_equal(py_layout__table(0x030c, &l), 0);
	fake_code(&m, &l);
	/* Control bytes and an escape sequence in a name: replaced. */
	snprintf(ctrl, sizeof(ctrl), "evil\033[2J\x07\x7f\r\nname");
	put_str(m.r[1].bytes, &l, 1, ctrl, strlen(ctrl), true);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	for (const char *p = c.qualname; *p; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	assert_non_null(strstr(c.qualname, "evil"));
	py_code__free(&c);
	/* A name of UCS-2 and UCS-4 characters: UTF-8. */
	put_str(m.r[1].bytes, &l, 2, "hi*", 3, false);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	assert_string_equal(c.qualname, "hi\xe2\x98\xba");
	py_code__free(&c);
	put_str(m.r[1].bytes, &l, 4, "*x", 2, false);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	assert_string_equal(c.qualname, "\xf0\x9f\x90\x8dx");
	py_code__free(&c);
	/* A name of a megabyte (its length; its text as far as mapped): cut, never read whole. */
	memset(big, 'a', sizeof(big));
	put_str(m.r[1].bytes, &l, 1, big, sizeof(big) > 4000 ? 4000 : sizeof(big), true);
	put64(m.r[1].bytes + l.str_length, 1 << 20);
	m.reads = 0;
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	assert_true(m.reads < 16);
	assert_true(strlen(c.qualname) <= PY_QUALNAME_MAX);
	assert_int_equal(strcmp(c.qualname + strlen(c.qualname) - 2, ".."), 0);
	py_code__free(&c);
	/* A length of 2^62, a negative one, a kind of 3, a legacy (not compact) string. */
	put64(m.r[1].bytes + l.str_length, 1ULL << 62);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), -EPROTO);
	put64(m.r[1].bytes + l.str_length, (uint64_t)-5);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), -EPROTO);
	put_str(m.r[1].bytes, &l, 3, "abc", 3, false);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), -EPROTO);
	put32(m.r[1].bytes + l.str_state, 1 << 2 | PY_STR_ASCII);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), -EPROTO);
	put_str(m.r[1].bytes, &l, 1, "outer", 5, true);
	/* A line table of a gigabyte: not read, the first line stands. */
	put64(m.r[3].bytes + l.bytes_size, 1 << 30);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), 0);
	assert_null(c.linetable);
	assert_int_equal(py_code__line(&c, 0x030c, 3), 10);
	py_code__free(&c);
	/* Pointers to nowhere: the name, then the code object itself. */
	put64(m.r[0].bytes + l.code_name, 0xdead0000);
	assert_int_equal(py_code__read(&mem, &l, CODE, 0, &c), -EFAULT);
	assert_int_equal(py_code__read(&mem, &l, 0x1234, 0, &c), -EFAULT);
	fake_free(&m);
}

#define RUNTIME 0x100000
#define INTERP 0x200000
#define TSTATE 0x300000

static bool tid_is_ours(void *ctx, uint64_t tid)
{
	return tid == *(uint64_t *)ctx;
}

/* A 3.11 runtime with one interpreter and one thread state, of thread 4242. */
static void fake_runtime(struct fake_mem *m, struct py_proc *p)
{
	uint8_t *rt = fake_map(m, RUNTIME, 4096), *in = fake_map(m, INTERP, 4096),
		*ts = fake_map(m, TSTATE, 4096);

	assert_int_equal(py_layout__table(0x030b, &p->l), 0);
	p->runtime = RUNTIME;
	p->version = 0x030b;
	put64(rt + p->l.runtime_interp_head, INTERP);
	put64(in + p->l.interp_threads, TSTATE);
	put64(ts + p->l.ts_interp, INTERP);
	put64(ts + p->l.ts_native_id, 4242);
}

static void test_layout_check(void **state)
{
	struct fake_mem m = { .n = 0 };
	struct py_mem mem = { fake_read, &m };
	struct py_proc p;
	uint64_t ours = 4242;

	(void)state;
	fake_runtime(&m, &p);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), 0);
	/* A thread state whose thread is not the process's (yet): ask again later. */
	ours = 1;
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EAGAIN);
	ours = 4242;
	/* The back-pointer elsewhere: another layout than the table's. */
	put64(m.r[2].bytes + p.l.ts_interp, INTERP + 8);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EPROTO);
	put64(m.r[2].bytes + p.l.ts_interp, INTERP);
	/* A next interpreter to nowhere; a thread list head to nowhere. */
	put64(m.r[1].bytes + p.l.interp_next, 0xbad000);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EPROTO);
	put64(m.r[1].bytes + p.l.interp_next, 0);
	put64(m.r[1].bytes + p.l.interp_threads, 0xbad000);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EPROTO);
	/* Not started yet: no thread state, then no interpreter. */
	put64(m.r[1].bytes + p.l.interp_threads, 0);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EAGAIN);
	put64(m.r[0].bytes + p.l.runtime_interp_head, 0);
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EAGAIN);
	/* A runtime not mapped. */
	p.runtime = 0x77;
	assert_int_equal(py_layout__check(&mem, &p, tid_is_ours, &ours), -EFAULT);
	fake_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_debian_311),
		cmocka_unit_test(test_offsets_pyenv_310),
		cmocka_unit_test(test_offsets_pyenv_311),
		cmocka_unit_test(test_offsets_pyenv_312),
		cmocka_unit_test(test_offsets_pyenv_313),
		cmocka_unit_test(test_debug_offsets_hostile),
		cmocka_unit_test(test_linetables_310),
		cmocka_unit_test(test_linetables_311),
		cmocka_unit_test(test_linetables_312),
		cmocka_unit_test(test_linetables_313),
		cmocka_unit_test(test_linetable_hostile),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_frame_names),
		cmocka_unit_test(test_interp_find),
		cmocka_unit_test(test_interp_files_read_once),
		cmocka_unit_test(test_code_read),
		cmocka_unit_test(test_code_read_hostile),
		cmocka_unit_test(test_layout_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
