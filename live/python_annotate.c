// SPDX-License-Identifier: GPL-2.0
/*
 * python_annotate: the function's frames are found by their names' parts
 * (py_frame_name_split()); its lines counted in one pass over the stacks;
 * the job holds them and reads the file's text where it runs.
 */
#include "live/python_annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile/addr_counts.h"
#include "python/frame_names.h"
#include "symbols/annotate.h"
#include "symbols/source_text.h"

#define TALLY_TGIDS 16 /* processes told apart while counting; the rest not kept */

/* The qualname and file of a Python frame's name. */
struct py_function_id {
	const char *name;
	struct py_frame_parts parts;
};

/* Reads frame @frame of @prof as a Python function's; false when it is not one. */
static bool function_id(const struct profile *prof, uint32_t frame, struct py_function_id *id)
{
	id->name = profile__frame_name(prof, frame);
	return profile__frame_info(prof, frame)->kind == FRAME_PYTHON &&
	       py_frame_name_split(id->name, strlen(id->name), &id->parts);
}

/* Is @b a frame of @a's function (the same qualname and file)? */
static bool same_function(const struct py_function_id *a, const struct py_function_id *b)
{
	return a->parts.qualname_len == b->parts.qualname_len &&
	       a->parts.file_len == b->parts.file_len &&
	       !memcmp(a->name, b->name, a->parts.qualname_len) &&
	       !memcmp(a->name + a->parts.file_at, b->name + b->parts.file_at, a->parts.file_len);
}

/* The processes a function's stacks ran in, with their counts. */
struct tgid_tally {
	int32_t tgid[TALLY_TGIDS];
	uint64_t count[TALLY_TGIDS];
	size_t n;
};

static void tally(struct tgid_tally *t, int32_t tgid, uint64_t count)
{
	size_t i = 0;

	if (tgid == TGID_UNKNOWN)
		return;
	while (i < t->n && t->tgid[i] != tgid)
		i++;
	if (i == t->n && t->n == TALLY_TGIDS)
		return;
	if (i == t->n)
		t->tgid[t->n++] = tgid;
	t->count[i] = count__add(t->count[i], count);
}

/* Writes @t's most counted processes into @tgids, TGID_UNKNOWN after the last. */
static void most_counted(struct tgid_tally *t, int32_t *tgids)
{
	for (size_t k = 0; k < PY_ANNOTATE_TGIDS; k++) {
		size_t best = t->n;

		for (size_t i = 0; i < t->n; i++) {
			if (t->count[i] && (best == t->n || t->count[i] > t->count[best]))
				best = i;
		}
		tgids[k] = best < t->n ? t->tgid[best] : TGID_UNKNOWN;
		if (best < t->n)
			t->count[best] = 0;
	}
}

/*
 * Gives each frame of @id's function a line of @out (row[frame] = its
 * index + 1; 0 for other frames). Returns 0 or -ENOMEM.
 */
static int function_frames(const struct profile *prof, const struct py_function_id *id,
			   uint32_t *row, struct py_function_lines *out)
{
	size_t cap = 0;

	for (uint32_t f = 0; f < profile__nframes(prof); f++) {
		struct py_function_id other;

		if (!function_id(prof, f, &other) || !same_function(id, &other))
			continue;
		if (array__grow((void **)&out->lines, &cap, out->nlines + 1, sizeof(*out->lines),
				16))
			return -ENOMEM;
		out->lines[out->nlines++] =
			(struct py_line_count){ .line = (uint32_t)other.parts.line };
		row[f] = (uint32_t)out->nlines;
	}
	return 0;
}

/* Counts each stack of @prof through the function at its innermost frame of it. */
static void count_stacks(const struct profile *prof, const uint32_t *row,
			 struct py_function_lines *out, struct tgid_tally *t)
{
	for (size_t i = 0; i < profile__nstacks(prof); i++) {
		struct py_line_count *line;
		struct profile_stack st;
		uint32_t k;

		profile__stack(prof, i, &st);
		if (!st.total)
			continue;
		for (k = st.n; k-- > 1 && !row[st.frames[k]];)
			;
		if (k < 1)
			continue;
		line = &out->lines[row[st.frames[k]] - 1];
		if (k == st.n - 1)
			line->self = count__add(line->self, st.total);
		else
			line->calls = count__add(line->calls, st.total);
		tally(t, st.tgid, st.total);
	}
}

static int by_line(const void *a, const void *b)
{
	const struct py_line_count *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts @fl's lines, merges those of one line, drops those without counts; sums them. */
static void tidy_lines(struct py_function_lines *fl)
{
	size_t n = 0;

	qsort(fl->lines, fl->nlines, sizeof(*fl->lines), by_line);
	for (size_t i = 0; i < fl->nlines; i++) {
		struct py_line_count *l = &fl->lines[i];

		if (!l->self && !l->calls)
			continue;
		if (n && fl->lines[n - 1].line == l->line) {
			fl->lines[n - 1].self = count__add(fl->lines[n - 1].self, l->self);
			fl->lines[n - 1].calls = count__add(fl->lines[n - 1].calls, l->calls);
		} else {
			fl->lines[n++] = *l;
		}
		fl->self = count__add(fl->self, l->self);
		fl->calls = count__add(fl->calls, l->calls);
	}
	fl->nlines = n;
}

int py_function_lines__count(const struct profile *prof, uint32_t frame,
			     struct py_function_lines *out)
{
	struct tgid_tally t = { .n = 0 };
	struct py_function_id id;
	uint32_t *row;
	int err;

	*out = (struct py_function_lines){ 0 };
	if (!function_id(prof, frame, &id))
		return -EINVAL;
	row = calloc(profile__nframes(prof), sizeof(*row));
	out->qualname = strndup(id.name, id.parts.qualname_len);
	out->file = strndup(id.name + id.parts.file_at, id.parts.file_len);
	err = row && out->qualname && out->file ? function_frames(prof, &id, row, out) : -ENOMEM;
	if (!err) {
		count_stacks(prof, row, out, &t);
		tidy_lines(out);
		most_counted(&t, out->tgids);
	}
	free(row);
	if (err)
		py_function_lines__free(out);
	return err;
}

void py_function_lines__free(struct py_function_lines *fl)
{
	free(fl->qualname);
	free(fl->file);
	free(fl->lines);
	*fl = (struct py_function_lines){ 0 };
}

/* A Python function's annotation to make: its lines, and where its text may be read. */
struct python_job {
	struct annotate_job job;
	struct py_function_lines fl;
	bool from_file; /* its stacks were read from a file: no process to read as */
	const char *proc_root;
	const char *const *source_dirs;
	size_t nsource_dirs;
};

/* @a's function, file and lines with their counts, from @fl. Returns 0 or -ENOMEM. */
static int make_lines(struct annotation *a, const struct py_function_lines *fl)
{
	a->function = strdup(fl->qualname);
	a->object = strdup(fl->file);
	a->files = calloc(1, sizeof(*a->files));
	a->lines = calloc(fl->nlines ? fl->nlines : 1, sizeof(*a->lines));
	if (!a->function || !a->object || !a->files || !a->lines)
		return -ENOMEM;
	a->files[0] = strdup(fl->file);
	if (!a->files[0])
		return -ENOMEM;
	a->nfiles = 1;
	for (size_t i = 0; i < fl->nlines; i++)
		a->lines[i] = (struct ann_line){ .file = 0, .line = fl->lines[i].line,
						 .self = fl->lines[i].self,
						 .calls = fl->lines[i].calls };
	a->nlines = fl->nlines;
	a->self = fl->self;
	a->calls = fl->calls;
	a->has_lines = true;
	a->lines_only = true;
	snprintf(a->insns_note, sizeof(a->insns_note),
		 "Python code has no instructions to show: its lines run as the interpreter's "
		 "bytecode");
	return 0;
}

/* Reads the text of @a's lines as a process that ran them would, else only under --source-dir. */
static int read_text(const struct python_job *pj, struct annotation *a)
{
	struct source_place pl = { .root_fd = -1, .dirs = pj->source_dirs,
				   .ndirs = pj->nsource_dirs, .no_process = pj->from_file };
	const char *const paths[] = { pj->fl.file };
	struct source_process sp;
	int err;

	if (pj->fl.file[0] == '<') {
		snprintf(a->lines_note, sizeof(a->lines_note),
			 "no source text: %s names no file (code made at run time, or frozen into "
			 "the interpreter)",
			 pj->fl.file);
		return 0;
	}
	if (pj->from_file && !pj->nsource_dirs) {
		snprintf(a->lines_note, sizeof(a->lines_note),
			 "source text not read: stacks read from a file name no process to read "
			 "it as (--source-dir DIR reads it under DIR)");
		return 0;
	}
	for (size_t i = 0; !pj->from_file && i < PY_ANNOTATE_TGIDS; i++) {
		if (pj->fl.tgids[i] == TGID_UNKNOWN)
			break;
		if (source_process__open(&sp, pj->proc_root, (uint32_t)pj->fl.tgids[i]))
			continue;
		pl.creds = &sp.status.creds;
		pl.root_fd = sp.root_fd;
		err = annotate__read_texts(a, &pl, paths);
		source_process__close(&sp);
		return err;
	}
	return annotate__read_texts(a, &pl, paths); /* none runs: only under --source-dir */
}

static int python_run(struct annotate_job *job, struct annotate_cache *cache,
		      struct annotation *out)
{
	const struct python_job *pj = (const struct python_job *)job;
	int err;

	(void)cache;
	*out = (struct annotation){ 0 };
	err = make_lines(out, &pj->fl);
	if (!err)
		err = read_text(pj, out);
	if (err)
		annotation__free(out);
	return err;
}

static void python_free(struct annotate_job *job)
{
	struct python_job *pj = (struct python_job *)job;

	py_function_lines__free(&pj->fl);
	free(pj);
}

struct annotate_job *python_annotate__job(const struct annotate_ctx *ctx, uint32_t frame,
					  char *why, size_t size)
{
	struct python_job *pj = calloc(1, sizeof(*pj));
	int err = pj ? py_function_lines__count(ctx->prof, frame, &pj->fl) : -ENOMEM;

	if (err) {
		free(pj);
		snprintf(why, size, "%s: %s", profile__frame_name(ctx->prof, frame),
			 err == -EINVAL ? "not a Python function (a placeholder): select a function"
					: "out of memory");
		return NULL;
	}
	pj->job = (struct annotate_job){ python_run, python_free };
	pj->from_file = !profile__addresses(ctx->prof);
	pj->proc_root = ctx->proc_root;
	pj->source_dirs = ctx->source_dirs;
	pj->nsource_dirs = ctx->nsource_dirs;
	return &pj->job;
}

bool python_annotate__names(const struct profile *prof, uint32_t frame, const char *name)
{
	struct py_function_id id;
	size_t q, len = strlen(name);

	if (!function_id(prof, frame, &id))
		return false;
	q = id.parts.qualname_len;
	if (!strcmp(name, id.name) || (len == q && !memcmp(name, id.name, q)))
		return true;
	/* "qualname (file)": the name up to its file, then ")" */
	return len == id.parts.file_at + id.parts.file_len + 1 && name[len - 1] == ')' &&
	       !memcmp(name, id.name, len - 1);
}

uint64_t python_annotate__count(const struct profile *prof, uint32_t frame)
{
	struct py_function_lines fl;
	uint64_t count;

	if (py_function_lines__count(prof, frame, &fl))
		return 0;
	count = count__add(fl.self, fl.calls);
	py_function_lines__free(&fl);
	return count;
}
