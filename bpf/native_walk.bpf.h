/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native_walk.bpf.h: the user stack's native frames, walked in BPF: with
 * the unwind tables the loader builds from each mapped file's CFI
 * (--unwind auto, as perf --call-graph dwarf unwinds afterwards, but
 * live), by frame pointer where code has no table, or by the kernel's own
 * bpf_get_stack() where this walk cannot go (32-bit tasks, old kernels).
 */
#ifndef FLAMETOP_NATIVE_WALK_BPF_H
#define FLAMETOP_NATIVE_WALK_BPF_H

/* Set once, before load. */
const volatile bool unwind_with_tables = false; /* --unwind auto: the loader fills the unwind maps */
const volatile bool memo_walks = false; /* off-CPU, read mode: threads' last walks kept */

struct unwind_table_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unwind_row)); /* by size: BTF would hold it a forward */
	__uint(max_entries, 1);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1); /* UNWIND_MAX_TABLES when walking with tables */
	__array(values, struct unwind_table_map);
} unwind_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* read by walks of copied stacks too */
	__type(key, __u32);
	__type(value, struct unwind_rule);
	__uint(max_entries, 1); /* UNWIND_MAX_RULES */
} unwind_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1); /* process slots */
} unwind_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_proc);
	__uint(max_entries, 1); /* process slots */
} unwind_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_map);
	__uint(max_entries, 1); /* the pool of every process's mappings */
} unwind_mappings SEC(".maps");

/*
 * Walks the user stack from @r along the frame pointers, as the kernel's
 * perf_callchain_user() does, into its scratch record, as walk_stack()
 * does (--unwind fp). It also stops at a frame pointer that does not lead
 * up the stack (callers' frames sit above their callees'), where the
 * kernel's walk would read on, most often at a small number left in the
 * frame pointer register by code built without frame pointers (libc's
 * start code): reading it faults, and a fault costs more here than the
 * rest of the walk. A chain that ends in a null frame pointer or return
 * address reached the start code; any other end is UNWIND_NO_TABLE. (This
 * walk is for comparison, as perf record -g walks: the table walk keeps
 * no caller a frame pointer found in a stack it could not finish.) (The
 * depth is kept in t->nr, not in a register: the verifier would go on from
 * each exit of the loop with its own depth, hundreds of times over.)
 */
static __always_inline long walk_user_frames(const struct user_regs *r, __u64 *hash)
{
	struct sent_stack *t = scratch_stack(true);
	__u64 fp = r->fp, below = r->sp, frame[2], h;
	__u32 end = UNWIND_DEPTH;

	if (!t) {
		stack_failed(-EFAULT, true);
		return -EFAULT;
	}
	t->ips[0] = r->ip;
	t->nr = 1;
	h = hash_step(HASH_MUL, r->ip);
	for (int i = 1; i < MAX_STACK_DEPTH; i++) {
		if (fp < below || bpf_probe_read_user(frame, sizeof(frame), (void *)fp) || !frame[1]) {
			/* A chain ends in a null frame pointer (or return address), not
			 * a leaf without one: its frame pointer was never set. */
			end = (!fp && i > 1) || (fp >= below && !frame[1]) ? UNWIND_WHOLE
									    : UNWIND_NO_TABLE;
			break;
		}
		t->ips[i] = frame[1];
		t->nr = i + 1;
		h = hash_step(h, frame[1]);
		below = fp + sizeof(frame);
		fp = frame[0];
	}
	*hash = stack_hash_end(t, h, end);
	stat_add(STAT_UWALK + end, 1);
	return 0;
}

/*
 * The walk with unwind tables (--unwind auto), one frame per call of
 * unwind_step() from bpf_loop(): the verifier checks a step once. Each
 * step finds the mapping of the frame last recorded, the row of its table
 * (at its address less one: a return address follows its call), and
 * follows the rule there to the caller's registers; in code known to
 * have no table (a file without CFI, JIT code), it follows the frame
 * pointer instead, as walk_user_frames() does. Where the walk does not know
 * the code yet (the process is not described, or its file's table is not
 * in), it stops: a frame pointer there may belong to a caller's frame (a
 * leaf that never set one up), and following it would skip that caller. A
 * caller's address must lie in one of the process's executable mappings
 * to be recorded: a walk never records a frame it made up.
 *
 * The walk's state is kept in a per-CPU map, not on the stack: the
 * verifier follows values on the stack from one call of the callback to
 * the next (until they stop changing), but not values in a map, so it
 * checks a step once instead of once per combination of their values.
 */
struct unwind_walk {
	__u64 pc;     /* the frame last recorded, as recorded (after a signal frame: exact + 1) */
	__u64 sp, bp; /* its stack and frame pointers */
	__u64 hash;   /* of the frames recorded so far */
	__u64 trusted_hash; /* ... and of the first @trusted of them */
	__u32 trusted;      /* frames up to the last one a rule found: a walk cut short keeps
			     * only these (frame pointers may lead to stale return addresses) */
	__u32 slot;   /* the process's slot in unwind_procs, or why it has none (stack_key.h) */
	__s32 map;    /* the index in the pool of the mapping holding pc (as looked up), or -1 */
	__u32 end;    /* enum unwind_end: why the walk stopped */
	__u32 fp_end; /* why it stops when a frame-pointer step fails */
	__u32 table;  /* the table last found in (its id + 1 and generation as a mapping names
		       * it), 0: none ... */
	__u32 gen;
	__u32 buckets; /* ... and its buckets */
	bool stale;    /* met code outside the process's known mappings */
	bool bp_start; /* bp may still be the register the walk started from ... */
	bool bp_used;  /* ... and a step used it: the walk's result depends on it */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_walk);
	__uint(max_entries, 1);
} unwind_walks SEC(".maps");

/*
 * The process whose slot this CPU found last: a CPU busy with one process
 * samples it again and again, and the slot's own tgid (zeroed when the
 * slot is retired) says whether it still describes it, without a lookup
 * in unwind_pids (a hash map: its lines are cold at each sample).
 */
struct slot_memo {
	__u32 tgid, slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct slot_memo);
	__uint(max_entries, 1);
} slot_memo SEC(".maps");

/* Process @tgid's slot in unwind_procs, or why it has none (UNWIND_NO_SLOT ...). */
static __always_inline __u32 unwind_slot_of(__u32 tgid)
{
	__u32 zero = 0, *slot;
	struct slot_memo *memo = bpf_map_lookup_elem(&slot_memo, &zero);
	const struct unwind_proc *p;

	if (memo && tgid && memo->tgid == tgid) {
		p = bpf_map_lookup_elem(&unwind_procs, &memo->slot);
		if (p && p->tgid == tgid)
			return memo->slot;
	}
	slot = bpf_map_lookup_elem(&unwind_pids, &tgid);
	if (!slot)
		return UNWIND_NO_SLOT;
	if (memo)
		*memo = (struct slot_memo){ .tgid = tgid, .slot = *slot };
	return *slot;
}

/* This CPU's walk state, or NULL (never). */
static __always_inline struct unwind_walk *unwind_walk_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_walks, &zero);
}

/*
 * The bounds of a binary search, kept in memory rather than in registers:
 * the verifier does not follow values through memory, so it checks one
 * round of a search instead of every path through all of them.
 */
struct search_bounds {
	__u32 lo, hi;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct search_bounds);
	__uint(max_entries, 1);
} search SEC(".maps");

static __always_inline struct search_bounds *search_bounds(__u32 lo, __u32 hi)
{
	__u32 zero = 0;
	struct search_bounds *b = bpf_map_lookup_elem(&search, &zero);

	if (b)
		*b = (struct search_bounds){ lo, hi };
	return b;
}

/* Mapping @i of the pool, or NULL. */
static __always_inline const struct unwind_map *pool_map(__u32 i)
{
	return bpf_map_lookup_elem(&unwind_mappings, &i);
}

/* The index in the pool of the mapping of @p holding @addr, or -1. */
static __always_inline int unwind_map_index(const struct unwind_proc *p, __u64 addr)
{
	struct search_bounds *b = search_bounds(p->first, p->first + p->n);
	const struct unwind_map *m;
	__u32 lo, hi, mid;

	if (!b || p->n > UNWIND_MAX_MAPS)
		return -1;
	for (int i = 0; i < 13; i++) { /* log2(UNWIND_MAX_MAPS) + 1 halvings */
		lo = b->lo;
		hi = b->hi;
		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		m = pool_map(mid);
		if (!m)
			return -1;
		if (m->start <= addr)
			b->lo = mid + 1;
		else
			b->hi = mid;
	}
	lo = b->lo;
	m = lo > p->first ? pool_map(lo - 1) : NULL;
	return m && addr < m->end ? (int)(lo - 1) : -1;
}

/*
 * unwind_map_index() of @addr, looking first at mapping @near (-1: none):
 * a caller's code is most often in its callee's file.
 */
static __always_inline int unwind_map_near(const struct unwind_proc *p, int near, __u64 addr)
{
	const struct unwind_map *m = near >= 0 ? pool_map(near) : NULL;

	if (m && (__u32)near - p->first < p->n && m->start <= addr && addr < m->end)
		return near;
	return unwind_map_index(p, addr);
}

/* Why a walk of process @p (its slot @slot) ends at an address outside its described code. */
static __always_inline __u32 outside_end(const struct unwind_proc *p)
{
	return p->more ? UNWIND_MAPS_LIMIT : UNWIND_BAD_FRAME;
}

/* Why a walk of a process without a slot (@slot says why) ends, frame pointers aside. */
static __always_inline __u32 no_slot_end(__u32 slot)
{
	return slot == UNWIND_PID_SLOTS_FULL ? UNWIND_SLOTS_FULL
	       : slot == UNWIND_PID_POOL_FULL ? UNWIND_MEMORY
					  : UNWIND_NOT_LOADED;
}

/* What unwind_table_rule() says when the table is not (or no longer) in. */
#define UNWIND_RULE_ID_NOT_LOADED 0xffffffffu

/*
 * The id of the rule at file offset @off of the table of mapping @m, or
 * UNWIND_RULE_ID_NONE, or UNWIND_RULE_ID_NOT_LOADED. The table's head,
 * read once, is kept in @w for the frames after it in the same table. A
 * global function: the verifier checks it once, whatever calls it.
 */
__attribute__((noinline)) __u32 unwind_table_rule(struct unwind_walk *w,
						  const struct unwind_map *m, __u32 off)
{
	__u32 id, zero = 0, b, lo, hi, mid;
	const struct unwind_row *head, *bucket, *row;
	struct search_bounds *sb;
	void *rows;

	if (!w || !m)
		return UNWIND_RULE_ID_NOT_LOADED;
	id = m->table - 1;
	rows = bpf_map_lookup_elem(&unwind_tables, &id);
	if (!rows)
		return UNWIND_RULE_ID_NOT_LOADED;
	if (w->table != m->table || w->gen != m->gen) {
		head = bpf_map_lookup_elem(rows, &zero);
		if (!head || (head->off & 0xffff) != m->gen)
			return UNWIND_RULE_ID_NOT_LOADED;
		w->table = m->table;
		w->gen = m->gen;
		w->buckets = head->rule;
	}
	b = off >> UNWIND_BUCKET_SHIFT;
	if (b >= w->buckets)
		return UNWIND_RULE_ID_NONE;
	b++;
	bucket = bpf_map_lookup_elem(rows, &b);
	sb = bucket ? search_bounds(bucket->off, bucket->rule) : NULL;
	if (!sb)
		return UNWIND_RULE_ID_NONE;
	for (int i = 0; i < 10; i++) { /* at most 257 rows: the last one at or before @off */
		lo = sb->lo;
		hi = sb->hi;
		if (lo + 1 >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		row = bpf_map_lookup_elem(rows, &mid);
		if (!row)
			return UNWIND_RULE_ID_NONE;
		if (row->off <= off)
			sb->lo = mid;
		else
			sb->hi = mid;
	}
	lo = sb->lo;
	row = bpf_map_lookup_elem(rows, &lo);
	return row && row->off <= off ? row->rule : UNWIND_RULE_ID_NONE;
}

/*
 * The rules last found, per CPU, direct-mapped by (table, offset): a
 * sampled program's outer frames are the same from one sample to the next
 * (main, the event loop, the start code), and one memo line costs less
 * than the four or five lines of a table search and the rule's own. A
 * table's rows never change under one (id, generation), nor do the rules.
 */
#define RULE_MEMO_WAYS 512

struct rule_memo_entry {
	__u32 table; /* the table's id + 1 and generation, as a mapping names it; 0: empty */
	__u32 gen;
	__u32 off;
	__u32 pad;
	struct unwind_rule rule; /* kind UNWIND_RULE_NONE where the table has none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rule_memo_entry);
	__uint(max_entries, RULE_MEMO_WAYS);
} rule_memo SEC(".maps");

/*
 * The rule at file offset @off of mapping @m's table into @r (left as it
 * is where the table has none), through the memo: a table's answer, when
 * it is in, is remembered. False when the table is not (or no longer) in.
 */
static __always_inline bool unwind_memo_rule(struct unwind_walk *w, const struct unwind_map *m,
					     __u32 off, struct unwind_rule *r)
{
	__u32 way = (__u32)(((__u64)off * HASH_MUL + m->table) >> 40) & (RULE_MEMO_WAYS - 1);
	struct rule_memo_entry *e = bpf_map_lookup_elem(&rule_memo, &way);
	const struct unwind_rule *found;
	__u32 id;

	if (e && e->table == m->table && e->gen == m->gen && e->off == off) {
		*r = e->rule;
		return true;
	}
	id = unwind_table_rule(w, m, off);
	if (id == UNWIND_RULE_ID_NOT_LOADED)
		return false;
	found = id != UNWIND_RULE_ID_NONE ? bpf_map_lookup_elem(&unwind_rules, &id) : NULL;
	if (found)
		*r = *found;
	if (e)
		*e = (struct rule_memo_entry){ .table = m->table, .gen = m->gen, .off = off,
					       .rule = *r };
	return true;
}

/*
 * The rule for the frame last recorded, looked up at @addr, into @r; a
 * NONE rule where there is none, with w->fp_end saying why: UNWIND_NO_TABLE
 * where the code has no table (a frame-pointer step may follow), another
 * reason where the code or its table is not known yet.
 */
static __always_inline void unwind_frame_rule(struct unwind_walk *w, const struct unwind_proc *p,
					      __u64 addr, struct unwind_rule *r)
{
	const struct unwind_map *m;
	__u64 off;

	*r = (struct unwind_rule){ .kind = UNWIND_RULE_NONE };
	if (!p) {
		w->fp_end = no_slot_end(w->slot);
		return;
	}
	if (w->map < 0)
		w->map = unwind_map_index(p, addr);
	m = w->map >= 0 ? pool_map(w->map) : NULL;
	if (!m) { /* only the first frame: callers are checked before they are recorded */
		w->stale = !p->more;
		w->fp_end = outside_end(p);
		return;
	}
	off = addr - m->start + m->off;
	w->fp_end = !m->table && m->gen == UNWIND_GEN_NO_ROOM ? UNWIND_MEMORY : UNWIND_NO_TABLE;
	if (!m->table || off > 0xffffffffULL)
		return;
	if (!unwind_memo_rule(w, m, (__u32)off, r))
		w->fp_end = UNWIND_NOT_LOADED;
}

/*
 * A copy of the user stack the walk reads from, per CPU: one
 * bpf_probe_read_user() of up to STACK_WINDOW bytes instead of one per
 * frame (each costs more than copying a few hundred bytes). A copy never
 * goes past the end of the page it starts in: a page that holds the stack
 * is readable to its end, the next one may not be mapped. Beside it, the
 * copy of the kernel stack a kernel memo is checked against (walk_memo.bpf.h).
 */
#define STACK_WINDOW 2048
#define USER_PAGE 4096
#define KMEMO_SPAN 4096 /* bytes of kernel stack above the hook's context a kernel memo looks at */

/*
 * The stack words a table walk read, in order: with the registers it
 * started from, they decide its result (walk_memo.bpf.h's user memo checks
 * them). Past WALK_READS reads only the count goes on: a walk that read
 * more is not kept (Debian's python3 reading in a loop reads 25-40).
 */
#define WALK_READS 40

struct stack_read {
	__u64 addr;
	__u64 val[2]; /* val[1]: 0 for an 8-byte read */
};

struct walk_reads {
	__u32 n;
	__u32 pad;
	__u64 lo, hi; /* the span of stack they lie in */
	struct stack_read r[WALK_READS];
};

struct stack_window {
	__u64 base; /* the user address of data[0] */
	__u32 len;  /* bytes of data copied; 0: none */
	__u32 pad;
	__u8 data[STACK_WINDOW];
	struct walk_reads reads; /* what the last walk read, with memo_walks */
	__u64 kstack[KMEMO_SPAN / 8]; /* kernel stack above the hook's context (kernel memos) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct stack_window);
	__uint(max_entries, 1);
} stack_windows SEC(".maps");

static __always_inline struct stack_window *stack_window(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stack_windows, &zero);
}

/* This CPU's log of the last walk's reads, or NULL (never). */
static __always_inline struct walk_reads *walk_reads_log(void)
{
	struct stack_window *win = stack_window();

	return win ? &win->reads : NULL;
}

/* Logs a read of @size (8 or 16) bytes @val at @addr. */
static __always_inline void log_stack_read(__u64 addr, const __u64 *val, __u32 size)
{
	struct walk_reads *l;
	__u32 n;

	if (!memo_walks || !(l = walk_reads_log()))
		return;
	n = l->n;
	if (!n || addr < l->lo)
		l->lo = addr;
	if (!n || addr + size > l->hi)
		l->hi = addr + size;
	if (n < WALK_READS) {
		l->r[n].addr = addr;
		l->r[n].val[0] = val[0];
		l->r[n].val[1] = size == 16 ? val[1] : 0;
	}
	l->n = n + 1;
}

/*
 * Reads @size (8 or 16) bytes of user memory at @addr into @dst, from this
 * CPU's window, copied anew from @addr when it does not hold them. Returns
 * 0 or a negative errno, as bpf_probe_read_user().
 */
static __always_inline long read_stack_window(void *dst, __u32 size, __u64 addr)
{
	struct stack_window *win = stack_window();
	__u64 off, len;

	if (!win)
		return -EFAULT;
	off = addr - win->base;
	if (addr < win->base || off + size > win->len) {
		len = USER_PAGE - (addr & (USER_PAGE - 1));
		if (len > STACK_WINDOW)
			len = STACK_WINDOW;
		win->len = 0;
		if (len < size || bpf_probe_read_user(win->data, len, (void *)addr))
			return bpf_probe_read_user(dst, size, (void *)addr);
		win->base = addr;
		win->len = len;
		off = 0;
	}
	/* The window holds off + size bytes: these checks are the verifier's. */
	off &= STACK_WINDOW - 1;
	if (size == 16 && off <= STACK_WINDOW - 16)
		__builtin_memcpy(dst, win->data + off, 16);
	else if (size == 8 && off <= STACK_WINDOW - 8)
		__builtin_memcpy(dst, win->data + off, 8);
	else
		return -EFAULT;
	return 0;
}

/* read_stack_window(), each read logged in walk_reads. */
static __always_inline long read_user_stack(__u64 *dst, __u32 size, __u64 addr)
{
	long err = read_stack_window(dst, size, addr);

	if (!err)
		log_stack_read(addr, dst, size);
	return err;
}

/* The shared step (unwind/unwind_step.h) reads the stack through the window, logged. */
static __always_inline long unwind_read_stack(void *rd, __u64 *dst, __u32 size, __u64 addr)
{
	return read_user_stack(dst, size, addr);
}

#define UNWIND_INLINE static __always_inline
#include "unwind/unwind_step.h"

/* bpf_loop()'s callback: one frame. Returns 1 when the walk ends (w->end says why). */
static long unwind_step(__u32 i, void *arg)
{
	struct unwind_walk *w = unwind_walk_state();
	struct sent_stack *t = scratch_stack(true);
	const struct unwind_proc *p = NULL;
	struct unwind_rule r;
	struct unwind_caller c = {};
	struct unwind_regs f;
	__u64 addr, rec;
	__u32 nr, end;

	if (!t || !w)
		return 1;
	nr = t->nr;
	if (nr >= MAX_STACK_DEPTH) {
		w->end = UNWIND_DEPTH;
		return 1;
	}
	if (w->slot < UNWIND_SLOT_REASONS)
		p = bpf_map_lookup_elem(&unwind_procs, &w->slot);
	f = (struct unwind_regs){ .pc = w->pc, .sp = w->sp, .bp = w->bp };
	addr = unwind_lookup_addr(&f, nr);
	unwind_frame_rule(w, p, addr, &r);
	if (r.kind == UNWIND_RULE_CFA_FP ||
	    (r.kind == UNWIND_RULE_NONE &&
	     (w->fp_end == UNWIND_NO_TABLE || w->fp_end == UNWIND_MEMORY)))
		w->bp_used |= w->bp_start;
	if (r.kind != UNWIND_RULE_NONE)
		end = unwind_rule_step(NULL, &f, &r, addr, &c);
	else if (w->fp_end == UNWIND_NO_TABLE || w->fp_end == UNWIND_MEMORY)
		end = unwind_fp_step(NULL, &f, nr, w->fp_end, &c); /* code without a table */
	else
		end = w->fp_end;
	if (end == UNWIND_STEP_ON && !c.pc)
		end = UNWIND_WHOLE;
	rec = unwind_record_addr(&c); /* named, as every caller, at rec - 1 */
	if (end == UNWIND_STEP_ON && p) {
		w->map = unwind_map_near(p, w->map, rec - 1);
		if (w->map < 0) {
			w->stale = !p->more;
			end = r.kind == UNWIND_RULE_NONE ? w->fp_end : outside_end(p);
		}
	}
	if (end != UNWIND_STEP_ON) {
		w->end = end;
		return 1;
	}
	t->ips[nr] = rec;
	t->nr = nr + 1;
	w->hash = hash_step(w->hash, rec);
	if (r.kind != UNWIND_RULE_NONE) {
		w->trusted = nr + 1;
		w->trusted_hash = w->hash;
	}
	w->pc = rec;
	w->sp = c.sp;
	w->bp_start &= c.bp == w->bp; /* restored to another value: not the start's */
	w->bp = c.bp;
	return 0;
}

/*
 * Walks the user stack of process @tgid from @r with its unwind tables
 * into its scratch record, as walk_user_frames() does; *@stale is set when
 * the walk met code outside the process's known mappings. A walk cut short
 * for want of tables or of mappings sends a copy of the stack instead
 * (cold_stack.bpf.h): *@hash is then the copy's.
 */
static __always_inline long walk_user_tables(const struct user_regs *r, __u32 tgid, __u64 *hash,
					     bool *stale)
{
	struct sent_stack *t = scratch_stack(true);
	struct unwind_walk *w = unwind_walk_state();
	struct walk_reads *log = memo_walks ? walk_reads_log() : NULL;
	struct stack_window *win;
	__u32 end;

	if (!t || !w) {
		stack_failed(-EFAULT, true);
		return -EFAULT;
	}
	if (log)
		log->n = 0;
	*w = (struct unwind_walk){ .pc = r->ip, .sp = r->sp, .bp = r->fp, .map = -1,
				   .end = UNWIND_DEPTH, .slot = unwind_slot_of(tgid),
				   .hash = hash_step(HASH_MUL, r->ip), .trusted = 1,
				   .bp_start = true };
	w->trusted_hash = w->hash;
	t->ips[0] = r->ip;
	t->nr = 1;
	win = stack_window();
	if (win) /* the stack has changed since the last walk */
		win->len = 0;
	bpf_loop(MAX_STACK_DEPTH - 1, unwind_step, NULL, 0);
	end = w->end < UNWIND_END_NR ? w->end : UNWIND_DEPTH;
	*stale = w->stale;
	/*
	 * Cut short for want of tables or of mappings not known yet: walked on
	 * later, from where it stopped, from a copy.
	 */
	if (cold_copies && (end == UNWIND_NOT_LOADED || (w->stale && end != UNWIND_WHOLE)) &&
	    send_cold_copy(&(struct user_regs){ .ip = w->pc, .sp = w->sp, .fp = w->bp }, t, t->nr,
			   w->trusted, NULL, hash))
		return 0;
	/* Cut short: no caller a frame pointer led to stands, only those rules found. */
	if (end != UNWIND_WHOLE && t->nr > w->trusted) {
		t->nr = w->trusted;
		w->hash = w->trusted_hash;
	}
	*hash = stack_hash_end(t, w->hash, end);
	stat_add(STAT_UWALK + end, 1);
	return 0;
}

/*
 * Walks the current user stack, from @at's user registers when the event
 * has them (a sample in user mode, a system call's entry), else from those
 * the task saved entering the kernel: with the unwind tables where the
 * loader gave them and this kernel has bpf_loop() (5.17), else along the
 * frame pointers. *@stale as walk_user_tables() sets it.
 */
static __always_inline long walk_user_stack(void *ctx, const struct user_regs *at, __u32 tgid,
					    __u64 *hash, bool *stale)
{
	struct user_regs r = *at;

	if (!user_regs_walkable(&r) && !saved_user_regs(task_regs(), &r))
		return walk_stack(ctx, true, hash);
	if (unwind_with_tables && bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop))
		return walk_user_tables(&r, tgid, hash, stale);
	return walk_user_frames(&r, hash);
}

#endif
