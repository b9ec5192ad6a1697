// SPDX-License-Identifier: GPL-2.0
/*
 * addr_counts: sites in one array with a hash index, modules in another.
 *
 * A function is counted once per stack: each addr_counts__add() has a
 * serial number, and each frame id the last it was counted in (a flat
 * array by frame id: the profile's ids are dense). The still
 * picture costs nothing to take: a freeze starts an epoch, and a site
 * counted for the first time in an epoch first keeps its counts as they
 * were (fself, fcalls); one not counted since shows its counts as they
 * are.
 */
#include "profile/addr_counts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/hash_index.h"
#include "profile/profile.h"

struct site_entry {
	uint64_t addr;
	uint64_t self, calls;
	uint64_t fself, fcalls; /* the counts at the freeze of @epoch */
	uint32_t frame, module;
	uint32_t epoch; /* fself and fcalls hold the counts frozen when it is the store's */
};

struct addr_counts {
	struct site_entry *sites;
	size_t nsites, sites_cap;
	struct hash_index site_index;
	uint32_t *frame_stamps; /* by frame id: the serial of the last stack that counted it */
	size_t frame_stamps_cap;
	struct addr_module *modules; /* paths owned */
	size_t nmodules, modules_cap;
	struct hash_index module_index;
	uint64_t gen;
	uint32_t serial;
	uint32_t epoch;
	bool frozen;
	uint64_t dropped;
};

struct addr_counts *addr_counts__new(void)
{
	struct addr_counts *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (hash_index__init(&c->site_index, 1024) || hash_index__init(&c->module_index, 64)) {
		addr_counts__free(c);
		return NULL;
	}
	c->gen = 1;
	c->serial = 1;
	c->epoch = 1;
	return c;
}

/* What makes a module itself: the file, the process's mapping, or the kernel. */
static void module_key(const struct addr_module *m, uint32_t w[5])
{
	uint64_t a = 0, b = 0;

	if (m->space == SPACE_FILE) {
		a = m->dev;
		b = m->inode;
	} else if (m->space == SPACE_MEMORY) {
		a = (uint64_t)m->tgid;
		b = m->start;
	}

	w[0] = m->space;
	w[1] = (uint32_t)a;
	w[2] = (uint32_t)(a >> 32);
	w[3] = (uint32_t)b;
	w[4] = (uint32_t)(b >> 32);
}

static uint64_t module_hash(const struct addr_module *m)
{
	uint32_t w[5];

	module_key(m, w);
	return hash_words(w, 5, 0);
}

struct module_probe {
	const struct addr_counts *c;
	const struct addr_module *m;
};

static bool same_module(const void *ctx, uint32_t i)
{
	const struct module_probe *p = ctx;
	uint32_t a[5], b[5];

	module_key(&p->c->modules[i], a);
	module_key(p->m, b);
	return !memcmp(a, b, sizeof(a));
}

static uint64_t rehash_module(const void *ctx, uint32_t i)
{
	return module_hash(&((const struct addr_counts *)ctx)->modules[i]);
}

/* Gives module @to the process and mapping of @from (its path stays). */
static void module_take_mapping(struct addr_module *to, const struct addr_module *from)
{
	to->tgid = from->tgid;
	to->start = from->start;
	to->end = from->end;
	to->pgoff = from->pgoff;
}

uint32_t addr_counts__module(struct addr_counts *c, const struct addr_module *m)
{
	struct module_probe probe = { c, m };
	uint64_t hash = module_hash(m);
	struct hash_slot *slot = hash_index__find(&c->module_index, hash, same_module, &probe);
	struct addr_module *e;

	if (slot->entry1) {
		module_take_mapping(&c->modules[slot->entry1 - 1], m);
		return slot->entry1 - 1;
	}
	if (array__grow((void **)&c->modules, &c->modules_cap, c->nmodules + 1,
			sizeof(*c->modules), 16))
		return ADDR_NONE;
	e = &c->modules[c->nmodules];
	*e = *m;
	e->path = strdup(m->path ? m->path : "");
	if (!e->path)
		return ADDR_NONE;
	if (hash_index__insert(&c->module_index, hash, (uint32_t)c->nmodules, rehash_module, c)) {
		free((char *)e->path);
		return ADDR_NONE;
	}
	return (uint32_t)c->nmodules++;
}

const struct addr_module *addr_counts__module_info(const struct addr_counts *c, uint32_t id)
{
	return id < c->nmodules ? &c->modules[id] : NULL;
}

static uint64_t site_hash(uint32_t frame, uint32_t module, uint64_t addr)
{
	uint32_t w[4] = { frame, module, (uint32_t)addr, (uint32_t)(addr >> 32) };

	return hash_words(w, 4, 0);
}

struct site_probe {
	const struct site_entry *sites;
	uint32_t frame, module;
	uint64_t addr;
};

static bool same_site(const void *ctx, uint32_t i)
{
	const struct site_probe *p = ctx;
	const struct site_entry *e = &p->sites[i];

	return e->addr == p->addr && e->frame == p->frame && e->module == p->module;
}

static uint64_t rehash_site(const void *sites, uint32_t i)
{
	const struct site_entry *e = (const struct site_entry *)sites + i;

	return site_hash(e->frame, e->module, e->addr);
}

/*
 * The site (@frame, @module, @addr) in @sites (@n of them, room for one
 * more) indexed by @index, added with no counts when new (*@n grows).
 * Returns its id, or ADDR_NONE when out of memory.
 */
static uint32_t site_in(struct site_entry *sites, size_t *n, struct hash_index *index,
			uint32_t frame, uint32_t module, uint64_t addr, uint32_t epoch)
{
	struct site_probe probe = { sites, frame, module, addr };
	uint64_t hash = site_hash(frame, module, addr);
	struct hash_slot *slot = hash_index__find(index, hash, same_site, &probe);

	if (slot->entry1)
		return slot->entry1 - 1;
	sites[*n] = (struct site_entry){ .addr = addr, .frame = frame, .module = module,
					 .epoch = epoch };
	if (hash_index__insert(index, hash, (uint32_t)*n, rehash_site, sites))
		return ADDR_NONE;
	return (uint32_t)(*n)++;
}

/* Makes room in the frame stamps for frame @frame. Returns 0 or -ENOMEM. */
static int stamp_room(struct addr_counts *c, uint32_t frame)
{
	size_t cap = c->frame_stamps_cap;

	if (array__grow((void **)&c->frame_stamps, &c->frame_stamps_cap, (size_t)frame + 1,
			sizeof(*c->frame_stamps), 1024))
		return -ENOMEM;
	memset(c->frame_stamps + cap, 0, (c->frame_stamps_cap - cap) * sizeof(*c->frame_stamps));
	return 0;
}

uint32_t addr_counts__site(struct addr_counts *c, uint32_t frame, uint32_t module, uint64_t addr)
{
	if (stamp_room(c, frame) ||
	    array__grow((void **)&c->sites, &c->sites_cap, c->nsites + 1, sizeof(*c->sites), 1024))
		return ADDR_NONE;
	/* Made after the still picture was taken: it has no counts in it. */
	return site_in(c->sites, &c->nsites, &c->site_index, frame, module, addr, c->epoch);
}

uint64_t addr_counts__gen(const struct addr_counts *c)
{
	return c->gen;
}

/* Forgets which stack counted each frame last. */
static void clear_stamps(struct addr_counts *c)
{
	if (c->frame_stamps)
		memset(c->frame_stamps, 0, c->frame_stamps_cap * sizeof(*c->frame_stamps));
}

/* The serial of the next stack counted; at a wrap every stamp starts over. */
static uint32_t next_serial(struct addr_counts *c)
{
	if (++c->serial == 0) {
		clear_stamps(c);
		c->serial = 1;
	}
	return c->serial;
}

/* Keeps @e's counts as the still picture shows them, before they first change in its epoch. */
static void keep_frozen(const struct addr_counts *c, struct site_entry *e)
{
	if (e->epoch == c->epoch)
		return;
	e->fself = e->self;
	e->fcalls = e->calls;
	e->epoch = c->epoch;
}

void addr_counts__add(struct addr_counts *c, const uint32_t *frames, const uint32_t *sites,
		      uint32_t n, uint32_t leaf, uint64_t count)
{
	/*
	 * Runs for every frame drained: what it reads of the store is read
	 * once, and a function counted already (recursion) costs a look at
	 * its stamp, by the frame id the stack holds, not through its site.
	 */
	uint32_t serial = next_serial(c), *stamps = c->frame_stamps;
	size_t nsites = c->nsites, nstamps = c->frame_stamps_cap;
	struct site_entry *entries = c->sites;

	for (uint32_t i = n; i-- > 0;) { /* from the leaf out: a function's innermost site counts */
		struct site_entry *e;

		if (sites[i] >= nsites || frames[i] >= nstamps || stamps[frames[i]] == serial)
			continue;
		stamps[frames[i]] = serial;
		e = &entries[sites[i]];
		keep_frozen(c, e);
		if (i == leaf)
			e->self = count__add(e->self, count);
		else
			e->calls = count__add(e->calls, count);
	}
}

size_t addr_counts__nsites(const struct addr_counts *c)
{
	return c->nsites;
}

/* The counts of @e in the still picture. */
static void frozen_counts(const struct addr_counts *c, const struct site_entry *e, uint64_t *self,
			  uint64_t *calls)
{
	bool kept = e->epoch == c->epoch;

	*self = kept ? e->fself : e->self;
	*calls = kept ? e->fcalls : e->calls;
}

void addr_counts__site_at(const struct addr_counts *c, uint32_t id, struct addr_site *out)
{
	const struct site_entry *e = &c->sites[id];

	*out = (struct addr_site){ .addr = e->addr, .frame = e->frame, .module = e->module,
				   .self = e->self, .calls = e->calls };
	if (c->frozen)
		frozen_counts(c, e, &out->self, &out->calls);
}

void addr_counts__freeze(struct addr_counts *c)
{
	c->epoch++;
	c->frozen = true;
}

void addr_counts__thaw(struct addr_counts *c)
{
	c->frozen = false;
}

/* Sites laid out anew: what fold and renumbering build before they replace the store's. */
struct site_set {
	struct site_entry *sites;
	size_t n;
	struct hash_index index;
};

static int site_set__init(struct site_set *s, size_t room)
{
	s->n = 0;
	s->sites = malloc((room ? room : 1) * sizeof(*s->sites));
	if (!s->sites || hash_index__init(&s->index, room * 2 + 16)) {
		free(s->sites);
		return -ENOMEM;
	}
	return 0;
}

static void site_set__free(struct site_set *s)
{
	free(s->sites);
	hash_index__free(&s->index);
}

/* Adds @e's counts, live and frozen, into @to. */
static void merge_site(const struct addr_counts *c, struct site_entry *to,
		       const struct site_entry *e)
{
	uint64_t fs, fc, ts, tc;

	frozen_counts(c, e, &fs, &fc);
	frozen_counts(c, to, &ts, &tc);
	to->self = count__add(to->self, e->self);
	to->calls = count__add(to->calls, e->calls);
	to->fself = count__add(ts, fs);
	to->fcalls = count__add(tc, fc);
	to->epoch = c->epoch;
}

/*
 * Puts @e into @s: as itself, or with @fold into its function's folded
 * site. Returns 0 or -ENOMEM.
 */
static int site_set__put(const struct addr_counts *c, struct site_set *s,
			 const struct site_entry *e, bool fold)
{
	uint64_t addr = fold ? ADDR_FOLDED : e->addr;
	uint32_t id = site_in(s->sites, &s->n, &s->index, e->frame, e->module, addr, c->epoch);

	if (id == ADDR_NONE)
		return -ENOMEM;
	merge_site(c, &s->sites[id], e);
	return 0;
}

/* Replaces the store's sites with @s; ids change. */
static void take_sites(struct addr_counts *c, struct site_set *s)
{
	free(c->sites);
	hash_index__free(&c->site_index);
	c->sites = s->sites;
	c->nsites = s->n;
	c->sites_cap = s->n ? s->n : 1;
	c->site_index = s->index;
	c->gen++;
}

/* Indexes every site anew (their keys changed). The index has room for them: it does not grow. */
static void reindex_sites(struct addr_counts *c)
{
	hash_index__clear(&c->site_index);
	for (size_t i = 0; i < c->nsites; i++) {
		const struct site_entry *e = &c->sites[i];

		hash_index__insert(&c->site_index, site_hash(e->frame, e->module, e->addr),
				   (uint32_t)i, rehash_site, c->sites);
	}
}

/*
 * Drops the modules no site uses and renumbers the others, then indexes
 * the sites by their new module ids; without memory, keeps them all.
 */
static void compact_modules(struct addr_counts *c)
{
	uint32_t *map = calloc(c->nmodules ? c->nmodules : 1, sizeof(*map));
	struct hash_index index;
	size_t kept = 0;

	if (!map)
		return;
	for (size_t i = 0; i < c->nsites; i++)
		map[c->sites[i].module] = 1;
	if (hash_index__init(&index, c->nmodules * 2 + 16)) {
		free(map);
		return;
	}
	for (size_t i = 0; i < c->nmodules; i++) {
		if (!map[i]) {
			free((char *)c->modules[i].path);
			map[i] = ADDR_NONE;
			continue;
		}
		c->modules[kept] = c->modules[i];
		map[i] = (uint32_t)kept;
		/* The index has room for all: the insert does not grow it. */
		hash_index__insert(&index, module_hash(&c->modules[kept]), (uint32_t)kept,
				   rehash_module, c);
		kept++;
	}
	hash_index__free(&c->module_index);
	c->module_index = index;
	c->nmodules = kept;
	for (size_t i = 0; i < c->nsites; i++)
		c->sites[i].module = map[c->sites[i].module];
	free(map);
	reindex_sites(c);
}

/* A site's worth keeping: what it counted. */
static uint64_t worth(const struct site_entry *e)
{
	return count__add(e->self, e->calls);
}

/* qsort_r()'s order of site ids: by worth in the sites @ctx, then by id. */
static int by_worth(const void *a, const void *b, void *ctx)
{
	const struct site_entry *sites = ctx;
	uint64_t wa = worth(&sites[*(const uint32_t *)a]);
	uint64_t wb = worth(&sites[*(const uint32_t *)b]);

	if (wa != wb)
		return wa < wb ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The ids of @n sites of @sites, least worth first. NULL when out of memory. */
static uint32_t *least_first(const struct site_entry *sites, size_t n)
{
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_worth, (void *)sites);
	return order;
}

/*
 * Marks in @fold the least worth sites (by @order) to fold, as few as
 * leave @target sites with the folded sites they go to: @groups gathers
 * those (one per function and module). Returns 0 or -ENOMEM.
 */
static int mark_folded(const struct addr_counts *c, const uint32_t *order, size_t target,
		       uint8_t *fold, struct site_set *groups)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->nsites; i++) { /* the folded sites there are already */
		if (c->sites[i].addr != ADDR_FOLDED)
			kept++;
		else if (site_set__put(c, groups, &c->sites[i], true))
			return -ENOMEM;
	}
	for (size_t i = 0; i < c->nsites && kept + groups->n > target; i++) {
		const struct site_entry *e = &c->sites[order[i]];

		if (e->addr == ADDR_FOLDED)
			continue;
		fold[order[i]] = 1;
		kept--;
		if (site_set__put(c, groups, e, true))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Lays the sites out in @s, the least worth of them (by @order) folded
 * into their functions' folded sites, as few as leave @target sites.
 * Returns 0 or -ENOMEM.
 */
static int fold_into(const struct addr_counts *c, struct site_set *s, const uint32_t *order,
		     size_t target)
{
	uint8_t *fold = calloc(c->nsites ? c->nsites : 1, 1);
	struct site_set groups;
	int err = fold ? site_set__init(&groups, c->nsites) : -ENOMEM;

	if (!err) {
		err = mark_folded(c, order, target, fold, &groups);
		site_set__free(&groups);
	}
	for (size_t i = 0; i < c->nsites && !err; i++)
		err = site_set__put(c, s, &c->sites[i], fold[i] || c->sites[i].addr == ADDR_FOLDED);
	free(fold);
	return err;
}

/*
 * Where @s still holds more than @target sites (functions' folded sites,
 * one per function and module), keeps the @target most worth and counts
 * the others' counts as dropped. Returns 0 or -ENOMEM.
 */
static int drop_least(struct addr_counts *c, struct site_set *s, size_t target)
{
	uint32_t *order;
	struct site_set kept;
	size_t drop;
	int err = 0;

	if (s->n <= target)
		return 0;
	order = least_first(s->sites, s->n);
	if (!order || site_set__init(&kept, target)) {
		free(order);
		return -ENOMEM;
	}
	drop = s->n - target;
	for (size_t i = 0; i < drop; i++)
		c->dropped = count__add(c->dropped, worth(&s->sites[order[i]]));
	for (size_t i = drop; i < s->n && !err; i++)
		err = site_set__put(c, &kept, &s->sites[order[i]], false);
	free(order);
	site_set__free(s);
	*s = kept;
	return err;
}

long addr_counts__fold(struct addr_counts *c, size_t max_sites)
{
	size_t target = max_sites - max_sites / 4, before = c->nsites;
	struct site_set s;
	uint32_t *order;
	int err;

	if (!max_sites || c->nsites <= max_sites)
		return 0;
	order = least_first(c->sites, c->nsites);
	if (!order || site_set__init(&s, c->nsites)) {
		free(order);
		return -ENOMEM;
	}
	err = fold_into(c, &s, order, target);
	free(order);
	if (!err)
		err = drop_least(c, &s, target);
	if (err) {
		site_set__free(&s);
		return err;
	}
	take_sites(c, &s);
	compact_modules(c);
	return (long)(before - c->nsites);
}

uint64_t addr_counts__dropped(const struct addr_counts *c)
{
	return c->dropped;
}

void addr_counts__renumber_frames(struct addr_counts *c, const uint32_t *map, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->nsites; i++) {
		struct site_entry e = c->sites[i];

		e.frame = e.frame < n ? map[e.frame] : PROFILE_NONE;
		if (e.frame != PROFILE_NONE)
			c->sites[kept++] = e;
	}
	c->nsites = kept;
	c->gen++;
	clear_stamps(c); /* by the old ids */
	compact_modules(c); /* and the sites indexed by their new keys */
}

void addr_counts__reset(struct addr_counts *c)
{
	for (size_t i = 0; i < c->nmodules; i++)
		free((char *)c->modules[i].path);
	c->nmodules = 0;
	c->nsites = 0;
	hash_index__clear(&c->site_index);
	hash_index__clear(&c->module_index);
	c->dropped = 0;
	c->frozen = false;
	c->gen++;
}

size_t addr_counts__bytes(const struct addr_counts *c)
{
	size_t slots = c->site_index.mask + 1 + c->module_index.mask + 1;
	size_t bytes = sizeof(*c) + c->sites_cap * sizeof(*c->sites) +
		       c->frame_stamps_cap * sizeof(*c->frame_stamps) +
		       c->modules_cap * sizeof(*c->modules) + slots * sizeof(struct hash_slot);

	for (size_t i = 0; i < c->nmodules; i++)
		bytes += strlen(c->modules[i].path) + 1;
	return bytes;
}

void addr_counts__free(struct addr_counts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nmodules; i++)
		free((char *)c->modules[i].path);
	free(c->modules);
	free(c->frame_stamps);
	free(c->sites);
	hash_index__free(&c->site_index);
	hash_index__free(&c->module_index);
	free(c);
}
