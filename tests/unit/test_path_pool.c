// SPDX-License-Identifier: GPL-2.0
/*
 * path_pool: one copy per path, found by its bytes, counted, freed with
 * its last reference (the ASan build of this test finds one kept too long
 * or freed too soon).
 */
#include "tests/unit/unit.h"

#include <stdio.h>
#include <string.h>

#include "symbols/path_pool.h"

static void test_one_copy_per_path(void **state)
{
	struct path_pool *pp = path_pool__new();
	char buf[] = "/usr/lib/x86_64-linux-gnu/libc.so.6 and more";
	const char *a, *b, *c, *d;

	(void)state;
	assert_non_null(pp);
	a = path_pool__get(pp, "/usr/lib/x86_64-linux-gnu/libc.so.6", 35);
	b = path_pool__get(pp, buf, 35); /* the same bytes, not NUL-terminated there */
	c = path_pool__get(pp, "/usr/bin/bash", 13);
	d = path_pool__get(pp, "", 0);
	assert_ptr_equal(a, b);
	assert_string_equal(a, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "/usr/bin/bash");
	assert_string_equal(d, "");
	assert_int_equal(path_pool__count(pp), 3);
	path_pool__put(pp, a);
	assert_int_equal(path_pool__count(pp), 3); /* b still holds it */
	assert_string_equal(b, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	path_pool__put(pp, b);
	path_pool__put(pp, c);
	path_pool__put(pp, d);
	path_pool__put(pp, NULL);
	assert_int_equal(path_pool__count(pp), 0);
	path_pool__free(pp);
}

/* Paths that differ in their last byte only, or in their length only, are two copies. */
static void test_near_paths_differ(void **state)
{
	struct path_pool *pp = path_pool__new();
	const char *x = path_pool__get(pp, "/tmp/lib1.so", 12), *y = path_pool__get(pp, "/tmp/lib2.so", 12),
		   *z = path_pool__get(pp, "/tmp/lib1.so", 11);

	(void)state;
	assert_ptr_not_equal(x, y);
	assert_ptr_not_equal(x, z);
	assert_string_equal(z, "/tmp/lib1.s");
	path_pool__put(pp, x);
	path_pool__put(pp, y);
	path_pool__put(pp, z);
	path_pool__free(pp);
}

/* References from get and ref alike; a copy freed is made again on its next use. */
static void test_counts_and_reuse(void **state)
{
	struct path_pool *pp = path_pool__new();
	const char *refs[200];
	char name[32];

	(void)state;
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "/opt/app/lib%d.so", i / 2 % 50);
		refs[i] = i % 2 ? path_pool__ref(refs[i - 1]) : path_pool__get(pp, name, strlen(name));
	}
	assert_int_equal(path_pool__count(pp), 50);
	for (int i = 0; i < 200; i++)
		path_pool__put(pp, refs[i]);
	assert_int_equal(path_pool__count(pp), 0);
	refs[0] = path_pool__get(pp, "/opt/app/lib0.so", 16);
	assert_string_equal(refs[0], "/opt/app/lib0.so");
	assert_int_equal(path_pool__count(pp), 1);
	path_pool__put(pp, refs[0]);
	path_pool__free(pp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_copy_per_path),
	    cmocka_unit_test(test_near_paths_differ),
	    cmocka_unit_test(test_counts_and_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
