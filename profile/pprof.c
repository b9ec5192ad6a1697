// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "array.h"
#include "profile/pprof.h"
#include "profile/pprof.pb-c.h"
#include "profile/strtab.h"
#include "python/frame_names.h"
#include "symbols/sanitize.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

#define KERNEL_MAPPING "[kernel.kallsyms]"
#define INFLATED_MAX (1ul << 30)

/* Writing */

/*
 * A profile message being made. Every part is allocated in arrays here and
 * the message points into them; one location and one function per frame
 * that a sample uses (location id = function id), one mapping per file.
 */
struct pprof_builder {
	const struct profile *p;
	pb_profile msg;
	struct strtab *strings;
	pb_value_type types[2], period_type;
	pb_value_type *type_ptrs[2];

	uint32_t *loc_of_frame; /* frame id -> location id, 0 when none yet */
	pb_location *locs;
	pb_line *lines;
	pb_function *funcs;
	size_t nlocs, locs_cap, lines_cap, funcs_cap;

	pb_mapping *maps;
	size_t nmaps, maps_cap;

	pb_sample *samples;
	pb_label *labels;  /* two per sample */
	uint64_t *loc_ids; /* every sample's location ids, back to back */
	int64_t *values;   /* every sample's values, back to back */
	size_t nsamples, samples_cap, labels_cap, loc_ids_len, loc_ids_cap, values_cap;
	int64_t comm_key, pid_key;
};

/* The index of @s in the string table; -1 when out of memory. */
static int64_t string_index(struct pprof_builder *b, const char *s, size_t len)
{
	uint32_t id = strtab__intern(b->strings, s, len);

	return id == STRTAB_NONE ? -1 : (int64_t)id;
}

static int64_t cstring_index(struct pprof_builder *b, const char *s)
{
	return string_index(b, s, strlen(s));
}

/*
 * The id of the mapping of file @name (@len bytes) of build-id @build_id
 * (hex, "" for none), made on first sight; 0 when out of memory. Its
 * addresses are the file's own (no load address: it spans the whole
 * address space from 0, as pprof reads such a mapping). @has_functions:
 * its locations are named and need no lookup; otherwise pprof looks their
 * addresses up in the file (its lines, files), keeping the names given
 * where it cannot.
 */
static uint64_t mapping_id(struct pprof_builder *b, const char *name, size_t len,
			   const char *build_id, bool has_functions)
{
	int64_t file = string_index(b, name, len), id = cstring_index(b, build_id);
	pb_mapping *m;

	if (file < 0 || id < 0)
		return 0;
	for (size_t i = 0; i < b->nmaps; i++) {
		if (b->maps[i].filename == file && b->maps[i].build_id == id)
			return b->maps[i].id;
	}
	if (array__grow((void **)&b->maps, &b->maps_cap, b->nmaps + 1, sizeof(*b->maps), 16))
		return 0;
	m = &b->maps[b->nmaps];
	perftools__profiles__mapping__init(m);
	m->id = ++b->nmaps;
	m->filename = file;
	m->build_id = id;
	m->memory_limit = UINT64_MAX; /* the offsets of its locations are addresses in it */
	m->has_functions = has_functions;
	return m->id;
}

/* "file+0x1f2e": the file's mapping and the offset. Returns false for other names. */
static bool file_offset(const char *name, size_t *file_len, uint64_t *offset)
{
	const char *plus = strstr(name, "+0x");
	char *end;

	if (!plus || plus == name || name[0] == '[')
		return false;
	while (strstr(plus + 1, "+0x"))
		plus = strstr(plus + 1, "+0x");
	errno = 0;
	*offset = strtoull(plus + 3, &end, 16);
	if (*end || end == plus + 3 || errno)
		return false;
	*file_len = (size_t)(plus - name);
	return true;
}

/*
 * A Python frame's function, "qualname (file:LINE)": its qualname, its file
 * and its line into @fn and @line. False when out of memory.
 */
static bool python_function(struct pprof_builder *b, const char *name, pb_function *fn,
			    pb_line *line)
{
	struct py_frame_parts parts;
	int64_t qualname, file;

	if (!py_frame_name_split(name, strlen(name), &parts))
		return true; /* a placeholder: its name as it is */
	qualname = string_index(b, name, parts.qualname_len);
	file = string_index(b, name + parts.file_at, parts.file_len);
	if (qualname < 0 || file < 0)
		return false;
	fn->name = fn->system_name = qualname;
	fn->filename = file;
	line->line = (int64_t)parts.line;
	return true;
}

/* The location of @frame, made with its function on first use; 0 when out of memory. */
static uint64_t location_id(struct pprof_builder *b, uint32_t frame)
{
	const struct frame *fr = profile__frame_info(b->p, frame);
	const char *name = profile__frame_name(b->p, frame);
	int64_t name_index = cstring_index(b, name);
	struct frame_origin origin;
	size_t file_len;
	uint64_t offset;
	pb_location *loc;
	pb_function *fn;
	pb_line *line;

	if (b->loc_of_frame[frame])
		return b->loc_of_frame[frame];
	if (name_index < 0 ||
	    array__grow((void **)&b->locs, &b->locs_cap, b->nlocs + 1, sizeof(*b->locs), 256) ||
	    array__grow((void **)&b->lines, &b->lines_cap, b->nlocs + 1, sizeof(*b->lines), 256) ||
	    array__grow((void **)&b->funcs, &b->funcs_cap, b->nlocs + 1, sizeof(*b->funcs), 256))
		return 0;
	loc = &b->locs[b->nlocs];
	line = &b->lines[b->nlocs];
	fn = &b->funcs[b->nlocs];
	perftools__profiles__location__init(loc);
	perftools__profiles__line__init(line);
	perftools__profiles__function__init(fn);
	loc->id = line->function_id = fn->id = b->nlocs + 1;
	fn->name = fn->system_name = name_index;
	if (fr->kind == FRAME_PYTHON && !python_function(b, name, fn, line))
		return 0;
	if (fr->kind == FRAME_KERNEL) {
		loc->mapping_id = mapping_id(b, KERNEL_MAPPING, strlen(KERNEL_MAPPING), "", true);
		if (!loc->mapping_id)
			return 0;
	} else if (fr->named && profile__origin(b->p, frame, &origin)) {
		loc->mapping_id =
		    mapping_id(b, origin.file, strlen(origin.file), origin.build_id, false);
		loc->address = origin.address;
		if (!loc->mapping_id)
			return 0;
	} else if (!fr->named && file_offset(name, &file_len, &offset)) {
		loc->mapping_id = mapping_id(b, name, file_len, "", true);
		loc->address = offset;
		if (!loc->mapping_id)
			return 0;
	}
	b->nlocs++;
	b->loc_of_frame[frame] = (uint32_t)loc->id;
	return loc->id;
}

static bool hidden(const struct view_filter *f, const struct frame *fr)
{
	return (f->hide_kernel && fr->kind == FRAME_KERNEL) ||
	       (f->hide_user && (fr->kind == FRAME_USER || fr->kind == FRAME_PYTHON)) ||
	       (f->hide_interp && fr->interp);
}

/* @count x @scale as pprof's signed values hold it: saturated at INT64_MAX, as counts saturate. */
static int64_t pprof_value(uint64_t count, uint64_t scale)
{
	uint64_t v;

	if (__builtin_mul_overflow(count, scale, &v) || v > INT64_MAX)
		return INT64_MAX;
	return (int64_t)v;
}

/* Adds @s as a sample of @count; returns 0 or -ENOMEM. */
static int add_sample(struct pprof_builder *b, const struct view_filter *f,
		      const struct profile_stack *s, uint64_t count, const struct pprof_info *info)
{
	size_t nvalues = info->period_ns ? 2 : 1;
	int64_t comm = cstring_index(b, profile__frame_name(b->p, s->frames[0]));
	pb_label *labels;
	pb_sample *smp;

	if (comm < 0 ||
	    array__grow((void **)&b->samples, &b->samples_cap, b->nsamples + 1, sizeof(*b->samples),
			1024) ||
	    array__grow((void **)&b->labels, &b->labels_cap, 2 * (b->nsamples + 1),
			sizeof(*b->labels), 2048) ||
	    array__grow((void **)&b->loc_ids, &b->loc_ids_cap, b->loc_ids_len + s->n,
			sizeof(*b->loc_ids), 4096) ||
	    array__grow((void **)&b->values, &b->values_cap, nvalues * (b->nsamples + 1),
			sizeof(*b->values), 2048))
		return -ENOMEM;
	smp = &b->samples[b->nsamples];
	perftools__profiles__sample__init(smp);
	/* Offsets for now: the arrays may still move. */
	smp->location_id = (uint64_t *)(uintptr_t)b->loc_ids_len;
	for (uint32_t i = s->n; i-- > 1;) {
		const struct frame *fr = profile__frame_info(b->p, s->frames[i]);
		uint64_t id;

		if (hidden(f, fr))
			continue;
		id = location_id(b, s->frames[i]);
		if (!id)
			return -ENOMEM;
		b->loc_ids[b->loc_ids_len++] = id;
		smp->n_location_id++;
	}
	b->values[nvalues * b->nsamples] = pprof_value(count, 1);
	if (info->period_ns)
		b->values[nvalues * b->nsamples + 1] = pprof_value(count, info->period_ns);
	smp->n_value = nvalues;
	labels = &b->labels[2 * b->nsamples];
	perftools__profiles__label__init(&labels[0]);
	perftools__profiles__label__init(&labels[1]);
	labels[0].key = b->comm_key;
	labels[0].str = comm;
	labels[1].key = b->pid_key;
	labels[1].num = s->tgid;
	smp->n_label = s->tgid == TGID_UNKNOWN ? 1 : 2;
	b->nsamples++;
	return 0;
}

/* Points the message at the builder's arrays, now that they no longer move. */
static int link_message(struct pprof_builder *b, const struct pprof_info *info)
{
	pb_profile *m = &b->msg;
	size_t nvalues = info->period_ns ? 2 : 1, nstrings = strtab__count(b->strings);
	void **ptrs =
	    malloc((b->nsamples + 2 * b->nsamples + 3 * b->nlocs + b->nmaps + 1) * sizeof(void *));
	char **strings = malloc((nstrings + 1) * sizeof(char *));
	pb_label **label_ptrs;
	pb_line **line_ptrs;
	void **at = ptrs;

	if (!ptrs || !strings) {
		free(ptrs);
		free(strings);
		return -ENOMEM;
	}
	m->sample = (pb_sample **)at;
	for (size_t i = 0; i < b->nsamples; i++)
		*at++ = &b->samples[i];
	label_ptrs = (pb_label **)at;
	for (size_t i = 0; i < 2 * b->nsamples; i++)
		*at++ = &b->labels[i];
	for (size_t i = 0; i < b->nsamples; i++) {
		pb_sample *s = &b->samples[i];

		s->location_id = b->loc_ids + (size_t)(uintptr_t)s->location_id;
		s->value = b->values + nvalues * i;
		s->label = label_ptrs + 2 * i;
	}
	m->n_sample = b->nsamples;
	m->location = (pb_location **)at;
	line_ptrs = (pb_line **)at + b->nlocs;
	for (size_t i = 0; i < b->nlocs; i++) {
		m->location[i] = &b->locs[i];
		line_ptrs[i] = &b->lines[i];
		b->locs[i].n_line = 1;
		b->locs[i].line = &line_ptrs[i];
	}
	at += 2 * b->nlocs;
	m->n_location = b->nlocs;
	m->function = (pb_function **)at;
	for (size_t i = 0; i < b->nlocs; i++)
		*at++ = &b->funcs[i];
	m->n_function = b->nlocs;
	m->mapping = (pb_mapping **)at;
	for (size_t i = 0; i < b->nmaps; i++)
		*at++ = &b->maps[i];
	m->n_mapping = b->nmaps;
	for (size_t i = 0; i < nstrings; i++)
		strings[i] = (char *)strtab__str(b->strings, (uint32_t)i);
	m->string_table = strings;
	m->n_string_table = nstrings;
	return 0;
}

/* The sample types and the period. Returns 0 or -ENOMEM. */
static int describe(struct pprof_builder *b, const struct pprof_info *info)
{
	pb_profile *m = &b->msg;

	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	perftools__profiles__value_type__init(&b->period_type);
	b->types[0].type = cstring_index(b, info->type);
	b->types[0].unit = cstring_index(b, info->unit);
	m->sample_type = b->type_ptrs;
	m->n_sample_type = 1;
	if (info->period_ns) {
		b->types[1].type = b->period_type.type = cstring_index(b, "cpu");
		b->types[1].unit = b->period_type.unit = cstring_index(b, "nanoseconds");
		m->n_sample_type = 2;
		m->period_type = &b->period_type;
		m->period = (int64_t)info->period_ns;
	}
	b->comm_key = cstring_index(b, "comm");
	b->pid_key = cstring_index(b, "pid");
	m->time_nanos = info->time_ns;
	m->duration_nanos = info->duration_ns;
	return b->types[0].type < 0 || b->types[0].unit < 0 || b->types[1].type < 0 ||
		       b->types[1].unit < 0 || b->comm_key < 0 || b->pid_key < 0
		   ? -ENOMEM
		   : 0;
}

/* protobuf-c hands the packed message here piece by piece: deflated, then written. */
struct gzip_sink {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	int err;
	unsigned char chunk[64 * 1024];
};

static void gzip_deflate(struct gzip_sink *g, const uint8_t *data, size_t len, int flush)
{
	g->z.next_in = (Bytef *)data;
	g->z.avail_in = (uInt)len;
	do {
		int zr;

		g->z.next_out = g->chunk;
		g->z.avail_out = sizeof(g->chunk);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		if (fwrite(g->chunk, 1, sizeof(g->chunk) - g->z.avail_out, g->out) !=
		    sizeof(g->chunk) - g->z.avail_out) {
			g->err = -(errno ? errno : EIO);
			return;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
}

static void gzip_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct gzip_sink *g = (struct gzip_sink *)buf;

	/* zlib takes at most 4 GiB at a time. */
	while (!g->err && len) {
		size_t n = len > (1u << 30) ? 1u << 30 : len;

		gzip_deflate(g, data, n, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* Packs @m, gzip-compressed, to @out; returns 0 or -errno. */
static int write_gzip(FILE *out, const pb_profile *m)
{
	struct gzip_sink *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return -ENOMEM;
	g->base.append = gzip_append;
	g->out = out;
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	perftools__profiles__profile__pack_to_buffer(m, &g->base);
	if (!g->err)
		gzip_deflate(g, NULL, 0, Z_FINISH);
	deflateEnd(&g->z);
	err = g->err;
	free(g);
	if (!err && (fflush(out) || ferror(out)))
		err = -(errno ? errno : EIO);
	return err;
}

static void free_builder(struct pprof_builder *b)
{
	strtab__free(b->strings);
	free(b->loc_of_frame);
	free(b->locs);
	free(b->lines);
	free(b->funcs);
	free(b->maps);
	free(b->samples);
	free(b->labels);
	free(b->loc_ids);
	free(b->values);
	free(b->msg.sample);
	free(b->msg.string_table);
}

long pprof__write(FILE *out, const struct profile *p, const struct view_filter *f,
		  const struct pprof_info *info)
{
	struct pprof_builder b = {.p = p, .strings = strtab__new()};
	size_t n = profile__nstacks(p);
	int err = 0;

	perftools__profiles__profile__init(&b.msg);
	b.loc_of_frame = calloc(profile__nframes(p) + 1, sizeof(*b.loc_of_frame));
	if (!b.strings || !b.loc_of_frame || cstring_index(&b, "") != 0 || describe(&b, info))
		err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		struct profile_stack s;
		uint64_t count;

		profile__stack_sorted(p, i, &s);
		count = f->window == WINDOW_RECENT ? s.recent : s.total;
		if (count && view_filter__keeps(f, p, &s))
			err = add_sample(&b, f, &s, count, info);
	}
	if (!err)
		err = link_message(&b, info);
	if (!err)
		err = write_gzip(out, &b.msg);
	free_builder(&b);
	return err ? err : (long)b.nsamples;
}

/* Reading */

/* Inflates @data (gzip) into *@out (to free()), at most INFLATED_MAX bytes. */
static int inflate_all(const void *data, size_t len, uint8_t **out, size_t *out_len,
		       const char **why)
{
	z_stream z = {.next_in = (Bytef *)data, .avail_in = (uInt)len};
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;
	int zr = Z_OK;

	if (len > UINT32_MAX) {
		*why = "a gzip stream over 4 GiB";
		return -EFBIG;
	}
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return -ENOMEM;
	while (zr != Z_STREAM_END) {
		if (n == cap) {
			if (n >= INFLATED_MAX) {
				inflateEnd(&z);
				free(buf);
				return -EFBIG;
			}
			if (array__grow((void **)&buf, &cap, n + 1, 1, len * 4 + 4096)) {
				inflateEnd(&z);
				free(buf);
				return -ENOMEM;
			}
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - buf);
		if (zr == Z_BUF_ERROR && z.avail_out && !z.avail_in)
			zr = Z_DATA_ERROR; /* cut short */
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			*why =
			    zr == Z_MEM_ERROR ? "out of memory" : "corrupt or truncated gzip data";
			inflateEnd(&z);
			free(buf);
			return zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		}
	}
	inflateEnd(&z);
	*out = buf;
	*out_len = n;
	return 0;
}

/* Ids to indexes: ids are most often 1..n in order; otherwise a sorted table. */
struct id_index {
	uint64_t *ids; /* sorted, with their indexes in idx */
	size_t *idx, n;
	bool dense;
};

static uint64_t id_of(const void *items, size_t i, size_t which)
{
	const void *const *v = items;

	switch (which) {
	case 0:
		return ((const pb_mapping *)v[i])->id;
	case 1:
		return ((const pb_location *)v[i])->id;
	default:
		return ((const pb_function *)v[i])->id;
	}
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Indexes @n messages by id (@which: 0 mappings, 1 locations, 2 functions). */
static int id_index__build(struct id_index *ix, const void *items, size_t n, size_t which)
{
	uint64_t *pairs;

	ix->n = n;
	ix->dense = true;
	for (size_t i = 0; i < n && ix->dense; i++)
		ix->dense = id_of(items, i, which) == i + 1;
	if (ix->dense)
		return 0;
	pairs = malloc(2 * n * sizeof(*pairs) + 1);
	if (!pairs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pairs[2 * i] = id_of(items, i, which);
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), cmp_u64_pair);
	ix->ids = pairs;
	return 0;
}

/* The index of @id, or SIZE_MAX. */
static size_t id_index__find(const struct id_index *ix, uint64_t id)
{
	size_t lo = 0, hi = ix->n;

	if (ix->dense)
		return id >= 1 && id <= ix->n ? id - 1 : SIZE_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->ids[2 * mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->ids[2 * lo] == id ? ix->ids[2 * lo + 1] : SIZE_MAX;
}

/* What the reader knows while it adds samples. */
struct pprof_reader {
	const pb_profile *m;
	struct profile *p;
	struct input_stats *st;
	struct id_index maps, locs, funcs;
	uint32_t **loc_frames; /* location index -> its frames, outermost first (the count first) */
	uint32_t *stack;
	size_t stack_cap;
	size_t value; /* which of the sample's values counts */
	int64_t comm_key, pid_key;
	uint32_t default_comm; /* the process frame of samples without a comm label */
};

static const char *string_at(const pb_profile *m, int64_t i)
{
	return i >= 0 && (uint64_t)i < m->n_string_table ? m->string_table[i] : NULL;
}

/* -EBADMSG with @why. */
static int malformed(struct pprof_reader *r, const char *why)
{
	r->st->error = why;
	return -EBADMSG;
}

static bool kernel_file(const char *file)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	return strncmp(file, "[kernel", 7) == 0 || strncmp(base, "vmlinux", 7) == 0;
}

/*
 * The user frame of function @name at @line of @file (NULL: none): a
 * Python function's (py_file_is_python()) is "name (file:LINE)", a Python
 * frame, as flametop writes them; any other's its name.
 */
static uint32_t line_frame(struct pprof_reader *r, const char *name, const char *file,
			   int64_t line)
{
	char buf[NAME_MAX_BYTES + 1];
	int n;

	if (!file || line <= 0 || !py_file_is_python(file))
		return reader__frame(r->p, name, strlen(name), FRAME_USER);
	n = snprintf(buf, sizeof(buf), "%s (%s:%lld)", name, file, (long long)line);
	return reader__frame(r->p, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1,
			    FRAME_USER);
}

/* The frames of location @li, outermost first, made on first use. Returns 0 or -errno. */
static int location_frames(struct pprof_reader *r, size_t li, const uint32_t **out)
{
	const pb_location *loc = r->m->location[li];
	const pb_mapping *map = NULL;
	enum frame_kind kind = FRAME_USER;
	uint32_t *frames;

	if (r->loc_frames[li]) {
		*out = r->loc_frames[li];
		return 0;
	}
	if (loc->mapping_id) {
		size_t mi = id_index__find(&r->maps, loc->mapping_id);
		const char *file;

		if (mi == SIZE_MAX)
			return malformed(r, "a location in a mapping that does not exist");
		map = r->m->mapping[mi];
		file = string_at(r->m, map->filename);
		if (!file)
			return malformed(r, "a string index out of range");
		if (kernel_file(file))
			kind = FRAME_KERNEL;
	}
	frames = malloc((loc->n_line + 2) * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	frames[0] = 0;
	/* The last line is the caller the others were inlined into. */
	for (size_t i = loc->n_line; i-- > 0;) {
		size_t fi = id_index__find(&r->funcs, loc->line[i]->function_id);
		const char *name =
		    fi == SIZE_MAX ? NULL : string_at(r->m, r->m->function[fi]->name);
		uint32_t id;

		if (!name) {
			free(frames);
			return malformed(r, "a line of a function that does not exist");
		}
		if (!name[0])
			name = string_at(r->m, r->m->function[fi]->system_name) ?: "";
		id = kind == FRAME_USER && name[0]
			     ? line_frame(r, name, string_at(r->m, r->m->function[fi]->filename),
					  loc->line[i]->line)
			     : reader__frame(r->p, name[0] ? name : "[unknown]",
					     name[0] ? strlen(name) : 9, kind);
		if (id == PROFILE_NONE) {
			free(frames);
			return -ENOMEM;
		}
		frames[1 + frames[0]++] = id;
	}
	if (!loc->n_line) {
		const char *file = map ? string_at(r->m, map->filename) : NULL;
		const char *base = file && strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		char name[512];
		int n;

		if (base && base[0])
			n = snprintf(name, sizeof(name), "%s+0x%llx", base,
				     (unsigned long long)(loc->address - map->memory_start +
							  map->file_offset));
		else
			n = snprintf(name, sizeof(name), "[unknown]");
		frames[1] = reader__frame(
		    r->p, name, (size_t)n < sizeof(name) ? (size_t)n : sizeof(name) - 1, kind);
		if (frames[1] == PROFILE_NONE) {
			free(frames);
			return -ENOMEM;
		}
		frames[0] = 1;
	}
	r->loc_frames[li] = frames;
	*out = frames;
	return 0;
}

/* The process frame and tgid of @s, from its labels. Returns 0 or -errno. */
static int sample_process(struct pprof_reader *r, const pb_sample *s, uint32_t *frame,
			  int32_t *tgid)
{
	*frame = r->default_comm;
	*tgid = TGID_UNKNOWN;
	for (size_t i = 0; i < s->n_label; i++) {
		const pb_label *l = s->label[i];

		if (l->key == r->comm_key && l->str) {
			const char *comm = string_at(r->m, l->str);

			if (!comm)
				return malformed(r, "a string index out of range");
			*frame = reader__frame(r->p, comm, strlen(comm), FRAME_PROCESS);
			if (*frame == PROFILE_NONE)
				return -ENOMEM;
		} else if (l->key == r->pid_key && !l->str && l->num > 0 && l->num <= INT32_MAX) {
			*tgid = (int32_t)l->num;
		}
	}
	return 0;
}

static int add_pprof_sample(struct pprof_reader *r, const pb_sample *s)
{
	struct sample smp = {.frames = r->stack};
	size_t n = 1;
	int err;

	if (s->n_value != r->m->n_sample_type)
		return malformed(r, "a sample whose values do not match the sample types");
	if (s->value[r->value] < 0) {
		reader__bad_line(r->st, "a negative value");
		return 0;
	}
	if (!s->value[r->value])
		return 0;
	err = sample_process(r, s, &r->stack[0], &smp.tgid);
	for (size_t i = s->n_location_id; !err && i-- > 0;) {
		size_t li = id_index__find(&r->locs, s->location_id[i]);
		const uint32_t *frames;

		if (li == SIZE_MAX)
			return malformed(r, "a sample at a location that does not exist");
		err = location_frames(r, li, &frames);
		if (!err && array__grow((void **)&r->stack, &r->stack_cap, n + frames[0],
					sizeof(*r->stack), 256))
			err = -ENOMEM;
		if (!err) {
			memcpy(r->stack + n, frames + 1, frames[0] * sizeof(*frames));
			n += frames[0];
		}
	}
	if (err)
		return err;
	smp.frames = r->stack;
	smp.n = (uint32_t)n;
	smp.count = (uint64_t)s->value[r->value];
	err = profile__add(r->p, &smp);
	if (!err)
		r->st->stacks++;
	return err;
}

/* The sample type pprof shows: the default one, else "samples", else the last. */
static size_t choose_value(const pb_profile *m)
{
	size_t samples = SIZE_MAX;

	for (size_t i = 0; i < m->n_sample_type; i++) {
		if (m->default_sample_type && m->sample_type[i]->type == m->default_sample_type)
			return i;
		if (samples == SIZE_MAX && (string_at(m, m->sample_type[i]->type) ?: "")[0] &&
		    strcmp(string_at(m, m->sample_type[i]->type), "samples") == 0)
			samples = i;
	}
	return samples != SIZE_MAX ? samples : m->n_sample_type - 1;
}

/* Checks what every sample relies on; returns 0 or -EBADMSG. */
static int check_profile(struct pprof_reader *r)
{
	const pb_profile *m = r->m;

	if (!m->n_string_table || m->string_table[0][0])
		return malformed(r, "the string table does not start with \"\"");
	if (!m->n_sample_type)
		return malformed(r, "no sample type");
	for (size_t i = 0; i < m->n_sample_type; i++) {
		if (!string_at(m, m->sample_type[i]->type) ||
		    !string_at(m, m->sample_type[i]->unit))
			return malformed(r, "a string index out of range");
	}
	return 0;
}

/* The process of samples without a comm label: the main binary's file name. */
static int default_comm(struct pprof_reader *r)
{
	const char *file = r->m->n_mapping ? string_at(r->m, r->m->mapping[0]->filename) : NULL;
	const char *base = file && strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	if (!base || !base[0])
		base = "[unknown]";
	r->default_comm = reader__frame(r->p, base, strlen(base), FRAME_PROCESS);
	return r->default_comm == PROFILE_NONE ? -ENOMEM : 0;
}

static int read_message(struct pprof_reader *r)
{
	const pb_profile *m = r->m;
	const char *type, *unit;
	int err = check_profile(r);

	if (err)
		return err;
	r->value = choose_value(m);
	type = string_at(m, m->sample_type[r->value]->type);
	unit = string_at(m, m->sample_type[r->value]->unit);
	/* Names from outside, sanitized where they enter, as frames' are. */
	type = type[0] ? type : "samples";
	unit = unit[0] ? unit : "count";
	sanitize_name(r->st->unit, sizeof(r->st->unit), type, strlen(type));
	sanitize_name(r->st->count_unit, sizeof(r->st->count_unit), unit, strlen(unit));
	r->comm_key = -1;
	r->pid_key = -1;
	for (size_t i = 1; i < m->n_string_table; i++) {
		if (r->comm_key < 0 && strcmp(m->string_table[i], "comm") == 0)
			r->comm_key = (int64_t)i;
		if (r->pid_key < 0 && strcmp(m->string_table[i], "pid") == 0)
			r->pid_key = (int64_t)i;
	}
	r->loc_frames = calloc(m->n_location + 1, sizeof(*r->loc_frames));
	if (!r->loc_frames ||
	    array__grow((void **)&r->stack, &r->stack_cap, 1, sizeof(*r->stack), 256))
		return -ENOMEM;
	err = id_index__build(&r->maps, m->mapping, m->n_mapping, 0) ?:
	      id_index__build(&r->locs, m->location, m->n_location, 1) ?:
	      id_index__build(&r->funcs, m->function, m->n_function, 2) ?: default_comm(r);
	for (size_t i = 0; i < m->n_sample && !err; i++)
		err = add_pprof_sample(r, m->sample[i]);
	return err;
}

int pprof__read(const void *data, size_t len, struct profile *p, struct input_stats *st)
{
	const unsigned char *u = data;
	struct pprof_reader r = {.p = p, .st = st};
	uint8_t *raw = NULL;
	pb_profile *m;
	int err = 0;

	if (len >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
		err = inflate_all(data, len, &raw, &len, &st->error);
		if (err)
			return err;
		data = raw;
	}
	m = perftools__profiles__profile__unpack(NULL, len, data);
	if (!m) {
		free(raw);
		st->error = "not a profile.proto message";
		return -EBADMSG;
	}
	r.m = m;
	err = read_message(&r);
	for (size_t i = 0; r.loc_frames && i < m->n_location; i++)
		free(r.loc_frames[i]);
	free(r.loc_frames);
	free(r.stack);
	free(r.maps.ids);
	free(r.locs.ids);
	free(r.funcs.ids);
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(raw);
	return err;
}
