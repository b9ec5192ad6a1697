// SPDX-License-Identifier: GPL-2.0
/*
 * interp: an interpreter's file among a process's mappings, and its
 * runtime state's address. The file is opened the way symbols/ opens a
 * process's mapped files (as the process sees it, checked to be the
 * mapped inode), its symbols read with libelf.
 */
#include "python/interp.h"

#include <errno.h>
#include <gelf.h>
#include <string.h>

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
 * The load bias of the file mapped at @m (its lowest mapping): the
 * process address of its virtual address 0, from the PT_LOAD segment
 * that @m maps. Returns 0 with *@bias set, or -ENOENT.
 */
static int load_bias(const struct elf_file *f, const struct proc_map *m, uint64_t *bias)
{
	Elf *e = elf_file__elf(f);
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t page_off;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		page_off = ph.p_offset & ~(uint64_t)0xfff;
		if (m->pgoff < page_off || m->pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
		return 0;
	}
	return -ENOENT;
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
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Rela r;

		if (!d || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
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
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;

		if (d && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    vaddr >= sh.sh_addr && vaddr - sh.sh_addr <= d->d_size &&
		    d->d_size - (vaddr - sh.sh_addr) >= sizeof(w)) {
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
	size_t n, file_size = 0;

	if (elf_getphdrnum(e, &n) || !elf_rawfile(e, &file_size))
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
	uint64_t bias, sym[SYM_NR];

	symbol_values(f, sym);
	if (!sym[SYM_RUNTIME] || load_bias(f, first, &bias))
		return -ENOENT;
	out->runtime = sym[SYM_RUNTIME] + bias;
	out->hexversion_addr = sym[SYM_VERSION] ? sym[SYM_VERSION] + bias : 0;
	out->code_count_addr = sym[SYM_CODE_COUNT] ? sym[SYM_CODE_COUNT] + bias : 0;
	out->code_free_off = code_free_offset(f, sym);
	return 0;
}

int py_interp__locate(const char *proc_root, uint32_t tgid, const struct proc_maps *maps,
		      struct py_interp *out)
{
	int fd = mapped_file__open(proc_root ? proc_root : "/proc", tgid, out->map);
	struct elf_file *f;
	int err;

	if (fd < 0)
		return -ENOENT;
	f = elf_file__open_fd(fd, true);
	if (!f)
		return -ENOEXEC;
	err = py_interp__read_file(f, first_mapping(maps, out->map), out);
	elf_file__close(f);
	return err;
}
