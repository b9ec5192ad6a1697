// SPDX-License-Identifier: GPL-2.0
/*
 * symbolizer: addresses to the names a user reads.
 *
 * Processes live in an id_table by tgid and on an LRU list by last use;
 * each holds a maps snapshot, its start time (to tell a reused pid), a
 * generation number (see symbolizer__user_gen()), and, once needed, its
 * perf map and the key of its vDSO image. Symbol tables live in the
 * elf_cache, shared by file identity.
 */
#include "symbols/symbolizer.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "symbols/elf_cache.h"
#include "symbols/id_table.h"
#include "symbols/kallsyms.h"
#include "symbols/ksym_watch.h"
#include "symbols/mmap_watch.h"
#include "symbols/lru.h"
#include "symbols/perfmap_cache.h"
#include "symbols/procinfo.h"
#include "symbols/procmaps.h"
#include "symbols/sanitize.h"
#include "thread.h"

#define PROCS_MAX 8192
#define ELF_CACHE_BYTES (512UL << 20)
#define PERF_MAP_BYTES (64UL << 20)
#define OPEN_FILES_MAX 4096
#define MISS_BACKOFF_MAX 64 /* passes between reloads for misses that find nothing new */
#define BPF_BACKOFF_MAX 4   /* without a ksym_watch: between reloads for BPF programs */
#define MAPS_BACKOFF_MAX 64 /* passes between maps re-reads that find nothing new */
#define REREAD_PASS_NS (50 * 1000000ull) /* maps re-reading a pass may start within */
#define VSYSCALL_ENTRY_BYTES 1024

/* Room for "name [module]" and "file+0xoffset" built from capped parts. */
#define SYM_TMP_BYTES (2 * NAME_MAX_BYTES + 32)

/*
 * A rate limit on reloads (the kernel table, a process's maps): allowed from
 * next_pass on, then every 2, 4, ... max passes while they find the same.
 */
struct reload_limit {
	uint64_t next_pass, backoff, max;
};

struct proc_entry {
	struct id_node node;	/* key: {tgid, 0} */
	struct lru_node lru;	/* by last use; bytes: what the entry holds */
	uint64_t start_time;	/* field 22 of /proc/PID/stat; 0 when unknown */
	uint64_t gen;		/* changes whenever names may change */
	uint64_t read_pass;	/* the pass of the last maps read */
	bool ended;		/* its maps were last taken from the announced ones: it ended */
	struct proc_vm vm;	/* the sizes of its mappings when last asked before a read ... */
	bool vm_known;		/* ... once they were */
	uint64_t checked_pass;	/* the pass of the last start-time check */
	uint64_t used_pass;	/* the pass of the last lookup or note */
	uint64_t vdso_key;	/* the vDSO image in the elf_cache; 0: not known yet */
	struct reload_limit maps_limit; /* re-reads of the maps that may find nothing new */
	struct proc_maps maps;
	struct perf_map_slot perf_map;
	struct proc_creds_memo creds; /* read when a file it maps is not everyone's to read */
	int pidfd; /* the process whose start time is start_time, or -1 (see symbolizer__check_start()) */
};

/* The kernel table as a thread reads it (symbolizer__load_kernel_begin()). */
struct kernel_load {
	pthread_t thread;
	bool started; /* and not joined yet */
	bool done;    /* the thread is through (atomic) */
	struct ksyms *ksyms;
	int err;
};

struct symbolizer {
	struct ksyms *ksyms;
	struct kernel_load loading;
	char *kallsyms_path, *modules_path, *proc_root;
	bool host_proc; /* proc_root is this machine's /proc, not a copy */
	bool raw_names;
	uint64_t pass;
	uint64_t gens; /* the last generation handed out */
	uint64_t kernel_gen, kernel_read_pass, kernel_loads;
	struct reload_limit miss_limit, bpf_limit, stale_limit;
	struct ksym_watch *kwatch; /* BPF programs announced; NULL: the kernel would not tell */
	uint64_t kwatch_pass;	   /* the pass it was last read in */
	bool kernel_stale;	   /* it lost announcements since the table was read */
	struct mmap_watch *mwatch; /* mappings announced; NULL: the kernel would not tell */
	uint64_t logged_maps;	   /* maps snapshots taken from its announcements */
	struct id_table procs;
	struct lru proc_lru;
	struct elf_cache *elfs;
	struct perf_map_cache perf_maps;
	uint64_t maps_reads, start_reads;
	uint64_t reread_ns; /* spent re-reading maps in this pass */
	size_t pidfds, max_pidfds; /* held by entries, and the most they may hold */
	long user_hz; /* the clock ticks of /proc/PID/stat's start time */
};

static struct proc_entry *proc_entry__of(struct lru_node *node)
{
	return lru_entry(node, struct proc_entry, lru);
}

static uint32_t proc_entry__tgid(const struct proc_entry *p)
{
	return (uint32_t)p->node.key[0];
}

static size_t proc_entry__bytes(const struct proc_entry *p)
{
	size_t n = sizeof(*p) + p->maps.n * sizeof(*p->maps.maps), i;

	for (i = 0; i < p->maps.n; i++)
		n += strlen(p->maps.maps[i].path) + 1;
	return n;
}

/*
 * What @p says about its addresses changed: a new generation, and new
 * accounting. Its credentials are read again when next needed (an exec
 * may have changed them).
 */
static void symbolizer__changed(struct symbolizer *s, struct proc_entry *p)
{
	p->gen = ++s->gens;
	proc_creds_memo__reset(&p->creds);
	lru__resize(&s->proc_lru, &p->lru, proc_entry__bytes(p));
}

/* Forgets what @p knew of its process's addresses. */
static void proc_entry__clear(struct symbolizer *s, struct proc_entry *p)
{
	p->ended = false;
	p->maps_limit = (struct reload_limit){ .backoff = 1, .max = MAPS_BACKOFF_MAX };
	p->vm_known = false;
	proc_maps__free(&p->maps);
	perf_map_cache__clear(&s->perf_maps, &p->perf_map);
	p->vdso_key = 0;
}

/* Closes @p's pidfd, if it has one. */
static void symbolizer__drop_pidfd(struct symbolizer *s, struct proc_entry *p)
{
	if (p->pidfd < 0)
		return;
	close(p->pidfd);
	p->pidfd = -1;
	s->pidfds--;
}

/* Gives @p the pidfd @fd (may be -1), in place of the one it had. */
static void symbolizer__set_pidfd(struct symbolizer *s, struct proc_entry *p, int fd)
{
	symbolizer__drop_pidfd(s, p);
	p->pidfd = fd;
	s->pidfds += fd >= 0;
}

static void symbolizer__release(struct symbolizer *s, struct proc_entry *p)
{
	lru__remove(&s->proc_lru, &p->lru);
	id_table__remove(&s->procs, &p->node);
	symbolizer__drop_pidfd(s, p);
	proc_entry__clear(s, p);
	free(p);
}

/* The default cap on held files: well under the open-files limit. */
static size_t default_open_files(void)
{
	struct rlimit rl;
	rlim_t n = OPEN_FILES_MAX;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
		n = rl.rlim_cur / 4;
	return (size_t)n;
}

/* Makes the caches of @s from @o. Returns 0 or -ENOMEM. */
static int symbolizer__init(struct symbolizer *s, const struct symbolizer_opts *o)
{
	struct elf_cache_opts eo = {
	    .proc_root = o->proc_root ? o->proc_root : "/proc",
	    .debug_root = o->debug_root ? o->debug_root : "/usr/lib/debug",
	    .max_bytes = o->elf_cache_bytes ? o->elf_cache_bytes : ELF_CACHE_BYTES,
	    .max_files = o->max_open_files ? o->max_open_files : default_open_files(),
	    .wait_ns = o->elf_wait_ns,
	};

	s->proc_root = strdup(eo.proc_root);
	s->host_proc = !o->proc_root;
	s->max_pidfds = s->host_proc ? eo.max_files : 0;
	s->kallsyms_path = strdup(o->kallsyms_path ? o->kallsyms_path : "/proc/kallsyms");
	s->modules_path = strdup(o->modules_path ? o->modules_path : "/proc/modules");
	s->elfs = elf_cache__new(&eo);
	if (!s->elfs)
		return -errno;
	s->raw_names = o->raw_names;
	s->pass = 1;
	s->miss_limit = (struct reload_limit){.backoff = 1, .max = MISS_BACKOFF_MAX};
	s->bpf_limit = (struct reload_limit){.backoff = 1, .max = BPF_BACKOFF_MAX};
	s->stale_limit = (struct reload_limit){.backoff = 1, .max = 1};
	lru__init(&s->proc_lru);
	perf_map_cache__init(&s->perf_maps, o->perf_map_bytes ? o->perf_map_bytes : PERF_MAP_BYTES);
	return s->proc_root && s->kallsyms_path && s->modules_path ? 0 : -ENOMEM;
}

static void *kernel_loader(void *arg)
{
	struct symbolizer *s = arg;

	s->loading.ksyms = ksyms__load(s->kallsyms_path, s->modules_path);
	s->loading.err = s->loading.ksyms ? 0 : -errno;
	__atomic_store_n(&s->loading.done, true, __ATOMIC_RELEASE);
	return NULL;
}

int symbolizer__load_kernel_begin(struct symbolizer *s)
{
	int err;

	if (s->ksyms || s->loading.started)
		return 0;
	err = thread_start(&s->loading.thread, kernel_loader, s);
	s->loading.started = !err;
	return -err;
}

bool symbolizer__kernel_loading(const struct symbolizer *s)
{
	return s->loading.started && !__atomic_load_n(&s->loading.done, __ATOMIC_ACQUIRE);
}

int symbolizer__load_kernel(struct symbolizer *s)
{
	if (s->ksyms)
		return 0;
	if (s->loading.started) {
		pthread_join(s->loading.thread, NULL);
		s->loading.started = false;
		s->ksyms = s->loading.ksyms;
		if (!s->ksyms)
			return s->loading.err;
	} else {
		s->ksyms = ksyms__load(s->kallsyms_path, s->modules_path);
	}
	if (!s->ksyms)
		return -errno;
	s->kernel_loads = 1;
	s->kernel_read_pass = s->pass;
	s->kernel_gen = ++s->gens;
	return 0;
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	const struct symbolizer_opts none = {0};
	struct symbolizer *s = calloc(1, sizeof(*s));
	int err = ENOMEM;

	if (!s)
		return NULL;
	if (symbolizer__init(s, opts ? opts : &none))
		goto fail;
	s->user_hz = sysconf(_SC_CLK_TCK);
	if (s->user_hz <= 0)
		s->user_hz = 100;
	if ((!opts || !opts->defer_kernel) && (err = -symbolizer__load_kernel(s)))
		goto fail;
	/* What the kernel announces is about /proc/kallsyms, not another file. */
	if (!opts || !opts->kallsyms_path)
		s->kwatch = ksym_watch__open();
	/* ... and the mappings it announces are this machine's processes'. */
	if (s->host_proc)
		s->mwatch = mmap_watch__open();
	return s;
fail:
	symbolizer__free(s);
	errno = err;
	return NULL;
}

/* Writes the text made from @fmt into @buf, sanitized, and returns @status. */
__attribute__((format(printf, 4, 5))) static int sym_write(char *buf, size_t size, int status,
							   const char *fmt, ...)
{
	char tmp[SYM_TMP_BYTES];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	sanitize_name(buf, size, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
	return status;
}

/* Writes @name, sanitized already where it entered, into @buf, and returns @status. */
static int sym_copy_clean(char *buf, size_t size, int status, const char *name)
{
	size_t len = strlen(name);

	if (len < size)
		memcpy(buf, name, len + 1);
	else
		sanitize_name(buf, size, name, len); /* cuts it, ending in ".." */
	return status;
}

/* Writes function name @raw as the user reads it (demangled unless raw names were asked for). */
static int sym_write_function(const struct symbolizer *s, char *buf, size_t size, const char *raw)
{
	demangle_name(buf, size, raw, s->raw_names);
	return SYM_NAMED;
}

static uint64_t lookup_addr(uint64_t ip, bool is_return)
{
	return is_return && ip ? ip - 1 : ip;
}

/* Counts a reload under limit @r at @pass: the next one waits longer unless this one @changed. */
static void reload_limit__count(struct reload_limit *r, uint64_t pass, bool changed)
{
	if (changed)
		r->backoff = 1;
	else if (r->backoff < r->max)
		r->backoff *= 2;
	r->next_pass = pass + r->backoff;
}

/*
 * Reads the kernel table again if limit @r allows it now (and no reload
 * happened in this pass yet). True when the table was replaced.
 */
static bool symbolizer__reload_kernel(struct symbolizer *s, struct reload_limit *r)
{
	struct ksyms *fresh;
	bool same;

	if (!s->ksyms || ksyms__hidden(s->ksyms) || s->pass < r->next_pass ||
	    s->kernel_read_pass == s->pass)
		return false;
	fresh = ksyms__load(s->kallsyms_path, s->modules_path);
	s->kernel_loads++;
	s->kernel_read_pass = s->pass;
	s->kernel_stale = false;
	same = !fresh || ksyms__equal(fresh, s->ksyms);
	reload_limit__count(r, s->pass, !same);
	if (same) {
		ksyms__free(fresh);
		return false;
	}
	ksyms__free(s->ksyms);
	s->ksyms = fresh;
	s->kernel_gen = ++s->gens;
	return true;
}

/*
 * The rate limit under which a lookup that found @sym (NULL: none) in
 * /proc/kallsyms reloads it, or NULL when it does not. A miss may be a
 * module loaded since. Without a watch on BPF programs, a BPF program's
 * symbol may be stale (programs come and go, and a new one often lands
 * near an old one's address): now and then. With a watch that lost
 * records, at once.
 */
static struct reload_limit *symbolizer__reload_reason(struct symbolizer *s, const struct ksym *sym)
{
	bool in_bpf = sym && sym->module && !strcmp(sym->module, "bpf");

	if (s->kernel_stale && (!sym || in_bpf))
		return &s->stale_limit;
	if (!sym)
		return &s->miss_limit;
	if (!s->kwatch && in_bpf)
		return &s->bpf_limit;
	return NULL;
}

/*
 * Once per pass, reads what the kernel announced about BPF programs: names
 * given before may have changed. Lost announcements make the kallsyms
 * table suspect.
 */
static void symbolizer__check_kernel(struct symbolizer *s)
{
	if (!s->kwatch || s->kwatch_pass == s->pass)
		return;
	s->kwatch_pass = s->pass;
	if (ksym_watch__poll(s->kwatch, s->pass))
		s->kernel_gen = ++s->gens;
	if (ksym_watch__lost(s->kwatch))
		s->kernel_stale = true;
}

/* Names @addr from the BPF programs the kernel announced; -ENOENT when none covers it. */
static int symbolizer__kernel_watched(const struct symbolizer *s, uint64_t addr, char *buf,
				      size_t size)
{
	const char *name;

	if (!s->kwatch || ksym_watch__find(s->kwatch, addr, &name))
		return -ENOENT;
	if (!name) /* a program unloaded long ago */
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	return sym_write(buf, size, SYM_NAMED, "%s [bpf]", name);
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, char *buf, size_t size)
{
	uint64_t addr = lookup_addr(ip, is_return);
	struct reload_limit *limit;
	struct ksym found;
	const struct ksym *sym;
	int ret;

	if (!buf || !size)
		return -EINVAL;
	symbolizer__check_kernel(s);
	ret = symbolizer__kernel_watched(s, addr, buf, size);
	if (ret == -ENOENT && symbolizer__load_kernel(s))
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	if (ret != -ENOENT)
		return ret;
	sym = ksyms__map_addr(s->ksyms, addr, &found) ? &found : NULL;
	limit = symbolizer__reload_reason(s, sym);
	if (limit && symbolizer__reload_kernel(s, limit))
		sym = ksyms__map_addr(s->ksyms, addr, &found) ? &found : NULL;
	if (!sym)
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	if (sym->module)
		return sym_write(buf, size, SYM_NAMED, "%s [%s]", sym->name, sym->module);
	return sym_copy_clean(buf, size, SYM_NAMED, sym->name);
}

/*
 * Has @tgid exited? Asked before its maps are opened: under process churn
 * most processes noted have exited by the time their note is read, and a
 * signal 0 costs a tenth of a failed lookup of /proc/PID. Only for the
 * host's /proc (a copy's pids are not this machine's).
 */
static bool symbolizer__gone(const struct symbolizer *s, uint32_t tgid)
{
	return s->host_proc && proc_info__exited((int32_t)tgid);
}

/* Makes @fresh (taken) @p's maps, unless they are the ones it has. */
static void symbolizer__set_maps(struct symbolizer *s, struct proc_entry *p,
				 struct proc_maps *fresh)
{
	if (proc_maps__equal(&p->maps, fresh)) {
		proc_maps__free(fresh);
		return;
	}
	proc_maps__free(&p->maps);
	p->maps = *fresh;
	symbolizer__changed(s, p);
}

/*
 * The maps of @p, whose /proc entry has nothing left (it ended), as the
 * kernel announced its mappings while it ran (mmap_watch): read up to now,
 * for those it made just before it ended. Returns 0 when they are known,
 * else @err (the snapshot it had is kept).
 */
static int symbolizer__logged_maps(struct symbolizer *s, struct proc_entry *p, int err)
{
	struct proc_maps logged;

	if (!s->mwatch)
		return err;
	mmap_watch__poll(s->mwatch, s->pass);
	if (mmap_watch__maps(s->mwatch, proc_entry__tgid(p), &logged))
		return err;
	s->logged_maps++;
	symbolizer__set_maps(s, p, &logged);
	p->ended = true;
	return 0;
}

/*
 * Reads the maps of @p now; a process gone is described as the kernel
 * announced its mappings, when it did. On failure the snapshot it had is
 * kept, and an empty read counts as one: an exiting process has no
 * mappings left. Returns 0 or -errno.
 */
static int symbolizer__read_maps(struct symbolizer *s, struct proc_entry *p)
{
	struct proc_maps fresh;
	int err;

	p->read_pass = s->pass;
	if (symbolizer__gone(s, proc_entry__tgid(p)))
		return symbolizer__logged_maps(s, p, -ESRCH);
	s->maps_reads++;
	err = proc_maps__read(s->proc_root, (int)proc_entry__tgid(p), &fresh);
	if (!err && !fresh.n)
		err = -ESRCH;
	if (err == -ENOENT || err == -ESRCH) /* gone, or a zombie: it ended */
		return symbolizer__logged_maps(s, p, err);
	if (err)
		return err;
	symbolizer__set_maps(s, p, &fresh);
	return 0;
}

/*
 * @p is now the process started at @start: what was known of its pid is
 * dropped, its pidfd too unless it is @pidfd (that process's, or -1).
 */
static void symbolizer__restart(struct symbolizer *s, struct proc_entry *p, uint64_t start,
				int pidfd)
{
	if (p->pidfd != pidfd)
		symbolizer__drop_pidfd(s, p);
	proc_entry__clear(s, p);
	p->start_time = start;
	symbolizer__changed(s, p);
	symbolizer__read_maps(s, p);
}

/*
 * A pidfd of the process that has @tgid now, or -1 (not this machine's
 * /proc, no room left, a kernel before 5.3, the process gone).
 */
static int symbolizer__open_pidfd(const struct symbolizer *s, uint32_t tgid)
{
	return s->pidfds < s->max_pidfds ? pidfd_open((pid_t)tgid, 0) : -1;
}

/* Does @p's pidfd say its process still runs? One that says not is closed. */
static bool symbolizer__still_runs(struct symbolizer *s, struct proc_entry *p)
{
	if (p->pidfd < 0)
		return false;
	if (pidfd_send_signal(p->pidfd, 0, NULL, 0) == 0)
		return true;
	symbolizer__drop_pidfd(s, p);
	return false;
}

/*
 * Checks that @p is still the process it was, started at @start (clock
 * ticks since boot, as /proc/PID/stat says), or when @start is 0 at what
 * /proc says now. Returns true when the pid was reused.
 *
 * Asking /proc costs a path lookup and a read per process per pass; once a
 * start time has been read, a pidfd opened just before it stands for the
 * process it belongs to, and later checks only ask the pidfd whether that
 * process still runs.
 */
static bool symbolizer__check_start(struct symbolizer *s, struct proc_entry *p, uint64_t start)
{
	uint32_t tgid = proc_entry__tgid(p);
	int pidfd = -1;

	p->checked_pass = s->pass;
	/* Without maps (the process had gone) there is nothing a new process could
	 * be mistaken for; a miss reads the maps again anyway. */
	if (!p->maps.n && !start)
		return false;
	if (!start && symbolizer__still_runs(s, p))
		return false;
	/* Gone: nothing runs under its pid now, so nothing reused it. */
	if (!start && symbolizer__gone(s, tgid))
		return false;
	if (!start) {
		pidfd = symbolizer__open_pidfd(s, tgid);
		s->start_reads++;
		if (proc_info__start_time(s->proc_root, tgid, &start)) {
			if (pidfd >= 0)
				close(pidfd);
			return false;
		}
		symbolizer__set_pidfd(s, p, pidfd);
	}
	if (start == p->start_time)
		return false;
	symbolizer__restart(s, p, start, pidfd);
	return true;
}

static void symbolizer__touch(struct symbolizer *s, struct proc_entry *p)
{
	p->used_pass = s->pass;
	lru__touch(&s->proc_lru, &p->lru);
}

/*
 * A new entry for @tgid, started at @start (clock ticks since boot; 0 when
 * unknown), its maps read; NULL when out of memory.
 */
static struct proc_entry *symbolizer__new_proc(struct symbolizer *s, uint32_t tgid, uint64_t start)
{
	struct lru_node *old;
	struct proc_entry *p;

	if (s->procs.n >= PROCS_MAX && (old = lru__oldest(&s->proc_lru)) != NULL)
		symbolizer__release(s, proc_entry__of(old));
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->node.key[0] = tgid;
	p->pidfd = -1;
	p->maps_limit = (struct reload_limit){ .backoff = 1, .max = MAPS_BACKOFF_MAX };
	if (id_table__insert(&s->procs, &p->node)) {
		free(p);
		return NULL;
	}
	lru__add(&s->proc_lru, &p->lru, 0);
	p->checked_pass = s->pass;
	p->used_pass = s->pass;
	symbolizer__changed(s, p);
	p->start_time = start;
	/* The maps first: when the process is gone, its start time is not asked for. */
	if (symbolizer__read_maps(s, p) == 0 && !start &&
	    proc_info__start_time(s->proc_root, tgid, &p->start_time))
		p->start_time = 0;
	return p;
}

/* The entry of @tgid, checked once per pass; made (its maps read) on first sight. */
static struct proc_entry *symbolizer__proc(struct symbolizer *s, uint32_t tgid)
{
	struct proc_entry *p = (struct proc_entry *)id_table__find(&s->procs, tgid, 0);

	if (!p)
		return symbolizer__new_proc(s, tgid, 0);
	if (p->checked_pass != s->pass)
		symbolizer__check_start(s, p, 0);
	symbolizer__touch(s, p);
	return p;
}

/* Opens and holds the files @p maps executable. */
static void symbolizer__hold_files(struct symbolizer *s, struct proc_entry *p)
{
	size_t i;

	for (i = 0; i < p->maps.n; i++) {
		const struct proc_map *m = &p->maps.maps[i];

		if (m->kind == MAP_FILE && (m->perms & MAP_PERM_X))
			elf_cache__hold(s->elfs, proc_entry__tgid(p), m, s->pass, &p->creds);
	}
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Reads @p's maps again if they may have changed, said by a note (@noted:
 * a young process, or a walk that met code outside them) or a miss. The
 * sizes of its mappings (/proc/PID/status, a small read) say whether they
 * changed: when they did, the maps are read, after a note even in a pass
 * that read them already (a young process maps its libraries); when they
 * did not, only MAPS_BACKOFF_MAX passes after the last read (a mapping
 * replaced by one of the same size). Where the sizes can't be had (a copy
 * of /proc), once per pass at most and then every 2, 4 ... MAPS_BACKOFF_MAX
 * passes while re-reads find the same maps. Re-reads stop for the rest of
 * a pass once they took REREAD_PASS_NS in it: a process of 30,000 mappings
 * whose walks keep leaving them costs a read a minute, not five a second.
 * A process that ended (no status to read: a signal 0 says so without the
 * failed lookup of /proc/PID/status; under churn most have exited when
 * their notes are read) takes the mappings the kernel announced instead:
 * one read while it ran may have missed a library it loaded later.
 */
static void symbolizer__reread(struct symbolizer *s, struct proc_entry *p, bool noted)
{
	bool fresh = p->read_pass != s->pass, have, known, changed;
	uint64_t gen = p->gen, t0;
	struct proc_status st;
	int err;

	if (s->reread_ns >= REREAD_PASS_NS || (!noted && !fresh))
		return;
	err = symbolizer__gone(s, proc_entry__tgid(p))
		      ? -ENOENT
		      : proc_info__status(s->proc_root, proc_entry__tgid(p), &st);
	have = !err;
	if (err == -ENOENT && !symbolizer__logged_maps(s, p, err))
		return; /* ended: the mappings the kernel announced, no maps file to read */
	known = have && p->vm_known;
	changed = known && !proc_vm__equal(&st.vm, &p->vm);
	if (known && !changed && s->pass < p->read_pass + MAPS_BACKOFF_MAX)
		return;
	if (!known && (!fresh || s->pass < p->maps_limit.next_pass))
		return;
	p->vm_known = have; /* the sizes before the read: a change during it shows next time */
	if (have)
		p->vm = st.vm;
	t0 = monotonic_ns();
	symbolizer__read_maps(s, p);
	s->reread_ns += monotonic_ns() - t0;
	reload_limit__count(&p->maps_limit, s->pass, p->gen != gen);
}

int symbolizer__note_process(struct symbolizer *s, uint32_t tgid, bool starting,
			     uint64_t start_boottime)
{
	struct proc_entry *p = (struct proc_entry *)id_table__find(&s->procs, tgid, 0);
	uint64_t start = start_boottime / (1000000000ull / s->user_hz); /* as /proc/PID/stat */

	if (!p)
		p = symbolizer__new_proc(s, tgid, start);
	else if (!symbolizer__check_start(s, p, start) && starting)
		symbolizer__reread(s, p, true);
	if (!p)
		return -ENOMEM;
	symbolizer__touch(s, p);
	if (!p->maps.n)
		return -ENOENT;
	symbolizer__hold_files(s, p);
	return 0;
}

bool symbolizer__ended(const struct symbolizer *s, uint32_t tgid)
{
	const struct proc_entry *p = (const struct proc_entry *)id_table__find(&s->procs, tgid, 0);

	return p && p->ended;
}

const struct proc_maps *symbolizer__maps(const struct symbolizer *s, uint32_t tgid)
{
	const struct proc_entry *p = (const struct proc_entry *)id_table__find(&s->procs, tgid, 0);

	return p ? &p->maps : NULL;
}

uint64_t symbolizer__user_gen(struct symbolizer *s, uint32_t tgid)
{
	struct proc_entry *p = symbolizer__proc(s, tgid);

	return p ? p->gen : ++s->gens;
}

uint64_t symbolizer__kernel_gen(struct symbolizer *s)
{
	symbolizer__check_kernel(s);
	return s->kernel_gen;
}

/*
 * The mapping of @p holding @addr. A miss may re-read the maps
 * (symbolizer__reread()): a stack walked through code without frame
 * pointers (Debian's libc) ends in addresses no mapping holds, and would
 * have the maps read every drain.
 */
static const struct proc_map *symbolizer__find_map(struct symbolizer *s, struct proc_entry *p,
						   uint64_t addr)
{
	const struct proc_map *m = proc_maps__find(&p->maps, addr);

	if (m)
		return m;
	symbolizer__reread(s, p, false);
	return proc_maps__find(&p->maps, addr);
}

static const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The function of @tab at file offset @off, or NULL. */
static const char *symtab_name_at(const struct elf_symtab *tab, uint64_t off)
{
	uint64_t vaddr, sym_off;

	if (!tab || elf_symtab__file_to_vaddr(tab, off, &vaddr))
		return NULL;
	return elf_symtab__lookup(tab, vaddr, &sym_off);
}

/* Names @addr in file mapping @m of @p: the function there, else "file+0xoffset". */
static int symbolizer__name_in_file(struct symbolizer *s, struct proc_entry *p,
				    const struct proc_map *m, uint64_t addr, char *buf, size_t size)
{
	uint64_t off = addr - m->start + m->pgoff;
	const char *name = symtab_name_at(
	    elf_cache__table(s->elfs, proc_entry__tgid(p), m, s->pass, &p->creds), off);
	char base[NAME_MAX_BYTES + 1];

	if (name)
		return sym_write_function(s, buf, size, name);
	name = path_basename(m->path);
	sanitize_name(base, sizeof(base), name, strlen(name));
	return sym_write(buf, size, SYM_MODULE_OFF, "%s+0x%" PRIx64, base, off);
}

/* Names @addr in the vDSO mapping @m of @p: the function there, else "[vdso]+0xoffset". */
static int symbolizer__name_in_vdso(struct symbolizer *s, struct proc_entry *p,
				    const struct proc_map *m, uint64_t addr, char *buf, size_t size)
{
	uint64_t off = addr - m->start;
	const char *name =
	    symtab_name_at(elf_cache__vdso(s->elfs, proc_entry__tgid(p), m, &p->vdso_key), off);

	if (name)
		return sym_write_function(s, buf, size, name);
	return sym_write(buf, size, SYM_MODULE_OFF, "[vdso]+0x%" PRIx64, off);
}

/* The entries of the vsyscall page, one per 1 KiB, in order. */
static int symbolizer__name_vsyscall(const struct proc_map *m, uint64_t addr, char *buf,
				     size_t size)
{
	static const char *const entries[] = {"gettimeofday", "time", "getcpu"};
	uint64_t i = (addr - m->start) / VSYSCALL_ENTRY_BYTES;

	if (i < sizeof(entries) / sizeof(entries[0]))
		return sym_write(buf, size, SYM_NAMED, "%s [vsyscall]", entries[i]);
	return sym_write(buf, size, SYM_UNKNOWN, "[vsyscall]");
}

/* The perf map's name for @addr of @p (see perf_map_cache__lookup()). */
static const char *symbolizer__perf_map_name(struct symbolizer *s, struct proc_entry *p,
					     uint64_t addr)
{
	bool changed = false;
	const char *name = perf_map_cache__lookup(&s->perf_maps, &p->perf_map, s->proc_root,
						  proc_entry__tgid(p), addr, s->pass, &changed);

	if (changed)
		symbolizer__changed(s, p);
	return name;
}

/* Names @addr in executable anonymous mapping @m of @p: JIT code, "[jit]" or "[anon]". */
static int symbolizer__name_anon(struct symbolizer *s, struct proc_entry *p,
				 const struct proc_map *m, uint64_t addr, char *buf, size_t size)
{
	const char *name = symbolizer__perf_map_name(s, p, addr);

	if (name)
		return sym_write_function(s, buf, size, name);
	if (perf_map_slot__covers(&p->perf_map, m->start, m->end))
		return sym_write(buf, size, SYM_UNKNOWN, "[jit]");
	return sym_write(buf, size, SYM_UNKNOWN, "[anon]");
}

int symbolizer__user(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return, char *buf,
		     size_t size)
{
	uint64_t addr = lookup_addr(ip, is_return);
	const struct proc_map *m;
	struct proc_entry *p;

	if (!buf || !size)
		return -EINVAL;
	p = symbolizer__proc(s, tgid);
	if (!p) {
		sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
		return -ENOMEM;
	}
	m = symbolizer__find_map(s, p, addr);
	if (!m)
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	switch (m->kind) {
	case MAP_FILE:
		return symbolizer__name_in_file(s, p, m, addr, buf, size);
	case MAP_VDSO:
		return symbolizer__name_in_vdso(s, p, m, addr, buf, size);
	case MAP_VSYSCALL:
		return symbolizer__name_vsyscall(m, addr, buf, size);
	default:
		if (m->perms & MAP_PERM_X)
			return symbolizer__name_anon(s, p, m, addr, buf, size);
		return sym_write(buf, size, SYM_UNKNOWN, "[unknown]");
	}
}

bool symbolizer__in_code(struct symbolizer *s, uint32_t tgid, uint64_t addr)
{
	struct proc_entry *p = symbolizer__proc(s, tgid);
	const struct proc_map *m = p ? symbolizer__find_map(s, p, addr) : NULL;

	return m && (m->perms & MAP_PERM_X);
}

int symbolizer__user_object(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return,
			    char *buf, size_t size)
{
	const struct proc_entry *p = (const struct proc_entry *)id_table__find(&s->procs, tgid, 0);
	uint64_t addr = lookup_addr(ip, is_return);
	const struct proc_map *m = p ? proc_maps__find(&p->maps, addr) : NULL;
	const char *base;

	if (!buf || !size)
		return -EINVAL;
	buf[0] = '\0';
	if (!m)
		return -ENOENT;
	switch (m->kind) {
	case MAP_FILE:
		base = path_basename(m->path);
		sanitize_name(buf, size, base, strlen(base));
		return 0;
	case MAP_VDSO:
		snprintf(buf, size, "[vdso]");
		return 0;
	case MAP_VSYSCALL:
		snprintf(buf, size, "[vsyscall]");
		return 0;
	default:
		if (!(m->perms & MAP_PERM_X))
			return -ENOENT;
		snprintf(buf, size, "%s",
			 perf_map_slot__name(&p->perf_map, addr) ? "[jit]" : "[anon]");
		return 0;
	}
}

bool symbolizer__kernel_in_sched(const struct symbolizer *s, uint64_t ip, bool is_return)
{
	return s->ksyms && ksyms__in_sched_text(s->ksyms, lookup_addr(ip, is_return));
}

int symbolizer__user_origin(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return,
			    struct sym_origin *out)
{
	struct proc_entry *p = (struct proc_entry *)id_table__find(&s->procs, tgid, 0);
	uint64_t addr = lookup_addr(ip, is_return), vaddr, sym_off;
	const struct proc_map *m = p ? proc_maps__find(&p->maps, addr) : NULL;
	const struct elf_symtab *tab;
	const uint8_t *id;
	size_t id_len;

	if (!m || m->kind != MAP_FILE)
		return -ENOENT;
	tab = elf_cache__table(s->elfs, tgid, m, s->pass, &p->creds);
	if (!tab || elf_symtab__file_to_vaddr(tab, addr - m->start + m->pgoff, &vaddr) ||
	    !elf_symtab__lookup(tab, vaddr, &sym_off))
		return -ENOENT;
	out->address = vaddr - sym_off;
	sanitize_name(out->path, sizeof(out->path), m->path, strlen(m->path));
	id = elf_symtab__build_id(tab, &id_len);
	out->build_id[0] = '\0';
	for (size_t i = 0; i < id_len && 2 * i + 2 < sizeof(out->build_id); i++)
		snprintf(out->build_id + 2 * i, 3, "%02x", id[i]);
	return 0;
}

bool symbolizer__kernel_hidden(const struct symbolizer *s)
{
	return s->ksyms && ksyms__hidden(s->ksyms);
}

/*
 * Does the process of @p, not looked up for a while, still run? Its pidfd
 * says, when it holds one; else kill() (a pid reused meanwhile is caught by
 * the start-time check of the next lookup). Not known for a copy of /proc.
 */
static bool symbolizer__idle_runs(struct symbolizer *s, struct proc_entry *p)
{
	if (!p->maps.n)
		return false;
	if (p->pidfd >= 0)
		return symbolizer__still_runs(s, p);
	return s->host_proc && !proc_info__exited((int32_t)proc_entry__tgid(p));
}

void symbolizer__begin_pass(struct symbolizer *s)
{
	struct lru_node *old;

	s->pass++;
	s->reread_ns = 0;
	if (s->mwatch)
		mmap_watch__poll(s->mwatch, s->pass);
	while ((old = lru__oldest(&s->proc_lru)) != NULL &&
	       proc_entry__of(old)->used_pass + PROC_GRACE_PASSES < s->pass) {
		struct proc_entry *p = proc_entry__of(old);

		if (symbolizer__idle_runs(s, p))
			symbolizer__touch(s, p); /* asked again a grace later */
		else
			symbolizer__release(s, p);
	}
	elf_cache__expire(s->elfs, s->pass, PROC_GRACE_PASSES);
}

void symbolizer__stats(struct symbolizer *s, struct symbolizer_stats *st)
{
	struct elf_cache_stats es;

	elf_cache__stats(s->elfs, &es);
	st->processes = s->procs.n;
	st->proc_bytes = s->proc_lru.bytes;
	st->elf_files = es.files;
	st->elf_tables = es.tables;
	st->elf_bytes = es.bytes;
	st->held_files = es.held_files;
	st->no_fds = es.no_fds;
	st->unreadable = es.unreadable;
	st->late = es.late;
	memcpy(st->debug_refused, es.debug_refused, sizeof(st->debug_refused));
	st->maps_reads = s->maps_reads;
	st->start_reads = s->start_reads;
	st->pidfds = s->pidfds;
	st->logged_maps = s->logged_maps;
	st->kernel_loads = s->kernel_loads;
	st->perf_map_bytes = s->perf_maps.maps.bytes;
	st->perf_map_budget = s->perf_maps.max_bytes;
	st->perf_map_reads = s->perf_maps.reads;
	st->perf_maps_dropped = s->perf_maps.dropped;
}

static void proc_entry__release_node(struct id_node *node)
{
	struct proc_entry *p = (struct proc_entry *)node;

	if (p->pidfd >= 0)
		close(p->pidfd);
	proc_maps__free(&p->maps);
	perf_map__free(p->perf_map.map); /* the cache goes too: no list to leave */
	free(p);
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->loading.started) {
		pthread_join(s->loading.thread, NULL);
		ksyms__free(s->loading.ksyms);
	}
	id_table__clear(&s->procs, proc_entry__release_node, false);
	elf_cache__free(s->elfs);
	ksyms__free(s->ksyms);
	ksym_watch__close(s->kwatch);
	mmap_watch__close(s->mwatch);
	free(s->kallsyms_path);
	free(s->modules_path);
	free(s->proc_root);
	free(s);
}
