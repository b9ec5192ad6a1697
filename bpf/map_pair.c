// SPDX-License-Identifier: GPL-2.0
/*
 * map_pair.c: the two maps of a pair, and the worker that puts them in.
 * See map_pair.h.
 */
#include "bpf/map_pair.h"

#include <errno.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "thread.h"

int clear_map(int fd, size_t key_size)
{
	char key[64];

	if (key_size > sizeof(key))
		return -EINVAL;
	while (bpf_map_get_next_key(fd, NULL, key) == 0) {
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	}
	return 0;
}

/* A new hash map for @p's slots, or -errno. */
static int map_pair__make(const struct map_pair *p)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, p->name, p->key_size, p->value_size,
				p->entries, NULL);

	return fd < 0 ? -errno : fd;
}

int map_pair__open(struct map_pair *p, const char *name, uint32_t key_size,
		   uint32_t value_size, uint32_t entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	*p = (struct map_pair){ .name = name, .key_size = key_size, .value_size = value_size,
				.entries = entries, .outer = -1, .fd = { -1, -1 } };
	for (int i = 0; i < 2; i++) {
		p->fd[i] = map_pair__make(p);
		if (p->fd[i] < 0)
			return p->fd[i];
	}
	opts.inner_map_fd = p->fd[0];
	p->outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, name, sizeof(uint32_t),
				  sizeof(uint32_t), 2, &opts);
	return p->outer < 0 ? -errno : 0;
}

/*
 * Gives @slot of @p an empty map, the one there no longer in use. When no
 * new map can be had, the old one is emptied entry by entry instead.
 */
static void map_pair__renew_now(struct map_pair *p, uint32_t slot)
{
	int fd = map_pair__make(p);

	if (fd >= 0 && bpf_map_update_elem(p->outer, &slot, &fd, BPF_ANY) == 0) {
		close(p->fd[slot]);
		p->fd[slot] = fd;
		return;
	}
	if (fd >= 0)
		close(fd);
	clear_map(p->fd[slot], p->key_size);
}

/* The worker's job: put both maps in (setting p->fill_err), or renew one slot. */
static void *map_pair__work(void *arg)
{
	struct map_pair *p = arg;
	uint32_t slots[2] = { 0, 1 }, n = 2;

	if (p->renew_slot >= 0)
		map_pair__renew_now(p, (uint32_t)p->renew_slot);
	else
		p->fill_err = bpf_map_update_batch(p->outer, slots, p->fd, &n, NULL) ? -errno : 0;
	return NULL;
}

int map_pair__wait(struct map_pair *p)
{
	if (p->working)
		pthread_join(p->worker, NULL);
	p->working = false;
	return p->fill_err;
}

void map_pair__start(struct map_pair *p, int renew_slot)
{
	map_pair__wait(p); /* one job at a time */
	p->renew_slot = renew_slot;
	p->working = thread_start(&p->worker, map_pair__work, p) == 0;
	if (!p->working)
		map_pair__work(p);
}

void map_pair__close(struct map_pair *p)
{
	map_pair__wait(p);
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	if (p->outer >= 0)
		close(p->outer);
	p->outer = p->fd[0] = p->fd[1] = -1;
}
