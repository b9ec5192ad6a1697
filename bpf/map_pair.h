/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_pair: a BPF hash map the BPF side reaches through a two-slot array of
 * maps (the seen maps of stack_store.bpf.h, counting.bpf.h's key slots):
 * emptying it is switching to the other slot's map, empty, and renewing
 * the map left once nothing uses it. Making a map is ~30 times cheaper
 * than deleting its entries one by one (~0.4 us each).
 */
#ifndef FLAMETOP_MAP_PAIR_H
#define FLAMETOP_MAP_PAIR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_pair {
	const char *name;
	uint32_t key_size, value_size, entries;
	int outer;  /* the array of maps */
	int fd[2];  /* the maps in its slots */
	/* A worker thread puts maps in: the kernel waits for an RCU grace period. */
	pthread_t worker;
	bool working;
	int renew_slot; /* the slot the worker renews; -1: it fills both */
	int fill_err;
};

/*
 * map_pair__open() makes @p: two empty hash maps of @entries and the
 * two-slot array of maps for them (map_pair__start() puts them in).
 * Returns 0 or -errno; map_pair__close() frees what was made either way.
 */
int map_pair__open(struct map_pair *p, const char *name, uint32_t key_size, uint32_t value_size,
		   uint32_t entries);

/*
 * map_pair__start() starts putting maps in @p: both (@renew_slot -1), or a
 * new empty map in @renew_slot, no longer in use. The kernel waits for an
 * RCU grace period (5-15 ms here) after each update of an array of maps: a
 * thread does it, while the skeleton loads or the screen is drawn; or this
 * one, when no thread can be had. Until map_pair__wait(), only the worker
 * uses @p.
 */
void map_pair__start(struct map_pair *p, int renew_slot);

/* map_pair__wait() waits for @p's worker. Returns 0, or -errno when the maps could not be put in. */
int map_pair__wait(struct map_pair *p);

/* map_pair__close() waits for the worker and closes the maps. */
void map_pair__close(struct map_pair *p);

/* clear_map() deletes every entry of the hash map @fd, one system call each; 0 or -errno. */
int clear_map(int fd, size_t key_size);

#endif
