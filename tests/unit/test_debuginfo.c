// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo: build-id paths, .gnu_debuglink places and CRC, xz, and the
 * search for a stripped binary's symbols, on binaries built here with gcc,
 * objcopy, strip and xz. Expected build-ids and CRCs come from readelf and
 * objcopy, never from the code under test.
 */
#include "tests/unit/fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>

#include "symbols/debuginfo.h"
#include "symbols/elffile.h"
#include "symbols/elfsyms.h"

static const char prog_c[] =
    "#ifdef OTHER\nint other_fn(void) { return 1; }\n#endif\n"
    "__attribute__((noinline)) int hidden_work(int x) { return x * 7; }\n"
    "int main(int argc, char **argv) { (void)argv; return hidden_work(argc); }\n";

static char dir[512], full[600], stripped[600], debug[600], linked[600], linked_full[600];
static char mini[600];

/* In "<tmp>/bin": the variants of prog.c that build_debug_variants() makes. */
static void build_fixtures(void)
{
	static int built;

	if (built)
		return;
	snprintf(dir, sizeof(dir), "%s/bin", unit_tmpdir());
	snprintf(full, sizeof(full), "%s/full", dir);
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(debug, sizeof(debug), "%s/full.debug", dir);
	snprintf(linked_full, sizeof(linked_full), "%s/linked_full", dir);
	snprintf(linked, sizeof(linked), "%s/linked", dir);
	snprintf(mini, sizeof(mini), "%s/mini", dir);
	build_debug_variants(dir, prog_c);
	built = 1;
}

/* The CRC-32 objcopy wrote into @bin's .gnu_debuglink (its last 4 bytes, little-endian). */
static uint32_t objcopy_crc(const char *bin)
{
	char cmd[2200], section[700];
	unsigned int b[4];
	FILE *p;

	snprintf(section, sizeof(section), "%s/debuglink.section", unit_tmpdir());
	snprintf(cmd, sizeof(cmd),
		 "objcopy --dump-section .gnu_debuglink='%s' '%s' /dev/null && tail -c 4 '%s' | "
		 "od -An -tu1",
		 section, bin, section);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%u %u %u %u", &b[0], &b[1], &b[2], &b[3]), 4);
	pclose(p);
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

static struct elf_file *open_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *f;

	assert_true(fd >= 0);
	f = elf_file__open_fd(fd, true);
	assert_non_null(f);
	return f;
}

static void test_build_id_path(void **state)
{
	const uint8_t id[] = {0xab, 0xcd, 0x01, 0x23, 0xff};
	char buf[PATH_MAX], tiny[20];

	(void)state;
	assert_int_equal(debuginfo__build_id_path(buf, sizeof(buf), "/usr/lib/debug", id, 5), 0);
	assert_string_equal(buf, "/usr/lib/debug/.build-id/ab/cd0123ff.debug");
	assert_int_equal(debuginfo__build_id_path(buf, sizeof(buf), "/d", id, 1), 0);
	assert_string_equal(buf, "/d/.build-id/ab/.debug");
	assert_int_equal(debuginfo__build_id_path(buf, sizeof(buf), "/d", id, 0), -EINVAL);
	assert_int_equal(debuginfo__build_id_path(buf, sizeof(buf), "/d", id, BUILD_ID_MAX + 1),
			 -EINVAL);
	assert_int_equal(debuginfo__build_id_path(tiny, sizeof(tiny), "/usr/lib/debug", id, 5),
			 -ENAMETOOLONG);
}

static void test_link_paths(void **state)
{
	char paths[DEBUGLINK_PLACES][PATH_MAX];
	char long_root[PATH_MAX];

	(void)state;
	assert_int_equal(
	    debuginfo__link_paths(paths, "/usr/lib/debug", "/usr/bin/prog", "prog.debug"), 3);
	assert_string_equal(paths[0], "/usr/bin/prog.debug");
	assert_string_equal(paths[1], "/usr/bin/.debug/prog.debug");
	assert_string_equal(paths[2], "/usr/lib/debug/usr/bin/prog.debug");
	assert_int_equal(debuginfo__link_paths(paths, "/dbg", "/prog", "p.debug"), 3);
	assert_string_equal(paths[0], "/p.debug");
	assert_string_equal(paths[2], "/dbg/p.debug");
	/* Names that would leave the directory, and paths that are not absolute. */
	assert_int_equal(debuginfo__link_paths(paths, "/d", "/usr/bin/prog", "../../etc/shadow"),
			 -EINVAL);
	assert_int_equal(debuginfo__link_paths(paths, "/d", "/usr/bin/prog", ".."), -EINVAL);
	assert_int_equal(debuginfo__link_paths(paths, "/d", "/usr/bin/prog", "."), -EINVAL);
	assert_int_equal(debuginfo__link_paths(paths, "/d", "/usr/bin/prog", ""), -EINVAL);
	assert_int_equal(debuginfo__link_paths(paths, "/d", "prog", "p.debug"), -EINVAL);
	assert_int_equal(debuginfo__link_paths(paths, "/d", "", "p.debug"), -EINVAL);
	/* A debug root so long that its place does not fit: the other two remain. */
	memset(long_root, 'r', sizeof(long_root) - 1);
	long_root[0] = '/';
	long_root[sizeof(long_root) - 1] = '\0';
	assert_int_equal(debuginfo__link_paths(paths, long_root, "/usr/bin/prog", "p.debug"), 2);
	assert_string_equal(paths[1], "/usr/bin/.debug/p.debug");
}

static void test_crc32(void **state)
{
	char path[600];
	uint32_t crc;
	int fd;

	(void)state;
	build_fixtures();
	/* The CRC-32 check value of "123456789". */
	snprintf(path, sizeof(path), "%s/check", dir);
	unit_write_file(path, "123456789");
	fd = open(path, O_RDONLY);
	assert_int_equal(debuginfo__crc32(fd, NULL, &crc), 0);
	close(fd);
	assert_int_equal(crc, 0xcbf43926);
	/* What objcopy --add-gnu-debuglink recorded for linked.debug. */
	snprintf(path, sizeof(path), "%s/linked.debug", dir);
	fd = open(path, O_RDONLY);
	assert_int_equal(debuginfo__crc32(fd, NULL, &crc), 0);
	close(fd);
	assert_int_equal(crc, objcopy_crc(linked));
	assert_int_equal(debuginfo__crc32(-1, NULL, &crc), -EBADF);
}

static void test_elf_file_notes_and_links(void **state)
{
	char hex[256], got[2 * BUILD_ID_MAX + 1], name[256];
	uint8_t id[BUILD_ID_MAX];
	struct elf_file *f;
	uint32_t crc;
	size_t len;

	(void)state;
	build_fixtures();
	readelf_build_id(full, hex, sizeof(hex));
	f = open_elf(stripped);
	len = elf_file__build_id(f, id, sizeof(id));
	assert_int_equal(len, strlen(hex) / 2);
	for (size_t i = 0; i < len; i++)
		snprintf(got + 2 * i, 3, "%02x", id[i]);
	assert_string_equal(got, hex);
	assert_int_equal(elf_file__build_id(f, id, 4), 0); /* does not fit */
	assert_false(elf_file__has_symtab(f));
	assert_int_equal(elf_file__debuglink(f, name, sizeof(name), &crc), -ENOENT);
	elf_file__close(f);
	f = open_elf(linked);
	assert_int_equal(elf_file__build_id(f, id, sizeof(id)), 0);
	assert_int_equal(elf_file__debuglink(f, name, sizeof(name), &crc), 0);
	assert_string_equal(name, "linked.debug");
	assert_int_equal(crc, objcopy_crc(linked));
	assert_int_equal(elf_file__debuglink(f, name, 5, &crc), -ENOENT);
	elf_file__close(f);
	f = open_elf(full);
	assert_true(elf_file__has_symtab(f));
	elf_file__close(f);
	elf_file__close(NULL);
}

static void test_unxz(void **state)
{
	char path[600], cmd[1400], *text = "a line of text to squeeze\n";
	char packed[4096];
	size_t len, out_len;
	void *out;
	FILE *f;

	(void)state;
	build_fixtures();
	snprintf(path, sizeof(path), "%s/plain", dir);
	unit_write_file(path, text);
	snprintf(cmd, sizeof(cmd), "xz -c '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	len = fread(packed, 1, sizeof(packed), f);
	pclose(f);
	assert_true(len > 0);
	assert_int_equal(debuginfo__unxz(packed, len, 1 << 20, NULL, &out, &out_len), 0);
	assert_int_equal(out_len, strlen(text));
	assert_memory_equal(out, text, out_len);
	free(out);
	/* Larger than allowed. */
	assert_int_equal(debuginfo__unxz(packed, len, 4, NULL, &out, &out_len), -EFBIG);
	/* Truncated, corrupt, and not xz at all. */
	assert_int_equal(debuginfo__unxz(packed, len / 2, 1 << 20, NULL, &out, &out_len), -EINVAL);
	packed[len / 2] ^= 0x55;
	assert_int_equal(debuginfo__unxz(packed, len, 1 << 20, NULL, &out, &out_len), -EINVAL);
	assert_int_equal(debuginfo__unxz(text, strlen(text), 1 << 20, NULL, &out, &out_len), -EINVAL);
	assert_int_equal(debuginfo__unxz("", 0, 1 << 20, NULL, &out, &out_len), -EINVAL);
}

/* The value nm gives hidden_work in @bin (built with symbols). */
static uint64_t nm_hidden_work(const char *bin)
{
	uint64_t value, size;

	nm_symbol(bin, "hidden_work", &value, &size);
	return value;
}

/* Looks up @bin's debug file with @debug_root; true when it names hidden_work at @addr. */
static bool finds_symbols(const char *bin, const char *debug_root, uint64_t addr)
{
	struct debug_search ds = {.root_fd = -1, .debug_root = debug_root, .path = bin};
	struct elf_file *f = open_elf(bin), *d = debuginfo__find(f, &ds);
	struct elf_symtab *t = elf_symtab__build(f, d);
	uint64_t off;
	const char *name;
	bool found;

	assert_non_null(t);
	name = elf_symtab__lookup(t, addr, &off);
	found = name && !strcmp(name, "hidden_work") && off == 0;
	elf_symtab__free(t);
	elf_file__close(d);
	elf_file__close(f);
	return found;
}

static void test_find_by_build_id(void **state)
{
	char root[600], hex[256], path[900];
	uint64_t addr;

	(void)state;
	build_fixtures();
	addr = nm_hidden_work(full);
	snprintf(root, sizeof(root), "%s/debugroot", unit_tmpdir());
	assert_false(finds_symbols(stripped, root, addr));
	readelf_build_id(full, hex, sizeof(hex));
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	unit_sh("mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", path, debug, path);
	assert_true(finds_symbols(stripped, root, addr));
	/* A file there without a build-id, or with another's, is not taken. */
	unit_sh("cp '%s/linked.debug' '%s'", dir, path);
	assert_false(finds_symbols(stripped, root, addr));
	unit_sh("cd '%s' && gcc -O1 -g -DOTHER -Wl,--build-id=sha1 -o other prog.c && "
		"objcopy --only-keep-debug other '%s'",
		dir, path);
	assert_false(finds_symbols(stripped, root, addr));
	unit_sh("rm -rf '%s'", root);
}

static void test_find_by_debuglink(void **state)
{
	char saved[700], place[700];
	uint64_t addr;

	(void)state;
	build_fixtures();
	addr = nm_hidden_work(linked_full);
	assert_true(finds_symbols(linked, "/nonexistent", addr));
	/* In .debug/ beside the binary. */
	snprintf(saved, sizeof(saved), "%s/linked.debug", dir);
	snprintf(place, sizeof(place), "%s/.debug", dir);
	unit_sh("mkdir -p '%s' && mv '%s' '%s/'", place, saved, place);
	assert_true(finds_symbols(linked, "/nonexistent", addr));
	/* A file of that name with another CRC is not taken. */
	unit_sh("printf x >> '%s/linked.debug'", place);
	assert_false(finds_symbols(linked, "/nonexistent", addr));
	/* Under the debug root, by the binary's directory. */
	unit_sh("rm -rf '%s' && mkdir -p '%s/dbg%s' && objcopy --only-keep-debug '%s' "
		"'%s/dbg%s/linked.debug'",
		place, unit_tmpdir(), dir, linked_full, unit_tmpdir(), dir);
	snprintf(place, sizeof(place), "%s/dbg", unit_tmpdir());
	assert_true(finds_symbols(linked, place, addr));
	unit_sh("mv '%s%s/linked.debug' '%s'", place, dir, saved);
	assert_true(finds_symbols(linked, "/nonexistent", addr));
}

/* A FIFO where the .gnu_debuglink names the debug file is not opened (its writer still waits). */
static void test_debuglink_fifo_not_opened(void **state)
{
	char saved[700], aside[700];
	pid_t writer;

	(void)state;
	build_fixtures();
	snprintf(saved, sizeof(saved), "%s/linked.debug", dir);
	snprintf(aside, sizeof(aside), "%s/linked.debug.aside", dir);
	assert_int_equal(rename(saved, aside), 0);
	writer = unit_fifo_writer(saved);
	assert_false(finds_symbols(linked, "/nonexistent", nm_hidden_work(linked_full)));
	assert_false(unit_fifo_opened(writer));
	assert_int_equal(rename(aside, saved), 0);
}

static void test_find_minidebuginfo(void **state)
{
	(void)state;
	build_fixtures();
	assert_true(finds_symbols(mini, "/nonexistent", nm_hidden_work(full)));
}

/* Looks for linked's debug file as @creds would (NULL: unknown), under @time; fills @ds. */
static struct elf_file *find_linked(const struct proc_creds *creds, const struct work_budget *time,
				    struct debug_search *ds)
{
	struct elf_file *f = open_elf(linked), *d;
	struct stat st;

	assert_int_equal(stat(linked, &st), 0);
	*ds = (struct debug_search){ .root_fd = -1, .debug_root = "/nonexistent", .path = linked,
				     .creds = creds, .bin_size = (uint64_t)st.st_size, .time = time };
	d = debuginfo__find(f, ds);
	elf_file__close(f);
	return d;
}

/*
 * A debug file larger than its binary allows (32 times it and 16 MiB) is
 * refused without its CRC being read, and counted; a sane one is taken.
 */
static void test_too_large_refused(void **state)
{
	char saved[700], aside[700];
	struct debug_search ds;
	struct elf_file *d;

	(void)state;
	build_fixtures();
	snprintf(saved, sizeof(saved), "%s/linked.debug", dir);
	snprintf(aside, sizeof(aside), "%s/linked.debug.aside", dir);
	assert_int_equal(rename(saved, aside), 0);
	unit_sh("cp '%s' '%s' && truncate -s 1G '%s'", aside, saved, saved);
	assert_null(find_linked(NULL, NULL, &ds));
	assert_int_equal(ds.refused[DEBUG_REFUSED_SIZE], 1);
	assert_int_equal(rename(aside, saved), 0);
	d = find_linked(NULL, NULL, &ds);
	assert_non_null(d);
	assert_int_equal(ds.refused[DEBUG_REFUSED_SIZE], 0);
	elf_file__close(d);
}

/*
 * A debug file is opened as the process would open it: one only root may
 * read is refused for nobody (and counted), taken for root, and, when the
 * process's credentials are not known, taken only if every user may read
 * it. Root only (it takes credentials).
 */
static void test_read_with_process_rights(void **state)
{
	const struct proc_creds nobody = { .uid = 65534, .gid = 65534 }, root = { 0 };
	char path[700];
	struct debug_search ds;
	struct elf_file *d;

	(void)state;
	if (geteuid())
		skip();
	build_fixtures();
	assert_int_equal(chmod(unit_tmpdir(), 0711), 0); /* nobody may look in, not list */
	assert_int_equal(chmod(dir, 0711), 0);
	snprintf(path, sizeof(path), "%s/linked.debug", dir);
	assert_int_equal(chmod(path, 0600), 0);
	assert_null(find_linked(&nobody, NULL, &ds));
	assert_int_equal(ds.refused[DEBUG_REFUSED_ACCESS], 1);
	assert_null(find_linked(NULL, NULL, &ds));
	assert_int_equal(ds.refused[DEBUG_REFUSED_ACCESS], 1);
	d = find_linked(&root, NULL, &ds);
	assert_non_null(d);
	assert_true(ds.private); /* not every user's: its names are for root's processes */
	elf_file__close(d);
	assert_int_equal(chmod(path, 0644), 0);
	d = find_linked(&nobody, NULL, &ds);
	assert_non_null(d);
	assert_false(ds.private);
	elf_file__close(d);
}

/* A search whose budget is spent finds nothing and says so. */
static void test_budget_spent(void **state)
{
	bool stop = true;
	struct work_budget time = { .stop = &stop };
	struct debug_search ds;

	(void)state;
	build_fixtures();
	assert_null(find_linked(NULL, &time, &ds));
	assert_int_equal(ds.spent, -ECANCELED);
	stop = false;
	elf_file__close(find_linked(NULL, &time, &ds));
	assert_int_equal(ds.spent, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build_id_path),
	    cmocka_unit_test(test_link_paths),
	    cmocka_unit_test(test_crc32),
	    cmocka_unit_test(test_elf_file_notes_and_links),
	    cmocka_unit_test(test_unxz),
	    cmocka_unit_test(test_find_by_build_id),
	    cmocka_unit_test(test_find_by_debuglink),
	    cmocka_unit_test(test_debuglink_fifo_not_opened),
	    cmocka_unit_test(test_find_minidebuginfo),
	    cmocka_unit_test(test_too_large_refused),
	    cmocka_unit_test(test_read_with_process_rights),
	    cmocka_unit_test(test_budget_spent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
