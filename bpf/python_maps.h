/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_maps: the BPF maps the Python walk finds its processes in
 * (python_procs: tgid -> struct py_proc, python/py_layout.h) and their
 * code objects' frees counted (python_frees: tgid -> epoch << 32 | frees +
 * 1), and the probes that count them (bpf/python_frees.bpf.c). They
 * outlive any one capture: each capture's programs are loaded against the
 * maps (capture_opts), so processes described once are walked in every
 * mode. No libbpf type leaks out of here.
 */
#ifndef FLAMETOP_PYTHON_MAPS_H
#define FLAMETOP_PYTHON_MAPS_H

#include <linux/types.h>
#include <stdint.h>

#include "python/py_layout.h"

#define PYTHON_MAX_PROCS 4096 /* Python processes described at once */

struct python_maps;
struct python_probe;

/* python_maps__new() makes the maps. Returns 0 with *@out set, or -errno. */
int python_maps__new(struct python_maps **out);

/* The maps' descriptors, for a capture to load its programs against. */
void python_maps__fds(const struct python_maps *m, int *procs, int *frees);

/* python_maps__put() describes process @tgid as @p. Returns 0 or -errno (-E2BIG: full). */
int python_maps__put(struct python_maps *m, uint32_t tgid, const struct py_proc *p);

/* python_maps__drop() forgets process @tgid (no error when it was not there). */
void python_maps__drop(struct python_maps *m, uint32_t tgid);

/*
 * python_maps__probe() counts the code objects process @tgid frees: a
 * uprobe for that process only, at file offset @offset (its code_dealloc())
 * of the open file @fd (the interpreter it maps, attached by descriptor),
 * then its python_frees entry, of a new epoch. Set PY_PROC_FREES_COUNTED
 * only after it returns 0 (*@out set); else -errno (no uprobes, ...).
 */
int python_maps__probe(struct python_maps *m, int fd, uint64_t offset, uint32_t tgid,
		       struct python_probe **out);

/*
 * python_maps__frees() reads into *@count process @tgid's python_frees entry
 * (epoch << 32 | frees + 1). Returns 0, or -ENOENT when it has none.
 */
int python_maps__frees(const struct python_maps *m, uint32_t tgid, uint64_t *count);

/*
 * python_maps__unprobe() drops @p's process's python_frees entry, then the
 * probe: clear PY_PROC_FREES_COUNTED first, or with it (a walk without the
 * entry trusts no count). NULL is a no-op.
 */
void python_maps__unprobe(struct python_maps *m, struct python_probe *p);

/* python_maps__free(NULL) is a no-op; it detaches the probes left. */
void python_maps__free(struct python_maps *m);

#endif
