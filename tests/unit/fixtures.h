/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fixtures.h: binaries the tests of symbols/ build at run time, what nm and
 * readelf say about them, and child processes that run them. Expected
 * addresses and offsets come from binutils and from the maps files read
 * here with sscanf, never from the code under test.
 */
#ifndef FLAMETOP_FIXTURES_H
#define FLAMETOP_FIXTURES_H

#include "tests/unit/unit.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/types.h>
#include <sys/wait.h>

/*
 * build_debug_variants() makes directory @dir, writes @prog_c (a program
 * defining hidden_work()) to @dir/prog.c, and builds from it, with gcc,
 * objcopy, strip and xz:
 *   full         with symbols and a build-id; full.debug: its --only-keep-debug
 *   stripped     full, stripped
 *   linked_full  with symbols, without a build-id; linked.debug: its --only-keep-debug
 *   linked       linked_full, stripped, with a .gnu_debuglink to linked.debug
 *   mini         full, stripped, carrying MiniDebugInfo (its local functions)
 */
static inline void build_debug_variants(const char *dir, const char *prog_c)
{
	char src[PATH_MAX];

	unit_sh("mkdir -p '%s'", dir);
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	unit_write_file(src, prog_c);
	unit_sh("cd '%s' && gcc -O1 -g -Wl,--build-id=sha1 -o full prog.c && "
		"objcopy --only-keep-debug full full.debug && "
		"strip --strip-all -o stripped full && "
		"gcc -O1 -g -Wl,--build-id=none -o linked_full prog.c && "
		"objcopy --only-keep-debug linked_full linked.debug && "
		"strip --strip-all -o linked linked_full && "
		"objcopy --add-gnu-debuglink=linked.debug linked",
		dir);
	unit_sh("cd '%s' && nm --format=posix --defined-only full | awk '$2 ~ /[Tt]/ { print $1 }' "
		"| sort > funcs && nm -D --format=posix --defined-only full | awk '{ print $1 }' "
		"| sort > dynsyms && comm -23 funcs dynsyms > keep && "
		"objcopy --only-keep-debug full mini.dbg && "
		"objcopy -S --remove-section .gdb_index --remove-section .comment "
		"--keep-symbols=keep mini.dbg mini.elf && xz -f mini.elf && "
		"strip --strip-all -o mini full && objcopy --add-section "
		".gnu_debugdata=mini.elf.xz mini",
		dir);
}

/* The value and size nm gives symbol @name of @bin; fails the test when it has no size. */
static inline void nm_symbol(const char *bin, const char *name, uint64_t *value, uint64_t *size)
{
	char cmd[1024], line[512], sym[256], type[8];
	unsigned long long v, s;
	int found = 0;
	FILE *p;

	*value = *size = 0;
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %llx %7s %255s", &v, &s, type, sym) == 4 &&
		    !strcmp(sym, name)) {
			*value = v;
			*size = s;
			found = 1;
		}
	}
	assert_int_equal(pclose(p), 0);
	if (!found)
		fail_msg("nm: no sized symbol %s in %s", name, bin);
}

/* The build-id of @bin, from readelf -n, as hex. */
static inline void readelf_build_id(const char *bin, char *hex, size_t size)
{
	char cmd[800];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(hex, (int)size, p));
	hex[strcspn(hex, "\n")] = '\0';
	pclose(p);
}

struct text_seg {
	uint64_t offset, vaddr, filesz;
};

/* The executable PT_LOAD segment of @bin, per `readelf -lW`. */
static inline void readelf_text_segment(const char *bin, struct text_seg *seg)
{
	char cmd[1024], line[512], type[32];
	unsigned long long off, va, pa, fsz, msz;
	int found = 0;
	FILE *p;

	*seg = (struct text_seg){0};
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %31s %llx %llx %llx %llx %llx", type, &off, &va, &pa, &fsz,
			   &msz) == 6 &&
		    !strcmp(type, "LOAD") && strchr(line, 'E')) {
			seg->offset = off;
			seg->vaddr = va;
			seg->filesz = fsz;
			found = 1;
		}
	}
	assert_int_equal(pclose(p), 0);
	assert_true(found);
}

/* The file offset of ELF virtual address @vaddr in @bin's text. */
static inline uint64_t file_offset(const char *bin, uint64_t vaddr)
{
	struct text_seg seg;

	readelf_text_segment(bin, &seg);
	assert_true(vaddr >= seg.vaddr && vaddr < seg.vaddr + seg.filesz);
	return vaddr - seg.vaddr + seg.offset;
}

/* A test workload that says "ready", then lives until its stdin closes. */
struct child {
	pid_t pid;
	int to_child; /* closing it ends the child */
};

/* Starts @path as @c and waits until it says "ready". */
static inline void child_start(struct child *c, const char *path)
{
	int in[2], out[2];
	char ready[6];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(126);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to_child = in[1];
	assert_int_equal(read(out[0], ready, sizeof(ready)), sizeof(ready));
	close(out[0]);
	assert_memory_equal(ready, "ready\n", sizeof(ready));
}

/* Ends @c and reaps it. */
static inline void child_stop(struct child *c)
{
	int status;

	close(c->to_child);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
}

/* Where file offset @off of @path is mapped executable in process @pid, per its maps. */
static inline uint64_t live_address(pid_t pid, const char *path, uint64_t off)
{
	char maps[64], line[4600], perms[8], file[4096];
	unsigned long long start, end, pgoff;
	uint64_t addr = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (!addr && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms,
			   &pgoff, file) != 5)
			continue;
		if (!strcmp(file, path) && perms[2] == 'x' && off >= pgoff &&
		    off - pgoff < end - start)
			addr = start + (off - pgoff);
	}
	fclose(f);
	if (!addr)
		fail_msg("offset 0x%jx of %s is not mapped in %d", (uintmax_t)off, path, (int)pid);
	return addr;
}

#endif
