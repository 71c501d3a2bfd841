/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log2 latency histograms, as the BPF tools count them: slot s counts the
 * events in [2^s, 2^(s+1)) of the unit, slot 0 also 0 (docs/bpf-tools.md).
 * Their percentiles, and how far sampling leaves a percentile from what the
 * same workload would show in another window.
 */
#ifndef SONDE_LOG2HIST_H
#define SONDE_LOG2HIST_H

#include <stddef.h>

/* The bounds of slot s: [lo, hi). */
double log2hist__lo(size_t s);
double log2hist__hi(size_t s);

/*
 * The value of rank k (0 < k <= the events counted; a fraction is allowed) of
 * the n slots of b: inside the slot that holds it, linearly between the
 * slot's bounds. NAN when b counts nothing.
 */
double log2hist__rank(const double *b, size_t n, double k);
/* The p-th percentile (0 < p <= 100): the rank p/100 of the events. NAN when empty. */
double log2hist__percentile(const double *b, size_t n, double p);

/*
 * A confidence interval of the p-th percentile at z standard errors,
 * distribution-free: the events are taken as a sample of the workload's
 * latencies, so the number below the true percentile is binomial (count N,
 * probability p/100) and the interval's ranks are N q -/+ z sqrt(N q (1 - q)),
 * clamped to [1, N]; each rank is then widened to the bounds of the slot
 * that holds it (the histogram cannot place it closer). *lo and *hi; 0, or
 * -1 when b counts nothing.
 */
int log2hist__percentile_ci(const double *b, size_t n, double p, double z, double *lo,
			    double *hi);

#endif
