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

struct elf_segment {
	uint64_t offset, filesz; /* file extent */
	uint64_t vaddr, memsz;	 /* where it is loaded */
};

/* A kept function: [addr, end) is the range it is given. */
struct elf_func {
	uint64_t addr, end;
	uint32_t name; /* arena offset */
};

struct elf_symtab {
	struct elf_segment *segs;
	size_t n_segs;
	struct elf_func *funcs; /* sorted by addr, one per address */
	size_t n_funcs;
	char *arena;
	size_t arena_len;
};

/* A candidate symbol while reading; name points into libelf's copy of the file. */
struct elf_cand {
	uint64_t addr, size;
	const char *name;
	uint32_t rank; /* among the symbols at its address, lower preferred (elf_cand__rank()) */
	bool dynsym;
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

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * The preference of @x among the symbols at its address, lower first: sized,
 * then by binding (@bind), then fewer leading underscores, then from .symtab
 * (whose zero size means "up to the next symbol").
 */
static uint32_t elf_cand__rank(const struct elf_cand *x, unsigned char bind)
{
	size_t under = leading_underscores(x->name);

	return (uint32_t)!x->size << 24 | (uint32_t)bind_rank(bind) << 16 |
	       (uint32_t)(under < 0xff ? under : 0xff) << 8 | x->dynsym;
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

/* Adds the function symbols of one SHT_SYMTAB or SHT_DYNSYM section. Returns 0 or -ENOMEM. */
static int elf_cands__add_section(struct elf_cands *c, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	size_t entsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data = elf_getdata(scn, NULL);
	struct elf_strings names;
	size_t i, n;

	if (!data || !data->d_buf || !entsize || data->d_type != ELF_T_SYM)
		return 0;
	elf_strings__open(&names, e, sh->sh_link);
	n = data->d_size / entsize;
	if (n > INT32_MAX)
		n = INT32_MAX; /* gelf_getsym() takes an int index */
	for (i = 0; i < n; i++) {
		struct elf_cand x;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || !elf_sym__is_function(&sym))
			continue;
		x.name = elf_strings__at(&names, sym.st_name);
		if (!x.name || !x.name[0])
			continue;
		x.addr = sym.st_value;
		x.size = sym.st_size;
		x.dynsym = sh->sh_type == SHT_DYNSYM;
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

/*
 * Adds the function symbols of @image, from its .symtab, which holds every
 * one of them, or from its .dynsym when the .symtab is missing or gives
 * none; and those of the .symtab of @debug (may be NULL).
 */
static int elf_cands__read_all(struct elf_cands *c, Elf *image, Elf *debug)
{
	size_t before = c->n;
	int err = elf_cands__read(c, image, SHT_SYMTAB);

	if (!err && c->n == before)
		err = elf_cands__read(c, image, SHT_DYNSYM);
	if (!err && debug)
		err = elf_cands__read(c, debug, SHT_SYMTAB);
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

	(void)unused;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keeps the first (preferred) candidate at each address, in place. */
static void elf_cands__pick(struct elf_cands *c)
{
	c->n = addr_sort__unique(c->v, c->n, sizeof(*c->v), offsetof(struct elf_cand, addr),
				 elf_cand__cmp, NULL);
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
 * a zero-size .symtab symbol the next symbol's start, within its segment;
 * for a zero-size .dynsym symbol its own address only.
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
	if (i + 1 < c->n && c->v[i + 1].addr < end)
		end = c->v[i + 1].addr;
	return end;
}

/* Copies the picked candidates, with their names, into @t. Returns 0 or -ENOMEM. */
static int elf_symtab__fill(struct elf_symtab *t, const struct elf_cands *c)
{
	size_t i, len = 0;

	for (i = 0; i < c->n; i++) {
		size_t n = strlen(c->v[i].name) + 1;

		if (len + n > UINT32_MAX)
			return -ENOMEM;
		len += n;
	}
	t->funcs = malloc((c->n ? c->n : 1) * sizeof(*t->funcs));
	t->arena = malloc(len ? len : 1);
	if (!t->funcs || !t->arena)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		size_t n = strlen(c->v[i].name) + 1;

		t->funcs[i].addr = c->v[i].addr;
		t->funcs[i].end = elf_symtab__end(t, c, i);
		t->funcs[i].name = (uint32_t)t->arena_len;
		memcpy(t->arena + t->arena_len, c->v[i].name, n);
		t->arena_len += n;
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

const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *sym_off)
{
	size_t lo = addr_search__count(t->funcs, t->n_funcs, sizeof(*t->funcs),
				       offsetof(struct elf_func, addr), vaddr);
	const struct elf_func *f;

	if (!lo)
		return NULL;
	f = &t->funcs[lo - 1];
	if (vaddr >= f->end)
		return NULL;
	*sym_off = vaddr - f->addr;
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
