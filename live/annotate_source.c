// SPDX-License-Identifier: GPL-2.0
/*
 * annotate_source: the table of sources by frame kind, and the native one:
 * its job is an annotate_request holding a copy of the sites of the
 * frame's module.
 */
#include "live/annotate_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/python_annotate.h"
#include "profile/addr_counts.h"

/* A source of annotations for the frames of one kind. */
struct annotate_source {
	enum frame_kind kind;
	struct annotate_job *(*job)(const struct annotate_ctx *ctx, uint32_t frame, char *why,
				    size_t size);
	/* Does @name name @frame's function (annotate_source__find())? */
	bool (*names)(const struct profile *prof, uint32_t frame, const char *name);
	/* The counts of @frame's function, to choose among the frames a name names. */
	uint64_t (*count)(const struct profile *prof, uint32_t frame);
};

/* The native source's job: what symbols/annotate.h reads. */
struct native_job {
	struct annotate_job job;
	struct annotate_request req;
};

static int native_run(struct annotate_job *job, struct annotate_cache *cache,
		      struct annotation *out)
{
	return annotate__run(cache, &((struct native_job *)job)->req, out);
}

static void native_free(struct annotate_job *job)
{
	struct native_job *nj = (struct native_job *)job;

	annotate_request__free(&nj->req);
	free(nj);
}

/* The counts of @frame's sites by module, and the hottest site's id. */
struct frame_sites {
	uint32_t hottest; /* the site with most counts (not a folded one), ADDR_NONE: none */
	uint64_t hottest_count;
	uint64_t folded; /* counts at its sites folded away */
};

static void find_frame_sites(const struct addr_counts *ac, uint32_t frame, struct frame_sites *fs)
{
	*fs = (struct frame_sites){ .hottest = ADDR_NONE };
	for (uint32_t i = 0; i < addr_counts__nsites(ac); i++) {
		struct addr_site s;
		uint64_t count;

		addr_counts__site_at(ac, i, &s);
		count = count__add(s.self, s.calls);
		if (s.frame != frame)
			continue;
		if (s.addr == ADDR_FOLDED)
			fs->folded = count__add(fs->folded, count);
		else if (fs->hottest == ADDR_NONE || count > fs->hottest_count)
			*fs = (struct frame_sites){ i, count, fs->folded };
	}
}

/* Copies the sites of module @module into @req, @frame's marked as its own. */
static int copy_sites(const struct addr_counts *ac, uint32_t frame, uint32_t module,
		      struct annotate_request *req)
{
	size_t n = 0, total = addr_counts__nsites(ac);

	req->sites = malloc((total ? total : 1) * sizeof(*req->sites));
	if (!req->sites)
		return -ENOMEM;
	for (uint32_t i = 0; i < total; i++) {
		struct addr_site s;

		addr_counts__site_at(ac, i, &s);
		if (s.module != module || (!s.self && !s.calls))
			continue;
		req->sites[n++] = (struct annotate_site){ .addr = s.addr, .self = s.self,
							  .calls = s.calls,
							  .own = s.frame == frame };
	}
	req->nsites = n;
	return 0;
}

/* Fills @req to annotate @frame from its sites in @ac, hottest at @hottest. */
static int native_request(const struct annotate_ctx *ctx, const struct addr_counts *ac,
			  uint32_t frame, uint32_t hottest, struct annotate_request *req)
{
	const struct addr_module *m;
	struct addr_site s;

	addr_counts__site_at(ac, hottest, &s);
	m = addr_counts__module_info(ac, s.module);
	*req = (struct annotate_request){
		.function = strdup(profile__frame_name(ctx->prof, frame)),
		.module = *m,
		.at = s.addr,
		.proc_root = ctx->proc_root,
		.debug_root = ctx->debug_root,
		.source_dirs = ctx->source_dirs,
		.nsource_dirs = ctx->nsource_dirs,
	};
	req->module.path = strdup(m->path);
	if (!req->function || !req->module.path)
		return -ENOMEM;
	return copy_sites(ac, frame, s.module, req);
}

static struct annotate_job *native_job(const struct annotate_ctx *ctx, uint32_t frame, char *why,
				       size_t size)
{
	const struct addr_counts *ac = profile__addresses(ctx->prof);
	struct native_job *nj;
	struct frame_sites fs;

	if (!ac) {
		snprintf(why, size, "no addresses here (stacks read from a file keep only names): "
				    "annotate needs a live capture");
		return NULL;
	}
	find_frame_sites(ac, frame, &fs);
	if (fs.hottest == ADDR_NONE) {
		snprintf(why, size, "%s: %s", profile__frame_name(ctx->prof, frame),
			 fs.folded ? "its addresses were folded away (--max-stacks)"
				   : "no address of it is kept (no code known for it, or its "
				     "addresses dropped beyond --max-stacks)");
		return NULL;
	}
	nj = calloc(1, sizeof(*nj));
	if (!nj || native_request(ctx, ac, frame, fs.hottest, &nj->req)) {
		if (nj)
			native_free(&nj->job);
		snprintf(why, size, "out of memory");
		return NULL;
	}
	nj->req.folded = fs.folded;
	nj->job = (struct annotate_job){ native_run, native_free };
	return &nj->job;
}

/* The counts at @frame's sites in @ac (0 without a store). */
static uint64_t frame_count(const struct addr_counts *ac, uint32_t frame)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; ac && i < addr_counts__nsites(ac); i++) {
		struct addr_site s;

		addr_counts__site_at(ac, i, &s);
		if (s.frame == frame)
			sum = count__add(sum, count__add(s.self, s.calls));
	}
	return sum;
}

/* A native function is named by its frame's name, exactly. */
static bool native_names(const struct profile *prof, uint32_t frame, const char *name)
{
	return !strcmp(profile__frame_name(prof, frame), name);
}

static uint64_t native_count(const struct profile *prof, uint32_t frame)
{
	return frame_count(profile__addresses(prof), frame);
}

/* Every kind of frame with lines to show, and where they come from. */
static const struct annotate_source annotate_sources[] = {
	{ FRAME_USER, native_job, native_names, native_count },
	{ FRAME_KERNEL, native_job, native_names, native_count },
	{ FRAME_PYTHON, python_annotate__job, python_annotate__names, python_annotate__count },
};

/* The source of @kind's frames, or NULL. */
static const struct annotate_source *source_of(enum frame_kind kind)
{
	for (size_t i = 0; i < sizeof(annotate_sources) / sizeof(annotate_sources[0]); i++) {
		if (annotate_sources[i].kind == kind)
			return &annotate_sources[i];
	}
	return NULL;
}

struct annotate_job *annotate_source__job(const struct annotate_ctx *ctx, uint32_t frame,
					  char *why, size_t size)
{
	const struct frame *f = profile__frame_info(ctx->prof, frame);
	const struct annotate_source *src = source_of(f->kind);

	if (src)
		return src->job(ctx, frame, why, size);
	snprintf(why, size, "%s: %s", profile__frame_name(ctx->prof, frame),
		 f->kind == FRAME_PROCESS ? "a process, not a function: select a function"
					  : "no source of lines for this kind of frame");
	return NULL;
}

uint32_t annotate_source__find(const struct profile *prof, const char *name)
{
	uint32_t best = PROFILE_NONE;
	uint64_t best_count = 0;

	for (uint32_t id = 0; id < profile__nframes(prof); id++) {
		const struct annotate_source *src = source_of(profile__frame_info(prof, id)->kind);
		uint64_t count;

		if (!src || !src->names(prof, id, name))
			continue;
		count = src->count(prof, id);
		if (best == PROFILE_NONE || count > best_count) {
			best = id;
			best_count = count;
		}
	}
	return best;
}

void annotate_job__free(struct annotate_job *job)
{
	if (job)
		job->free(job);
}
