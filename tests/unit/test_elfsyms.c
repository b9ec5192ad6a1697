// SPDX-License-Identifier: GPL-2.0
/*
 * elfsyms: binaries built at run time with gcc, checked against what nm and
 * readelf say about them, and copies of them damaged on purpose.
 */
#include "tests/unit/fixtures.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>

#include "symbols/elfsyms.h"

/* Functions 64-byte aligned and short, so that padding separates them. */
static const char funcs_c[] =
    "#define FIXED __attribute__((noinline, aligned(64)))\n"
    "FIXED int func_a(int x) { return x * 3 + 1; }\n"
    "FIXED int func_b(int x) { return func_a(x) ^ 0x55; }\n"
    "FIXED int func_c(int x) { return func_b(x) + func_a(x + 1); }\n"
    "#ifndef LIB\n"
    "int main(int argc, char **argv) { (void)argv; return func_c(argc) & 1; }\n"
    "#endif\n";

/*
 * Symbols the choice rules decide between. Built with -nostdlib, so these
 * are the only functions: six distinct addresses.
 */
static const char choice_s[] =
    "\t.text\n"
    /* zs_func: no .size, so zero-size in .symtab and .dynsym */
    "\t.globl zs_func\n\t.type zs_func, @function\n"
    "zs_func:\n\t.fill 8, 1, 0x90\n"
    "\t.globl sized_after\n\t.type sized_after, @function\n"
    "sized_after:\n\t.fill 15, 1, 0x90\n\tret\n\t.size sized_after, .-sized_after\n"
    "\t.p2align 6, 0xcc\n"
    /* one address, three bindings */
    "\t.type local_x, @function\n"
    "\t.globl global_x\n\t.type global_x, @function\n"
    "\t.weak weak_x\n\t.type weak_x, @function\n"
    "local_x:\nglobal_x:\nweak_x:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size local_x, 16\n\t.size global_x, 16\n\t.size weak_x, 16\n"
    "\t.p2align 6, 0xcc\n"
    /* one address, three spellings */
    "\t.globl __under\n\t.type __under, @function\n"
    "\t.globl _under\n\t.type _under, @function\n"
    "\t.globl under\n\t.type under, @function\n"
    "__under:\n_under:\nunder:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size __under, 16\n\t.size _under, 16\n\t.size under, 16\n"
    "\t.p2align 6, 0xcc\n"
    /* a sized local against a zero-size global */
    "\t.type sized_local, @function\n"
    "\t.globl zero_global\n\t.type zero_global, @function\n"
    "sized_local:\nzero_global:\n\t.fill 7, 1, 0x90\n\tret\n"
    "\t.size sized_local, 8\n"
    "\t.p2align 6, 0xcc\n"
    "\t.globl tail_func\n\t.type tail_func, @function\n"
    "tail_func:\n\tret\n\t.size tail_func, 1\n"
    "\t.section .note.GNU-stack,\"\",@progbits\n";

/* Calls into libc through the PLT; the function pointer takes a GOT slot of its own. */
static const char plt_c[] =
    "#include <stdlib.h>\n#include <string.h>\n"
    "void (*keep)(void *) = free;\n"
    "int main(int argc, char **argv) { char *p = malloc(16); strcpy(p, argv[0]);\n"
    "  size_t n = strlen(p); free(p); p = malloc(n + 1); keep(p); return (int)n + argc; }\n";

/*
 * Aliases at three addresses, as glibc has them: free with __libc_free and
 * the compatibility cfree@VERS_1; lseek (weak) with lseek64 (weak), __lseek,
 * a local __libc_lseek and llseek@VERS_1; clock_gettime@@VERS_2 (the
 * default version) with clock_gettime@VERS_1 and __clock_gettime.
 */
static const char aliases_s[] =
    "\t.text\n\t.p2align 6, 0xcc\n"
    "\t.globl free\n\t.type free, @function\n"
    "\t.globl __libc_free\n\t.type __libc_free, @function\n"
    "\t.globl cfree_compat\n\t.type cfree_compat, @function\n"
    "\t.symver cfree_compat, cfree@VERS_1\n"
    "free:\n__libc_free:\ncfree_compat:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size free, 16\n\t.size __libc_free, 16\n\t.size cfree_compat, 16\n"
    "\t.p2align 6, 0xcc\n"
    "\t.weak lseek\n\t.type lseek, @function\n"
    "\t.weak lseek64\n\t.type lseek64, @function\n"
    "\t.globl __lseek\n\t.type __lseek, @function\n"
    "\t.type __libc_lseek, @function\n"
    "\t.globl llseek_compat\n\t.type llseek_compat, @function\n"
    "\t.symver llseek_compat, llseek@VERS_1\n"
    "lseek:\nlseek64:\n__lseek:\n__libc_lseek:\nllseek_compat:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size lseek, 16\n\t.size lseek64, 16\n\t.size __lseek, 16\n"
    "\t.size __libc_lseek, 16\n\t.size llseek_compat, 16\n"
    "\t.p2align 6, 0xcc\n"
    "\t.globl clock_gettime_2\n\t.type clock_gettime_2, @function\n"
    "\t.symver clock_gettime_2, clock_gettime@@VERS_2\n"
    "\t.globl clock_gettime_1\n\t.type clock_gettime_1, @function\n"
    "\t.symver clock_gettime_1, clock_gettime@VERS_1\n"
    "\t.globl __clock_gettime\n\t.type __clock_gettime, @function\n"
    "clock_gettime_2:\nclock_gettime_1:\n__clock_gettime:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size clock_gettime_2, 16\n\t.size clock_gettime_1, 16\n"
    "\t.size __clock_gettime, 16\n"
    "\t.section .note.GNU-stack,\"\",@progbits\n";

/*
 * Untyped labels, as assembly entry points have them (the dynamic loader's
 * _start and _dl_start_user): in code they name what follows them, up to
 * the next symbol; never a place inside a sized function, nor an address
 * a typed function names too, nor anything outside code.
 */
static const char labels_s[] =
    "\t.text\n"
    "\t.globl entry_label\n"
    "entry_label:\n\t.fill 8, 1, 0x90\n"
    "next_label:\n\t.fill 7, 1, 0x90\n\tret\n"
    "\t.p2align 6, 0xcc\n"
    "\t.type sized_fn, @function\n"
    "sized_fn:\n\t.fill 8, 1, 0x90\n"
    "inner_label:\n\t.fill 7, 1, 0x90\n\tret\n"
    "\t.size sized_fn, .-sized_fn\n"
    "\t.p2align 6, 0xcc\n"
    "\t.type typed_fn, @function\n"
    "label_at_fn:\ntyped_fn:\n\t.fill 15, 1, 0x90\n\tret\n"
    "\t.size typed_fn, 16\n"
    "\t.data\n"
    "data_label:\n\t.quad 1\n"
    "\t.section .note.GNU-stack,\"\",@progbits\n";

static const char aliases_map[] =
    "VERS_1 { global: free; __libc_free; cfree; lseek; lseek64; __lseek; llseek;\n"
    "  clock_gettime; __clock_gettime; local: *; };\n"
    "VERS_2 { global: clock_gettime; } VERS_1;\n";

struct nm_sym {
	uint64_t value, size;
	char type;
	char name[256];
};

struct nm_table {
	struct nm_sym v[512];
	size_t n;
};

static char pie[512], nopie[512], lib[512], choice[512], choice_stripped[512], labels[512];
static char plt_pie[512], plt_nopie[512], plt_ibt[512], aliases[512], aliases_stripped[512];

/* What nm printed for the binary a test looks at (static: a failing check leaks nothing). */
static struct nm_table nm_table;

/*
 * The PLT programs: PIE (.plt and .plt.got), non-PIE, and with IBT's
 * .plt.sec (whose .plt entries push an index and jump nowhere by name);
 * and the aliases' library, whole and stripped to its .dynsym.
 */
static void build_plt_and_aliases(const char *d)
{
	char src[512], asm_src[512], map[512];

	snprintf(src, sizeof(src), "%s/plt.c", d);
	snprintf(asm_src, sizeof(asm_src), "%s/aliases.s", d);
	snprintf(map, sizeof(map), "%s/aliases.map", d);
	snprintf(plt_pie, sizeof(plt_pie), "%s/plt-pie", d);
	snprintf(plt_nopie, sizeof(plt_nopie), "%s/plt-nopie", d);
	snprintf(plt_ibt, sizeof(plt_ibt), "%s/plt-ibt", d);
	snprintf(aliases, sizeof(aliases), "%s/libaliases.so", d);
	snprintf(aliases_stripped, sizeof(aliases_stripped), "%s/libaliases-stripped.so", d);
	unit_write_file(src, plt_c);
	unit_write_file(asm_src, aliases_s);
	unit_write_file(map, aliases_map);
	unit_sh("gcc -O1 -fPIE -pie -o '%s' '%s'", plt_pie, src);
	unit_sh("gcc -O1 -fno-pie -no-pie -o '%s' '%s'", plt_nopie, src);
	unit_sh("gcc -O1 -fPIE -pie -fcf-protection -Wl,-z,ibtplt -o '%s' '%s'", plt_ibt, src);
	unit_sh("gcc -nostdlib -shared -Wl,--version-script='%s' -o '%s' '%s'", map, aliases,
		asm_src);
	unit_sh("strip --strip-all -o '%s' '%s'", aliases_stripped, aliases);
}

/* Builds every binary once, the first time a test needs one. */
static void build_fixtures(void)
{
	static int built;
	const char *d = unit_tmpdir();
	char src[512], asm_src[512];

	if (built)
		return;
	snprintf(src, sizeof(src), "%s/funcs.c", d);
	snprintf(asm_src, sizeof(asm_src), "%s/choice.s", d);
	snprintf(pie, sizeof(pie), "%s/pie", d);
	snprintf(nopie, sizeof(nopie), "%s/nopie", d);
	snprintf(lib, sizeof(lib), "%s/libfuncs.so", d);
	snprintf(choice, sizeof(choice), "%s/libchoice.so", d);
	snprintf(choice_stripped, sizeof(choice_stripped), "%s/libchoice-stripped.so", d);
	unit_write_file(src, funcs_c);
	unit_write_file(asm_src, choice_s);
	unit_sh("gcc -O1 -fPIE -pie -o '%s' '%s'", pie, src);
	unit_sh("gcc -O1 -fno-pie -no-pie -o '%s' '%s'", nopie, src);
	unit_sh("gcc -O1 -fPIC -shared -DLIB -o '%s' '%s'", lib, src);
	unit_sh("gcc -nostdlib -shared -o '%s' '%s'", choice, asm_src);
	unit_sh("strip --strip-all -o '%s' '%s'", choice_stripped, choice);
	snprintf(asm_src, sizeof(asm_src), "%s/labels.s", d);
	snprintf(labels, sizeof(labels), "%s/liblabels.so", d);
	unit_write_file(asm_src, labels_s);
	unit_sh("gcc -nostdlib -shared -o '%s' '%s'", labels, asm_src);
	build_plt_and_aliases(d);
	built = 1;
}

/* Reads `nm -S` (or `nm -D -S` for @dynamic) of @bin: defined symbols only. */
static void nm_read(const char *bin, int dynamic, struct nm_table *t)
{
	char cmd[1024], line[512], f1[64], f2[64], f3[64], f4[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s '%s'", dynamic ? "-D" : "", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	t->n = 0;
	while (fgets(line, sizeof(line), p) && t->n < sizeof(t->v) / sizeof(t->v[0])) {
		struct nm_sym *s = &t->v[t->n];
		int k = sscanf(line, "%63s %63s %63s %255s", f1, f2, f3, f4);

		s->value = strtoull(f1, NULL, 16);
		if (k == 4) { /* value size type name */
			s->size = strtoull(f2, NULL, 16);
			s->type = f3[0];
			snprintf(s->name, sizeof(s->name), "%s", f4);
		} else if (k == 3) { /* value type name: no size */
			s->size = 0;
			s->type = f2[0];
			snprintf(s->name, sizeof(s->name), "%s", f3);
		} else {
			continue;
		}
		t->n++;
	}
	assert_int_equal(pclose(p), 0);
}

static const struct nm_sym *nm_find(const struct nm_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	}
	fail_msg("nm does not list %s", name);
	return NULL;
}

/* The lowest text symbol start above @value, per nm. */
static uint64_t nm_next_text(const struct nm_table *t, uint64_t value)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < t->n; i++) {
		char c = t->v[i].type;

		if ((c == 't' || c == 'T' || c == 'W' || c == 'i') && t->v[i].value > value &&
		    t->v[i].value < next)
			next = t->v[i].value;
	}
	return next;
}

static struct elf_symtab *open_path(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct elf_symtab *t;

	assert_true(fd >= 0);
	t = elf_symtab__open_fd(fd);
	close(fd);
	return t;
}

static void expect_name(const struct elf_symtab *t, uint64_t vaddr, const char *name, uint64_t off)
{
	uint64_t sym_off = UINT64_MAX;
	const char *got = elf_symtab__lookup(t, vaddr, &sym_off);

	if (!got)
		fail_msg("0x%jx: no symbol, want %s", (uintmax_t)vaddr, name);
	assert_string_equal(got, name);
	assert_int_equal(sym_off, off);
}

static void expect_no_name(const struct elf_symtab *t, uint64_t vaddr)
{
	uint64_t sym_off;
	const char *got = elf_symtab__lookup(t, vaddr, &sym_off);

	if (got)
		fail_msg("0x%jx: got %s, want no symbol", (uintmax_t)vaddr, got);
}

/* The checks every built binary must pass: names inside, at both ends, none in padding. */
static void check_known_functions(const char *bin)
{
	static const char *const names[] = {"func_a", "func_b", "func_c"};
	struct nm_table *nm = &nm_table;
	struct elf_symtab *t;
	size_t i;

	nm_read(bin, 0, nm);
	t = open_path(bin);
	assert_non_null(t);
	assert_true(elf_symtab__count(t) >= 3);
	assert_true(elf_symtab__bytes(t) > 0);
	for (i = 0; i < 3; i++) {
		const struct nm_sym *s = nm_find(nm, names[i]);
		uint64_t next = nm_next_text(nm, s->value);

		assert_true(s->size > 0);
		expect_name(t, s->value, names[i], 0);
		expect_name(t, s->value + s->size / 2, names[i], s->size / 2);
		expect_name(t, s->value + s->size - 1, names[i], s->size - 1);
		if (i == 2)
			continue; /* main may follow func_c directly */
		/* aligned(64) leaves padding before the next of these functions */
		assert_true(s->value + s->size < next);
		expect_no_name(t, s->value + s->size);
		expect_no_name(t, next - 1);
	}
	elf_symtab__free(t);
}

/* file_to_vaddr() of offsets in the text segment, per readelf. */
static void check_file_to_vaddr(const char *bin)
{
	struct nm_table *nm = &nm_table;
	const struct nm_sym *a;
	struct elf_symtab *t;
	struct text_seg seg;
	uint64_t vaddr = 0;

	nm_read(bin, 0, nm);
	a = nm_find(nm, "func_a");
	readelf_text_segment(bin, &seg);
	assert_true(a->value >= seg.vaddr && a->value < seg.vaddr + seg.filesz);
	t = open_path(bin);
	assert_non_null(t);

	assert_int_equal(elf_symtab__file_to_vaddr(t, seg.offset + (a->value - seg.vaddr), &vaddr),
			 0);
	assert_int_equal(vaddr, a->value);
	assert_int_equal(elf_symtab__file_to_vaddr(t, seg.offset, &vaddr), 0);
	assert_int_equal(vaddr, seg.vaddr);
	assert_int_equal(elf_symtab__file_to_vaddr(t, seg.offset + seg.filesz - 1, &vaddr), 0);
	assert_int_equal(vaddr, seg.vaddr + seg.filesz - 1);
	assert_int_equal(elf_symtab__file_to_vaddr(t, 1ULL << 40, &vaddr), -ENOENT);
	assert_int_equal(elf_symtab__file_to_vaddr(t, UINT64_MAX, &vaddr), -ENOENT);
	elf_symtab__free(t);
}

static void test_pie_functions(void **state)
{
	(void)state;
	build_fixtures();
	check_known_functions(pie);
}

static void test_no_pie_functions(void **state)
{
	(void)state;
	build_fixtures();
	check_known_functions(nopie);
}

static void test_shared_library_functions(void **state)
{
	(void)state;
	build_fixtures();
	check_known_functions(lib);
}

static void test_pie_file_to_vaddr(void **state)
{
	(void)state;
	build_fixtures();
	check_file_to_vaddr(pie);
}

static void test_no_pie_file_to_vaddr(void **state)
{
	struct text_seg seg;

	(void)state;
	build_fixtures();
	/* Here the text is loaded at an address unlike its file offset. */
	readelf_text_segment(nopie, &seg);
	assert_true(seg.vaddr != seg.offset);
	check_file_to_vaddr(nopie);
}

static void test_zero_size_symtab_reaches_next_symbol(void **state)
{
	struct nm_table *nm = &nm_table;
	uint64_t zs, next;
	struct elf_symtab *t;

	(void)state;
	build_fixtures();
	nm_read(choice, 0, nm);
	zs = nm_find(nm, "zs_func")->value;
	next = nm_find(nm, "sized_after")->value;
	assert_int_equal(nm_find(nm, "zs_func")->size, 0);
	t = open_path(choice);
	assert_non_null(t);
	assert_int_equal(elf_symtab__count(t), 6);
	expect_name(t, zs, "zs_func", 0);
	expect_name(t, zs + 1, "zs_func", 1);
	expect_name(t, next - 1, "zs_func", next - 1 - zs);
	expect_name(t, next, "sized_after", 0);
	expect_no_name(t, zs - 1);
	elf_symtab__free(t);
}

static void test_code_labels_name_what_follows_them(void **state)
{
	struct nm_table *nm = &nm_table;
	uint64_t entry, next, sized, inner, typed, data;
	struct elf_symtab *t;

	(void)state;
	build_fixtures();
	nm_read(labels, 0, nm);
	entry = nm_find(nm, "entry_label")->value;
	next = nm_find(nm, "next_label")->value;
	sized = nm_find(nm, "sized_fn")->value;
	inner = nm_find(nm, "inner_label")->value;
	typed = nm_find(nm, "typed_fn")->value;
	data = nm_find(nm, "data_label")->value;
	assert_int_equal(nm_find(nm, "label_at_fn")->value, typed);
	t = open_path(labels);
	assert_non_null(t);
	expect_name(t, entry, "entry_label", 0);
	expect_name(t, next - 1, "entry_label", next - 1 - entry);
	expect_name(t, next, "next_label", 0);
	expect_name(t, next + 7, "next_label", 7);
	expect_name(t, inner, "sized_fn", inner - sized);
	expect_name(t, inner + 7, "sized_fn", inner + 7 - sized);
	expect_name(t, typed, "typed_fn", 0);
	expect_no_name(t, data);
	elf_symtab__free(t);
}

static void test_zero_size_dynsym_matches_exactly(void **state)
{
	struct nm_table *nm = &nm_table;
	uint64_t zs, zg;
	struct elf_symtab *t;

	(void)state;
	build_fixtures();
	nm_read(choice_stripped, 1, nm);
	zs = nm_find(nm, "zs_func")->value;
	zg = nm_find(nm, "zero_global")->value;
	t = open_path(choice_stripped);
	assert_non_null(t);
	/* No .symtab left: zs_func, sized_after, global_x, under, zero_global, tail_func. */
	assert_int_equal(elf_symtab__count(t), 6);
	expect_name(t, zs, "zs_func", 0);
	expect_no_name(t, zs + 1);
	expect_name(t, zg, "zero_global", 0);
	expect_no_name(t, zg + 1);
	elf_symtab__free(t);
}

static void test_choice_among_symbols_at_one_address(void **state)
{
	struct nm_table *nm = &nm_table;
	uint64_t x, u, sl;
	struct elf_symtab *t, *stripped;

	(void)state;
	build_fixtures();
	nm_read(choice, 0, nm);
	x = nm_find(nm, "global_x")->value;
	u = nm_find(nm, "under")->value;
	sl = nm_find(nm, "sized_local")->value;
	assert_int_equal(nm_find(nm, "local_x")->value, x);
	assert_int_equal(nm_find(nm, "weak_x")->value, x);
	assert_int_equal(nm_find(nm, "__under")->value, u);
	assert_int_equal(nm_find(nm, "zero_global")->value, sl);
	t = open_path(choice);
	stripped = open_path(choice_stripped);
	assert_non_null(t);
	assert_non_null(stripped);
	/* global beats weak beats local */
	expect_name(t, x + 15, "global_x", 15);
	expect_name(stripped, x + 15, "global_x", 15);
	/* fewer leading underscores */
	expect_name(t, u + 3, "under", 3);
	expect_name(stripped, u, "under", 0);
	/* a sized local beats a zero-size global */
	expect_name(t, sl + 7, "sized_local", 7);
	expect_no_name(t, sl + 8);
	elf_symtab__free(t);
	elf_symtab__free(stripped);
}

/* A PLT entry as objdump labels it ("<strlen@plt>:"): binutils' own reading of the relocations. */
struct plt_label {
	uint64_t addr;
	char name[256];
};

/* The PLT entries objdump names in @bin, headers and unnamed entries left out. */
static size_t objdump_plt_labels(const char *bin, struct plt_label *out, size_t max)
{
	char cmd[1024], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) && n < max) {
		unsigned long long addr;

		if (sscanf(line, "%llx <%255[^>]>:", &addr, out[n].name) == 2 &&
		    strstr(out[n].name, "@plt") && !strpbrk(out[n].name, "+-*")) {
			out[n].addr = addr;
			n++;
		}
	}
	assert_int_equal(pclose(p), 0);
	return n;
}

/* The address and size of section @name of @bin, per readelf. */
static void readelf_section(const char *bin, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[1024], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//' | "
		 "awk '$1 == \"%s\" { print $3, $5 }'",
		 bin, name);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_int_equal(sscanf(line, "%" SCNx64 " %" SCNx64, addr, size), 2);
	pclose(p);
}

/* Every PLT entry objdump names is named alike, "strlen@plt", from its first byte on. */
static void check_plt_names(const char *bin)
{
	struct plt_label labels[32];
	size_t n = objdump_plt_labels(bin, labels, 32);
	struct elf_symtab *t = open_path(bin);
	bool strlen_seen = false;

	assert_non_null(t);
	assert_true(n >= 4); /* free, strcpy, strlen, malloc */
	for (size_t i = 0; i < n; i++) {
		expect_name(t, labels[i].addr, labels[i].name, 0);
		expect_name(t, labels[i].addr + 5, labels[i].name, 5);
		strlen_seen |= strcmp(labels[i].name, "strlen@plt") == 0;
	}
	assert_true(strlen_seen);
	elf_symtab__free(t);
}

static void test_plt_entries_named_as_perf_does(void **state)
{
	(void)state;
	build_fixtures();
	check_plt_names(plt_pie);
	check_plt_names(plt_nopie);
	check_plt_names(plt_ibt); /* .plt.sec, and .plt.got entries 16 bytes long */
}

/*
 * _init has no size: it reaches to the end of .init and no further. The
 * .plt's first 16 bytes (the lazy binder) are nobody's function.
 */
static void test_zero_size_symbol_stays_in_its_section(void **state)
{
	uint64_t init, init_size, plt, plt_size;
	struct elf_symtab *t;

	(void)state;
	build_fixtures();
	readelf_section(plt_pie, ".init", &init, &init_size);
	readelf_section(plt_pie, ".plt", &plt, &plt_size);
	assert_true(init + init_size <= plt);
	t = open_path(plt_pie);
	assert_non_null(t);
	expect_name(t, init, "_init", 0);
	expect_name(t, init + init_size - 1, "_init", init_size - 1);
	expect_no_name(t, init + init_size);
	expect_no_name(t, plt);
	expect_no_name(t, plt + 15);
	elf_symtab__free(t);
}

/*
 * Among aliases the name a programmer wrote: free (not cfree@VERS_1 or
 * __libc_free), lseek (not __lseek, lseek64 or llseek@VERS_1),
 * clock_gettime (its default version, without "@@VERS_2"); from the
 * .symtab, and from the .dynsym alone, where compatibility versions are
 * hidden ones.
 */
static void test_aliases_name_what_a_programmer_wrote(void **state)
{
	struct nm_table *nm = &nm_table;
	const char *const paths[] = { aliases, aliases_stripped };
	uint64_t f, l, c;

	(void)state;
	build_fixtures();
	nm_read(aliases, 0, nm);
	f = nm_find(nm, "__libc_free")->value;
	l = nm_find(nm, "__lseek")->value;
	c = nm_find(nm, "__clock_gettime")->value;
	assert_int_equal(nm_find(nm, "cfree@VERS_1")->value, f);
	assert_int_equal(nm_find(nm, "llseek@VERS_1")->value, l);
	assert_int_equal(nm_find(nm, "clock_gettime@@VERS_2")->value, c);
	for (size_t i = 0; i < 2; i++) {
		struct elf_symtab *t = open_path(paths[i]);

		assert_non_null(t);
		expect_name(t, f + 3, "free", 3);
		expect_name(t, l, "lseek", 0);
		expect_name(t, c + 15, "clock_gettime", 15);
		elf_symtab__free(t);
	}
}

static void test_not_elf_fails(void **state)
{
	char path[512];
	struct elf_symtab *t;

	(void)state;
	snprintf(path, sizeof(path), "%s/not-elf", unit_tmpdir());
	unit_write_file(path, "#!/bin/sh\necho this is not an ELF file\n");
	errno = 0;
	t = open_path(path);
	assert_null(t);
	assert_int_not_equal(errno, 0);
	unit_write_file(path, "");
	errno = 0;
	t = open_path(path);
	assert_null(t);
	assert_int_not_equal(errno, 0);
	assert_null(elf_symtab__open_fd(-1));
	elf_symtab__free(NULL);
}

/* Copies @src to a new file in the temporary directory and returns its contents. */
static unsigned char *copy_binary(const char *src, const char *name, char *dst, size_t *len)
{
	snprintf(dst, 512, "%s/%s", unit_tmpdir(), name);
	return unit_read_file(src, len);
}

static void save_binary(const char *path, const unsigned char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The section header of type @type in the 64-bit ELF image @buf. */
static Elf64_Shdr *section_of_type(unsigned char *buf, size_t len, uint32_t type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	size_t i;

	assert_true(len >= sizeof(*eh) && eh->e_ident[EI_CLASS] == ELFCLASS64);
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(buf + eh->e_shoff + i * sizeof(Elf64_Shdr));

		assert_true(eh->e_shoff + (i + 1) * sizeof(Elf64_Shdr) <= len);
		if (sh->sh_type == type)
			return sh;
	}
	fail_msg("no section of type %u", type);
	return NULL;
}

static void test_symtab_out_of_file_falls_back_to_dynsym(void **state)
{
	unsigned char *buf;
	char path[512];
	size_t len;
	struct nm_table *nm = &nm_table;
	struct elf_symtab *t;
	Elf64_Shdr *sh;

	(void)state;
	build_fixtures();
	nm_read(lib, 1, nm);
	buf = copy_binary(lib, "bad-symtab.so", path, &len);
	sh = section_of_type(buf, len, SHT_SYMTAB);
	sh->sh_offset = 0xfffffffff0ULL;
	sh->sh_size = 0xffffffffffULL;
	save_binary(path, buf, len);
	t = open_path(path);
	assert_non_null(t);
	/* .dynsym still names the exported functions. */
	expect_name(t, nm_find(nm, "func_b")->value + 1, "func_b", 1);
	elf_symtab__free(t);
	free(buf);
}

static void test_bad_links_and_string_indexes_never_crash(void **state)
{
	unsigned char *buf;
	char path[512];
	size_t len, i;
	struct elf_symtab *t;
	Elf64_Shdr *sym, *dyn;

	(void)state;
	build_fixtures();
	buf = copy_binary(lib, "bad-links.so", path, &len);
	dyn = section_of_type(buf, len, SHT_DYNSYM);
	sym = section_of_type(buf, len, SHT_SYMTAB);
	dyn->sh_link = 0xffff; /* no such string table */
	/* every .symtab name index far out of its string table */
	for (i = 0; i + sizeof(Elf64_Sym) <= sym->sh_size; i += sizeof(Elf64_Sym))
		((Elf64_Sym *)(buf + sym->sh_offset + i))->st_name = 0x7ffffff0;
	save_binary(path, buf, len);
	t = open_path(path);
	assert_non_null(t);
	assert_int_equal(elf_symtab__count(t), 0);
	expect_no_name(t, 0x1000);
	elf_symtab__free(t);
	free(buf);
}

/*
 * A .symtab whose string table does not end in a NUL: its names are then
 * read one by one through libelf's checks. func_c is given the table's last
 * name, which now runs past the table's end: it is not taken, and the
 * other names still are.
 */
static void test_strtab_without_final_nul(void **state)
{
	struct nm_table *nm = &nm_table;
	unsigned char *buf, *strs;
	Elf64_Shdr *sym, *str;
	struct elf_symtab *t;
	char path[512];
	size_t len, i, last;
	bool renamed = false;

	(void)state;
	build_fixtures();
	nm_read(lib, 1, nm);
	buf = copy_binary(lib, "unterminated-strtab.so", path, &len);
	sym = section_of_type(buf, len, SHT_SYMTAB);
	str = (Elf64_Shdr *)(buf + ((Elf64_Ehdr *)buf)->e_shoff + sym->sh_link * sizeof(Elf64_Shdr));
	assert_true(str->sh_type == SHT_STRTAB && str->sh_size >= 2 &&
		    str->sh_offset + str->sh_size <= len);
	strs = buf + str->sh_offset;
	for (last = str->sh_size - 1; last > 0 && strs[last - 1]; last--)
		;
	for (i = 0; i + sizeof(Elf64_Sym) <= sym->sh_size; i += sizeof(Elf64_Sym)) {
		Elf64_Sym *e = (Elf64_Sym *)(buf + sym->sh_offset + i);

		if (e->st_name < str->sh_size && strcmp((char *)strs + e->st_name, "func_c") == 0) {
			e->st_name = (uint32_t)last;
			renamed = true;
		}
	}
	assert_true(renamed);
	strs[str->sh_size - 1] = 'x';
	save_binary(path, buf, len);
	t = open_path(path);
	assert_non_null(t);
	expect_name(t, nm_find(nm, "func_a")->value, "func_a", 0);
	expect_name(t, nm_find(nm, "func_b")->value + 1, "func_b", 1);
	expect_no_name(t, nm_find(nm, "func_c")->value);
	elf_symtab__free(t);
	free(buf);
}

static void test_bad_program_headers_never_crash(void **state)
{
	unsigned char *buf;
	char path[512];
	size_t len;
	struct elf_symtab *t;
	Elf64_Ehdr *eh;
	uint64_t vaddr;

	(void)state;
	build_fixtures();
	buf = copy_binary(pie, "bad-phdrs", path, &len);
	eh = (Elf64_Ehdr *)buf;
	eh->e_phoff = 0xfffffffffff0ULL;
	eh->e_phnum = 0xfff0;
	save_binary(path, buf, len);
	t = open_path(path);
	assert_non_null(t);
	/* No segment could be read; the section headers and symbols still can. */
	assert_int_equal(elf_symtab__file_to_vaddr(t, 0x1000, &vaddr), -ENOENT);
	assert_true(elf_symtab__count(t) >= 3);
	elf_symtab__free(t);
	free(buf);
}

static void test_truncated_and_scrambled_files_never_crash(void **state)
{
	static const size_t cuts[] = {1, 16, 63, 64, 65, 200, 4096, 8192};
	uint64_t x = 0x2545f4914f6cdd1dULL;
	unsigned char *buf;
	char path[512];
	size_t len, i, j;

	(void)state;
	build_fixtures();
	buf = copy_binary(lib, "truncated.so", path, &len);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct elf_symtab *t;
		uint64_t off;

		save_binary(path, buf, cuts[i] < len ? cuts[i] : len);
		t = open_path(path);
		if (t) {
			elf_symtab__lookup(t, 0x1100, &off);
			elf_symtab__file_to_vaddr(t, 0x1100, &off);
			elf_symtab__free(t);
		}
	}
	/* Random bytes everywhere past the ELF header, many times over. */
	for (i = 0; i < 50; i++) {
		struct elf_symtab *t;
		uint64_t off;

		for (j = 0; j < 64; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[64 + x % (len - 64)] = (unsigned char)(x >> 32);
		}
		save_binary(path, buf, len);
		t = open_path(path);
		if (t) {
			elf_symtab__lookup(t, 0x1100, &off);
			elf_symtab__free(t);
		}
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pie_functions),
	    cmocka_unit_test(test_no_pie_functions),
	    cmocka_unit_test(test_shared_library_functions),
	    cmocka_unit_test(test_pie_file_to_vaddr),
	    cmocka_unit_test(test_no_pie_file_to_vaddr),
	    cmocka_unit_test(test_zero_size_symtab_reaches_next_symbol),
	    cmocka_unit_test(test_code_labels_name_what_follows_them),
	    cmocka_unit_test(test_zero_size_dynsym_matches_exactly),
	    cmocka_unit_test(test_choice_among_symbols_at_one_address),
	    cmocka_unit_test(test_plt_entries_named_as_perf_does),
	    cmocka_unit_test(test_zero_size_symbol_stays_in_its_section),
	    cmocka_unit_test(test_aliases_name_what_a_programmer_wrote),
	    cmocka_unit_test(test_not_elf_fails),
	    cmocka_unit_test(test_symtab_out_of_file_falls_back_to_dynsym),
	    cmocka_unit_test(test_bad_links_and_string_indexes_never_crash),
	    cmocka_unit_test(test_strtab_without_final_nul),
	    cmocka_unit_test(test_bad_program_headers_never_crash),
	    cmocka_unit_test(test_truncated_and_scrambled_files_never_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
