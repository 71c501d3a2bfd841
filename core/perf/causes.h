/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why stacks are incomplete or frames unknown, by cause, each with the
 * remedy that applies (issue 14): the -dbgsym package of a stripped file from
 * a Debian package, the runtime flag of a JIT or interpreter without a perf
 * map, frame pointers or unwind tables, a process that exited first. The
 * classification and the remedy texts are pure functions (tests/unit).
 */
#ifndef SONDE_CAUSES_H
#define SONDE_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "util/json.h"
#include "perf/symbolize.h"

enum cause_kind {
	CAUSE_NO_FRAME_POINTERS, /* the FP walk broke and no CFI walk did better */
	CAUSE_STACK_COPY_END,    /* CFI: the stack is deeper than the bytes copied */
	CAUSE_NO_CFI,            /* CFI: the file has no unwind table for the code */
	CAUSE_CFI_BROKEN,        /* CFI: the tables led nowhere (assembly, a corrupt stack) */
	CAUSE_JIT,               /* code in anonymous memory that no perf map names */
	CAUSE_INTERPRETER,       /* an interpreter without a perf map: its functions are not named */
	CAUSE_PROCESS_EXITED,    /* exited before its maps were read */
	CAUSE_STRIPPED,          /* frames of a file without a symbol for them */
	CAUSE_UNREADABLE,        /* the mapped file could not be read */
	CAUSE_LOST_STACK,        /* the stack map lost the stack (a collision) and no copy gave it back */
	CAUSE_UNWIND_BUDGET,     /* CFI: the file's unwind rules were over the unwind budget */
	CAUSE_TABLES_TOO_LARGE,  /* CFI: the file's unwind or debug sections claim too much to read */
	CAUSE_NR,
};

const char *causes__key(enum cause_kind k); /* "no_frame_pointers", ... (JSON) */

/*
 * The cause of a broken user stack: cfi says which unwinder produced it, stop
 * is its stop key (unwind.h's for CFI), outer_why how its outermost frame was
 * symbolized.
 */
enum cause_kind causes__of_stack(int cfi, const char *stop, enum sym_why outer_why);
/* The cause of an [unknown] user frame, or -1 (a kernel reason). */
int causes__of_frame(enum sym_why w);
/* "python", "java", "node" from the thread's name and its folded stack, or NULL. */
const char *causes__runtime(const char *comm, const char *folded);

/*
 * The remedy, in buf: where is the file (or the process name), pkg the Debian
 * package owning the file (NULL when none, "" when it was not looked up in
 * time: unknown), runtime from causes__runtime, cfi
 * what CFI unwinding did in this profile ("" when it ran), release the
 * distribution's codename for the debug archive ("bookworm"; NULL unknown).
 */
void causes__remedy(enum cause_kind k, const char *where, const char *pkg, const char *runtime,
		    const char *cfi, const char *release, char *buf, size_t n);

/*
 * The Debian packages owning paths, from dpkg's file lists (infodir: normally
 * /var/lib/dpkg/info, "<pkg>[:arch].list" files), /usr-merged paths matched
 * either way. owners[i] is a malloc'd package name or NULL. Only paths under the
 * trees packages install into (/usr, /lib*, /bin, /sbin, /opt) are looked up, and
 * the lists are read only while one is left to find: no path, no read. budget_s
 * (> 0) bounds the wall time (a saturated disk makes each list a wait). 0 when
 * every list that could tell was read, 1 when the budget cut the reading short
 * (an owner not found is then unknown), -errno when infodir cannot be read.
 */
int causes__dpkg_owners(const char *infodir, const char *const *paths, size_t n, char **owners,
			double budget_s);

/*
 * The wall time causes__write gives dpkg's lists: a warm cache reads them in ~30 ms of
 * CPU, ten times that at nice 10 beside a busy CPU (tests/live/unwind.t: xz -9).
 */
#define CAUSES_DPKG_BUDGET_S 1.0

/* The causes of one profile, summed by (kind, where). */
struct cause {
	enum cause_kind kind;
	char *where, *runtime;
	uint64_t value;
};
struct causes {
	struct cause *v;
	size_t n, cap;
};

#define CAUSES_MAX 512 /* (kind, where) pairs kept; more are summed under where "[other]" */
#define CAUSES_TOP 20  /* written, by value */

void causes__add(struct causes *c, enum cause_kind k, const char *where, const char *runtime,
		 uint64_t value);
/*
 * Write "unknown_causes": [{ cause, where, <value_key>, package, remedy }] by
 * value, top CAUSES_TOP; the packages looked up in infodir (NULL: dpkg's).
 */
void causes__write(struct causes *c, struct json *j, const char *value_key, uint64_t value_div,
		   const char *cfi, const char *infodir);
void causes__free(struct causes *c);

#endif
