/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the collectors share, private to core/collect: the state of one
 * collector during a window, the reader's helpers for composed records and
 * directory listings, and each collector's entry points for the table
 * (collectors.c).
 */
#ifndef SONDE_COLLECTORS_H
#define SONDE_COLLECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* pids: how many reads in a row a process's stat came back unchanged */
struct idle_slot {
	int pid;      /* 0: empty */
	uint8_t same; /* saturates at 255 */
};

struct cg_state;

struct collector_state {
	const struct collector *c;
	struct capture_writer w;
	const char *root;
	struct strv names;      /* disks, interfaces */
	struct strv ctrls;      /* diskstats, netdev: PCI functions that control them */
	uint8_t *seen;          /* pids: bitmap of pids already given their first-sight reads */
	size_t seen_bytes;
	struct idle_slot *idle; /* pids: open addressing on the pid */
	size_t idle_cap, idle_n;
	uint64_t nproc;         /* pids: processes in the last round */
	struct cg_state *cg;    /* proc.cgroups: the hierarchies and the cgroups kept */
};

/* ---- reader.c ---- */

/* Record a text we composed ourselves (directory listings, run facts, statfs). */
void reader__tee_text(struct reader *rd, struct capture_writer *w, const char *path,
		      const char *text, size_t len);
/*
 * Entries of root+dir into out (appended), without dot entries or names with
 * a newline, sorted. 0, -errno when dir cannot be opened, or -ENOMEM with
 * the entries listed so far.
 */
int reader__list_dir(const struct reader *rd, const char *dir, struct strv *out);
/*
 * Append to a composed record; bounded like a read: an append that would take
 * the text past READ_CAP is dropped (the record is cut, not the window).
 */
void record__printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- collectors.c ---- */

/* 0 when root+path is readable, else -errno and "what: path: reason" in why. */
int collector__probe_path(const char *root, const char *path, const char *what, char *why,
			  size_t whylen);

/* ---- controllers.c: the PCI, platform or bus devices behind disks and interfaces ---- */

/*
 * The record `rec` of the controller of each device of cs->names under dir
 * (/sys/block or /sys/class/net; block: a disk), and each PCI controller's
 * link speed and width; the PCI controllers are kept in cs->ctrls.
 */
void controllers__record(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 const char *dir, const char *rec, int block);
/* The PCIe AER counters of every controller in cs->ctrls. */
void controllers__aer(struct collector_state *cs, struct reader *rd, struct capture_writer *w);

/* ---- pids.c ---- */

int pids__probe(const char *root, char *why, size_t whylen);
int pids__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		 int phase);
void pids__fini(struct collector_state *cs);

/* ---- cgroups.c ---- */

int cgroups__probe(const char *root, char *why, size_t whylen);
int cgroups__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
void cgroups__fini(struct collector_state *cs);

/* ---- mounts.c ---- */

int mounts__probe(const char *root, char *why, size_t whylen);
int mounts__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		   int phase);

/* ---- hostctx.c: host.context, the host's configuration, once per window ---- */

int hostctx__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);

/* ---- kmsg.c ---- */

int kmsg__probe(const char *root, char *why, size_t whylen);
int kmsg__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		 int phase);

#endif
