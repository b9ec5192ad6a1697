// SPDX-License-Identifier: GPL-2.0
/*
 * unwinder: the tables a process's mappings ask for are built and loaded
 * once per file, shared by the processes mapping it, and kept within the
 * memory budget: files no process maps any more are evicted first, and a
 * table that does not fit beside the ones in use is left out and counted.
 * Real BPF maps (root), real files of this machine; the processes are
 * described by hand, their files found on the host (the proc root given is
 * an empty directory, so no map_files link is there to open).
 */
#include "tests/unit/unit.h"

#include <errno.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <bpf/bpf.h>

#include "bpf/unwind_maps.h"
#include "live/cold_stacks.h"
#include "live/unwinder.h"

#define PYTHON "/usr/bin/python3.11"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PERL "/usr/bin/perl"
#define BASH "/usr/bin/bash"
#define LIBSTDCXX "/lib/x86_64-linux-gnu/libstdc++.so.6"
#define LLVM "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1" /* clang's: 0.95M rows, 85 ms here */
#define LIBDL "/lib/x86_64-linux-gnu/libdl.so.2"	   /* 6 rows */
#define KIB(n) ((size_t)(n) << 10)

/* An executable mapping of file @path, as /proc/PID/maps would show it. */
static struct proc_map file_map(const char *path, uint64_t start)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (struct proc_map){ .start = start, .end = start + 0x100000, .pgoff = 0,
				  .inode = st.st_ino, .dev_major = major(st.st_dev),
				  .dev_minor = minor(st.st_dev), .perms = MAP_PERM_R | MAP_PERM_X,
				  .kind = MAP_FILE, .path = (char *)path };
}

/* Runs passes until the loader has nothing pending (10 s at most). */
static void settle(struct unwinder *u, struct unwinder_stats *st)
{
	for (int i = 0; i < 1000; i++) {
		unwinder__pass(u);
		unwinder__stats(u, st);
		if (!st->pending)
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	fail_msg("the loader did not finish");
}

static void note(struct unwinder *u, uint32_t tgid, uint64_t gen, const char *const *paths,
		 size_t n)
{
	struct proc_map maps[8];
	struct proc_maps pm = { .maps = maps, .n = n };

	for (size_t i = 0; i < n; i++)
		maps[i] = file_map(paths[i], 0x10000000ull * (i + 1));
	unwinder__note_process(u, tgid, &pm, gen);
}

/*
 * An unwinder of @room bytes beyond its fixed maps, whose builds get
 * @slice_ns on the loader's first thread (0: the default); NULL when BPF
 * maps can't be made here.
 */
static struct unwinder *unwinder_with_room(size_t room, uint64_t slice_ns)
{
	struct unwinder_opts o = { .proc_root = unit_tmpdir(), .memory_bytes = KIB(64),
				   .table_slice_ns = slice_ns };
	struct unwinder_stats st;
	struct unwinder *u;

	if (unwinder__new(&o, &u))
		return NULL;
	unwinder__stats(u, &st); /* the fixed part: process slots, rules, the array of tables */
	unwinder__free(u);
	o.memory_bytes = st.bytes + room;
	return unwinder__new(&o, &u) ? NULL : u;
}

static bool files_here(void)
{
	return !access(PYTHON, R_OK) && !access(LIBC, R_OK) && !access(PERL, R_OK) &&
	       !access(BASH, R_OK) && !access(LIBSTDCXX, R_OK) && !access(LLVM, R_OK) &&
	       !access(LIBDL, R_OK);
}

/*
 * An unwinder with @room beyond its fixed maps, for a test of this
 * machine's files; the test is skipped where BPF maps can't be made (not
 * root) or the files are not Debian 12's.
 */
static struct unwinder *unwinder_here(size_t room)
{
	struct unwinder *u = files_here() ? unwinder_with_room(room, 0) : NULL;

	if (!u)
		skip();
	return u;
}

/*
 * Two processes mapping libc share its table; a process noted again with
 * the same maps asks for nothing new.
 */
static void test_one_table_per_file(void **state)
{
	const char *a[] = { PYTHON, LIBC }, *b[] = { BASH, LIBC };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	u = unwinder_here(KIB(8192));
	note(u, 100, 1, a, 2);
	note(u, 101, 1, b, 2);
	note(u, 100, 1, a, 2);
	settle(u, &st);
	assert_int_equal(st.tables, 3);
	assert_int_equal(st.processes, 2);
	assert_int_equal(st.over_budget, 0);
	assert_true(st.rows > 28000 + 64000);
	unwinder__free(u);
}

/*
 * A table belongs to a file, not to a build-id: a copy of python3.11 (the
 * same build-id, anyone could have made it) gets a table of its own; a
 * hard link to the copy is the same file, and shares the copy's.
 */
static void test_tables_by_file(void **state)
{
	char copy[600], link[600];
	const char *a[] = { PYTHON }, *b[] = { copy }, *c[] = { link };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	u = unwinder_here(KIB(8192));
	snprintf(copy, sizeof(copy), "%s/python_copy", unit_tmpdir());
	snprintf(link, sizeof(link), "%s/python_link", unit_tmpdir());
	unit_sh("cp '%s' '%s' && ln '%s' '%s'", PYTHON, copy, copy, link);
	note(u, 100, 1, a, 1);
	settle(u, &st);
	note(u, 101, 1, b, 1);
	note(u, 102, 1, c, 1);
	settle(u, &st);
	assert_int_equal(st.tables, 2);
	unwinder__free(u);
}

/*
 * A file whose table takes long does not hold up the others: past its
 * slice on the loader's first thread (5 ms here), libLLVM's build goes on
 * on the second, and libdl's, asked for after it and wanted less, is in
 * while libLLVM's is still pending.
 */
static void test_slow_file_does_not_block(void **state)
{
	const char *slow[] = { LLVM }, *quick[] = { LIBDL };
	struct unwinder_stats st = { 0 };
	struct unwinder *u = files_here() ? unwinder_with_room(KIB(32768), 5000000) : NULL;

	(void)state;
	if (!u)
		skip();
	unwinder__hold(u, true);
	note(u, 100, 1, slow, 1);
	note(u, 101, 1, slow, 1); /* wanted twice: built first */
	note(u, 102, 1, quick, 1);
	unwinder__hold(u, false);
	for (int i = 0; i < 1000 && !st.tables; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		unwinder__pass(u);
		unwinder__stats(u, &st);
	}
	assert_int_equal(st.tables, 1);
	assert_true(st.rows < 100);	 /* libdl's, not libLLVM's 0.95M */
	assert_int_equal(st.pending, 1); /* libLLVM's, on the second thread */
	settle(u, &st);
	assert_int_equal(st.tables, 2);
	unwinder__free(u);
}

/*
 * A table larger than the whole budget is never made: refused, and
 * counted by reason.
 */
static void test_refused_over_memory(void **state)
{
	const char *a[] = { PYTHON };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	u = unwinder_here(KIB(64)); /* python3.11's takes ~600 KiB */
	note(u, 100, 1, a, 1);
	settle(u, &st);
	assert_int_equal(st.tables, 0);
	assert_int_equal(st.refused[TABLE_REFUSED_MEMORY], 1);
	assert_int_equal(st.failed, 0);
	unwinder__free(u);
}

/* Is @tgid a key of the walk's pid map? */
static bool in_pid_map(struct unwinder *u, uint32_t tgid)
{
	struct unwind_maps_fds fds;
	uint32_t slot;

	unwind_maps__fds(unwinder__maps(u), &fds);
	return bpf_map_lookup_elem(fds.pids, &tgid, &slot) == 0;
}

/*
 * A process that ended (the capture's exit note) is let go: out of the
 * walk's pid map, its table kept for the process still mapping the file; a
 * note for a process never described changes nothing.
 */
static void test_process_exited(void **state)
{
	const char *a[] = { BASH, LIBC }, *b[] = { LIBC };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	u = unwinder_here(KIB(8192));
	note(u, 100, 1, a, 2);
	note(u, 101, 1, b, 1);
	settle(u, &st);
	assert_int_equal(st.processes, 2);
	assert_true(in_pid_map(u, 100) && in_pid_map(u, 101));

	unwinder__process_exited(u, 100);
	unwinder__process_exited(u, 4242); /* never described */
	settle(u, &st);
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.exits, 1);
	assert_false(in_pid_map(u, 100));
	assert_true(in_pid_map(u, 101));
	assert_int_equal(st.tables, 2); /* libc's, still mapped by 101, and bash's until evicted */
	unwinder__free(u);
}

/*
 * Over the budget, tables of files no process maps any more go first, the
 * least recently used of them; a table that does not fit beside the ones
 * in use is left out, and counted.
 */
static void test_budget(void **state)
{
	const char *first[] = { PYTHON, LIBC }, *then[] = { PERL }, *more[] = { LIBSTDCXX, BASH };
	const char *big[] = { PYTHON };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	/* python3's table takes ~600 KiB, libc's ~270, perl's ~310, libstdc++'s ~320, bash's ~190 */
	u = unwinder_here(KIB(960));
	note(u, 100, 1, first, 2);
	settle(u, &st);
	assert_int_equal(st.tables, 2);
	assert_true(st.bytes <= st.budget);

	/* The process now maps perl alone: python3's and libc's tables are no one's. */
	note(u, 100, 2, then, 1);
	settle(u, &st);
	assert_int_equal(st.over_budget, 0);
	assert_true(st.bytes <= st.budget);
	assert_int_equal(st.tables, 2); /* python3's went, the oldest unused: libc's stays */

	/* Another process, while perl's is in use: libc's goes to make room. */
	note(u, 101, 1, more, 2);
	settle(u, &st);
	assert_int_equal(st.over_budget, 0);
	assert_true(st.bytes <= st.budget);
	assert_int_equal(st.tables, 3);

	/* Every table is in use now: python3's does not fit, and is left out. */
	note(u, 102, 1, big, 1);
	settle(u, &st);
	assert_int_equal(st.over_budget, 1);
	assert_true(st.bytes <= st.budget);
	assert_int_equal(st.tables, 3);
	unwinder__free(u);
}

/*
 * Held, the loader builds nothing: what is asked for waits, pending; let
 * go, it is built. (live__open() holds it while the kernel's symbol table
 * is read.)
 */
static void test_hold(void **state)
{
	const char *a[] = { LIBC };
	struct unwinder_stats st;
	struct unwinder *u;

	(void)state;
	u = unwinder_here(KIB(8192));
	unwinder__hold(u, true);
	note(u, 100, 1, a, 1);
	nanosleep(&(struct timespec){ .tv_nsec = 300000000 }, NULL); /* libc's table takes ~15 ms */
	unwinder__pass(u);
	unwinder__stats(u, &st);
	assert_int_equal(st.tables, 0);
	assert_int_equal(st.pending, 1);
	unwinder__hold(u, false);
	settle(u, &st);
	assert_int_equal(st.tables, 1);
	unwinder__free(u);
}

/* Slot @slot of the walk's process array, as the kernel holds it. */
static struct unwind_proc *read_slot(struct unwind_maps *m, uint32_t slot)
{
	static struct unwind_proc p;
	struct unwind_maps_fds fds;

	unwind_maps__fds(m, &fds);
	assert_int_equal(bpf_map_lookup_elem(fds.procs, &slot, &p), 0);
	return &p;
}

/*
 * A slot names the process it describes, and stops naming it the moment
 * it is replaced or dropped: a walk that remembers a process's slot (see
 * unwind_slot_of() in capture.bpf.c) trusts it only while it does.
 */
static void test_slots_name_their_process(void **state)
{
	struct unwind_map maps[2] = { { .start = 0x1000, .end = 0x2000 },
				      { .start = 0x5000, .end = 0x9000 } };
	struct unwind_maps *m;
	int64_t a, b, c;

	(void)state;
	if (unwind_maps__new(8, 64, &m))
		skip(); /* BPF maps need root */
	a = unwind_maps__put_proc(m, 100, UNWIND_NO_SLOT, maps, 2, false);
	b = unwind_maps__put_proc(m, 200, UNWIND_NO_SLOT, maps, 1, false);
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(read_slot(m, (uint32_t)a)->tgid, 100);
	assert_int_equal(read_slot(m, (uint32_t)a)->n, 2);
	assert_int_equal(read_slot(m, (uint32_t)b)->tgid, 200);

	c = unwind_maps__put_proc(m, 100, (uint32_t)a, maps, 1, false); /* 100 remapped */
	assert_true(c >= 0 && c != a);
	assert_int_equal(read_slot(m, (uint32_t)c)->tgid, 100);
	assert_int_equal(read_slot(m, (uint32_t)a)->tgid, 0);

	unwind_maps__drop_proc(m, 200, (uint32_t)b); /* 200 exited */
	assert_int_equal(read_slot(m, (uint32_t)b)->tgid, 0);
	assert_int_equal(read_slot(m, (uint32_t)c)->tgid, 100);
	unwind_maps__free(m);
}

/* What the walk finds for process @tgid in the pids map: its slot, or why it has none. */
static uint32_t read_pid(struct unwind_maps *m, uint32_t tgid)
{
	struct unwind_maps_fds fds;
	uint32_t slot = UNWIND_NO_SLOT;

	unwind_maps__fds(m, &fds);
	bpf_map_lookup_elem(fds.pids, &tgid, &slot);
	return slot;
}

/* Pool entry @i, as the kernel holds it. */
static struct unwind_map read_pool(struct unwind_maps *m, uint32_t i)
{
	struct unwind_maps_fds fds;
	struct unwind_map map;

	unwind_maps__fds(m, &fds);
	assert_int_equal(bpf_map_lookup_elem(fds.mappings, &i, &map), 0);
	return map;
}

/*
 * Every process's mappings share one pool: a process takes a range of it,
 * gives it back two passes after it left, and one that finds no room (no
 * slot, or no range) is noted so, for its walks to say why.
 */
static void test_mappings_pool(void **state)
{
	struct unwind_map maps[40];
	struct unwind_maps *m;
	int64_t a, b, c, d;

	(void)state;
	for (uint32_t i = 0; i < 40; i++)
		maps[i] = (struct unwind_map){ .start = 0x1000 * (i + 1), .end = 0x1000 * (i + 1) + 0x800,
					       .off = i };
	if (unwind_maps__new(3, 64, &m))
		skip(); /* BPF maps need root */
	a = unwind_maps__put_proc(m, 100, UNWIND_NO_SLOT, maps, 40, false);
	assert_true(a >= 0);
	assert_int_equal(read_slot(m, (uint32_t)a)->n, 40);
	assert_int_equal(read_pool(m, read_slot(m, (uint32_t)a)->first + 39).off, 39);
	assert_int_equal(read_pool(m, read_slot(m, (uint32_t)a)->first + 39).start, 0x28000);
	assert_int_equal(unwind_maps__free_pool(m), 24);
	/* 30 more do not fit beside them: no range, and the walk is told so. */
	b = unwind_maps__put_proc(m, 200, UNWIND_NO_SLOT, maps, 30, false);
	assert_int_equal(b, -ENOBUFS);
	assert_int_equal(read_pid(m, 200), UNWIND_PID_POOL_FULL);
	/* Two small ones take the last slots; a fourth finds none. */
	c = unwind_maps__put_proc(m, 300, UNWIND_NO_SLOT, maps, 10, false);
	d = unwind_maps__put_proc(m, 400, UNWIND_NO_SLOT, maps, 10, true);
	assert_true(c >= 0 && d >= 0);
	assert_int_equal(read_slot(m, (uint32_t)d)->more, 1);
	assert_int_equal(unwind_maps__put_proc(m, 500, UNWIND_NO_SLOT, maps, 1, false), -ENOSPC);
	assert_int_equal(read_pid(m, 500), UNWIND_PID_SLOTS_FULL);
	/* 100 leaves: its slot and range come back two passes later, and 200 fits then. */
	unwind_maps__drop_proc(m, 100, (uint32_t)a);
	assert_int_equal(unwind_maps__put_proc(m, 200, UNWIND_NO_SLOT, maps, 30, false), -ENOSPC);
	unwind_maps__pass(m);
	unwind_maps__pass(m);
	assert_int_equal(unwind_maps__free_pool(m), 44);
	b = unwind_maps__put_proc(m, 200, UNWIND_NO_SLOT, maps, 30, false);
	assert_true(b >= 0);
	assert_int_equal(read_pid(m, 200), (uint32_t)b);
	assert_int_equal(read_pool(m, read_slot(m, (uint32_t)b)->first + 29).off, 29);
	unwind_maps__free(m);
}

/* What a kept cold sample was passed on with: its kernel frames and Python words, copied out. */
struct passed_on {
	int n;
	uint64_t kips[2], pywords[4];
	uint32_t nk, npy;
};

static void on_passed(void *ctx, const struct capture_stack *st)
{
	struct passed_on *p = ctx;

	p->n++;
	p->nk = st->nk;
	p->npy = st->npy;
	memcpy(p->kips, st->kips, st->nk * sizeof(uint64_t));
	memcpy(p->pywords, st->pywords, st->npy * sizeof(uint64_t));
}

/*
 * A copied stack whose tables are not in is kept with all the drain lent it:
 * passed on later, its kernel frames and its Python frames' words are what
 * they were, though the drain's records were used again meanwhile.
 */
static void test_cold_copy_kept_whole(void **state)
{
	uint64_t kips[2] = { 0xffffffff81000010, 0xffffffff81000020 };
	uint64_t pywords[4] = { 0x7f0000001000, 11, 0x7f0000002000, 22 };
	uint64_t found[1] = { 0x401000 };
	uint8_t bytes[64] = { 0 };
	struct capture_stack st = {
		.tgid = 999999, .pid = 999999, .kips = kips, .nk = 2,
		.pywords = pywords, .npy = 4,
		.ucopy = { .found = found, .nfound = 1, .trusted = 1, .ip = 0x401000,
			   .sp = 0x7ffd0000, .bytes = bytes, .len = sizeof(bytes) },
	};
	struct unwinder *u = unwinder_with_room(KIB(1024), 0);
	struct cold_stacks *c = cold_stacks__new();
	struct passed_on p = { 0 };

	(void)state;
	if (!u)
		skip(); /* BPF maps need root */
	assert_non_null(c);
	cold_stacks__take(c, u, &st, 0, on_passed, &p);
	assert_int_equal(p.n, 0); /* kept: no table for it yet */
	memset(kips, 0xee, sizeof(kips));
	memset(pywords, 0xee, sizeof(pywords)); /* the drain's records, used again */
	cold_stacks__retry(c, u, 1, true, on_passed, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.nk, 2);
	assert_int_equal(p.kips[1], 0xffffffff81000020);
	assert_int_equal(p.npy, 4);
	assert_int_equal(p.pywords[0], 0x7f0000001000);
	assert_int_equal(p.pywords[3], 22);
	cold_stacks__free(c);
	unwinder__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_table_per_file),
	    cmocka_unit_test(test_tables_by_file),
	    cmocka_unit_test(test_slow_file_does_not_block),
	    cmocka_unit_test(test_refused_over_memory),
	    cmocka_unit_test(test_process_exited),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_hold),
	    cmocka_unit_test(test_slots_name_their_process),
	    cmocka_unit_test(test_mappings_pool),
	    cmocka_unit_test(test_cold_copy_kept_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
