/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Addresses to function names, for the stack samplers (profile, offcputime).
 *
 * Kernel: /proc/kallsyms, sorted once, binary search. User: a snapshot of
 * /proc/PID/maps (executable mappings only) per process, the mapped file's
 * ELF .symtab (or its separate debug file found by build-id, or .dynsym), and
 * /tmp/perf-PID.map for JIT code. ELF symbol tables are cached per file
 * (device, inode) and shared between files of the same build-id.
 *
 * A frame that cannot be named is "[unknown]", never a guess: the nearest
 * symbol is used only when the address is inside its size (or the symbol has
 * no size). Why each unknown frame is unknown is counted (enum sym_why).
 *
 * Not thread-safe: one thread at a time (the samplers snapshot from their
 * poller thread during the window and symbolize after joining it).
 */
#ifndef SONDE_SYMBOLIZE_H
#define SONDE_SYMBOLIZE_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#define SYM_UNKNOWN "[unknown]"

/*
 * The most a section read whole may claim (libelf allocates and reads it at
 * once): a symbol or string table past this is not read, and the unwinder
 * does not hand libdw a file whose unwind or debug sections claim more (a
 * crafted sparse file would otherwise cost its size in memory).
 */
#define SYM_MAX_SECTION_BYTES (512u << 20)
/* The most sections a file may claim (linked programs and debug files have tens). */
#define SYM_MAX_SECTIONS 65536u

enum sym_why {
	SYM_OK,
	SYM_KERNEL_HIDDEN,   /* /proc/kallsyms shows zero addresses (kptr_restrict) or is unreadable */
	SYM_KERNEL_NONE,     /* below the first kernel symbol */
	SYM_PROC_GONE,       /* the process exited before its maps were read */
	SYM_NO_MAPPING,      /* no executable mapping, nor JIT map entry, holds the address */
	SYM_FILE_UNREADABLE, /* the mapped file could not be opened or is not ELF */
	SYM_NO_SYMBOL,       /* the file has no symbol covering the address (stripped) */
	SYM_WHY_NR,
};

/* What a process's maps were when read. */
enum sym_proc {
	SYM_PROC_USER,   /* has executable mappings */
	SYM_PROC_KERNEL, /* maps readable and empty: a kernel thread */
	SYM_PROC_EXITED, /* gone before its maps were read */
	SYM_PROC_FULL,   /* not snapshotted: too many processes (bounded) */
};

struct symbolizer;

struct symbolizer_stats {
	uint64_t procs, procs_exited, procs_full, elf_files, elf_unreadable, elf_symbols;
	uint64_t jit_symbols, kernel_symbols;
	uint64_t unknown[SYM_WHY_NR]; /* frames asked for, by why they were unknown */
};

struct symbolizer *symbolizer__new(void);
void symbolizer__free(struct symbolizer *s);

/*
 * Read and sort the kernel's symbols (path NULL: /proc/kallsyms). 0, or
 * -errno with the reason kernel frames will be unknown (symbolizer__kernel_why).
 * Called lazily by symbolizer__kernel when not called before.
 */
int symbolizer__kernel_load(struct symbolizer *s, const char *path);
const char *symbolizer__kernel_why(const struct symbolizer *s); /* "" when kernel symbols are known */
/* The function holding a kernel address, or SYM_UNKNOWN; why (may be NULL) says why not. */
const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr, enum sym_why *why);

/*
 * Read /proc/PID/maps (and /tmp/perf-PID.map) once for tgid, so its frames can
 * be named after it exits. Later calls for the same tgid return the first
 * outcome without reading again.
 */
enum sym_proc symbolizer__snapshot(struct symbolizer *s, int tgid);
/* The function holding a user address of tgid (snapshotting it if not yet), or SYM_UNKNOWN. */
const char *symbolizer__user(struct symbolizer *s, int tgid, uint64_t addr, enum sym_why *why);

/*
 * For an unwinder (core/perf/unwind.c): the executable file mappings of
 * tgid's snapshot, each file once, with the load bias (process address of
 * ELF virtual address 0) computed from the file's segments, and the file
 * opened (fd, the caller's; -errno when it cannot be read). cb returns
 * nonzero to stop. Returns the process's kind (SYM_PROC_EXITED: no maps).
 */
struct sym_mapping {
	uint64_t start, end, pgoff, bias;
	const char *path;
	int fd;
};
enum sym_proc symbolizer__mappings(struct symbolizer *s, int tgid,
				   int (*cb)(const struct sym_mapping *m, void *arg), void *arg);
/* The file mapped at addr in tgid's snapshot: its path ("" anonymous), NULL when no mapping. */
const char *symbolizer__path(struct symbolizer *s, int tgid, uint64_t addr);
/* Entries of tgid's perf map (/tmp/perf-PID.map) read with its snapshot: 0 when it has none. */
size_t symbolizer__perf_map_entries(struct symbolizer *s, int tgid);

/*
 * elf_begin(fd, ELF_C_READ) for a file a user may have crafted: libelf
 * allocates an entry for every section the header claims before anything
 * else is read (a 1.3 GB sparse file, 8 KB on disk, claiming 20 million
 * sections cost 4 GB in elf_begin alone), so the count is read first and
 * held to SYM_MAX_SECTIONS, and checked again on what libelf read. NULL when
 * refused (errno EFBIG) or unreadable.
 */
Elf *symbolizer__elf_begin(int fd);

/*
 * Is this kernel frame the tracer's own, above the traced code in a stack
 * taken from a tracepoint or kprobe (bpf_prog_*, bpf_trace_run*,
 * __bpf_trace_*, trace_call_bpf, perf_trace_*, __traceiter_*, and the lock
 * contention tracepoint's trace_contention_*)? The stack readers cut these
 * from the top of a kernel stack: they are not the workload's.
 */
int symbolizer__tracer_frame(const char *name);

const char *symbolizer__why_key(enum sym_why w); /* "process_exited" (JSON keys) */
void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st);

#endif
