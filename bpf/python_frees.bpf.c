// SPDX-License-Identifier: GPL-2.0
/*
 * python_frees.bpf.c: counts the code objects each described 3.10 or 3.11
 * process frees. A uprobe on its interpreter's code_dealloc(), attached
 * for that process only (bpf/python_maps.c), adds one to its entry of
 * python_frees, which python_maps made before the walk was told
 * (PY_PROC_FREES_COUNTED). The walk (python_walk.bpf.h) trusts a code
 * object it read before while the count has not moved: no code object was
 * freed since, so none was made at its address.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "python/py_layout.h"
#include "python_frees.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int on_code_free(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 *n = bpf_map_lookup_elem(&python_frees, &tgid);

	if (n && (__u32)*n < PY_FREES_OUT)
		__sync_fetch_and_add(n, 1);
	return 0;
}
