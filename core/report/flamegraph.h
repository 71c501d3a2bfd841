/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flame graphs from folded stacks ("root;...;leaf COUNT" per line, the format
 * of stackcollapse-*.pl and of sonde's profiler).
 *
 * Two halves. Folding (flamegraph__fold*) turns a check's folded text into a
 * bounded evidence item: duplicate stacks merged, frame names cut at
 * FG_MAX_FRAME bytes, stacks cut at FG_MAX_DEPTH frames, at most
 * FG_MAX_STACKS stacks (and FG_MAX_BYTES of them) kept, the rest merged into
 * one "[other]" stack, every cut counted. Rendering (flamegraph__html) draws
 * that evidence as an SVG for report.html: frame names are host data
 * (process names, symbols) and only ever reach the page XML-escaped, as the
 * text of <title> elements; the page's one script (flamegraph__script) reads
 * them with textContent.
 */
#ifndef SONDE_FLAMEGRAPH_H
#define SONDE_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "lua/engine.h"
#include "util/json.h"

#define FG_MAX_STACKS 5000          /* distinct stacks kept in the evidence */
#define FG_MAX_BYTES (2u << 20)     /* bytes of stack text kept (findings.json size) */
#define FG_MAX_DEPTH 128            /* frames per stack, the "all" root not counted */
#define FG_MAX_FRAME 256            /* bytes of one frame name */
#define FG_MAX_LINE (1u << 20)      /* bytes of one input line */
#define FG_MAX_COUNT 9007199254740992ull /* 2^53: counts stay exact as doubles */

#define FG_OTHER "[other]"
#define FG_DEEPER "[deeper frames cut]"

struct fg_fold;

/* A builder; NULL when out of memory. */
struct fg_fold *flamegraph__fold_new(void);
/*
 * Add folded text (any number of lines; blank lines are skipped). A line that
 * is not "STACK COUNT" with COUNT an unsigned integer is an error: -EINVAL
 * with a one-line reason in err ("line 3: no count after the stack").
 */
int flamegraph__fold_text(struct fg_fold *f, const char *text, size_t n, char *err,
			  size_t errlen);
/*
 * Fill e (kind EV_FLAMEGRAPH; title and unit are the caller's): stacks by
 * count, largest first, bounded as above. Returns 0 or -ENOMEM.
 */
int flamegraph__fold_finish(struct fg_fold *f, struct evidence *e);
void flamegraph__fold_free(struct fg_fold *f);

/*
 * The interactive graph of e as an HTML fragment: a <figure> with a search
 * box, a reset button, a status line, and the <svg>. Frames of 0.1% of the
 * total or less are merged into their parent (not drawn: its width holds
 * them); the fragment stays under FG_HTML_BUDGET bytes (fewer, wider frames
 * are drawn until it does). Returns 0, or -ENOMEM (out->oom).
 */
#define FG_HTML_BUDGET (400u << 10)
int flamegraph__html(const struct evidence *e, struct strbuf *out);

/* The script that makes every figure.fg interactive; it holds no data. */
extern const char flamegraph__script[];

/* Format a count in the evidence's unit: "1234 samples", "12.3 ms". */
void flamegraph__fmt_count(char *buf, size_t len, double v, const char *unit);

#endif
