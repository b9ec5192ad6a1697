// SPDX-License-Identifier: GPL-2.0
/*
 * procmaps: the fixture tests/fixtures/maps.txt (13 good lines out of order,
 * then 9 malformed ones), hostile input built at run time, and this
 * process's own maps.
 */
#include "tests/unit/unit.h"

#include <errno.h>

#include "symbols/procmaps.h"

static void parse_fixture(struct proc_maps *pm, size_t *bad)
{
	FILE *f = fopen(FIXTURES "/maps.txt", "r");

	assert_non_null(f);
	assert_int_equal(proc_maps__parse(f, pm, bad), 0);
	fclose(f);
}

/* The mapping that starts at @start; fails the test when there is none. */
static const struct proc_map *at(const struct proc_maps *pm, uint64_t start)
{
	const struct proc_map *m = proc_maps__find(pm, start);

	if (!m || m->start != start)
		fail_msg("no mapping starts at 0x%jx", (uintmax_t)start);
	return m;
}

static void test_counts_good_and_malformed_lines(void **state)
{
	struct proc_maps pm;
	size_t bad = 0, i;

	(void)state;
	parse_fixture(&pm, &bad);
	assert_int_equal(pm.n, 13);
	assert_int_equal(bad, 9);
	for (i = 1; i < pm.n; i++)
		assert_true(pm.maps[i - 1].start < pm.maps[i].start);
	proc_maps__free(&pm);
	assert_int_equal(pm.n, 0);
	assert_null(pm.maps);
	proc_maps__free(&pm);
}

static void test_file_mapping_fields(void **state)
{
	const struct proc_map *m;
	struct proc_maps pm;

	(void)state;
	parse_fixture(&pm, NULL);
	m = at(&pm, 0x55d4c8a02000);
	assert_int_equal(m->end, 0x55d4c8a07000);
	assert_int_equal(m->pgoff, 0x2000);
	assert_int_equal(m->dev_major, 0xfe);
	assert_int_equal(m->dev_minor, 0);
	assert_int_equal(m->inode, 247134);
	assert_int_equal(m->perms, MAP_PERM_R | MAP_PERM_X | MAP_PERM_P);
	assert_int_equal(m->kind, MAP_FILE);
	assert_false(m->deleted);
	assert_string_equal(m->path, "/usr/bin/cat");
	proc_maps__free(&pm);
}

static void test_deleted_file_and_spaces_in_path(void **state)
{
	const struct proc_map *m;
	struct proc_maps pm;

	(void)state;
	parse_fixture(&pm, NULL);
	m = at(&pm, 0x7f0000010000);
	assert_int_equal(m->kind, MAP_FILE);
	assert_true(m->deleted);
	assert_string_equal(m->path, "/tmp/my lib.so");
	assert_int_equal(m->pgoff, 0x1000);
	assert_int_equal(m->dev_major, 8);
	assert_int_equal(m->dev_minor, 1);

	m = at(&pm, 0x7f0000020000);
	assert_false(m->deleted);
	assert_string_equal(m->path, "/opt/dir with spaces/bin ary");
	assert_int_equal(m->perms, MAP_PERM_R | MAP_PERM_X); /* shared: no P */
	assert_int_equal(m->dev_major, 0x103);
	assert_int_equal(m->dev_minor, 2);
	proc_maps__free(&pm);
}

static void test_anonymous_and_special_mappings(void **state)
{
	struct proc_maps pm;

	(void)state;
	parse_fixture(&pm, NULL);
	/* With and without the trailing space the kernel may print. */
	assert_int_equal(at(&pm, 0x7f0000000000)->kind, MAP_ANON);
	assert_string_equal(at(&pm, 0x7f0000000000)->path, "");
	assert_int_equal(at(&pm, 0x7f0000001000)->kind, MAP_ANON);
	assert_string_equal(at(&pm, 0x7f0000001000)->path, "");
	assert_int_equal(at(&pm, 0x55d4c9000000)->kind, MAP_HEAP);
	assert_int_equal(at(&pm, 0x7ffd00000000)->kind, MAP_STACK);
	assert_int_equal(at(&pm, 0x7ffd00102000)->kind, MAP_VDSO);
	assert_int_equal(at(&pm, 0xffffffffff600000)->kind, MAP_VSYSCALL);
	assert_int_equal(at(&pm, 0xffffffffff600000)->perms, MAP_PERM_X | MAP_PERM_P);
	assert_int_equal(at(&pm, 0x7ffd00100000)->kind, MAP_SPECIAL);
	assert_string_equal(at(&pm, 0x7ffd00100000)->path, "[vvar]");
	assert_int_equal(at(&pm, 0x7f0000030000)->kind, MAP_SPECIAL);
	assert_string_equal(at(&pm, 0x7f0000030000)->path, "[anon:x]");
	proc_maps__free(&pm);
}

static void test_path_sanitized(void **state)
{
	struct proc_maps pm;

	(void)state;
	parse_fixture(&pm, NULL);
	assert_string_equal(at(&pm, 0x7f0000040000)->path, "/tmp/esc?[31mname");
	proc_maps__free(&pm);
}

static void test_find_at_edges(void **state)
{
	struct proc_maps pm;

	(void)state;
	parse_fixture(&pm, NULL);
	/* [heap] is [0x55d4c9000000, 0x55d4c9021000), with gaps on both sides. */
	assert_ptr_equal(proc_maps__find(&pm, 0x55d4c9000000), at(&pm, 0x55d4c9000000));
	assert_ptr_equal(proc_maps__find(&pm, 0x55d4c9020fff), at(&pm, 0x55d4c9000000));
	assert_null(proc_maps__find(&pm, 0x55d4c9021000));
	assert_null(proc_maps__find(&pm, 0x55d4c8ffffff));
	/* Adjacent mappings: the end of one is the start of the next. */
	assert_ptr_equal(proc_maps__find(&pm, 0x55d4c8a01fff), at(&pm, 0x55d4c8a00000));
	assert_ptr_equal(proc_maps__find(&pm, 0x55d4c8a02000), at(&pm, 0x55d4c8a02000));
	/* Before the first and after the last. */
	assert_null(proc_maps__find(&pm, 0));
	assert_null(proc_maps__find(&pm, 0x55d4c89fffff));
	assert_ptr_equal(proc_maps__find(&pm, 0xffffffffff600fff), at(&pm, 0xffffffffff600000));
	assert_null(proc_maps__find(&pm, 0xffffffffff601000));
	assert_null(proc_maps__find(&pm, UINT64_MAX));
	proc_maps__free(&pm);
}

static void test_empty_input(void **state)
{
	struct proc_maps pm = {0};
	size_t bad = 7;
	FILE *f = tmpfile();

	(void)state;
	assert_null(proc_maps__find(&pm, 0x1000));
	assert_non_null(f);
	assert_int_equal(proc_maps__parse(f, &pm, &bad), 0);
	fclose(f);
	assert_int_equal(pm.n, 0);
	assert_int_equal(bad, 0);
	assert_null(proc_maps__find(&pm, 0x1000));
	proc_maps__free(&pm);
}

static void test_overlong_and_nul_lines_counted(void **state)
{
	static const char nul_line[] =
	    "7f0000002000-7f0000003000 r-xp 00000000 08:01 7 /nul\0byte\n";
	struct proc_maps pm;
	size_t bad = 0;
	FILE *f = tmpfile();
	int i;

	(void)state;
	assert_non_null(f);
	fputs("7f0000000000-7f0000001000 r-xp 00000000 08:01 5 /before\n", f);
	fputs("7f0000001000-7f0000002000 r-xp 00000000 08:01 6 /", f);
	for (i = 0; i < 200000; i++)
		fputc('x', f);
	fputc('\n', f);
	fwrite(nul_line, 1, sizeof(nul_line) - 1, f);
	fputs("7f0000003000-7f0000004000 r-xp 00000000 08:01 8 /after", f); /* no newline */
	rewind(f);
	assert_int_equal(proc_maps__parse(f, &pm, &bad), 0);
	fclose(f);
	assert_int_equal(pm.n, 2);
	assert_int_equal(bad, 2);
	assert_string_equal(pm.maps[0].path, "/before");
	assert_string_equal(pm.maps[1].path, "/after");
	proc_maps__free(&pm);
}

static void test_random_garbage_never_crashes(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	struct proc_maps pm;
	size_t bad = 0;
	FILE *f = tmpfile();
	int i;

	(void)state;
	assert_non_null(f);
	for (i = 0; i < 1 << 18; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fputc((int)(x >> 56) % 97 == 0 ? '\n' : (int)(x >> 56), f);
	}
	rewind(f);
	assert_int_equal(proc_maps__parse(f, &pm, &bad), 0);
	fclose(f);
	assert_int_equal(pm.n, 0);
	assert_true(bad > 100);
	proc_maps__free(&pm);
}

/* A function of this test, to be found in its own maps. */
static int __attribute__((noinline)) own_function(int x)
{
	return x * 7;
}

static void test_read_own_maps(void **state)
{
	uint64_t fn = (uint64_t)(uintptr_t)&own_function;
	const struct proc_map *m;
	struct proc_maps pm;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(own_function(1), 7);
	assert_int_equal(proc_maps__read("/proc", getpid(), &pm), 0);
	assert_true(pm.n > 3);
	m = proc_maps__find(&pm, fn);
	assert_non_null(m);
	assert_int_equal(m->kind, MAP_FILE);
	assert_true(m->perms & MAP_PERM_X);
	assert_true(m->inode != 0);
	assert_string_equal(m->path, exe);
	proc_maps__free(&pm);
}

static void test_read_missing_process(void **state)
{
	struct proc_maps pm;

	(void)state;
	assert_int_equal(proc_maps__read("/proc", -5, &pm), -ENOENT);
	assert_int_equal(pm.n, 0);
	assert_int_equal(proc_maps__read(FIXTURES "/no-such-proc", 1, &pm), -ENOENT);
	proc_maps__free(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts_good_and_malformed_lines),
	    cmocka_unit_test(test_file_mapping_fields),
	    cmocka_unit_test(test_deleted_file_and_spaces_in_path),
	    cmocka_unit_test(test_anonymous_and_special_mappings),
	    cmocka_unit_test(test_path_sanitized),
	    cmocka_unit_test(test_find_at_edges),
	    cmocka_unit_test(test_empty_input),
	    cmocka_unit_test(test_overlong_and_nul_lines_counted),
	    cmocka_unit_test(test_random_garbage_never_crashes),
	    cmocka_unit_test(test_read_own_maps),
	    cmocka_unit_test(test_read_missing_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
