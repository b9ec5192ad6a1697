// SPDX-License-Identifier: GPL-2.0
/*
 * table_loader: two worker threads, two queues under one mutex, and a list
 * of finished jobs. The first worker empties the slots to drop, then builds
 * tables for up to ROUND_BUILD_NS, most wanted first, each within its
 * slice of CPU (TABLE_SLICE_NS), and puts them all in at once; a job past its
 * slice goes to the second worker's queue, to be built again there with
 * TABLE_CPU_NS. Each build interns its rules in a dictionary of its own,
 * merged into the shared one (and copied to the maps) under a lock of its
 * own, so the workers never wait for each other's builds. They run at the
 * loop's priority: at a lower one, a build (~11 ms for libc alone) took 20
 * times as long beside a busy CPU, and every process's stacks stay
 * truncated meanwhile.
 */
#include "live/table_loader.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/elffile.h"
#include "thread.h"
#include "unwind/cfi_table.h"
#include "unwind/rule_dict.h"
#include "work_budget.h"

#define ROUND_MAX 64			 /* jobs run in a round */
#define ROUND_BUILD_NS (50 * 1000000ull) /* builds for this long, then puts them in */

enum { FIRST, SECOND, WORKERS };

struct table_loader;

/* A worker: which one, of which loader. */
struct worker {
	struct table_loader *l;
	int which;
	pthread_t thread;
};

struct table_loader {
	struct unwind_maps *maps;
	char *debug_root;
	size_t max_table_bytes;
	uint64_t slice_ns; /* a build's CPU on the first worker */
	struct worker workers[WORKERS];
	int started; /* workers started */
	pthread_mutex_t dict_lock; /* the rules: */
	struct rule_dict *dict;
	uint32_t rules_loaded; /* rules copied to the maps */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* Under lock. */
	struct table_job *queue[WORKERS], *done;
	bool stop; /* also read without it (atomically), by a build in progress */
	bool held; /* no job is taken (table_loader__hold()) */
};

struct table_job *table_job__new(void)
{
	struct table_job *job = calloc(1, sizeof(*job));

	if (job) {
		job->fd = -1;
		job->root_fd = -1;
	}
	return job;
}

void table_job__free(struct table_job *job)
{
	if (!job)
		return;
	if (job->fd >= 0)
		close(job->fd);
	if (job->root_fd >= 0)
		close(job->root_fd);
	free(job->image);
	free(job->path);
	free(job);
}

int table_job__refusal(const struct table_job *job)
{
	switch (job->err) {
	case -EFBIG:
		return TABLE_REFUSED_CFI;
	case -E2BIG:
		return TABLE_REFUSED_ROWS;
	case -ETIME:
		return TABLE_REFUSED_CPU;
	case -ENOSPC:
		return TABLE_REFUSED_MEMORY;
	default:
		return -1;
	}
}

const char *table_refusal__text(enum table_refusal r)
{
	static const char *const text[TABLE_REFUSED_NR] = {
		[TABLE_REFUSED_CFI] = "CFI over 64 MiB",
		[TABLE_REFUSED_ROWS] = "over 4M rows",
		[TABLE_REFUSED_CPU] = "over 1 s of CPU",
		[TABLE_REFUSED_MEMORY] = "larger than --unwind-memory",
	};

	return r < TABLE_REFUSED_NR ? text[r] : "?";
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The job's file, opened as ELF (its fd and image stay the job's); NULL when it is not ELF. */
static struct elf_file *job_elf(struct table_job *job)
{
	void *copy;

	if (!job->image)
		return elf_file__open_fd(job->fd, false);
	copy = malloc(job->image_len);
	if (!copy)
		return NULL;
	memcpy(copy, job->image, job->image_len);
	return elf_file__open_image(copy, job->image_len);
}

/* The size of the job's file, for its debug file's. */
static uint64_t job_size(const struct table_job *job)
{
	struct stat st;

	if (job->image)
		return job->image_len;
	return fstat(job->fd, &st) ? 0 : (uint64_t)st.st_size;
}

/*
 * Builds the table of @job's file under @budget, its rules in @dict: from
 * its own CFI, else from the .debug_frame of its debug file, looked for
 * only then (finding one can mean reading a large file for its CRC) and
 * with the rights of the process that maps the file.
 */
static int build(struct table_loader *l, struct table_job *job, const struct cfi_budget *budget,
		 struct rule_dict *dict, struct cfi_table *t)
{
	struct debug_search ds = { .root_fd = job->root_fd, .debug_root = l->debug_root,
				   .path = job->path ? job->path : "",
				   .creds = job->have_creds ? &job->creds : NULL,
				   .bin_size = job_size(job), .section = ".debug_frame",
				   .time = &budget->time };
	struct elf_file *bin = job_elf(job), *debug;
	int err;

	if (!bin)
		return -ENOENT;
	err = cfi_table__build(bin, NULL, dict, budget, t);
	if (err == -ENOENT && (debug = debuginfo__find(bin, &ds)) != NULL) {
		err = cfi_table__build(bin, debug, dict, budget, t);
		elf_file__close(debug);
	}
	if (err == -ENOENT && ds.spent)
		err = ds.spent;
	elf_file__close(bin);
	return err;
}

/* Copies the rules the shared dictionary gained to the maps (under the dictionary's lock). */
static int sync_rules(struct table_loader *l)
{
	uint32_t n = rule_dict__count(l->dict);
	int err = 0;

	for (; l->rules_loaded < n && !err; l->rules_loaded++)
		err = unwind_maps__add_rules(l->maps, l->rules_loaded,
					     rule_dict__get(l->dict, l->rules_loaded), 1);
	return err;
}

/*
 * Moves the rules of @t, ids of @local, into the shared dictionary (and the
 * maps, before any table uses them), and its rows to the shared ids.
 */
static int merge_rules(struct table_loader *l, const struct rule_dict *local, struct cfi_table *t)
{
	uint32_t n = rule_dict__count(local), *ids = malloc(n * sizeof(*ids));
	int err;

	if (!ids)
		return -ENOMEM;
	pthread_mutex_lock(&l->dict_lock);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = rule_dict__intern(l->dict, rule_dict__get(local, i));
	err = sync_rules(l);
	pthread_mutex_unlock(&l->dict_lock);
	for (size_t i = 0; i < t->n; i++)
		t->rows[i].rule = ids[t->rows[i].rule];
	free(ids);
	return err;
}

/*
 * Builds @job's table on worker @which into a new map, not in use yet.
 * Returns its fd, or -1 with job->err set (-ETIME on the first worker: the
 * job is for the second).
 */
static int build_table(struct table_loader *l, struct table_job *job, int which)
{
	struct cfi_budget budget = CFI_BUDGET_DEFAULT;
	struct rule_dict *dict = rule_dict__new();
	uint64_t start = monotonic_ns();
	struct cfi_table t;
	int fd = -1;

	budget.time = work_budget__of(&l->stop, which == FIRST ? l->slice_ns : TABLE_CPU_NS);
	job->err = dict ? build(l, job, &budget, dict, &t) : -ENOMEM;
	job->build_ns += monotonic_ns() - start;
	if (!job->err && unwind_maps__table_bytes(t.rows, t.n) > l->max_table_bytes) {
		cfi_table__free(&t);
		job->err = -ENOSPC; /* larger than the whole budget: never made */
	}
	if (!job->err) {
		job->rows = t.n;
		job->unsupported = t.unsupported;
		job->refused_fdes = t.refused_fdes;
		job->source = t.source;
		job->err = merge_rules(l, dict, &t);
		if (!job->err) {
			fd = unwind_maps__make_table(job->gen, t.rows, t.n, &job->bytes);
			job->err = fd < 0 ? fd : 0;
		}
		cfi_table__free(&t);
	}
	rule_dict__free(dict);
	return fd < 0 ? -1 : fd;
}

/* Puts @job on the list of finished ones (under the lock). */
static void finish(struct table_loader *l, struct table_job *job)
{
	job->next = l->done;
	l->done = job;
}

/*
 * Takes the job to run next from @queue, under the lock: a drop (@drop),
 * or the most wanted build. NULL when there is none.
 */
static struct table_job *take_next(struct table_job **queue, bool drop)
{
	struct table_job **best = NULL, *job;

	for (struct table_job **p = queue; *p; p = &(*p)->next)
		if ((*p)->drop == drop && (!best || (*p)->priority > (*best)->priority))
			best = p;
	if (!best)
		return NULL;
	job = *best;
	*best = job->next;
	job->next = NULL;
	return job;
}

/* Empties the slots of the drop jobs queued, at once (under the lock, which it lets go meanwhile). */
static void run_drops(struct table_loader *l)
{
	struct table_job *jobs[ROUND_MAX];
	uint32_t ids[ROUND_MAX];
	size_t n = 0;
	int err;

	while (n < ROUND_MAX && (jobs[n] = take_next(&l->queue[FIRST], true)) != NULL) {
		ids[n] = jobs[n]->id;
		n++;
	}
	if (!n)
		return;
	pthread_mutex_unlock(&l->lock);
	err = unwind_maps__drop_tables(l->maps, ids, (uint32_t)n);
	pthread_mutex_lock(&l->lock);
	while (n--) {
		jobs[n]->err = err;
		finish(l, jobs[n]);
	}
}

/* Queues @job, past its first worker's slice, for the second (under the lock). */
static void hand_over(struct table_loader *l, struct table_job *job)
{
	job->slow = true;
	job->next = l->queue[SECOND];
	l->queue[SECOND] = job;
	pthread_cond_broadcast(&l->wake);
}

/*
 * Builds tables on worker @which for ROUND_BUILD_NS at most (the second
 * worker: one), taking the most wanted job of its queue each time (so that
 * a job wanted more meanwhile comes next), and puts them in at once:
 * putting tables in waits for an RCU grace period (~24 ms here), which a
 * round pays once. Under the lock, which it lets go while it works.
 */
static void run_builds(struct table_loader *l, int which)
{
	uint64_t start = monotonic_ns();
	struct table_job *jobs[ROUND_MAX], *job;
	size_t k = 0, max = which == FIRST ? ROUND_MAX : 1;
	uint32_t ids[ROUND_MAX];
	int fds[ROUND_MAX], err;

	while (k < max && !l->stop && monotonic_ns() - start <= ROUND_BUILD_NS &&
	       (job = take_next(&l->queue[which], false)) != NULL) {
		int fd;

		pthread_mutex_unlock(&l->lock);
		fd = build_table(l, job, which);
		pthread_mutex_lock(&l->lock);
		if (fd < 0 && job->err == -ETIME && which == FIRST)
			hand_over(l, job);
		else if (fd < 0)
			finish(l, job);
		if (fd < 0)
			continue;
		jobs[k] = job;
		ids[k] = job->id;
		fds[k++] = fd;
	}
	if (!k)
		return;
	pthread_mutex_unlock(&l->lock);
	err = unwind_maps__put_tables(l->maps, ids, fds, (uint32_t)k);
	for (size_t i = 0; i < k; i++)
		close(fds[i]);
	pthread_mutex_lock(&l->lock);
	while (k--) {
		jobs[k]->err = err;
		finish(l, jobs[k]);
	}
}

/* Is there work for worker @which (under the lock)? */
static bool has_work(const struct table_loader *l, int which)
{
	return !l->held && l->queue[which];
}

static void *worker_main(void *arg)
{
	const struct worker *w = arg;
	struct table_loader *l = w->l;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		if (!has_work(l, w->which)) {
			pthread_cond_wait(&l->wake, &l->lock);
			continue;
		}
		if (w->which == FIRST)
			run_drops(l);
		run_builds(l, w->which);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Frees @l, whose threads have stopped (or never started). */
static void loader_free(struct table_loader *l)
{
	pthread_mutex_destroy(&l->lock);
	pthread_mutex_destroy(&l->dict_lock);
	pthread_cond_destroy(&l->wake);
	rule_dict__free(l->dict);
	free(l->debug_root);
	free(l);
}

/* Stops the threads of @l (under no lock). */
static void stop_workers(struct table_loader *l)
{
	pthread_mutex_lock(&l->lock);
	__atomic_store_n(&l->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&l->wake);
	pthread_mutex_unlock(&l->lock);
	for (int i = 0; i < l->started; i++)
		pthread_join(l->workers[i].thread, NULL);
}

struct table_loader *table_loader__new(struct unwind_maps *maps, const char *debug_root,
				       size_t max_table_bytes, uint64_t slice_ns)
{
	struct table_loader *l = calloc(1, sizeof(*l));
	int err = ENOMEM;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->maps = maps;
	l->max_table_bytes = max_table_bytes;
	l->slice_ns = slice_ns ? slice_ns : TABLE_SLICE_NS;
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_init(&l->dict_lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	l->debug_root = strdup(debug_root);
	l->dict = rule_dict__new();
	if (l->debug_root && l->dict && !sync_rules(l))
		err = 0;
	for (; l->started < WORKERS && !err; l->started += !err) {
		struct worker *w = &l->workers[l->started];

		*w = (struct worker){ .l = l, .which = l->started };
		err = thread_start(&w->thread, worker_main, w);
	}
	if (!err)
		return l;
	stop_workers(l);
	loader_free(l);
	errno = err;
	return NULL;
}

void table_loader__submit(struct table_loader *l, struct table_job *job)
{
	pthread_mutex_lock(&l->lock);
	job->next = l->queue[FIRST];
	l->queue[FIRST] = job;
	pthread_cond_broadcast(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

void table_loader__hold(struct table_loader *l, bool held)
{
	pthread_mutex_lock(&l->lock);
	l->held = held;
	pthread_cond_broadcast(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

void table_loader__want(struct table_loader *l, struct table_job *job, uint32_t priority)
{
	pthread_mutex_lock(&l->lock);
	if (job->priority < priority)
		job->priority = priority;
	pthread_mutex_unlock(&l->lock);
}

struct table_job *table_loader__done(struct table_loader *l)
{
	struct table_job *done;

	pthread_mutex_lock(&l->lock);
	done = l->done;
	l->done = NULL;
	pthread_mutex_unlock(&l->lock);
	return done;
}

uint32_t table_loader__rules(const struct table_loader *l)
{
	uint32_t n;

	pthread_mutex_lock((pthread_mutex_t *)&l->dict_lock);
	n = l->rules_loaded;
	pthread_mutex_unlock((pthread_mutex_t *)&l->dict_lock);
	return n;
}

static void free_jobs(struct table_job *job)
{
	while (job) {
		struct table_job *next = job->next;

		table_job__free(job);
		job = next;
	}
}

void table_loader__free(struct table_loader *l)
{
	if (!l)
		return;
	stop_workers(l);
	for (int i = 0; i < WORKERS; i++)
		free_jobs(l->queue[i]);
	free_jobs(l->done);
	loader_free(l);
}
