// SPDX-License-Identifier: GPL-2.0
#include "symbols/annotation.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* Appends row (@kind, @index) to *@rows (@n of them, room for @cap). */
static int push_row(struct ann_row **rows, size_t *n, size_t *cap, uint8_t kind, uint32_t index)
{
	if (array__grow((void **)rows, cap, *n + 1, sizeof(**rows), 64))
		return -ENOMEM;
	(*rows)[(*n)++] = (struct ann_row){ kind, index };
	return 0;
}

long annotation__rows(const struct annotation *a, enum ann_mode mode, struct ann_row **rows)
{
	size_t n = 0, cap = 0;
	uint32_t last = ANN_NONE;
	int err = 0;

	*rows = NULL;
	if (mode == ANN_LINES) {
		for (size_t i = 0; i < a->nlines && !err; i++) {
			if (a->lines[i].self || a->lines[i].calls)
				err = push_row(rows, &n, &cap, ROW_LINE, (uint32_t)i);
		}
	}
	for (size_t i = 0; mode == ANN_INSNS && i < a->ninsns && !err; i++) {
		uint32_t src = a->insns[i].src;

		if (src != ANN_NONE && src != last)
			err = push_row(rows, &n, &cap, ROW_SOURCE, src);
		last = src;
		if (!err)
			err = push_row(rows, &n, &cap, ROW_INSN, (uint32_t)i);
	}
	if (err) {
		free(*rows);
		*rows = NULL;
		return err;
	}
	return (long)n;
}

uint64_t annotation__row_count(const struct annotation *a, const struct ann_row *r)
{
	if (r->kind == ROW_LINE)
		return a->lines[r->index].self + a->lines[r->index].calls;
	if (r->kind == ROW_INSN)
		return a->insns[r->index].self + a->insns[r->index].calls;
	return 0;
}

const char *annotation__file_name(const struct annotation *a, uint32_t file)
{
	const char *path = a->files[file], *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

void annotation__free(struct annotation *a)
{
	free(a->function);
	free(a->object);
	for (size_t i = 0; i < a->nfiles; i++)
		free(a->files[i]);
	free(a->files);
	for (size_t i = 0; i < a->nlines; i++)
		free(a->lines[i].text);
	free(a->lines);
	free(a->insns);
	*a = (struct annotation){ 0 };
}
