/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strtab: interned strings. Each distinct string is stored once and named by
 * a small id; its pointer stays valid until strtab__free().
 */
#ifndef FLAMETOP_STRTAB_H
#define FLAMETOP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define STRTAB_NONE UINT32_MAX

struct strtab;

/* strtab__new() returns an empty table, or NULL when out of memory. */
struct strtab *strtab__new(void);

/*
 * strtab__intern() returns the id of the @len bytes at @s (which need not be
 * NUL-terminated), adding them on first sight. Returns STRTAB_NONE when out
 * of memory.
 */
uint32_t strtab__intern(struct strtab *t, const char *s, size_t len);

/* The NUL-terminated string with id @id (which must be valid). */
const char *strtab__str(const struct strtab *t, uint32_t id);

/* Its length in bytes. */
size_t strtab__len(const struct strtab *t, uint32_t id);

/* Number of strings, and heap bytes held. */
size_t strtab__count(const struct strtab *t);
size_t strtab__bytes(const struct strtab *t);

/* strtab__free(NULL) is a no-op. */
void strtab__free(struct strtab *t);

#endif
