// SPDX-License-Identifier: GPL-2.0
/*
 * symbolizer: addresses to the names a user reads.
 *
 * Two caches, both id_tables: processes by tgid (a maps snapshot each) and
 * ELF symbol tables by file identity (device, inode), shared by every
 * process that maps the file. A file that cannot be opened or is not ELF
 * gets an entry without a table, so it is tried only once. Each cache is
 * bounded simply: when it outgrows its limit it is emptied before the next
 * insertion.
 */
#include "symbols/symbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/elfsyms.h"
#include "symbols/id_table.h"
#include "symbols/kallsyms.h"
#include "symbols/procmaps.h"
#include "symbols/sanitize.h"

#define PROCS_MAX 8192
#define ELF_FILES_MAX 4096
#define ELF_BYTES_MAX (512UL << 20)

/* Room for "name [module]" and "file+0xoffset" built from capped parts. */
#define SYM_TMP_BYTES (2 * NAME_MAX_BYTES + 32)

struct proc_entry {
	struct id_node node; /* key: {tgid, 0} */
	uint64_t read_pass;  /* the pass of the last maps read */
	struct proc_maps maps;
};

struct elf_entry {
	struct id_node node;	/* key: {dev, inode} */
	struct elf_symtab *tab; /* NULL: not ELF, or could not be opened */
};

struct symbolizer {
	struct ksyms *ksyms;
	char *proc_root;
	uint64_t pass;
	struct id_table procs;
	struct id_table elfs;
	size_t elf_tables, elf_bytes;
	uint64_t maps_reads;
};

static void proc_entry__release(struct id_node *node)
{
	struct proc_entry *p = (struct proc_entry *)node;

	proc_maps__free(&p->maps);
	free(p);
}

static void elf_entry__release(struct id_node *node)
{
	struct elf_entry *e = (struct elf_entry *)node;

	elf_symtab__free(e->tab);
	free(e);
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	const struct symbolizer_opts none = {0};
	struct symbolizer *s;
	int err = ENOMEM;

	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->proc_root = strdup(opts->proc_root ? opts->proc_root : "/proc");
	if (!s->proc_root)
		goto fail;
	s->ksyms = ksyms__load(opts->kallsyms_path ? opts->kallsyms_path : "/proc/kallsyms",
			       opts->modules_path ? opts->modules_path : "/proc/modules");
	if (!s->ksyms) {
		err = errno;
		goto fail;
	}
	return s;
fail:
	symbolizer__free(s);
	errno = err;
	return NULL;
}

/* Writes the text made from @fmt into @buf, sanitized, and returns @status. */
__attribute__((format(printf, 4, 5))) static int sym_write(char *buf, size_t size, int status,
							   const char *fmt, ...)
{
	char tmp[SYM_TMP_BYTES];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	sanitize_name(buf, size, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
	return status;
}

static uint64_t lookup_addr(uint64_t ip, bool is_return)
{
	return is_return && ip ? ip - 1 : ip;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, char *buf, size_t size)
{
	const struct ksym *sym;

	if (!buf || !size)
		return -EINVAL;
	sym = ksyms__map_addr(s->ksyms, lookup_addr(ip, is_return));
	if (!sym)
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	if (sym->module)
		return sym_write(buf, size, SYM_NAMED, "%s [%s]", sym->name, sym->module);
	return sym_write(buf, size, SYM_NAMED, "%s", sym->name);
}

/* Reads the maps of @p now; on failure the snapshot it had is kept. */
static void symbolizer__read_maps(struct symbolizer *s, struct proc_entry *p)
{
	struct proc_maps fresh;

	p->read_pass = s->pass;
	s->maps_reads++;
	if (proc_maps__read(s->proc_root, (int)p->node.key[0], &fresh))
		return;
	proc_maps__free(&p->maps);
	p->maps = fresh;
}

/* The entry of @tgid, made (and its maps read) on first sight; NULL when out of memory. */
static struct proc_entry *symbolizer__proc(struct symbolizer *s, uint32_t tgid)
{
	struct proc_entry *p = (struct proc_entry *)id_table__find(&s->procs, tgid, 0);

	if (p)
		return p;
	if (s->procs.n >= PROCS_MAX)
		id_table__clear(&s->procs, proc_entry__release, true);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->node.key[0] = tgid;
	if (id_table__insert(&s->procs, &p->node)) {
		free(p);
		return NULL;
	}
	symbolizer__read_maps(s, p);
	return p;
}

/* The mapping of @p holding @addr, re-reading the maps once per pass on a miss. */
static const struct proc_map *symbolizer__find_map(struct symbolizer *s, struct proc_entry *p,
						   uint64_t addr)
{
	const struct proc_map *m = proc_maps__find(&p->maps, addr);

	if (m || p->read_pass == s->pass)
		return m;
	symbolizer__read_maps(s, p);
	return proc_maps__find(&p->maps, addr);
}

/* True when the file open on @fd is the one mapping @m names. */
static bool mapped_file__matches(int fd, const struct proc_map *m)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor && st.st_ino == m->inode;
}

/*
 * Opens the file behind mapping @m of process @tgid: through map_files (the
 * mapped file itself, even when deleted), else through the process's root,
 * else by the host path. A candidate is used only when its device and inode
 * are those of the mapping. Returns an fd, or -ENOENT.
 */
static int symbolizer__open_mapped(const struct symbolizer *s, uint32_t tgid,
				   const struct proc_map *m)
{
	char paths[3][PATH_MAX];
	size_t i, n = 0;
	int fd;

	if (snprintf(paths[n], PATH_MAX, "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
		     s->proc_root, tgid, m->start, m->end) < PATH_MAX)
		n++;
	if (m->path[0] == '/') {
		if (snprintf(paths[n], PATH_MAX, "%s/%" PRIu32 "/root%s", s->proc_root, tgid,
			     m->path) < PATH_MAX)
			n++;
		if (snprintf(paths[n], PATH_MAX, "%s", m->path) < PATH_MAX)
			n++;
	}
	for (i = 0; i < n; i++) {
		fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (mapped_file__matches(fd, m))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/* Adds the cache entry for the file of @m, reading its table. NULL when out of memory. */
static struct elf_entry *symbolizer__load_elf(struct symbolizer *s, uint32_t tgid,
					      const struct proc_map *m, uint64_t dev)
{
	struct elf_entry *e;
	int fd;

	if (s->elfs.n >= ELF_FILES_MAX || s->elf_bytes >= ELF_BYTES_MAX) {
		id_table__clear(&s->elfs, elf_entry__release, true);
		s->elf_tables = 0;
		s->elf_bytes = 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->node.key[0] = dev;
	e->node.key[1] = m->inode;
	fd = symbolizer__open_mapped(s, tgid, m);
	if (fd >= 0) {
		e->tab = elf_symtab__open_fd(fd);
		close(fd);
	}
	if (id_table__insert(&s->elfs, &e->node)) {
		elf_entry__release(&e->node);
		return NULL;
	}
	if (e->tab) {
		s->elf_tables++;
		s->elf_bytes += elf_symtab__bytes(e->tab);
	}
	return e;
}

/* The symbol table of the file mapping @m names, or NULL when there is none. */
static const struct elf_symtab *symbolizer__elf(struct symbolizer *s, uint32_t tgid,
						const struct proc_map *m)
{
	uint64_t dev = makedev(m->dev_major, m->dev_minor);
	struct elf_entry *e;

	if (!m->inode)
		return NULL;
	e = (struct elf_entry *)id_table__find(&s->elfs, dev, m->inode);
	if (!e)
		e = symbolizer__load_elf(s, tgid, m, dev);
	return e ? e->tab : NULL;
}

static const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Names @addr in file mapping @m: the function there, else "file+0xoffset". */
static int symbolizer__name_in_file(struct symbolizer *s, uint32_t tgid, const struct proc_map *m,
				    uint64_t addr, char *buf, size_t size)
{
	uint64_t off = addr - m->start + m->pgoff, vaddr, sym_off;
	const struct elf_symtab *tab = symbolizer__elf(s, tgid, m);
	char base[NAME_MAX_BYTES + 1];
	const char *name = NULL;

	if (tab && !elf_symtab__file_to_vaddr(tab, off, &vaddr))
		name = elf_symtab__lookup(tab, vaddr, &sym_off);
	if (name) {
		sanitize_name(buf, size, name, strlen(name));
		return SYM_NAMED;
	}
	name = path_basename(m->path);
	sanitize_name(base, sizeof(base), name, strlen(name));
	return sym_write(buf, size, SYM_MODULE_OFF, "%s+0x%" PRIx64, base, off);
}

int symbolizer__user(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return, char *buf,
		     size_t size)
{
	uint64_t addr = lookup_addr(ip, is_return);
	const struct proc_map *m;
	struct proc_entry *p;

	if (!buf || !size)
		return -EINVAL;
	p = symbolizer__proc(s, tgid);
	if (!p) {
		sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
		return -ENOMEM;
	}
	m = symbolizer__find_map(s, p, addr);
	if (!m)
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	switch (m->kind) {
	case MAP_FILE:
		return symbolizer__name_in_file(s, tgid, m, addr, buf, size);
	case MAP_VDSO:
		return sym_write(buf, size, SYM_UNKNOWN, "[vdso]");
	case MAP_VSYSCALL:
		return sym_write(buf, size, SYM_UNKNOWN, "[vsyscall]");
	default:
		if (m->perms & MAP_PERM_X)
			return sym_write(buf, size, SYM_UNKNOWN, "[anon]");
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	}
}

bool symbolizer__kernel_hidden(const struct symbolizer *s)
{
	return ksyms__hidden(s->ksyms);
}

void symbolizer__begin_pass(struct symbolizer *s)
{
	s->pass++;
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	st->processes = s->procs.n;
	st->elf_files = s->elfs.n;
	st->elf_tables = s->elf_tables;
	st->elf_bytes = s->elf_bytes;
	st->maps_reads = s->maps_reads;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	id_table__clear(&s->procs, proc_entry__release, false);
	id_table__clear(&s->elfs, elf_entry__release, false);
	ksyms__free(s->ksyms);
	free(s->proc_root);
	free(s);
}
