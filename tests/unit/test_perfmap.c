// SPDX-License-Identifier: GPL-2.0
/*
 * perfmap: the parser against hostile text, and opening a process's perf
 * map through a made-up /proc tree: its namespace pid, its root, and the
 * checks on what the file is and who owns it.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "symbols/perfmap.h"
#include "symbols/perfmap_cache.h"
#include "symbols/sanitize.h"

/* perf_map__read() of the @len bytes at @text, with a budget of @max_bytes. */
static int read_text(const char *text, size_t len, size_t max_bytes, struct perf_map **pm,
		     size_t *bad)
{
	int fd = unit_text_fd(text, len), err = perf_map__read(fd, max_bytes, pm, bad);

	close(fd);
	assert_true(err ? *pm == NULL : *pm != NULL);
	return err;
}

static struct perf_map *parse(const char *text, size_t *bad)
{
	struct perf_map *pm = NULL;

	assert_int_equal(read_text(text, strlen(text), SIZE_MAX, &pm, bad), 0);
	return pm;
}

static void expect_name(const struct perf_map *pm, uint64_t addr, const char *want)
{
	const char *got = perf_map__lookup(pm, addr);

	if (!want) {
		if (got)
			fail_msg("0x%jx: got \"%s\", wanted none", (uintmax_t)addr, got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
}

static void test_parse_and_lookup(void **state)
{
	size_t bad = 99;
	struct perf_map *pm = parse("1000 10 first\n"
				    "0x2000 0x20 second one [with spaces]\n"
				    "3000 8 LazyCompile:~foo /app/x.js:1\n",
				    &bad);

	(void)state;
	assert_int_equal(bad, 0);
	assert_int_equal(perf_map__count(pm), 3);
	expect_name(pm, 0x1000, "first");
	expect_name(pm, 0x100f, "first");
	expect_name(pm, 0x1010, NULL);
	expect_name(pm, 0xfff, NULL);
	expect_name(pm, 0x201f, "second one [with spaces]");
	expect_name(pm, 0x3007, "LazyCompile:~foo /app/x.js:1");
	expect_name(pm, 0x3008, NULL);
	assert_true(perf_map__covers(pm, 0x1000, 0x1001));
	assert_true(perf_map__covers(pm, 0x1800, 0x2001));
	assert_false(perf_map__covers(pm, 0x1001, 0x2000));
	assert_false(perf_map__covers(pm, 0x3001, 0x9000));
	assert_true(perf_map__bytes(pm) > 0);
	perf_map__free(pm);
	perf_map__free(NULL);
}

static void test_later_entry_wins(void **state)
{
	struct perf_map *pm = parse("5000 100 old_code\n"
				    "4000 10 other\n"
				    "5000 40 new_code\n",
				    NULL);

	(void)state;
	assert_int_equal(perf_map__count(pm), 2);
	expect_name(pm, 0x5010, "new_code");
	expect_name(pm, 0x5050, NULL);
	perf_map__free(pm);
}

static void test_hostile_lines(void **state)
{
	char text[16384];
	size_t bad, n = 0;
	struct perf_map *pm;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "\n"
			      "garbage\n"
			      "1000\n"
			      "1000 10\n"
			      "1000 10 \n"
			      "1000  10 double space\n"
			      "zz 10 bad_start\n"
			      "1000 zz bad_size\n"
			      "1000 0 zero_size\n"
			      "ffffffffffffffff 2 wraps\n"
			      "1ffffffffffffffff 2 too_big\n"
			      "0x 10 no_digits\n"
			      "2000 10 esc\x1b[31m\x7f\xc2\x85name\n"
			      "3000 10 ok\r\n");
	memset(text + n, 'a', 5000); /* a line longer than 4 KiB */
	n += 5000;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\n4000 10 after_long\n5000 10 tail");
	pm = parse(text, &bad);
	assert_int_equal(bad, 13);
	assert_int_equal(perf_map__count(pm), 4);
	expect_name(pm, 0x2000, "esc?[31m??name");
	expect_name(pm, 0x3000, "ok?");
	expect_name(pm, 0x4000, "after_long");
	expect_name(pm, 0x5000, "tail");
	expect_name(pm, 0x1000, NULL);
	perf_map__free(pm);
	/* A NUL inside a line. */
	assert_int_equal(read_text("1000 10 a\0b\n2000 10 c\n", 21, SIZE_MAX, &pm, &bad), 0);
	assert_int_equal(bad, 1);
	expect_name(pm, 0x1000, NULL);
	expect_name(pm, 0x2000, "c");
	perf_map__free(pm);
	/* Nothing at all. */
	assert_int_equal(read_text("", 0, SIZE_MAX, &pm, NULL), 0);
	assert_int_equal(perf_map__count(pm), 0);
	expect_name(pm, 0, NULL);
	assert_false(perf_map__covers(pm, 0, UINT64_MAX));
	perf_map__free(pm);
}

/* A JIT's long names (a line holds up to 4 KiB) are kept whole: two never become one. */
static void test_long_names_whole(void **state)
{
	char text[3000];
	struct perf_map *pm;
	const char *name;

	(void)state;
	memcpy(text, "1000 10 ", 8);
	memset(text + 8, 'n', sizeof(text) - 9);
	text[sizeof(text) - 1] = '\0';
	pm = parse(text, NULL);
	name = perf_map__lookup(pm, 0x1000);
	assert_non_null(name);
	assert_int_equal(strlen(name), sizeof(text) - 9);
	assert_int_equal(strspn(name, "n"), sizeof(text) - 9);
	perf_map__free(pm);
}

/* Lines longer than 4 KiB that span the blocks the file is read in: each skipped, and counted. */
static void test_long_lines_across_blocks(void **state)
{
	static const char head[] = "1000 10 before\n", mid[] = "\n2000 10 after\n";
	size_t len = 0, bad = 0, long_line = 200 * 1024;
	char *text = malloc(2 * long_line + 64);
	struct perf_map *pm;

	(void)state;
	assert_non_null(text);
	memcpy(text, head, sizeof(head) - 1);
	len += sizeof(head) - 1;
	memset(text + len, 'a', long_line);
	len += long_line;
	memcpy(text + len, mid, sizeof(mid) - 1);
	len += sizeof(mid) - 1;
	memset(text + len, 'b', long_line); /* the last line, without a newline */
	len += long_line;
	assert_int_equal(read_text(text, len, SIZE_MAX, &pm, &bad), 0);
	assert_int_equal(bad, 2);
	assert_int_equal(perf_map__count(pm), 2);
	expect_name(pm, 0x1000, "before");
	expect_name(pm, 0x2000, "after");
	perf_map__free(pm);
	free(text);
}

/*
 * The text of a perf map of @n entries, 16 bytes apart from 0x10000000,
 * named like a JIT's ("LazyCompile:~fn_0000042 x.js:1"), and then @n_bad
 * malformed lines; its length in *@len.
 */
static char *jit_map_text(size_t n, size_t n_bad, size_t *len)
{
	size_t cap = (n + n_bad) * 48 + 1, used = 0;
	char *text = malloc(cap);

	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, cap - used,
					 "%zx 10 LazyCompile:~fn_%07zu x.js:1\n",
					 0x10000000 + i * 16, i);
	for (size_t i = 0; i < n_bad; i++)
		used += (size_t)snprintf(text + used, cap - used, "not a perf map line\n");
	*len = used;
	return text;
}

/*
 * A map that cannot fit in the bytes it is given is not read past them:
 * the read stops at the line that goes over, and nothing after it is
 * parsed (the malformed lines at its end are never met) or read but the
 * block it was in. A map that fits, even exactly, is read whole.
 */
static void test_read_stops_past_the_budget(void **state)
{
	size_t len, bad = 99, whole;
	char *text = jit_map_text(40000, 100, &len);
	struct perf_map *pm;
	off_t read_to;
	int fd;

	(void)state;
	/* Read whole, it takes this much. */
	assert_int_equal(read_text(text, len, SIZE_MAX, &pm, &bad), 0);
	assert_int_equal(perf_map__count(pm), 40000);
	assert_int_equal(bad, 100);
	whole = perf_map__bytes(pm);
	perf_map__free(pm);
	assert_true(whole > 1 << 20);
	/* Given 64 KiB: stopped early. */
	fd = unit_text_fd(text, len);
	assert_int_equal(perf_map__read(fd, 64 << 10, &pm, &bad), -ENOSPC);
	assert_null(pm);
	assert_int_equal(bad, 0);
	read_to = lseek(fd, 0, SEEK_CUR);
	if (read_to < 0 || (size_t)read_to > len / 8)
		fail_msg("%jd bytes of %zu read for a 64 KiB budget", (intmax_t)read_to, len);
	close(fd);
	/* Given one byte less than it takes: refused; given what it takes: read whole. */
	assert_int_equal(read_text(text, len, whole - 1, &pm, NULL), -ENOSPC);
	assert_int_equal(read_text(text, len, whole, &pm, NULL), 0);
	assert_int_equal(perf_map__count(pm), 40000);
	expect_name(pm, 0x10000000 + 39999 * 16, "LazyCompile:~fn_0039999 x.js:1");
	perf_map__free(pm);
	free(text);
}

/*
 * Makes "<tmp>/<name>/4242" with a status file (namespace pid 17, euid
 * @euid) and a root directory holding tmp/. Returns the proc root in @root.
 */
static void fake_proc(const char *name, unsigned int euid, char *root, size_t size)
{
	char path[800], status[128];

	snprintf(root, size, "%s/%s", unit_tmpdir(), name);
	unit_sh("mkdir -p '%s/4242/root/tmp'", root);
	snprintf(path, sizeof(path), "%s/4242/status", root);
	snprintf(status, sizeof(status),
		 "Name:\tjit\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nNSpid:\t4242\t17\n", euid,
		 euid, euid, euid, euid, euid, euid, euid);
	unit_write_file(path, status);
}

static int open_map(const char *root, struct perf_map **pm)
{
	*pm = NULL;
	return perf_map__open(root, 4242, NULL, SIZE_MAX, pm);
}

static void test_open_by_namespace_pid(void **state)
{
	char root[600], path[800];
	struct perf_map *pm;

	(void)state;
	fake_proc("ns-pid", (unsigned int)geteuid(), root, sizeof(root));
	assert_int_equal(open_map(root, &pm), -ENOENT);
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-4242.map", root);
	unit_write_file(path, "1000 10 host_pid_map\n");
	assert_int_equal(open_map(root, &pm), -ENOENT); /* the file of pid 4242 is not its own */
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	unit_write_file(path, "1000 10 jitted\n");
	assert_int_equal(open_map(root, &pm), 0);
	expect_name(pm, 0x1000, "jitted");
	perf_map__free(pm);
}

static void test_refuses_what_is_not_a_plain_file(void **state)
{
	char root[600], path[800], outside[800];
	struct perf_map *pm;

	(void)state;
	fake_proc("not-plain", (unsigned int)geteuid(), root, sizeof(root));
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	snprintf(outside, sizeof(outside), "%s/outside.map", unit_tmpdir());
	unit_write_file(outside, "1000 10 planted\n");
	/* A symlink, even to a good file. */
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(open_map(root, &pm), -EPERM);
	assert_null(pm);
	unlink(path);
	/* A FIFO: refused without blocking. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(open_map(root, &pm), -EPERM);
	unlink(path);
	/* A directory. */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(open_map(root, &pm), -EPERM);
	rmdir(path);
	/* Too big (sparse). */
	unit_sh("truncate -s %lu '%s'", PERF_MAP_MAX_BYTES + 1, path);
	assert_int_equal(open_map(root, &pm), -EPERM);
	unlink(path);
}

/* The process's /tmp is a symlink out of its root: followed inside the root only. */
static void test_symlinks_stay_in_the_root(void **state)
{
	char root[600], path[800], outside[800];
	struct perf_map *pm;

	(void)state;
	fake_proc("escape", (unsigned int)geteuid(), root, sizeof(root));
	snprintf(outside, sizeof(outside), "%s/outside-tmp", unit_tmpdir());
	unit_sh("mkdir -p '%s' && echo '1000 10 planted' > '%s/perf-17.map'", outside, outside);
	snprintf(path, sizeof(path), "%s/4242/root/tmp", root);
	assert_int_equal(rmdir(path), 0);
	/* From <proc>/4242/root, "../../.." is the test's directory: outside-tmp is there. */
	assert_int_equal(symlink("../../../outside-tmp", path), 0);
	assert_int_equal(open_map(root, &pm), -ENOENT);
	assert_null(pm);
}

/*
 * The process runs as uid 4000 (and gid 4000). Its map is read as it could
 * read it: one it owns, or one root wrote for it; never one another user
 * planted, nor one it may not read itself, as a root-only file bound over
 * its /tmp/perf-PID.map in its own mount namespace would be.
 */
static void test_read_as_the_process(void **state)
{
	char root[600], path[800];
	struct perf_map *pm;

	(void)state;
	if (geteuid() != 0)
		skip(); /* files owned by someone else need root to make */
	fake_proc("owner", 4000, root, sizeof(root));
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	unit_write_file(path, "1000 10 jitted\n");
	assert_int_equal(chown(path, 4000, 4000), 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(open_map(root, &pm), 0);
	expect_name(pm, 0x1000, "jitted");
	perf_map__free(pm);
	/* Root's, readable by all. */
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(open_map(root, &pm), 0);
	perf_map__free(pm);
	/* Root's, for root only: the process could not read it. */
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(open_map(root, &pm), -EACCES);
	assert_null(pm);
	/* Readable through a group the process is not in. */
	assert_int_equal(chown(path, 0, 4001), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(open_map(root, &pm), -EACCES);
	/* Another user's, readable by all: not the process's map. */
	assert_int_equal(chown(path, 4001, 4001), 0);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(open_map(root, &pm), -EPERM);
	assert_null(pm);
}

/* Writes @text into the map of @root's process 4242 and sets its times to @mtime (0: now). */
static void write_map(const char *root, const char *text, time_t mtime)
{
	char path[800];

	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	unit_write_file(path, text);
	if (mtime)
		unit_sh("touch -d @%ld '%s'", (long)mtime, path);
}

/* Opens the map of @root's process 4242 against version @id; the map is freed. */
static int reopen_map(const char *root, struct perf_map_id *id)
{
	struct perf_map *pm = NULL;
	int err = perf_map__open(root, 4242, id, SIZE_MAX, &pm);

	assert_true(err ? pm == NULL : pm != NULL);
	perf_map__free(pm);
	return err;
}

/* A file is read again only when its inode, size or modification time changed. */
static void test_read_again_when_changed(void **state)
{
	struct perf_map_id id = {0};
	char root[600], path[800], moved[800];

	(void)state;
	fake_proc("changed", (unsigned int)geteuid(), root, sizeof(root));
	write_map(root, "1000 10 a\n", 1000000);
	assert_int_equal(reopen_map(root, &id), 0);
	assert_int_equal(reopen_map(root, &id), -EALREADY);
	/* Longer. */
	write_map(root, "1000 10 ab\n", 1000000);
	assert_int_equal(reopen_map(root, &id), 0);
	assert_int_equal(reopen_map(root, &id), -EALREADY);
	/* As long, written later. */
	write_map(root, "1000 10 ac\n", 1000001);
	assert_int_equal(reopen_map(root, &id), 0);
	assert_int_equal(reopen_map(root, &id), -EALREADY);
	/* Another file of the same size and time in its place. */
	snprintf(path, sizeof(path), "%s/4242/root/tmp/perf-17.map", root);
	snprintf(moved, sizeof(moved), "%s/4242/root/tmp/new.map", root);
	unit_write_file(moved, "1000 10 ad\n");
	unit_sh("touch -d @1000001 '%s' && mv '%s' '%s'", moved, moved, path);
	assert_int_equal(reopen_map(root, &id), 0);
	assert_int_equal(reopen_map(root, &id), -EALREADY);
	/* Without a version, always. */
	assert_int_equal(reopen_map(root, NULL), 0);
}

/*
 * Makes process @pid in proc root @root (created if need be), running as
 * the test does, with a perf map of one entry named @name at 0x1000.
 */
static void fake_jit(const char *root, unsigned int pid, const char *name)
{
	char path[800], text[200];
	unsigned int id = (unsigned int)geteuid();

	unit_sh("mkdir -p '%s/%u/root/tmp'", root, pid);
	snprintf(path, sizeof(path), "%s/%u/status", root, pid);
	snprintf(text, sizeof(text), "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nNSpid:\t%u\n",
		 id, id, id, id, id, id, id, id, pid);
	unit_write_file(path, text);
	snprintf(path, sizeof(path), "%s/%u/root/tmp/perf-%u.map", root, pid, pid);
	snprintf(text, sizeof(text), "1000 10 %s\n", name);
	unit_write_file(path, text);
}

/* The heap bytes a map of one entry named like fake_jit()'s holds. */
static size_t one_entry_bytes(void)
{
	struct perf_map *pm = parse("1000 10 fn_a\n", NULL);
	size_t n = perf_map__bytes(pm);

	perf_map__free(pm);
	return n;
}

/* Looks up @addr in process @pid's slot @slot at @pass. */
static const char *cache_name(struct perf_map_cache *c, struct perf_map_slot *slot,
			      const char *root, unsigned int pid, uint64_t addr, uint64_t pass)
{
	bool changed = false;

	return perf_map_cache__lookup(c, slot, root, pid, addr, pass, &changed);
}

/* Checks that the cache names 0x1000 of process @pid @want at @pass. */
static void expect_cached(struct perf_map_cache *c, struct perf_map_slot *slot, const char *root,
			  unsigned int pid, uint64_t pass, const char *want)
{
	const char *got = cache_name(c, slot, root, pid, 0x1000, pass);

	if (!got || strcmp(got, want))
		fail_msg("pid %u, pass %u: got %s, wanted %s", pid, (unsigned int)pass,
			 got ? got : "none", want);
}

/* Maps past the budget are dropped, least recently used first, and counted. */
static void test_cache_budget(void **state)
{
	struct perf_map_slot slots[3];
	struct perf_map_cache c;
	size_t one = one_entry_bytes();
	char root[600];

	(void)state;
	memset(slots, 0, sizeof(slots));
	snprintf(root, sizeof(root), "%s/budget", unit_tmpdir());
	fake_jit(root, 101, "fn_a");
	fake_jit(root, 102, "fn_b");
	fake_jit(root, 103, "fn_c");
	perf_map_cache__init(&c, 2 * one + one / 2); /* room for two maps */
	expect_cached(&c, &slots[0], root, 101, 1, "fn_a");
	expect_cached(&c, &slots[1], root, 102, 1, "fn_b");
	assert_int_equal(c.maps.bytes, 2 * one);
	/* fn_a used last: fn_b is the one dropped for fn_c. */
	expect_cached(&c, &slots[0], root, 101, 2, "fn_a");
	expect_cached(&c, &slots[2], root, 103, 2, "fn_c");
	assert_int_equal(c.dropped, 1);
	assert_int_equal(c.reads, 3);
	assert_true(c.maps.bytes <= c.max_bytes);
	assert_null(perf_map_slot__name(&slots[1], 0x1000));
	assert_non_null(perf_map_slot__name(&slots[0], 0x1000));
	/* Dropped, it is not read again while there is no room for it ... */
	assert_null(cache_name(&c, &slots[1], root, 102, 0x1000, 3));
	assert_int_equal(c.reads, 3);
	/* ... and is once there is (its process's entry went). */
	perf_map_cache__clear(&c, &slots[2]);
	expect_cached(&c, &slots[1], root, 102, 4, "fn_b");
	assert_int_equal(c.reads, 4);
	assert_int_equal(c.maps.bytes, 2 * one);
	/* A map bigger than the whole budget is dropped itself, and counted. */
	perf_map_cache__clear(&c, &slots[0]);
	perf_map_cache__clear(&c, &slots[1]);
	c.max_bytes = one / 2;
	assert_null(cache_name(&c, &slots[0], root, 101, 0x1000, 5));
	assert_int_equal(c.dropped, 2);
	assert_int_equal(c.maps.bytes, 0);
	assert_null(slots[0].map);
	perf_map_cache__clear(&c, &slots[0]);
}

/*
 * A map that grows past the whole budget is read only until it passes it,
 * and dropped with the map its slot held, and counted; it is not read
 * again, even changed. Another process's map, which fits, still names its code.
 */
static void test_cache_map_over_budget(void **state)
{
	struct perf_map_slot slots[2];
	struct perf_map_cache c;
	char root[600], path[800];
	bool changed = false;
	uint64_t pass;
	size_t len;
	char *text;

	(void)state;
	memset(slots, 0, sizeof(slots));
	snprintf(root, sizeof(root), "%s/over", unit_tmpdir());
	fake_jit(root, 301, "fn_grows");
	fake_jit(root, 302, "fn_fits");
	perf_map_cache__init(&c, 64 << 10);
	expect_cached(&c, &slots[0], root, 301, 1, "fn_grows");
	expect_cached(&c, &slots[1], root, 302, 1, "fn_fits");
	text = jit_map_text(40000, 0, &len);
	snprintf(path, sizeof(path), "%s/301/root/tmp/perf-301.map", root);
	unit_write_file(path, text);
	free(text);
	assert_null(perf_map_cache__lookup(&c, &slots[0], root, 301, 0x10000000, 2, &changed));
	assert_true(changed);
	assert_null(slots[0].map);
	assert_int_equal(c.reads, 3);
	assert_int_equal(c.dropped, 1);
	assert_int_equal(c.maps.bytes, one_entry_bytes());
	for (pass = 3; pass < 3 + 2 * PERF_MAP_BACKOFF_MAX; pass++) {
		if (pass == 4)
			unit_sh("echo '10 10 more' >> '%s'", path);
		assert_null(cache_name(&c, &slots[0], root, 301, 0x10000000, pass));
	}
	assert_int_equal(c.reads, 3);
	expect_cached(&c, &slots[1], root, 302, pass, "fn_fits");
	perf_map_cache__clear(&c, &slots[0]);
	perf_map_cache__clear(&c, &slots[1]);
}

/*
 * A map whose entries never hold the address that misses (JIT code it
 * does not describe): not read again while it is unchanged; changed every
 * pass, read again after 2, 4, 8, ... PERF_MAP_BACKOFF_MAX passes.
 */
static void test_cache_misses_cost_little(void **state)
{
	static const uint64_t want_reads[] = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4};
	struct perf_map_slot slot;
	struct perf_map_cache c;
	char root[600], path[800];
	uint64_t pass;

	(void)state;
	memset(&slot, 0, sizeof(slot));
	snprintf(root, sizeof(root), "%s/misses", unit_tmpdir());
	fake_jit(root, 201, "fn_a");
	perf_map_cache__init(&c, 1 << 20);
	for (pass = 1; pass <= 5; pass++)
		assert_null(cache_name(&c, &slot, root, 201, 0x9000, pass));
	assert_int_equal(c.reads, 1);
	snprintf(path, sizeof(path), "%s/201/root/tmp/perf-201.map", root);
	for (pass = 6; pass < 6 + sizeof(want_reads) / sizeof(want_reads[0]); pass++) {
		unit_sh("echo '2000 10 more_%u' >> '%s'", (unsigned int)pass, path);
		assert_null(cache_name(&c, &slot, root, 201, 0x9000, pass));
		if (c.reads != 1 + want_reads[pass - 6])
			fail_msg("pass %u: %ju reads", (unsigned int)pass, (uintmax_t)c.reads);
	}
	/* A re-read that names what missed lets the next come at once. */
	unit_sh("echo '9000 10 found' >> '%s'", path);
	for (; !slot.map || !perf_map_slot__name(&slot, 0x9000); pass++)
		cache_name(&c, &slot, root, 201, 0x9000, pass);
	unit_sh("echo 'a000 10 next' >> '%s'", path);
	assert_string_equal(cache_name(&c, &slot, root, 201, 0xa000, pass), "next");
	perf_map_cache__clear(&c, &slot);
}

static void test_gone_process(void **state)
{
	struct perf_map *pm;

	(void)state;
	assert_int_equal(perf_map__open("/nonexistent-proc", 4242, NULL, SIZE_MAX, &pm), -ENOENT);
	assert_null(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_and_lookup),
	    cmocka_unit_test(test_later_entry_wins),
	    cmocka_unit_test(test_hostile_lines),
	    cmocka_unit_test(test_long_names_whole),
	    cmocka_unit_test(test_long_lines_across_blocks),
	    cmocka_unit_test(test_read_stops_past_the_budget),
	    cmocka_unit_test(test_open_by_namespace_pid),
	    cmocka_unit_test(test_refuses_what_is_not_a_plain_file),
	    cmocka_unit_test(test_symlinks_stay_in_the_root),
	    cmocka_unit_test(test_read_as_the_process),
	    cmocka_unit_test(test_read_again_when_changed),
	    cmocka_unit_test(test_cache_budget),
	    cmocka_unit_test(test_cache_misses_cost_little),
	    cmocka_unit_test(test_cache_map_over_budget),
	    cmocka_unit_test(test_gone_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
