// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/flamegraph.sh's measuring program: folds a profile (synthetic, or
 * folded text on stdin with "-"), renders its flame graph, and prints what
 * it adds to report.html (the page with the graph minus the same page
 * without it: fragment, script, CSP hash) and the time of each step.
 *
 * The synthetic profile imitates a real one: a random call tree (fan-out
 * falling with depth, 5 to 60 frames deep, symbol names of 8 to 120 bytes
 * with C++ templates among them) sampled with Zipf-distributed counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/fold.h"
#include "report/flamegraph.h"
#include "report/doc.h"
#include "util/json.h"

static unsigned long long rng = 88172645463325252ull;

static unsigned long long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void symbol(struct strbuf *sb, unsigned id)
{
	static const char *const ns[] = { "", "std::", "v8::internal::", "mysql::", "boost::asio::" };
	unsigned k = id % 7;

	if (k == 0)
		strbuf__printf(sb, "%sBasicHashtable<Key%u, Value%u>::find_or_insert_slow_path<Alloc%u>",
			       ns[id % 5], id % 13, id % 17, id % 3);
	else if (k < 3)
		strbuf__printf(sb, "%sfunc_%u", ns[id % 5], id);
	else
		strbuf__printf(sb, "do_%s_work_%u", k == 3 ? "io" : k == 4 ? "cpu" : "lock", id);
}

/* nstacks distinct stacks over a random tree, about samples in all. */
static void synth(struct strbuf *out, unsigned nstacks, unsigned samples)
{
	struct strbuf st = { 0 };
	double hn = 0;

	for (unsigned i = 1; i <= nstacks; i++)
		hn += 1.0 / i;
	for (unsigned i = 1; i <= nstacks; i++) {
		unsigned depth = 5 + (unsigned)(next_rand() % 56), id = 0;
		unsigned long long c = (unsigned long long)(samples / hn / i) + 1;

		st.len = 0;
		strbuf__printf(&st, "proc%u", (unsigned)(next_rand() % 12));
		for (unsigned d = 0; d < depth; d++) {
			/* Few choices near the root, more towards the leaves: shared prefixes. */
			unsigned fan = d < 3 ? 2 : d < 10 ? 4 : 12;

			id = id * 31 + 1 + (unsigned)(next_rand() % fan);
			strbuf__append(&st, ";", 1);
			symbol(&st, id % 100000);
		}
		strbuf__printf(out, "%s %llu\n", st.buf, c);
	}
	strbuf__free(&st);
}

/* A page of one heading, with e's graph or without it. */
static char *page(const struct evidence *e, int with)
{
	struct strbuf out = { 0 };
	struct doc d;
	int rc;

	doc__init(&d, "r");
	inl__words(doc__heading(&d, 1, NULL), "r");
	if (with)
		doc__flamegraph(&d, e);
	rc = doc__finish(&d) || doc__html(&d, "", &out);
	doc__free(&d);
	if (rc) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}

int main(int argc, char **argv)
{
	struct strbuf in = { 0 }, frag = { 0 };
	struct evidence e = { 0 };
	struct fold *f;
	char err[200], *with, *without;
	double t0, t1, t2;
	unsigned nstacks = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
	unsigned samples = argc > 2 ? (unsigned)atoi(argv[2]) : nstacks * 10;

	if (argc > 1 && !strcmp(argv[1], "-")) {
		char buf[65536];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			strbuf__append(&in, buf, n);
	} else {
		synth(&in, nstacks, samples);
	}
	t0 = now();
	f = fold__new();
	if (!f || fold__text(f, in.buf ? in.buf : "", in.len, err, sizeof(err)) ||
	    fold__finish(f, &e.fg)) {
		fprintf(stderr, "flamegraph_bench: %s\n", err);
		return 1;
	}
	fold__free(f);
	e.kind = EV_FLAMEGRAPH;
	e.unit = "samples";
	t1 = now();
	if (flamegraph__html(&e, &frag)) {
		fprintf(stderr, "flamegraph_bench: out of memory\n");
		return 1;
	}
	t2 = now();
	with = page(&e, 1);
	without = page(&e, 0);
	if (!with || !without)
		return 1;
	printf("%u\t%llu\t%llu\t%zu\t%zu\t%.1f\t%.1f\n", nstacks, (unsigned long long)e.fg.stacks_in,
	       (unsigned long long)e.fg.total, (size_t)in.len, strlen(with) - strlen(without),
	       (t1 - t0) * 1e3, (t2 - t1) * 1e3);
	free(with);
	free(without);
	strbuf__free(&in);
	strbuf__free(&frag);
	free(e.fg.counts);
	strv__free(&e.fg.stacks);
	return 0;
}
