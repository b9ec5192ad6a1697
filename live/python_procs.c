// SPDX-License-Identifier: GPL-2.0
/*
 * python_procs: two tables.
 *
 * - Processes (struct py_process), by tgid: what was found for the maps of
 *   one generation, and what the walk was told. A process is looked at
 *   again when its maps' generation changes (an exec, a library loaded);
 *   described again, when what was found differs, with a new naming
 *   generation (its code objects' names from before are not reused).
 * - Code objects (struct py_code_entry), by (tgid, naming generation, tag,
 *   address), on an LRU list by last use counting their bytes.
 */
#include "live/python_procs.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "python/code_name.h"
#include "python/interp.h"
#include "python/offsets.h"
#include "symbols/id_table.h"
#include "symbols/lru.h"
#include "symbols/mapped_file.h"

#define PY_CHECK_TRIES 20               /* passes an interpreter may take to start running */
#define CODE_CACHE_BYTES (16u << 20)    /* code objects' names and line tables kept */

enum py_state {
	PYS_NONE,        /* maps no interpreter */
	PYS_PENDING,     /* an interpreter not running yet */
	PYS_WALKED,      /* described to the walk */
	PYS_UNSUPPORTED, /* described as a build that did not check out */
};

struct py_process {
	struct id_node node; /* {tgid} */
	uint64_t maps_gen;
	uint32_t gen;        /* naming generation */
	uint8_t state;       /* enum py_state */
	uint8_t tries;
	bool ended;
	struct py_proc proc; /* as described */
	struct python_probe *probe; /* counting its code objects' frees; NULL: none */
	uint64_t probed_inode;      /* the file probed, ... */
	uint32_t probed_dev[2];     /* ... on this device (major, minor) ... */
	uint64_t probed_off;        /* ... at this offset */
	uint64_t frees_seen;        /* the probe's count ... */
	double frees_at;            /* ... at this time (0: not read yet) */
	bool frees_busy;            /* freed too fast to be counted: not probed again */
};

struct py_code_entry {
	struct id_node node; /* code_key() */
	struct lru_node lru;
	struct py_code code;
};

struct python_procs {
	char *proc_root;
	struct python_maps *maps;
	struct py_interp_cache *interps; /* what interpreters' files say, read once per file */
	struct id_table procs, codes;
	struct lru code_lru;
	struct py_process **ended; /* a pass's scratch: the processes to forget */
	size_t ended_cap;
	uint32_t next_gen;
	struct python_procs_stats st;
};

int python_procs__new(const char *proc_root, struct python_procs **out)
{
	struct python_procs *pp = calloc(1, sizeof(*pp));
	int err;

	*out = NULL;
	if (!pp)
		return -ENOMEM;
	pp->proc_root = strdup(proc_root ? proc_root : "/proc");
	pp->interps = py_interp_cache__new();
	err = pp->proc_root && pp->interps ? python_maps__new(&pp->maps) : -ENOMEM;
	if (err) {
		python_procs__free(pp);
		return err;
	}
	lru__init(&pp->code_lru);
	*out = pp;
	return 0;
}

struct python_maps *python_procs__maps(struct python_procs *pp)
{
	return pp->maps;
}

static struct py_process *find_process(const struct python_procs *pp, uint32_t tgid)
{
	return (struct py_process *)id_table__find(&pp->procs, tgid, 0);
}

/* Counts @p in the stats by its state, @delta (1 or -1). */
static void count_state(struct python_procs *pp, const struct py_process *p, int delta)
{
	if (p->state == PYS_WALKED)
		pp->st.walked += delta;
	else if (p->state == PYS_UNSUPPORTED)
		pp->st.unsupported += delta;
	else if (p->state == PYS_PENDING)
		pp->st.pending += delta;
}

static void set_state(struct python_procs *pp, struct py_process *p, enum py_state state)
{
	count_state(pp, p, -1);
	p->state = state;
	count_state(pp, p, 1);
}

/* py_layout__check()'s question: is @tid a thread of the process in @ctx? */
static bool has_thread(void *ctx, uint64_t tid)
{
	const struct python_procs *pp = ((void **)ctx)[0];
	const struct py_process *p = ((void **)ctx)[1];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%" PRIu64 "/task/%" PRIu64, pp->proc_root,
		 p->node.key[0], tid);
	return access(path, F_OK) == 0;
}

/* Tells the walk about @p as its state says: walked, or counted as unsupported. */
static void describe(struct python_procs *pp, struct py_process *p)
{
	uint32_t tgid = (uint32_t)p->node.key[0];

	if (p->state == PYS_WALKED)
		p->proc.flags = PY_PROC_SUPPORTED | (p->probe ? PY_PROC_FREES_COUNTED : 0);
	else
		p->proc.flags = 0;
	if (p->state == PYS_WALKED || p->state == PYS_UNSUPPORTED) {
		if (python_maps__put(pp->maps, tgid, &p->proc))
			set_state(pp, p, PYS_PENDING); /* the map is full: asked again later */
	} else {
		python_maps__drop(pp->maps, tgid);
	}
}

/*
 * Checks @p's layout against its memory: walked when it checks out, an
 * unsupported build when it does not (or has not after PY_CHECK_TRIES
 * tries), pending while its interpreter is not running yet. One that checks
 * out has its main interpreter's address read (3.12+), for the walk.
 */
static void check(struct python_procs *pp, struct py_process *p)
{
	void *ctx[2] = { pp, p };
	struct py_proc_mem box;
	struct py_mem mem;
	uint64_t main;
	int err;

	py_proc_mem__init(&box, pp->proc_root, (uint32_t)p->node.key[0], &mem);
	err = py_layout__check(&mem, &p->proc, has_thread, ctx);
	if (err == -EAGAIN && ++p->tries < PY_CHECK_TRIES) {
		set_state(pp, p, PYS_PENDING);
		return;
	}
	if (err || p->proc.l.runtime_interp_main == PY_OFF_NONE ||
	    py_mem__word(&mem, p->proc.runtime + p->proc.l.runtime_interp_main, &main))
		main = 0;
	p->proc.main_interp = main;
	set_state(pp, p, err ? PYS_UNSUPPORTED : PYS_WALKED);
	describe(pp, p);
}

/*
 * Fills @proc, process @tgid's, for interpreter @in: its runtime, version,
 * layout (flametop's table for 3.10-3.12, or the interpreter's own debug
 * offsets for 3.13) and 3.12's co_version counter where the file names it.
 * False for a version or build it has no layout for.
 */
static bool find_layout(const struct python_procs *pp, uint32_t tgid, const struct py_interp *in,
			struct py_proc *proc)
{
	uint8_t head[PY_DEBUG_OFFSETS_BYTES];
	struct py_proc_mem box;
	struct py_mem mem;
	uint64_t hexversion = 0;

	proc->runtime = in->runtime;
	proc->version = in->version;
	py_proc_mem__init(&box, pp->proc_root, tgid, &mem);
	if (in->hexversion_addr && (py_mem__word(&mem, in->hexversion_addr, &hexversion) ||
				    hexversion >> 16 != in->version))
		return false; /* Py_Version says another version than the file's name */
	if (in->version < 0x0300 + PY_MINOR_FIRST || in->version > 0x0300 + PY_MINOR_LAST ||
	    in->abi_flags) /* another layout: a debug build's objects, a free-threaded one's */
		return false;
#if !defined(__x86_64__)
	if (in->version == 0x030a) /* its threads are told apart by the thread pointer: x86-64's */
		return false;
#endif
	if (in->version < 0x030d) {
		proc->code_count = in->version == 0x030c ? in->code_count_addr : 0;
		return !py_layout__table(in->version, &proc->l);
	}
	return !py_mem__read(&mem, in->runtime, head, sizeof(head)) &&
	       !py_layout__debug_offsets(head, sizeof(head), &proc->l, &hexversion) &&
	       hexversion >> 16 == in->version;
}

/* Whether @p's probe is on the file of @in's mapping, at its code_dealloc(). */
static bool probed_at(const struct py_process *p, const struct py_interp *in)
{
	return p->probe && p->probed_inode == in->map->inode &&
	       p->probed_dev[0] == in->map->dev_major && p->probed_dev[1] == in->map->dev_minor &&
	       p->probed_off == in->code_free_off;
}

/* Drops @p's probe, if any. */
static void unprobe(struct python_procs *pp, struct py_process *p)
{
	if (!p->probe)
		return;
	python_maps__unprobe(pp->maps, p->probe);
	p->probe = NULL;
	pp->st.probed--;
}

/*
 * Counts the code objects @p frees when its interpreter @in has no
 * co_version (3.10, 3.11) and its code_dealloc() was found: a probe for
 * @p only, on the file it maps, unless it has one (look() keeps it while
 * that stays its interpreter); else none. Without one, each walk reads
 * each code object it meets. Returns whether a probe was attached now (@p
 * is to be described again).
 */
static bool probe_frees(struct python_procs *pp, struct py_process *p, const struct py_interp *in)
{
	uint32_t tgid = (uint32_t)p->node.key[0];
	int fd, err;

	if (p->probe)
		return false; /* look() dropped one on another file before */
	if (in->version >= 0x030c || !in->code_free_off || p->frees_busy)
		return false;
	fd = mapped_file__open(pp->proc_root, tgid, in->map);
	if (fd < 0)
		return false;
	err = python_maps__probe(pp->maps, fd, in->code_free_off, tgid, &p->probe);
	if (err) {
		pp->st.probe_err = err;
	} else {
		pp->st.probed++;
		p->frees_at = 0;
		p->probed_inode = in->map->inode;
		p->probed_dev[0] = in->map->dev_major;
		p->probed_dev[1] = in->map->dev_minor;
		p->probed_off = in->code_free_off;
	}
	close(fd);
	return p->probe != NULL;
}

/*
 * Looks at @p's maps @maps afresh: what interpreter, what layout, and
 * checks it. Names given before are kept only for the same interpreter in
 * the same place.
 */
static void look(struct python_procs *pp, struct py_process *p, const struct proc_maps *maps)
{
	uint32_t tgid = (uint32_t)p->node.key[0];
	struct py_proc proc = { 0 };
	struct py_interp in;
	bool found, known;

	p->tries = 0;
	if (py_interp__find(maps, &in) || py_interp__locate(pp->interps, pp->proc_root, tgid, maps, &in)) {
		set_state(pp, p, PYS_NONE);
		describe(pp, p);
		unprobe(pp, p);
		return;
	}
	found = find_layout(pp, tgid, &in, &proc);
	proc.flags = p->proc.flags;
	proc.main_interp = p->proc.main_interp; /* check() reads it again */
	known = p->state != PYS_NONE && !memcmp(&proc, &p->proc, sizeof(proc));
	p->proc = proc;
	if (!known)
		p->gen = ++pp->next_gen;
	if (!found) {
		set_state(pp, p, PYS_UNSUPPORTED);
		describe(pp, p);
		unprobe(pp, p);
		return;
	}
	if (!probed_at(p, &in))
		unprobe(pp, p); /* another interpreter's: gone before the walk is told */
	check(pp, p);
	if (p->state == PYS_UNSUPPORTED)
		unprobe(pp, p);
	else if (probe_frees(pp, p, &in)) /* after: the walk need not wait for a probe */
		describe(pp, p);
}

void python_procs__note(struct python_procs *pp, uint32_t tgid, const struct proc_maps *maps,
			uint64_t maps_gen)
{
	struct py_process *p = find_process(pp, tgid);

	if (p && p->maps_gen == maps_gen) { /* the same maps: only a pending check, again */
		p->ended = false;
		if (p->state == PYS_PENDING)
			check(pp, p);
		return;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return;
		p->node.key[0] = tgid;
		if (id_table__insert(&pp->procs, &p->node)) {
			free(p);
			return;
		}
	}
	p->ended = false;
	p->maps_gen = maps_gen;
	look(pp, p, maps);
}

void python_procs__exited(struct python_procs *pp, uint32_t tgid)
{
	struct py_process *p = find_process(pp, tgid);

	if (p)
		p->ended = true;
}

/* Forgets @p: the walk, the tables. */
static void forget(struct python_procs *pp, struct py_process *p)
{
	python_maps__drop(pp->maps, (uint32_t)p->node.key[0]);
	unprobe(pp, p);
	pp->st.frees_busy -= p->frees_busy;
	count_state(pp, p, -1);
	id_table__remove(&pp->procs, &p->node);
	free(p);
}

/*
 * Drops @p's probe when it counted over FREES_MAX_RATE frees a second
 * since the last look, at least a second before @now.
 */
static void watch_frees(struct python_procs *pp, struct py_process *p, double now)
{
	uint64_t count;

	if ((p->frees_at && now - p->frees_at < 1.0) || /* the map read once a second at most */
	    python_maps__frees(pp->maps, (uint32_t)p->node.key[0], &count))
		return;
	if (p->frees_at &&
	    (uint32_t)count - (uint32_t)p->frees_seen > FREES_MAX_RATE * (now - p->frees_at)) {
		unprobe(pp, p);
		p->frees_busy = true;
		pp->st.frees_busy++;
		describe(pp, p);
		return;
	}
	p->frees_seen = count;
	p->frees_at = now;
}

void python_procs__pass(struct python_procs *pp, double now)
{
	struct id_node *n;
	size_t nended = 0;

	for (size_t i = 0; (n = id_table__next(&pp->procs, &i));) {
		struct py_process *p = (struct py_process *)n;

		if (p->ended && !array__grow((void **)&pp->ended, &pp->ended_cap, nended + 1,
					     sizeof(*pp->ended), 16))
			pp->ended[nended++] = p;
		else if (p->state == PYS_PENDING)
			check(pp, p);
		else if (p->probe)
			watch_frees(pp, p, now);
	}
	for (size_t i = 0; i < nended; i++)
		forget(pp, pp->ended[i]);
}

uint32_t python_procs__gen(const struct python_procs *pp, uint32_t tgid)
{
	const struct py_process *p = find_process(pp, tgid);

	return p && p->state == PYS_WALKED ? p->gen : 0;
}

/* The code cache's key of code object @code of tag @tag in generation @gen. */
static void code_key(uint32_t gen, uint32_t tag, uint64_t code, uint64_t key[2])
{
	key[0] = (uint64_t)gen << 32 | tag;
	key[1] = code;
}

/* Drops the least recently used code objects until the cache is within its bytes. */
static void trim_codes(struct python_procs *pp)
{
	struct lru_node *n;

	while (pp->code_lru.bytes > CODE_CACHE_BYTES && (n = lru__oldest(&pp->code_lru))) {
		struct py_code_entry *e = lru_entry(n, struct py_code_entry, lru);

		lru__remove(&pp->code_lru, n);
		id_table__remove(&pp->codes, &e->node);
		py_code__free(&e->code);
		free(e);
	}
	pp->st.cache_bytes = pp->code_lru.bytes;
}

/*
 * The code object @code with tag @tag of @p, from the cache or read now
 * (then cached). NULL with *@status saying why.
 */
static const struct py_code *code_of(struct python_procs *pp, const struct py_process *p,
				     uint64_t code, uint32_t tag, int *status)
{
	struct py_code_entry *e;
	struct py_proc_mem box;
	struct py_mem mem;
	uint64_t key[2];
	int err;

	code_key(p->gen, tag, code, key);
	e = (struct py_code_entry *)id_table__find(&pp->codes, key[0], key[1]);
	if (e) {
		lru__touch(&pp->code_lru, &e->lru);
		return &e->code;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		*status = PY_UNREADABLE;
		return NULL;
	}
	py_proc_mem__init(&box, pp->proc_root, (uint32_t)p->node.key[0], &mem);
	err = tag ? py_code__read(&mem, &p->proc.l, code, tag, &e->code) : -EFAULT;
	pp->st.code_reads += tag != 0;
	e->node.key[0] = key[0];
	e->node.key[1] = key[1];
	if (err || id_table__insert(&pp->codes, &e->node)) {
		*status = err == -ESTALE ? PY_GONE : PY_UNREADABLE;
		py_code__free(&e->code);
		free(e);
		return NULL;
	}
	lru__add(&pp->code_lru, &e->lru, sizeof(*e) + e->code.linetable_len);
	trim_codes(pp);
	return &e->code; /* the newest: never the one trimmed */
}

int python_procs__name(struct python_procs *pp, uint32_t tgid, uint64_t code, uint64_t word,
		       char *buf, size_t size)
{
	const struct py_process *p = find_process(pp, tgid);
	int status = PY_UNREADABLE;
	const struct py_code *c;

	c = p && p->state == PYS_WALKED ? code_of(pp, p, code, (uint32_t)(word >> 32), &status)
					 : NULL;
	if (c) {
		uint32_t lasti = (uint32_t)word & PY_LASTI_NONE;

		py_code__frame_name(c, py_code__line(c, p->proc.version, lasti), buf, size);
		return PY_NAMED;
	}
	snprintf(buf, size, "[python: code object %s]", status == PY_GONE ? "gone" : "unreadable");
	if (status == PY_GONE)
		pp->st.gone++;
	else
		pp->st.unreadable++;
	return status;
}

void python_procs__stats(const struct python_procs *pp, struct python_procs_stats *st)
{
	*st = pp->st;
}

static void release_process(struct id_node *n)
{
	free(n);
}

void python_procs__free(struct python_procs *pp)
{
	struct lru_node *n;

	if (!pp)
		return;
	while ((n = lru__oldest(&pp->code_lru)) != NULL) {
		struct py_code_entry *e = lru_entry(n, struct py_code_entry, lru);

		lru__remove(&pp->code_lru, n);
		id_table__remove(&pp->codes, &e->node);
		py_code__free(&e->code);
		free(e);
	}
	id_table__clear(&pp->codes, release_process, false); /* empty: its slots */
	id_table__clear(&pp->procs, release_process, false);
	python_maps__free(pp->maps);
	free(pp->ended);
	free(pp->proc_root);
	py_interp_cache__free(pp->interps);
	free(pp);
}
