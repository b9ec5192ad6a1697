// SPDX-License-Identifier: GPL-2.0
/*
 * procinfo: /proc/PID/stat and status text, real and hostile. Expected
 * values for live processes come from the files read with awk.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/wait.h>

#include "symbols/procinfo.h"

/* Fields 3..21 of a stat line, then the start time and the rest. */
#define STAT_MIDDLE "S 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 "
#define STAT_TAIL " 21 22 23\n"

static int start_of(const char *text, uint64_t *start)
{
	return proc_stat__start_time(text, strlen(text), start);
}

static void test_stat_start_time(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(start_of("42 (cat) " STAT_MIDDLE "123456" STAT_TAIL, &v), 0);
	assert_int_equal(v, 123456);
	/* A command name with spaces, parentheses and a newline. */
	assert_int_equal(start_of("42 (a) b (c) S 9\n) " STAT_MIDDLE "77" STAT_TAIL, &v), 0);
	assert_int_equal(v, 77);
	/* The last field of the line. */
	assert_int_equal(start_of("42 (x) " STAT_MIDDLE "5", &v), 0);
	assert_int_equal(v, 5);
}

static void test_stat_hostile(void **state)
{
	static const char *const bad[] = {
	    "",
	    "42 cat S 1",
	    "42 (cat)",
	    "42 (cat) ",
	    "42 (cat)S 1 2",
	    "42 (cat) S 1 2 3",
	    "42 (cat) " STAT_MIDDLE,
	    "42 (cat) " STAT_MIDDLE "x1" STAT_TAIL,
	    "42 (cat) " STAT_MIDDLE "12x" STAT_TAIL,
	    "42 (cat) " STAT_MIDDLE "-1" STAT_TAIL,
	    "42 (cat) " STAT_MIDDLE "99999999999999999999999" STAT_TAIL,
	};
	uint64_t v = 99;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (start_of(bad[i], &v) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
	assert_int_equal(v, 99);
	/* Not NUL-terminated: only @len bytes are read. */
	assert_int_equal(proc_stat__start_time("42 (cat) " STAT_MIDDLE "31" STAT_TAIL,
					       strlen("42 (cat) " STAT_MIDDLE "3"), &v),
			 0);
	assert_int_equal(v, 3);
}

static int status_of(const char *text, uint32_t pid, struct proc_status *st)
{
	return proc_status__parse(text, strlen(text), pid, st);
}

static void test_status(void **state)
{
	struct proc_status st;

	(void)state;
	assert_int_equal(status_of("Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t5\t6\t7\t8\n"
				   "NSpid:\t4242\t17\t3\nGroups:\t24 25 1000 \n",
				   4242, &st),
			 0);
	assert_int_equal(st.euid, 1001);
	assert_int_equal(st.creds.uid, 1003); /* the file-system ids are what opens check */
	assert_int_equal(st.creds.gid, 8);
	assert_int_equal(st.creds.n_groups, 3);
	assert_int_equal(st.creds.groups[0], 24);
	assert_int_equal(st.creds.groups[2], 1000);
	assert_int_equal(st.ns_pid, 3);
	assert_int_equal(st.vm.size_kb, 0); /* no Vm lines: a kernel thread */
	/* The sizes of its mappings. */
	assert_int_equal(status_of("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nVmSize:\t  123456 kB\n"
				   "VmExe:\t      84 kB\nVmLib:\t    2184 kB\n",
				   1, &st),
			 0);
	assert_int_equal(st.vm.size_kb, 123456);
	assert_int_equal(st.vm.exe_kb, 84);
	assert_int_equal(st.vm.lib_kb, 2184);
	/* No NSpid line (old kernels): the pid itself; no Groups line: none. */
	assert_int_equal(status_of("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n", 99, &st), 0);
	assert_int_equal(st.ns_pid, 99);
	assert_int_equal(st.euid, 0);
	assert_int_equal(st.creds.n_groups, 0);
	/* A name that pretends to be a Uid line is not at the start of a line. */
	assert_int_equal(
	    status_of("Name:\tUid:\t7\t7\t7\t7\nUid:\t8\t9\t9\t9\nGid:\t1\t1\t1\t1\n", 1, &st), 0);
	assert_int_equal(st.euid, 9);
}

static void test_status_hostile(void **state)
{
	static const char *const bad[] = {
	    "",
	    "Name:\tx\n",
	    "Uid:\n",
	    "Uid:\t1000\n",
	    "Uid:\tx\t1\n",
	    "Uid:\t1\t99999999999\n",
	    "Uid:\t1\t-2\n",
	    "Uid:\t1\t2\t3\t4\n",		     /* no Gid line */
	    "Uid:\t1\t2\t3\t4\nGid:\t1\t2\n", /* no file-system gid */
	    "Uid:\t1\t2\nGid:\t1\t2\t3\t4\n", /* no file-system uid */
	};
	struct proc_status st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (status_of(bad[i], 1, &st) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
	/* A malformed NSpid or Groups line keeps what parsed before it. */
	assert_int_equal(
	    status_of("Uid:\t1\t2\t3\t4\nGid:\t1\t2\t3\t4\nNSpid:\t50\tzz\n", 50, &st), 0);
	assert_int_equal(st.ns_pid, 50);
	assert_int_equal(status_of("Uid:\t1\t2\t3\t4\nGid:\t1\t2\t3\t4\nNSpid:\n", 50, &st), 0);
	assert_int_equal(st.ns_pid, 50);
	assert_int_equal(
	    status_of("Uid:\t1\t2\t3\t4\nGid:\t1\t2\t3\t4\nGroups:\t5 x 7\n", 50, &st), 0);
	assert_int_equal(st.creds.n_groups, 1);
	assert_int_equal(st.creds.groups[0], 5);
	/* A malformed size is 0, not what a number in it would be. */
	assert_int_equal(status_of("Uid:\t1\t2\t3\t4\nGid:\t1\t2\t3\t4\nVmSize:\tx12 kB\n"
				   "VmLib:\t99999999999999999999999 kB\n",
				   50, &st),
			 0);
	assert_int_equal(st.vm.size_kb, 0);
	assert_int_equal(st.vm.lib_kb, 0);
}

/* Field @field of /proc/@pid/@file, as awk reads it. */
static uint64_t awk_field(pid_t pid, const char *file, const char *prog)
{
	char cmd[256];
	unsigned long long v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "awk '%s' /proc/%d/%s", prog, (int)pid, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llu", &v), 1);
	pclose(p);
	return v;
}

static void test_live_processes(void **state)
{
	struct proc_status st;
	uint64_t start;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(proc_info__start_time("/proc", (uint32_t)getpid(), &start), 0);
	assert_int_equal(start, awk_field(getpid(), "stat", "{ print $22 }"));
	assert_int_equal(proc_info__status("/proc", (uint32_t)getpid(), &st), 0);
	assert_int_equal(st.euid, awk_field(getpid(), "status", "/^Uid:/ { print $3 }"));
	assert_int_equal(st.creds.uid, awk_field(getpid(), "status", "/^Uid:/ { print $5 }"));
	assert_int_equal(st.creds.gid, awk_field(getpid(), "status", "/^Gid:/ { print $5 }"));
	assert_int_equal(st.ns_pid, (uint32_t)getpid());
	assert_int_equal(st.vm.lib_kb, awk_field(getpid(), "status", "/^VmLib:/ { print $2 }"));
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(proc_info__start_time("/proc", (uint32_t)pid, &start), -ENOENT);
	assert_int_equal(proc_info__status("/proc", (uint32_t)pid, &st), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat_start_time), cmocka_unit_test(test_stat_hostile),
	    cmocka_unit_test(test_status),	    cmocka_unit_test(test_status_hostile),
	    cmocka_unit_test(test_live_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
