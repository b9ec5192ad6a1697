// SPDX-License-Identifier: GPL-2.0
/*
 * name_cache: the names of drained stacks, kept within bounds. Under
 * process churn every new process's addresses are new names: once the
 * cache has grown, the names of processes that have exited are dropped,
 * the kernel's and the live processes' kept. When the profile renumbers its
 * frames, the cache forgets the ids it held.
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

/* Names one stack of process @tgid into @frames: NUSER user addresses, two kernel ones. */
static void name_stack_into(struct name_cache *nc, uint32_t tgid, uint32_t *frames)
{
	static const uint64_t kips[2] = { 0xffffffff81000100ull, 0xffffffff81000200ull };
	uint64_t uips[NUSER];
	struct capture_stack st = { .tgid = tgid, .pid = tgid, .comm = "churn", .kips = kips,
				    .nk = 2, .khash = 42, .uips = uips, .nu = NUSER,
				    .uend = UNWIND_WHOLE, .count = 1 };

	for (uint32_t i = 0; i < NUSER; i++)
		uips[i] = 0x400000 + 16 * i;
	assert_int_equal(name_cache__stack(nc, &st, frames), 1 + NUSER + 2);
}

static void name_stack(struct name_cache *nc, uint32_t tgid)
{
	uint32_t frames[NAME_CACHE_MAX_FRAMES];

	name_stack_into(nc, tgid, frames);
}

static void test_names_of_exited_processes_dropped(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = KALLSYMS,
				       .modules_path = MODULES,
				       .proc_root = "/nonexistent"};
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

/*
 * A profile that folds with many frames no stack uses renumbers the rest:
 * the next drain's stacks get the ids of the new numbering, with the same
 * names, not the ids the cache held.
 */
static void test_frames_renumbered(void **state)
{
	struct symbolizer_opts opts = {.elf_wait_ns = UNIT_ELF_WAIT_NS,
				       .kallsyms_path = KALLSYMS,
				       .modules_path = MODULES,
				       .proc_root = "/nonexistent"};
	struct symbolizer *sym = symbolizer__new(&opts);
	struct profile *prof = profile__new();
	uint32_t frames[NAME_CACHE_MAX_FRAMES], again[NAME_CACHE_MAX_FRAMES];
	char before[1 + NUSER + 2][64], name[32];
	struct name_cache *nc;
	uint64_t gen;

	(void)state;
	assert_non_null(sym);
	assert_non_null(prof);
	nc = name_cache__new(sym, prof, false);
	assert_non_null(nc);
	/* Frames no stack will use, then ours, then three stacks: over a limit of two. */
	for (int i = 0; i < 70000; i++) {
		snprintf(name, sizeof(name), "gone_%d", i);
		assert_int_not_equal(profile__frame(prof, name, strlen(name), FRAME_USER, true),
				     PROFILE_NONE);
	}
	name_cache__begin_drain(nc, odd_gone, NULL);
	name_stack_into(nc, 1000, frames);
	for (uint32_t i = 0; i < 1 + NUSER + 2; i++)
		snprintf(before[i], sizeof(before[i]), "%s", profile__frame_name(prof, frames[i]));
	for (int32_t tgid = 1; tgid <= 3; tgid++)
		assert_int_equal(profile__add(prof, &(struct sample){ .tgid = tgid, .frames = frames,
								     .n = 1 + NUSER + 2, .count = 1 }),
				 0);
	gen = profile__frames_gen(prof);
	assert_true(profile__fold(prof, 2, NULL, NULL) > 0);
	assert_true(profile__frames_gen(prof) != gen);
	assert_true(profile__nframes(prof) < 1000);
	/* Named again after the renumbering: valid ids, the same names. */
	name_cache__begin_drain(nc, odd_gone, NULL);
	name_stack_into(nc, 1000, again);
	for (uint32_t i = 0; i < 1 + NUSER + 2; i++) {
		assert_true(again[i] < profile__nframes(prof));
		assert_string_equal(profile__frame_name(prof, again[i]), before[i]);
	}
	name_cache__free(nc);
	profile__free(prof);
	symbolizer__free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_of_exited_processes_dropped),
	    cmocka_unit_test(test_frames_renumbered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
