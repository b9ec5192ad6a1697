// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms: fixture files in /proc/kallsyms and /proc/modules format.
 *
 * tests/fixtures/kallsyms.txt is deliberately unsorted and holds, besides
 * plain core symbols (one far from the next), aliases at one address, __pfx_/__cfi_ padding, the
 * _etext and _einittext markers, module and BPF symbols, non-text symbols, a
 * zero address, a name with an escape sequence and malformed lines that
 * would all name 0xffffffff81001500 if any of them were accepted.
 */
#include "tests/unit/unit.h"

#include <errno.h>

#include "symbols/kallsyms.h"

#define KALLSYMS FIXTURES "/kallsyms.txt"
#define MODULES FIXTURES "/modules.txt"

static struct ksyms *load(const char *modules)
{
	struct ksyms *ks = ksyms__load(KALLSYMS, modules);

	assert_non_null(ks);
	return ks;
}

/* Asserts that @addr maps to @name in @module (NULL: core kernel) starting at @start. */
static void expect_sym(const struct ksyms *ks, uint64_t addr, const char *name, const char *module,
		       uint64_t start)
{
	struct ksym found;
	const struct ksym *sym = ksyms__map_addr(ks, addr, &found) ? &found : NULL;

	if (!sym)
		fail_msg("0x%jx: no symbol, want %s", (uintmax_t)addr, name);
	assert_string_equal(sym->name, name);
	if (module)
		assert_string_equal(sym->module, module);
	else
		assert_null(sym->module);
	assert_int_equal(sym->addr, start);
}

static void expect_none(const struct ksyms *ks, uint64_t addr)
{
	struct ksym sym;

	if (ksyms__map_addr(ks, addr, &sym))
		fail_msg("0x%jx: got %s, want no symbol", (uintmax_t)addr, sym.name);
}

static void test_count_keeps_one_text_symbol_per_address(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	assert_false(ksyms__hidden(ks));
	/* 17 addresses, two of them padding merged into the function that follows. */
	assert_int_equal(ksyms__count(ks), 15);
	ksyms__free(ks);
}

static void test_nearest_preceding_from_unsorted_input(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	expect_sym(ks, 0xffffffff81000000, "startup_64", NULL, 0xffffffff81000000);
	expect_sym(ks, 0xffffffff81000fff, "startup_64", NULL, 0xffffffff81000000);
	/* do_one starts at its padding, __pfx_do_one. */
	expect_sym(ks, 0xffffffff81001010, "do_one", NULL, 0xffffffff81001000);
	expect_sym(ks, 0xffffffff810010ff, "do_one", NULL, 0xffffffff81001000);
	expect_sym(ks, 0xffffffff81001234, "weak_fn", NULL, 0xffffffff81001200);
	expect_sym(ks, 0xffffffff81001300, "last_core_fn", NULL, 0xffffffff81001300);
	expect_none(ks, 0xffffffff807fffff);
	ksyms__free(ks);
}

static void test_core_symbol_reaches_next_core_symbol(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	/* No cap inside the core kernel: early_fn reaches startup_64, 8 MiB on. */
	expect_sym(ks, 0xffffffff80800000, "early_fn", NULL, 0xffffffff80800000);
	expect_sym(ks, 0xffffffff80ffffff, "early_fn", NULL, 0xffffffff80800000);
	ksyms__free(ks);
}

static void test_alias_with_fewest_underscores_wins(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	/* _stext, _text and startup_64 share an address; _sinittext and init_fn too. */
	expect_sym(ks, 0xffffffff81000010, "startup_64", NULL, 0xffffffff81000000);
	expect_sym(ks, 0xffffffff82000000, "init_fn", NULL, 0xffffffff82000000);
	ksyms__free(ks);
}

static void test_padding_goes_to_following_function(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	expect_sym(ks, 0xffffffff81001000, "do_one", NULL, 0xffffffff81001000);
	expect_sym(ks, 0xffffffff8100100f, "do_one", NULL, 0xffffffff81001000);
	/* __cfi_ as well as __pfx_: the function starts at its padding. */
	expect_sym(ks, 0xffffffff81001104, "do_two", NULL, 0xffffffff81001100);
	expect_sym(ks, 0xffffffff81001110, "do_two", NULL, 0xffffffff81001100);
	ksyms__free(ks);
}

static void test_etext_bounds_core_kernel(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	expect_sym(ks, 0xffffffff810013ff, "last_core_fn", NULL, 0xffffffff81001300);
	expect_none(ks, 0xffffffff81001400);
	expect_none(ks, 0xffffffff81001500); /* where the malformed lines point */
	expect_none(ks, 0xffffffff81ffffff);
	/* _einittext ends the init text the same way. */
	expect_sym(ks, 0xffffffff820000ff, "init_fn", NULL, 0xffffffff82000000);
	expect_none(ks, 0xffffffff82000100);
	ksyms__free(ks);
}

static void test_module_symbols_carry_module(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	expect_sym(ks, 0xffffffffc0001000, "mod_a_fn1", "mod_a", 0xffffffffc0001000);
	expect_sym(ks, 0xffffffffc00010ff, "mod_a_fn1", "mod_a", 0xffffffffc0001000);
	expect_sym(ks, 0xffffffffc0001100, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	expect_sym(ks, 0xffffffffc0010004, "mod_b_fn", "mod_b", 0xffffffffc0010000);
	ksyms__free(ks);
}

static void test_module_end_bounds_last_module_symbol(void **state)
{
	struct ksyms *with = load(MODULES), *without = load(NULL);

	(void)state;
	/* modules.txt: mod_a is [0xffffffffc0001000, +8192), mod_b [0xffffffffc0010000, +4096). */
	expect_sym(with, 0xffffffffc0002fff, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	expect_none(with, 0xffffffffc0003000);
	expect_sym(with, 0xffffffffc0010fff, "mod_b_fn", "mod_b", 0xffffffffc0010000);
	expect_none(with, 0xffffffffc0011000);
	/* Without module extents, the next module's start still bounds mod_a. */
	expect_sym(without, 0xffffffffc0003000, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	expect_sym(without, 0xffffffffc000ffff, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	expect_sym(without, 0xffffffffc0011000, "mod_b_fn", "mod_b", 0xffffffffc0010000);
	ksyms__free(with);
	ksyms__free(without);
}

/* Padding followed by another function than its own stays its own entry. */
static void test_padding_without_its_function(void **state)
{
	char path[512];
	struct ksyms *ks;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms-lonely", unit_tmpdir());
	unit_write_file(path, "ffffffff81002000 t __pfx_lonely\n"
			      "ffffffff81002010 T other_fn\n"
			      "ffffffff81002100 T _etext\n");
	ks = ksyms__load(path, NULL);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 3);
	expect_sym(ks, 0xffffffff81002004, "lonely", NULL, 0xffffffff81002000);
	expect_sym(ks, 0xffffffff81002010, "other_fn", NULL, 0xffffffff81002010);
	ksyms__free(ks);
}

static void test_unreadable_modules_file_is_ignored(void **state)
{
	struct ksyms *ks = load(FIXTURES "/no-such-modules-file");

	(void)state;
	assert_int_equal(ksyms__count(ks), 15);
	expect_sym(ks, 0xffffffffc0003000, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	ksyms__free(ks);
}

static void test_bpf_programs_named_with_module_bpf(void **state)
{
	struct ksyms *ks = load(MODULES);

	(void)state;
	expect_sym(ks, 0xffffffffc0020010, "bpf_prog_6deef7357e7b4530_sd_fw_ingress", "bpf",
		   0xffffffffc0020000);
	expect_sym(ks, 0xffffffffc00203ff, "bpf_prog_6deef7357e7b4530_sd_fw_ingress", "bpf",
		   0xffffffffc0020000);
	expect_sym(ks, 0xffffffffc0020400, "bpf_prog_0123456789abcdef_handle", "bpf",
		   0xffffffffc0020400);
	ksyms__free(ks);
}

static void test_last_symbol_of_group_is_capped(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	/* Nothing follows the last BPF program: it reaches 128 KiB, no further. */
	expect_sym(ks, 0xffffffffc0020400 + 128 * 1024 - 1, "bpf_prog_0123456789abcdef_handle",
		   "bpf", 0xffffffffc0020400);
	expect_none(ks, 0xffffffffc0020400 + 128 * 1024);
	expect_none(ks, UINT64_MAX);
	ksyms__free(ks);
}

static void test_non_text_and_zero_symbols_ignored(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	/* some_data (D) and some_rodata (r) lie past _etext; mod_a_data (d) inside mod_a_fn2. */
	expect_none(ks, 0xffffffff81002000);
	expect_none(ks, 0xffffffff81003000);
	expect_sym(ks, 0xffffffffc0001200, "mod_a_fn2", "mod_a", 0xffffffffc0001100);
	expect_none(ks, 0);
	expect_none(ks, 0x10);
	ksyms__free(ks);
}

static void test_names_sanitized(void **state)
{
	struct ksyms *ks = load(NULL);

	(void)state;
	expect_sym(ks, 0xffffffff81001280, "esc?[31mname", NULL, 0xffffffff81001280);
	ksyms__free(ks);
}

static void test_all_zero_addresses_are_hidden(void **state)
{
	struct ksyms *ks = ksyms__load(FIXTURES "/kallsyms_hidden.txt", NULL);

	(void)state;
	assert_non_null(ks);
	assert_true(ksyms__hidden(ks));
	assert_int_equal(ksyms__count(ks), 0);
	expect_none(ks, 0);
	expect_none(ks, 0xffffffff81000000);
	ksyms__free(ks);
}

static void test_no_text_symbol_or_no_file_fails(void **state)
{
	(void)state;
	errno = 0;
	assert_null(ksyms__load(FIXTURES "/kallsyms_notext.txt", NULL));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(ksyms__load(FIXTURES "/no-such-kallsyms-file", NULL));
	assert_int_equal(errno, ENOENT);
	ksyms__free(NULL);
}

static void test_overlong_and_nul_lines_skipped(void **state)
{
	static const char nul_line[] = "ffffffff81000200 T nul\0byte\n";
	char path[512];
	struct ksyms *ks;
	FILE *f;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms_hostile", unit_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T first\n", f);
	fputs("ffffffff81000100 T ", f);
	for (i = 0; i < 100000; i++)
		fputc('a', f);
	fputs("\n", f);
	fwrite(nul_line, 1, sizeof(nul_line) - 1, f);
	fputs("ffffffff81000300 T last", f); /* no final newline */
	fclose(f);

	ks = ksyms__load(path, NULL);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 2);
	expect_sym(ks, 0xffffffff81000100, "first", NULL, 0xffffffff81000000);
	expect_sym(ks, 0xffffffff81000200, "first", NULL, 0xffffffff81000000);
	expect_sym(ks, 0xffffffff81000300, "last", NULL, 0xffffffff81000300);
	ksyms__free(ks);
}

/* Reads the address of text symbol @name from the real /proc/kallsyms; 0 when absent. */
static uint64_t real_kallsyms_addr(const char *name)
{
	char line[1024], sym[512], type;
	unsigned long long addr;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, sym) == 3 && !strcmp(sym, name))
			found = addr;
	}
	fclose(f);
	return found;
}

static void test_equal_tables(void **state)
{
	struct ksyms *a = ksyms__load(KALLSYMS, MODULES), *b = ksyms__load(KALLSYMS, MODULES);
	struct ksyms *c = ksyms__load(KALLSYMS, NULL);
	struct ksyms *d = ksyms__load(FIXTURES "/kallsyms_hidden.txt", NULL);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(d);
	assert_true(ksyms__equal(a, b));
	assert_false(ksyms__equal(a, c)); /* same symbols, other module ends */
	assert_false(ksyms__equal(a, d));
	ksyms__free(a);
	ksyms__free(b);
	ksyms__free(c);
	ksyms__free(d);
}

static void test_real_kallsyms_names_vfs_read(void **state)
{
	struct ksyms *ks = ksyms__load("/proc/kallsyms", "/proc/modules");
	uint64_t addr = real_kallsyms_addr("vfs_read");
	uint64_t start = real_kallsyms_addr("__pfx_vfs_read"); /* where its padding begins */

	(void)state;
	assert_non_null(ks);
	assert_true(addr != 0);
	if (ksyms__hidden(ks)) {
		expect_none(ks, addr);
	} else {
		assert_true(ksyms__count(ks) > 1000);
		if (!start)
			start = addr;
		expect_sym(ks, addr, "vfs_read", NULL, start);
		expect_sym(ks, addr + 1, "vfs_read", NULL, start);
		expect_sym(ks, start, "vfs_read", NULL, start);
	}
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_count_keeps_one_text_symbol_per_address),
	    cmocka_unit_test(test_nearest_preceding_from_unsorted_input),
	    cmocka_unit_test(test_core_symbol_reaches_next_core_symbol),
	    cmocka_unit_test(test_alias_with_fewest_underscores_wins),
	    cmocka_unit_test(test_padding_goes_to_following_function),
	    cmocka_unit_test(test_etext_bounds_core_kernel),
	    cmocka_unit_test(test_module_symbols_carry_module),
	    cmocka_unit_test(test_module_end_bounds_last_module_symbol),
	    cmocka_unit_test(test_padding_without_its_function),
	    cmocka_unit_test(test_unreadable_modules_file_is_ignored),
	    cmocka_unit_test(test_bpf_programs_named_with_module_bpf),
	    cmocka_unit_test(test_last_symbol_of_group_is_capped),
	    cmocka_unit_test(test_non_text_and_zero_symbols_ignored),
	    cmocka_unit_test(test_names_sanitized),
	    cmocka_unit_test(test_all_zero_addresses_are_hidden),
	    cmocka_unit_test(test_no_text_symbol_or_no_file_fails),
	    cmocka_unit_test(test_overlong_and_nul_lines_skipped),
	    cmocka_unit_test(test_equal_tables),
	    cmocka_unit_test(test_real_kallsyms_names_vfs_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
