/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_maps: the BPF map the Python walk finds its processes in
 * (python_procs: tgid -> struct py_proc, python/py_layout.h). It outlives
 * any one capture: each capture's programs are loaded against it
 * (capture_opts), so processes described once are walked in every mode.
 * No libbpf type leaks out of here.
 */
#ifndef FLAMETOP_PYTHON_MAPS_H
#define FLAMETOP_PYTHON_MAPS_H

#include <linux/types.h>
#include <stdint.h>

#include "python/py_layout.h"

#define PYTHON_MAX_PROCS 4096 /* Python processes described at once */

struct python_maps;

/* python_maps__new() makes the map. Returns 0 with *@out set, or -errno. */
int python_maps__new(struct python_maps **out);

/* The map's descriptor, for a capture to load its programs against. */
int python_maps__fd(const struct python_maps *m);

/* python_maps__put() describes process @tgid as @p. Returns 0 or -errno (-E2BIG: full). */
int python_maps__put(struct python_maps *m, uint32_t tgid, const struct py_proc *p);

/* python_maps__drop() forgets process @tgid (no error when it was not there). */
void python_maps__drop(struct python_maps *m, uint32_t tgid);

/* python_maps__free(NULL) is a no-op. */
void python_maps__free(struct python_maps *m);

#endif
