// SPDX-License-Identifier: GPL-2.0
/*
 * annotate: find the code (a cached code_file for a mapped file, the
 * kernel's table and /proc/kcore, or a process's memory), the function's
 * extent in it, its line rows and instructions; then place every site's
 * counts on its line and its instruction.
 *
 * Addresses inside: a mapped file's are its ELF virtual addresses (the
 * sites' file offsets are translated through its segments), as objdump and
 * perf annotate show them; the kernel's and a process's memory's their own.
 */
#include "symbols/annotate.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/debuginfo.h"
#include "symbols/elffile.h"
#include "symbols/elfsyms.h"
#include "symbols/kallsyms.h"
#include "symbols/line_table.h"
#include "symbols/mapped_file.h"
#include "symbols/perfmap.h"
#include "symbols/procinfo.h"
#include "symbols/rootfs.h"
#include "symbols/sanitize.h"
#include "symbols/source_text.h"
#include "textbuf.h"

#define KERNEL_NOTES "/sys/kernel/notes"
#define NT_BUILD_ID 3 /* NT_GNU_BUILD_ID */

/* A mapped file's code and what describes it, kept between requests. */
struct code_file {
	uint64_t dev, inode; /* its identity, as the mapping said and its opening checked */
	uint64_t used;	     /* the cache's clock when last used */
	int fd;		     /* the file, for its bytes */
	struct elf_file *bin, *debug;
	struct elf_symtab *symtab;
	Dwarf *dw;	 /* the DWARF of bin or debug; NULL: no line information */
	Dwarf_CFI *cfi;	 /* bin's .eh_frame: extents where no symbol says */
	char build_id[ANN_BUILD_ID_MAX];
	char no_lines[ANN_NOTE_MAX]; /* why @dw is NULL */
	size_t bytes; /* what it holds: its symbols, its debug information unpacked */
	struct read_access access; /* who may read it: only they are shown what it holds */
	bool private_debug;	   /* @debug is not every user's: kept for @debug_uid alone */
	uint32_t debug_uid;
};

/* The kernel's table and /proc/kcore, read once they are first needed. */
struct kernel_code {
	struct ksyms *ksyms;
	Elf *kcore; /* NULL: not readable (kcore_err says why) */
	int kcore_fd, kcore_err;
	char build_id[ANN_BUILD_ID_MAX];
};

struct annotate_cache {
	struct code_file *files[ANNOTATE_FILES];
	size_t bytes; /* the files' */
	uint64_t clock;
	struct kernel_code kernel;
	bool kernel_read;
};

struct annotate_cache *annotate_cache__new(void)
{
	struct annotate_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->kernel.kcore_fd = -1;
	return c;
}

static void code_file__free(struct code_file *f)
{
	if (!f)
		return;
	if (f->dw)
		dwarf_end(f->dw);
	dwarf_cfi_end(f->cfi);
	elf_symtab__free(f->symtab);
	elf_file__close(f->debug);
	elf_file__close(f->bin);
	read_access__free(&f->access);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

/* Writes the @len bytes of build-id @id as lower-case hex into @buf. */
static void hex_id(char *buf, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < len && 2 * i + 2 < ANN_BUILD_ID_MAX; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

/* True when @f has DWARF of its own (a line table to read). */
static bool has_dwarf(const struct elf_file *f)
{
	return f && (elf_file__find(f, ".debug_info", SHT_NULL) ||
		     elf_file__find(f, ".zdebug_info", SHT_NULL));
}

/* Says in @f->no_lines why @f has no line information. */
static void explain_no_lines(struct code_file *f, const char *path)
{
	const void *data;
	size_t len;

	if (f->debug)
		snprintf(f->no_lines, sizeof(f->no_lines),
			 "no line information: %s's debug file has no DWARF", path);
	else if (!elf_file__section(f->bin, ".gnu_debugdata", &data, &len))
		snprintf(f->no_lines, sizeof(f->no_lines),
			 "no line information: %s has only MiniDebugInfo (symbols, no lines), and "
			 "no debug file was found",
			 path);
	else if (elf_file__has_symtab(f->bin))
		snprintf(f->no_lines, sizeof(f->no_lines),
			 "no line information: %s was built without -g, and no debug file was "
			 "found",
			 path);
	else
		snprintf(f->no_lines, sizeof(f->no_lines),
			 "no line information: %s is stripped, and no debug file was found (by "
			 "build-id or .gnu_debuglink)",
			 path);
}

/*
 * The debug information of @f's binary: its own DWARF, else its debug
 * file's (debuginfo__find(), looked for in the process's root, then the
 * host's).
 */
static void code_file__debug(struct code_file *f, const struct annotate_request *req,
			     const struct proc_creds *creds)
{
	struct debug_search ds = { .root_fd = -1, .debug_root = req->debug_root,
				   .path = req->module.path, .creds = creds };
	const struct elf_file *lines = f->bin;

	if (!has_dwarf(f->bin)) {
		ds.root_fd = rootfs__open_root(req->proc_root, (uint32_t)req->module.tgid);
		f->debug = debuginfo__find(f->bin, &ds);
		if (ds.root_fd >= 0)
			close(ds.root_fd);
		f->private_debug = f->debug && ds.private;
		f->debug_uid = creds ? creds->uid : UINT32_MAX;
		lines = has_dwarf(f->debug) ? f->debug : NULL;
	}
	if (lines)
		f->dw = dwarf_begin_elf(elf_file__elf(lines), DWARF_C_READ, NULL);
	if (!f->dw)
		explain_no_lines(f, req->module.path);
}

/* The bytes the debug sections of @f take once read (unpacked where compressed). */
static size_t debug_bytes(const struct elf_file *f)
{
	Elf *e = f ? elf_file__elf(f) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx, bytes = 0;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		GElf_Chdr ch;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)) || !strstr(name, "debug_"))
			continue;
		bytes += sh.sh_flags & SHF_COMPRESSED && gelf_getchdr(scn, &ch) ? ch.ch_size
										 : sh.sh_size;
	}
	return bytes;
}

/* The mapping @req's module stands for, as its process's maps said. */
static struct proc_map module_map(const struct annotate_request *req)
{
	const struct addr_module *m = &req->module;

	return (struct proc_map){ .start = m->start, .end = m->end, .pgoff = m->pgoff,
				  .inode = m->inode, .dev_major = major(m->dev),
				  .dev_minor = minor(m->dev), .perms = MAP_PERM_R | MAP_PERM_X,
				  .kind = MAP_FILE, .path = (char *)m->path };
}

/*
 * Opens the file of @req's module, through its process (mapped_file__open()),
 * with its debug file as @creds may read them.
 */
static struct code_file *code_file__open(const struct annotate_request *req,
					 const struct proc_creds *creds, const char **why)
{
	const struct addr_module *m = &req->module;
	struct proc_map pm = module_map(req);
	struct code_file *f = calloc(1, sizeof(*f));
	uint8_t id[BUILD_ID_MAX];
	struct stat st;
	size_t len;

	*why = "out of memory";
	if (!f)
		return NULL;
	f->dev = m->dev;
	f->inode = m->inode;
	f->fd = mapped_file__open(req->proc_root, (uint32_t)m->tgid, &pm);
	if (f->fd >= 0 && fstat(f->fd, &st) == 0)
		read_access__init(&f->access, f->fd, &st);
	if (f->fd >= 0 &&
	    !mapped_file__may_read(&f->access, req->proc_root, (uint32_t)m->tgid, &pm, creds)) {
		*why = "its process may not read its file (execute-only): nothing of it is shown";
		code_file__free(f);
		return NULL;
	}
	f->bin = f->fd >= 0 ? elf_file__open_fd(f->fd, false) : NULL;
	if (!f->bin) {
		*why = f->fd >= 0 ? "not an ELF file" : "can't be opened (the file is gone)";
		code_file__free(f);
		return NULL;
	}
	len = elf_file__build_id(f->bin, id, sizeof(id));
	hex_id(f->build_id, id, len);
	code_file__debug(f, req, creds);
	f->symtab = elf_symtab__build(f->bin, f->debug);
	f->cfi = dwarf_getcfi_elf(elf_file__elf(f->bin));
	f->bytes = sizeof(*f) + (f->symtab ? elf_symtab__bytes(f->symtab) : 0) +
		   (f->dw ? debug_bytes(f->debug ? f->debug : f->bin) : 0);
	return f;
}

/* Drops cached file @i. */
static void drop_file(struct annotate_cache *c, size_t i)
{
	c->bytes -= c->files[i]->bytes;
	code_file__free(c->files[i]);
	c->files[i] = NULL;
}

/* Drops the least recently used files but @keep until the cache is within ANNOTATE_BYTES. */
static void evict(struct annotate_cache *c, const struct code_file *keep)
{
	while (c->bytes > ANNOTATE_BYTES) {
		size_t oldest = ANNOTATE_FILES;

		for (size_t i = 0; i < ANNOTATE_FILES; i++) {
			const struct code_file *f = c->files[i];

			if (f && f != keep &&
			    (oldest == ANNOTATE_FILES || f->used < c->files[oldest]->used))
				oldest = i;
		}
		if (oldest == ANNOTATE_FILES)
			return;
		drop_file(c, oldest);
	}
}

/*
 * Whether cached @f may serve a process of credentials @creds (NULL: not
 * known): it must be allowed to read the file, and a debug file found for
 * other credentials serves only their uid.
 */
static bool code_file__serves(struct code_file *f, const struct annotate_request *req,
			      const struct proc_creds *creds)
{
	struct proc_map pm = module_map(req);

	if (f->private_debug && (!creds || creds->uid != f->debug_uid))
		return false;
	return mapped_file__may_read(&f->access, req->proc_root, (uint32_t)req->module.tgid, &pm,
				     creds);
}

/*
 * The cached file of @req's module, opened (and cached) when not there, read
 * as its process may read it (/proc/PID/status's credentials).
 */
static struct code_file *code_file_of(struct annotate_cache *c, const struct annotate_request *req,
				      const char **why)
{
	struct proc_status status;
	const struct proc_creds *creds =
		proc_info__status(req->proc_root, (uint32_t)req->module.tgid, &status) == 0
			? &status.creds
			: NULL;
	size_t oldest = 0;

	for (size_t i = 0; i < ANNOTATE_FILES; i++) {
		struct code_file *f = c->files[i];

		if (f && f->dev == req->module.dev && f->inode == req->module.inode) {
			if (code_file__serves(f, req, creds)) {
				f->used = ++c->clock;
				return f;
			}
			drop_file(c, i); /* opened again below, as this process may */
			f = NULL;
		}
		if (!f || (c->files[oldest] && f->used < c->files[oldest]->used))
			oldest = i;
	}
	if (c->files[oldest])
		drop_file(c, oldest);
	c->files[oldest] = code_file__open(req, creds, why);
	if (!c->files[oldest])
		return NULL;
	c->files[oldest]->used = ++c->clock;
	c->bytes += c->files[oldest]->bytes;
	evict(c, c->files[oldest]);
	return c->files[oldest];
}

/* The function's extent around @vaddr in @f: its symbol's, else its unwind entry's. */
static int file_extent(const struct code_file *f, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	Dwarf_Frame *frame;
	Dwarf_Addr s, e;
	bool signal;

	if (f->symtab && elf_symtab__extent(f->symtab, vaddr, start, end))
		return 0;
	if (f->cfi && dwarf_cfi_addrframe(f->cfi, vaddr, &frame) == 0) {
		int ok = dwarf_frame_info(frame, &s, &e, &signal) >= 0;

		free(frame);
		if (ok && s <= vaddr && vaddr < e) {
			*start = s;
			*end = e;
			return 0;
		}
	}
	return -ENOENT;
}

/* Reads up to @len bytes at @off of @fd into a new buffer; sets *@got. NULL when none. */
static uint8_t *read_at(int fd, uint64_t off, size_t len, size_t *got)
{
	uint8_t *buf = malloc(len ? len : 1);
	ssize_t n;

	*got = 0;
	if (!buf || off > INT64_MAX)
		goto fail;
	n = pread(fd, buf, len, (off_t)off);
	if (n <= 0)
		goto fail;
	*got = (size_t)n;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* Where the code being annotated is, once found. */
struct code {
	uint64_t start, end; /* the function's extent */
	uint8_t *bytes;	     /* [start, start + nbytes), or NULL */
	size_t nbytes;
	struct line_table lines; /* empty without line information */
	const struct code_file *file; /* a mapped file's, or NULL */
};

/*
 * Keeps @code's extent within what is decoded at once (a symbol's size is
 * the file's word), and says so in @a when it cuts it.
 */
static void cap_extent(struct code *code, struct annotation *a)
{
	if (code->end - code->start <= DISASM_MAX_BYTES)
		return;
	code->end = code->start + DISASM_MAX_BYTES;
	snprintf(a->insns_note, sizeof(a->insns_note),
		 "the function is larger than %u KiB: only its first %u KiB are shown",
		 DISASM_MAX_BYTES >> 10, DISASM_MAX_BYTES >> 10);
}

/* A site's file offset as @f's virtual address; UINT64_MAX where no segment holds it. */
static uint64_t file_vaddr(const struct code_file *f, uint64_t off)
{
	uint64_t vaddr;

	return f->symtab && !elf_symtab__file_to_vaddr(f->symtab, off, &vaddr) ? vaddr : UINT64_MAX;
}

/* The site's address as @code shows it; UINT64_MAX where it has none. */
static uint64_t code_addr(const struct annotate_request *req, const struct code *code,
			  const struct annotate_site *s)
{
	if (s->addr == ADDR_FOLDED)
		return UINT64_MAX;
	if (req->module.space == SPACE_FILE)
		return code->file ? file_vaddr(code->file, s->addr) : UINT64_MAX;
	return s->addr;
}

/*
 * Where nothing says where the function lies: the span of its own sites'
 * addresses (as @code shows them), which is all the view shows, the
 * addresses alone (decoding from one of them could start inside an
 * instruction). Says so in @a. Returns 0, or -ENOENT without a site.
 */
static int own_span(const struct annotate_request *req, struct code *code, struct annotation *a)
{
	uint64_t start = UINT64_MAX, end = 0;

	for (size_t i = 0; i < req->nsites; i++) {
		uint64_t addr = code_addr(req, code, &req->sites[i]);

		if (!req->sites[i].own || addr == UINT64_MAX)
			continue;
		start = addr < start ? addr : start;
		end = addr + 1 > end ? addr + 1 : end;
	}
	if (start >= end)
		return -ENOENT;
	code->start = start;
	code->end = end;
	snprintf(a->insns_note, sizeof(a->insns_note),
		 "no symbol table, unwind entry or perf map says where the function lies: its "
		 "addresses alone");
	return 0;
}

/*
 * The code of @req's function in its mapped file. Notes what is missing in
 * @a. Returns 0, or -ENOENT with a note (nothing to show but counts).
 */
static int file_code(struct annotate_cache *c, const struct annotate_request *req,
		     struct code *code, struct annotation *a)
{
	const char *why = NULL;
	struct code_file *f = code_file_of(c, req, &why);
	uint64_t at;

	if (!f) {
		snprintf(a->lines_note, sizeof(a->lines_note), "%s: %s", req->module.path, why);
		return -ENOENT;
	}
	code->file = f;
	snprintf(a->build_id, sizeof(a->build_id), "%s", f->build_id);
	at = file_vaddr(f, req->at);
	if (at != UINT64_MAX && file_extent(f, at, &code->start, &code->end) == 0) {
		cap_extent(code, a);
		code->bytes = read_at(f->fd, code->start - at + req->at, code->end - code->start,
				      &code->nbytes);
		if (!code->bytes)
			snprintf(a->insns_note, sizeof(a->insns_note),
				 "the code's bytes can't be read");
	} else if (own_span(req, code, a)) {
		return -ENOENT;
	}
	if (f->dw && line_table__read(f->dw, code->start, code->end, &code->lines) == 0)
		return 0;
	snprintf(a->lines_note, sizeof(a->lines_note), "%s",
		 f->dw ? "no line information for this function" : f->no_lines);
	return 0;
}

/* Reads /proc/kcore's program headers: the kernel's code, by address. */
static void kernel_open_kcore(struct kernel_code *k)
{
	k->kcore_fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (k->kcore_fd < 0) {
		k->kcore_err = errno;
		return;
	}
	k->kcore = elf_version(EV_CURRENT) == EV_NONE ? NULL
						      : elf_begin(k->kcore_fd, ELF_C_READ, NULL);
	if (!k->kcore)
		k->kcore_err = ENOEXEC;
}

/* The kernel's build-id, from its notes ("" when they can't be read). */
static void kernel_build_id(struct kernel_code *k)
{
	uint8_t notes[4096];
	int fd = open(KERNEL_NOTES, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, notes, sizeof(notes)) : -1;
	size_t off = 0;

	if (fd >= 0)
		close(fd);
	while (n > 0 && off + sizeof(GElf_Nhdr) <= (size_t)n) {
		GElf_Nhdr h;
		size_t name, desc;

		memcpy(&h, notes + off, sizeof(h));
		name = off + sizeof(h);
		desc = name + ((h.n_namesz + 3) & ~3u);
		if (h.n_namesz > 64 || h.n_descsz > BUILD_ID_MAX || desc + h.n_descsz > (size_t)n)
			return;
		if (h.n_type == NT_BUILD_ID && h.n_namesz == 4 && !memcmp(notes + name, "GNU", 4)) {
			hex_id(k->build_id, notes + desc, h.n_descsz);
			return;
		}
		off = desc + ((h.n_descsz + 3) & ~3u);
	}
}

/* The kernel's table, /proc/kcore and build-id, read the first time. */
static struct kernel_code *kernel_of(struct annotate_cache *c)
{
	if (!c->kernel_read) {
		c->kernel_read = true;
		c->kernel.ksyms = ksyms__load("/proc/kallsyms", "/proc/modules");
		kernel_open_kcore(&c->kernel);
		kernel_build_id(&c->kernel);
	}
	return &c->kernel;
}

/* Reads @len bytes of kernel memory at @addr through /proc/kcore; NULL when it can't. */
static uint8_t *kcore_read(const struct kernel_code *k, uint64_t addr, size_t len, size_t *got)
{
	size_t n;

	*got = 0;
	if (!k->kcore || elf_getphdrnum(k->kcore, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(k->kcore, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (len > ph.p_filesz - (addr - ph.p_vaddr))
			len = ph.p_filesz - (addr - ph.p_vaddr);
		return read_at(k->kcore_fd, ph.p_offset + (addr - ph.p_vaddr), len, got);
	}
	return NULL;
}

/* The code of @req's kernel function. */
static int kernel_code(struct annotate_cache *c, const struct annotate_request *req,
		       struct code *code, struct annotation *a)
{
	struct kernel_code *k = kernel_of(c);
	struct ksym sym;

	if (k->ksyms && !ksyms__map_addr(k->ksyms, req->at, &sym)) { /* loaded since? */
		ksyms__free(k->ksyms);
		k->ksyms = ksyms__load("/proc/kallsyms", "/proc/modules");
	}
	snprintf(a->build_id, sizeof(a->build_id), "%s", k->build_id);
	snprintf(a->lines_note, sizeof(a->lines_note),
		 "kernel code: no line information (flametop reads no vmlinux)");
	if (!k->ksyms || !ksyms__map_addr(k->ksyms, req->at, &sym))
		return own_span(req, code, a);
	if (sym.module) { /* a module's, a BPF program's: "[xfs]", "[bpf]" */
		char *object = malloc(strlen(sym.module) + 3);

		if (object) {
			sprintf(object, "[%s]", sym.module);
			free(a->object);
			a->object = object;
		}
	}
	code->start = sym.addr;
	code->end = sym.addr + sym.size;
	cap_extent(code, a);
	code->bytes = kcore_read(k, code->start, code->end - code->start, &code->nbytes);
	if (!code->bytes)
		snprintf(a->insns_note, sizeof(a->insns_note),
			 "kernel code can't be read (/proc/kcore: %s): its addresses alone, with "
			 "their shares",
			 k->kcore ? "no such address" : strerror(k->kcore_err));
	return 0;
}

/* The code of @req's function in its process's memory (JIT code, the vDSO). */
static int memory_code(const struct annotate_request *req, struct code *code,
		       struct annotation *a)
{
	const struct addr_module *m = &req->module;
	struct perf_map *pm = NULL;
	char path[64];
	int fd;

	snprintf(a->lines_note, sizeof(a->lines_note),
		 "code in the process's memory (JIT code): no line information");
	if (perf_map__open(req->proc_root, (uint32_t)m->tgid, NULL, PERF_MAP_MAX_BYTES, &pm) ||
	    !perf_map__extent(pm, req->at, &code->start, &code->end)) {
		perf_map__free(pm);
		return own_span(req, code, a);
	}
	perf_map__free(pm);
	cap_extent(code, a);
	snprintf(path, sizeof(path), "%s/%" PRId32 "/mem", req->proc_root, m->tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	code->bytes = fd >= 0 ? read_at(fd, code->start, code->end - code->start, &code->nbytes)
			      : NULL;
	if (fd >= 0)
		close(fd);
	if (!code->bytes)
		snprintf(a->insns_note, sizeof(a->insns_note),
			 "the process's memory can't be read (it has exited?): its addresses "
			 "alone");
	return 0;
}

/* The object as the header names it. */
static char *object_name(const struct annotate_request *req)
{
	const struct addr_module *m = &req->module;
	char buf[PATH_MAX + 64];

	if (m->space == SPACE_KERNEL)
		snprintf(buf, sizeof(buf), "[kernel]");
	else if (m->space == SPACE_MEMORY)
		snprintf(buf, sizeof(buf), "%s (pid %" PRId32 ")", m->path[0] ? m->path : "[jit]",
			 m->tgid);
	else
		snprintf(buf, sizeof(buf), "%s", m->path);
	return strdup(buf);
}

/* The ann_line index of each (file, line) row of @t, in @map (ANN_NONE: no line). */
struct line_key {
	uint32_t file, line, row;
};

static int by_file_line(const void *a, const void *b)
{
	const struct line_key *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return 0;
}

/* Copies @t's files into @a, sanitized. */
static int copy_files(struct annotation *a, const struct line_table *t)
{
	a->files = calloc(t->nfiles ? t->nfiles : 1, sizeof(*a->files));
	if (!a->files)
		return -ENOMEM;
	for (size_t i = 0; i < t->nfiles; i++) {
		size_t len = strlen(t->files[i]);

		a->files[i] = malloc(len * 4 + 3);
		if (!a->files[i])
			return -ENOMEM;
		a->nfiles = i + 1;
		sanitize_name(a->files[i], len * 4 + 3, t->files[i], len);
	}
	return 0;
}

/*
 * Makes @a's lines: one per (file, line) of @t's rows, by file then line;
 * @row_line[i] becomes row i's line (ANN_NONE: none).
 */
static int make_lines(struct annotation *a, const struct line_table *t, uint32_t *row_line)
{
	struct line_key *keys = malloc((t->n ? t->n : 1) * sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		row_line[i] = ANN_NONE;
		if (t->rows[i].file != LINE_NO_FILE && t->rows[i].line)
			keys[n++] = (struct line_key){ t->rows[i].file, t->rows[i].line,
						       (uint32_t)i };
	}
	qsort(keys, n, sizeof(*keys), by_file_line);
	a->lines = calloc(n ? n : 1, sizeof(*a->lines));
	if (!a->lines) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!a->nlines || by_file_line(&keys[i], &keys[i - 1]))
			a->lines[a->nlines++] = (struct ann_line){ .file = keys[i].file,
								   .line = keys[i].line };
		row_line[keys[i].row] = (uint32_t)(a->nlines - 1);
	}
	free(keys);
	return 0;
}

/* Notes in @a's lines note, once, what kept file @path's text from being shown. */
static void note_text(struct annotation *a, const char *path, const char *why, size_t *missing)
{
	if ((*missing)++)
		return;
	snprintf(a->lines_note, sizeof(a->lines_note), "source text of %s not shown: %s", path,
		 why);
}

/* Says in @a's lines note how many files' text is missing, when more than one. */
static void note_missing(struct annotation *a, size_t missing)
{
	char more[64];

	if (missing < 2)
		return;
	snprintf(more, sizeof(more), " (and %zu more files)", missing - 1);
	if (strlen(a->lines_note) + strlen(more) < sizeof(a->lines_note))
		strcat(a->lines_note, more);
}

/* Reads the text of file @file's lines in @a (those from @first, consecutive), as @pl says. */
static int read_file_text(struct annotation *a, const struct source_place *pl, uint32_t file,
			  size_t first, size_t n, const char *raw, size_t *missing)
{
	uint32_t *want = malloc(n * sizeof(*want));
	char **texts = malloc(n * sizeof(*texts));
	struct source_file sf;
	int err = -ENOMEM;

	if (want && texts) {
		for (size_t i = 0; i < n; i++)
			want[i] = a->lines[first + i].line;
		err = source_file__read(pl, raw, want, n, texts, &sf);
		if (err == -ENOMEM)
			goto out;
		for (size_t i = 0; !err && i < n; i++)
			a->lines[first + i].text = texts[i];
		if (sf.why)
			note_text(a, a->files[file], sf.why, missing);
		else if (!err && !texts[n - 1])
			note_text(a, a->files[file], "the line table names lines past its end",
				  missing);
		source_file__free(&sf);
		err = 0;
	}
out:
	free(want);
	free(texts);
	return err;
}

int annotate__read_texts(struct annotation *a, const struct source_place *pl,
			 const char *const *paths)
{
	size_t missing = 0;
	int err = 0;

	for (size_t i = 0; i < a->nlines && !err;) {
		size_t n = 1;

		while (i + n < a->nlines && a->lines[i + n].file == a->lines[i].file)
			n++;
		err = read_file_text(a, pl, a->lines[i].file, i, n, paths[a->lines[i].file],
				     &missing);
		i += n;
	}
	note_missing(a, missing);
	return err;
}

/* Reads the text of @a's lines as @req's process would (its credentials and root). */
static int read_texts(struct annotation *a, const struct annotate_request *req,
		      const struct line_table *t)
{
	struct source_process sp;
	bool known = req->module.space == SPACE_FILE &&
		     source_process__open(&sp, req->proc_root, (uint32_t)req->module.tgid) == 0;
	struct source_place pl = { .creds = known ? &sp.status.creds : NULL,
				   .root_fd = known ? sp.root_fd : -1,
				   .dirs = req->source_dirs,
				   .ndirs = req->nsource_dirs };
	int err = annotate__read_texts(a, &pl, (const char *const *)t->files);

	if (known)
		source_process__close(&sp);
	return err;
}

/* The instruction of @a holding @addr (the last at or below it), or ANN_NONE. */
static uint32_t insn_at(const struct annotation *a, uint64_t addr)
{
	size_t n = addr_search__count(a->insns, a->ninsns, sizeof(*a->insns),
				      offsetof(struct ann_insn, addr), addr);

	return n ? (uint32_t)(n - 1) : ANN_NONE;
}

/* The line of @addr in @t (@row_line mapping rows to lines), or ANN_NONE. */
static uint32_t line_at(const struct line_table *t, const uint32_t *row_line, uint64_t addr)
{
	const struct line_row *r = t->n ? line_table__find(t, addr) : NULL;

	return r ? row_line[r - t->rows] : ANN_NONE;
}

/* Decodes @code's bytes into @a's instructions, each with its line. */
static int make_insns(struct annotation *a, const struct code *code, const uint32_t *row_line)
{
	struct disasm_insn *in = NULL;
	long n = code->bytes ? disasm__decode(code->bytes, code->nbytes, code->start, &in) : 0;

	if (n == -ENOMEM)
		return -ENOMEM;
	if (n < 0) {
		snprintf(a->insns_note, sizeof(a->insns_note),
			 "this machine's instructions can't be decoded: addresses alone");
		n = 0;
	}
	a->insns = calloc(n ? (size_t)n : 1, sizeof(*a->insns));
	if (!a->insns) {
		free(in);
		return -ENOMEM;
	}
	for (long i = 0; i < n; i++) {
		a->insns[i].addr = in[i].addr;
		memcpy(a->insns[i].text, in[i].text, sizeof(a->insns[i].text));
		a->insns[i].src = line_at(&code->lines, row_line, in[i].addr);
	}
	a->ninsns = (size_t)n;
	free(in);
	return 0;
}

/* Appends a bare address to @a's instructions (the code could not be read). */
static int add_bare_insn(struct annotation *a, size_t *cap, uint64_t addr)
{
	uint32_t i = insn_at(a, addr);

	if (i != ANN_NONE && a->insns[i].addr == addr)
		return 0;
	if (array__grow((void **)&a->insns, cap, a->ninsns + 1, sizeof(*a->insns), 16))
		return -ENOMEM;
	i = i == ANN_NONE ? 0 : i + 1;
	memmove(a->insns + i + 1, a->insns + i, (a->ninsns - i) * sizeof(*a->insns));
	a->insns[i] = (struct ann_insn){ .addr = addr, .src = ANN_NONE };
	a->ninsns++;
	return 0;
}

/* Where the code could not be read: the sites' addresses as the instructions. */
static int bare_insns(struct annotation *a, const struct annotate_request *req,
		      const struct code *code)
{
	size_t cap = a->ninsns;
	int err = 0;

	for (size_t i = 0; i < req->nsites && !err; i++) {
		uint64_t addr = code_addr(req, code, &req->sites[i]);

		if (addr >= code->start && addr < code->end)
			err = add_bare_insn(a, &cap, addr);
	}
	return err;
}

/* Adds @s's counts to @self and @calls. */
static void add_counts(uint64_t *self, uint64_t *calls, const struct annotate_site *s)
{
	*self += s->self;
	*calls += s->calls;
}

/* Puts every site's counts on its line and instruction, and into the totals. */
static void place_counts(struct annotation *a, const struct annotate_request *req,
			 const struct code *code, const uint32_t *row_line)
{
	for (size_t i = 0; i < req->nsites; i++) {
		const struct annotate_site *s = &req->sites[i];
		uint64_t addr = code_addr(req, code, s);
		uint32_t line, insn;

		if (addr < code->start || addr >= code->end) {
			if (!s->own)
				continue;
			if (s->addr == ADDR_FOLDED)
				a->folded += s->self + s->calls;
			else
				a->outside += s->self + s->calls;
			add_counts(&a->self, &a->calls, s);
			continue;
		}
		add_counts(&a->self, &a->calls, s);
		line = line_at(&code->lines, row_line, addr);
		if (line != ANN_NONE)
			add_counts(&a->lines[line].self, &a->lines[line].calls, s);
		else
			a->no_line += s->self + s->calls;
		insn = insn_at(a, addr);
		if (insn != ANN_NONE)
			add_counts(&a->insns[insn].self, &a->insns[insn].calls, s);
	}
}

/* Finds @req's code by its module. */
static int find_code(struct annotate_cache *c, const struct annotate_request *req,
		     struct code *code, struct annotation *a)
{
	switch (req->module.space) {
	case SPACE_FILE:
		return file_code(c, req, code, a);
	case SPACE_KERNEL:
		return kernel_code(c, req, code, a);
	default:
		return memory_code(req, code, a);
	}
}

/* Lines, their text, instructions and counts of @a, from @code. */
static int fill(struct annotation *a, const struct annotate_request *req, const struct code *code)
{
	uint32_t *row_line = calloc(code->lines.n ? code->lines.n : 1, sizeof(*row_line));
	int err = row_line ? 0 : -ENOMEM;

	a->start = code->start;
	a->end = code->end;
	a->has_lines = code->lines.n > 0;
	if (!err && a->has_lines)
		err = copy_files(a, &code->lines);
	if (!err && a->has_lines)
		err = make_lines(a, &code->lines, row_line);
	if (!err && a->has_lines)
		err = read_texts(a, req, &code->lines);
	if (!err)
		err = make_insns(a, code, row_line);
	if (!err && !code->bytes)
		err = bare_insns(a, req, code);
	if (!err)
		place_counts(a, req, code, row_line);
	free(row_line);
	return err;
}

int annotate__run(struct annotate_cache *c, const struct annotate_request *req,
		  struct annotation *out)
{
	struct code code = { 0 };
	int err = 0;

	*out = (struct annotation){ 0 };
	out->function = strdup(req->function);
	out->object = object_name(req);
	if (!out->function || !out->object)
		err = -ENOMEM;
	if (!err && find_code(c, req, &code, out)) /* nothing but its counts to show */
		code.start = code.end = 0;
	if (!err)
		err = fill(out, req, &code);
	free(code.bytes);
	line_table__free(&code.lines);
	if (err)
		annotation__free(out);
	return err;
}

void annotate_request__free(struct annotate_request *req)
{
	free(req->function);
	free((char *)req->module.path);
	free(req->sites);
	*req = (struct annotate_request){ 0 };
}

void annotate_cache__free(struct annotate_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < ANNOTATE_FILES; i++)
		code_file__free(c->files[i]);
	ksyms__free(c->kernel.ksyms);
	if (c->kernel.kcore)
		elf_end(c->kernel.kcore);
	if (c->kernel.kcore_fd >= 0)
		close(c->kernel.kcore_fd);
	free(c);
}
