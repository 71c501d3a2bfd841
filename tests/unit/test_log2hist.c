// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/log2hist.c: percentiles of log2 histograms and their confidence
 * intervals. The interval must hold the percentile of the distribution the
 * events were drawn from as often as its z says (checked by drawing many
 * histograms from one known distribution), narrow with more events, and
 * never be narrower than the slot the percentile falls in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log2hist.h"
#include "tap.h"

#define SLOTS 32

/* A log2 slot for a latency drawn from a log-normal around 2^8 (256 us), seeded. */
static size_t draw(unsigned *seed)
{
	double u1 = (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);
	double u2 = (rand_r(seed) + 1.0) / ((double)RAND_MAX + 2.0);
	double g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	double v = exp2(8 + 1.5 * g);
	size_t s = v < 2 ? 0 : (size_t)floor(log2(v));

	return s < SLOTS ? s : SLOTS - 1;
}

int main(void)
{
	double b[SLOTS] = { 0 }, lo, hi, lo2, hi2;
	unsigned seed = 29;
	int covered = 0, trials = 400;

	ok(isnan(log2hist__percentile(b, SLOTS, 50)), "an empty histogram has no percentile");
	ok(log2hist__percentile_ci(b, SLOTS, 50, 2.58, &lo, &hi) < 0, "nor an interval");
	b[3] = 10; /* [8, 16) */
	ok(fabs(log2hist__percentile(b, SLOTS, 50) - 12) < 1e-9, "p50 of one slot: its middle");
	ok(!log2hist__percentile_ci(b, SLOTS, 50, 2.58, &lo, &hi) && lo == 8 && hi == 16,
	   "one slot: the interval is the slot (%g..%g)", lo, hi);
	b[10] = 1;
	ok(log2hist__percentile(b, SLOTS, 99.5) > 1024, "the tail's slot sets p99.5");
	is_int((int)log2hist__lo(0), 0, "slot 0 also counts 0");
	is_int((int)log2hist__hi(0), 2, "slot 0 ends at 2");

	/*
	 * Coverage: p90 of the log-normal above is 2^(8 + 1.5 * 1.2816) = 970 us;
	 * 400 histograms of 500 events each, the 99% interval (z 2.58) must hold
	 * it at least 95% of the time (the slot widening makes it conservative).
	 */
	for (int t = 0; t < trials; t++) {
		double h[SLOTS] = { 0 };

		for (int i = 0; i < 500; i++)
			h[draw(&seed)]++;
		log2hist__percentile_ci(h, SLOTS, 90, 2.58, &lo, &hi);
		covered += lo <= 970 && 970 < hi;
	}
	ok(covered >= trials * 95 / 100, "the p90 interval holds the true p90 in %d of %d", covered,
	   trials);

	/* More events, a narrower interval (or the same slot bounds). */
	memset(b, 0, sizeof(b));
	for (int i = 0; i < 100; i++)
		b[draw(&seed)]++;
	log2hist__percentile_ci(b, SLOTS, 99, 2.58, &lo, &hi);
	for (int i = 0; i < 100000; i++)
		b[draw(&seed)]++;
	log2hist__percentile_ci(b, SLOTS, 99, 2.58, &lo2, &hi2);
	ok(hi2 / lo2 <= hi / lo, "p99 from 100100 events: %g..%g, narrower than from 100: %g..%g", lo2,
	   hi2, lo, hi);
	ok(lo2 <= log2hist__percentile(b, SLOTS, 99) && log2hist__percentile(b, SLOTS, 99) < hi2,
	   "the estimate lies inside its interval");
	return tap_done();
}
