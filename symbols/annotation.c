// SPDX-License-Identifier: GPL-2.0
#include "symbols/annotation.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "textbuf.h"

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

/* The counts the rows of @mode hold. */
static uint64_t rows_count(const struct annotation *a, enum ann_mode mode)
{
	uint64_t sum = 0;

	if (mode == ANN_LINES) {
		for (size_t i = 0; i < a->nlines; i++)
			sum += a->lines[i].self + a->lines[i].calls;
	} else {
		for (size_t i = 0; i < a->ninsns; i++)
			sum += a->insns[i].self + a->insns[i].calls;
	}
	return sum;
}

void annotation__summary(const struct annotation *a, enum ann_mode mode, const char *event,
			 char *buf, size_t size)
{
	uint64_t total = a->self + a->calls, shown = rows_count(a, mode);
	struct textbuf t;

	textbuf__start(&t, buf, size);
	textbuf__add(&t, "%" PRIu64 " %s: %" PRIu64 " in it, %" PRIu64 " through its calls", total,
		     event, a->self, a->calls);
	if (!total)
		return;
	textbuf__add(&t, "; its %s hold %.1f%%", mode == ANN_LINES ? "lines" : "instructions",
		     100.0 * (double)shown / (double)total);
	textbuf__list(&t, " (");
	if (mode == ANN_LINES && a->no_line)
		textbuf__item(&t, "%" PRIu64 " at addresses with no line", a->no_line);
	if (a->outside)
		textbuf__item(&t, "%" PRIu64 " outside its code", a->outside);
	if (a->folded)
		textbuf__item(&t, "%" PRIu64 " at addresses folded away (--max-stacks)", a->folded);
	textbuf__end_list(&t, ")");
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
