// SPDX-License-Identifier: GPL-2.0
/*
 * elf_cache: one id_table of entries and two LRU lists. An entry is either
 * held (its file open, not read yet: on `held`) or read (its table, or
 * NULL for a file that is not ELF or could not be opened: on `tables`,
 * counted in bytes so that negative entries are bounded too).
 */
#include "symbols/elf_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/debuginfo.h"
#include "symbols/elffile.h"
#include "symbols/id_table.h"
#include "symbols/lru.h"
#include "symbols/mapped_file.h"
#include "symbols/rootfs.h"

#define VDSO_KEY UINT64_MAX /* key[0] of vDSO images: no device has this number */
#define VDSO_MAX_BYTES (1UL << 20)

struct elf_entry {
	struct id_node node;	/* {dev, inode}, or {VDSO_KEY, size << 32 | crc32} */
	struct lru_node lru;	/* on tables once read, on held while held */
	struct elf_symtab *tab; /* once read; NULL when the file gave none */
	int fd;			/* >= 0 while held */
	uint32_t tgid;		/* while held: the process that maps it ... */
	char *path;		/* ... and the path it maps it at */
	uint64_t held_pass;
	bool unopened;	     /* read, but its file could not be opened ... */
	uint64_t tried_pass; /* ... in this pass: another may succeed */
};

struct elf_cache {
	char *proc_root, *debug_root;
	size_t max_bytes, max_files;
	struct id_table entries;
	struct lru tables, held;
	size_t n_tables;
	uint64_t no_fds; /* opens that failed for want of file descriptors */
	const void *own_vdso; /* flametop's own vDSO image, once looked for */
	size_t own_vdso_len;
	bool own_vdso_known;
};

struct elf_cache *elf_cache__new(const struct elf_cache_opts *o)
{
	struct elf_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->proc_root = strdup(o->proc_root);
	c->debug_root = strdup(o->debug_root);
	if (!c->proc_root || !c->debug_root) {
		elf_cache__free(c);
		return NULL;
	}
	c->max_bytes = o->max_bytes;
	c->max_files = o->max_files;
	lru__init(&c->tables);
	lru__init(&c->held);
	return c;
}

static struct elf_entry *elf_entry__of(struct lru_node *node)
{
	return lru_entry(node, struct elf_entry, lru);
}

static void elf_entry__drop_hold(struct elf_entry *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	free(e->path);
	e->path = NULL;
}

/* Releases @e, which is on one of the lists or none. */
static void elf_cache__release(struct elf_cache *c, struct elf_entry *e)
{
	lru__remove(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
	id_table__remove(&c->entries, &e->node);
	if (e->tab)
		c->n_tables--;
	elf_entry__drop_hold(e);
	elf_symtab__free(e->tab);
	free(e);
}

/* A new entry for key {@k0, @k1}, in the table but on no list; NULL when out of memory. */
static struct elf_entry *elf_cache__insert(struct elf_cache *c, uint64_t k0, uint64_t k1)
{
	struct elf_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->node.key[0] = k0;
	e->node.key[1] = k1;
	e->fd = -1;
	if (id_table__insert(&c->entries, &e->node)) {
		free(e);
		return NULL;
	}
	return e;
}

/* Drops the least recently used tables until the budget holds, never @keep. */
static void elf_cache__evict(struct elf_cache *c, const struct elf_entry *keep)
{
	struct lru_node *old;

	while (c->tables.bytes > c->max_bytes && (old = lru__oldest(&c->tables)) != NULL &&
	       old != &keep->lru)
		elf_cache__release(c, elf_entry__of(old));
}

/* Gives @e, on no list, its table @tab (NULL: none) and makes room for it. */
static const struct elf_symtab *elf_cache__set_table(struct elf_cache *c, struct elf_entry *e,
						     struct elf_symtab *tab)
{
	e->tab = tab;
	if (tab)
		c->n_tables++;
	lru__add(&c->tables, &e->lru, sizeof(*e) + (tab ? elf_symtab__bytes(tab) : 0));
	elf_cache__evict(c, e);
	return tab;
}

/*
 * Reads the table of the binary open on @fd, which process @tgid maps at
 * @path: its own symbols, and those of its debug file when it is stripped.
 */
static struct elf_symtab *elf_cache__read(const struct elf_cache *c, int fd, uint32_t tgid,
					  const char *path)
{
	struct debug_search ds = {.root_fd = -1, .debug_root = c->debug_root, .path = path};
	struct elf_file *bin = elf_file__open_fd(fd, false), *debug = NULL;
	struct elf_symtab *tab;

	if (!bin)
		return NULL;
	if (!elf_file__has_symtab(bin)) {
		ds.root_fd = rootfs__open_root(c->proc_root, tgid);
		debug = debuginfo__find(bin, &ds);
		if (ds.root_fd >= 0)
			close(ds.root_fd);
	}
	tab = elf_symtab__build(bin, debug);
	elf_file__close(debug);
	elf_file__close(bin);
	return tab;
}

static uint64_t file_key(const struct proc_map *m)
{
	return makedev(m->dev_major, m->dev_minor);
}

/* True when @e gave no table because its file could not be opened, and that was not in @pass. */
static bool elf_entry__retry(const struct elf_entry *e, uint64_t pass)
{
	return e->fd < 0 && e->unopened && e->tried_pass != pass;
}

/* mapped_file__open(), counting a failure for want of file descriptors. */
static int elf_cache__open(struct elf_cache *c, uint32_t tgid, const struct proc_map *m)
{
	int fd = mapped_file__open(c->proc_root, tgid, m);

	c->no_fds += fd == -EMFILE;
	return fd;
}

int elf_cache__hold(struct elf_cache *c, uint32_t tgid, const struct proc_map *m, uint64_t pass)
{
	struct elf_entry *e =
	    (struct elf_entry *)id_table__find(&c->entries, file_key(m), m->inode);
	struct lru_node *old;
	int fd;

	if (e && !(e->fd < 0 && e->unopened)) {
		lru__touch(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
		return 0;
	}
	if (!c->max_files)
		return -EMFILE;
	fd = elf_cache__open(c, tgid, m);
	if (fd < 0)
		return fd;
	if (e) /* could not be opened before: it can now */
		elf_cache__release(c, e);
	e = elf_cache__insert(c, file_key(m), m->inode);
	if (e)
		e->path = strdup(m->path);
	if (!e || !e->path) {
		close(fd);
		if (e)
			elf_cache__release(c, e);
		return -ENOMEM;
	}
	e->fd = fd;
	e->tgid = tgid;
	e->held_pass = pass;
	lru__add(&c->held, &e->lru, 0);
	while (c->held.n > c->max_files && (old = lru__oldest(&c->held)) != NULL)
		elf_cache__release(c, elf_entry__of(old));
	return 0;
}

/*
 * Reads the table of @e, on no list: from the file it holds, else from the
 * file of mapping @m of @tgid, opened now.
 */
static const struct elf_symtab *elf_cache__load(struct elf_cache *c, struct elf_entry *e,
						uint32_t tgid, const struct proc_map *m,
						uint64_t pass)
{
	struct elf_symtab *tab = NULL;
	int fd = e->fd;

	if (fd >= 0) {
		tab = elf_cache__read(c, fd, e->tgid, e->path);
		elf_entry__drop_hold(e);
	} else if ((fd = elf_cache__open(c, tgid, m)) >= 0) {
		tab = elf_cache__read(c, fd, tgid, m->path);
		close(fd);
	}
	e->unopened = fd < 0;
	e->tried_pass = pass;
	return elf_cache__set_table(c, e, tab);
}

const struct elf_symtab *elf_cache__table(struct elf_cache *c, uint32_t tgid,
					  const struct proc_map *m, uint64_t pass)
{
	struct elf_entry *e =
	    (struct elf_entry *)id_table__find(&c->entries, file_key(m), m->inode);

	if (e && e->fd < 0 && !elf_entry__retry(e, pass)) {
		lru__touch(&c->tables, &e->lru);
		return e->tab;
	}
	if (e)
		lru__remove(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
	else if (!(e = elf_cache__insert(c, file_key(m), m->inode)))
		return NULL;
	return elf_cache__load(c, e, tgid, m, pass);
}

/*
 * Copies the vDSO image of mapping @m of @tgid into a new buffer: from the
 * process's memory, else flametop's own when it is the same size. Returns 0
 * and the image, or -errno.
 */
static int elf_cache__vdso_image(struct elf_cache *c, uint32_t tgid, const struct proc_map *m,
				 void **image, size_t *len)
{
	size_t size = m->end - m->start;
	char path[PATH_MAX];
	ssize_t n = -1;
	int fd;

	if (size > VDSO_MAX_BYTES || m->start > INT64_MAX)
		return -EFBIG;
	*image = malloc(size);
	if (!*image)
		return -ENOMEM;
	*len = size;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/mem", c->proc_root, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, *image, size, (off_t)m->start);
		close(fd);
	}
	if (n == (ssize_t)size)
		return 0;
	if (!c->own_vdso_known) {
		c->own_vdso_known = true;
		if (mapped_file__own_vdso(&c->own_vdso, &c->own_vdso_len))
			c->own_vdso = NULL;
	}
	if (c->own_vdso && c->own_vdso_len == size) {
		memcpy(*image, c->own_vdso, size);
		return 0;
	}
	free(*image);
	return -ENOENT;
}

/* Adds vDSO image @image (taken) under @key. Returns the entry, or NULL when out of memory. */
static struct elf_entry *elf_cache__add_image(struct elf_cache *c, uint64_t key, void *image,
					      size_t len)
{
	struct elf_file *f = elf_file__open_image(image, len);
	struct elf_entry *e = elf_cache__insert(c, VDSO_KEY, key);

	if (e)
		elf_cache__set_table(c, e, f ? elf_symtab__build(f, NULL) : NULL);
	elf_file__close(f);
	return e;
}

const struct elf_symtab *elf_cache__vdso(struct elf_cache *c, uint32_t tgid,
					 const struct proc_map *m, uint64_t *key)
{
	struct elf_entry *e = NULL;
	void *image;
	size_t len;

	if (*key)
		e = (struct elf_entry *)id_table__find(&c->entries, VDSO_KEY, *key);
	if (!e && !elf_cache__vdso_image(c, tgid, m, &image, &len)) {
		*key = (uint64_t)len << 32 | crc32(crc32(0L, Z_NULL, 0), image, (uInt)len);
		e = (struct elf_entry *)id_table__find(&c->entries, VDSO_KEY, *key);
		if (e)
			free(image);
		else
			e = elf_cache__add_image(c, *key, image, len);
	}
	if (!e)
		return NULL;
	lru__touch(&c->tables, &e->lru);
	return e->tab;
}

void elf_cache__expire(struct elf_cache *c, uint64_t pass, uint64_t grace)
{
	struct lru_node *old;

	while ((old = lru__oldest(&c->held)) != NULL &&
	       elf_entry__of(old)->held_pass + grace < pass)
		elf_cache__release(c, elf_entry__of(old));
}

void elf_cache__stats(const struct elf_cache *c, struct elf_cache_stats *st)
{
	st->files = c->entries.n;
	st->tables = c->n_tables;
	st->bytes = c->tables.bytes;
	st->held_files = c->held.n;
	st->no_fds = c->no_fds;
}

static void elf_entry__release_node(struct id_node *node)
{
	struct elf_entry *e = (struct elf_entry *)node;

	elf_entry__drop_hold(e);
	elf_symtab__free(e->tab);
	free(e);
}

void elf_cache__free(struct elf_cache *c)
{
	if (!c)
		return;
	id_table__clear(&c->entries, elf_entry__release_node, false);
	free(c->proc_root);
	free(c->debug_root);
	free(c);
}
