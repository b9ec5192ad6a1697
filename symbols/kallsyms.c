// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms: kernel addresses to names.
 *
 * Loading collects text symbols into a growable array (names in one string
 * arena), sorts it, keeps one symbol per address and gives every symbol an
 * end. A lookup is then a binary search over a plain array of start
 * addresses and one comparison against that symbol's end. The search goes
 * through a small index first (every KSYM_INDEX_STRIDE-th start, which
 * stays in cache), then within one stride of the big array.
 */
#include "symbols/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "symbols/addr_search.h"
#include "symbols/addr_sort.h"
#include "symbols/sanitize.h"
#include "symbols/text_line.h"

/* Longest kallsyms or modules line accepted (KSYM_NAME_LEN is 512). */
#define KSYM_LINE_MAX 2048
#define KALLSYMS_BLOCK (256u << 10) /* bytes read at once: /proc/kallsyms is ~4 MiB */

/*
 * How far past its start the last symbol of a module, or a BPF program, may
 * reach when nothing else bounds it (no /proc/modules, no following symbol
 * of the same module).
 */
#define KSYM_TAIL_CAP (128 * 1024)

/* Starts per index entry: 32 x 8 bytes, four cache lines of the big array. */
#define KSYM_INDEX_STRIDE 32

/* Preference among symbols at one address; lower wins. */
enum ksym_rank {
	KSYM_MARKER, /* _etext, _einittext: the end of a text range, names nothing */
	KSYM_GLOBAL,
	KSYM_WEAK,
	KSYM_LOCAL,
};

/* A symbol while loading: names are offsets into the arena, which may move. */
struct ksym_entry {
	uint64_t addr;
	uint32_t name;
	uint32_t module; /* 0: core kernel, else index + 1 into the module table */
	uint8_t rank;	 /* enum ksym_rank */
	bool padding;	 /* a __pfx_ or __cfi_ entry: the padding before its function */
};

struct ksym_module {
	uint32_t name;	     /* arena offset */
	uint64_t start, end; /* from /proc/modules; end == 0 when unknown */
};

struct ksym_loader {
	char *arena;
	size_t arena_len, arena_cap;
	struct ksym_entry *entries;
	size_t n, cap;
	struct ksym_module *modules;
	size_t n_modules, modules_cap;
	uint32_t bpf_module; /* module index + 1 of "bpf", 0 before it is seen */
	uint32_t last_module;
	size_t lines;	   /* lines whose address and type parse (and name, for a text symbol) */
	bool nonzero_seen; /* some well-formed line had a non-zero address */
	uint64_t sched_text[2]; /* __sched_text_start and __sched_text_end, 0 when not seen */
};

/*
 * Symbol i starts at starts[i] and covers sizes[i] bytes; its name is at
 * arena + names[i], its module's at arena + module_names[modules[i] - 1]
 * (modules[i] == 0: the core kernel). A whole kernel's 120,000 symbols
 * take about 18 bytes each beside their names.
 */
struct ksyms {
	uint64_t *starts; /* sorted */
	uint32_t *sizes;
	uint32_t *names;
	uint16_t *modules;
	uint32_t *module_names;
	uint64_t *index; /* index[j] == starts[j * KSYM_INDEX_STRIDE] */
	size_t n_index;
	size_t n;
	char *arena;
	bool hidden;
	uint64_t sched_text[2]; /* the scheduler's text: [start, end), or 0s */
};

/* A kallsyms line, split in place. */
struct ksym_line {
	uint64_t addr;
	char type;
	const char *name;
	size_t name_len;
	const char *module; /* NULL when the line has no "\t[module]" */
	size_t module_len;
};

/* Splits "addr type " off the front of a line. Returns -EINVAL when it is malformed. */
static int ksym_line__parse_head(const char *s, struct ksym_line *l)
{
	if (text_line__parse_u64(&s, 16, &l->addr) || s[0] != ' ' || !s[1] || s[1] == ' ' ||
	    s[2] != ' ')
		return -EINVAL;
	l->type = s[1];
	l->name = s + 3;
	return 0;
}

/* Splits the "name[\t[module]]" that follows the head. Returns -EINVAL when it is malformed. */
static int ksym_line__parse_name(struct ksym_line *l)
{
	const char *tab, *end;

	end = l->name + strlen(l->name);
	tab = strchr(l->name, '\t');
	l->name_len = (size_t)((tab ? tab : end) - l->name);
	l->module = NULL;
	l->module_len = 0;
	if (!l->name_len || memchr(l->name, ' ', l->name_len))
		return -EINVAL;
	if (!tab)
		return 0;
	if (tab[1] != '[' || end - tab < 4 || end[-1] != ']')
		return -EINVAL;
	l->module = tab + 2;
	l->module_len = (size_t)(end - 1 - l->module);
	if (memchr(l->module, '[', l->module_len) || memchr(l->module, ']', l->module_len))
		return -EINVAL;
	return 0;
}

static int ksym_rank__of(char type)
{
	switch (type) {
	case 'T':
		return KSYM_GLOBAL;
	case 'W':
	case 'w':
		return KSYM_WEAK;
	case 't':
		return KSYM_LOCAL;
	default:
		return -1;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Sanitizes @len bytes of @s into the arena; returns 0 and its offset, or -ENOMEM. */
static int ksym_loader__add_string(struct ksym_loader *ld, const char *s, size_t len, uint32_t *off)
{
	char clean[NAME_MAX_BYTES + 1];
	size_t n = sanitize_name(clean, sizeof(clean), s, len);

	/* Offsets into the arena are uint32_t. */
	if (array__grow_max((void **)&ld->arena, &ld->arena_cap, ld->arena_len + n + 1, 1, 1 << 16,
			    UINT32_MAX))
		return -ENOMEM;
	memcpy(ld->arena + ld->arena_len, clean, n + 1);
	*off = (uint32_t)ld->arena_len;
	ld->arena_len += n + 1;
	return 0;
}

/* Finds or adds module @name; stores its index + 1 in *@id. Returns 0 or -ENOMEM. */
static int ksym_loader__module(struct ksym_loader *ld, const char *name, size_t len, uint32_t *id)
{
	char clean[NAME_MAX_BYTES + 1];
	struct ksym_module *m;
	size_t i;

	sanitize_name(clean, sizeof(clean), name, len);
	if (ld->last_module && !strcmp(ld->arena + ld->modules[ld->last_module - 1].name, clean)) {
		*id = ld->last_module;
		return 0;
	}
	for (i = 0; i < ld->n_modules; i++) {
		if (!strcmp(ld->arena + ld->modules[i].name, clean)) {
			*id = ld->last_module = (uint32_t)(i + 1);
			return 0;
		}
	}
	if (array__grow((void **)&ld->modules, &ld->modules_cap, ld->n_modules + 1,
			sizeof(*ld->modules), 64))
		return -ENOMEM;
	m = &ld->modules[ld->n_modules];
	memset(m, 0, sizeof(*m));
	if (ksym_loader__add_string(ld, clean, strlen(clean), &m->name))
		return -ENOMEM;
	*id = ld->last_module = (uint32_t)++ld->n_modules;
	if (!strcmp(clean, "bpf"))
		ld->bpf_module = *id;
	return 0;
}

static int ksym_loader__push(struct ksym_loader *ld, const struct ksym_entry *e)
{
	if (array__grow((void **)&ld->entries, &ld->cap, ld->n + 1, sizeof(*ld->entries), 4096))
		return -ENOMEM;
	ld->entries[ld->n++] = *e;
	return 0;
}

static bool ksym_line__is_marker(const struct ksym_line *l)
{
	static const char *const markers[] = {"_etext", "_einittext"};
	size_t i;

	if (l->module)
		return false;
	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		if (l->name_len == strlen(markers[i]) && !memcmp(l->name, markers[i], l->name_len))
			return true;
	}
	return false;
}

/* Notes where the scheduler's text (.sched.text) starts or ends, when @l says. */
static void ksym_loader__note_sched_text(struct ksym_loader *ld, const struct ksym_line *l)
{
	static const char *const bounds[] = { "__sched_text_start", "__sched_text_end" };

	for (size_t i = 0; i < 2 && !l->module; i++)
		if (l->name_len == strlen(bounds[i]) && !memcmp(l->name, bounds[i], l->name_len))
			ld->sched_text[i] = l->addr;
}

/* Drops a "__pfx_" or "__cfi_" padding prefix from the name of @l; true when it had one. */
static bool ksym_line__strip_padding(struct ksym_line *l)
{
	static const char *const prefixes[] = {"__pfx_", "__cfi_"};
	size_t i, n;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		n = strlen(prefixes[i]);
		if (l->name_len > n && !memcmp(l->name, prefixes[i], n)) {
			l->name += n;
			l->name_len -= n;
			return true;
		}
	}
	return false;
}

/* Takes one kallsyms line; malformed and non-text lines are ignored. Returns 0 or -ENOMEM. */
static int ksym_loader__line(struct ksym_loader *ld, const char *s)
{
	struct ksym_entry e = {0};
	struct ksym_line l;
	int rank;

	if (ksym_line__parse_head(s, &l))
		return 0;
	rank = ksym_rank__of(l.type);
	if (rank >= 0 && ksym_line__parse_name(&l))
		return 0;
	ld->lines++;
	if (l.addr)
		ld->nonzero_seen = true;
	if (rank < 0 || !l.addr)
		return 0;
	ksym_loader__note_sched_text(ld, &l);
	e.addr = l.addr;
	e.rank = ksym_line__is_marker(&l) ? KSYM_MARKER : (uint8_t)rank;
	e.padding = ksym_line__strip_padding(&l);
	if (l.module && ksym_loader__module(ld, l.module, l.module_len, &e.module))
		return -ENOMEM;
	if (ksym_loader__add_string(ld, l.name, l.name_len, &e.name))
		return -ENOMEM;
	return ksym_loader__push(ld, &e);
}

/* ksym_loader__line() as a text_lines.line. */
static int ksym_loader__take(void *ld, char *line, size_t len)
{
	(void)len;
	return ksym_loader__line(ld, line);
}

static int ksym_loader__read_kallsyms(struct ksym_loader *ld, const char *path)
{
	struct text_lines t = { .block = KALLSYMS_BLOCK, .line_max = KSYM_LINE_MAX,
				.line = ksym_loader__take, .ctx = ld };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = text_lines__read(fd, &t);
	close(fd);
	return err;
}

/*
 * Records the extents of modules listed in a /proc/modules-format file:
 * "name size refcount deps state address ...". Lines that do not parse, and
 * hidden (zero) addresses, are ignored, as is a file that cannot be read.
 */
static int ksym_loader__read_modules(struct ksym_loader *ld, const char *path)
{
	char line[KSYM_LINE_MAX], name[64];
	uint64_t size, addr;
	struct ksym_module *m;
	uint32_t id;
	size_t len;
	int rc;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return 0;
	while ((rc = text_line__read(f, line, sizeof(line), &len)) != 0) {
		if (rc != 1 ||
		    sscanf(line, "%63s %" SCNu64 " %*s %*s %*s %" SCNx64, name, &size, &addr) != 3)
			continue;
		if (!addr || !size || addr + size < addr)
			continue;
		if (ksym_loader__module(ld, name, strlen(name), &id)) {
			fclose(f);
			return -ENOMEM;
		}
		m = &ld->modules[id - 1];
		m->start = addr;
		m->end = addr + size;
	}
	fclose(f);
	return 0;
}

/*
 * Order: address, then the symbol preferred at that address first: a marker,
 * then fewer leading underscores (so "startup_64" beats "_stext" and
 * "_sinittext"), then global before weak before local; names break the
 * remaining ties so that the order is total.
 */
static int ksym_entry__cmp(const void *a, const void *b, void *arena)
{
	const struct ksym_entry *x = a, *y = b;
	const char *nx = (const char *)arena + x->name, *ny = (const char *)arena + y->name;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->rank == KSYM_MARKER) != (y->rank == KSYM_MARKER))
		return x->rank == KSYM_MARKER ? -1 : 1;
	ux = leading_underscores(nx);
	uy = leading_underscores(ny);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(nx, ny);
}

/* Is @e the padding right before @next, its function? */
static bool ksym_entry__pads(const struct ksym_loader *ld, const struct ksym_entry *e,
			     const struct ksym_entry *next)
{
	return e->padding && next->module == e->module && next->rank != KSYM_MARKER &&
	       strcmp(ld->arena + e->name, ld->arena + next->name) == 0;
}

/*
 * Sorts the entries and keeps the preferred one at each address; a
 * function's padding entry is merged into the function, which then starts
 * at its padding (half of a kernel's text symbols are __pfx_ entries).
 */
static void ksym_loader__sort(struct ksym_loader *ld)
{
	size_t i, n;

	ld->n = addr_sort__unique(ld->entries, ld->n, sizeof(*ld->entries),
				  offsetof(struct ksym_entry, addr), ksym_entry__cmp, ld->arena);
	for (i = n = 0; i < ld->n; i++) {
		if (i + 1 < ld->n && ksym_entry__pads(ld, &ld->entries[i], &ld->entries[i + 1])) {
			ld->entries[i + 1].addr = ld->entries[i].addr;
			continue;
		}
		ld->entries[n++] = ld->entries[i];
	}
	ld->n = n;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t cap_end(uint64_t addr)
{
	return addr > UINT64_MAX - KSYM_TAIL_CAP ? UINT64_MAX : addr + KSYM_TAIL_CAP;
}

/*
 * The end of entry @i: the next symbol's start, bounded by its module's end
 * when known; the last symbol of a group, and every BPF program (each one is
 * its own allocation), reach at most KSYM_TAIL_CAP. Markers cover nothing.
 */
static uint64_t ksym_loader__end(const struct ksym_loader *ld, size_t i)
{
	const struct ksym_entry *e = &ld->entries[i];
	const struct ksym_entry *next = i + 1 < ld->n ? &ld->entries[i + 1] : NULL;
	uint64_t end = next ? next->addr : UINT64_MAX;

	if (e->rank == KSYM_MARKER)
		return e->addr;
	if (e->module) {
		const struct ksym_module *m = &ld->modules[e->module - 1];

		if (m->end && e->addr >= m->start && e->addr < m->end)
			return min_u64(end, m->end);
	}
	if (!next || next->module != e->module || (e->module && e->module == ld->bpf_module))
		end = min_u64(end, cap_end(e->addr));
	return end;
}

/* malloc() of @n elements of @size, at least one. */
static void *alloc_n(size_t n, size_t size)
{
	return malloc((n ? n : 1) * size);
}

/*
 * Moves the loaded symbols into @ks. A symbol reaches at most 4 GiB.
 * Returns 0, -ENOMEM, or -E2BIG for more modules than the table can name.
 */
static int ksyms__fill(struct ksyms *ks, struct ksym_loader *ld)
{
	size_t i;

	if (ld->n_modules >= UINT16_MAX)
		return -E2BIG;
	ks->n = ld->n;
	ks->n_index = (ld->n + KSYM_INDEX_STRIDE - 1) / KSYM_INDEX_STRIDE;
	ks->index = alloc_n(ks->n_index, sizeof(*ks->index));
	ks->starts = alloc_n(ld->n, sizeof(*ks->starts));
	ks->sizes = alloc_n(ld->n, sizeof(*ks->sizes));
	ks->names = alloc_n(ld->n, sizeof(*ks->names));
	ks->modules = alloc_n(ld->n, sizeof(*ks->modules));
	ks->module_names = alloc_n(ld->n_modules, sizeof(*ks->module_names));
	if (!ks->index || !ks->starts || !ks->sizes || !ks->names || !ks->modules ||
	    !ks->module_names)
		return -ENOMEM;
	for (i = 0; i < ld->n; i++) {
		const struct ksym_entry *e = &ld->entries[i];
		uint64_t size = ksym_loader__end(ld, i) - e->addr;

		ks->starts[i] = e->addr;
		ks->sizes[i] = size < UINT32_MAX ? (uint32_t)size : UINT32_MAX;
		if (i % KSYM_INDEX_STRIDE == 0)
			ks->index[i / KSYM_INDEX_STRIDE] = e->addr;
		ks->names[i] = e->name;
		ks->modules[i] = (uint16_t)e->module;
	}
	for (i = 0; i < ld->n_modules; i++)
		ks->module_names[i] = ld->modules[i].name;
	ks->arena = ld->arena;
	ld->arena = NULL;
	return 0;
}

static void ksym_loader__release(struct ksym_loader *ld)
{
	free(ld->arena);
	free(ld->entries);
	free(ld->modules);
}

struct ksyms *ksyms__load(const char *kallsyms_path, const char *modules_path)
{
	struct ksym_loader ld = {0};
	struct ksyms *ks = NULL;
	int err;

	err = modules_path ? ksym_loader__read_modules(&ld, modules_path) : 0;
	if (!err)
		err = ksym_loader__read_kallsyms(&ld, kallsyms_path);
	if (!err && !ld.lines)
		err = -ENOENT;
	if (err)
		goto cleanup;
	ksym_loader__sort(&ld);
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		err = -ENOMEM;
		goto cleanup;
	}
	ks->hidden = !ld.nonzero_seen;
	if (ld.sched_text[0] && ld.sched_text[0] < ld.sched_text[1])
		memcpy(ks->sched_text, ld.sched_text, sizeof(ks->sched_text));
	if (!ks->hidden && !ld.n)
		err = -ENOENT;
	if (!err)
		err = ksyms__fill(ks, &ld);
cleanup:
	ksym_loader__release(&ld);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

/* The number of entries of sorted @v[0, @n) at or below @addr. */
static size_t count_at_or_below(const uint64_t *v, size_t n, uint64_t addr)
{
	return addr_search__count(v, n, sizeof(*v), 0, addr);
}

bool ksyms__map_addr(const struct ksyms *ks, uint64_t addr, struct ksym *out)
{
	size_t j = count_at_or_below(ks->index, ks->n_index, addr), base, lo, len;

	/* The candidate is the last start at or below addr: in stride j - 1. */
	if (!j)
		return false;
	base = (j - 1) * KSYM_INDEX_STRIDE;
	len = ks->n - base < KSYM_INDEX_STRIDE ? ks->n - base : KSYM_INDEX_STRIDE;
	lo = base + count_at_or_below(ks->starts + base, len, addr) - 1;
	if (addr - ks->starts[lo] >= ks->sizes[lo])
		return false;
	out->addr = ks->starts[lo];
	out->size = ks->sizes[lo];
	out->name = ks->arena + ks->names[lo];
	out->module = ks->modules[lo] ? ks->arena + ks->module_names[ks->modules[lo] - 1] : NULL;
	return true;
}

bool ksyms__in_sched_text(const struct ksyms *ks, uint64_t addr)
{
	return addr >= ks->sched_text[0] && addr < ks->sched_text[1];
}

bool ksyms__hidden(const struct ksyms *ks)
{
	return ks->hidden;
}

bool ksyms__equal(const struct ksyms *a, const struct ksyms *b)
{
	size_t i;

	if (a->n != b->n || a->hidden != b->hidden ||
	    memcmp(a->starts, b->starts, a->n * sizeof(*a->starts)) ||
	    memcmp(a->sizes, b->sizes, a->n * sizeof(*a->sizes)))
		return false;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->arena + a->names[i], b->arena + b->names[i]))
			return false;
	}
	return true;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->n;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->index);
	free(ks->starts);
	free(ks->sizes);
	free(ks->names);
	free(ks->modules);
	free(ks->module_names);
	free(ks->arena);
	free(ks);
}
