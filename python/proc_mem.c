// SPDX-License-Identifier: GPL-2.0
/*
 * proc_mem: a process's memory, read with process_vm_readv() (one system
 * call, no file), or through /proc/PID/mem where that is refused (a kernel
 * without it, a seccomp filter).
 */
#include "python/py_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Reads through "@proc_root/@pid/mem". */
static int read_mem_file(const struct py_proc_mem *box, uint64_t addr, void *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/mem", box->proc_root, box->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	if (n < 0)
		return errno == EIO ? -EFAULT : -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static int read_proc_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct py_proc_mem *box = ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!len)
		return 0;
	if (addr + len < addr || addr > INT64_MAX)
		return -EFAULT;
	n = box->host ? process_vm_readv((pid_t)box->pid, &local, 1, &remote, 1, 0) : -1;
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EFAULT)
		return -EFAULT; /* a partial read: the rest is not mapped */
	if (errno == ESRCH)
		return -ESRCH;
	return read_mem_file(box, addr, buf, len);
}

void py_proc_mem__init(struct py_proc_mem *box, const char *proc_root, uint32_t pid,
		       struct py_mem *out)
{
	box->pid = pid;
	box->proc_root = proc_root ? proc_root : "/proc";
	box->host = strcmp(box->proc_root, "/proc") == 0;
	*out = (struct py_mem){ read_proc_mem, box };
}
