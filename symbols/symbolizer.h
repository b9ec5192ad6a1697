/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbolizer: the one entry point that turns a captured address into the
 * name a user reads. It owns the kernel table, a snapshot of each process's
 * maps (taken when the process is first seen) and a cache of ELF symbol
 * tables shared between processes by file identity (device, inode).
 *
 * It never prints; errors come back as return values.
 */
#ifndef FLAMETOP_SYMBOLIZER_H
#define FLAMETOP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer_opts {
	const char *kallsyms_path; /* NULL: /proc/kallsyms */
	const char *modules_path;  /* NULL: /proc/modules */
	const char *proc_root;     /* NULL: /proc */
	bool raw_names;            /* keep C++ and Rust names mangled (--no-demangle) */
};

/* What a lookup could say about an address. */
enum sym_status {
	SYM_NAMED,       /* buf holds a function name */
	SYM_MODULE_OFF,  /* buf holds "module+0xoffset": the file is known, the function is not */
	SYM_UNKNOWN,     /* buf holds "[unknown]" or a label such as "[anon]" */
};

struct symbolizer;

/*
 * symbolizer__new() loads the kernel symbol table; @opts may be NULL for all
 * defaults. Returns NULL with errno set on failure (an unreadable kallsyms
 * file, or one without a single text symbol).
 */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);

/*
 * symbolizer__kernel() names kernel address @ip. When @is_return is true @ip
 * is a return address and is looked up at ip - 1, so that a call ending a
 * function is not given to the next one. Writes a sanitized, NUL-terminated
 * name into @buf (@size >= 32; a smaller buffer gets a shortened name ending
 * in "..") and returns an enum sym_status, or -EINVAL when @buf is NULL or
 * @size is 0. A symbol in a module is written "func [module]" (BPF programs:
 * "bpf_prog_<tag>_<name> [bpf]"); an address no symbol covers, or any address
 * when kernel addresses are hidden, is "[unknown]".
 */
int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, char *buf, size_t size);

/*
 * symbolizer__user() names address @ip in process @tgid, as above. The
 * process's maps are read the first time @tgid is seen, and read again at
 * most once per pass (see symbolizer__begin_pass()) when @ip falls outside
 * every known mapping; a failed re-read keeps the old snapshot. Unnamed
 * frames in a file become "file+0xoffset" (SYM_MODULE_OFF), where file is
 * the base name of the mapped path and offset is the file offset of @ip. An
 * executable anonymous mapping is "[anon]", the vDSO "[vdso]", the vsyscall
 * page "[vsyscall]", and anything else, including a process whose maps
 * cannot be read, "[unknown]" (SYM_UNKNOWN). Returns -ENOMEM when memory
 * for the process runs out (@buf then holds "[unknown]").
 */
int symbolizer__user(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return, char *buf,
		     size_t size);

/* True when kernel addresses are hidden from this reader (kptr_restrict). */
bool symbolizer__kernel_hidden(const struct symbolizer *s);

/* Starts a new pass (one drain): allows one more maps re-read per process. */
void symbolizer__begin_pass(struct symbolizer *s);

/* What the caches hold, for tests and benchmarks. */
struct symbolizer_stats {
	size_t processes;    /* processes with a maps snapshot (or a failed read) */
	size_t elf_files;    /* ELF cache entries, files that are not ELF included */
	size_t elf_tables;   /* of those, the ones holding a symbol table */
	size_t elf_bytes;    /* heap bytes held by those tables */
	uint64_t maps_reads; /* maps files read so far, first reads and re-reads */
};

/* symbolizer__stats() fills @st with the current state of @s. */
void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st);

/* symbolizer__free(NULL) is a no-op. */
void symbolizer__free(struct symbolizer *s);

#endif
