/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU counters through perf_event_open: system-wide, one set of counters per
 * online CPU, enabled just before the observation window and read once at
 * its end (collector "perf.counters"). Hardware events are opened in groups so
 * that ratios (IPC, miss ratios) come from counters that ran at the same
 * time; multiplexing is undone by scaling with time enabled/running, and the
 * ratio running/enabled is kept per event so a reader can judge it.
 * The result is raw/perf/counters.json (docs/perf-counters.md); an event the
 * host cannot count is recorded with the errno and why, never as a zero.
 * Nothing here changes a global setting (perf_event_paranoid is only read).
 */
#ifndef SONDE_PERF_H
#define SONDE_PERF_H

#include <stddef.h>
#include <stdint.h>

#define PERF_COLLECTOR "perf.counters"
#define PERF_MAX_CPUS 1024   /* fds are CPUs x events: bounded */

/* The events, in the order of the JSON (static table in perf.c). */
struct perf_event_spec {
	const char *name;   /* perf's name: "cycles", "context-switches" */
	uint32_t type;      /* PERF_TYPE_* */
	uint64_t config;
	int group;          /* 0: counted alone (software); n > 0: hardware group n */
	const char *unit;   /* "count" or "ns" */
};

extern const struct perf_event_spec perf_event_specs[];
extern const size_t perf_nevents;

struct perf_counters {
	int wanted;               /* a selected check collects perf.counters */
	const char *disabled;     /* non-NULL: --no-perf, this is why */
	char raw_dir[4096];
	int paranoid;             /* /proc/sys/kernel/perf_event_paranoid, INT32_MIN unknown */
	int ncpus;
	int *cpus;                /* online CPU numbers */
	int *fd;                  /* [cpu index * perf_nevents + event], -1 not open */
	uint64_t *id;             /* kernel ids, to find a member in a group read */
	int *err;                 /* errno of a failed open, 0 when open */
	int64_t enabled_mono_ns;
	double setup_ms;
	char general[512];        /* why nothing could start (online CPUs unreadable, ...) */
};

/*
 * Open and enable the counters when names asks for them, and make raw_dir/perf.
 * An event that cannot be opened is recorded with its errno; the others go on.
 * Returns 0, or -errno only when raw_dir/perf cannot be made.
 */
int perf_counters__start(struct perf_counters *pc, const char *const *names, const char *raw_dir,
			 const char *disabled, char *err, size_t errlen);
/*
 * After the window: read every counter and write raw/perf/counters.json, then
 * close them. 0 or -errno with err (a write error).
 */
int perf_counters__finish(struct perf_counters *pc, int64_t window_start_mono_ns,
			  int64_t window_end_mono_ns, char *err, size_t errlen);
/* Close everything without writing (an abort). Safe to call twice. */
void perf_counters__destroy(struct perf_counters *pc);

/*
 * For `sonde list`: can this host count software and hardware events
 * system-wide? 0 when both work; else -errno with why (which part fails and
 * why); *sw_ok tells whether the software counters at least work.
 */
int perf_counters__probe(int *sw_ok, char *why, size_t whylen);

#endif
