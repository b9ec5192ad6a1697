/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interp: a CPython interpreter found in a process's mappings: a file named
 * python3.X with the interpreter linked in (as Debian builds it) or
 * libpython3.X.so... (as pyenv's --enable-shared builds do), its version,
 * and where its _PyRuntime (and Py_Version, 3.11+) lie in the process.
 */
#ifndef FLAMETOP_PY_INTERP_H
#define FLAMETOP_PY_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elffile.h"
#include "symbols/procmaps.h"

/* The lowest and highest minor versions of Python 3 flametop walks. */
#define PY_MINOR_FIRST 10
#define PY_MINOR_LAST 13

struct py_interp {
	const struct proc_map *map; /* the interpreter's first mapping (borrowed from the maps) */
	uint32_t version;  /* major << 8 | minor, from the file's name: 0x030b */
	bool shared;       /* libpython3.X.so (else the python3.X executable) */
	bool abi_flags;    /* a debug ("3.11d") or free-threaded ("3.13t") build's name */
	uint64_t runtime;  /* the address of _PyRuntime in the process; 0: not found */
	uint64_t hexversion_addr; /* the address of Py_Version (3.11+); 0: none */
	uint64_t code_count_addr; /* ... of _Py_next_func_version (3.12, .symtab only); 0: none */
	uint64_t code_free_off;   /* the file offset of code_dealloc(), for a probe; 0: none */
};

/*
 * py_interp__version_of() reads the version a file's base name @name says:
 * "python3.11" or "libpython3.11.so..." gives 0x030b; so do a debug or a
 * free-threaded build's "python3.11d", "libpython3.13t.so..." (and set
 * *@abi_flags, else cleared). Returns it, or 0 when the name is not an
 * interpreter's (a python3.11-config script, "python3").
 */
uint32_t py_interp__version_of(const char *name, bool *abi_flags);

/*
 * py_interp__find() looks through the executable mappings of @maps
 * (process @tgid's) for an interpreter's file: a libpython3.X one when
 * there is, else a python3.X executable. Fills @out's map, version and
 * shared, and returns 0, or -ENOENT when the process maps none.
 */
int py_interp__find(const struct proc_maps *maps, struct py_interp *out);

struct py_interp_cache;

/*
 * py_interp_cache__new() makes an empty cache of what interpreters' files
 * say (their symbols, their segments), kept by the identity of the file
 * opened for a process (device, inode, size, ctime and mtime, as fstat()
 * gives them): never by a name or a build-id that any user can forge. NULL
 * when out of memory. py_interp_cache__free(NULL) is a no-op.
 */
struct py_interp_cache *py_interp_cache__new(void);
void py_interp_cache__free(struct py_interp_cache *c);

/* How many files py_interp__locate() read with @c (the others it found kept). */
uint64_t py_interp_cache__reads(const struct py_interp_cache *c);

/*
 * py_interp__locate() opens the interpreter's file as process @tgid sees
 * it (mapped_file__open(), under @proc_root: with the process's rights,
 * whatever @c keeps) and finds its _PyRuntime,
 * Py_Version and _Py_next_func_version symbols (.dynsym, else .symtab:
 * the last is in a file's .symtab only, where it was not stripped), placed
 * in the process by the load bias its mappings in @maps give, and the
 * file offset of the function that frees code objects (the code type's
 * tp_dealloc, from the file's own data and relocations; checked against
 * .symtab's code_dealloc where there is one). What the file says is read
 * once and kept in @c (NULL: read each time). Returns 0 with out->runtime
 * set, -ENOENT when the file cannot be opened or has no _PyRuntime, or
 * -ENOEXEC when it is not ELF.
 */
int py_interp__locate(struct py_interp_cache *c, const char *proc_root, uint32_t tgid,
		      const struct proc_maps *maps, struct py_interp *out);

/*
 * py_interp__read_file() is py_interp__locate()'s reading of the open file
 * @f (any bytes: a file the process chose), its lowest mapping @first:
 * fills @out's addresses and offset the same way and returns 0, or -ENOENT.
 */
int py_interp__read_file(const struct elf_file *f, const struct proc_map *first,
			 struct py_interp *out);

#endif
