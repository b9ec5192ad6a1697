/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python_frees.bpf.h: the code objects each 3.10 or 3.11 process described
 * with PY_PROC_FREES_COUNTED has freed, by tgid (python/py_layout.h says
 * how an entry counts). Counted by python_frees.bpf.c's probe, read by the
 * Python walk; the loader's map (bpf/python_maps.c) takes this one's place
 * in both objects.
 */
#ifndef FLAMETOP_PYTHON_FREES_BPF_H
#define FLAMETOP_PYTHON_FREES_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);   /* tgid */
	__type(value, __u64); /* epoch << 32 | frees + 1 */
	__uint(max_entries, 1);
} python_frees SEC(".maps");

#endif
