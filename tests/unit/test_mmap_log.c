// SPDX-License-Identifier: GPL-2.0
/*
 * mmap_log: processes described from the mappings announced since they
 * started, with news a little out of order; and mmap_watch on this
 * machine (as root): a child that exec'd, mapped a library and ended is
 * still described, by the kernel's own records.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "symbols/mmap_log.h"
#include "symbols/mmap_watch.h"

/* A file mapping [@start, @end) at offset @pgoff of @path (inode @inode). */
static struct proc_map file_map(uint64_t start, uint64_t end, uint64_t pgoff, uint64_t inode,
				const char *path)
{
	return (struct proc_map){.start = start,
				 .end = end,
				 .pgoff = pgoff,
				 .inode = inode,
				 .dev_major = 254,
				 .perms = MAP_PERM_R | MAP_PERM_X | MAP_PERM_P,
				 .kind = MAP_FILE,
				 .path = (char *)path};
}

static void map(struct mmap_log *l, uint32_t pid, uint64_t time, uint64_t start, uint64_t end,
		uint64_t pgoff, const char *path)
{
	struct proc_map m = file_map(start, end, pgoff, start >> 12, path);

	mmap_log__map(l, pid, time, &m);
}

/* @pid's mappings as "start-end@pgoff path" lines, into @buf. */
static const char *described(const struct mmap_log *l, uint32_t pid, char *buf, size_t size)
{
	struct proc_maps pm;
	size_t n = 0;

	buf[0] = '\0';
	if (mmap_log__maps(l, pid, &pm))
		return "(not described)";
	for (size_t i = 0; i < pm.n && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%jx-%jx@%jx %s\n",
				      (uintmax_t)pm.maps[i].start, (uintmax_t)pm.maps[i].end,
				      (uintmax_t)pm.maps[i].pgoff, pm.maps[i].path);
	proc_maps__free(&pm);
	return buf;
}

static void test_exec_then_mappings_described_sorted(void **state)
{
	struct mmap_log *l = mmap_log__new();
	char buf[512];
	char path[] = "/usr/lib/libc.so.6";

	(void)state;
	mmap_log__start(l, 10, 0, 100);
	map(l, 10, 101, 0x5000, 0x6000, 0x1000, "/usr/bin/as");
	map(l, 10, 102, 0x1000, 0x3000, 0x26000, path);
	path[0] = 'X'; /* the log keeps its own copy */
	assert_string_equal(described(l, 10, buf, sizeof(buf)),
			    "1000-3000@26000 /usr/lib/libc.so.6\n5000-6000@1000 /usr/bin/as\n");
	assert_int_equal(mmap_log__count(l), 1);
	mmap_log__free(l);
	mmap_log__free(NULL);
}

static void test_start_not_seen_not_described(void **state)
{
	struct mmap_log *l = mmap_log__new();
	struct proc_maps pm;
	char buf[256];

	(void)state;
	/* Mappings of a process that ran before the log: part of them would pass for all. */
	map(l, 7, 50, 0x1000, 0x2000, 0, "/bin/sh");
	assert_int_equal(mmap_log__maps(l, 7, &pm), -ENOENT);
	/* Forked by a process the log does not know: its inherited mappings are unknown ... */
	mmap_log__start(l, 8, 7, 60);
	map(l, 8, 61, 0x1000, 0x2000, 0, "/bin/sh");
	assert_int_equal(mmap_log__maps(l, 8, &pm), -ENOENT);
	/* ... until it execs. */
	mmap_log__start(l, 8, 0, 70);
	map(l, 8, 71, 0x9000, 0xa000, 0, "/bin/true");
	assert_string_equal(described(l, 8, buf, sizeof(buf)), "9000-a000@0 /bin/true\n");
	/* Started, but nothing mapped yet: nothing to describe. */
	mmap_log__start(l, 9, 0, 80);
	assert_int_equal(mmap_log__maps(l, 9, &pm), -ENOENT);
	mmap_log__free(l);
}

static void test_fork_takes_parent_mappings_made_before(void **state)
{
	struct mmap_log *l = mmap_log__new();
	char buf[512];

	(void)state;
	mmap_log__start(l, 1, 0, 10);
	map(l, 1, 11, 0x1000, 0x2000, 0, "/usr/bin/make");
	mmap_log__start(l, 2, 1, 20);
	map(l, 1, 21, 0x4000, 0x5000, 0, "/usr/lib/late.so"); /* the parent's, after the fork */
	map(l, 2, 22, 0x7000, 0x8000, 0, "/usr/lib/child.so");
	assert_string_equal(described(l, 2, buf, sizeof(buf)),
			    "1000-2000@0 /usr/bin/make\n7000-8000@0 /usr/lib/child.so\n");
	/* Its exec drops them all. */
	mmap_log__start(l, 2, 0, 30);
	map(l, 2, 31, 0x9000, 0xa000, 0, "/usr/bin/as");
	assert_string_equal(described(l, 2, buf, sizeof(buf)), "9000-a000@0 /usr/bin/as\n");
	mmap_log__free(l);
}

static void test_news_out_of_order_kept_by_time(void **state)
{
	struct mmap_log *l = mmap_log__new();
	char buf[512];

	(void)state;
	mmap_log__start(l, 3, 0, 10);
	map(l, 3, 11, 0x1000, 0x2000, 0, "/bin/old");
	map(l, 3, 31, 0x9000, 0xa000, 0, "/bin/new"); /* read before the exec it follows */
	mmap_log__start(l, 3, 0, 30);
	mmap_log__start(l, 3, 0, 20);			/* older news of a start: ignored */
	map(l, 3, 25, 0x5000, 0x6000, 0, "/bin/stale"); /* made before the last start */
	assert_string_equal(described(l, 3, buf, sizeof(buf)), "9000-a000@0 /bin/new\n");
	/* A mapping announced before the one now there is not put over it. */
	map(l, 3, 29, 0x9000, 0xa000, 0, "/bin/older");
	assert_string_equal(described(l, 3, buf, sizeof(buf)), "9000-a000@0 /bin/new\n");
	mmap_log__free(l);
}

static void test_mapping_over_part_of_another_cuts_it(void **state)
{
	struct mmap_log *l = mmap_log__new();
	char buf[512];

	(void)state;
	mmap_log__start(l, 4, 0, 10);
	map(l, 4, 11, 0x10000, 0x20000, 0x3000, "/lib/big.so");
	map(l, 4, 12, 0x14000, 0x16000, 0, "/lib/small.so");
	assert_string_equal(described(l, 4, buf, sizeof(buf)),
			    "10000-14000@3000 /lib/big.so\n14000-16000@0 /lib/small.so\n"
			    "16000-20000@9000 /lib/big.so\n");
	/* One over all of them replaces them all. */
	map(l, 4, 13, 0xf000, 0x21000, 0, "/lib/all.so");
	assert_string_equal(described(l, 4, buf, sizeof(buf)), "f000-21000@0 /lib/all.so\n");
	mmap_log__free(l);
}

static void test_ended_expire_after_passes(void **state)
{
	struct mmap_log *l = mmap_log__new();
	struct proc_maps pm;
	char buf[256];

	(void)state;
	mmap_log__start(l, 5, 0, 10);
	map(l, 5, 11, 0x1000, 0x2000, 0, "/bin/as");
	mmap_log__start(l, 6, 0, 12);
	map(l, 6, 13, 0x1000, 0x2000, 0, "/bin/ld");
	/* Pid 7 ends first, then its pid is used again: the new process stays. */
	mmap_log__start(l, 7, 0, 14);
	map(l, 7, 15, 0x1000, 0x2000, 0, "/bin/cc1");
	mmap_log__end(l, 7, 2);
	mmap_log__end(l, 5, 3);
	mmap_log__start(l, 7, 0, 16);
	map(l, 7, 17, 0x3000, 0x4000, 0, "/bin/collect2");
	mmap_log__expire(l, 3 + MMAP_LOG_ENDED_PASSES - 1);
	assert_string_equal(described(l, 5, buf, sizeof(buf)), "1000-2000@0 /bin/as\n");
	mmap_log__expire(l, 3 + MMAP_LOG_ENDED_PASSES);
	assert_int_equal(mmap_log__maps(l, 5, &pm), -ENOENT);
	assert_string_equal(described(l, 6, buf, sizeof(buf)), "1000-2000@0 /bin/ld\n");
	assert_string_equal(described(l, 7, buf, sizeof(buf)), "3000-4000@0 /bin/collect2\n");
	/* Told of its end again (a thread's and the process's records): it expires by the last. */
	mmap_log__end(l, 6, 3 + MMAP_LOG_ENDED_PASSES);
	mmap_log__end(l, 7, 3 + MMAP_LOG_ENDED_PASSES);
	mmap_log__end(l, 6, 4 + MMAP_LOG_ENDED_PASSES);
	mmap_log__expire(l, 3 + 2 * MMAP_LOG_ENDED_PASSES);
	assert_int_equal(mmap_log__maps(l, 7, &pm), -ENOENT);
	assert_string_equal(described(l, 6, buf, sizeof(buf)), "1000-2000@0 /bin/ld\n");
	/* Records lost: nobody is described. */
	mmap_log__clear(l);
	assert_int_equal(mmap_log__maps(l, 6, &pm), -ENOENT);
	assert_int_equal(mmap_log__count(l), 0);
	mmap_log__free(l);
}

static void test_bounded_least_recent_go(void **state)
{
	struct mmap_log *l = mmap_log__new();
	struct proc_maps pm;
	char buf[256];

	(void)state;
	for (uint32_t pid = 1; pid <= MMAP_LOG_PROCS + 1; pid++) {
		mmap_log__start(l, pid, 0, pid);
		map(l, pid, pid, 0x1000, 0x2000, 0, "/bin/sh");
	}
	assert_int_equal(mmap_log__count(l), MMAP_LOG_PROCS);
	assert_int_equal(mmap_log__maps(l, 1, &pm), -ENOENT);
	assert_string_equal(described(l, MMAP_LOG_PROCS + 1, buf, sizeof(buf)),
			    "1000-2000@0 /bin/sh\n");
	mmap_log__free(l);
}

static void test_process_past_its_mappings_not_described(void **state)
{
	struct mmap_log *l = mmap_log__new();
	struct proc_maps pm;

	(void)state;
	mmap_log__start(l, 7, 0, 1);
	for (uint64_t i = 0; i < MMAP_LOG_MAPS; i++)
		map(l, 7, 2 + i, (i + 1) << 12, (i + 2) << 12, 0, "/lib/jit.so");
	assert_int_equal(mmap_log__maps(l, 7, &pm), 0);
	assert_int_equal(pm.n, MMAP_LOG_MAPS);
	proc_maps__free(&pm);
	/* One more: some of its mappings would pass for all of them. */
	map(l, 7, 2 + MMAP_LOG_MAPS, (MMAP_LOG_MAPS + 1) << 12, (MMAP_LOG_MAPS + 2) << 12, 0,
	    "/lib/jit.so");
	assert_int_equal(mmap_log__maps(l, 7, &pm), -ENOENT);
	/* Until it execs anew. */
	mmap_log__start(l, 7, 0, 3 + MMAP_LOG_MAPS);
	map(l, 7, 4 + MMAP_LOG_MAPS, 0x1000, 0x2000, 0, "/bin/sh");
	assert_int_equal(mmap_log__maps(l, 7, &pm), 0);
	assert_int_equal(pm.n, 1);
	proc_maps__free(&pm);
	mmap_log__free(l);
}

/* Does @pm map the file at @path (by its device and inode)? */
static bool maps_file(const struct proc_maps *pm, const char *path)
{
	struct stat st;
	bool found = false;

	assert_int_equal(stat(path, &st), 0);
	for (size_t i = 0; i < pm->n; i++) {
		const struct proc_map *m = &pm->maps[i];

		assert_true(m->perms & MAP_PERM_X);
		found |= m->inode == st.st_ino && m->dev_major == major(st.st_dev) &&
			 m->dev_minor == minor(st.st_dev) && m->kind == MAP_FILE;
	}
	return found;
}

/* Does @pm map libc? */
static bool maps_libc(const struct proc_maps *pm)
{
	for (size_t i = 0; i < pm->n; i++)
		if (strstr(pm->maps[i].path, "/libc.so"))
			return true;
	return false;
}

/* A watch, or a skip where one can't be had. */
static struct mmap_watch *watch_open(void)
{
	struct mmap_watch *w;

	if (geteuid() != 0)
		skip(); /* watching every CPU needs privileges */
	w = mmap_watch__open();
	assert_non_null(w);
	return w;
}

/* Runs @argv (a child of ours), to its end. Returns its pid. */
static pid_t run_child(char *const argv[])
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* The watch: a child execs @argv[0], which maps libraries, and ends before it is asked. */
static void test_watch_describes_child_that_ended(void **state)
{
	char *const argv[] = {"/bin/true", NULL};
	struct mmap_watch *w = watch_open();
	struct proc_maps pm;
	pid_t pid;

	(void)state;
	pid = run_child(argv);
	mmap_watch__poll(w, 1);
	assert_int_equal(mmap_watch__maps(w, (uint32_t)pid, &pm), 0);
	assert_true(maps_file(&pm, "/bin/true"));
	assert_true(maps_libc(&pm));
	proc_maps__free(&pm);
	assert_int_equal(mmap_watch__losses(w), 0);
	mmap_watch__close(w);
	mmap_watch__close(NULL);
}

/*
 * The watch, all in one read: a shell forks a subshell (which runs no
 * program: it has the shell's mappings) and then execs /bin/true, whose
 * exec drops the shell's mappings. The subshell is still described with
 * the shell's, the shell with /bin/true's.
 */
static void test_watch_fork_before_exec_keeps_child_mappings(void **state)
{
	char pid_file[] = "/tmp/flametop_test_mmap_XXXXXX";
	char sh_cmd[128];
	char *const argv[] = {"/bin/sh", "-c", sh_cmd, NULL};
	struct mmap_watch *w = watch_open();
	struct proc_maps pm;
	unsigned sub = 0;
	pid_t shell;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(pid_file);
	assert_true(fd >= 0);
	close(fd);
	snprintf(sh_cmd, sizeof(sh_cmd), "(exit 0) & echo $! >%s; exec /bin/true", pid_file);
	shell = run_child(argv);
	f = fopen(pid_file, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &sub), 1);
	fclose(f);
	unlink(pid_file);
	mmap_watch__poll(w, 1);
	assert_int_equal(mmap_watch__maps(w, sub, &pm), 0);
	assert_true(maps_file(&pm, "/bin/sh"));
	assert_false(maps_file(&pm, "/bin/true"));
	assert_true(maps_libc(&pm));
	proc_maps__free(&pm);
	assert_int_equal(mmap_watch__maps(w, (uint32_t)shell, &pm), 0);
	assert_true(maps_file(&pm, "/bin/true"));
	assert_false(maps_file(&pm, "/bin/sh"));
	proc_maps__free(&pm);
	assert_int_equal(mmap_watch__losses(w), 0);
	mmap_watch__close(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exec_then_mappings_described_sorted),
	    cmocka_unit_test(test_start_not_seen_not_described),
	    cmocka_unit_test(test_fork_takes_parent_mappings_made_before),
	    cmocka_unit_test(test_news_out_of_order_kept_by_time),
	    cmocka_unit_test(test_mapping_over_part_of_another_cuts_it),
	    cmocka_unit_test(test_ended_expire_after_passes),
	    cmocka_unit_test(test_bounded_least_recent_go),
	    cmocka_unit_test(test_process_past_its_mappings_not_described),
	    cmocka_unit_test(test_watch_describes_child_that_ended),
	    cmocka_unit_test(test_watch_fork_before_exec_keeps_child_mappings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
