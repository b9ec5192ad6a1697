/* SPDX-License-Identifier: GPL-2.0 */
/*
 * path_pool: one counted copy of each path, however many mappings name it.
 * Under process churn the kernel announces the same few paths (a shell, its
 * C library, the loader) thousands of times a second, and a log that copied
 * each with malloc() spent more on the copies than on the rest of its work.
 * Paths are found by their bytes, never by their hash alone: two paths of
 * one hash (which anyone naming files may make) are two copies.
 */
#ifndef FLAMETOP_PATH_POOL_H
#define FLAMETOP_PATH_POOL_H

#include <stddef.h>

struct path_pool;

/* path_pool__new() makes an empty pool; NULL when out of memory. */
struct path_pool *path_pool__new(void);

/*
 * path_pool__get() returns a counted reference to the pool's copy of the
 * @len bytes at @s (NUL-terminated there), made on first use; NULL when out
 * of memory. Each reference is given back with path_pool__put().
 */
const char *path_pool__get(struct path_pool *pp, const char *s, size_t len);

/* path_pool__ref() returns one more reference to @path, a reference from @pp. */
const char *path_pool__ref(const char *path);

/* path_pool__put() gives back a reference; the last frees the copy. NULL: nothing. */
void path_pool__put(struct path_pool *pp, const char *path);

/* How many distinct copies the pool holds. */
size_t path_pool__count(const struct path_pool *pp);

/* path_pool__free() frees @pp, whose references were all given back; NULL: nothing. */
void path_pool__free(struct path_pool *pp);

#endif
