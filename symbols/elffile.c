// SPDX-License-Identifier: GPL-2.0
/*
 * elffile: libelf with ELF_C_READ reads sections lazily with pread() (no
 * mmap: a file truncated under us must not raise SIGBUS) and checks section
 * extents against the file size.
 */
#include "symbols/elffile.h"

#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf_file {
	Elf *elf;
	int fd;	     /* closed on close when >= 0 */
	void *image; /* freed on close */
	uint64_t size;
};

static struct elf_file *elf_file__wrap(Elf *e, int fd, void *image, uint64_t size)
{
	struct elf_file *f;
	int err = ENOEXEC;

	if (e && elf_kind(e) == ELF_K_ELF) {
		f = calloc(1, sizeof(*f));
		if (f) {
			f->elf = e;
			f->fd = fd;
			f->image = image;
			f->size = size;
			return f;
		}
		err = ENOMEM;
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(image);
	errno = err;
	return NULL;
}

struct elf_file *elf_file__open_fd(int fd, bool own_fd)
{
	Elf *e = elf_version(EV_CURRENT) == EV_NONE ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	struct stat st;

	return elf_file__wrap(e, own_fd ? fd : -1, NULL,
			      fd >= 0 && !fstat(fd, &st) && st.st_size > 0 ? (uint64_t)st.st_size : 0);
}

struct elf_file *elf_file__open_image(void *image, size_t len)
{
	Elf *e = elf_version(EV_CURRENT) == EV_NONE ? NULL : elf_memory(image, len);

	return elf_file__wrap(e, -1, image, len);
}

uint64_t elf_file__size(const struct elf_file *f)
{
	return f->size;
}

Elf_Scn *elf_file__find(const struct elf_file *f, const char *name, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (name && elf_getshdrstrndx(f->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (type != SHT_NULL && sh.sh_type != type)
			continue;
		if (!name)
			return scn;
		n = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Looks for a GNU build-id note in @data; returns its length in @id or 0. */
static size_t build_id_in_notes(Elf_Data *data, uint8_t *id, size_t size)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			if (!nh.n_descsz || nh.n_descsz > size)
				return 0;
			memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

size_t elf_file__build_id(const struct elf_file *f, uint8_t *id, size_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t len;

	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		len = build_id_in_notes(elf_getdata(scn, NULL), id, size);
		if (len)
			return len;
	}
	return 0;
}

int elf_file__section(const struct elf_file *f, const char *name, const void **data, size_t *len)
{
	Elf_Scn *scn = elf_file__find(f, name, SHT_NULL);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	*data = d->d_buf;
	*len = d->d_size;
	return 0;
}

/* The section's CRC-32 is stored in the file's byte order. */
static uint32_t elf_file__u32(const struct elf_file *f, const unsigned char *p)
{
	const char *ident = elf_getident(f->elf, NULL);
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	if (ident && ident[EI_DATA] == (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2MSB : ELFDATA2LSB))
		v = bswap_32(v);
	return v;
}

int elf_file__debuglink(const struct elf_file *f, char *name, size_t size, uint32_t *crc)
{
	const unsigned char *p;
	size_t len, n, crc_off;
	const void *data;

	if (elf_file__section(f, ".gnu_debuglink", &data, &len))
		return -ENOENT;
	p = data;
	n = strnlen((const char *)p, len);
	crc_off = (n + 4) & ~(size_t)3; /* the name, its NUL, padding to 4 bytes */
	if (!n || n == len || crc_off + 4 > len || n >= size)
		return -ENOENT;
	memcpy(name, p, n + 1);
	*crc = elf_file__u32(f, p + crc_off);
	return 0;
}

bool elf_file__has_symtab(const struct elf_file *f)
{
	return elf_file__find(f, NULL, SHT_SYMTAB) != NULL;
}

Elf *elf_file__elf(const struct elf_file *f)
{
	return f->elf;
}

void elf_file__close(struct elf_file *f)
{
	if (!f)
		return;
	elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	free(f);
}
