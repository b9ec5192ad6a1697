// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_table: tables built from hand-made CFI (tests/fixtures/cfi_rules.S,
 * which the Makefile builds into build/fixtures/), each rule checked at the
 * file offset of a label of the fixture: its address comes from the
 * fixture's .symtab and becomes a file offset through its PT_LOAD segments,
 * both read here with libelf alone, never by the code under test. Then
 * damaged copies of the fixture, and Debian's libc and python3, where every
 * exported function's first instruction must be under "CFA = rsp + 8,
 * return address at CFA - 8": what a call leaves, whatever the builder
 * thinks.
 */
#include "tests/unit/unit.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>

#include "symbols/elffile.h"
#include "unwind/cfi_table.h"
#include "unwind/rule_dict.h"

#define FIXTURE_DIR "build/fixtures"
#define CFI_RULES FIXTURE_DIR "/cfi_rules.so"
#define CFI_DEBUG_FRAME FIXTURE_DIR "/cfi_rules_debug_frame.so"
#define CFI_STRIPPED FIXTURE_DIR "/cfi_rules_stripped.so"
#define CFI_DEBUG_FILE FIXTURE_DIR "/cfi_rules_debug_frame.debug"
#define NO_CFI FIXTURE_DIR "/no_cfi.so"
#define HUGE_REGISTER FIXTURE_DIR "/huge_register.so"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON "/usr/bin/python3" /* python3.11 in Debian 12 */

/* The rules the fixture's comments name. */
#define SP(k) ((struct unwind_rule){.kind = UNWIND_RULE_CFA_SP, .cfa_off = (k), .ra_off = -8})
#define SP_FP(k)                                                                                   \
	((struct unwind_rule){                                                                     \
	    .kind = UNWIND_RULE_CFA_SP, .cfa_off = (k), .ra_off = -8, .fp_off = -16})
#define FP(k)                                                                                      \
	((struct unwind_rule){                                                                     \
	    .kind = UNWIND_RULE_CFA_FP, .cfa_off = (k), .ra_off = -8, .fp_off = -16})
#define PLT(k, split)                                                                              \
	((struct unwind_rule){                                                                     \
	    .kind = UNWIND_RULE_PLT, .cfa_off = (k), .ra_off = -8, .plt_split = (split)})
#define SIGNAL(cfa, ra, fp)                                                                        \
	((struct unwind_rule){                                                                     \
	    .kind = UNWIND_RULE_SIGNAL, .cfa_off = (cfa), .ra_off = (ra), .fp_off = (fp)})
#define ONLY(k) ((struct unwind_rule){.kind = (k)})
#define NONE ONLY(UNWIND_RULE_NONE)
#define OUTERMOST ONLY(UNWIND_RULE_OUTERMOST)
#define UNSUPPORTED ONLY(UNWIND_RULE_UNSUPPORTED)

/* The number of FDEs and of UNSUPPORTED rows cfi_rules.S writes. */
#define FIXTURE_FDES 12
#define FIXTURE_UNSUPPORTED 4

/* A file as this test reads it, with libelf alone. */
struct elf_view {
	int fd;
	Elf *elf;
};

static void view_open(struct elf_view *v, const char *path)
{
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	v->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0)
		fail_msg("%s: %s (make build-tests builds the fixtures)", path, strerror(errno));
	v->elf = elf_begin(v->fd, ELF_C_READ, NULL);
	assert_non_null(v->elf);
}

static void view_close(struct elf_view *v)
{
	elf_end(v->elf);
	close(v->fd);
}

/* The section named @name (its header in *@sh), or NULL. */
static Elf_Scn *view_section(const struct elf_view *v, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	assert_int_equal(elf_getshdrstrndx(v->elf, &shstrndx), 0);
	while ((scn = elf_nextscn(v->elf, scn)) != NULL) {
		const char *n;

		assert_non_null(gelf_getshdr(scn, sh));
		n = elf_strptr(v->elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* True when file @path has a section @name with bytes in the file. */
static bool has_bytes(const char *path, const char *name)
{
	struct elf_view v;
	GElf_Shdr sh;
	bool has;

	view_open(&v, path);
	has = view_section(&v, name, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
	view_close(&v);
	return has;
}

/* Calls @fn for each symbol of section @table (".symtab", ".dynsym"). */
static void view_each_symbol(const struct elf_view *v, const char *table,
			     void (*fn)(const GElf_Sym *sym, const char *name, void *ctx),
			     void *ctx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = view_section(v, table, &sh);
	Elf_Data *data;

	if (!scn)
		fail_msg("no %s", table);
	data = elf_getdata(scn, NULL);
	assert_non_null(data);
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		const char *name;
		GElf_Sym sym;

		assert_non_null(gelf_getsym(data, (int)i, &sym));
		name = elf_strptr(v->elf, sh.sh_link, sym.st_name);
		fn(&sym, name ? name : "", ctx);
	}
}

struct symbol_query {
	const char *name;
	uint64_t value;
	int found;
};

static void match_symbol(const GElf_Sym *sym, const char *name, void *ctx)
{
	struct symbol_query *q = ctx;

	if (!strcmp(name, q->name) && sym->st_shndx != SHN_UNDEF) {
		q->value = sym->st_value;
		q->found++;
	}
}

/* The address of label @name, from the .symtab. */
static uint64_t view_symbol(const struct elf_view *v, const char *name)
{
	struct symbol_query q = {.name = name};

	view_each_symbol(v, ".symtab", match_symbol, &q);
	if (q.found != 1)
		fail_msg("%d symbols %s", q.found, name);
	return q.value;
}

/* The PT_LOAD segment whose file bytes hold address @vaddr. */
static GElf_Phdr view_segment(const struct elf_view *v, uint64_t vaddr)
{
	size_t n;

	assert_int_equal(elf_getphdrnum(v->elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(v->elf, (int)i, &ph));
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
			return ph;
	}
	fail_msg("address 0x%" PRIx64 " is in no PT_LOAD segment", vaddr);
	return (GElf_Phdr){0};
}

/* The file offset of address @vaddr. */
static uint64_t view_offset(const struct elf_view *v, uint64_t vaddr)
{
	GElf_Phdr ph = view_segment(v, vaddr);

	return vaddr - ph.p_vaddr + ph.p_offset;
}

/* A rule as a line of text, for failure messages. */
static const char *rule_text(const struct unwind_rule *r, char *buf, size_t size)
{
	static const char *const kinds[] = {
	    [UNWIND_RULE_NONE] = "NONE",
	    [UNWIND_RULE_CFA_SP] = "CFA_SP",
	    [UNWIND_RULE_CFA_FP] = "CFA_FP",
	    [UNWIND_RULE_PLT] = "PLT",
	    [UNWIND_RULE_SIGNAL] = "SIGNAL",
	    [UNWIND_RULE_OUTERMOST] = "OUTERMOST",
	    [UNWIND_RULE_UNSUPPORTED] = "UNSUPPORTED",
	};

	snprintf(buf, size, "%s cfa %d ra %d fp %d split %d",
		 r->kind < UNWIND_RULE_KIND_NR ? kinds[r->kind] : "?", r->cfa_off, r->ra_off,
		 r->fp_off, r->plt_split);
	return buf;
}

static bool same_rule(const struct unwind_rule *a, const struct unwind_rule *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->plt_split == b->plt_split;
}

/* The rule of the last row at or before @off (NONE before the first), by a plain scan. */
static uint32_t scan_rule(const struct cfi_table *t, uint64_t off)
{
	uint32_t rule = UNWIND_RULE_ID_NONE;

	for (size_t i = 0; i < t->n && t->rows[i].off <= off; i++)
		rule = t->rows[i].rule;
	return rule;
}

static bool row_at(const struct cfi_table *t, uint64_t off)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].off == off)
			return true;
	return false;
}

/*
 * What every table is: rows strictly increasing, never the same rule twice
 * in a row, ids of @dict, starting with a rule and ending with NONE.
 */
static void assert_table_shape(const struct cfi_table *t, const struct rule_dict *dict)
{
	assert_true(t->n >= 2);
	assert_non_null(t->rows);
	assert_int_not_equal(t->rows[0].rule, UNWIND_RULE_ID_NONE);
	assert_int_equal(t->rows[t->n - 1].rule, UNWIND_RULE_ID_NONE);
	for (size_t i = 0; i < t->n; i++) {
		assert_true(t->rows[i].rule < rule_dict__count(dict));
		if (i && t->rows[i].off <= t->rows[i - 1].off)
			fail_msg("row %zu at +0x%x after one at +0x%x", i, t->rows[i].off,
				 t->rows[i - 1].off);
		if (i && t->rows[i].rule == t->rows[i - 1].rule)
			fail_msg("rows %zu and %zu (+0x%x, +0x%x) both have rule %u", i - 1, i,
				 t->rows[i - 1].off, t->rows[i].off, t->rows[i].rule);
	}
	assert_int_equal(cfi_table__bytes(t), t->n * sizeof(struct unwind_row));
}

static struct elf_file *open_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *f;

	if (fd < 0)
		fail_msg("%s: %s (make build-tests builds the fixtures)", path, strerror(errno));
	f = elf_file__open_fd(fd, true);
	assert_non_null(f);
	return f;
}

/* Builds the table of file @path (with debug file @debug_path, or NULL); checks its shape. */
static int build(const char *path, const char *debug_path, struct rule_dict *dict,
		 struct cfi_table *t)
{
	struct elf_file *bin = open_elf(path);
	struct elf_file *debug = debug_path ? open_elf(debug_path) : NULL;
	int err = cfi_table__build(bin, debug, dict, NULL, t);

	elf_file__close(debug);
	elf_file__close(bin);
	if (!err)
		assert_table_shape(t, dict);
	return err;
}

static void assert_same_rows(const struct cfi_table *a, const struct cfi_table *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->rows[i].off, b->rows[i].off);
		assert_int_equal(a->rows[i].rule, b->rows[i].rule);
	}
}

/* cfi_rules.so: its labels and its table. */
struct fixture {
	struct elf_view view;
	struct rule_dict *dict;
	struct cfi_table t;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	view_open(&f->view, CFI_RULES);
	f->dict = rule_dict__new();
	assert_non_null(f->dict);
	assert_int_equal(build(CFI_RULES, NULL, f->dict, &f->t), 0);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	cfi_table__free(&f->t);
	rule_dict__free(f->dict);
	view_close(&f->view);
	free(f);
	return 0;
}

static uint64_t label_off(const struct fixture *f, const char *label)
{
	return view_offset(&f->view, view_symbol(&f->view, label));
}

static void assert_rule(const struct rule_dict *dict, const struct cfi_table *t, uint64_t off,
			struct unwind_rule want, const char *where)
{
	const struct unwind_rule *got = rule_dict__get(dict, scan_rule(t, off));
	char a[80], b[80];

	if (!same_rule(got, &want))
		fail_msg("at %s (+0x%" PRIx64 "): want %s, got %s", where, off,
			 rule_text(&want, a, sizeof(a)), rule_text(got, b, sizeof(b)));
}

/* At @delta bytes past @label: whether a row starts there. */
enum row_start { ANY_ROW, ROW, NO_ROW };

/* What holds @delta bytes past @label: rule @rule, and a row starts there or not. */
struct expectation {
	const char *label;
	int delta;
	enum row_start row;
	struct unwind_rule rule;
};

static void expect_all(const struct fixture *f, const struct expectation *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t off = label_off(f, e[i].label) + e[i].delta;
		char where[96];

		snprintf(where, sizeof(where), "%s%+d", e[i].label, e[i].delta);
		assert_rule(f->dict, &f->t, off, e[i].rule, where);
		if (e[i].row != ANY_ROW && row_at(&f->t, off) != (e[i].row == ROW))
			fail_msg("%s %s", e[i].row == ROW ? "no row starts at" : "a row starts at",
				 where);
	}
}

#define EXPECT_ALL(f, table) expect_all(f, table, sizeof(table) / sizeof(table[0]))

static void test_offsets_are_not_addresses(void **state)
{
	struct fixture *f = *state;
	uint64_t vaddr = view_symbol(&f->view, "sp_frame");
	GElf_Phdr text = view_segment(&f->view, vaddr);

	/* The fixture is linked so that a table keyed by address would show. */
	assert_true(text.p_flags & PF_X);
	assert_int_not_equal(text.p_vaddr, text.p_offset);
	assert_string_equal(f->t.source, ".eh_frame");
	/* Every row lies in the text's bytes, its end included. */
	for (size_t i = 0; i < f->t.n; i++) {
		assert_true(f->t.rows[i].off >= text.p_offset);
		assert_true(f->t.rows[i].off <= text.p_offset + text.p_filesz);
	}
}

static void test_cfa_from_rsp(void **state)
{
	const struct expectation e[] = {
	    {"sp_frame", 0, ROW, SP(8)},	{"sp_frame_1", 0, ROW, SP(16)},
	    {"sp_frame_2", 0, ROW, SP(24)},	{"sp_frame_3", 0, ROW, SP(64)},
	    {"sp_frame_4", -1, NO_ROW, SP(64)}, {"sp_frame_4", 0, ROW, SP(24)},
	    {"sp_frame_5", 0, ROW, SP(16)},	{"sp_frame_6", 0, ROW, SP(8)},
	};

	EXPECT_ALL(*state, e);
}

static void test_frame_pointer(void **state)
{
	const struct expectation e[] = {
	    {"fp_frame", 0, ANY_ROW, SP(8)},   {"fp_frame_1", 0, ROW, SP_FP(16)},
	    {"fp_frame_2", 0, ROW, FP(16)},    {"fp_frame_3", -1, NO_ROW, FP(16)},
	    {"fp_frame_3", 0, ROW, SP_FP(16)}, {"fp_frame_4", 0, ROW, SP(8)},
	};
	struct fixture *f = *state;

	EXPECT_ALL(f, e);
	/* One rule, one id: the epilogue's rule is the entry's. */
	assert_int_equal(scan_rule(&f->t, label_off(f, "fp_frame_4")),
			 scan_rule(&f->t, label_off(f, "fp_frame")));
}

static void test_rbp_saved_cfa_from_rsp(void **state)
{
	const struct expectation e[] = {
	    {"rbp_saved", 0, ROW, SP(8)},	{"rbp_saved_1", 0, ROW, SP_FP(16)},
	    {"rbp_saved_2", 0, ROW, SP_FP(24)}, {"rbp_saved_3", 0, ROW, SP_FP(16)},
	    {"rbp_saved_4", 0, ROW, SP_FP(8)},
	};

	EXPECT_ALL(*state, e);
}

static void test_outermost(void **state)
{
	const struct expectation e[] = {
	    {"outermost", 0, ROW, OUTERMOST},	      {"outermost", 9, NO_ROW, OUTERMOST},
	    {"thread_start", 0, ROW, SP(8)},	      {"thread_start_1", 0, ROW, OUTERMOST},
	    {"thread_start_1", 2, NO_ROW, OUTERMOST},
	};

	EXPECT_ALL(*state, e);
}

static void test_signal_frame(void **state)
{
	const struct expectation e[] = {
	    {"signal_frame", 0, ROW, SIGNAL(160, 168, 120)},
	    {"restore_rt", 0, NO_ROW, SIGNAL(160, 168, 120)},
	    {"restore_rt", 6, NO_ROW, SIGNAL(160, 168, 120)},
	};

	EXPECT_ALL(*state, e);
}

static void test_plt(void **state)
{
	/* Before, at and after the push at byte 11 of each 16-byte entry; then the next FDE. */
	const struct expectation e[] = {
	    {"plt_entries", 0, ROW, PLT(8, 11)},     {"plt_entries", 10, NO_ROW, PLT(8, 11)},
	    {"plt_entries", 11, NO_ROW, PLT(8, 11)}, {"plt_entries", 16, NO_ROW, PLT(8, 11)},
	    {"plt_entries", 27, NO_ROW, PLT(8, 11)}, {"plt_entries", 31, NO_ROW, PLT(8, 11)},
	    {"plt_entries", 32, ANY_ROW, SP(8)},
	};

	EXPECT_ALL(*state, e);
}

static void test_unsupported(void **state)
{
	const struct expectation e[] = {
	    {"unsupported", 0, ROW, SP(8)},   {"unsupported_cfa_r10", 0, ROW, UNSUPPORTED},
	    {"unsupported_2", 0, ROW, SP(8)}, {"unsupported_rip_in_rax", 0, ROW, UNSUPPORTED},
	    {"unsupported_4", 0, ROW, SP(8)}, {"unsupported_cfa_expr", 0, ROW, UNSUPPORTED},
	    {"unsupported_6", 0, ROW, SP(8)}, {"unsupported_rbp_expr", 0, ROW, UNSUPPORTED},
	    {"unsupported_8", 0, ROW, SP(8)},
	};
	struct fixture *f = *state;

	EXPECT_ALL(f, e);
	/* The fixed id, which a walk can test for without the dictionary. */
	assert_int_equal(scan_rule(&f->t, label_off(f, "unsupported_cfa_r10")),
			 UNWIND_RULE_ID_UNSUPPORTED);
	assert_int_equal(f->t.unsupported, FIXTURE_UNSUPPORTED);
}

static void test_gaps(void **state)
{
	const struct expectation e[] = {
	    /* Before the first FDE: no row at all. */
	    {"no_cfi_head", 0, NO_ROW, NONE},
	    {"sp_frame", -1, NO_ROW, NONE},
	    /* Between two FDEs: NONE from the first one's end to the next one's start. */
	    {"rbp_saved_end", -1, ANY_ROW, SP_FP(8)},
	    {"rbp_saved_end", 0, ROW, NONE},
	    {"gap_code", 0, NO_ROW, NONE},
	    {"outermost", -1, NO_ROW, NONE},
	    {"adjacent_b_end", 0, ROW, NONE},
	    {"last_fde", -1, NO_ROW, NONE},
	    /* After the last FDE: NONE. */
	    {"last_fde_end", -1, ANY_ROW, SP(8)},
	    {"last_fde_end", 0, ROW, NONE},
	    {"no_cfi_tail", 15, NO_ROW, NONE},
	    {"no_cfi_tail", 4096, NO_ROW, NONE},
	};
	struct fixture *f = *state;

	EXPECT_ALL(f, e);
	assert_int_equal(f->t.rows[0].off, label_off(f, "sp_frame"));
	assert_int_equal(f->t.rows[f->t.n - 1].off, label_off(f, "last_fde_end"));
}

static void test_merged_rows(void **state)
{
	const struct expectation e[] = {
	    /* A repeated offset and a remember/restore pair make no row. */
	    {"repeats_1", 0, ROW, SP(16)},
	    {"repeats_same_offset", 0, NO_ROW, SP(16)},
	    {"repeats_same_state", 0, NO_ROW, SP(16)},
	    {"repeats_same_state", 1, NO_ROW, SP(16)},
	    {"repeats_4", 0, ROW, SP(8)},
	    {"repeats_5", 0, ROW, SP(16)},
	    {"repeats_6", 0, ROW, SP(8)},
	    /* An FDE that starts with the rule the one before it ends with. */
	    {"adjacent_a_2", 0, ROW, SP(8)},
	    {"adjacent_b", 0, NO_ROW, SP(8)},
	};

	EXPECT_ALL(*state, e);
}

static void test_rule_at(void **state)
{
	struct fixture *f = *state;
	struct cfi_table empty = {0};
	uint64_t end = f->t.rows[f->t.n - 1].off + 64;

	for (uint64_t off = 0; off < end; off++)
		assert_int_equal(cfi_table__rule_at(&f->t, off), scan_rule(&f->t, off));
	assert_int_equal(cfi_table__rule_at(&f->t, UINT64_MAX), UNWIND_RULE_ID_NONE);
	assert_int_equal(cfi_table__rule_at(&empty, 0x1000), UNWIND_RULE_ID_NONE);
}

/* One entry of an .eh_frame, as a plain walk of its length fields finds it. */
struct cfi_entry {
	size_t off;  /* of its length field, in the section */
	size_t size; /* with the length field */
	bool cie;
};

/* Where cfi_rules.so's CFI is, in the file. */
struct eh_layout {
	size_t eh_off, eh_size;	  /* .eh_frame */
	size_t eh_shdr;		  /* .eh_frame's section header */
	size_t hdr_off, hdr_size; /* .eh_frame_hdr */
	struct cfi_entry e[32];
	size_t n;
};

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void eh_layout_read(const char *path, const uint8_t *image, struct eh_layout *l)
{
	struct elf_view v;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;

	memset(l, 0, sizeof(*l));
	view_open(&v, path);
	assert_non_null(gelf_getehdr(v.elf, &eh));
	scn = view_section(&v, ".eh_frame", &sh);
	assert_non_null(scn);
	l->eh_off = sh.sh_offset;
	l->eh_size = sh.sh_size;
	l->eh_shdr = eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize;
	assert_non_null(view_section(&v, ".eh_frame_hdr", &sh));
	l->hdr_off = sh.sh_offset;
	l->hdr_size = sh.sh_size;
	view_close(&v);
	for (size_t at = 0; at + 4 <= l->eh_size;) {
		const uint8_t *p = image + l->eh_off + at;
		uint32_t len = le32(p);

		if (!len)
			break;
		assert_true(at + 4 + len <= l->eh_size && l->n < 32);
		l->e[l->n++] = (struct cfi_entry){at, 4 + len, le32(p + 4) == 0};
		at += 4 + len;
	}
}

/*
 * Builds the table of a malloc()ed copy of the @len bytes at @image.
 * Returns what cfi_table__build() does, or -ENOEXEC when libelf refuses
 * the copy. A table it returns has the shape every table has.
 */
static int build_image(const uint8_t *image, size_t len, struct rule_dict *dict,
		       struct cfi_table *t)
{
	void *copy = malloc(len ? len : 1);
	struct elf_file *f;
	int err;

	assert_non_null(copy);
	memcpy(copy, image, len);
	f = elf_file__open_image(copy, len);
	if (!f) {
		memset(t, 0, sizeof(*t));
		return -ENOEXEC;
	}
	memset(t, 0x55, sizeof(*t)); /* the builder must clear it, whatever happens */
	err = cfi_table__build(f, NULL, dict, NULL, t);
	elf_file__close(f);
	if (!err)
		assert_table_shape(t, dict);
	else
		assert_true(!t->n && !t->rows);
	return err;
}

static void test_fde_count(void **state)
{
	struct fixture *f = *state;
	struct eh_layout l;
	size_t fdes = 0;
	uint8_t *image;
	size_t len;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	for (size_t i = 0; i < l.n; i++)
		fdes += !l.e[i].cie;
	assert_int_equal(fdes, FIXTURE_FDES);
	assert_int_equal(f->t.fdes, fdes);
	free(image);
}

static void test_debug_frame_only(void **state)
{
	struct fixture *f = *state;
	struct cfi_table t;

	assert_false(has_bytes(CFI_DEBUG_FRAME, ".eh_frame"));
	assert_true(has_bytes(CFI_DEBUG_FRAME, ".debug_frame"));
	assert_int_equal(build(CFI_DEBUG_FRAME, NULL, f->dict, &t), 0);
	assert_string_equal(t.source, ".debug_frame");
	/* The same CFI as cfi_rules.so's .eh_frame, so the same rows. */
	assert_same_rows(&t, &f->t);
	assert_int_equal(t.fdes, FIXTURE_FDES);
	assert_int_equal(t.unsupported, FIXTURE_UNSUPPORTED);
	cfi_table__free(&t);
	assert_null(t.rows);
	assert_int_equal(t.n, 0);
}

static void test_debug_file(void **state)
{
	struct fixture *f = *state;
	struct cfi_table t;

	assert_false(has_bytes(CFI_STRIPPED, ".eh_frame"));
	assert_false(has_bytes(CFI_STRIPPED, ".debug_frame"));
	assert_false(has_bytes(CFI_STRIPPED, ".symtab"));
	assert_false(has_bytes(CFI_DEBUG_FILE, ".text"));
	assert_int_equal(build(CFI_STRIPPED, NULL, f->dict, &t), -ENOENT);
	assert_int_equal(build(CFI_STRIPPED, NO_CFI, f->dict, &t), -ENOENT);
	assert_int_equal(build(CFI_STRIPPED, CFI_DEBUG_FILE, f->dict, &t), 0);
	assert_string_equal(t.source, "debug file's .debug_frame");
	/* The debug file's CFI, keyed by the stripped file's offsets. */
	assert_same_rows(&t, &f->t);
	cfi_table__free(&t);
}

static void test_no_cfi(void **state)
{
	struct rule_dict *dict = rule_dict__new();
	struct cfi_table t;

	(void)state;
	assert_non_null(dict);
	assert_false(has_bytes(NO_CFI, ".eh_frame"));
	assert_false(has_bytes(NO_CFI, ".debug_frame"));
	memset(&t, 0x55, sizeof(t));
	assert_int_equal(build(NO_CFI, NULL, dict, &t), -ENOENT);
	assert_null(t.rows);
	assert_int_equal(t.n, 0);
	assert_null(t.source);
	/* No CFI in the debug file either. */
	assert_int_equal(build(NO_CFI, NO_CFI, dict, &t), -ENOENT);
	assert_int_equal(rule_dict__count(dict), 2);
	rule_dict__free(dict);
}

static void test_not_x86_64(void **state)
{
	struct rule_dict *dict = rule_dict__new();
	struct cfi_table t;
	uint8_t *image;
	size_t len;

	(void)state;
	assert_non_null(dict);
	image = unit_read_file(CFI_RULES, &len);
	assert_int_equal(build_image(image, len, dict, &t), 0);
	cfi_table__free(&t);
	image[offsetof(Elf64_Ehdr, e_machine)] = EM_AARCH64 & 0xff;
	image[offsetof(Elf64_Ehdr, e_machine) + 1] = EM_AARCH64 >> 8;
	assert_int_equal(build_image(image, len, dict, &t), -ENOTSUP);
	free(image);
	rule_dict__free(dict);
}

/* A damaged copy of cfi_rules.so and what it is compared with. */
struct damage {
	const struct eh_layout *l;
	const struct fixture *f;
	uint64_t text_off, text_end; /* the text's bytes in the file */
};

/* The file offsets [*@lo, *@hi) FDE @e of @d covers (encoded pcrel sdata4, as gas writes them). */
static void fde_range(const struct damage *d, const uint8_t *image, const struct cfi_entry *e,
		      uint64_t *lo, uint64_t *hi)
{
	GElf_Shdr sh;
	uint64_t field_vaddr;
	int32_t begin, range;

	assert_non_null(view_section(&d->f->view, ".eh_frame", &sh));
	field_vaddr = sh.sh_addr + e->off + 8;
	begin = (int32_t)le32(image + d->l->eh_off + e->off + 8);
	range = (int32_t)le32(image + d->l->eh_off + e->off + 12);
	*lo = view_offset(&d->f->view, field_vaddr + (uint64_t)(int64_t)begin);
	*hi = *lo + (uint64_t)range;
}

/*
 * Builds the damaged @image and checks it against the intact table: where it
 * has a rule a walk would follow, the intact table has the same; and over
 * the FDEs the damage did not touch (@intact_fdes, a bit per entry of the
 * layout), every rule is the intact one. Returns what the build returned.
 */
static int check_damaged(const struct damage *d, const uint8_t *image, size_t len,
			 uint32_t intact_fdes, const char *what)
{
	const struct cfi_table *intact = &d->f->t;
	struct cfi_table t;
	int err = build_image(image, len, d->f->dict, &t);

	if (err && err != -ENOENT && err != -ENOEXEC)
		fail_msg("%s: error %d", what, err);
	for (uint64_t off = d->text_off; off < d->text_end + 16; off++) {
		uint32_t got = scan_rule(&t, off), want = scan_rule(intact, off);

		if (got != want && got != UNWIND_RULE_ID_NONE && got != UNWIND_RULE_ID_UNSUPPORTED)
			fail_msg("%s: rule %u at +0x%" PRIx64 " where the intact file has %u", what,
				 got, off, want);
	}
	for (size_t i = 0; i < d->l->n; i++) {
		uint64_t lo, hi;

		if (d->l->e[i].cie || !(intact_fdes >> i & 1))
			continue;
		fde_range(d, image, &d->l->e[i], &lo, &hi);
		for (uint64_t off = lo; off < hi; off++)
			if (scan_rule(&t, off) != scan_rule(intact, off))
				fail_msg("%s: FDE %zu lost its rule at +0x%" PRIx64, what, i, off);
	}
	cfi_table__free(&t);
	return err;
}

static void damage_init(struct damage *d, const struct fixture *f, const struct eh_layout *l)
{
	GElf_Phdr text = view_segment(&f->view, view_symbol(&f->view, "sp_frame"));

	d->f = f;
	d->l = l;
	d->text_off = text.p_offset;
	d->text_end = text.p_offset + text.p_filesz;
}

/* Bits of the entries of @l wholly before byte @cut of .eh_frame. */
static uint32_t entries_before(const struct eh_layout *l, size_t cut)
{
	uint32_t bits = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].off + l->e[i].size <= cut)
			bits |= 1u << i;
	return bits;
}

/* .eh_frame's section header in @image, laid out as @l says. */
static Elf64_Shdr eh_shdr_get(const uint8_t *image, const struct eh_layout *l)
{
	Elf64_Shdr sh;

	memcpy(&sh, image + l->eh_shdr, sizeof(sh));
	return sh;
}

static void eh_shdr_put(uint8_t *image, const struct eh_layout *l, const Elf64_Shdr *sh)
{
	memcpy(image + l->eh_shdr, sh, sizeof(*sh));
}

/* Makes .eh_frame's section header in @image say it is @size bytes long. */
static void eh_set_size(uint8_t *image, const struct eh_layout *l, uint64_t size)
{
	Elf64_Shdr sh = eh_shdr_get(image, l);

	sh.sh_size = size;
	eh_shdr_put(image, l, &sh);
}

/* Makes the executable PT_LOAD segment of @image say it has @filesz bytes in the file. */
static void set_exec_filesz(uint8_t *image, uint64_t filesz)
{
	Elf64_Ehdr eh;
	int patched = 0;

	memcpy(&eh, image, sizeof(eh));
	for (int i = 0; i < eh.e_phnum; i++) {
		size_t at = eh.e_phoff + (size_t)i * eh.e_phentsize;
		Elf64_Phdr ph;

		memcpy(&ph, image + at, sizeof(ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		ph.p_filesz = filesz;
		memcpy(image + at, &ph, sizeof(ph));
		patched++;
	}
	assert_int_equal(patched, 1);
}

/*
 * What the fuzzer found: an executable segment that claims more bytes in
 * the file than it loads, past 4 GiB of offsets, and an FDE (in
 * .debug_frame, whose ranges are 8 bytes) that covers 2^59 bytes. The rows
 * end where the segment's loaded bytes do, with a NONE row, as every table
 * does (build_image() checks): no rule holds past them.
 */
static void test_segment_past_4g(void **state)
{
	struct fixture *f = *state;
	struct elf_view v;
	struct cfi_table t;
	GElf_Shdr sh;
	uint8_t *image;
	uint64_t range = 1ull << 59;
	size_t len, at;

	view_open(&v, CFI_DEBUG_FRAME);
	assert_non_null(view_section(&v, ".debug_frame", &sh));
	view_close(&v);
	image = unit_read_file(CFI_DEBUG_FRAME, &len);
	/* The first FDE: after the CIE (id 0xffffffff), its length, CIE pointer, location. */
	at = sh.sh_offset;
	assert_int_equal(le32(image + at + 4), 0xffffffff);
	at += 4 + le32(image + at);
	assert_int_not_equal(le32(image + at + 4), 0xffffffff);
	memcpy(image + at + 16, &range, sizeof(range));
	set_exec_filesz(image, 0xffffff0d);
	assert_int_equal(build_image(image, len, f->dict, &t), 0);
	assert_true(t.rows[t.n - 1].off < 0x2000); /* the segment loads 0xf2 bytes from 0x1000 */
	cfi_table__free(&t);
	free(image);
}

/* LLVM's linkers give .eh_frame the type SHT_X86_64_UNWIND: the same table comes of it. */
static void test_eh_frame_typed_unwind(void **state)
{
	struct fixture *f = *state;
	struct eh_layout l;
	struct cfi_table t;
	Elf64_Shdr sh;
	uint8_t *image;
	size_t len;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	sh = eh_shdr_get(image, &l);
	assert_int_equal(sh.sh_type, SHT_PROGBITS);
	sh.sh_type = SHT_X86_64_UNWIND;
	eh_shdr_put(image, &l, &sh);
	assert_int_equal(build_image(image, len, f->dict, &t), 0);
	assert_same_rows(&t, &f->t);
	cfi_table__free(&t);
	free(image);
}

static void test_truncated_eh_frame(void **state)
{
	struct fixture *f = *state;
	struct eh_layout l;
	struct damage d;
	uint8_t *image;
	size_t len;
	int built = 0;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	damage_init(&d, f, &l);
	/* The section cut short, at every 4 bytes: the FDEs before the cut are whole. */
	for (size_t cut = 0; cut < l.eh_size; cut += 4) {
		char what[64];

		assert_int_equal(eh_shdr_get(image, &l).sh_size, l.eh_size);
		eh_set_size(image, &l, cut);
		snprintf(what, sizeof(what), ".eh_frame cut at %zu", cut);
		built += !check_damaged(&d, image, len, entries_before(&l, cut), what);
		eh_set_size(image, &l, l.eh_size);
	}
	/* A section larger than the file. */
	eh_set_size(image, &l, len);
	check_damaged(&d, image, len, 0, ".eh_frame past the end of the file");
	/* The file itself cut short, inside .eh_frame and elsewhere. */
	eh_set_size(image, &l, l.eh_size);
	for (size_t cut = 0; cut < len;
	     cut += cut >= l.eh_off && cut < l.eh_off + l.eh_size ? 4 : 64)
		check_damaged(&d, image, cut, 0, "file cut short");
	/* Most cuts leave some FDEs whole, and those kept their rows. */
	assert_true(built > (int)(l.eh_size / 8));
	free(image);
}

/* A change to a copy of the image: @at bytes into .eh_frame, a 32-bit value. */
struct field_damage {
	size_t at;
	uint32_t value;
	const char *what;
};

static void test_damaged_entries(void **state)
{
	struct fixture *f = *state;
	struct eh_layout l;
	struct damage d;
	uint8_t *image;
	size_t len;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	damage_init(&d, f, &l);
	for (size_t i = 0; i < l.n; i++) {
		const struct cfi_entry *e = &l.e[i];
		uint32_t others = ((1u << l.n) - 1) & ~(1u << i);
		const struct field_damage fde[] = {
		    {e->off + 4, 0x7ffffff0, "CIE pointer before the section"},
		    {e->off + 4, 4, "CIE pointer at the FDE itself"},
		    {e->off + 4, 0, "CIE id: the FDE read as a CIE"},
		    {e->off + 12, 0, "empty range"},
		    {e->off + 12, 0xffffffff, "range past the end of memory"},
		    {e->off, 0xfffffff0, "length past the section"},
		};
		uint8_t saved_op;
		char what[96];

		if (e->cie)
			continue;
		for (size_t k = 0; k < sizeof(fde) / sizeof(fde[0]); k++) {
			uint8_t *p = image + l.eh_off + fde[k].at;
			uint32_t saved = le32(p);

			put_le32(p, fde[k].value);
			snprintf(what, sizeof(what), "FDE %zu: %s", i, fde[k].what);
			/* A length past the section ends the walk: entries after it are lost. */
			check_damaged(&d, image, len,
				      fde[k].at == e->off ? entries_before(&l, e->off) : others,
				      what);
			put_le32(p, saved);
		}
		/*
		 * Its first instruction (after the empty augmentation data)
		 * made one libdw does not know: no frame state can be had
		 * there, and none may be guessed.
		 */
		assert_int_equal(image[l.eh_off + e->off + 16], 0);
		saved_op = image[l.eh_off + e->off + 17];
		image[l.eh_off + e->off + 17] = 0x3e; /* in DW_CFA_lo_user..hi_user */
		snprintf(what, sizeof(what), "FDE %zu: unknown instruction", i);
		check_damaged(&d, image, len, others, what);
		image[l.eh_off + e->off + 17] = saved_op;
	}
	/* The CIE's augmentation and FDE pointer encoding: its FDEs are skipped, no other. */
	for (size_t i = 0; i < l.n; i++) {
		static const uint8_t encodings[] = {0x0c, 0x9b, 0x3b, 0x5b};
		uint8_t *aug = image + l.eh_off + l.e[i].off + 9;
		uint32_t others = 0;
		size_t enc_at;
		char what[96];

		if (!l.e[i].cie)
			continue;
		for (size_t k = 0; k < l.n; k++)
			if (!l.e[k].cie &&
			    le32(image + l.eh_off + l.e[k].off + 4) != l.e[k].off + 4 - l.e[i].off)
				others |= 1u << k;
		/* "zR" or "zRS", code and data alignment and return column of one byte each. */
		assert_memory_equal(aug, "zR", 2);
		enc_at = 9 + strlen((const char *)aug) + 1 + 3 + 1;
		assert_int_equal(image[l.eh_off + l.e[i].off + enc_at], 0x1b);
		aug[1] = 'Q';
		snprintf(what, sizeof(what), "CIE %zu: unknown augmentation", i);
		check_damaged(&d, image, len, others, what);
		aug[1] = 'R';
		for (size_t k = 0; k < sizeof(encodings); k++) {
			image[l.eh_off + l.e[i].off + enc_at] = encodings[k];
			snprintf(what, sizeof(what), "CIE %zu: encoding 0x%02x", i, encodings[k]);
			check_damaged(&d, image, len, others, what);
		}
		image[l.eh_off + l.e[i].off + enc_at] = 0x1b;
	}
	/* A search table of garbage: the lookups must not follow it anywhere wrong. */
	srand(14);
	for (int round = 0; round < 50; round++) {
		uint8_t *hdr = malloc(l.hdr_size);

		assert_non_null(hdr);
		memcpy(hdr, image + l.hdr_off, l.hdr_size);
		for (size_t k = round ? 4 : 0; k < l.hdr_size; k++)
			image[l.hdr_off + k] = (uint8_t)rand();
		check_damaged(&d, image, len, 0, ".eh_frame_hdr of garbage");
		memcpy(image + l.hdr_off, hdr, l.hdr_size);
		free(hdr);
	}
	free(image);
}

static void test_random_damage(void **state)
{
	struct fixture *f = *state;
	struct eh_layout l;
	uint8_t *image, *copy;
	size_t len;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	copy = malloc(len);
	assert_non_null(copy);
	/*
	 * Any bytes of .eh_frame changed: instructions changed this way are
	 * valid CFI that says something else, so only the shape of the table is
	 * checked (build_image()), and, under ASan, that nothing is read out of
	 * bounds or leaked.
	 */
	srand(1414);
	for (int round = 0; round < 1000; round++) {
		struct cfi_table t;
		int err, flips = 1 + rand() % 4;

		memcpy(copy, image, len);
		for (int k = 0; k < flips; k++)
			copy[l.eh_off + (size_t)rand() % l.eh_size] = (uint8_t)rand();
		err = build_image(copy, len, f->dict, &t);
		if (err && err != -ENOENT)
			fail_msg("round %d: error %d", round, err);
		cfi_table__free(&t);
	}
	free(copy);
	free(image);
}

struct entry_check {
	const struct elf_view *v;
	const struct cfi_table *t;
	const struct rule_dict *dict;
	size_t checked, wrong;
	char wrong_names[512];
};

/*
 * A function's first instruction: the call just pushed the return address.
 * Only the program's entry point is never called: it is the outermost frame.
 */
static void check_entry(const GElf_Sym *sym, const char *name, void *ctx)
{
	struct entry_check *c = ctx;
	const struct unwind_rule want = strcmp(name, "_start") ? SP(8) : OUTERMOST;
	const struct unwind_rule *got;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size || sym->st_shndx == SHN_UNDEF)
		return;
	got = rule_dict__get(c->dict, cfi_table__rule_at(c->t, view_offset(c->v, sym->st_value)));
	c->checked++;
	if (!same_rule(got, &want)) {
		char text[80];
		size_t used = strlen(c->wrong_names);

		if (c->wrong++ < 4)
			snprintf(c->wrong_names + used, sizeof(c->wrong_names) - used, " %s (%s)",
				 name, rule_text(got, text, sizeof(text)));
	}
}

/* @path's table: from .eh_frame, and every exported function starts under CFA = rsp + 8. */
static void check_real_file(const char *path, struct rule_dict *dict, struct cfi_table *t,
			    struct elf_view *v, size_t min_functions)
{
	struct entry_check c = {.v = v, .t = t, .dict = dict};

	view_open(v, path);
	assert_int_equal(build(path, NULL, dict, t), 0);
	assert_string_equal(t->source, ".eh_frame");
	view_each_symbol(v, ".dynsym", check_entry, &c);
	print_message("# %s: %zu FDEs, %zu rows (%zu bytes), %zu unsupported, %u rules; "
		      "%zu function entries checked\n",
		      path, t->fdes, t->n, cfi_table__bytes(t), t->unsupported,
		      rule_dict__count(dict), c.checked);
	if (c.wrong)
		fail_msg("%zu function entries not under CFA = rsp + 8:%s", c.wrong, c.wrong_names);
	assert_true(c.checked >= min_functions);
}

/*
 * Where a lazy PLT entry's push $n (0x68 imm32) ends, read from the code of
 * the first entry after PLT0: it follows jmp *GOT(%rip) (ff 25 disp32), or
 * endbr64 (f3 0f 1e fa) in an IBT PLT. From there on the entry has pushed.
 */
static uint8_t plt_push_end(Elf_Scn *plt)
{
	static const uint8_t jmp[] = {0xff, 0x25}, endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	Elf_Data *data = elf_getdata(plt, NULL);
	const uint8_t *entry;
	size_t push = 0;

	assert_non_null(data);
	assert_true(data->d_size >= 32);
	entry = (const uint8_t *)data->d_buf + 16;
	if (!memcmp(entry, jmp, sizeof(jmp)))
		push = 6;
	else if (!memcmp(entry, endbr64, sizeof(endbr64)))
		push = 4;
	else
		fail_msg(".plt's first entry starts with neither jmp * nor endbr64");
	assert_int_equal(entry[push], 0x68);
	return (uint8_t)(push + 5);
}

static void test_libc(void **state)
{
	struct rule_dict *dict = rule_dict__new();
	struct cfi_table t;
	struct elf_view v;
	GElf_Shdr plt;
	Elf_Scn *scn;
	uint8_t split;

	(void)state;
	assert_non_null(dict);
	check_real_file(LIBC, dict, &t, &v, 1000);
	assert_true(t.fdes > 1000);
	/* A handful of rows the walk cannot follow (6 in Debian 12's libc). */
	assert_true(t.unsupported <= 8);
	/*
	 * Its lazy PLT, whose CFI binutils wrote: PLT0 pushes once at byte 6,
	 * each entry once at the split its code shows (11 in Debian 12's libc).
	 */
	scn = view_section(&v, ".plt", &plt);
	assert_non_null(scn);
	assert_int_equal(plt.sh_entsize, 16);
	split = plt_push_end(scn);
	assert_rule(dict, &t, view_offset(&v, plt.sh_addr), SP(16), ".plt");
	assert_rule(dict, &t, view_offset(&v, plt.sh_addr + 6), SP(24), ".plt+6");
	assert_rule(dict, &t, view_offset(&v, plt.sh_addr + 16), PLT(8, split), ".plt+16");
	assert_rule(dict, &t, view_offset(&v, plt.sh_addr + plt.sh_size - 1), PLT(8, split),
		    "the end of .plt");
	cfi_table__free(&t);
	view_close(&v);
	rule_dict__free(dict);
}

static void test_python(void **state)
{
	char path[PATH_MAX];
	struct rule_dict *dict;
	struct cfi_table t;
	struct elf_view v;

	(void)state;
	if (!realpath(PYTHON, path)) {
		print_message("# %s: %s; not checked\n", PYTHON, strerror(errno));
		skip();
	}
	dict = rule_dict__new();
	assert_non_null(dict);
	check_real_file(path, dict, &t, &v, 1000);
	assert_true(t.unsupported <= 8);
	cfi_table__free(&t);
	view_close(&v);
	rule_dict__free(dict);
}

/* Builds file @path's table under @budget; returns what the build did. */
static int build_under(const char *path, const struct cfi_budget *budget, struct rule_dict *dict,
		       struct cfi_table *t)
{
	struct elf_file *bin = open_elf(path);
	int err;

	memset(t, 0x55, sizeof(*t));
	err = cfi_table__build(bin, NULL, dict, budget, t);
	elf_file__close(bin);
	if (err)
		assert_true(!t->n && !t->rows);
	return err;
}

/*
 * Each limit of a build's budget ends it with its own error when passed,
 * and nothing is kept; a build within them all gives the whole table.
 */
static void test_budget(void **state)
{
	struct fixture *f = *state;
	bool stop = true;
	struct cfi_budget b = CFI_BUDGET_DEFAULT;
	struct eh_layout l;
	struct cfi_table t;
	uint8_t *image;
	size_t len;

	image = unit_read_file(CFI_RULES, &len);
	eh_layout_read(CFI_RULES, image, &l);
	free(image);
	b.max_cfi_bytes = l.eh_size;
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), 0);
	assert_same_rows(&t, &f->t);
	cfi_table__free(&t);
	b.max_cfi_bytes = l.eh_size - 1;
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), -EFBIG);
	b = CFI_BUDGET_DEFAULT;
	b.max_rows = 8;
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), -E2BIG);
	b = CFI_BUDGET_DEFAULT;
	b.time = work_budget__of(NULL, 1);
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), -ETIME);
	b = CFI_BUDGET_DEFAULT;
	b.time.stop = &stop;
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), -ECANCELED);
	stop = false;
	assert_int_equal(build_under(CFI_RULES, &b, f->dict, &t), 0);
	assert_same_rows(&t, &f->t);
	cfi_table__free(&t);
}

/*
 * A rule naming DWARF register 268000000 is refused where it comes (its FDE
 * UNSUPPORTED from there, counted); the FDE after it is whole.
 */
static void test_huge_register(void **state)
{
	struct rule_dict *dict = rule_dict__new();
	struct elf_view v;
	struct cfi_table t;

	(void)state;
	assert_non_null(dict);
	view_open(&v, HUGE_REGISTER);
	assert_int_equal(build(HUGE_REGISTER, NULL, dict, &t), 0);
	assert_int_equal(t.refused_fdes, 1);
	assert_int_equal(t.fdes, 2);
	assert_rule(dict, &t, view_offset(&v, view_symbol(&v, "huge")), SP(8), "huge");
	assert_rule(dict, &t, view_offset(&v, view_symbol(&v, "huge_1")), UNSUPPORTED, "huge_1");
	assert_rule(dict, &t, view_offset(&v, view_symbol(&v, "plain")), SP(8), "plain");
	assert_rule(dict, &t, view_offset(&v, view_symbol(&v, "plain_1")), SP(16), "plain_1");
	cfi_table__free(&t);
	view_close(&v);
	rule_dict__free(dict);
}

#define FIXTURE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    FIXTURE_TEST(test_offsets_are_not_addresses),
	    FIXTURE_TEST(test_cfa_from_rsp),
	    FIXTURE_TEST(test_frame_pointer),
	    FIXTURE_TEST(test_rbp_saved_cfa_from_rsp),
	    FIXTURE_TEST(test_outermost),
	    FIXTURE_TEST(test_signal_frame),
	    FIXTURE_TEST(test_plt),
	    FIXTURE_TEST(test_unsupported),
	    FIXTURE_TEST(test_gaps),
	    FIXTURE_TEST(test_merged_rows),
	    FIXTURE_TEST(test_rule_at),
	    FIXTURE_TEST(test_fde_count),
	    FIXTURE_TEST(test_debug_frame_only),
	    FIXTURE_TEST(test_debug_file),
	    cmocka_unit_test(test_no_cfi),
	    cmocka_unit_test(test_not_x86_64),
	    FIXTURE_TEST(test_eh_frame_typed_unwind),
	    FIXTURE_TEST(test_segment_past_4g),
	    FIXTURE_TEST(test_truncated_eh_frame),
	    FIXTURE_TEST(test_damaged_entries),
	    FIXTURE_TEST(test_random_damage),
	    FIXTURE_TEST(test_budget),
	    cmocka_unit_test(test_huge_register),
	    cmocka_unit_test(test_libc),
	    cmocka_unit_test(test_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
