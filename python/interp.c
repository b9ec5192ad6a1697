// SPDX-License-Identifier: GPL-2.0
/*
 * interp: an interpreter's file among a process's mappings, and its
 * runtime state's address. The file is opened the way symbols/ opens a
 * process's mapped files (as the process sees it, checked to be the
 * mapped inode), its symbols read with libelf, once per file: what it
 * says is kept by the identity of the file opened (py_interp_cache).
 */
#include "python/interp.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elffile.h"
#include "symbols/mapped_file.h"

/* The base name of @path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Parses "3.N" at @s; sets *@end past it. Returns major << 8 | minor, or 0. */
static uint32_t parse_version(const char *s, const char **end)
{
	unsigned int minor = 0;
	const char *p = s + 2;

	if (s[0] != '3' || s[1] != '.' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && minor < 1000)
		minor = minor * 10 + (unsigned int)(*p++ - '0');
	*end = p;
	return minor < 1000 ? 0x0300 | minor : 0;
}

/* True when @s is "" or ".so" followed by nothing or ".N" parts. */
static bool is_so_suffix(const char *s)
{
	if (strncmp(s, ".so", 3) != 0)
		return false;
	for (s += 3; *s; s++)
		if (*s != '.' && (*s < '0' || *s > '9'))
			return false;
	return true;
}

/* Skips a build's ABI flags after its version ("d" debug, "t" free-threaded); true when some. */
static bool abi_flags(const char **s)
{
	const char *start = *s;

	while (**s == 'd' || **s == 't')
		(*s)++;
	return *s != start;
}

uint32_t py_interp__version_of(const char *name, bool *flags)
{
	const char *end;
	uint32_t v;

	*flags = false;
	if (strncmp(name, "libpython", 9) == 0) {
		v = parse_version(name + 9, &end);
		*flags = v && abi_flags(&end);
		return v && is_so_suffix(end) ? v : 0;
	}
	if (strncmp(name, "python", 6) == 0) {
		v = parse_version(name + 6, &end);
		*flags = v && abi_flags(&end);
		return v && !*end ? v : 0;
	}
	return 0;
}

int py_interp__find(const struct proc_maps *maps, struct py_interp *out)
{
	const struct proc_map *exe = NULL, *lib = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *m = &maps->maps[i];
		const char *name;
		bool flags;

		if (m->kind != MAP_FILE || !(m->perms & MAP_PERM_X))
			continue;
		name = base_name(m->path);
		if (!py_interp__version_of(name, &flags))
			continue;
		if (!strncmp(name, "lib", 3) && !lib)
			lib = m;
		else if (strncmp(name, "lib", 3) && !exe)
			exe = m;
	}
	out->map = lib ? lib : exe;
	if (!out->map)
		return -ENOENT;
	out->shared = lib != NULL;
	out->version = py_interp__version_of(base_name(out->map->path), &out->abi_flags);
	return 0;
}

enum interp_symbol { SYM_RUNTIME, SYM_VERSION, SYM_CODE_COUNT, SYM_CODE_TYPE, SYM_CODE_FREE, SYM_NR };

static const char *const interp_symbols[SYM_NR] = {
	[SYM_RUNTIME] = "_PyRuntime",
	[SYM_VERSION] = "Py_Version",
	[SYM_CODE_COUNT] = "_Py_next_func_version",
	[SYM_CODE_TYPE] = "PyCode_Type",
	[SYM_CODE_FREE] = "code_dealloc", /* a static function: in .symtab only */
};

#define FACTS_LOADS 16 /* PT_LOAD segments kept; a file with more is not kept */

/* What an interpreter's file says, whichever process maps it. */
struct py_file_facts {
	uint64_t sym[SYM_NR];   /* interp_symbols' values in the file; 0: none */
	uint64_t code_free_off; /* py_interp's, for a probe */
	struct {
		uint64_t offset, filesz, vaddr;
	} loads[FACTS_LOADS];   /* its PT_LOAD segments, the first FACTS_LOADS */
	size_t n_loads;
	bool all_loads;         /* every one of them is in loads[] */
};

/*
 * The values of the symbols interp_symbols names (data, but code_dealloc's
 * a function's), into @v (0: none), each from @f's .dynsym, else .symtab:
 * one pass over each table.
 */
static void symbol_values(const struct elf_file *f, uint64_t v[SYM_NR])
{
	static const GElf_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };

	memset(v, 0, SYM_NR * sizeof(v[0]));
	for (size_t t = 0; t < 2; t++) {
		Elf_Scn *scn = elf_file__find(f, NULL, types[t]);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
		GElf_Shdr sh;
		GElf_Sym sym;

		if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(sym.st_info) != STT_OBJECT &&
			     GELF_ST_TYPE(sym.st_info) != STT_FUNC))
				continue;
			n = elf_strptr(elf_file__elf(f), sh.sh_link, sym.st_name);
			for (size_t k = 0; n && k < SYM_NR; k++)
				if (!v[k] && !strcmp(n, interp_symbols[k]) &&
				    (GELF_ST_TYPE(sym.st_info) == STT_FUNC) == (k == SYM_CODE_FREE))
					v[k] = sym.st_value;
		}
	}
}

/*
 * The word the file @f holds at virtual address @vaddr once loaded: a
 * RELATIVE relocation's addend where one applies there, else its bytes;
 * 0 when no section holds it or another relocation applies.
 */
static uint64_t loaded_word(const struct elf_file *f, uint64_t vaddr)
{
	Elf *e = elf_file__elf(f);
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	uint64_t w = 0;

	if (!gelf_getehdr(e, &eh))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Rela r;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			uint64_t type;

			if (!gelf_getrela(d, (int)i, &r) || r.r_offset != vaddr)
				continue;
			type = GELF_R_TYPE(r.r_info);
			return (eh.e_machine == EM_X86_64 && type == R_X86_64_RELATIVE) ||
					       (eh.e_machine == EM_AARCH64 && type == R_AARCH64_RELATIVE)
				       ? (uint64_t)r.r_addend
				       : 0;
		}
	}
	for (scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		Elf_Data *d;
		GElf_Shdr sh;

		/* Only the section that holds it is read: the others are megabytes of code. */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr >= sh.sh_size || !(d = elf_getdata(scn, NULL)))
			continue;
		if (vaddr - sh.sh_addr <= d->d_size && d->d_size - (vaddr - sh.sh_addr) >= sizeof(w)) {
			memcpy(&w, (const char *)d->d_buf + (vaddr - sh.sh_addr), sizeof(w));
			return w;
		}
	}
	return 0;
}

/*
 * The file offset of virtual address @vaddr in an executable segment of @f,
 * within the file; 0: none.
 */
static uint64_t exec_offset(const struct elf_file *f, uint64_t vaddr)
{
	Elf *e = elf_file__elf(f);
	uint64_t file_size = elf_file__size(f);
	size_t n;

	if (elf_getphdrnum(e, &n) || !file_size)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		off = vaddr - ph.p_vaddr + ph.p_offset;
		return off >= ph.p_offset && off < file_size ? off : 0;
	}
	return 0;
}

#define TP_DEALLOC_AT 48 /* offsetof(PyTypeObject, tp_dealloc), 3.10 to 3.13, on LP64 */

/*
 * The file offset of the code objects' deallocator, code_dealloc: as the
 * code type's tp_dealloc slot names it, and the symbol where .symtab has
 * one (they must agree); 0 when not found.
 */
static uint64_t code_free_offset(const struct elf_file *f, const uint64_t sym[SYM_NR])
{
	uint64_t at = sym[SYM_CODE_TYPE] ? loaded_word(f, sym[SYM_CODE_TYPE] + TP_DEALLOC_AT) : 0;

	if (!at || (sym[SYM_CODE_FREE] && sym[SYM_CODE_FREE] != at))
		return 0;
	return exec_offset(f, at);
}

/* The PT_LOAD segments of @f into @facts. */
static void read_loads(const struct elf_file *f, struct py_file_facts *facts)
{
	Elf *e = elf_file__elf(f);
	size_t n;

	facts->n_loads = 0;
	facts->all_loads = !elf_getphdrnum(e, &n);
	for (size_t i = 0; facts->all_loads && i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (facts->n_loads == FACTS_LOADS) {
			facts->all_loads = false;
			break;
		}
		facts->loads[facts->n_loads].offset = ph.p_offset;
		facts->loads[facts->n_loads].filesz = ph.p_filesz;
		facts->loads[facts->n_loads++].vaddr = ph.p_vaddr;
	}
}

/* What @f says, into @facts. */
static void read_facts(const struct elf_file *f, struct py_file_facts *facts)
{
	symbol_values(f, facts->sym);
	facts->code_free_off = code_free_offset(f, facts->sym);
	read_loads(f, facts);
}

/*
 * The load bias of the file mapped at @m (its lowest mapping): the
 * process address of its virtual address 0, from the PT_LOAD segment
 * that @m maps. Returns 0 with *@bias set, or -ENOENT.
 */
static int load_bias(const struct py_file_facts *facts, const struct proc_map *m, uint64_t *bias)
{
	for (size_t i = 0; i < facts->n_loads; i++) {
		uint64_t offset = facts->loads[i].offset, page_off = offset & ~(uint64_t)0xfff;

		if (m->pgoff < page_off || m->pgoff >= offset + facts->loads[i].filesz)
			continue;
		*bias = m->start - (facts->loads[i].vaddr - offset + m->pgoff);
		return 0;
	}
	return -ENOENT;
}

/* @out's addresses from @facts, its file mapped first at @first; 0 or -ENOENT. */
static int apply_facts(const struct py_file_facts *facts, const struct proc_map *first,
		       struct py_interp *out)
{
	const uint64_t *sym = facts->sym;
	uint64_t bias;

	if (!sym[SYM_RUNTIME] || load_bias(facts, first, &bias))
		return -ENOENT;
	out->runtime = sym[SYM_RUNTIME] + bias;
	out->hexversion_addr = sym[SYM_VERSION] ? sym[SYM_VERSION] + bias : 0;
	out->code_count_addr = sym[SYM_CODE_COUNT] ? sym[SYM_CODE_COUNT] + bias : 0;
	out->code_free_off = facts->code_free_off;
	return 0;
}

/* The lowest mapping of the file @m maps (same device and inode) in @maps. */
static const struct proc_map *first_mapping(const struct proc_maps *maps, const struct proc_map *m)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *o = &maps->maps[i];

		if (o->kind == MAP_FILE && o->inode == m->inode && o->dev_major == m->dev_major &&
		    o->dev_minor == m->dev_minor)
			return o;
	}
	return m;
}

int py_interp__read_file(const struct elf_file *f, const struct proc_map *first,
			 struct py_interp *out)
{
	struct py_file_facts facts;

	read_facts(f, &facts);
	return apply_facts(&facts, first, out);
}

#define PY_FILES_CACHED 8 /* interpreters' files whose facts are kept */

/*
 * A file as the kernel describes the one opened: a file changed in place
 * gets a new ctime, which nobody can set back.
 */
struct py_file_key {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime, mtime;
};

struct py_interp_cache {
	struct {
		struct py_file_key key;
		struct py_file_facts facts;
		uint64_t used; /* the cache's uses when last found; 0: empty */
	} files[PY_FILES_CACHED];
	uint64_t uses;
	uint64_t reads; /* files read (not found kept) */
};

struct py_interp_cache *py_interp_cache__new(void)
{
	return calloc(1, sizeof(struct py_interp_cache));
}

void py_interp_cache__free(struct py_interp_cache *c)
{
	free(c);
}

uint64_t py_interp_cache__reads(const struct py_interp_cache *c)
{
	return c->reads;
}

static bool same_file(const struct py_file_key *a, const struct py_file_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The facts @c keeps of the file @key describes, or NULL. */
static const struct py_file_facts *cache_find(struct py_interp_cache *c, const struct py_file_key *key)
{
	for (size_t i = 0; i < PY_FILES_CACHED; i++)
		if (c->files[i].used && same_file(&c->files[i].key, key)) {
			c->files[i].used = ++c->uses;
			return &c->files[i].facts;
		}
	return NULL;
}

/* Keeps @facts of the file @key describes, in place of the one found least recently. */
static void cache_put(struct py_interp_cache *c, const struct py_file_key *key,
		      const struct py_file_facts *facts)
{
	size_t old = 0;

	for (size_t i = 1; i < PY_FILES_CACHED; i++)
		if (c->files[i].used < c->files[old].used)
			old = i;
	c->files[old].key = *key;
	c->files[old].facts = *facts;
	c->files[old].used = ++c->uses;
}

/*
 * The facts of the file open on @fd (which this closes), from @c when it
 * keeps them, else read (and kept). Returns 0, or -ENOEXEC when it is not ELF.
 */
static int file_facts(struct py_interp_cache *c, int fd, struct py_file_facts *facts)
{
	struct py_file_key key = { 0 };
	const struct py_file_facts *kept;
	struct elf_file *f;
	struct stat st;
	bool keyed = c && !fstat(fd, &st);

	if (keyed) {
		key = (struct py_file_key){ st.st_dev, st.st_ino, st.st_size, st.st_ctim, st.st_mtim };
		kept = cache_find(c, &key);
		if (kept) {
			close(fd);
			*facts = *kept;
			return 0;
		}
	}
	f = elf_file__open_fd(fd, true);
	if (!f)
		return -ENOEXEC;
	read_facts(f, facts);
	elf_file__close(f);
	if (c)
		c->reads++;
	if (keyed && facts->all_loads)
		cache_put(c, &key, facts);
	return 0;
}

int py_interp__locate(struct py_interp_cache *c, const char *proc_root, uint32_t tgid,
		      const struct proc_maps *maps, struct py_interp *out)
{
	int fd = mapped_file__open(proc_root ? proc_root : "/proc", tgid, out->map);
	struct py_file_facts facts;
	int err;

	if (fd < 0)
		return -ENOENT;
	err = file_facts(c, fd, &facts);
	return err ? err : apply_facts(&facts, first_mapping(maps, out->map), out);
}
