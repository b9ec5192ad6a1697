// SPDX-License-Identifier: GPL-2.0
/*
 * ksym_watch: a BPF program loaded here (with the bpf() system call, no
 * library) is named by the watch as /proc/kallsyms names it, over its
 * whole extent; unloaded, it keeps its name for KSYM_GONE_PASSES passes,
 * then leaves a hole.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#include "symbols/ksym_watch.h"

struct loaded_prog {
	int fd;
	uint64_t addr;	/* its JIT image */
	uint32_t len;	/* bytes of JIT code */
	char name[512]; /* as /proc/kallsyms has it */
};

static int bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* The name /proc/kallsyms gives address @addr (a BPF program's start), or "". */
static void kallsyms_name(uint64_t addr, char *name, size_t size)
{
	char line[600], sym[500];
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	name[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %*c %499s", &a, sym) == 2 && a == addr)
			snprintf(name, size, "%s", sym);
	}
	fclose(f);
}

/* Loads "r0 = 0; exit" as a socket filter and finds where its code went. */
static void load_program(struct loaded_prog *p)
{
	struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_prog_info info;
	union bpf_attr attr;
	uint64_t ksym = 0;
	uint32_t len = 0;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (uint64_t)(uintptr_t) "GPL";
	memcpy(attr.prog_name, "ksym_watch_t", 13);
	p->fd = bpf(BPF_PROG_LOAD, &attr);
	assert_true(p->fd >= 0);
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (uint64_t)(uintptr_t)&ksym;
	info.nr_jited_func_lens = 1;
	info.jited_func_lens = (uint64_t)(uintptr_t)&len;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)p->fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	assert_int_equal(bpf(BPF_OBJ_GET_INFO_BY_FD, &attr), 0);
	assert_true(ksym != 0 && len != 0);
	p->addr = ksym;
	p->len = len;
	kallsyms_name(ksym, p->name, sizeof(p->name));
	assert_true(p->name[0] != '\0');
}

/* Polls at @pass until the watch names @addr (at most a second); returns the name or NULL. */
static const char *name_soon(struct ksym_watch *w, uint64_t pass, uint64_t addr)
{
	const char *name = NULL;

	for (int i = 0; i < 100; i++) {
		ksym_watch__poll(w, pass);
		if (!ksym_watch__find(w, addr, &name) && name)
			return name;
		usleep(10000);
	}
	return NULL;
}

static void test_loaded_program_named(void **state)
{
	struct loaded_prog p;
	struct ksym_watch *w;
	const char *name;

	(void)state;
	if (geteuid() != 0)
		skip(); /* watching every CPU and loading BPF need privileges */
	w = ksym_watch__open();
	assert_non_null(w);
	load_program(&p);
	name = name_soon(w, 1, p.addr);
	assert_non_null(name);
	assert_string_equal(name, p.name);
	/* Its whole extent, and not a byte more. */
	assert_int_equal(ksym_watch__find(w, p.addr + p.len - 1, &name), 0);
	assert_string_equal(name, p.name);
	assert_true(ksym_watch__find(w, p.addr + p.len, &name) == -ENOENT ||
		    strcmp(name ? name : "", p.name));
	assert_true(ksym_watch__count(w) >= 1);
	close(p.fd);
	ksym_watch__close(w);
	ksym_watch__close(NULL);
}

static void test_unloaded_program_keeps_name_then_hole(void **state)
{
	char still[512];
	struct loaded_prog p;
	struct ksym_watch *w;
	const char *name;

	(void)state;
	if (geteuid() != 0)
		skip();
	w = ksym_watch__open();
	assert_non_null(w);
	load_program(&p);
	assert_non_null(name_soon(w, 1, p.addr));
	close(p.fd);
	/* Gone from /proc/kallsyms: the kernel has announced it. */
	for (int i = 0; i < 100; i++) {
		kallsyms_name(p.addr, still, sizeof(still));
		if (strcmp(still, p.name))
			break;
		usleep(10000);
	}
	assert_string_not_equal(still, p.name);
	for (uint64_t pass = 2; pass < 2 + KSYM_GONE_PASSES; pass++) {
		ksym_watch__poll(w, pass);
		assert_int_equal(ksym_watch__find(w, p.addr, &name), 0);
		assert_non_null(name);
		assert_string_equal(name, p.name);
	}
	ksym_watch__poll(w, 2 + KSYM_GONE_PASSES);
	/* A hole now, unless another program took the address meanwhile. */
	assert_true(ksym_watch__find(w, p.addr, &name) == -ENOENT || !name || strcmp(name, p.name));
	ksym_watch__close(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loaded_program_named),
	    cmocka_unit_test(test_unloaded_program_keeps_name_then_hole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
