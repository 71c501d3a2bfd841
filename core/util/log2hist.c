// SPDX-License-Identifier: GPL-2.0-or-later
/* Log2 histograms: percentiles and their confidence intervals (log2hist.h). */
#include <math.h>

#include "util/log2hist.h"

double log2hist__lo(size_t s)
{
	return s ? ldexp(1, (int)s) : 0;
}

double log2hist__hi(size_t s)
{
	return ldexp(1, (int)s + 1);
}

static double total(const double *b, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += b[i] > 0 ? b[i] : 0;
	return t;
}

/* The slot of rank k (1-based, may be fractional), and the events before it. */
static size_t slot_of(const double *b, size_t n, double k, double *before)
{
	double seen = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i] > 0 && seen + b[i] >= k) {
			*before = seen;
			return i;
		}
		seen += b[i] > 0 ? b[i] : 0;
	}
	*before = seen;
	return n;
}

double log2hist__rank(const double *b, size_t n, double k)
{
	double before, t = total(b, n);
	size_t s;

	if (t <= 0)
		return NAN;
	s = slot_of(b, n, k, &before);
	if (s == n)
		return log2hist__lo(n);
	return log2hist__lo(s) + (log2hist__hi(s) - log2hist__lo(s)) * (k - before) / b[s];
}

double log2hist__percentile(const double *b, size_t n, double p)
{
	return log2hist__rank(b, n, total(b, n) * p / 100);
}

int log2hist__percentile_ci(const double *b, size_t n, double p, double z, double *lo,
			    double *hi)
{
	double t = total(b, n), q = p / 100, sd, k0, k1, before;
	size_t s;

	if (t <= 0)
		return -1;
	sd = sqrt(t * q * (1 - q));
	k0 = fmax(1, floor(t * q - z * sd));
	k1 = fmin(t, ceil(t * q + z * sd));
	s = slot_of(b, n, k0, &before);
	*lo = s < n ? log2hist__lo(s) : log2hist__lo(n);
	s = slot_of(b, n, k1, &before);
	*hi = s < n ? log2hist__hi(s) : log2hist__hi(n);
	return 0;
}
