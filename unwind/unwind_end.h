/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_end.h: why a user stack's walk ended, as the BPF walk sends it
 * with each stack and the walk of a copied stack (unwind/stack_walk.c)
 * says it. Shared by BPF and user space: no includes, no types.
 */
#ifndef FLAMETOP_UNWIND_END_H
#define FLAMETOP_UNWIND_END_H

/*
 * Why a user stack's walk ended. Anything but UNWIND_WHOLE means the stack
 * stops short of the process's start code.
 */
enum unwind_end {
	UNWIND_WHOLE,       /* at the outermost frame: the start code, or a null return address */
	UNWIND_NO_TABLE,    /* at code without an unwind table, and its frame pointer led nowhere */
	UNWIND_NOT_LOADED,  /* the process's tables were not loaded yet, and frame pointers led nowhere */
	UNWIND_UNSUPPORTED, /* at CFI the walk cannot follow */
	UNWIND_UNREADABLE,  /* stack memory the walk needed could not be read */
	UNWIND_BAD_FRAME,   /* a return address outside the process's code, or a frame below its callee's */
	UNWIND_DEPTH,       /* MAX_STACK_DEPTH frames */
	UNWIND_SLOTS_FULL,  /* the process found no slot: every process slot was taken */
	UNWIND_MAPS_LIMIT,  /* at code past the UNWIND_MAX_MAPS executable mappings described */
	UNWIND_MEMORY,      /* at code whose table (or process) did not fit in --unwind-memory */
	UNWIND_END_NR,
};

#endif
