/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbolizer: the one entry point that turns a captured address into the
 * name a user reads. It owns the kernel table (reloaded when an address
 * misses), a snapshot of each process's maps (taken when the process is
 * first seen, or told of, and again when its pid was reused), and a cache
 * of ELF symbol tables shared between processes by file identity (see
 * elf_cache.h).
 *
 * Time is counted in passes (one drain each, see symbolizer__begin_pass()):
 * maps re-reads, kernel reloads and start-time checks are rate-limited per
 * pass, and a process not looked up for PROC_GRACE_PASSES passes is
 * released once it has exited (until then it is asked again every grace:
 * a quiet process sampled now and then keeps its maps and its names).
 *
 * It never prints; errors come back as return values.
 */
#ifndef FLAMETOP_SYMBOLIZER_H
#define FLAMETOP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/debuginfo.h"
#include "symbols/sanitize.h"

struct proc_maps;

/* Passes a process is kept without a lookup (after it exited, its samples still drain). */
#define PROC_GRACE_PASSES 3

struct symbolizer_opts {
	const char *kallsyms_path; /* NULL: /proc/kallsyms */
	const char *modules_path;  /* NULL: /proc/modules */
	const char *proc_root;	   /* NULL: /proc */
	const char *debug_root;	   /* NULL: /usr/lib/debug (looked up in each process's root too) */
	bool raw_names;		   /* keep C++ and Rust names mangled (--no-demangle) */
	bool defer_kernel;	   /* read the kernel table later (symbolizer__load_kernel()) */
	size_t elf_cache_bytes;	   /* symbol tables kept; 0: 512 MiB */
	size_t perf_map_bytes;	   /* perf maps kept, all processes' together; 0: 64 MiB */
	size_t max_open_files; /* files held open; 0: a quarter of RLIMIT_NOFILE, at most 4096 */
	uint64_t elf_wait_ns;  /* a pass's wait for symbol tables being read; 0: 250 ms */
};

/* What a lookup could say about an address. */
enum sym_status {
	SYM_NAMED,	/* buf holds a function name */
	SYM_MODULE_OFF, /* buf holds "module+0xoffset": the file is known, the function is not */
	SYM_UNKNOWN,	/* buf holds "[unknown]" or a label such as "[anon]" */
};

struct symbolizer;

/*
 * symbolizer__new() loads the kernel symbol table (unless @opts says to
 * defer it); @opts may be NULL for all defaults. Returns NULL with errno set
 * on failure (an unreadable kallsyms file, or one without a single text
 * symbol).
 */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);

/*
 * symbolizer__kernel() names kernel address @ip. When @is_return is true @ip
 * is a return address and is looked up at ip - 1, so that a call ending a
 * function is not given to the next one. Writes a sanitized, NUL-terminated
 * name into @buf (@size >= 32; a smaller buffer gets a shortened name ending
 * in "..") and returns an enum sym_status, or -EINVAL when @buf is NULL or
 * @size is 0. A symbol in a module is written "func [module]" (BPF programs:
 * "bpf_prog_<tag>_<name> [bpf]"); an address no symbol covers, or any address
 * when kernel addresses are hidden, is "[unknown]".
 *
 * BPF programs (and trampolines) loaded while flametop runs are named from
 * the kernel's own announcements, with their exact extents; one unloaded
 * keeps its name for KSYM_GONE_PASSES passes, for the samples taken before
 * it went. The kernel table is read again, at most once per pass, when an
 * address no symbol covers (a module loaded since) comes up, less often
 * (up to every 64 passes) while that finds the same table. Where the
 * kernel makes no announcements (no privilege; or a kallsyms file other
 * than /proc/kallsyms), an address in a BPF program rereads the table now
 * and then (up to every 4 passes) instead.
 */
int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, char *buf, size_t size);

/*
 * symbolizer__user() names address @ip in process @tgid, as above. The
 * process's maps are read the first time @tgid is seen, and read again
 * when @ip falls outside every known mapping, at most once per pass and
 * only when they may have changed: when the sizes of its mappings
 * (/proc/PID/status) did, else 64 passes after the last read (where those
 * sizes can't be had, every 2, 4 ... 64 passes while re-reads find the same
 * maps). A pass starts no more re-reads once they took 50 ms in it. A failed
 * re-read keeps the old snapshot: the process may have exited. Once per
 * pass its start time is checked, and a reused pid starts a new snapshot.
 *
 * A function in a mapped file is named from the file's symbol table or its
 * debug file (see elf_cache.h: read by a thread, looked for with the
 * process's rights, given only to processes that may read the file),
 * demangled unless raw names were asked for. Unnamed frames in a file
 * become "file+0xoffset" (SYM_MODULE_OFF), where file is the base name of
 * the mapped path and offset the file offset of @ip: so are those of a file
 * the process may not read, and those of a file whose table is still being
 * read when the pass's wait for it is spent (named once it is read). vDSO functions
 * are named from the process's vDSO image ("[vdso]+0xoffset" otherwise),
 * vsyscall entries "gettimeofday [vsyscall]" and so on. In executable
 * anonymous memory, the process's perf map (/tmp/perf-PID.map, read as
 * the process could read it, and again when it changed: see
 * perfmap_cache.h) names JIT code; an address it does not name is "[jit]"
 * when the map has entries in that mapping, else "[anon]". Anything else, including a process whose
 * maps cannot be read, is "[unknown]" (SYM_UNKNOWN). Returns -ENOMEM when
 * memory for the process runs out (@buf then holds "[unknown]").
 */
int symbolizer__user(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return, char *buf,
		     size_t size);

/*
 * symbolizer__in_code() tells whether address @addr of process @tgid lies
 * in one of its executable mappings (a file's code, the vDSO, vsyscall,
 * executable anonymous memory), looking it up as symbolizer__user() does.
 */
bool symbolizer__in_code(struct symbolizer *s, uint32_t tgid, uint64_t addr);

/*
 * symbolizer__user_object() writes the shared object that holds @ip (a
 * return address when @is_return) in process @tgid, as the last
 * symbolizer__user() found the process's maps (they are not read again),
 * into @buf: the mapped file's base name (sanitized), "[vdso]",
 * "[vsyscall]", or for executable anonymous memory "[jit]" where the perf
 * map names @ip, else "[anon]". Returns 0, -ENOENT when no mapping of a
 * known process holds @ip (@buf is then ""), or -EINVAL when @buf is NULL
 * or @size is 0.
 */
int symbolizer__user_object(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return,
			    char *buf, size_t size);

/* Where a user function lies: see symbolizer__user_origin(). */
struct sym_origin {
	char path[NAME_MAX_BYTES + 1]; /* the mapped file's path as the process maps it, sanitized */
	char build_id[129];            /* its GNU build-id in hex, "" when it has none */
	uint64_t address;              /* the function's address in the file: its symbol's value */
};

/*
 * symbolizer__user_origin() says where the function that holds @ip (a
 * return address when @is_return) of process @tgid lies, as the last
 * symbolizer__user() found the process's maps (they are not read again)
 * and the file's symbols: its file, the file's build-id, the function's
 * address. Returns 0, or -ENOENT when @ip is not in a named function of a
 * mapped file.
 */
int symbolizer__user_origin(struct symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return,
			    struct sym_origin *out);

/*
 * symbolizer__note_process() says that process @tgid, started at
 * @start_boottime (ns since boot, as the kernel's task start_boottime; 0 when
 * unknown: /proc is asked), is running now. Its maps are read at once when
 * it is new to @s, or was replaced (its pid reused), or @starting says that
 * its maps may have changed since (it is still young and mapping its
 * libraries, or a walk met code outside them) and the sizes of its mappings
 * say they did (else as symbolizer__user() re-reads them); the files it maps
 * executable are opened and held, so that its frames can still be named
 * after it exits. A process gone from /proc (or whose maps could not be
 * read) takes the executable mappings the kernel announced as it made them
 * since its start (mmap_watch.h; for this machine's /proc only), when its
 * maps are read or read again as above: one that ended before its maps were
 * read, or after they were read without a library it loaded later. Returns
 * 0, -ENOENT when the process is already gone and nothing describes it, or
 * -ENOMEM.
 */
int symbolizer__note_process(struct symbolizer *s, uint32_t tgid, bool starting,
			     uint64_t start_boottime);

/*
 * symbolizer__ended() is true when the maps of process @tgid were last
 * taken from the mappings the kernel announced (symbolizer__note_process()):
 * it had ended, and /proc had nothing left of it. It reads nothing.
 */
bool symbolizer__ended(const struct symbolizer *s, uint32_t tgid);

/*
 * symbolizer__maps() returns the maps snapshot of process @tgid as last
 * read (valid until the next call into @s), or NULL when @tgid is not
 * known. It reads nothing.
 */
const struct proc_maps *symbolizer__maps(const struct symbolizer *s, uint32_t tgid);

/*
 * symbolizer__user_gen() returns a number that changes whenever names
 * given to addresses of @tgid may have changed: its pid was reused, it
 * exec'd, or its maps or perf map were read again and differ. Names given
 * under one generation may be reused while it lasts. It checks @tgid as
 * symbolizer__user() does (start time once per pass). Never 0.
 */
uint64_t symbolizer__user_gen(struct symbolizer *s, uint32_t tgid);

/*
 * symbolizer__kernel_gen() is the same for kernel addresses: it changes at
 * each reload, and when the kernel announced BPF programs loaded or gone.
 */
uint64_t symbolizer__kernel_gen(struct symbolizer *s);

/*
 * symbolizer__load_kernel() reads the kernel table now, unless it was read
 * already; with symbolizer_opts.defer_kernel it is otherwise read at the
 * first kernel lookup (which names nothing when reading fails). Returns 0
 * or -errno.
 */
int symbolizer__load_kernel(struct symbolizer *s);

/*
 * symbolizer__load_kernel_begin() starts reading the kernel table in a
 * thread (unless it was read or is being read), so that the caller can do
 * something else meanwhile; symbolizer__load_kernel() and the first kernel
 * lookup wait for it. Returns 0, or -errno when no thread could be
 * started (symbolizer__load_kernel() then reads it itself).
 */
int symbolizer__load_kernel_begin(struct symbolizer *s);

/* True while the kernel table is being read by symbolizer__load_kernel_begin()'s thread. */
bool symbolizer__kernel_loading(const struct symbolizer *s);

/*
 * symbolizer__kernel_in_sched() is true when kernel address @ip (a return
 * address when @is_return) lies in the scheduler's own functions, as the
 * kernel table last read bounds them (see ksyms__in_sched_text()).
 */
bool symbolizer__kernel_in_sched(const struct symbolizer *s, uint64_t ip, bool is_return);

/* True when kernel addresses are hidden from this reader (kptr_restrict). */
bool symbolizer__kernel_hidden(const struct symbolizer *s);

/*
 * Starts a new pass (one drain): allows one more maps re-read per process
 * and one more kernel reload (each under its back-off), releases processes
 * not looked up for PROC_GRACE_PASSES passes that have exited (or that
 * cannot be asked: a copy of /proc), and closes files held that long unread.
 */
void symbolizer__begin_pass(struct symbolizer *s);

/* What the caches hold, for tests and benchmarks. */
struct symbolizer_stats {
	size_t processes;      /* processes with a maps snapshot (or a failed read) */
	size_t proc_bytes;     /* heap bytes of their maps snapshots */
	size_t elf_files;      /* ELF cache entries, files that are not ELF included */
	size_t elf_tables;     /* of those, the ones holding a symbol table */
	size_t elf_bytes;      /* heap bytes held by those tables */
	size_t held_files;     /* files held open, waiting to be read */
	uint64_t no_fds;       /* mapped files not opened for want of file descriptors */
	uint64_t maps_reads;   /* maps files read so far, first reads and re-reads (not for a pid gone) */
	uint64_t start_reads;  /* start times read from /proc to check a known process */
	uint64_t logged_maps;  /* maps of processes gone taken from the kernel's mmap records */
	size_t pidfds;	       /* pidfds held: known processes checked without /proc */
	uint64_t kernel_loads; /* kernel tables read so far, the first included */
	size_t perf_map_bytes;	    /* heap bytes of the perf maps held ... */
	size_t perf_map_budget;	    /* ... and the most they may take */
	uint64_t perf_map_reads;    /* perf map files read (parsed) so far */
	uint64_t perf_maps_dropped; /* perf maps dropped to stay within the budget */
	uint64_t unreadable;	    /* files not read for a process that may not read them */
	uint64_t late;		    /* files whose table came later than a pass could wait */
	uint64_t debug_refused[DEBUG_REFUSED_NR]; /* debug file candidates refused, by reason */
};

/* symbolizer__stats() fills @st with the current state of @s. */
void symbolizer__stats(struct symbolizer *s, struct symbolizer_stats *st);

/* symbolizer__free(NULL) is a no-op. */
void symbolizer__free(struct symbolizer *s);

#endif
