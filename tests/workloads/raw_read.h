/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raw_read.h: read(2) issued without libc, for the test workloads whose
 * user stacks must walk cleanly: Debian's libc is built without frame
 * pointers, so a stack through its read() ends early. raw_read() is always
 * inlined, so the system call is made from the workload's own function.
 */
#ifndef FLAMETOP_RAW_READ_H
#define FLAMETOP_RAW_READ_H

#include <sys/syscall.h>
#include <unistd.h>

/* read(@fd, @buf, @n): the bytes read, or -errno (x86-64) or -1 with errno set (elsewhere). */
static inline __attribute__((always_inline)) long raw_read(int fd, void *buf, unsigned long n)
{
#if defined(__x86_64__)
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(SYS_read), "D"(fd), "S"(buf), "d"(n)
		     : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(SYS_read, fd, buf, n);
#endif
}

#endif
