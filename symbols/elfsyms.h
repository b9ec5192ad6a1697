/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfsyms: the function symbols of one ELF file, and its PT_LOAD segments.
 */
#ifndef FLAMETOP_ELFSYMS_H
#define FLAMETOP_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

struct elf_symtab;
struct elf_file;

/*
 * elf_symtab__build() makes the table of a binary: the PT_LOAD segments of
 * @image, and the function symbols (STT_FUNC and STT_GNU_IFUNC) of @image's
 * .symtab (of its .dynsym when it has no .symtab, or one without functions)
 * and of the .symtab of @debug, its separate debug file (NULL when there is
 * none), chosen among as described at elf_symtab__lookup(); and, in an
 * x86-64 @image, its PLT entries (.plt, .plt.sec, .plt.got) named
 * "strlen@plt" as perf names them, from the GOT slot each one jumps through
 * and the relocation that fills it (an IRELATIVE one by the ifunc it
 * resolves). The files are
 * not kept. Returns NULL with errno set when out of memory. A file with no
 * symbols is not an error: lookups in it simply find nothing.
 */
struct elf_symtab *elf_symtab__build(const struct elf_file *image, const struct elf_file *debug);

/*
 * elf_symtab__open_fd() is elf_symtab__build() of the ELF file open on @fd
 * alone. The fd is not kept. Returns NULL with errno set when the file is
 * not a readable ELF file.
 */
struct elf_symtab *elf_symtab__open_fd(int fd);

/*
 * elf_symtab__file_to_vaddr() translates a file offset into the ELF virtual
 * address it is loaded at: the PT_LOAD segment whose
 * [p_offset, p_offset + p_filesz) contains @off gives
 * vaddr = off - p_offset + p_vaddr. Returns 0, or -ENOENT when no segment
 * contains @off.
 */
int elf_symtab__file_to_vaddr(const struct elf_symtab *t, uint64_t off, uint64_t *vaddr);

/*
 * elf_symtab__lookup() returns the raw (unsanitized, undemangled) name of the
 * function containing @vaddr and sets *@sym_off to vaddr - symbol start, or
 * returns NULL when no function may be given to it. A sized symbol contains
 * [value, value + size); a zero-size .symtab symbol reaches to the next
 * symbol, within its section; a zero-size .dynsym symbol matches only its
 * exact address. When several symbols share an address the name a
 * programmer wrote wins, else perf's choice: a sized one beats a zero-size
 * one; a compatibility version ("cfree@GLIBC_2.2.5", or a hidden .dynsym
 * version) loses; global and weak beat local; an internal "__name" loses to
 * "name"; global beats weak; fewer leading underscores win, then the
 * shorter name (lseek, not lseek64). A default version is named without
 * its "@@VER". The string lives until elf_symtab__free().
 */
const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *sym_off);

/*
 * elf_symtab__build_id() returns the GNU build-id of the image the table was
 * built from, *@len bytes (0 when it has none).
 */
const uint8_t *elf_symtab__build_id(const struct elf_symtab *t, size_t *len);

/* Number of function symbols kept. */
size_t elf_symtab__count(const struct elf_symtab *t);

/* Approximate heap bytes held, for cache accounting. */
size_t elf_symtab__bytes(const struct elf_symtab *t);

/* elf_symtab__free(NULL) is a no-op. */
void elf_symtab__free(struct elf_symtab *t);

#endif
