// SPDX-License-Identifier: GPL-2.0
/*
 * demangle: C++ and Rust names as c++filt shows them, raw names kept on
 * request, and hostile names (deep, long, with control bytes) handled.
 */
#include "tests/unit/unit.h"

#include "symbols/demangle.h"
#include "symbols/sanitize.h"

static void expect(const char *raw, bool keep_raw, const char *want)
{
	char buf[NAME_MAX_BYTES + 1];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = demangle_name(buf, sizeof(buf), raw, keep_raw);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_cxx(void **state)
{
	(void)state;
	expect("_ZN6shapes7SpinnerIlE4spinEl", false, "shapes::Spinner<long>::spin(long)");
	expect("_ZN5Outer5InnerIJiEE3runIcEEvT_", false, "void Outer::Inner<int>::run<char>(char)");
	expect("_ZNK3foo3barEv", false, "foo::bar() const");
	expect("_Z1fv", false, "f()");
	expect("_ZZ4mainE1x", false, "main::x");
}

/* "@plt" and a compatibility version stay after the demangled name, as perf shows them. */
static void test_suffix_after_at(void **state)
{
	(void)state;
	expect("_Znwm@plt", false, "operator new(unsigned long)@plt");
	expect("_ZdlPv@GLIBCXX_3.4", false, "operator delete(void*)@GLIBCXX_3.4");
	expect("_Znwm@plt", true, "_Znwm@plt");
	expect("strlen@plt", false, "strlen@plt");
	expect("_Zq@plt", false, "_Zq@plt"); /* looks mangled, is not: kept whole */
}

static void test_rust(void **state)
{
	(void)state;
	/* Legacy: the hash at the end is dropped. */
	expect("_ZN3std2io5stdio6_print17h0123456789abcdefE", false, "std::io::stdio::_print");
	/* v0 */
	expect("_RNvCs1234_7mycrate3foo", false, "mycrate::foo");
	expect("_RNvMs_NtCs4fqI2P2rA04_7mycrate3barNtB4_3Baz3new", false,
	       "<mycrate::bar::Baz>::new");
}

static void test_plain_and_raw(void **state)
{
	(void)state;
	expect("main", false, "main");
	expect("__libc_start_main", false, "__libc_start_main");
	expect("_Zq", false, "_Zq"); /* looks mangled, is not */
	expect("_R", false, "_R");
	expect("_", false, "_");
	expect("", false, "");
	expect("_ZN6shapes7SpinnerIlE4spinEl", true, "_ZN6shapes7SpinnerIlE4spinEl");
}

static void test_output_sanitized_and_capped(void **state)
{
	char buf[16], big[3000];

	(void)state;
	expect("esc\x1b[31mname", false, "esc?[31mname");
	/* A C++ name whose demangled form holds a byte that is not UTF-8. */
	expect("_Z3f\xffov", false, "f?o()");
	assert_int_equal(demangle_name(buf, sizeof(buf), "_ZN6shapes7SpinnerIlE4spinEl", false),
			 15);
	assert_string_equal(buf, "shapes::Spinn..");
	/* Longer than any real mangled name: not demangled, capped. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[0] = '_';
	big[1] = 'Z';
	assert_int_equal(demangle_name(buf, sizeof(buf), big, false), 15);
}

/* Writes @prefix, @unit @times times, then @suffix into @name (capacity @size). */
static void build_name(char *name, size_t size, const char *prefix, const char *unit, int times,
		       const char *suffix)
{
	size_t n = (size_t)snprintf(name, size, "%s", prefix);

	for (int i = 0; i < times && n < size; i++)
		n += (size_t)snprintf(name + n, size - n, "%s", unit);
	if (n < size)
		snprintf(name + n, size - n, "%s", suffix);
}

/* Nesting far beyond the demangler's recursion limit fails cleanly. */
static void test_deep_nesting(void **state)
{
	char name[4096], buf[NAME_MAX_BYTES + 1];

	(void)state;
	build_name(name, sizeof(name), "_Z1f", "P", 4000, "i");
	demangle_name(buf, sizeof(buf), name, false);
	assert_true(strlen(buf) <= NAME_MAX_BYTES);
	build_name(name, sizeof(name), "_Z", "N1aI", 1000, "v");
	demangle_name(buf, sizeof(buf), name, false);
	assert_true(strlen(buf) <= NAME_MAX_BYTES);
	build_name(name, sizeof(name), "_RNv", "NvC1a", 800, "1b");
	demangle_name(buf, sizeof(buf), name, false);
	assert_true(strlen(buf) <= NAME_MAX_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cxx),
	    cmocka_unit_test(test_suffix_after_at),
	    cmocka_unit_test(test_rust),
	    cmocka_unit_test(test_plain_and_raw),
	    cmocka_unit_test(test_output_sanitized_and_capped),
	    cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
