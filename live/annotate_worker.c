// SPDX-License-Identifier: GPL-2.0
/*
 * annotate_worker: a mutex over a slot for the next job and one for the
 * last result; a condition wakes the thread, an eventfd the caller.
 */
#include "live/annotate_worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "thread.h"

struct annotate_worker {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool started, quit;
	struct annotate_job *next; /* waiting to run */
	uint64_t next_ticket;
	bool has_result;
	struct annotation result;
	uint64_t result_ticket;
	int result_err;
	int event_fd; /* readable while a result waits */
	struct annotate_cache *cache; /* the thread's */
};

struct annotate_worker *annotate_worker__new(void)
{
	struct annotate_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->cache = annotate_cache__new();
	if (w->event_fd < 0 || !w->cache) {
		if (w->event_fd >= 0)
			close(w->event_fd);
		annotate_cache__free(w->cache);
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	return w;
}

/* Keeps @out (with @ticket, @err) as the result waiting, the one before dropped. */
static void put_result(struct annotate_worker *w, struct annotation *out, uint64_t ticket, int err)
{
	uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	if (w->has_result)
		annotation__free(&w->result);
	w->result = *out;
	w->result_ticket = ticket;
	w->result_err = err;
	w->has_result = true;
	pthread_mutex_unlock(&w->lock);
	if (write(w->event_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: it polls readable already */
	}
}

static void *worker_main(void *arg)
{
	struct annotate_worker *w = arg;

	for (;;) {
		struct annotate_job *job;
		struct annotation out;
		uint64_t ticket;
		int err;

		pthread_mutex_lock(&w->lock);
		while (!w->next && !w->quit)
			pthread_cond_wait(&w->wake, &w->lock);
		job = w->next;
		ticket = w->next_ticket;
		w->next = NULL;
		pthread_mutex_unlock(&w->lock);
		if (!job)
			return NULL; /* quit */
		err = job->run(job, w->cache, &out);
		annotate_job__free(job);
		put_result(w, &out, ticket, err);
	}
}

int annotate_worker__submit(struct annotate_worker *w, struct annotate_job *job, uint64_t ticket)
{
	struct annotate_job *dropped;
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (!w->started) {
		err = thread_start(&w->thread, worker_main, w);
		w->started = !err;
	}
	dropped = err ? job : w->next;
	if (!err) {
		w->next = job;
		w->next_ticket = ticket;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	annotate_job__free(dropped);
	return -err;
}

int annotate_worker__fd(const struct annotate_worker *w)
{
	return w->event_fd;
}

bool annotate_worker__take(struct annotate_worker *w, uint64_t *ticket, struct annotation *out,
			   int *err)
{
	uint64_t count;
	bool has;

	if (read(w->event_fd, &count, sizeof(count)) < 0) {
		/* nothing signalled: a result may still wait (taken below) */
	}
	pthread_mutex_lock(&w->lock);
	has = w->has_result;
	if (has) {
		*out = w->result;
		*ticket = w->result_ticket;
		*err = w->result_err;
		w->has_result = false;
	}
	pthread_mutex_unlock(&w->lock);
	return has;
}

void annotate_worker__free(struct annotate_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	annotate_job__free(w->next);
	w->next = NULL;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (w->started)
		pthread_join(w->thread, NULL);
	if (w->has_result)
		annotation__free(&w->result);
	annotate_cache__free(w->cache);
	close(w->event_fd);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}
