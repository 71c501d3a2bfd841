/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What fleet.c (reading bundles, aggregating) and fleet_doc.c (the document,
 * fleet.json, the terminal) share; private to the report layer.
 */
#ifndef SONDE_FLEET_INT_H
#define SONDE_FLEET_INT_H

#include <stddef.h>
#include <stdint.h>

#include "report/chart.h"
#include "report/fleet.h"

/* log2 latency buckets in us: bucket i counts [2^i, 2^(i+1)) us, bucket 0 also 0 */
#define FLEET_BUCKETS 32
enum fleet_hist_kind { FLEET_RUNQLAT, FLEET_BIOLATENCY, FLEET_NHIST };

struct fleet_hist {
	double b[FLEET_BUCKETS];
	double total;
	int have;
	char why[200]; /* !have: why this host has none */
};

struct fleet_finding {
	size_t check; /* into fleet.checks */
	int sev;      /* 1 warn, 2 crit */
	char *summary;
};

struct fleet_host {
	char *host, *bundle, *verdict, *case_id;
	char *host_id;   /* the manifest's (HOST_ID_LEN hex), NULL when none */
	char start[40];
	int64_t start_s; /* the window's start, INT64_MIN when unreadable */
	int worst;       /* 0 ok, 1 warn, 2 crit, -1 not said */
	int partial;
	int future;      /* its window is in the future (FLEET_FUTURE_SKEW_S): not trusted */
	int conflict;    /* another host id claims its name (fleet__finish) */
	size_t nwarn, ncrit, nunknowns;
	size_t older;  /* older bundles of this host, not counted */
	struct fleet_finding *f;
	size_t nf;
	double *values; /* by metric key (fleet.keys), NaN: not measured */
	size_t nvalues;
	struct fleet_hist hist[FLEET_NHIST];
	double p50[FLEET_NHIST], p99[FLEET_NHIST]; /* us, NaN without a histogram */
};

/* Strings interned once each: hosts, check ids, metric keys. */
struct fleet_names {
	char **v;
	size_t n, cap;
	size_t *slot; /* open addressing: index + 1, 0 empty */
	size_t scap;  /* a power of two */
};

struct fleet_shared {
	size_t check;
	size_t nhosts, nwarn, ncrit;
	size_t *hosts; /* indices into fleet.hosts, in fleet.order */
};

struct fleet_unique {
	size_t check, host;
	int sev;
	const char *summary;
};

struct fleet_outlier {
	size_t key, host;
	double value, median, mad, z;
};

struct fleet_heat {
	struct heatmap hm;
	size_t *col_host;  /* the host of each column but the first (the fleet's) */
	const char **cols;
	const char **rows;
	char (*row_names)[32];
	double *counts;
	size_t first;      /* the bucket of row 0 */
	size_t nhosts;     /* hosts with a histogram (columns shown: at most FLEET_HEAT_COLS) */
	double fleet[FLEET_BUCKETS];
	double p50, p99;   /* of the fleet, us */
};

#define FLEET_HEAT_COLS 80

/* A bundle whose window is in the future (listed; it stands for no host another one does). */
struct fleet_future {
	char *bundle, *host, *host_id;
	char start[40];
};

/* A host name claimed by several host ids: hosts by_name[first .. first + n - 1]. */
struct fleet_conflict {
	size_t first, n;
};

#define FLEET_FUTURE_MAX 1000

struct fleet {
	int64_t now;                  /* fleet__new's clock */
	struct fleet_host *hosts;
	size_t nhosts, cap;
	struct fleet_names host_keys; /* "host id\x1fhost name" (no id: "") */
	struct fleet_names checks;    /* check ids */
	struct fleet_names keys;      /* "check\x1fmetric" of host-level metrics */
	char **key_units;             /* parallel to keys */
	struct fleet_refused {
		char *name, *reason;
	} *refused;
	size_t nrefused, refused_cap;
	size_t bundles, older;
	struct fleet_future *future;  /* at most FLEET_FUTURE_MAX listed */
	size_t nfuture, future_cap, future_cut;
	int oom;
	/* fleet__finish */
	size_t *order; /* hosts: worst first, then by name */
	size_t *by_name; /* hosts by name, then host id */
	struct fleet_conflict *conflicts;
	size_t nconflicts;
	struct fleet_shared *shared;
	size_t nshared;
	struct fleet_unique *unique;
	size_t nunique;
	struct fleet_outlier *outliers;
	size_t noutliers, outliers_cut;
	struct fleet_heat heat[FLEET_NHIST];
	int finished;
};

extern const char *const fleet_hist_tool[FLEET_NHIST];
/* "check\x1fmetric": its two halves. */
void fleet__key_split(const char *key, const char **check, size_t *check_len, const char **metric);
/* p-th percentile (0-100) of a log2 histogram in us, inside its bucket linearly; NaN if empty. */
double fleet__percentile(const double *b, size_t n, double p);
/* "2-4 us", "0.512-1.02 ms", "1.05-2.1 s": the range of bucket i. */
void fleet__bucket_name(size_t i, char *buf, size_t len);

#endif
