/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flame graphs in report.html: a check's folded stacks (perf/fold.h) drawn
 * as an SVG. Frame names are host data (process names, symbols) and only
 * ever reach the page XML-escaped, as the text of <title> elements; the
 * page's one script (flamegraph__script()) reads them with textContent.
 */
#ifndef SONDE_FLAMEGRAPH_H
#define SONDE_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "lua/result.h"
#include "util/strbuf.h"

/*
 * The interactive graph of e (kind EV_FLAMEGRAPH) as an HTML fragment: a
 * <figure> with a search box, a reset button, a status line, and the <svg>.
 * Frames of 0.1% of the total or less are merged into their parent (not
 * drawn: its width holds them); the fragment stays under FG_HTML_BUDGET
 * bytes (fewer, wider frames are drawn until it does). Returns 0, or
 * -ENOMEM (out->oom).
 */
#define FG_HTML_BUDGET (400u << 10)
int flamegraph__html(const struct evidence *e, struct strbuf *out);

/*
 * A differential flame graph (Brendan Gregg's): the shape of the profile
 * now, each frame coloured by how its share of the total changed against
 * the profiles before (their median share, 0 where a profile lacks the
 * frame): red grew, blue shrank, by 0.25, 1, 3 and 10 points. Shares, not
 * counts: two profiles of different lengths compare. The same figure and
 * script as flamegraph__html; hovering a frame also says its share before.
 */
struct flamediff {
	const struct folded_stacks *now;
	const struct folded_stacks *const *before;
	size_t nbefore;
	const char *unit; /* "samples" or "us" */
};
int flamegraph__diff_html(const struct flamediff *fd, struct strbuf *out);

/*
 * The script that makes every figure.fg interactive (flamegraph.js beside
 * this file, embedded in the binary); it holds no data. NULL only in a build
 * that did not embed it.
 */
const char *flamegraph__script(void);

/* Format a count in the evidence's unit: "1234 samples", "12.3 ms". */
void flamegraph__fmt_count(char *buf, size_t len, double v, const char *unit);

#endif
