// SPDX-License-Identifier: GPL-2.0
/*
 * addr_counts: where in each function the samples were. Stacks of sites
 * made here by hand, their counts checked against what each stack adds:
 * the leaf's site as self, the others as calls, a function once per stack
 * (at its innermost site); modules by identity; the still picture; folds
 * that keep every function's count; renumbering; and the profile that
 * owns a store and counts its stacks' sites.
 */
#include "tests/unit/unit.h"

#include "profile/addr_counts.h"
#include "profile/profile.h"

#define FILE_MODULE(ino, pid)                                                                      \
	((struct addr_module){ .space = SPACE_FILE, .tgid = (pid), .dev = 8, .inode = (ino),       \
			       .start = 0x400000, .end = 0x500000, .path = "/bin/prog" })

/* The counts of site @id. */
static struct addr_site site(const struct addr_counts *c, uint32_t id)
{
	struct addr_site s;

	addr_counts__site_at(c, id, &s);
	return s;
}

/* Every count of frame @frame's sites (self and calls). */
static uint64_t frame_total(const struct addr_counts *c, uint32_t frame)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < addr_counts__nsites(c); i++) {
		struct addr_site s = site(c, i);

		if (s.frame == frame)
			sum += s.self + s.calls;
	}
	return sum;
}

static void test_self_and_calls(void **state)
{
	struct addr_counts *c = addr_counts__new();
	uint32_t m, a, b, leaf, sites[4], frames[4] = { 0, 1, 2, 3 };

	(void)state;
	assert_non_null(c);
	m = addr_counts__module(c, &FILE_MODULE(7, 100));
	a = addr_counts__site(c, 1, m, 0x1010); /* main, calling work */
	b = addr_counts__site(c, 2, m, 0x1020); /* work, calling leaf */
	leaf = addr_counts__site(c, 3, m, 0x1030);
	assert_int_equal(addr_counts__site(c, 2, m, 0x1020), b); /* the same site, the same id */
	sites[0] = ADDR_NONE; /* the process frame: no address */
	sites[1] = a, sites[2] = b, sites[3] = leaf;
	addr_counts__add(c, frames, sites, 4, 3, 5); /* a sample, in leaf */
	addr_counts__add(c, frames, sites, 4, 4, 2); /* an event that is no sample: calls only */
	assert_int_equal(site(c, leaf).self, 5);
	assert_int_equal(site(c, leaf).calls, 2);
	assert_int_equal(site(c, a).self, 0);
	assert_int_equal(site(c, a).calls, 7);
	assert_int_equal(site(c, b).calls, 7);
	assert_int_equal(site(c, b).frame, 2);
	assert_int_equal(site(c, b).addr, 0x1020);
	addr_counts__free(c);
}

/*
 * A recursive function passes through two of its sites in one stack: it is
 * counted once, at the site nearest the leaf, so that its sites add up to
 * the stacks through it.
 */
static void test_recursion_counted_once(void **state)
{
	struct addr_counts *c = addr_counts__new();
	uint32_t m, outer, mid, inner, sites[3], frames[3] = { 5, 6, 5 };

	(void)state;
	m = addr_counts__module(c, &FILE_MODULE(7, 100));
	outer = addr_counts__site(c, 5, m, 0x2010); /* sort, calling sort */
	mid = addr_counts__site(c, 6, m, 0x3010);   /* cmp */
	inner = addr_counts__site(c, 5, m, 0x2040); /* sort again, where the sample was */
	sites[0] = outer, sites[1] = mid, sites[2] = inner;
	addr_counts__add(c, frames, sites, 3, 2, 4);
	assert_int_equal(site(c, inner).self, 4);
	assert_int_equal(site(c, outer).calls, 0);
	assert_int_equal(frame_total(c, 5), 4);
	assert_int_equal(site(c, mid).calls, 4);
	/* The same site twice (deeper recursion through one call): once too. */
	sites[2] = outer;
	addr_counts__add(c, frames, sites, 3, 3, 1);
	assert_int_equal(site(c, outer).calls, 1);
	assert_int_equal(frame_total(c, 5), 5);
	addr_counts__free(c);
}

/* A file is one module in every process that maps it; a process's memory is its own. */
static void test_modules_by_identity(void **state)
{
	struct addr_counts *c = addr_counts__new();
	struct addr_module jit = { .space = SPACE_MEMORY, .tgid = 100, .start = 0x7000,
				   .end = 0x8000, .path = "" };
	struct addr_module kernel = { .space = SPACE_KERNEL };
	struct addr_module other = FILE_MODULE(7, 200);
	uint32_t f = addr_counts__module(c, &FILE_MODULE(7, 100));

	(void)state;
	other.start = 0x7f0000;
	assert_int_equal(addr_counts__module(c, &other), f);
	/* It names the process seen last, mapped as that one maps it. */
	assert_int_equal(addr_counts__module_info(c, f)->tgid, 200);
	assert_int_equal(addr_counts__module_info(c, f)->start, 0x7f0000);
	assert_string_equal(addr_counts__module_info(c, f)->path, "/bin/prog");
	assert_int_not_equal(addr_counts__module(c, &FILE_MODULE(8, 100)), f);
	assert_int_not_equal(addr_counts__module(c, &jit), f);
	jit.tgid = 101;
	assert_int_not_equal(addr_counts__module(c, &jit), addr_counts__module(c, &kernel));
	assert_int_equal(addr_counts__module(c, &kernel), addr_counts__module(c, &kernel));
	assert_null(addr_counts__module_info(c, 99));
	addr_counts__free(c);
}

/* A frozen store shows its counts as they were; a site made since shows none. */
static void test_still_picture(void **state)
{
	struct addr_counts *c = addr_counts__new();
	uint32_t m = addr_counts__module(c, &FILE_MODULE(7, 100));
	uint32_t a = addr_counts__site(c, 1, m, 0x10), b, one = 1, two = 2;

	(void)state;
	addr_counts__add(c, &one, &a, 1, 0, 3);
	addr_counts__freeze(c);
	addr_counts__add(c, &one, &a, 1, 0, 10);
	b = addr_counts__site(c, 2, m, 0x20);
	addr_counts__add(c, &two, &b, 1, 0, 1);
	assert_int_equal(site(c, a).self, 3);
	assert_int_equal(site(c, b).self, 0);
	addr_counts__freeze(c); /* a new picture */
	assert_int_equal(site(c, a).self, 13);
	addr_counts__add(c, &one, &a, 1, 0, 1);
	assert_int_equal(site(c, a).self, 13);
	addr_counts__thaw(c);
	assert_int_equal(site(c, a).self, 14);
	assert_int_equal(site(c, b).self, 1);
	addr_counts__free(c);
}

/*
 * Beyond its limit the least counted sites fold into their function's
 * folded site: every function keeps its count, live and in the picture,
 * and the site ids change.
 */
static void test_fold_keeps_counts(void **state)
{
	struct addr_counts *c = addr_counts__new();
	uint32_t m = addr_counts__module(c, &FILE_MODULE(7, 100));
	uint64_t gen = addr_counts__gen(c), before[4];
	bool folded = false;

	(void)state;
	for (uint32_t i = 0; i < 400; i++) {
		uint32_t id = addr_counts__site(c, i % 4, m, 0x1000 + i), f = i % 4;

		addr_counts__add(c, &f, &id, 1, 0, i + 1);
	}
	addr_counts__freeze(c);
	for (uint32_t f = 0; f < 4; f++)
		before[f] = frame_total(c, f);
	assert_true(addr_counts__fold(c, 100) > 0);
	assert_true(addr_counts__nsites(c) <= 75);
	assert_true(addr_counts__gen(c) != gen);
	for (uint32_t f = 0; f < 4; f++)
		assert_int_equal(frame_total(c, f), before[f]); /* the picture too */
	addr_counts__thaw(c);
	for (uint32_t f = 0; f < 4; f++)
		assert_int_equal(frame_total(c, f), before[f]);
	for (uint32_t i = 0; i < addr_counts__nsites(c); i++) {
		struct addr_site s = site(c, i);

		folded |= s.addr == ADDR_FOLDED;
		/* The most counted sites stayed as they were. */
		if (s.addr != ADDR_FOLDED)
			assert_true(s.addr >= 0x1000 + 400 - 75);
	}
	assert_true(folded);
	assert_int_equal(addr_counts__dropped(c), 0);
	assert_int_equal(addr_counts__fold(c, 100), 0); /* within the limit: nothing */
	addr_counts__free(c);
}

/* More functions than the limit holds: the least counted go whole, and are counted as dropped. */
static void test_fold_drops_functions(void **state)
{
	struct addr_counts *c = addr_counts__new();
	uint32_t m = addr_counts__module(c, &FILE_MODULE(7, 100));
	uint64_t all = 0, kept = 0;

	(void)state;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t id = addr_counts__site(c, i, m, 0x1000);

		addr_counts__add(c, &i, &id, 1, 0, i + 1);
		all += i + 1;
	}
	assert_true(addr_counts__fold(c, 100) > 0);
	assert_int_equal(addr_counts__nsites(c), 75);
	for (uint32_t i = 0; i < addr_counts__nsites(c); i++)
		kept += site(c, i).self;
	assert_int_equal(kept + addr_counts__dropped(c), all);
	assert_int_equal(frame_total(c, 199), 200); /* the most counted stays */
	assert_int_equal(frame_total(c, 0), 0);
	addr_counts__free(c);
}

/* The profile renumbered its frames: sites follow; a dropped frame's go, with their modules. */
static void test_renumber_frames(void **state)
{
	struct addr_counts *c = addr_counts__new();
	struct addr_module kernel = { .space = SPACE_KERNEL };
	uint32_t m = addr_counts__module(c, &FILE_MODULE(7, 100));
	uint32_t k = addr_counts__module(c, &kernel);
	uint32_t a = addr_counts__site(c, 0, m, 0x10), b = addr_counts__site(c, 1, k, 0x20);
	const uint32_t map[2] = { UINT32_MAX, 0 };
	uint64_t gen = addr_counts__gen(c);
	uint32_t sites[2] = { a, b }, frames[2] = { 0, 1 }, zero = 0;

	(void)state;
	addr_counts__add(c, frames, sites, 2, 1, 6);
	addr_counts__renumber_frames(c, map, 2);
	assert_true(addr_counts__gen(c) != gen);
	assert_int_equal(addr_counts__nsites(c), 1);
	assert_int_equal(site(c, 0).frame, 0);
	assert_int_equal(site(c, 0).self, 6);
	assert_int_equal(addr_counts__module_info(c, site(c, 0).module)->space, SPACE_KERNEL);
	assert_null(addr_counts__module_info(c, 1)); /* the file's module went with its site */
	/* The new frame 0 counts in its new stacks. */
	a = site(c, 0).module;
	b = addr_counts__site(c, 0, a, 0x20);
	addr_counts__add(c, &zero, &b, 1, 0, 1);
	assert_int_equal(site(c, b).self, 7);
	addr_counts__free(c);
}

/* A profile that keeps addresses counts its stacks' sites, folds and resets them. */
static void test_profile_counts_sites(void **state)
{
	struct profile *p = profile__new();
	struct addr_counts *c;
	uint32_t frames[3], sites[3];
	struct sample s = { .tgid = 1, .frames = frames, .n = 3, .count = 2, .sites = sites,
			    .leaf_exact = true };

	(void)state;
	assert_null(profile__addresses(p));
	c = profile__keep_addresses(p);
	assert_non_null(c);
	assert_ptr_equal(profile__keep_addresses(p), c);
	frames[0] = profile__frame(p, "prog", 4, FRAME_PROCESS, true);
	frames[1] = profile__frame(p, "main", 4, FRAME_USER, true);
	frames[2] = profile__frame(p, "work", 4, FRAME_USER, true);
	sites[0] = ADDR_NONE;
	sites[1] = addr_counts__site(c, frames[1], addr_counts__module(c, &FILE_MODULE(7, 1)), 9);
	sites[2] = addr_counts__site(c, frames[2], 0, 20);
	assert_int_equal(profile__add(p, &s), 0);
	s.sites = NULL; /* a stack without sites (a file's): counted in the profile only */
	assert_int_equal(profile__add(p, &s), 0);
	assert_int_equal(site(c, sites[2]).self, 2);
	assert_int_equal(site(c, sites[1]).calls, 2);
	assert_int_equal(profile__total(p, WINDOW_CUMULATIVE), 4);
	assert_true(profile__bytes(p) > addr_counts__bytes(c));
	profile__reset(p);
	assert_int_equal(addr_counts__nsites(c), 0);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_and_calls),
		cmocka_unit_test(test_recursion_counted_once),
		cmocka_unit_test(test_modules_by_identity),
		cmocka_unit_test(test_still_picture),
		cmocka_unit_test(test_fold_keeps_counts),
		cmocka_unit_test(test_fold_drops_functions),
		cmocka_unit_test(test_renumber_frames),
		cmocka_unit_test(test_profile_counts_sites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
