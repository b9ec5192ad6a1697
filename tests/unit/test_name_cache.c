// SPDX-License-Identifier: GPL-2.0
/*
 * name_cache: the names of drained stacks, kept within bounds. Under
 * process churn every new process's addresses are new names: once the
 * cache has grown, the names of processes that have exited are dropped,
 * the kernel's and the live processes' kept.
 */
#include "tests/unit/fixtures.h"

#include "live/name_cache.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

#define KALLSYMS FIXTURES "/kallsyms.txt"
#define MODULES FIXTURES "/modules.txt"
#define NPROCS 200
#define NUSER 100 /* user frames per stack: NPROCS * NUSER names, over the pruning mark */

/* The processes with an odd id have exited. */
static bool odd_gone(void *ctx, int32_t tgid)
{
	(void)ctx;
	return tgid % 2;
}

/* Names one stack of process @tgid: NUSER user addresses, two kernel ones. */
static void name_stack(struct name_cache *nc, uint32_t tgid)
{
	static const uint64_t kips[2] = { 0xffffffff81000100ull, 0xffffffff81000200ull };
	uint64_t uips[NUSER];
	uint32_t frames[NAME_CACHE_MAX_FRAMES];
	struct capture_stack st = { .tgid = tgid, .pid = tgid, .comm = "churn", .kips = kips,
				    .nk = 2, .khash = 42, .uips = uips, .nu = NUSER,
				    .uend = UNWIND_WHOLE, .count = 1 };

	for (uint32_t i = 0; i < NUSER; i++)
		uips[i] = 0x400000 + 16 * i;
	assert_int_equal(name_cache__stack(nc, &st, frames), 1 + NUSER + 2);
}

static void test_names_of_exited_processes_dropped(void **state)
{
	struct symbolizer_opts opts = { .kallsyms_path = KALLSYMS, .modules_path = MODULES,
					.proc_root = "/nonexistent" };
	struct symbolizer *sym = symbolizer__new(&opts);
	struct profile *prof = profile__new();
	struct name_cache *nc;

	(void)state;
	assert_non_null(sym);
	assert_non_null(prof);
	nc = name_cache__new(sym, prof, false);
	assert_non_null(nc);
	name_cache__begin_drain(nc, odd_gone, NULL);
	for (uint32_t tgid = 1000; tgid < 1000 + NPROCS; tgid++)
		name_stack(nc, tgid);
	assert_int_equal(name_cache__names(nc), NPROCS * NUSER + 2);
	name_cache__begin_drain(nc, odd_gone, NULL);
	assert_int_equal(name_cache__names(nc), NPROCS / 2 * NUSER + 2);
	/* A live process's names are still there; an exited one's are asked again. */
	name_stack(nc, 1000);
	assert_int_equal(name_cache__names(nc), NPROCS / 2 * NUSER + 2);
	name_stack(nc, 1001);
	assert_int_equal(name_cache__names(nc), NPROCS / 2 * NUSER + 2 + NUSER);
	/* Below twice what was kept, no pruning. */
	name_cache__begin_drain(nc, odd_gone, NULL);
	assert_int_equal(name_cache__names(nc), NPROCS / 2 * NUSER + 2 + NUSER);
	name_cache__free(nc);
	profile__free(prof);
	symbolizer__free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_of_exited_processes_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
