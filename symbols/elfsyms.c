// SPDX-License-Identifier: GPL-2.0
/*
 * elfsyms: function symbols and PT_LOAD segments of one ELF file.
 *
 * The file is read once with libelf (which checks section extents against
 * the file size; string offsets are checked against their table here, or by
 * elf_strptr() for a table that does not end in a NUL) and nothing of it
 * is kept but a sorted array of ranges and the names they carry. The file is
 * untrusted: every count and index in it is checked before use.
 */
#include "symbols/elfsyms.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/addr_sort.h"
#include "symbols/elffile.h"

#define VERSYM_HIDDEN_BIT 0x8000 /* .gnu.version: not the default version (gelf.h has no name) */

struct elf_segment {
	uint64_t offset, filesz; /* file extent */
	uint64_t vaddr, memsz;	 /* where it is loaded */
};

/* A kept function: [addr, end) is the range it is given. */
struct elf_func {
	uint64_t addr, end;
	uint32_t name; /* arena offset */
};

#define BUILD_ID_MAX 64 /* bytes of a GNU build-id kept: 20 for SHA-1, the usual */

struct elf_symtab {
	uint8_t build_id[BUILD_ID_MAX]; /* the image's, build_id_len bytes */
	size_t build_id_len;
	struct elf_segment *segs;
	size_t n_segs;
	struct elf_func *funcs; /* sorted by addr, one per address */
	size_t n_funcs;
	char *arena;
	size_t arena_len;
};

/*
 * A candidate symbol while reading: its name is @name_len bytes of @name
 * (in libelf's copy of the file; a default version "@@VER" is left out)
 * followed by @suffix ("@plt" for a PLT entry, else "").
 */
struct elf_cand {
	uint64_t addr, size;
	uint64_t limit; /* the end of its section: a zero-size symbol reaches no further */
	const char *name, *suffix;
	size_t name_len;
	uint64_t rank; /* among the symbols at its address, lower preferred (elf_cand__rank()) */
	bool dynsym;
	bool hidden;   /* a .dynsym symbol of a hidden (compatibility) version */
	bool label;    /* untyped: an assembly entry point (ld.so's _start), or a place inside one */
};

struct elf_cands {
	struct elf_cand *v;
	size_t n, cap;
};

static int elf_cands__push(struct elf_cands *c, const struct elf_cand *x)
{
	if (array__grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v), 256))
		return -ENOMEM;
	c->v[c->n++] = *x;
	return 0;
}

static uint8_t bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static bool elf_sym__is_function(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF;
}

/*
 * Is @sym of @e a label in code: untyped, defined in an executable section
 * (as perf takes them)? Assembly entry points have no type (the dynamic
 * loader's _start, at the root of every process's first stacks).
 */
static bool elf_sym__is_code_label(Elf *e, const GElf_Sym *sym)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || sym->st_shndx == SHN_UNDEF ||
	    sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(e, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static size_t leading_underscores(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] == '_')
		n++;
	return n;
}

/*
 * A compatibility version: "name@VER" in a .symtab, a hidden version in a
 * .dynsym. What old binaries link to, not what anyone writes.
 */
static bool is_compat_version(const struct elf_cand *x)
{
	const char *at = memchr(x->name, '@', x->name_len);

	return x->hidden || (at && (size_t)(at - x->name) + 1 < x->name_len && at[1] != '@');
}

static uint64_t field(uint64_t v, unsigned int bits)
{
	uint64_t max = (1ull << bits) - 1;

	return v < max ? v : max;
}

#define RANK_INTERNAL (1ull << 38) /* set by elf_cands__mark_internal() */

/*
 * The preference of @x among the symbols at its address, lower first,
 * aiming at the name a programmer wrote (free, not cfree@GLIBC_2.2.5 or
 * __libc_free; lseek, not __lseek or lseek64) and otherwise at perf's
 * choice (__vdso_clock_gettime, global, over its weak clock_gettime):
 * sized (perf's first rule); not a compatibility version; exported (global
 * or weak) before local; not an internal alias "__name" of a "name" at the
 * same address (RANK_INTERNAL, glibc's convention); global before weak
 * (perf's); fewer leading underscores (perf's); the shorter name; then
 * from .symtab (whose zero size means "up to the next symbol"). A typed
 * function before a label at its address.
 */
static uint64_t elf_cand__rank(const struct elf_cand *x, unsigned char bind)
{
	uint8_t b = bind_rank(bind);
	uint64_t under = field(leading_underscores(x->name, x->name_len), 8);

	return (uint64_t)x->label << 42 | (uint64_t)!x->size << 41 | (uint64_t)is_compat_version(x) << 40 |
	       (uint64_t)(b >= 2) << 39 | (uint64_t)(b == 1) << 37 | under << 29 |
	       field(x->name_len, 16) << 1 | x->dynsym;
}

/* The length of @name without a default version ("name@@VER": the name a programmer wrote). */
static size_t unversioned_len(const char *name)
{
	const char *at = strstr(name, "@@");

	return at && at > name ? (size_t)(at - name) : strlen(name);
}

/*
 * The string table of a symbol section, section @ndx of @e. Its names are
 * read straight from its data when that is one piece ending in a NUL (every
 * offset below its size then starts a terminated string); else through
 * elf_strptr(), which checks each name.
 */
struct elf_strings {
	Elf *e;
	size_t ndx;
	const char *buf; /* NULL: elf_strptr() */
	size_t len;
};

static void elf_strings__open(struct elf_strings *s, Elf *e, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(e, ndx);
	Elf_Data *d = NULL;
	GElf_Shdr sh;

	*s = (struct elf_strings){ .e = e, .ndx = ndx };
	if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB)
		d = elf_getdata(scn, NULL);
	if (d && d->d_buf && d->d_size && ((const char *)d->d_buf)[d->d_size - 1] == '\0' &&
	    !elf_getdata(scn, d)) {
		s->buf = d->d_buf;
		s->len = d->d_size;
	}
}

/* The name at @off, or NULL when the table has none there. */
static const char *elf_strings__at(const struct elf_strings *s, size_t off)
{
	if (!s->buf)
		return elf_strptr(s->e, s->ndx, off);
	return off < s->len ? s->buf + off : NULL;
}

/* The end of section @ndx of @e, where it is loaded; UINT64_MAX when that can't be said. */
static uint64_t section_end(Elf *e, size_t ndx)
{
	Elf_Scn *scn = ndx && ndx < SHN_LORESERVE ? elf_getscn(e, ndx) : NULL;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
	    sh.sh_addr + sh.sh_size < sh.sh_addr)
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;
}

/* The version table (.gnu.version) of the .dynsym @scn of @e, or NULL. */
static Elf_Data *versions_of(Elf *e, Elf_Scn *scn)
{
	size_t ndx = elf_ndxscn(scn);
	Elf_Scn *v = NULL;
	GElf_Shdr sh;

	while ((v = elf_nextscn(e, v)) != NULL) {
		if (gelf_getshdr(v, &sh) && sh.sh_type == SHT_GNU_versym && sh.sh_link == ndx)
			return elf_getdata(v, NULL);
	}
	return NULL;
}

/* Is .dynsym symbol @i of a hidden version, per @versions (may be NULL)? */
static bool hidden_version(Elf_Data *versions, size_t i)
{
	GElf_Versym v;

	return versions && i <= INT32_MAX && gelf_getversym(versions, (int)i, &v) &&
	       (v & VERSYM_HIDDEN_BIT);
}

/* Adds the function symbols of one SHT_SYMTAB or SHT_DYNSYM section. Returns 0 or -ENOMEM. */
static int elf_cands__add_section(struct elf_cands *c, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *versions = sh->sh_type == SHT_DYNSYM ? versions_of(e, scn) : NULL;
	struct elf_strings names;
	size_t i, n;

	if (!data || !data->d_buf || !entsize || data->d_type != ELF_T_SYM)
		return 0;
	elf_strings__open(&names, e, sh->sh_link);
	n = data->d_size / entsize;
	if (n > INT32_MAX)
		n = INT32_MAX; /* gelf_getsym() takes an int index */
	for (i = 0; i < n; i++) {
		struct elf_cand x = { .suffix = "" };
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		x.label = sh->sh_type == SHT_SYMTAB && elf_sym__is_code_label(e, &sym);
		if (!x.label && !elf_sym__is_function(&sym))
			continue;
		x.name = elf_strings__at(&names, sym.st_name);
		/* An ARM mapping symbol ($x, $d) or a local label (.L) marks no function. */
		if (!x.name || !x.name[0] || (x.label && (x.name[0] == '$' || x.name[0] == '.')))
			continue;
		x.name_len = unversioned_len(x.name);
		x.addr = sym.st_value;
		x.size = sym.st_size;
		x.limit = section_end(e, sym.st_shndx);
		x.dynsym = sh->sh_type == SHT_DYNSYM;
		x.hidden = hidden_version(versions, i);
		x.rank = elf_cand__rank(&x, GELF_ST_BIND(sym.st_info));
		if (elf_cands__push(c, &x))
			return -ENOMEM;
	}
	return 0;
}

/* Adds the function symbols of every section of type @type of @e. Returns 0 or -ENOMEM. */
static int elf_cands__read(struct elf_cands *c, Elf *e, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		err = elf_cands__add_section(c, e, scn, &sh);
		if (err)
			return err;
	}
	return 0;
}

static int elf_cand__by_addr(const void *a, const void *b)
{
	const struct elf_cand *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Is @x "__name" and @y "name"? */
static bool internal_alias_of(const struct elf_cand *x, const struct elf_cand *y)
{
	return x->name_len == y->name_len + 2 && x->name[0] == '_' && x->name[1] == '_' &&
	       memcmp(x->name + 2, y->name, y->name_len) == 0;
}

/* Ranks RANK_INTERNAL each "__name" that has a "name" at its address (sorting @c by address). */
static void elf_cands__mark_internal(struct elf_cands *c)
{
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), elf_cand__by_addr);
	for (size_t i = 0, j; i < c->n; i = j) {
		for (j = i + 1; j < c->n && c->v[j].addr == c->v[i].addr; j++)
			;
		for (size_t x = i; x < j; x++) {
			for (size_t y = i; y < j; y++) {
				if (internal_alias_of(&c->v[x], &c->v[y]))
					c->v[x].rank |= RANK_INTERNAL;
			}
		}
	}
}

/* A GOT slot and the function whose address it holds (@name_len bytes of @name). */
struct got_slot {
	uint64_t addr;
	const char *name;
	size_t name_len;
};

struct got_slots {
	struct got_slot *v;
	size_t n, cap;
};

/* The dynamic symbol table section @ndx of @e, with its names; false when it is none. */
static bool open_dynsym(Elf *e, size_t ndx, Elf_Data **syms, struct elf_strings *names)
{
	Elf_Scn *scn = elf_getscn(e, ndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
		return false;
	*syms = elf_getdata(scn, NULL);
	if (!*syms || !(*syms)->d_buf || (*syms)->d_type != ELF_T_SYM)
		return false;
	elf_strings__open(names, e, sh.sh_link);
	return true;
}

/* The name of dynamic symbol @i, or NULL. */
static const char *dynsym_name(Elf_Data *syms, const struct elf_strings *names, size_t i)
{
	GElf_Sym sym;
	const char *name;

	if (!i || i > INT32_MAX || !gelf_getsym(syms, (int)i, &sym))
		return NULL;
	name = elf_strings__at(names, sym.st_name);
	return name && name[0] ? name : NULL;
}

/* The preferred function among @c starting at @addr (an ifunc's resolver), or NULL. */
static const struct elf_cand *elf_cands__at(const struct elf_cands *c, uint64_t addr)
{
	const struct elf_cand *best = NULL;

	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].addr == addr && (!best || c->v[i].rank < best->rank))
			best = &c->v[i];
	}
	return best;
}

/*
 * The function relocation @r fills its slot with: the dynamic symbol of a
 * JUMP_SLOT or GLOB_DAT, the ifunc of an IRELATIVE (whose resolver is at
 * the addend: libc's calls to its own strlen, memcpy...). False for others.
 */
static bool reloc_function(const GElf_Rela *r, Elf_Data *syms, const struct elf_strings *names,
			   const struct elf_cands *c, struct got_slot *out)
{
	const struct elf_cand *ifunc;
	const char *name;

	switch (GELF_R_TYPE(r->r_info)) {
	case R_X86_64_JUMP_SLOT:
	case R_X86_64_GLOB_DAT:
		name = dynsym_name(syms, names, GELF_R_SYM(r->r_info));
		*out = (struct got_slot){ r->r_offset, name, name ? unversioned_len(name) : 0 };
		return name != NULL;
	case R_X86_64_IRELATIVE:
		ifunc = elf_cands__at(c, (uint64_t)r->r_addend);
		if (ifunc)
			*out = (struct got_slot){ r->r_offset, ifunc->name, ifunc->name_len };
		return ifunc != NULL;
	default:
		return false;
	}
}

/* Adds the slots the relocations of one SHT_RELA section fill with a function's address. */
static int got_slots__add(struct got_slots *g, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			  const struct elf_cands *c)
{
	size_t entsize = gelf_fsize(e, ELF_T_RELA, 1, EV_CURRENT), n;
	Elf_Data *data = elf_getdata(scn, NULL), *syms;
	struct elf_strings names;

	if (!data || !data->d_buf || data->d_type != ELF_T_RELA || !entsize ||
	    !open_dynsym(e, sh->sh_link, &syms, &names))
		return 0;
	n = data->d_size / entsize;
	for (size_t i = 0; i < n && i < INT32_MAX; i++) {
		struct got_slot slot;
		GElf_Rela r;

		if (!gelf_getrela(data, (int)i, &r) || !reloc_function(&r, syms, &names, c, &slot))
			continue;
		if (array__grow((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v), 64))
			return -ENOMEM;
		g->v[g->n++] = slot;
	}
	return 0;
}

static int got_slot__cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The GOT slot at @addr, or NULL. */
static const struct got_slot *got_slots__find(const struct got_slots *g, uint64_t addr)
{
	const struct got_slot key = { addr, NULL, 0 };

	return bsearch(&key, g->v, g->n, sizeof(*g->v), got_slot__cmp);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The GOT slot an x86-64 PLT entry at @addr (@len bytes at @code) jumps
 * through, "jmp *disp32(%rip)" (ff 25), maybe after an endbr64 and a bnd
 * prefix (IBT's .plt.sec and .plt.got); 0 when the entry has none (an IBT
 * .plt entry, which pushes an index instead).
 */
static uint64_t plt_entry_slot(const unsigned char *code, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = 0;

	if (len >= sizeof(endbr64) && memcmp(code, endbr64, sizeof(endbr64)) == 0)
		at = sizeof(endbr64);
	if (at < len && code[at] == 0xf2) /* bnd */
		at++;
	if (at + 6 > len || code[at] != 0xff || code[at + 1] != 0x25)
		return 0;
	return addr + at + 6 + (uint64_t)(int64_t)(int32_t)le32(code + at + 2);
}

/* PLT sections: the bytes before the first entry, and the entry size sh_entsize may not say. */
static const struct {
	const char *name;
	size_t header, entry;
} plt_sections[] = {
	{ ".plt", 16, 16 },
	{ ".plt.sec", 0, 16 },
	{ ".plt.got", 0, 8 },
};

/* Adds "name@plt" for each entry of PLT section @scn whose GOT slot names a symbol. */
static int elf_cands__add_plt(struct elf_cands *c, Elf_Scn *scn, const GElf_Shdr *sh, size_t kind,
			      const struct got_slots *g)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entry = sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize
								  : plt_sections[kind].entry;

	if (!data || !data->d_buf || data->d_size > sh->sh_size)
		return 0;
	for (size_t off = plt_sections[kind].header; off + entry <= data->d_size; off += entry) {
		uint64_t addr = sh->sh_addr + off;
		const unsigned char *code = (const unsigned char *)data->d_buf + off;
		const struct got_slot *slot = got_slots__find(g, plt_entry_slot(code, entry, addr));
		struct elf_cand x = { .addr = addr, .size = entry, .suffix = "@plt",
				      .limit = sh->sh_addr + sh->sh_size };

		if (!slot)
			continue;
		x.name = slot->name;
		x.name_len = slot->name_len;
		x.rank = elf_cand__rank(&x, STB_GLOBAL);
		if (elf_cands__push(c, &x))
			return -ENOMEM;
	}
	return 0;
}

/* The PLT section kind named @name, or -1. */
static int plt_kind(const char *name)
{
	for (size_t k = 0; name && k < sizeof(plt_sections) / sizeof(plt_sections[0]); k++) {
		if (strcmp(name, plt_sections[k].name) == 0)
			return (int)k;
	}
	return -1;
}

/*
 * Names the PLT entries of an x86-64 @e "name@plt", as perf does: from the
 * slot each entry jumps through to the relocation that fills it. Elsewhere
 * the PLT stays unnamed ("file+0x..."), which is not a wrong name.
 */
static int elf_cands__read_plt(struct elf_cands *c, Elf *e)
{
	struct got_slots g = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int err = 0;

	if (!gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while (!err && (scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			err = got_slots__add(&g, e, scn, &sh, c);
	}
	if (g.n)
		qsort(g.v, g.n, sizeof(*g.v), got_slot__cmp);
	while (!err && g.n && (scn = elf_nextscn(e, scn)) != NULL) {
		int kind = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS
				   ? plt_kind(elf_strptr(e, shstrndx, sh.sh_name))
				   : -1;

		if (kind >= 0)
			err = elf_cands__add_plt(c, scn, &sh, (size_t)kind, &g);
	}
	free(g.v);
	return err;
}

/*
 * Adds the function symbols of @image, from its .symtab, which holds every
 * one of them, or from its .dynsym when the .symtab is missing or gives
 * none; those of the .symtab of @debug (may be NULL); and @image's PLT
 * entries.
 */
static int elf_cands__read_all(struct elf_cands *c, Elf *image, Elf *debug)
{
	size_t before = c->n;
	int err = elf_cands__read(c, image, SHT_SYMTAB);

	if (!err && c->n == before)
		err = elf_cands__read(c, image, SHT_DYNSYM);
	if (!err && debug)
		err = elf_cands__read(c, debug, SHT_SYMTAB);
	if (!err) {
		elf_cands__mark_internal(c);
		err = elf_cands__read_plt(c, image);
	}
	return err;
}

static int elf_symtab__read_segments(struct elf_symtab *t, Elf *e)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (i = 0; i < n && i < INT32_MAX; i++) {
		struct elf_segment *p;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		p = realloc(t->segs, (t->n_segs + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->segs = p;
		t->segs[t->n_segs++] = (struct elf_segment){
		    .offset = ph.p_offset,
		    .filesz = ph.p_filesz,
		    .vaddr = ph.p_vaddr,
		    .memsz = ph.p_memsz,
		};
	}
	return 0;
}

/* Order: address, then the preferred symbol first (rank), then by name so the order is total. */
static int elf_cand__cmp(const void *a, const void *b, void *unused)
{
	const struct elf_cand *x = a, *y = b;
	int by_name;

	(void)unused;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	by_name = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);
	return by_name ? by_name : x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

/*
 * Keeps the first (preferred) candidate at each address, in place; then
 * drops the labels inside a sized function: a place in it (a loop, a
 * second entry), whose addresses the function names.
 */
static void elf_cands__pick(struct elf_cands *c)
{
	uint64_t covered = 0; /* the end of the sized functions picked so far */
	size_t n = 0;

	c->n = addr_sort__unique(c->v, c->n, sizeof(*c->v), offsetof(struct elf_cand, addr),
				 elf_cand__cmp, NULL);
	for (size_t i = 0; i < c->n; i++) {
		const struct elf_cand *x = &c->v[i];

		if (x->label && x->addr < covered)
			continue;
		if (x->size && x->addr + x->size > covered)
			covered = x->addr + x->size < x->addr ? UINT64_MAX : x->addr + x->size;
		c->v[n++] = *x;
	}
	c->n = n;
}

/* The loaded segment holding @vaddr, or NULL. */
static const struct elf_segment *elf_symtab__segment_at(const struct elf_symtab *t, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < t->n_segs; i++) {
		const struct elf_segment *s = &t->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->memsz)
			return s;
	}
	return NULL;
}

/*
 * The end of the range given to candidate @i: its size when it has one; for
 * a zero-size .symtab symbol the next symbol's start, within its segment and
 * its section (_init does not stretch over .plt); for a zero-size .dynsym
 * symbol its own address only.
 */
static uint64_t elf_symtab__end(const struct elf_symtab *t, const struct elf_cands *c, size_t i)
{
	const struct elf_cand *x = &c->v[i];
	const struct elf_segment *seg;
	uint64_t end;

	if (x->size)
		return x->addr + x->size < x->addr ? UINT64_MAX : x->addr + x->size;
	if (x->dynsym)
		return x->addr + 1;
	seg = elf_symtab__segment_at(t, x->addr);
	if (!seg)
		return x->addr + 1;
	end = seg->vaddr + seg->memsz < seg->vaddr ? UINT64_MAX : seg->vaddr + seg->memsz;
	if (x->limit < end && x->limit > x->addr)
		end = x->limit;
	if (i + 1 < c->n && c->v[i + 1].addr < end)
		end = c->v[i + 1].addr;
	return end;
}

/* Copies the picked candidates, with their names, into @t. Returns 0 or -ENOMEM. */
static int elf_symtab__fill(struct elf_symtab *t, const struct elf_cands *c)
{
	size_t i, len = 0;

	for (i = 0; i < c->n; i++) {
		size_t n = c->v[i].name_len + strlen(c->v[i].suffix) + 1;

		if (len + n > UINT32_MAX)
			return -ENOMEM;
		len += n;
	}
	t->funcs = malloc((c->n ? c->n : 1) * sizeof(*t->funcs));
	t->arena = malloc(len ? len : 1);
	if (!t->funcs || !t->arena)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		const struct elf_cand *x = &c->v[i];
		size_t suffix = strlen(x->suffix);

		t->funcs[i].addr = x->addr;
		t->funcs[i].end = elf_symtab__end(t, c, i);
		t->funcs[i].name = (uint32_t)t->arena_len;
		memcpy(t->arena + t->arena_len, x->name, x->name_len);
		memcpy(t->arena + t->arena_len + x->name_len, x->suffix, suffix + 1);
		t->arena_len += x->name_len + suffix + 1;
	}
	t->n_funcs = c->n;
	return 0;
}

/* Reads @image's segments, and the symbols of @image and of @debug (may be NULL). */
static int elf_symtab__read(struct elf_symtab *t, Elf *image, Elf *debug)
{
	struct elf_cands c = {0};
	int err;

	err = elf_symtab__read_segments(t, image);
	if (!err)
		err = elf_cands__read_all(&c, image, debug);
	if (!err) {
		elf_cands__pick(&c);
		err = elf_symtab__fill(t, &c);
	}
	free(c.v);
	return err;
}

struct elf_symtab *elf_symtab__build(const struct elf_file *image, const struct elf_file *debug)
{
	struct elf_symtab *t = calloc(1, sizeof(*t));
	int err;

	err = t ? elf_symtab__read(t, elf_file__elf(image), debug ? elf_file__elf(debug) : NULL)
		: -ENOMEM;
	if (err) {
		elf_symtab__free(t);
		errno = -err;
		return NULL;
	}
	t->build_id_len = elf_file__build_id(image, t->build_id, sizeof(t->build_id));
	return t;
}

struct elf_symtab *elf_symtab__open_fd(int fd)
{
	struct elf_file *f = elf_file__open_fd(fd, false);
	struct elf_symtab *t;

	if (!f)
		return NULL;
	t = elf_symtab__build(f, NULL);
	elf_file__close(f);
	return t;
}

int elf_symtab__file_to_vaddr(const struct elf_symtab *t, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < t->n_segs; i++) {
		const struct elf_segment *s = &t->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

const uint8_t *elf_symtab__build_id(const struct elf_symtab *t, size_t *len)
{
	*len = t->build_id_len;
	return t->build_id;
}

/* The function given @vaddr, or NULL. */
static const struct elf_func *elf_symtab__func(const struct elf_symtab *t, uint64_t vaddr)
{
	size_t lo = addr_search__count(t->funcs, t->n_funcs, sizeof(*t->funcs),
				       offsetof(struct elf_func, addr), vaddr);

	return lo && vaddr < t->funcs[lo - 1].end ? &t->funcs[lo - 1] : NULL;
}

const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *sym_off)
{
	const struct elf_func *f = elf_symtab__func(t, vaddr);

	if (!f)
		return NULL;
	*sym_off = vaddr - f->addr;
	return t->arena + f->name;
}

const char *elf_symtab__extent(const struct elf_symtab *t, uint64_t vaddr, uint64_t *start,
			       uint64_t *end)
{
	const struct elf_func *f = elf_symtab__func(t, vaddr);

	if (!f)
		return NULL;
	*start = f->addr;
	*end = f->end;
	return t->arena + f->name;
}

size_t elf_symtab__count(const struct elf_symtab *t)
{
	return t->n_funcs;
}

size_t elf_symtab__bytes(const struct elf_symtab *t)
{
	return sizeof(*t) + t->n_segs * sizeof(*t->segs) + t->n_funcs * sizeof(*t->funcs) +
	       t->arena_len;
}

void elf_symtab__free(struct elf_symtab *t)
{
	if (!t)
		return;
	free(t->segs);
	free(t->funcs);
	free(t->arena);
	free(t);
}
