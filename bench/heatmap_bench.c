// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/heatmap.sh's measuring program: what the heat maps of one 10 s
 * window add to report.html and report.md, and to their rendering time. The
 * same document is built and rendered with and without the heat-map evidence
 * (report__doc_heatmap, as a check's ctx:heatmap gives it): the difference in
 * bytes, and in time (the median of REPS renderings of each).
 *
 * The maps: a 10 s window's latency heat maps (50 intervals of 200 ms, each
 * ~2000 events spread over ~12 log2 buckets around a moving median, a few
 * slow outliers), as runqlat, biolatency and offcputime give them, and the
 * profile's subsecond map (10 seconds by 20 rows); then the worst case, every
 * cell of 50 intervals by 32 buckets counted.
 * Prints: case, maps, html bytes added, md bytes added, ms added.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua/result.h"
#include "report/doc.h"
#include "report/model.h"

#define REPS 41

static unsigned long long rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A latency map: 50 intervals by 32 slots; full: every cell counted. */
static void latency(struct evidence *e, const char *title, int full)
{
	e->kind = EV_HEATMAP;
	e->title = strdup(title);
	e->unit = strdup("us");
	e->step_s = 0.2;
	e->hm_rows = 32;
	e->nvalues = 50 * 32;
	e->values = calloc(e->nvalues, sizeof(double));
	for (size_t c = 0; c < 50; c++) {
		double mid = 6 + 2 * sin((double)c / 7);

		for (int k = 0; k < 2000; k++) {
			int s = (int)lround(mid + (uniform() + uniform() + uniform() - 1.5) * 4);

			s = s < 0 ? 0 : s > 31 ? 31 : s;
			e->values[c * 32 + (size_t)s]++;
		}
		if (uniform() < 0.2)
			e->values[c * 32 + 18]++; /* an outlier of a quarter second */
		for (size_t s = 0; full && s < 32; s++)
			e->values[c * 32 + s] += 1 + (double)s;
	}
}

static void subsecond(struct evidence *e)
{
	e->kind = EV_HEATMAP;
	e->title = strdup("CPU busy by offset in the second, every CPU (profile, % of the samples)");
	e->unit = strdup("%");
	e->step_s = 1;
	e->hm_row_ms = 50;
	e->hm_rows = 20;
	e->nvalues = 10 * 20;
	e->values = calloc(e->nvalues, sizeof(double));
	for (size_t i = 0; i < e->nvalues; i++)
		e->values[i] = floor(100 * uniform());
}

/* One rendering of a page of the other blocks, with the maps or not: bytes and ms. */
static void render(const struct evidence *ev, size_t n, int with, size_t *html_b, size_t *md_b,
		   double *ms)
{
	struct strbuf html = { 0 }, md = { 0 };
	struct doc d;
	double t0 = now_ms();

	doc__init(&d, "bench");
	for (int i = 0; i < 30; i++) {
		struct inlines *in = doc__para(&d);

		inl__words(in, "a paragraph of the rest of the report, %d", i);
	}
	for (size_t i = 0; with && i < n; i++)
		report__doc_heatmap(&d, &ev[i]);
	doc__finish(&d);
	doc__html(&d, &html);
	doc__markdown(&d, &md);
	*ms = now_ms() - t0;
	*html_b = html.len;
	*md_b = md.len;
	doc__free(&d);
	strbuf__free(&html);
	strbuf__free(&md);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void measure(const char *name, const struct evidence *ev, size_t n)
{
	double with[REPS], without[REPS], ms;
	size_t h1 = 0, m1 = 0, h0 = 0, m0 = 0;

	for (int r = 0; r < REPS; r++) {
		render(ev, n, 1, &h1, &m1, &ms);
		with[r] = ms;
		render(ev, n, 0, &h0, &m0, &ms);
		without[r] = ms;
	}
	qsort(with, REPS, sizeof(double), cmp);
	qsort(without, REPS, sizeof(double), cmp);
	printf("%s\t%zu\t%zu\t%zu\t%.3f\n", name, n, h1 - h0, m1 - m0,
	       with[REPS / 2] - without[REPS / 2]);
}

int main(void)
{
	struct evidence ev[4] = { 0 }, worst[4] = { 0 };

	latency(&ev[0], "Run-queue latency over the window (runqlat)", 0);
	latency(&ev[1], "I/O latency over the window on vda (biolatency, insert to complete)", 0);
	latency(&ev[2], "How long threads blocked, over the window (offcputime)", 0);
	subsecond(&ev[3]);
	latency(&worst[0], "Run-queue latency over the window (runqlat)", 1);
	latency(&worst[1], "I/O latency over the window on vda (biolatency, insert to complete)", 1);
	latency(&worst[2], "How long threads blocked, over the window (offcputime)", 1);
	subsecond(&worst[3]);
	measure("typical", ev, 4);
	measure("every-cell", worst, 4);
	for (int i = 0; i < 4; i++) {
		free(ev[i].title), free(ev[i].unit), free(ev[i].values);
		free(worst[i].title), free(worst[i].unit), free(worst[i].values);
	}
	return 0;
}
