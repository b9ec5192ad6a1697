/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elffile: one ELF image, on disk or in memory, opened with libelf, and
 * what flametop reads from it besides symbols: its build-id, its
 * .gnu_debuglink, its sections by name. The image is untrusted: every
 * offset and size in it is checked before use.
 */
#ifndef FLAMETOP_ELFFILE_H
#define FLAMETOP_ELFFILE_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest build-id kept (SHA-1 ones are 20 bytes; some linkers make 32). */
#define BUILD_ID_MAX 64

struct elf_file;

/*
 * elf_file__open_fd() opens the ELF file on @fd, which it closes at
 * elf_file__close() when @own_fd is true (and on failure), else borrows: it
 * must then stay open until elf_file__close(). Returns NULL with errno set
 * when the file is not ELF.
 */
struct elf_file *elf_file__open_fd(int fd, bool own_fd);

/*
 * elf_file__open_image() opens the ELF image of @len bytes at @image, a
 * malloc()ed buffer it owns from then on (it is freed on failure too).
 * Returns NULL with errno set when the image is not ELF.
 */
struct elf_file *elf_file__open_image(void *image, size_t len);

/*
 * elf_file__build_id() copies the GNU build-id note (from a note section)
 * into @id (capacity @size) and returns its length, or 0 when there is none
 * or it does not fit.
 */
size_t elf_file__build_id(const struct elf_file *f, uint8_t *id, size_t size);

/*
 * elf_file__debuglink() reads the .gnu_debuglink section: the debug file's
 * name into @name (capacity @size, NUL-terminated) and its CRC-32 into
 * *@crc. Returns 0, or -ENOENT when there is none or it is malformed or the
 * name does not fit.
 */
int elf_file__debuglink(const struct elf_file *f, char *name, size_t size, uint32_t *crc);

/*
 * elf_file__section() points *@data at the bytes of the section named
 * @name (valid until elf_file__close()) and sets *@len. Returns 0, or
 * -ENOENT when there is no such section with contents.
 */
int elf_file__section(const struct elf_file *f, const char *name, const void **data, size_t *len);

/*
 * elf_file__find() returns the first section with contents of type @type
 * (SHT_NULL: any) named @name (NULL: any name), or NULL.
 */
Elf_Scn *elf_file__find(const struct elf_file *f, const char *name, GElf_Word type);

/* True when the file has a .symtab with contents (it is not stripped). */
bool elf_file__has_symtab(const struct elf_file *f);

/*
 * The file's size in bytes (its image's, for elf_file__open_image()); 0
 * when it can't be had. Unlike elf_rawfile(), reads nothing.
 */
uint64_t elf_file__size(const struct elf_file *f);

/* The libelf handle, for readers of the same image (elfsyms). */
Elf *elf_file__elf(const struct elf_file *f);

/* elf_file__close(NULL) is a no-op. */
void elf_file__close(struct elf_file *f);

#endif
