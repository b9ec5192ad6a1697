// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_tables: what the unwind tables cost to build and to hold.
 * Measures, never decides:
 *
 *   unwind_tables FILE...    each file's table: build time (median of 5),
 *                            rows, rules, kernel memory once laid out
 *   unwind_tables --machine  the table of every file some process of this
 *                            machine maps executable, each built once:
 *                            files, rows, rules, kernel memory, build time
 *
 * Each prints "key=value" lines for tests/bench/unwind.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/types.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "bpf/unwind_maps.h"
#include "symbols/id_table.h"
#include "symbols/mapped_file.h"
#include "symbols/procmaps.h"
#include "unwind/cfi_table.h"

#define ROUNDS 5

/* Builds the table of the file open on @fd; -errno, or 0 with @t filled and *@ms its time. */
static int build(int fd, struct rule_dict *dict, struct cfi_table *t, double *ms)
{
	struct elf_file *f = elf_file__open_fd(fd, false);
	double t0 = now_ms();
	int err;

	if (!f)
		return -ENOENT;
	err = cfi_table__build(f, NULL, dict, NULL, t);
	*ms = now_ms() - t0;
	elf_file__close(f);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int bench_file(const char *path)
{
	struct rule_dict *dict = rule_dict__new();
	double ms[ROUNDS];
	struct cfi_table t = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || !dict) {
		perror(path);
		return 1;
	}
	for (int i = 0; i < ROUNDS && !err; i++) {
		cfi_table__free(&t);
		err = build(fd, dict, &t, &ms[i]);
	}
	close(fd);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		rule_dict__free(dict);
		return 1;
	}
	qsort(ms, ROUNDS, sizeof(ms[0]), cmp_double);
	printf("file=%s\nbuild_ms=%.2f\nrows=%zu\nfdes=%zu\nrules=%u\nunsupported=%zu\n"
	       "kernel_bytes=%zu\n",
	       path, ms[ROUNDS / 2], t.n, t.fdes, rule_dict__count(dict), t.unsupported,
	       unwind_maps__table_bytes(t.rows, t.n));
	cfi_table__free(&t);
	rule_dict__free(dict);
	return 0;
}

/* What the whole machine's tables come to. */
struct machine {
	struct id_table seen; /* files met, by (device, inode) */
	struct rule_dict *dict;
	size_t files, with_table, rows, bytes;
	double ms;
};

/* Builds the table of mapping @m of @pid, unless its file was met before. */
static void machine_file(struct machine *mc, uint32_t pid, const struct proc_map *m)
{
	struct id_node *node;
	struct cfi_table t;
	double ms;
	int fd;

	if (m->kind != MAP_FILE || !(m->perms & MAP_PERM_X) ||
	    id_table__find(&mc->seen, (uint64_t)m->dev_major << 32 | m->dev_minor, m->inode))
		return;
	node = calloc(1, sizeof(*node));
	if (!node)
		return;
	node->key[0] = (uint64_t)m->dev_major << 32 | m->dev_minor;
	node->key[1] = m->inode;
	if (id_table__insert(&mc->seen, node)) {
		free(node);
		return;
	}
	mc->files++;
	fd = mapped_file__open("/proc", pid, m);
	if (fd < 0)
		return;
	if (build(fd, mc->dict, &t, &ms) == 0) {
		mc->with_table++;
		mc->rows += t.n;
		mc->bytes += unwind_maps__table_bytes(t.rows, t.n);
		mc->ms += ms;
		cfi_table__free(&t);
	}
	close(fd);
}

static void free_node(struct id_node *node)
{
	free(node);
}

static int bench_machine(void)
{
	struct machine mc = { .dict = rule_dict__new() };
	DIR *proc = opendir("/proc");
	struct dirent *d;
	size_t procs = 0;

	if (!proc || !mc.dict)
		return 1;
	while ((d = readdir(proc)) != NULL) {
		uint32_t pid = (uint32_t)strtoul(d->d_name, NULL, 10);
		struct proc_maps maps;

		if (!pid || proc_maps__read("/proc", (int)pid, &maps))
			continue;
		procs++;
		for (size_t i = 0; i < maps.n; i++)
			machine_file(&mc, pid, &maps.maps[i]);
		proc_maps__free(&maps);
	}
	closedir(proc);
	printf("processes=%zu\nfiles=%zu\nwith_table=%zu\nrows=%zu\nrules=%u\nkernel_bytes=%zu\n"
	       "build_ms=%.1f\n",
	       procs, mc.files, mc.with_table, mc.rows, rule_dict__count(mc.dict), mc.bytes, mc.ms);
	id_table__clear(&mc.seen, free_node, false);
	rule_dict__free(mc.dict);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: unwind_tables FILE... | --machine\n");
		return 2;
	}
	if (strcmp(argv[1], "--machine") == 0)
		return bench_machine();
	for (int i = 1; i < argc; i++)
		ret |= bench_file(argv[i]);
	return ret;
}
