/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folding stacks for flame graphs: "root;...;leaf COUNT" lines (the format of
 * stackcollapse-*.pl and of sonde's profiler) into a bounded set: duplicate
 * stacks merged, frame names cut at FG_MAX_FRAME bytes, stacks cut at
 * FG_MAX_DEPTH frames, at most FG_MAX_STACKS stacks (and FG_MAX_BYTES of
 * them) kept, the rest merged into one "[other]" stack, every cut counted.
 */
#ifndef SONDE_FOLD_H
#define SONDE_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "util/strv.h"

#define FG_MAX_STACKS 5000          /* distinct stacks kept in the evidence */
#define FG_MAX_BYTES (2u << 20)     /* bytes of stack text kept (findings.json size) */
#define FG_MAX_DEPTH 128            /* frames per stack, the "all" root not counted */
#define FG_MAX_FRAME 256            /* bytes of one frame name */
#define FG_MAX_LINE (1u << 20)      /* bytes of one input line */
#define FG_MAX_COUNT 9007199254740992ull /* 2^53: counts stay exact as doubles */

#define FG_OTHER "[other]"
#define FG_DEEPER "[deeper frames cut]"

/* The bounded result: stacks "root;...;leaf" by count, largest first. */
struct folded_stacks {
	struct strv stacks;
	double *counts;     /* parallel to stacks */
	uint64_t total;     /* sum of all counts, cut stacks included */
	uint64_t stacks_in; /* distinct stacks given */
	uint64_t other;     /* count merged into the "[other]" stack */
	uint64_t depth_cut; /* stacks cut at FG_MAX_DEPTH frames */
};

struct fold;

/* A builder; NULL when out of memory. */
struct fold *fold__new(void);
/*
 * Add folded text (any number of lines; blank lines are skipped). A line that
 * is not "STACK COUNT" with COUNT an unsigned integer is an error: -EINVAL
 * with a one-line reason in err ("line 3: no count after the stack").
 */
int fold__text(struct fold *f, const char *text, size_t n, char *err, size_t errlen);
/* Fill out (empty on entry), bounded as above. Returns 0 or -ENOMEM. */
int fold__finish(struct fold *f, struct folded_stacks *out);
void fold__free(struct fold *f);
void folded_stacks__free(struct folded_stacks *fs);

#endif
