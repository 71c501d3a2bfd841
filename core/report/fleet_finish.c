// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary once every bundle is in (fleet.h): the hosts in order,
 * the names several machines claim, the findings many hosts share and those
 * on one host only, the outliers of every metric, the latency heat maps.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_int.h"
#include "util/log2hist.h"

/* ---- the fleet ---- */

/* qsort has no argument for its comparisons: the fleet and the heat map being sorted. */
static const struct fleet *sort_fleet;
static int sort_kind;

/* By name, then by host id (none first). */
static int name_id_cmp(const struct fleet_host *x, const struct fleet_host *y)
{
	int rc = strcmp(x->host, y->host);

	if (rc || x->host_id == y->host_id)
		return rc;
	if (!x->host_id || !y->host_id)
		return x->host_id ? 1 : -1;
	return strcmp(x->host_id, y->host_id);
}

static int by_name_cmp(const void *a, const void *b)
{
	return name_id_cmp(&sort_fleet->hosts[*(const size_t *)a],
			   &sort_fleet->hosts[*(const size_t *)b]);
}

/* Worst first, then most critical and warning findings, then by name. */
static int host_cmp(const void *a, const void *b)
{
	const struct fleet_host *x = &sort_fleet->hosts[*(const size_t *)a];
	const struct fleet_host *y = &sort_fleet->hosts[*(const size_t *)b];

	if (x->worst != y->worst)
		return y->worst - x->worst;
	if (x->ncrit != y->ncrit)
		return x->ncrit < y->ncrit ? 1 : -1;
	if (x->nwarn != y->nwarn)
		return x->nwarn < y->nwarn ? 1 : -1;
	return name_id_cmp(x, y);
}

static int shared_cmp(const void *a, const void *b)
{
	const struct fleet_shared *x = a, *y = b;

	if (x->nhosts != y->nhosts)
		return x->nhosts < y->nhosts ? 1 : -1;
	if (x->ncrit != y->ncrit)
		return x->ncrit < y->ncrit ? 1 : -1;
	return strcmp(sort_fleet->checks.v[x->check], sort_fleet->checks.v[y->check]);
}

/* Crit first, then by check, then by host. */
static int unique_cmp(const void *a, const void *b)
{
	const struct fleet_unique *x = a, *y = b;
	int rc;

	if (x->sev != y->sev)
		return y->sev - x->sev;
	rc = strcmp(sort_fleet->checks.v[x->check], sort_fleet->checks.v[y->check]);
	return rc ? rc : name_id_cmp(&sort_fleet->hosts[x->host], &sort_fleet->hosts[y->host]);
}

/* Which hosts have each check's finding: shared by two or more, or unique to one. */
static int find_shared(struct fleet *f)
{
	struct fleet_shared *all = calloc(f->checks.n + 1, sizeof(*all));
	size_t nunique = 0;

	if (!all)
		return -ENOMEM;
	for (size_t c = 0; c < f->checks.n; c++)
		all[c].check = c;
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];

		for (size_t i = 0; i < h->nf; i++) {
			struct fleet_shared *s = &all[h->f[i].check];

			/* a check counted once per host, with its worst severity there */
			if (s->nhosts && s->hosts[s->nhosts - 1] == f->order[k])
				continue;
			if (!(s->nhosts & (s->nhosts - 1))) {
				size_t *nh = realloc(s->hosts, (s->nhosts ? s->nhosts * 2 : 1) *
							       sizeof(*nh));

				if (!nh)
					goto oom;
				s->hosts = nh;
			}
			s->hosts[s->nhosts++] = f->order[k];
			s->nwarn += h->f[i].sev == 1;
			s->ncrit += h->f[i].sev == 2;
		}
	}
	f->unique = calloc(f->checks.n + 1, sizeof(*f->unique));
	if (!f->unique)
		goto oom;
	for (size_t c = 0; c < f->checks.n; c++) {
		if (all[c].nhosts == 1) {
			const struct fleet_host *h = &f->hosts[all[c].hosts[0]];

			for (size_t i = 0; i < h->nf; i++)
				if (h->f[i].check == c) {
					f->unique[nunique++] = (struct fleet_unique){
						c, all[c].hosts[0], h->f[i].sev, i };
					break;
				}
			free(all[c].hosts);
		} else if (all[c].nhosts > 1) {
			all[f->nshared++] = all[c];
		}
	}
	f->nunique = nunique;
	f->shared = all;
	sort_fleet = f;
	qsort(f->shared, f->nshared, sizeof(*f->shared), shared_cmp);
	qsort(f->unique, f->nunique, sizeof(*f->unique), unique_cmp);
	return 0;
oom:
	for (size_t c = 0; c < f->checks.n; c++)
		free(all[c].hosts);
	free(all);
	return -ENOMEM;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int outlier_cmp(const void *a, const void *b)
{
	const struct fleet_outlier *x = a, *y = b;

	if (fabs(x->z) != fabs(y->z))
		return fabs(x->z) < fabs(y->z) ? 1 : -1;
	if (x->key != y->key)
		return strcmp(sort_fleet->keys.v[x->key], sort_fleet->keys.v[y->key]);
	return name_id_cmp(&sort_fleet->hosts[x->host], &sort_fleet->hosts[y->host]);
}

/*
 * Per metric, the hosts far from the fleet's median: the modified z-score
 * 0.6745 (x - median) / MAD (Iglewicz and Hoaglin), robust to the outliers
 * themselves. When more than half the hosts share one value the MAD is 0;
 * then the mean absolute deviation stands in (z = (x - median) / (1.2533
 * MeanAD), the same scale for a normal distribution), and a metric on which
 * every host agrees has no outlier. A tight fleet makes a small MAD, and a
 * host 2% off its median would score high: a value is also to be
 * FLEET_OUTLIER_MIN_REL away from the median (relatively) to be far from it.
 */
static int find_outliers(struct fleet *f)
{
	double *v = malloc((f->nhosts + 1) * sizeof(*v)), *dev = malloc((f->nhosts + 1) * sizeof(*dev));
	int rc = -ENOMEM;

	if (!v || !dev)
		goto out;
	for (size_t k = 0; k < f->keys.n; k++) {
		double med, mad, mean_ad = 0, scale, x;
		size_t n = 0;

		for (size_t i = 0; i < f->nhosts; i++)
			if (!fleet__value(&f->hosts[i], k, &x))
				v[n++] = x;
		if (n < FLEET_OUTLIER_MIN_HOSTS)
			continue;
		med = median(v, n);
		for (size_t i = 0; i < n; i++) {
			dev[i] = fabs(v[i] - med);
			mean_ad += dev[i] / (double)n;
		}
		mad = median(dev, n);
		scale = mad > 0 ? mad / 0.6745 : 1.253314 * mean_ad;
		if (!(scale > 0) || !isfinite(scale))
			continue;
		for (size_t i = 0; i < f->nhosts; i++) {
			const struct fleet_host *h = &f->hosts[i];
			double z;

			if (fleet__value(h, k, &x))
				continue;
			z = (x - med) / scale;
			if (fabs(z) <= FLEET_OUTLIER_Z ||
			    fabs(x - med) < FLEET_OUTLIER_MIN_REL * fabs(med))
				continue;
			if (f->noutliers >= FLEET_OUTLIERS_MAX) {
				f->outliers_cut++;
				continue;
			}
			if (!f->outliers && !(f->outliers = calloc(FLEET_OUTLIERS_MAX,
								   sizeof(*f->outliers))))
				goto out;
			f->outliers[f->noutliers++] = (struct fleet_outlier){ k, i, x,
									      med, mad, z };
		}
	}
	sort_fleet = f;
	qsort(f->outliers, f->noutliers, sizeof(*f->outliers), outlier_cmp);
	rc = 0;
out:
	free(v);
	free(dev);
	return rc;
}

static int heat_cmp(const void *a, const void *b)
{
	const struct fleet_host *x = &sort_fleet->hosts[*(const size_t *)a];
	const struct fleet_host *y = &sort_fleet->hosts[*(const size_t *)b];
	int k = sort_kind;

	if (x->p99[k] != y->p99[k])
		return x->p99[k] < y->p99[k] ? 1 : -1;
	return name_id_cmp(x, y);
}

/*
 * One heat map: the fleet's merged histogram in the first column, then the
 * hosts side by side, the slowest p99 first (at most FLEET_HEAT_COLS of them),
 * rows from the fastest bucket any host used to the slowest.
 */
static int build_heat(struct fleet *f, int kind)
{
	static const char *const titles[] = { "Run-queue latency", "Block I/O latency" };
	static const char *const ylabels[] = { "run-queue latency (log2 buckets)",
					       "block I/O latency, queue + service (log2 buckets)" };
	static const char *const counted[] = { "waits", "I/Os" };
	struct fleet_heat *ht = &f->heat[kind];
	size_t *with = malloc((f->nhosts + 1) * sizeof(*with)), lo = FLEET_BUCKETS, hi = 0, ncols;

	if (!with)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++) {
		struct fleet_host *h = &f->hosts[i];

		h->p50[kind] = h->p99[kind] = NAN;
		if (!h->hist[kind].have)
			continue;
		h->p50[kind] = log2hist__percentile(h->hist[kind].b, FLEET_BUCKETS, 50);
		h->p99[kind] = log2hist__percentile(h->hist[kind].b, FLEET_BUCKETS, 99);
		for (size_t b = 0; b < FLEET_BUCKETS; b++) {
			ht->fleet[b] += h->hist[kind].b[b];
			if (h->hist[kind].b[b] > 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
		}
		if (!isnan(h->p99[kind]))
			with[ht->nhosts++] = i;
	}
	ht->p50 = log2hist__percentile(ht->fleet, FLEET_BUCKETS, 50);
	ht->p99 = log2hist__percentile(ht->fleet, FLEET_BUCKETS, 99);
	sort_fleet = f;
	sort_kind = kind;
	qsort(with, ht->nhosts, sizeof(*with), heat_cmp);
	ht->hm.title = titles[kind];
	if (lo > hi) { /* no host with a count: a map with no data */
		free(with);
		return 0;
	}
	ncols = 1 + (ht->nhosts < FLEET_HEAT_COLS ? ht->nhosts : FLEET_HEAT_COLS);
	ht->first = lo;
	ht->col_host = with;
	ht->cols = calloc(ncols, sizeof(*ht->cols));
	ht->rows = calloc(hi - lo + 1, sizeof(*ht->rows));
	ht->row_names = calloc(hi - lo + 1, sizeof(*ht->row_names));
	ht->counts = calloc(ncols * (hi - lo + 1), sizeof(*ht->counts));
	if (!ht->cols || !ht->rows || !ht->row_names || !ht->counts)
		return -ENOMEM;
	for (size_t r = 0; r <= hi - lo; r++) {
		fleet__bucket_name(lo + r, ht->row_names[r], sizeof(ht->row_names[r]));
		ht->rows[r] = ht->row_names[r];
		ht->counts[r] = ht->fleet[lo + r];
	}
	ht->cols[0] = "(fleet)";
	for (size_t c = 1; c < ncols; c++) {
		const struct fleet_host *h = &f->hosts[with[c - 1]];

		ht->cols[c] = h->host;
		for (size_t r = 0; r <= hi - lo; r++)
			ht->counts[c * (hi - lo + 1) + r] = h->hist[kind].b[lo + r];
	}
	ht->hm = (struct heatmap){
		.title = titles[kind], .y_label = ylabels[kind], .count_label = counted[kind],
		.x_label = "the fleet merged, then each host, slowest p99 first",
		.ncols = ncols, .nrows = hi - lo + 1, .cols = ht->cols, .rows = ht->rows,
		.counts = ht->counts, .per_column = 1,
	};
	return 0;
}

/* Host names that more than one host id claims: each claimant a row, all marked. */
static int find_conflicts(struct fleet *f)
{
	f->by_name = malloc((f->nhosts + 1) * sizeof(*f->by_name));
	f->conflicts = calloc(f->nhosts / 2 + 1, sizeof(*f->conflicts));
	if (!f->by_name || !f->conflicts)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++)
		f->by_name[i] = i;
	sort_fleet = f;
	qsort(f->by_name, f->nhosts, sizeof(*f->by_name), by_name_cmp);
	for (size_t i = 0, j; i < f->nhosts; i = j) {
		for (j = i + 1; j < f->nhosts && !strcmp(f->hosts[f->by_name[i]].host,
							  f->hosts[f->by_name[j]].host); j++)
			;
		if (j - i < 2)
			continue;
		f->conflicts[f->nconflicts++] = (struct fleet_conflict){ i, j - i };
		for (size_t k = i; k < j; k++)
			f->hosts[f->by_name[k]].conflict = 1;
	}
	return 0;
}

static int refused_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fleet_refused *)a)->name,
		      ((const struct fleet_refused *)b)->name);
}

static int future_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fleet_future *)a)->bundle,
		      ((const struct fleet_future *)b)->bundle);
}

int fleet__finish(struct fleet *f)
{
	if (f->finished)
		return 0;
	/* in name order, whatever order the bundles were read in */
	if (f->nrefused)
		qsort(f->refused, f->nrefused, sizeof(*f->refused), refused_cmp);
	if (f->nfuture)
		qsort(f->future, f->nfuture, sizeof(*f->future), future_cmp);
	f->order = malloc((f->nhosts + 1) * sizeof(*f->order));
	if (!f->order)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++)
		f->order[i] = i;
	sort_fleet = f;
	qsort(f->order, f->nhosts, sizeof(*f->order), host_cmp);
	if (find_conflicts(f) || find_shared(f) || find_outliers(f) ||
	    build_heat(f, FLEET_RUNQLAT) || build_heat(f, FLEET_BIOLATENCY))
		return -ENOMEM;
	f->finished = 1;
	return 0;
}

