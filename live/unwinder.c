// SPDX-License-Identifier: GPL-2.0
/*
 * unwinder: three tables.
 *
 * - Tables (struct tab), by the identity of the file they were built from:
 *   its device and inode, exactly, and a hash of its size and mtime (two
 *   versions of one file are told apart; no other file can have its key,
 *   whatever it claims: a build-id is not a key, as anyone can forge one),
 *   on an LRU list by last use that counts the kernel memory of the loaded
 *   ones. A table is pending (its job queued or running), loaded, without
 *   CFI, over the budget, or failed (refused: over a limit of its build);
 *   evicted, it is no longer found by its key and goes once no file points
 *   to it.
 * - Files (struct file), by (device, inode) as the maps show them: each
 *   points to its table, once a process that may read the file asked for
 *   it (an execute-only binary's processes may not: they get none), and
 *   remembers who may read it. Once per pass a file met again is checked
 *   by size and mtime (one stat through map_files), so that an inode
 *   reused by another file never finds the old file's table.
 * - Processes (struct proc), by tgid, on an LRU list by last note: the
 *   mappings written for the walk, and the table of each. A table that
 *   turns out to have no rows (no CFI, no room) makes the processes using
 *   it written again, so that their walks say why they stop.
 */
#include "live/unwinder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "live/table_loader.h"
#include "profile/hash_index.h" /* hash_bytes(): a generic hash */
#include "symbols/elffile.h"
#include "symbols/id_table.h"
#include "symbols/lru.h"
#include "symbols/mapped_file.h"
#include "symbols/procinfo.h"
#include "symbols/rootfs.h"

#define FILE_IDLE_PASSES 64 /* a file no note met for this long is forgotten */
#define SAMPLED_WANT 1024   /* how much a sampled process's note weighs beside a running one's */
#define MIN_PROC_SLOTS 256
#define MAX_PROC_SLOTS 65536
#define PROC_SLOT_BUDGET (32u << 10) /* a process slot for every 32 KiB of the budget */
#define POOL_SHARE 20 /* the pool of processes' mappings takes 1/20th of the budget */

enum tab_state {
	TAB_PENDING,
	TAB_LOADED,
	TAB_WITHOUT,     /* the file has no CFI (or is not x86-64 ELF) */
	TAB_OVER_BUDGET, /* not built: no memory or slot left */
	TAB_FAILED,      /* built, but could not be loaded */
	TAB_EVICTED,
};

struct tab {
	struct id_node node;   /* its key, in tabs_by_key while keyed */
	struct lru_node lru;   /* on u->tabs while keyed; bytes: kernel memory once loaded */
	struct table_job *job; /* while pending */
	uint32_t id;           /* its slot in unwind_tables, while pending or loaded */
	uint16_t gen;
	uint8_t state;         /* enum tab_state */
	bool keyed;
	uint32_t refs;         /* mappings of described processes that use it */
	uint32_t files;        /* files that point to it */
	uint32_t wanted;       /* notes that asked for it */
	size_t rows;
};

struct file {
	struct id_node node; /* {device, inode} */
	struct lru_node lru; /* on u->files, by last use */
	struct tab *tab;     /* NULL until a process that may read the file asks */
	off_t size;
	struct timespec mtime;
	uint64_t checked_pass, used_pass;
	struct read_access access; /* who may read it */
	bool refused;		   /* a process that may not read it was refused (counted once) */
};

struct proc {
	struct id_node node; /* {tgid} */
	struct lru_node lru; /* on u->proc_lru, by last note */
	uint32_t slot;       /* in unwind_procs, or UNWIND_NO_SLOT */
	uint64_t maps_gen, noted_pass;
	uint64_t kept_pass;  /* kept described for the walks of copied stacks through this pass */
	bool ended;          /* its exit was noted: let go at the next pass */
	struct proc_creds_memo creds; /* read when a file it maps is not everyone's to read */
	uint32_t n;
	struct unwind_map *maps; /* as written for the walk */
	struct tab **tabs;       /* the table of each, or NULL */
};

/* A loaded table mapped for the walks of copied stacks (unwinder__code_at()). */
struct table_view {
	uint32_t id;
	uint16_t gen;
	int err; /* 0, or why it could not be mapped */
	struct unwind_table_view v;
};

struct unwinder {
	char *proc_root;
	bool host_proc;
	struct unwind_maps *maps;
	struct table_loader *loader;
	struct id_table procs, files, tabs_by_key;
	struct lru proc_lru, file_lru, tabs;
	uint32_t free_ids[UNWIND_MAX_TABLES], nfree_ids;
	uint16_t id_gen[UNWIND_MAX_TABLES];
	uint64_t pass;
	uint32_t nslots; /* process slots */
	size_t budget, fixed;
	bool rewrite; /* a table left the walk: some processes need writing again */
	bool exits_noted; /* the capture tells when a process with a slot ends */
	struct table_view *views; /* tables mapped for the walks of copied stacks, until the pass */
	size_t nviews, views_cap;
	struct tab *vdso; /* flametop's own vDSO's table, shared by same-size vDSOs */
	size_t vdso_len;
	struct unwinder_stats st; /* counts kept as they change */
};

/* Process slots for a budget of @budget bytes: 4096 for the default 128 MiB. */
static uint32_t proc_slots_for(size_t budget)
{
	size_t n = budget / PROC_SLOT_BUDGET;

	return n < MIN_PROC_SLOTS ? MIN_PROC_SLOTS : n > MAX_PROC_SLOTS ? MAX_PROC_SLOTS : n;
}

/* Mappings the pool holds for a budget of @budget bytes, at least a process's most. */
static uint32_t pool_maps_for(size_t budget)
{
	size_t n = budget / POOL_SHARE / sizeof(struct unwind_map);

	return n < UNWIND_MAX_MAPS ? UNWIND_MAX_MAPS : n > UINT32_MAX / 2 ? UINT32_MAX / 2 : n;
}

int unwinder__new(const struct unwinder_opts *o, struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	int err;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->budget = o->memory_bytes ? o->memory_bytes : UNWIND_MEMORY_DEFAULT;
	u->proc_root = strdup(o->proc_root ? o->proc_root : "/proc");
	u->host_proc = !o->proc_root;
	u->pass = 1;
	lru__init(&u->proc_lru);
	lru__init(&u->file_lru);
	lru__init(&u->tabs);
	for (uint32_t i = 0; i < UNWIND_MAX_TABLES; i++)
		u->free_ids[u->nfree_ids++] = UNWIND_MAX_TABLES - 1 - i;
	u->nslots = proc_slots_for(u->budget);
	err = u->proc_root ? unwind_maps__new(u->nslots, pool_maps_for(u->budget), &u->maps)
			   : -ENOMEM;
	if (!err) {
		u->fixed = unwind_maps__fixed_bytes(u->maps);
		u->loader = table_loader__new(u->maps,
					      o->debug_root ? o->debug_root : "/usr/lib/debug",
					      u->budget > u->fixed ? u->budget - u->fixed : 0,
					      o->table_slice_ns);
		if (!u->loader)
			err = -errno;
	}
	if (err) {
		unwinder__free(u);
		return err;
	}
	*out = u;
	return 0;
}

void unwinder__hold(struct unwinder *u, bool held)
{
	table_loader__hold(u->loader, held);
}

struct unwind_maps *unwinder__maps(struct unwinder *u)
{
	return u->maps;
}

static bool tab_in_walk(const struct tab *t)
{
	return t && (t->state == TAB_PENDING || t->state == TAB_LOADED);
}

static size_t bytes_used(const struct unwinder *u)
{
	return u->fixed + u->tabs.bytes;
}

/* Frees @t once nothing finds or points to it. */
static void tab_put(struct unwinder *u, struct tab *t)
{
	if (t->keyed || t->files || t->refs || t->job || t == u->vdso)
		return;
	free(t);
}

/* Empties table slot @id: free again once the loader did it. False when out of memory. */
static bool drop_slot(struct unwinder *u, uint32_t id)
{
	struct table_job *drop = table_job__new();

	if (!drop)
		return false;
	drop->drop = true;
	drop->id = id;
	table_loader__submit(u->loader, drop);
	return true;
}

/* Forgets @t's key and, when loaded, empties its slot; frees it when nothing points to it. */
static void tab_evict(struct unwinder *u, struct tab *t)
{
	if (t->state == TAB_LOADED) {
		if (!drop_slot(u, t->id))
			return; /* kept: evicted at a later pass */
		u->st.tables--;
		u->st.rows -= t->rows;
	}
	id_table__remove(&u->tabs_by_key, &t->node);
	lru__remove(&u->tabs, &t->lru);
	t->keyed = false;
	t->state = TAB_EVICTED;
	tab_put(u, t);
}

/*
 * Evicts tables no process uses, least recently used first, until @need
 * more bytes fit within the budget (or none is left to evict).
 */
static void make_room(struct unwinder *u, size_t need)
{
	struct lru_node *n = lru__oldest(&u->tabs), *newer;

	for (; n && bytes_used(u) + need > u->budget; n = newer) {
		struct tab *t = lru_entry(n, struct tab, lru);

		newer = lru__newer(&u->tabs, n);
		if (!t->refs && t->state == TAB_LOADED)
			tab_evict(u, t);
	}
}

/*
 * Queues the build of @t from @fd (or @image, @len: taken), the file
 * process @tgid (of credentials @creds, NULL when unknown) maps at @path;
 * leaves it over the budget when no memory or table slot is left.
 */
static void tab_build(struct unwinder *u, struct tab *t, int fd, void *image, size_t len,
		      uint32_t tgid, const char *path, const struct proc_creds *creds)
{
	struct table_job *job = NULL;

	make_room(u, 0);
	if (bytes_used(u) <= u->budget && u->nfree_ids)
		job = table_job__new();
	if (!job) {
		if (fd >= 0)
			close(fd);
		free(image);
		t->state = TAB_OVER_BUDGET;
		u->st.over_budget++;
		return;
	}
	t->id = u->free_ids[--u->nfree_ids];
	t->gen = ++u->id_gen[t->id];
	t->state = TAB_PENDING;
	t->job = job;
	job->id = t->id;
	job->gen = t->gen;
	job->fd = fd;
	job->image = image;
	job->image_len = len;
	job->owner = t;
	if (path) {
		job->path = strdup(path);
		job->root_fd = rootfs__open_root(u->proc_root, tgid);
	}
	job->have_creds = creds != NULL;
	if (creds)
		job->creds = *creds;
	u->st.pending++;
	table_loader__submit(u->loader, job);
}

/* A new table keyed {@k0, @k1}, found by it from now on; NULL when out of memory. */
static struct tab *tab_new(struct unwinder *u, uint64_t k0, uint64_t k1)
{
	struct tab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->node.key[0] = k0;
	t->node.key[1] = k1;
	if (id_table__insert(&u->tabs_by_key, &t->node)) {
		free(t);
		return NULL;
	}
	t->keyed = true;
	lru__add(&u->tabs, &t->lru, 0);
	return t;
}

/*
 * The key of the file @st describes: its device (32 bits in stat(2)) and
 * inode exactly, and a hash of its size and mtime above the device, so that
 * a version of a file changed in place has a table of its own.
 */
static void file_key(const struct stat *st, uint64_t key[2])
{
	const uint64_t version[3] = { (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
				      (uint64_t)st->st_mtim.tv_nsec };

	key[0] = (uint64_t)st->st_ino;
	key[1] = (uint32_t)st->st_dev | hash_bytes(version, sizeof(version)) << 32;
}

/*
 * Forgets @f. A table it leaves unused with nothing in the walk (no CFI,
 * no room) is forgotten too: a file with its key is tried afresh.
 */
static void file_free(struct unwinder *u, struct file *f)
{
	struct tab *t = f->tab;

	id_table__remove(&u->files, &f->node);
	lru__remove(&u->file_lru, &f->lru);
	read_access__free(&f->access);
	free(f);
	if (!t)
		return;
	if (!--t->files && !t->refs && t->keyed && !tab_in_walk(t)) {
		id_table__remove(&u->tabs_by_key, &t->node);
		lru__remove(&u->tabs, &t->lru);
		t->keyed = false;
	}
	tab_put(u, t);
}

/*
 * A new file for mapping @m of @tgid, opened now, without a table yet.
 * NULL when it cannot be opened; else *@fd is left open, *@st describes it.
 */
static struct file *file_new(struct unwinder *u, uint32_t tgid, const struct proc_map *m, int *fd,
			     struct stat *st)
{
	struct file *f = NULL;

	*fd = mapped_file__open(u->proc_root, tgid, m);
	if (*fd < 0)
		return NULL;
	if (fstat(*fd, st) || !(f = calloc(1, sizeof(*f))))
		goto fail;
	f->node.key[0] = ((uint64_t)m->dev_major << 32) | m->dev_minor;
	f->node.key[1] = m->inode;
	if (id_table__insert(&u->files, &f->node))
		goto fail;
	read_access__init(&f->access, *fd, st);
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->checked_pass = u->pass;
	lru__add(&u->file_lru, &f->lru, 0);
	return f;
fail:
	free(f);
	close(*fd);
	*fd = -1;
	return NULL;
}

/*
 * Gives @f, open on @fd (taken; -1: opened now through mapping @m of
 * @tgid), the table of its key: found, or made and queued for building,
 * its debug file looked for with @creds. False when none could be had.
 */
static bool file_attach(struct unwinder *u, struct file *f, int fd, uint32_t tgid,
			const struct proc_map *m, const struct proc_creds *creds)
{
	uint64_t key[2];
	struct stat st;
	struct tab *t;

	if (fd < 0 && (fd = mapped_file__open(u->proc_root, tgid, m)) < 0)
		return false;
	if (fstat(fd, &st)) {
		close(fd);
		return false;
	}
	file_key(&st, key);
	t = (struct tab *)id_table__find(&u->tabs_by_key, key[0], key[1]);
	if (!t && (t = tab_new(u, key[0], key[1])) != NULL) {
		tab_build(u, t, fd, NULL, 0, tgid, m->path, creds);
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	if (!t)
		return false;
	f->tab = t;
	t->files++;
	return true;
}

/*
 * The table of file mapping @m of process @p: the file's, checked once per
 * pass, or a new one's; none for a process that may not read the file.
 */
static struct tab *file_tab(struct unwinder *u, struct proc *p, const struct proc_map *m)
{
	uint32_t tgid = (uint32_t)p->node.key[0];
	struct file *f = (struct file *)id_table__find(
		&u->files, ((uint64_t)m->dev_major << 32) | m->dev_minor, m->inode);
	const struct proc_creds *creds;
	struct stat st;
	int fd = -1;

	if (f && f->tab && f->tab->state == TAB_EVICTED) {
		file_free(u, f);
		f = NULL;
	}
	if (f && f->checked_pass != u->pass) {
		f->checked_pass = u->pass;
		if (!mapped_file__stat(u->proc_root, tgid, m, &st) &&
		    (st.st_size != f->size || st.st_mtim.tv_sec != f->mtime.tv_sec ||
		     st.st_mtim.tv_nsec != f->mtime.tv_nsec)) {
			file_free(u, f); /* another file under the same inode */
			f = NULL;
		}
	}
	if (!f && !(f = file_new(u, tgid, m, &fd, &st)))
		return NULL;
	f->used_pass = u->pass;
	lru__touch(&u->file_lru, &f->lru);
	/* Credentials read (from /proc) only for a file not every user may read, or a new table. */
	creds = f->access.to_all ? NULL : proc_creds_memo__get(&p->creds, u->proc_root, tgid);
	if (!mapped_file__may_read(&f->access, u->proc_root, tgid, m, creds)) {
		u->st.unreadable += !f->refused;
		f->refused = true;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!f->tab && !file_attach(u, f, fd, tgid, m,
				    proc_creds_memo__get(&p->creds, u->proc_root, tgid)))
		return NULL;
	return f->tab;
}

/* The table of vDSO mapping @m: flametop's own vDSO's, when it is the same size. */
static struct tab *vdso_tab(struct unwinder *u, const struct proc_map *m)
{
	const void *image;
	void *copy;

	if (!u->vdso && (u->vdso = calloc(1, sizeof(*u->vdso))) != NULL) {
		u->vdso->state = TAB_WITHOUT;
		if (!mapped_file__own_vdso(&image, &u->vdso_len) &&
		    (copy = malloc(u->vdso_len)) != NULL) {
			memcpy(copy, image, u->vdso_len);
			tab_build(u, u->vdso, -1, copy, u->vdso_len, 0, NULL, NULL);
		}
	}
	return u->vdso && m->end - m->start == u->vdso_len ? u->vdso : NULL;
}

/* Sets the table of each of @p's mappings as the walk is to see it. True when one changed. */
static bool proc_fill_tables(struct proc *p)
{
	bool changed = false;

	for (uint32_t i = 0; i < p->n; i++) {
		const struct tab *t = p->tabs[i];
		uint16_t table = tab_in_walk(t) ? t->id + 1 : 0;
		uint16_t gen = tab_in_walk(t)				 ? t->gen
			       : t && t->state == TAB_OVER_BUDGET ? UNWIND_GEN_NO_ROOM
								  : UNWIND_GEN_NO_CFI;

		changed |= p->maps[i].table != table || p->maps[i].gen != gen;
		p->maps[i].table = table;
		p->maps[i].gen = gen;
	}
	return changed;
}

/* Writes @p's mappings for the walk; a process that finds no room is not described. */
static void proc_write(struct unwinder *u, struct proc *p)
{
	uint32_t tgid = (uint32_t)p->node.key[0];
	int64_t slot;

	proc_fill_tables(p);
	/* The first UNWIND_MAX_MAPS go to the walk; copied stacks are walked with them all. */
	slot = unwind_maps__put_proc(u->maps, tgid, p->slot, p->maps,
				     p->n < UNWIND_MAX_MAPS ? p->n : UNWIND_MAX_MAPS,
				     p->n > UNWIND_MAX_MAPS);
	if (slot >= 0) {
		p->slot = (uint32_t)slot;
		return;
	}
	if (slot == -ENOBUFS)
		u->st.pool_full++;
	else
		u->st.no_slot++;
	p->slot = UNWIND_NO_SLOT; /* the old one retired: its mappings would mislead the walk */
}

static void proc_release_tabs(struct unwinder *u, struct proc *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		if (p->tabs[i]) {
			p->tabs[i]->refs--;
			tab_put(u, p->tabs[i]);
		}
	}
	free(p->maps);
	free(p->tabs);
	p->maps = NULL;
	p->tabs = NULL;
	p->n = 0;
}

/* Takes @p out of the BPF walk (a process that ended): its slot is free for another. */
static void proc_leave_walk(struct unwinder *u, struct proc *p)
{
	if (p->slot != UNWIND_NO_SLOT)
		unwind_maps__drop_proc(u->maps, (uint32_t)p->node.key[0], p->slot);
	p->slot = UNWIND_NO_SLOT;
}

/* The table of mapping @m of @p, for the walk: a file's, the vDSO's, or none (frame pointers). */
static struct tab *mapping_tab(struct unwinder *u, struct proc *p, const struct proc_map *m)
{
	if (m->pgoff > UINT32_MAX) /* rows are keyed by 32-bit offsets */
		return NULL;
	if (m->kind == MAP_FILE)
		return file_tab(u, p, m);
	if (m->kind == MAP_VDSO)
		return vdso_tab(u, m);
	return NULL;
}

/*
 * Describes @maps, the executable mappings of @p, to the walk; each note
 * makes its files' tables more wanted, a @sampled process's much more.
 */
static void proc_describe(struct unwinder *u, struct proc *p, const struct proc_maps *maps,
			  bool sampled)
{
	uint32_t n = 0, exec = 0;
	struct unwind_map *out;
	struct tab **tabs;

	for (size_t i = 0; i < maps->n; i++)
		exec += (maps->maps[i].perms & MAP_PERM_X) != 0;
	out = calloc(exec ? exec : 1, sizeof(*out));
	tabs = calloc(exec ? exec : 1, sizeof(*tabs));
	if (!out || !tabs) {
		free(out);
		free(tabs);
		return;
	}
	for (size_t i = 0; i < maps->n && n < exec; i++) {
		const struct proc_map *m = &maps->maps[i];
		struct tab *t;

		if (!(m->perms & MAP_PERM_X))
			continue;
		t = mapping_tab(u, p, m);
		out[n] = (struct unwind_map){ .start = m->start, .end = m->end,
					      .off = t ? (uint32_t)m->pgoff : 0 };
		tabs[n++] = t;
		if (!t)
			continue;
		t->refs++;
		t->wanted += sampled ? SAMPLED_WANT : 1; /* sampled first, then the most mapped */
		if (t->job)
			table_loader__want(u->loader, t->job, t->wanted);
		if (t->keyed)
			lru__touch(&u->tabs, &t->lru);
	}
	proc_release_tabs(u, p);
	p->maps = out;
	p->tabs = tabs;
	p->n = n;
	if (p->ended)
		proc_leave_walk(u, p);
	else
		proc_write(u, p);
}

/*
 * Describes process @tgid's @maps of generation @maps_gen, unless they were
 * already; one that @ended, to the walks of its copied stacks only.
 */
static void note(struct unwinder *u, uint32_t tgid, const struct proc_maps *maps, uint64_t maps_gen,
		 bool sampled, bool ended)
{
	struct proc *p = (struct proc *)id_table__find(&u->procs, tgid, 0);
	bool known = p != NULL;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return;
		p->node.key[0] = tgid;
		p->slot = UNWIND_NO_SLOT;
		if (id_table__insert(&u->procs, &p->node)) {
			free(p);
			return;
		}
		lru__add(&u->proc_lru, &p->lru, 0);
		u->st.processes++;
	}
	if (!ended) {
		p->ended = false; /* noted: it runs (its pid maybe used again) */
		p->noted_pass = u->pass;
	} else if (!p->ended) {
		p->ended = true;
		u->st.exits++;
	}
	lru__touch(&u->proc_lru, &p->lru);
	if (known && p->maps_gen == maps_gen)
		return;
	p->maps_gen = maps_gen;
	proc_creds_memo__reset(&p->creds); /* new maps: an exec may have changed them */
	proc_describe(u, p, maps, sampled);
}

void unwinder__note_process(struct unwinder *u, uint32_t tgid, const struct proc_maps *maps,
			    uint64_t maps_gen)
{
	note(u, tgid, maps, maps_gen, true, false);
}

void unwinder__note_ended(struct unwinder *u, uint32_t tgid, const struct proc_maps *maps,
			  uint64_t maps_gen)
{
	note(u, tgid, maps, maps_gen, true, true);
}

/* Is process @pid named @comm (as /proc/PID/comm says)? */
static bool comm_is(const struct unwinder *u, uint32_t pid, const char *comm)
{
	char path[PATH_MAX], name[COMM_LEN + 1];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/comm", u->proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
	}
	if (n <= 0)
		return false;
	name[n] = '\0';
	name[strcspn(name, "\n")] = '\0';
	return !strcmp(name, comm);
}

/* Describes process @pid, running now, unless no slot would be left for the sampled ones. */
static void note_running(struct unwinder *u, uint32_t pid, const char *comm)
{
	struct proc_maps maps;

	if (unwind_maps__free_slots(u->maps) < u->nslots / 2 || (comm && !comm_is(u, pid, comm)) ||
	    proc_maps__read(u->proc_root, (int)pid, &maps))
		return;
	if (maps.n) /* a kernel thread has none */
		note(u, pid, &maps, 0, false, false);
	proc_maps__free(&maps);
}

void unwinder__note_running(struct unwinder *u, const uint32_t *tgids, size_t ntgids,
			    const char *comm, bool (*stop)(void *ctx), void *stop_ctx)
{
	struct dirent *d;
	DIR *dir;

	for (size_t i = 0; i < ntgids && !(stop && stop(stop_ctx)); i++)
		note_running(u, tgids[i], comm);
	if (ntgids || !(dir = opendir(u->proc_root)))
		return;
	while (!(stop && stop(stop_ctx)) && (d = readdir(dir)) != NULL) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);

		if (pid && !*end && pid <= UINT32_MAX)
			note_running(u, (uint32_t)pid, comm);
	}
	closedir(dir);
}

static void proc_free(struct unwinder *u, struct proc *p)
{
	proc_leave_walk(u, p);
	id_table__remove(&u->procs, &p->node);
	lru__remove(&u->proc_lru, &p->lru);
	proc_release_tabs(u, p);
	u->st.processes--;
	free(p);
}

/*
 * With exit notes, the passes between two in which every process is asked
 * after anyway (a note lost to a full ring buffer): those without a slot,
 * which no note covers, are asked after at every pass.
 */
#define EXIT_ASK_PASSES 30

/* Has @tgid exited? Only for this machine's /proc. */
static bool proc_gone(const struct unwinder *u, uint32_t tgid)
{
	return u->host_proc && proc_info__exited((int32_t)tgid);
}

void unwinder__process_exited(struct unwinder *u, uint32_t tgid)
{
	struct proc *p = (struct proc *)id_table__find(&u->procs, tgid, 0);

	if (!p || p->ended)
		return;
	p->ended = true;
	u->st.exits++;
}

void unwinder__exits_noted(struct unwinder *u, bool noted)
{
	u->exits_noted = noted;
}

/*
 * Forgets the processes that exited (those noted in this pass run: a
 * process of the same file started meanwhile finds its table still
 * wanted, or loaded), and writes again those whose tables left the walk.
 */
static void procs_pass(struct unwinder *u)
{
	struct lru_node *n = lru__oldest(&u->proc_lru), *newer;
	bool ask_all = !u->exits_noted || u->pass % EXIT_ASK_PASSES == 0;

	for (; n; n = newer) {
		struct proc *p = lru_entry(n, struct proc, lru);

		newer = lru__newer(&u->proc_lru, n);
		if (p->noted_pass != u->pass &&
		    (p->ended || ((ask_all || p->slot == UNWIND_NO_SLOT) &&
				  proc_gone(u, (uint32_t)p->node.key[0])))) {
			if (p->kept_pass == u->pass) /* still wanted: the walk has no use of it */
				proc_leave_walk(u, p);
			else
				proc_free(u, p);
		} else if (u->rewrite && proc_fill_tables(p)) {
			proc_write(u, p);
		}
	}
	u->rewrite = false;
}

/* Forgets the files no note met for FILE_IDLE_PASSES. */
static void files_pass(struct unwinder *u)
{
	struct lru_node *n;

	while ((n = lru__oldest(&u->file_lru)) != NULL) {
		struct file *f = lru_entry(n, struct file, lru);

		if (f->used_pass + FILE_IDLE_PASSES >= u->pass)
			break;
		file_free(u, f);
	}
}

/* What became of a finished job. */
static void job_finished(struct unwinder *u, struct table_job *job)
{
	struct tab *t = job->owner;

	if (job->drop) {
		u->free_ids[u->nfree_ids++] = job->id;
		return;
	}
	t->job = NULL;
	u->st.pending--;
	u->st.build_ns += job->build_ns;
	u->st.refused_fdes += job->refused_fdes;
	if (!job->err) {
		make_room(u, job->bytes);
		if (bytes_used(u) + job->bytes > u->budget && drop_slot(u, t->id)) {
			t->state = TAB_OVER_BUDGET; /* beside the tables in use, it does not fit */
			u->st.over_budget++;
			u->rewrite = true;
			tab_put(u, t);
			return;
		}
		t->state = TAB_LOADED;
		t->rows = job->rows;
		u->st.tables++;
		u->st.rows += job->rows;
		if (t->keyed)
			lru__resize(&u->tabs, &t->lru, job->bytes);
		return;
	}
	u->free_ids[u->nfree_ids++] = t->id; /* nothing was put in its slot */
	if (job->err == -ENOENT || job->err == -ENOTSUP) {
		t->state = TAB_WITHOUT;
		u->st.without++;
	} else {
		t->state = TAB_FAILED;
		if (table_job__refusal(job) >= 0)
			u->st.refused[table_job__refusal(job)]++;
		else
			u->st.failed++;
	}
	u->rewrite = true;
	tab_put(u, t);
}

/* The index of @p's mapping holding @addr, or -1. */
static int proc_map_of(const struct proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->n;

	while (lo < hi) { /* the first mapping starting past @addr */
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < p->maps[lo - 1].end ? (int)lo - 1 : -1;
}

/* Table @t, loaded, mapped for this pass; NULL when it cannot be. */
static const struct unwind_table_view *tab_view(struct unwinder *u, const struct tab *t)
{
	struct table_view *v;

	for (size_t i = 0; i < u->nviews; i++)
		if (u->views[i].id == t->id && u->views[i].gen == t->gen)
			return u->views[i].err ? NULL : &u->views[i].v;
	if (array__grow((void **)&u->views, &u->views_cap, u->nviews + 1, sizeof(*u->views), 16))
		return NULL;
	v = &u->views[u->nviews++];
	v->id = t->id;
	v->gen = t->gen;
	v->err = unwind_maps__view_table(u->maps, t->id, t->gen, &v->v);
	return v->err ? NULL : &v->v;
}

static void release_views(struct unwinder *u)
{
	for (size_t i = 0; i < u->nviews; i++)
		unwind_table_view__release(&u->views[i].v);
	u->nviews = 0;
}

enum stack_walk_code unwinder__code_at(struct unwinder *u, uint32_t tgid, uint64_t addr,
				       struct unwind_rule *r)
{
	const struct proc *p = (const struct proc *)id_table__find(&u->procs, tgid, 0);
	const struct unwind_table_view *v;
	const struct unwind_map *m;
	const struct tab *t;
	uint64_t off;
	uint32_t id;
	int i;

	if (!p)
		return CODE_NOT_LOADED; /* its note may come */
	i = proc_map_of(p, addr);
	if (i < 0)
		return CODE_OUTSIDE;
	m = &p->maps[i];
	t = p->tabs[i];
	if (t && t->state == TAB_PENDING)
		return CODE_NOT_LOADED;
	off = addr - m->start + m->off;
	if (t && t->state == TAB_OVER_BUDGET)
		return CODE_NO_ROOM; /* as the BPF walk: by frame pointer, "unwind memory" */
	if (!t || t->state != TAB_LOADED || off > UINT32_MAX || !(v = tab_view(u, t)))
		return CODE_NO_TABLE; /* as the BPF walk: by frame pointer */
	id = unwind_table_view__rule_at(v, off);
	*r = (struct unwind_rule){ .kind = UNWIND_RULE_NONE };
	if (id != UNWIND_RULE_ID_NONE && unwind_maps__rule(u->maps, id, r))
		*r = (struct unwind_rule){ .kind = UNWIND_RULE_UNSUPPORTED };
	return CODE_RULE;
}

bool unwinder__may_describe(const struct unwinder *u, uint32_t tgid)
{
	return id_table__find(&u->procs, tgid, 0) || !proc_info__ended(u->proc_root, tgid);
}

void unwinder__keep_process(struct unwinder *u, uint32_t tgid)
{
	struct proc *p = (struct proc *)id_table__find(&u->procs, tgid, 0);

	if (p)
		p->kept_pass = u->pass;
}

void unwinder__pass(struct unwinder *u)
{
	struct table_job *job = table_loader__done(u->loader), *next;

	release_views(u);

	for (; job; job = next) {
		next = job->next;
		job_finished(u, job);
		table_job__free(job);
	}
	procs_pass(u);
	files_pass(u);
	unwind_maps__pass(u->maps);
	u->pass++;
}

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st)
{
	*st = u->st;
	st->bytes = bytes_used(u);
	st->budget = u->budget;
	st->rules = table_loader__rules(u->loader);
}

static void release_tab(struct id_node *node)
{
	free(node);
}

void unwinder__free(struct unwinder *u)
{
	struct lru_node *n;

	if (!u)
		return;
	table_loader__free(u->loader); /* first: its jobs point to tables */
	while ((n = lru__oldest(&u->proc_lru)) != NULL) {
		struct proc *p = lru_entry(n, struct proc, lru);

		id_table__remove(&u->procs, &p->node);
		lru__remove(&u->proc_lru, &p->lru);
		proc_release_tabs(u, p);
		free(p);
	}
	while ((n = lru__oldest(&u->file_lru)) != NULL)
		file_free(u, lru_entry(n, struct file, lru));
	id_table__clear(&u->procs, release_tab, false); /* empty: its slots */
	id_table__clear(&u->files, release_tab, false);
	id_table__clear(&u->tabs_by_key, release_tab, false);
	free(u->vdso);
	release_views(u);
	free(u->views);
	unwind_maps__free(u->maps);
	free(u->proc_root);
	free(u);
}
