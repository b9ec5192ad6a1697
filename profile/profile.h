/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile: the model. Every stack, live or read from a folded file, enters
 * through profile__add(); the profile keeps each distinct stack once, with
 * its counts for the cumulative and the recent window. Views are built from
 * it (see stack_trie.h), so filters act on data already collected.
 *
 * A stack is a list of frame ids, outermost first: the process frame (the
 * comm), then user frames, then kernel frames, leaf last.
 */
#ifndef FLAMETOP_PROFILE_H
#define FLAMETOP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_NONE UINT32_MAX
#define COUNT_MAX UINT64_MAX /* where counts saturate */
#define TGID_UNKNOWN (-1) /* a stack read from a file that names no process id */

enum frame_kind {
	FRAME_PROCESS, /* the root of a stack: a comm such as "bash" or "swapper/0" */
	FRAME_USER,
	FRAME_KERNEL,
	FRAME_PYTHON,  /* a Python function: "qualname (file:LINE)"; a user frame */
};

struct frame {
	uint32_t name;   /* string id; see profile__frame_name() */
	uint32_t object; /* string id of its shared object, or PROFILE_NONE */
	uint8_t kind;    /* enum frame_kind */
	bool named;      /* false for "[unknown]", "lib.so+0x1f" and other placeholders */
	/*
	 * A user frame of the interpreter's dispatch machinery
	 * (python/frame_names.h) in a stack with Python frames, which a view
	 * may hide (view_filter.hide_interp). profile__add() gives such a
	 * stack these frames in place of the plain ones of the same name.
	 */
	bool interp;
	uint8_t dispatch; /* private to profile.c: whether its name is dispatch's, once known */
};

struct sample {
	int32_t tgid;           /* process id, or TGID_UNKNOWN */
	int32_t tid;            /* thread id; 0 or below when not known */
	const uint32_t *frames; /* frame ids from profile__frame(); frames[0] is the process */
	uint32_t n;             /* >= 1 */
	uint64_t count;         /* events, or a weight such as bytes */
	const uint32_t *sites;  /* NULL, or frame i's site in profile__keep_addresses()'s
				 * store (ADDR_NONE: none), to count there */
	bool leaf_exact;        /* the leaf's site is where the event was (a sample), not a call */
};

enum profile_window {
	WINDOW_CUMULATIVE, /* since start or the last reset */
	WINDOW_RECENT,     /* the last closed interval */
};

/*
 * How the first level of a view groups stacks: by command (the process
 * frame, frames[0]), by process ("python3 [1234]") or by thread
 * ("python3 [1234/1240]"). See profile__group().
 */
enum profile_group {
	GROUP_COMM,
	GROUP_PID,
	GROUP_TID,
	GROUP_NR,
};

/*
 * A stored stack, as profile__stack() shows it. Its frames stay where they
 * are, unchanged, while the profile grows: until profile__pack(),
 * profile__fold() (when it folds), profile__reset() or profile__free().
 */
struct profile_stack {
	uint32_t id;     /* its index: profile__stack(p, id, ...) */
	int32_t tgid;
	int32_t tid;
	const uint32_t *frames;
	uint32_t n;
	uint32_t kernel_at; /* frames[1, kernel_at) are user frames, frames[kernel_at, n)
			    * kernel frames; PROFILE_NONE when they are mixed otherwise */
	uint64_t total;  /* cumulative */
	uint64_t recent; /* in the last closed interval */
};

struct profile;

/*
 * count__add() is @a + @b, or COUNT_MAX when the sum does not fit: counts
 * saturate instead of wrapping (two stacks of 2^64 - 1 make 2^64 - 1, not
 * 2^64 - 2). Every sum of counts goes through it.
 */
static inline uint64_t count__add(uint64_t a, uint64_t b)
{
	uint64_t sum;

	return __builtin_add_overflow(a, b, &sum) ? COUNT_MAX : sum;
}

/* profile__new() returns an empty profile, or NULL when out of memory. */
struct profile *profile__new(void);

/*
 * profile__frame() interns a frame: a name (already sanitized, @len bytes)
 * of a kind. The same name and kind always give the same id. Returns
 * PROFILE_NONE when out of memory.
 */
uint32_t profile__frame(struct profile *p, const char *name, size_t len, enum frame_kind kind,
			bool named);

/*
 * profile__frame_in() is profile__frame() for a frame of a known shared
 * object (@object, @object_len bytes, already sanitized; e.g. "libc.so.6"):
 * the same name in two objects makes two frames.
 */
uint32_t profile__frame_in(struct profile *p, const char *name, size_t len, enum frame_kind kind,
			   bool named, const char *object, size_t object_len);

struct addr_counts;

/*
 * profile__keep_addresses() gives @p a store of the sites inside its
 * functions (addr_counts.h) that profile__add() counts the stacks' sites
 * in (struct sample.sites), made on the first call. The store is reset,
 * frozen, folded (within --max-stacks sites) and renumbered with the
 * profile. Returns it, or NULL when out of memory.
 */
struct addr_counts *profile__keep_addresses(struct profile *p);

/*
 * The store of profile__keep_addresses(), or NULL when @p keeps none (a
 * profile read from a file).
 */
struct addr_counts *profile__addresses(const struct profile *p);

/* Number of interned frames: every frame id is below it. */
size_t profile__nframes(const struct profile *p);

/* The frame with id @id, and its NUL-terminated name. */
const struct frame *profile__frame_info(const struct profile *p, uint32_t id);
const char *profile__frame_name(const struct profile *p, uint32_t id);

/* The shared object frame @id was found in, or NULL when its entry point did not say. */
const char *profile__frame_object(const struct profile *p, uint32_t id);

/*
 * Where a user function lies, for the formats that can say so (pprof): the
 * file it was found in (its path as the process mapped it), the file's GNU
 * build-id, and the function's address in it (its ELF symbol's value), so
 * that pprof, Pyroscope or Parca can find it there.
 */
struct frame_origin {
	const char *file;     /* sanitized */
	const char *build_id; /* hexadecimal; "" when the file has none */
	uint64_t address;
};

/*
 * profile__set_origin() records where frame @id lies (copied; the first
 * record stays). Returns 0 or -ENOMEM (nothing recorded).
 */
int profile__set_origin(struct profile *p, uint32_t id, const struct frame_origin *o);

/*
 * profile__origin() fills @out (strings valid as long as frame names are)
 * with where frame @id lies; false when nothing was recorded.
 */
bool profile__origin(const struct profile *p, uint32_t id, struct frame_origin *out);

/*
 * profile__add() is the one entry point for stacks: it adds @s->count to the
 * stack @s describes (frames, process and thread; stored on first sight) in
 * the cumulative window and in the interval now open, and to its sites
 * (@s->sites) when the profile keeps addresses; sums saturate at
 * COUNT_MAX (see profile__saturated()). In a stack with Python frames the
 * interpreter's dispatch frames are stored as their interp twins (see
 * struct frame). Returns 0, -EINVAL
 * for an empty stack, one that
 * does not start with a process frame or holds an unknown frame id, or
 * -ENOMEM (nothing changed).
 */
int profile__add(struct profile *p, const struct sample *s);

/*
 * True when some sum of counts in @p did not fit and stopped at COUNT_MAX
 * (see count__add()) since profile__new() or profile__reset(): the counts
 * shown are then lower bounds.
 */
bool profile__saturated(const struct profile *p);

/*
 * profile__close_interval() ends the open interval: what it collected
 * becomes the recent window, and a new interval opens.
 */
void profile__close_interval(struct profile *p);

/*
 * profile__reset() forgets every stack and count (the interned frames stay);
 * a frozen profile thaws.
 */
void profile__reset(struct profile *p);

/*
 * profile__freeze() takes a still picture of the counts (a new one when
 * frozen already): until profile__thaw(), profile__stack(),
 * profile__stack_sorted() and profile__total() show the counts as they
 * were, the stacks added since with none, while profile__add() and
 * profile__close_interval() go on underneath. The screen shows the picture
 * of its last refresh, and a paused screen keeps it. Returns 0, or -ENOMEM
 * with the profile as it was.
 */
int profile__freeze(struct profile *p);
void profile__thaw(struct profile *p);

/*
 * profile__group() names the first level of @g for the stacks stored since
 * its last call: "comm [tgid]" for GROUP_PID, "comm [tgid/tid]" for
 * GROUP_TID, interned as process frames (a stack whose process or thread is
 * not known keeps its comm). GROUP_COMM needs nothing. Returns 0 or
 * -ENOMEM (the stacks not named keep their comm).
 */
int profile__group(struct profile *p, enum profile_group g);

/*
 * The first-level frame of stack @id under @g: the group frame
 * profile__group() made, else the stack's comm (frames[0]).
 */
uint32_t profile__stack_group(const struct profile *p, uint32_t id, enum profile_group g);

/* True when some stack names its process (a tgid other than TGID_UNKNOWN). */
bool profile__has_tgids(const struct profile *p);

/* Number of distinct stacks; stack @i of them (0 <= i < count). */
size_t profile__nstacks(const struct profile *p);
void profile__stack(const struct profile *p, size_t i, struct profile_stack *out);

/*
 * The sorted order: stacks by their frame ids, compared as strings of
 * numbers (a stack comes before the longer stacks it begins), then by tgid.
 * Stacks that share a prefix are neighbours in it, as in a sorted folded
 * file.
 *
 * profile__sort() brings the order up to date: the stacks added since the
 * last sort are sorted on their own and merged in, so a sort costs nothing
 * when no stack is new. Returns 0, or -ENOMEM with the order as it was.
 *
 * profile__stack_sorted() is profile__stack() by @rank in that order
 * (0 <= rank < count), as of the last profile__sort(): the stacks added
 * since then come after the sorted ones, in the order they came.
 */
int profile__sort(struct profile *p);
void profile__stack_sorted(const struct profile *p, size_t rank, struct profile_stack *out);

/* How many stacks the sorted order covers: those of rank below it. */
size_t profile__nsorted(const struct profile *p);

/*
 * profile__pack() lays the stacks out in memory in the order
 * profile__stack_sorted() gives, their frames in one block: what reads the
 * stacks in that order then reads memory in order too (a view of a big
 * profile does, over and over). It renumbers the stacks by that order
 * (profile__stack() of i is then the stack of rank i) and moves every
 * stack's frames, as profile__reset() would; a frozen picture moves with
 * its stacks, and profile__group() must name the groups again. Returns 0,
 * or -ENOMEM with the profile as it was.
 */
int profile__pack(struct profile *p);

/* Is process @tgid gone (exited)? For profile__fold(). */
typedef bool profile_gone_fn(void *ctx, int32_t tgid);

/*
 * profile__fold() keeps @p within @max_stacks stacks (0: no limit), for a
 * long session. When it holds more, it folds stacks into others until it
 * holds at most 3/4 of @max_stacks, in steps, each only while still over:
 * the stacks of processes @gone (may be NULL) says have exited, each into
 * the same stack of its command (its process no longer known: TGID_UNKNOWN);
 * then, least worth keeping first (not counted in the open or the last
 * interval, then the least counted), stacks into their command's stack
 * "comm;[other]"; then into one stack "[other]". Within the limit, once it
 * holds a quarter of @max_stacks more than after the last fold (or since
 * profile__reset()), it takes the first step alone: under process churn
 * the profile stays well below its limit instead of swinging up to it.
 * Every count stays: the totals of both windows, of the frozen picture,
 * and each command's but in the last step. The sites kept are folded within
 * @max_stacks too (addr_counts__fold()). The stacks are renumbered and
 * their frames move, as profile__pack() does; the sorted order and the
 * groups are made again. Then, when stacks were folded away and the
 * profile has 65,536 frames or more, at least half of them used by no
 * stack, those frames and their names are dropped and the others
 * renumbered (profile__frames_gen() changes): a long session's names stay
 * bounded by what its stacks use.
 * Returns the number of stacks folded away (0 when none), or -ENOMEM with
 * the steps done so far kept (each step all or nothing; the totals exact
 * either way).
 */
long profile__fold(struct profile *p, size_t max_stacks, profile_gone_fn *gone, void *ctx);

/*
 * profile__frames_gen() changes each time profile__fold() renumbers the
 * frames: a frame id kept from before it (a cache, a view's selection)
 * must then be mapped with profile__renumbered(), which gives its new id,
 * or PROFILE_NONE when the frame was dropped (valid until the next
 * renumbering; ids from before an earlier one cannot be mapped).
 */
uint64_t profile__frames_gen(const struct profile *p);
uint32_t profile__renumbered(const struct profile *p, uint32_t id);

/* How many stacks profile__fold() folded away since profile__new() or profile__reset(). */
uint64_t profile__folded(const struct profile *p);

/* Sum of all counts in @window. */
uint64_t profile__total(const struct profile *p, enum profile_window window);

/* Approximate heap bytes held. */
size_t profile__bytes(const struct profile *p);

/* profile__free(NULL) is a no-op. */
void profile__free(struct profile *p);

#endif
