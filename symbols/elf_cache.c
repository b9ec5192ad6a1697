// SPDX-License-Identifier: GPL-2.0
/*
 * elf_cache: one id_table of entries and two LRU lists. An entry is held
 * (its file open, not read yet: on `held`), being read (its job with the
 * reader thread: on no list), or read (its table, or NULL for a file that
 * is not ELF or could not be opened or read: on `tables`, counted in
 * bytes so that negative entries are bounded too).
 *
 * The reader threads take jobs in order from a queue and put them on a
 * done list; entries take their tables from it (collect()) when a lookup
 * waits for one, or at the next lookup.
 */
#include "symbols/elf_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/elffile.h"
#include "symbols/id_table.h"
#include "symbols/lru.h"
#include "symbols/mapped_file.h"
#include "symbols/rootfs.h"
#include "thread.h"

#define VDSO_KEY UINT64_MAX /* key[0] of vDSO images: no device has this number */
#define VDSO_MAX_BYTES (1UL << 20)
#define READ_CPU_NS (2000 * 1000000ull) /* a table's read, its debug file's CRC included */
#define READERS 2			 /* threads that read tables */

struct elf_entry {
	struct id_node node;	/* {dev, inode}, or {VDSO_KEY, size << 32 | crc32} */
	struct lru_node lru;	/* on tables once read, on held while held */
	struct elf_symtab *tab; /* once read; NULL when the file gave none */
	int fd;			/* >= 0 while held */
	uint64_t held_pass;
	bool reading;	     /* its job is with the reader */
	bool late;	     /* a lookup found it being read (counted once) */
	bool unopened;	     /* read, but its file could not be opened ... */
	uint64_t tried_pass; /* ... in this pass: another may succeed */
	bool deferred;	     /* not read: the processes that asked may not read it */
	bool refused;	     /* some process was refused it (counted once) */
	struct read_access access; /* who may read the file */
	bool debug_private;	   /* its names came from a debug file only reader may read */
	struct proc_creds reader;
};

/* A table to read, by the reader thread. */
struct read_job {
	struct read_job *next;
	uint64_t key[2]; /* its entry's */
	int fd, root_fd; /* the file (taken), and its process's root for its debug file */
	char *path;
	struct proc_creds creds; /* its process's, for its debug file ... */
	bool have_creds;	 /* ... when they could be read */
	uint64_t bin_size;
	/* Set by the reader. */
	struct elf_symtab *tab;
	uint32_t refused[DEBUG_REFUSED_NR];
	bool debug_private;
};

struct elf_cache {
	char *proc_root, *debug_root;
	size_t max_bytes, max_files;
	struct id_table entries;
	struct lru tables, held;
	size_t n_tables;
	uint64_t no_fds; /* opens that failed for want of file descriptors */
	uint64_t unreadable, late, debug_refused[DEBUG_REFUSED_NR];
	const void *own_vdso; /* flametop's own vDSO image, once looked for */
	size_t own_vdso_len;
	bool own_vdso_known;
	uint64_t wait_ns, wait_pass, waited_ns; /* the pass's wait budget, and what it used */
	pthread_t readers[READERS];
	int started; /* readers started */
	pthread_mutex_t lock;
	pthread_cond_t wake, done_cond;
	/* Under lock. */
	struct read_job *queue, *queue_tail, *done;
	size_t in_flight; /* jobs queued or being read */
	bool stop;	  /* also read without it (atomically), by a read in progress */
};

static void read_job__free(struct read_job *job)
{
	if (job->fd >= 0)
		close(job->fd);
	if (job->root_fd >= 0)
		close(job->root_fd);
	elf_symtab__free(job->tab);
	free(job->path);
	free(job);
}

/*
 * Reads the table of @job's binary: its own symbols, and those of its
 * debug file when it is stripped, looked for with its process's rights.
 */
static void read_job__run(struct elf_cache *c, struct read_job *job)
{
	struct work_budget time = work_budget__of(&c->stop, READ_CPU_NS);
	struct debug_search ds = { .root_fd = job->root_fd, .debug_root = c->debug_root,
				   .path = job->path, .creds = job->have_creds ? &job->creds : NULL,
				   .bin_size = job->bin_size, .time = &time };
	struct elf_file *bin = elf_file__open_fd(job->fd, false), *debug = NULL;

	if (!bin)
		return;
	if (!elf_file__has_symtab(bin)) {
		debug = debuginfo__find(bin, &ds);
		memcpy(job->refused, ds.refused, sizeof(job->refused));
		job->debug_private = debug && ds.private;
	}
	if (!work_budget__spent(&time))
		job->tab = elf_symtab__build(bin, debug);
	elf_file__close(debug);
	elf_file__close(bin);
}

static void *reader_main(void *arg)
{
	struct elf_cache *c = arg;
	struct read_job *job;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		if (!c->queue) {
			pthread_cond_wait(&c->wake, &c->lock);
			continue;
		}
		job = c->queue;
		c->queue = job->next;
		pthread_mutex_unlock(&c->lock);
		read_job__run(c, job);
		pthread_mutex_lock(&c->lock);
		job->next = c->done;
		c->done = job;
		c->in_flight--;
		pthread_cond_broadcast(&c->done_cond);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Starts the reader threads; 0 or an errno. */
static int readers_start(struct elf_cache *c)
{
	pthread_condattr_t attr;
	int err = 0;

	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->done_cond, &attr);
	pthread_condattr_destroy(&attr);
	for (; c->started < READERS && !err; c->started += !err)
		err = thread_start(&c->readers[c->started], reader_main, c);
	return err;
}

struct elf_cache *elf_cache__new(const struct elf_cache_opts *o)
{
	struct elf_cache *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		goto nomem;
	c->proc_root = strdup(o->proc_root);
	c->debug_root = strdup(o->debug_root);
	if (!c->proc_root || !c->debug_root)
		goto nomem;
	c->max_bytes = o->max_bytes;
	c->max_files = o->max_files;
	c->wait_ns = o->wait_ns ? o->wait_ns : ELF_CACHE_WAIT_NS;
	lru__init(&c->tables);
	lru__init(&c->held);
	err = readers_start(c);
	if (!err)
		return c;
	elf_cache__free(c);
	errno = err;
	return NULL;
nomem:
	elf_cache__free(c);
	errno = ENOMEM;
	return NULL;
}

static struct elf_entry *elf_entry__of(struct lru_node *node)
{
	return lru_entry(node, struct elf_entry, lru);
}

static void elf_entry__free(struct elf_entry *e)
{
	if (e->fd >= 0)
		close(e->fd);
	elf_symtab__free(e->tab);
	read_access__free(&e->access);
	free(e);
}

/* Releases @e, which is on one of the lists or none, not being read. */
static void elf_cache__release(struct elf_cache *c, struct elf_entry *e)
{
	lru__remove(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
	id_table__remove(&c->entries, &e->node);
	if (e->tab)
		c->n_tables--;
	elf_entry__free(e);
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
static void elf_cache__set_table(struct elf_cache *c, struct elf_entry *e, struct elf_symtab *tab)
{
	e->tab = tab;
	if (tab)
		c->n_tables++;
	lru__add(&c->tables, &e->lru, sizeof(*e) + (tab ? elf_symtab__bytes(tab) : 0));
	elf_cache__evict(c, e);
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

/* mapped_file__open(), counting a failure for want of file descriptors; *@st describes it. */
static int elf_cache__open(struct elf_cache *c, uint32_t tgid, const struct proc_map *m,
			   struct stat *st)
{
	int fd = mapped_file__open(c->proc_root, tgid, m);

	c->no_fds += fd == -EMFILE;
	if (fd >= 0 && fstat(fd, st)) {
		close(fd);
		fd = -errno;
	}
	return fd;
}

/*
 * May process @tgid (its credentials in @creds) have what @e holds? Its
 * file only if it may read it; names from a debug file not every user may
 * read, only if it has the credentials they were found with. The first
 * refusal of a file is counted.
 */
static bool elf_cache__may(struct elf_cache *c, struct elf_entry *e, uint32_t tgid,
			   const struct proc_map *m, struct proc_creds_memo *creds)
{
	const struct proc_creds *who;
	bool may;

	if (e->access.to_all && !e->debug_private)
		return true; /* no credentials to read from /proc */
	who = proc_creds_memo__get(creds, c->proc_root, tgid);
	may = mapped_file__may_read(&e->access, c->proc_root, tgid, m, who) &&
	      (!e->debug_private || (who && proc_creds__equal(who, &e->reader)));

	if (!may && !e->refused) {
		e->refused = true;
		c->unreadable++;
	}
	return may;
}

int elf_cache__hold(struct elf_cache *c, uint32_t tgid, const struct proc_map *m, uint64_t pass,
		    struct proc_creds_memo *creds)
{
	struct elf_entry *e =
	    (struct elf_entry *)id_table__find(&c->entries, file_key(m), m->inode);
	struct lru_node *old;
	struct stat st;
	int fd;

	if (e && (e->reading || !(e->fd < 0 && e->unopened))) {
		if (!e->reading)
			lru__touch(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
		return 0;
	}
	if (!c->max_files)
		return -EMFILE;
	fd = elf_cache__open(c, tgid, m, &st);
	if (fd < 0)
		return fd;
	if (e) /* could not be opened before: it can now */
		elf_cache__release(c, e);
	e = elf_cache__insert(c, file_key(m), m->inode);
	if (!e) {
		close(fd);
		return -ENOMEM;
	}
	read_access__init(&e->access, fd, &st);
	e->fd = fd;
	e->held_pass = pass;
	lru__add(&c->held, &e->lru, 0);
	/* Asked while the process runs (its map_files are there), remembered for later. */
	if (!e->access.to_all)
		elf_cache__may(c, e, tgid, m, creds);
	while (c->held.n > c->max_files && (old = lru__oldest(&c->held)) != NULL)
		elf_cache__release(c, elf_entry__of(old));
	return 0;
}

/* Takes in the tables the reader finished. */
static void elf_cache__collect(struct elf_cache *c)
{
	struct read_job *job, *next;

	pthread_mutex_lock(&c->lock);
	job = c->done;
	c->done = NULL;
	pthread_mutex_unlock(&c->lock);
	for (; job; job = next) {
		struct elf_entry *e =
		    (struct elf_entry *)id_table__find(&c->entries, job->key[0], job->key[1]);

		next = job->next;
		for (int i = 0; i < DEBUG_REFUSED_NR; i++)
			c->debug_refused[i] += job->refused[i];
		if (e && e->reading) {
			e->reading = false;
			e->debug_private = job->debug_private;
			e->reader = job->creds;
			elf_cache__set_table(c, e, job->tab);
			job->tab = NULL;
		}
		read_job__free(job);
	}
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Waits for @e's table a fifth of the pass's wait budget at most, and no
 * longer than the pass has left of it, taking in what the readers finished
 * meanwhile.
 */
static void elf_cache__await(struct elf_cache *c, struct elf_entry *e, uint64_t pass)
{
	uint64_t start = monotonic_ns(), left, until;
	struct timespec ts;

	if (c->wait_pass != pass) {
		c->wait_pass = pass;
		c->waited_ns = 0;
	}
	left = c->wait_ns - (c->waited_ns < c->wait_ns ? c->waited_ns : c->wait_ns);
	until = start + (left < c->wait_ns / 5 ? left : c->wait_ns / 5);
	ts = (struct timespec){ .tv_sec = (time_t)(until / 1000000000ull),
				.tv_nsec = (long)(until % 1000000000ull) };
	for (elf_cache__collect(c); e->reading && monotonic_ns() < until; elf_cache__collect(c)) {
		pthread_mutex_lock(&c->lock);
		if (!c->done)
			pthread_cond_timedwait(&c->done_cond, &c->lock, &ts);
		pthread_mutex_unlock(&c->lock);
	}
	c->waited_ns += monotonic_ns() - start;
}

/* Queues the read of @e's file, open on @fd (taken), for process @tgid (its @creds) at @path. */
static void elf_cache__submit(struct elf_cache *c, struct elf_entry *e, int fd, uint32_t tgid,
			      const char *path, const struct proc_creds *creds)
{
	struct read_job *job = calloc(1, sizeof(*job));
	struct stat st;

	if (!job || !(job->path = strdup(path))) {
		free(job);
		close(fd);
		elf_cache__set_table(c, e, NULL);
		return;
	}
	job->key[0] = e->node.key[0];
	job->key[1] = e->node.key[1];
	job->fd = fd;
	job->root_fd = rootfs__open_root(c->proc_root, tgid);
	job->have_creds = creds != NULL;
	if (creds)
		job->creds = *creds;
	job->bin_size = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
	e->reading = true;
	pthread_mutex_lock(&c->lock);
	if (c->queue_tail && c->queue)
		c->queue_tail->next = job;
	else
		c->queue = job;
	c->queue_tail = job;
	c->in_flight++;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

/*
 * Starts reading @e's table, @e on no list: from the file it holds, else
 * from the file of mapping @m of @tgid, opened now; a stripped file's debug
 * file is looked for as @tgid sees it, with its rights. A file the asking
 * process may not read is not read (deferred until one that may asks).
 */
static void elf_cache__load(struct elf_cache *c, struct elf_entry *e, uint32_t tgid,
			    const struct proc_map *m, uint64_t pass, struct proc_creds_memo *creds)
{
	struct stat st;
	int fd = e->fd;

	e->fd = -1;
	if (fd < 0 && (fd = elf_cache__open(c, tgid, m, &st)) >= 0 && !e->deferred)
		read_access__init(&e->access, fd, &st);
	e->unopened = fd < 0;
	e->tried_pass = pass;
	e->deferred = fd >= 0 && !elf_cache__may(c, e, tgid, m, creds);
	if (fd < 0 || e->deferred) {
		if (fd >= 0)
			close(fd);
		elf_cache__set_table(c, e, NULL);
	} else {
		elf_cache__submit(c, e, fd, tgid, m->path,
				  proc_creds_memo__get(creds, c->proc_root, tgid));
	}
}

const struct elf_symtab *elf_cache__table(struct elf_cache *c, uint32_t tgid,
					  const struct proc_map *m, uint64_t pass,
					  struct proc_creds_memo *creds)
{
	struct elf_entry *e =
	    (struct elf_entry *)id_table__find(&c->entries, file_key(m), m->inode);

	if (e && !e->reading && e->fd < 0 && !elf_entry__retry(e, pass) &&
	    !(e->deferred && elf_cache__may(c, e, tgid, m, creds))) {
		lru__touch(&c->tables, &e->lru);
		return e->deferred || !elf_cache__may(c, e, tgid, m, creds) ? NULL : e->tab;
	}
	if (e && !e->reading)
		lru__remove(e->fd >= 0 ? &c->held : &c->tables, &e->lru);
	else if (!e && !(e = elf_cache__insert(c, file_key(m), m->inode)))
		return NULL;
	if (!e->reading)
		elf_cache__load(c, e, tgid, m, pass, creds);
	if (e->reading)
		elf_cache__await(c, e, pass);
	if (e->reading) {
		c->late += !e->late;
		e->late = true;
		return NULL;
	}
	return e->tab && elf_cache__may(c, e, tgid, m, creds) ? e->tab : NULL;
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

	elf_cache__collect(c);
	while ((old = lru__oldest(&c->held)) != NULL &&
	       elf_entry__of(old)->held_pass + grace < pass)
		elf_cache__release(c, elf_entry__of(old));
}

void elf_cache__stats(struct elf_cache *c, struct elf_cache_stats *st)
{
	pthread_mutex_lock(&c->lock);
	st->reading = c->in_flight;
	pthread_mutex_unlock(&c->lock);
	st->files = c->entries.n;
	st->tables = c->n_tables;
	st->bytes = c->tables.bytes;
	st->held_files = c->held.n;
	st->no_fds = c->no_fds;
	st->unreadable = c->unreadable;
	st->late = c->late;
	memcpy(st->debug_refused, c->debug_refused, sizeof(st->debug_refused));
}

static void elf_entry__release_node(struct id_node *node)
{
	elf_entry__free((struct elf_entry *)node);
}

/* Frees the jobs of list @job. */
static void read_jobs__free(struct read_job *job)
{
	while (job) {
		struct read_job *next = job->next;

		read_job__free(job);
		job = next;
	}
}

void elf_cache__free(struct elf_cache *c)
{
	if (!c)
		return;
	if (c->started) {
		pthread_mutex_lock(&c->lock);
		__atomic_store_n(&c->stop, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&c->wake);
		pthread_mutex_unlock(&c->lock);
		for (int i = 0; i < c->started; i++)
			pthread_join(c->readers[i], NULL);
		read_jobs__free(c->queue);
		read_jobs__free(c->done);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->wake);
		pthread_cond_destroy(&c->done_cond);
	}
	id_table__clear(&c->entries, elf_entry__release_node, false);
	free(c->proc_root);
	free(c->debug_root);
	free(c);
}
