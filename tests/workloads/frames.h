/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames.h: keeps a workload's call structure, the one its tests name, true
 * in an ordinary -O2 build.
 *
 * KEEP_FRAME marks a function that must be a frame of its own under its own
 * name: gcc -O2 would inline a small function into its caller, copy it under
 * another name for constant arguments (step.constprop.0), or fold two
 * identical functions into one (left and right of stack_tree).
 *
 * KEEP_CALLER() after a call that is a function's last act keeps the caller
 * in the stack while the callee runs: at -O2 such a call becomes a jump (a
 * tail call) and the caller's frame is gone before the callee starts. The
 * empty volatile asm is code gcc must run after the call, so it stays a call.
 */
#ifndef FLAMETOP_FRAMES_H
#define FLAMETOP_FRAMES_H

#define KEEP_FRAME __attribute__((noinline, noclone, no_icf))
#define KEEP_CALLER() asm volatile("")

#endif
