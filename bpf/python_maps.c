// SPDX-License-Identifier: GPL-2.0
/* python_maps: one hash map, written by updates; the walk reads each entry whole. */
#include "bpf/python_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

struct python_maps {
	int fd;
};

int python_maps__new(struct python_maps **out)
{
	struct python_maps *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->fd = bpf_map_create(BPF_MAP_TYPE_HASH, "flametop_py", sizeof(uint32_t),
			       sizeof(struct py_proc), PYTHON_MAX_PROCS, NULL);
	if (m->fd < 0) {
		int err = -errno;

		free(m);
		return err;
	}
	*out = m;
	return 0;
}

int python_maps__fd(const struct python_maps *m)
{
	return m->fd;
}

int python_maps__put(struct python_maps *m, uint32_t tgid, const struct py_proc *p)
{
	return bpf_map_update_elem(m->fd, &tgid, p, BPF_ANY) ? -errno : 0;
}

void python_maps__drop(struct python_maps *m, uint32_t tgid)
{
	bpf_map_delete_elem(m->fd, &tgid);
}

void python_maps__free(struct python_maps *m)
{
	if (!m)
		return;
	close(m->fd);
	free(m);
}
