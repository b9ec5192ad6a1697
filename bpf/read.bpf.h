/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read.bpf.h: read mode, every vfs_read() call or read-family system
 * call: the first hook of fentry, kprobe and syscall-entry tracepoint that
 * the kernel takes (capture.c's mode table). A thread that reads in a loop
 * reads from the same place each time: its stacks come from its memos of
 * its last walks where they hold (walk_memo.bpf.h).
 */
#ifndef FLAMETOP_READ_BPF_H
#define FLAMETOP_READ_BPF_H

/* read mode, first choice: fentry on vfs_read(file, buf, count, pos). */
SEC("fentry/vfs_read")
int BPF_PROG(on_vfs_read_fentry, struct file *file, char *buf, size_t count)
{
	return record_event(ctx, count, &in_kernel, true);
}

/* read mode, second choice: a kprobe on vfs_read (no thread memos: no task storage there). */
SEC("kprobe/vfs_read")
int BPF_KPROBE(on_vfs_read_kprobe, struct file *file, char *buf, size_t count)
{
	return record_event(ctx, count, &in_kernel, false);
}

#if defined(__TARGET_ARCH_x86)
#define NR_read 0
#define NR_pread64 17
#define NR_readv 19
#define NR_preadv 295
#define NR_preadv2 327
#elif defined(__TARGET_ARCH_arm64)
#define NR_read 63
#define NR_pread64 67
#define NR_readv 65
#define NR_preadv 69
#define NR_preadv2 286
#else
#error "flametop: read-family syscall numbers are not known for this architecture"
#endif

#define MAX_IOVECS 16

/* Bytes requested by a readv-family call: the first MAX_IOVECS iovecs. */
static __always_inline __u64 iov_bytes(const struct iovec *iov, unsigned long n)
{
	__u64 total = 0;

	for (int i = 0; i < MAX_IOVECS; i++) {
		struct iovec v;

		if (i >= n || bpf_probe_read_user(&v, sizeof(v), &iov[i]))
			break;
		total += v.iov_len;
	}
	return total;
}

/* read mode, fallback: syscall entry, filtered to the read family. */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter_read, struct pt_regs *regs, long nr)
{
	unsigned long arg2, arg3;
	struct where at = { .in_kernel = true };

	switch (nr) {
	case NR_read:
	case NR_pread64:
	case NR_readv:
	case NR_preadv:
	case NR_preadv2:
		break;
	default:
		return 0;
	}
	arg2 = PT_REGS_PARM2_CORE_SYSCALL(regs);
	arg3 = PT_REGS_PARM3_CORE_SYSCALL(regs);
	at.user = USER_REGS_CORE(regs); /* the registers the task entered the kernel with */
	return record_event(ctx, nr == NR_read || nr == NR_pread64
					 ? arg3
					 : iov_bytes((const struct iovec *)arg2, arg3),
			    &at, true);
}

#endif
