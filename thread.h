/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thread: how every layer starts a thread. Signals are the main thread's:
 * a thread of flametop's blocks them all, so that SIGINT or SIGTERM reaches
 * the main thread and wakes its waits. It sits below every layer, as
 * array.h does.
 */
#ifndef FLAMETOP_THREAD_H
#define FLAMETOP_THREAD_H

#include <pthread.h>
#include <signal.h>

/* thread_start() runs @fn(@arg) in a new thread, every signal blocked; 0 or an errno. */
static inline int thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

#endif
