// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile/output_file.h"
#include "tui/snapshot.h"

#define MAX_TRIES 1000

int snapshot__default_name(time_t when, char *buf, size_t size)
{
	char stamp[32];
	struct tm tm;
	int n;

	if (!localtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	n = snprintf(buf, size, "flametop-%s.folded", stamp);
	return n < 0 || (size_t)n >= size ? -EINVAL : 0;
}

/* Where @path's extension starts (".pb.gz" counts as one), or its end when it has none. */
static size_t extension_at(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t len = strlen(path);

	if (!dot || dot == base)
		return len;
	if (strcmp(dot, ".gz") == 0) {
		const char *before = dot;

		while (before > base && before[-1] != '.')
			before--;
		if (before - 1 > base)
			dot = before - 1;
	}
	return (size_t)(dot - path);
}

/*
 * Gives the complete file @of the first free name of @path, -1, -2 ...
 * (written to @saved). Returns 0 or -errno.
 */
static int name_new(struct output_file *of, const char *path, char *saved, size_t size)
{
	size_t ext = extension_at(path);

	for (int i = 0; i < MAX_TRIES; i++) {
		int n, err;

		if (i)
			n = snprintf(saved, size, "%.*s-%d%s", (int)ext, path, i, path + ext);
		else
			n = snprintf(saved, size, "%s", path);
		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		err = output_file__commit_new(of, strrchr(saved, '/') ? strrchr(saved, '/') + 1 : saved);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}

/* Writes the view of @p through @f to @out in @format: output__write() on a trie of its own. */
static long write_view(FILE *out, enum output_format format, const struct profile *p,
		       const struct view_filter *f, const struct output_info *info, uint64_t *events)
{
	struct stack_trie t;
	long n;

	stack_trie__init(&t);
	n = stack_trie__build(&t, p, f);
	*events = !n && t.n ? t.nodes[TRIE_ROOT].total : 0;
	if (!n)
		n = output__write(out, format, &t, p, f, info);
	stack_trie__free(&t);
	return n;
}

long snapshot__save(const char *path, const struct profile *p, const struct view_filter *f,
		    const struct output_info *info, char *saved, size_t size, uint64_t *events)
{
	struct output_file of;
	long n = output_file__open_beside(&of, path);

	if (n < 0)
		return n;
	n = write_view(of.f, output__format_of(path), p, f, info, events);
	if (n >= 0) {
		int err = name_new(&of, path, saved, size);

		n = err ? err : n;
	}
	output_file__discard(&of); /* a no-op once named */
	return n;
}
