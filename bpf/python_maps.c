// SPDX-License-Identifier: GPL-2.0
/*
 * python_maps: two hash maps, written by updates (the walk reads each entry
 * whole), and the code-free probes, whose program is loaded at the first.
 */
#include "bpf/python_maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "python_frees.skel.h"

struct python_probe {
	struct bpf_link *link;
	uint32_t tgid;
	struct python_probe *prev, *next; /* the maps' list */
};

struct python_maps {
	int fd, frees_fd;
	struct python_probe *probes;    /* attached */
	struct python_frees_bpf *skel; /* NULL: not loaded yet */
	int skel_err;                   /* why it could not be loaded; 0: not tried, or loaded */
	uint32_t epoch;                 /* the last probe's */
};

int python_maps__new(struct python_maps **out)
{
	struct python_maps *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->fd = bpf_map_create(BPF_MAP_TYPE_HASH, "flametop_py", sizeof(uint32_t),
			       sizeof(struct py_proc), PYTHON_MAX_PROCS, NULL);
	m->frees_fd = m->fd < 0 ? -1
				: bpf_map_create(BPF_MAP_TYPE_HASH, "flametop_pyfree", sizeof(uint32_t),
						 sizeof(uint64_t), PYTHON_MAX_PROCS, NULL);
	if (m->frees_fd < 0) {
		err = -errno;
		if (m->fd >= 0)
			close(m->fd);
		free(m);
		return err;
	}
	*out = m;
	return 0;
}

void python_maps__fds(const struct python_maps *m, int *procs, int *frees)
{
	*procs = m->fd;
	*frees = m->frees_fd;
}

int python_maps__put(struct python_maps *m, uint32_t tgid, const struct py_proc *p)
{
	return bpf_map_update_elem(m->fd, &tgid, p, BPF_ANY) ? -errno : 0;
}

void python_maps__drop(struct python_maps *m, uint32_t tgid)
{
	bpf_map_delete_elem(m->fd, &tgid);
}

/* Loads the probes' program against the frees map, once: 0 or its -errno. */
static int load_probes(struct python_maps *m)
{
	struct python_frees_bpf *s;

	if (m->skel || m->skel_err)
		return m->skel_err;
	s = python_frees_bpf__open();
	if (!s)
		return m->skel_err = -errno ?: -ENOMEM;
	m->skel_err = bpf_map__reuse_fd(s->maps.python_frees, m->frees_fd) ?:
		      python_frees_bpf__load(s);
	if (m->skel_err) {
		python_frees_bpf__destroy(s);
		return m->skel_err;
	}
	m->skel = s;
	return 0;
}

int python_maps__probe(struct python_maps *m, int fd, uint64_t offset, uint32_t tgid,
		       struct python_probe **out)
{
	struct python_probe *p;
	char path[64];
	uint64_t count;
	int err = load_probes(m);

	*out = NULL;
	if (err)
		return err;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd); /* the very file: no path to race */
	p->link = bpf_program__attach_uprobe(m->skel->progs.on_code_free, false, (pid_t)tgid, path,
					     (size_t)offset);
	if (!p->link) {
		err = -errno ?: -EINVAL;
		free(p);
		return err;
	}
	p->tgid = tgid;
	p->next = m->probes;
	if (m->probes)
		m->probes->prev = p;
	m->probes = p;
	if (++m->epoch == 0)
		m->epoch = 1;
	count = (uint64_t)m->epoch << 32 | 1;
	if (bpf_map_update_elem(m->frees_fd, &tgid, &count, BPF_ANY)) {
		err = -errno;
		python_maps__unprobe(m, p);
		return err;
	}
	*out = p;
	return 0;
}

int python_maps__frees(const struct python_maps *m, uint32_t tgid, uint64_t *count)
{
	return bpf_map_lookup_elem(m->frees_fd, &tgid, count) ? -ENOENT : 0;
}

void python_maps__unprobe(struct python_maps *m, struct python_probe *p)
{
	if (!p)
		return;
	bpf_map_delete_elem(m->frees_fd, &p->tgid); /* first: a count that stops moving is none */
	bpf_link__destroy(p->link);
	if (p->prev)
		p->prev->next = p->next;
	else
		m->probes = p->next;
	if (p->next)
		p->next->prev = p->prev;
	free(p);
}

void python_maps__free(struct python_maps *m)
{
	if (!m)
		return;
	while (m->probes)
		python_maps__unprobe(m, m->probes);
	python_frees_bpf__destroy(m->skel);
	close(m->frees_fd);
	close(m->fd);
	free(m);
}
