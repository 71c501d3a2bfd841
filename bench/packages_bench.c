// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/packages.sh's measuring program: what reading the installed
 * packages costs (collect/hostctx_pkgs.c, the host.context collector's
 * `after` hook): the same call a run makes once after its window, into a
 * capture stream in a temporary directory, REPS times. Prints, tab-separated:
 * the manager, packages, record bytes, the median and the largest ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/hostctx.h"

#define REPS 41

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct collector_state cs = { .root = "" };
	struct reader rd = { .root = "" };
	struct capture_writer w;
	struct capture_set set;
	const struct capture_stream *st;
	double ms[REPS];
	char err[256];
	const char *dir = argc > 1 ? argv[1] : ".";

	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.cap", dir, HOSTCTX_STREAM);
	for (int i = 0; i < REPS; i++) {
		double t0;

		unlink(path); /* the writer creates its stream: a fresh one each time */
		if (capture_writer__open(&w, dir, HOSTCTX_STREAM)) {
			fprintf(stderr, "packages_bench: cannot write in %s\n", dir);
			return 1;
		}
		t0 = now_ms();
		hostctx__packages(&cs, &rd, &w);
		ms[i] = now_ms() - t0;
		capture_writer__close(&w);
	}
	qsort(ms, REPS, sizeof(*ms), cmp);
	if (capture_set__open(&set, dir, NULL, err, sizeof(err)) ||
	    !(st = capture_set__stream(&set, HOSTCTX_STREAM)) || !st->n) {
		fprintf(stderr, "packages_bench: no record written: %s\n", err);
		return 1;
	}
	if (st->rec[0].err) {
		printf("none\t0\t0\t%.3f\t%.3f\n", ms[REPS / 2], ms[REPS - 1]);
	} else {
		size_t lines = 0;

		for (size_t k = 0; k < st->rec[0].len; k++)
			lines += st->rec[0].data[k] == '\n';
		printf("%.*s\t%zu\t%zu\t%.3f\t%.3f\n", (int)strcspn(st->rec[0].data + 8, "\n"),
		       st->rec[0].data + 8, lines - 1, st->rec[0].len, ms[REPS / 2], ms[REPS - 1]);
	}
	capture_set__free(&set);
	reader__free(&rd);
	return 0;
}
