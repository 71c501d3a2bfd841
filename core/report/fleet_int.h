/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What fleet_read.c (a bundle's record, in a worker), fleet.c (the hosts and
 * what the fleet shares, in the parent), fleet_doc.c (the document and the
 * terminal) and fleet_json.c (fleet.json) share; private to the report layer.
 */
#ifndef SONDE_FLEET_INT_H
#define SONDE_FLEET_INT_H

#include <stddef.h>
#include <stdint.h>

#include "report/chart.h"
#include "report/fleet.h"
#include "util/strbuf.h"

/* log2 latency buckets in us: bucket i counts [2^i, 2^(i+1)) us, bucket 0 also 0 */
#define FLEET_BUCKETS 32
enum fleet_hist_kind { FLEET_RUNQLAT, FLEET_BIOLATENCY, FLEET_NHIST };

/* Bounds on what one bundle may bring (checked where it is read, and again in the parent). */
#define FLEET_HOST_MAX 255
#define FLEET_VERDICT_MAX 400
#define FLEET_SUMMARY_MAX 300
#define FLEET_WHY_MAX 200
#define FLEET_NAME_MAX 1024
#define FLEET_FINDINGS_MAX 256 /* per host */
#define FLEET_VALUES_MAX 512   /* host-level metrics per host */
#define FLEET_CHECKS_MAX 4096
#define FLEET_KEYS_MAX 2048    /* below 65536: a key is a uint16_t */
#define FLEET_OUTLIERS_MAX 1000

struct fleet_hist {
	double b[FLEET_BUCKETS];
	double total;
	int have;
};

/*
 * One bundle as fleet__summarize makes it in a worker and fleet__add reads it
 * back (fleet_read.c): everything the summary needs of its three members,
 * cut to the bounds above; the wire form between them is util/wire.h's.
 */
struct fleet_record {
	char *host, *host_id, *verdict, *case_id; /* host_id, case_id: NULL when none */
	char start[40], end[40];
	int worst, partial;
	size_t nunknowns;
	struct fleet_record_finding {
		char *check, *summary;
		int sev;
	} *f;
	size_t nf;
	struct fleet_record_metric {
		char *check, *name, *unit;
		double value;
	} *m;
	size_t nm;
	struct fleet_hist hist[FLEET_NHIST];
	char *why[FLEET_NHIST]; /* !have: why this host has none */
};

/* The record's wire form (what fleet__summarize wrote) into r. 0, or -EINVAL (bad), -ENOMEM. */
int fleet_record__decode(const void *buf, size_t len, struct fleet_record *r);
void fleet_record__free(struct fleet_record *r);

struct fleet_finding {
	uint32_t check; /* into fleet.checks */
	int sev;        /* 1 warn, 2 crit */
};

/*
 * A host as the fleet keeps it: what the aggregation and the tables need. Its
 * findings' summaries and why it lacks a histogram are in the spool
 * (fleet__detail), so memory grows with the hosts, not with what their
 * bundles say.
 */
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
	uint64_t detail;   /* its detail's offset in the spool */
	size_t detail_len;
	double *vals;      /* host-level metric values, by key (vkeys, ascending) */
	uint16_t *vkeys;   /* into fleet.keys; in the same allocation as vals */
	size_t nvals;
	struct fleet_hist hist[FLEET_NHIST];
	double p50[FLEET_NHIST], p99[FLEET_NHIST]; /* us, NaN without a histogram */
};

/* A host's detail, read back from the spool. */
struct fleet_detail {
	char **summary;         /* one per finding (h->nf) */
	size_t nsummary;
	char *why[FLEET_NHIST]; /* why it has no histogram, NULL when it has one */
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
	size_t finding; /* into the host's findings (its summary in the detail) */
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
	/* the spool: the hosts' details, in a file (spool_base bytes of it) then in spool_buf */
	int spool_fd, spool_full;
	uint64_t spool_base;
	struct strbuf spool_buf;
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
/* "ok", "warn", "crit" for 0, 1, 2; "unknown" else. */
const char *fleet__sev_name(int w);
/* A copy of at most max bytes of s, cut at a UTF-8 boundary; "" for NULL. NULL when out of memory. */
char *fleet__cut_dup(const char *s, size_t max);
/* h's detail (fleet_detail__free it). 0, -EIO (the spool could not be read), -ENOMEM. */
int fleet__detail(const struct fleet *f, const struct fleet_host *h, struct fleet_detail *d);
void fleet_detail__free(struct fleet_detail *d);
/* h's value of metric key into *v: 0, or -ENOENT when it has none. */
int fleet__value(const struct fleet_host *h, size_t key, double *v);
/* "check\x1fmetric": its two halves. */
void fleet__key_split(const char *key, const char **check, size_t *check_len, const char **metric);
/* "2-4 us", "0.512-1.02 ms", "1.05-2.1 s": the range of bucket i. */
void fleet__bucket_name(size_t i, char *buf, size_t len);

#endif
