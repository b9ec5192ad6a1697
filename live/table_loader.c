// SPDX-License-Identifier: GPL-2.0
/*
 * table_loader: one worker thread, a queue under a mutex, and a list of
 * finished jobs. The worker runs in rounds: it empties the slots to drop,
 * builds tables for up to ROUND_BUILD_NS, most wanted first, and puts them
 * all in at once. It runs at the loop's priority: at a lower
 * one, a build (~11 ms for libc alone) took 20 times as long beside a
 * busy CPU, and every process's stacks stay truncated meanwhile.
 */
#include "live/table_loader.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/elffile.h"
#include "thread.h"
#include "unwind/cfi_table.h"
#include "unwind/rule_dict.h"

#define ROUND_MAX 64                     /* jobs run in a round */
#define ROUND_BUILD_NS (50 * 1000000ull) /* builds for this long, then puts them in */

struct table_loader {
	struct unwind_maps *maps;
	char *debug_root;
	struct rule_dict *dict; /* the worker's alone */
	uint32_t rules_loaded;  /* the worker's: rules copied to the maps */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* Under lock. */
	struct table_job *queue, *done;
	bool stop; /* also read without it (atomically), by a build in progress */
	bool held; /* no job is taken (table_loader__hold()) */
	uint32_t rules; /* the dictionary's size, for stats */
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

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The job's file, opened as ELF (its fd or image taken); NULL when it is not ELF. */
static struct elf_file *job_elf(struct table_job *job)
{
	struct elf_file *f;

	if (job->image) {
		f = elf_file__open_image(job->image, job->image_len);
		job->image = NULL;
	} else {
		f = elf_file__open_fd(job->fd, true);
		job->fd = -1;
	}
	return f;
}

/*
 * Builds the table of @job's file: from its own CFI, else from the
 * .debug_frame of its debug file (looked for only then: finding one can
 * mean reading a large file for its CRC).
 */
static int build(struct table_loader *l, struct table_job *job, struct cfi_table *t)
{
	struct debug_search ds = { .root_fd = job->root_fd, .debug_root = l->debug_root,
				   .path = job->path ? job->path : "" };
	struct elf_file *bin = job_elf(job), *debug;
	struct cfi_budget budget = CFI_BUDGET_DEFAULT;
	int err;

	if (!bin)
		return -ENOENT;
	budget.stop = &l->stop;
	err = cfi_table__build(bin, NULL, l->dict, &budget, t);
	if (err == -ENOENT && (debug = debuginfo__find(bin, &ds)) != NULL) {
		err = cfi_table__build(bin, debug, l->dict, &budget, t);
		elf_file__close(debug);
	}
	elf_file__close(bin);
	return err;
}

/* Copies the rules the dictionary gained to the maps, before a table uses them. */
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
 * Builds @job's table into a new map, not in use yet. Returns its fd, or
 * -1 with job->err set.
 */
static int build_table(struct table_loader *l, struct table_job *job)
{
	struct cfi_table t;
	uint64_t start = monotonic_ns();
	int fd = -1;

	job->err = build(l, job, &t);
	job->build_ns = monotonic_ns() - start;
	if (job->err)
		return -1;
	job->rows = t.n;
	job->unsupported = t.unsupported;
	job->source = t.source;
	job->err = sync_rules(l);
	if (!job->err) {
		fd = unwind_maps__make_table(job->gen, t.rows, t.n, &job->bytes);
		job->err = fd < 0 ? fd : 0;
	}
	cfi_table__free(&t);
	return fd < 0 ? -1 : fd;
}

/* Puts @job on the list of finished ones (under the lock). */
static void finish(struct table_loader *l, struct table_job *job)
{
	job->next = l->done;
	l->done = job;
}

/*
 * Takes the queued job to run next, under the lock: a drop (@drop), or
 * the most wanted build. NULL when there is none.
 */
static struct table_job *take_next(struct table_loader *l, bool drop)
{
	struct table_job **best = NULL, *job;

	for (struct table_job **p = &l->queue; *p; p = &(*p)->next)
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

	while (n < ROUND_MAX && (jobs[n] = take_next(l, true)) != NULL) {
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

/*
 * Builds tables for ROUND_BUILD_NS at most, taking the most wanted job
 * queued each time (so that a job wanted more meanwhile comes next), and
 * puts them in at once: putting tables in waits for an RCU grace period
 * (~24 ms here), which a round pays once. Under the lock, which it lets go
 * while it works.
 */
static void run_builds(struct table_loader *l)
{
	uint64_t start = monotonic_ns();
	struct table_job *jobs[ROUND_MAX], *job;
	uint32_t ids[ROUND_MAX];
	int fds[ROUND_MAX], err;
	size_t k = 0;

	while (k < ROUND_MAX && !l->stop && monotonic_ns() - start <= ROUND_BUILD_NS &&
	       (job = take_next(l, false)) != NULL) {
		int fd;

		pthread_mutex_unlock(&l->lock);
		fd = build_table(l, job);
		pthread_mutex_lock(&l->lock);
		if (fd < 0) {
			finish(l, job);
			continue;
		}
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

static void *worker(void *arg)
{
	struct table_loader *l = arg;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		if (!l->queue || l->held) {
			pthread_cond_wait(&l->wake, &l->lock);
			continue;
		}
		run_drops(l);
		run_builds(l);
		l->rules = l->rules_loaded;
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct table_loader *table_loader__new(struct unwind_maps *maps, const char *debug_root)
{
	struct table_loader *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->maps = maps;
	l->debug_root = strdup(debug_root);
	l->dict = rule_dict__new();
	if (!l->debug_root || !l->dict || sync_rules(l)) {
		rule_dict__free(l->dict);
		free(l->debug_root);
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	err = thread_start(&l->thread, worker, l);
	if (err) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->wake);
		rule_dict__free(l->dict);
		free(l->debug_root);
		free(l);
		errno = err;
		return NULL;
	}
	return l;
}

void table_loader__submit(struct table_loader *l, struct table_job *job)
{
	pthread_mutex_lock(&l->lock);
	job->next = l->queue;
	l->queue = job;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

void table_loader__hold(struct table_loader *l, bool held)
{
	pthread_mutex_lock(&l->lock);
	l->held = held;
	pthread_cond_signal(&l->wake);
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

	pthread_mutex_lock((pthread_mutex_t *)&l->lock);
	n = l->rules;
	pthread_mutex_unlock((pthread_mutex_t *)&l->lock);
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
	pthread_mutex_lock(&l->lock);
	__atomic_store_n(&l->stop, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	free_jobs(l->queue);
	free_jobs(l->done);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	rule_dict__free(l->dict);
	free(l->debug_root);
	free(l);
}
