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
	int pid;       /* 0: empty */
	uint8_t same;  /* saturates at 255 */
	uint32_t pass; /* the round (+1) a task source last gave this pid */
	struct task_sample *last; /* what the task source gave last, as written */
};

struct cg_state;
struct sock_state;
struct holders;
struct threads_state;

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
	const struct task_source *tasks; /* pids: where processes come from, NULL: /proc */
	char tasks_why[256];    /* pids: why /proc is read ("" while the source serves) */
	uint64_t tasks_missed;  /* pids: most processes in one round /proc listed and the source not */
	char cmdlines_why[256]; /* pids: why the first round read /proc/PID/cmdline ("" if not) */
	uint64_t cmdlines_src;  /* pids: command lines from the source's pass */
	int missed[64];         /* pids: those of the last listing, read from /proc in the rounds between */
	size_t nmissed;
	struct strbuf line;     /* pids: the record being composed */
	struct cg_state *cg;    /* proc.cgroups: the hierarchies and the cgroups kept */
	struct sock_state *sk;  /* net.sockets: listeners followed, destinations */
	struct holders *hold;   /* proc.pids: per-process levels at first sight, suspects */
	/* proc.pids read from /proc: the processes whose stat changed this round (proc.threads) */
	int active[256];
	size_t nactive;
	struct threads_state *th;        /* proc.threads */
	struct collector_state *pids;    /* proc.threads: proc.pids of the same window */
	double interval_s;               /* the window's sampling interval */
	/*
	 * proc.pids with a task source: the CPU time its last middle round took
	 * (proc.threads adds its own), whether this round's pass was skipped
	 * (proc.threads skips it too), and how many were (tasks_rounds_skipped).
	 */
	int64_t round_cpu_ns;
	int skipped, skipped_last;
	uint32_t nskipped;
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
 * Around a call that may block other than a read (a netlink dump, a stat that follows a
 * process's open file): the window's watchdog may give up the round meanwhile (what is
 * named in its report). Nothing of the captures may be touched in between.
 */
void reader__blocking_begin(struct reader *rd, const char *what);
void reader__blocking_end(struct reader *rd);
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

/* ---- netlink.c: dumps of the kernel's tables (sock_diag, rtnetlink) ---- */

struct nlmsghdr;
/* One message of a dump; non-zero stops the dump. */
typedef int (*netlink_fn)(const struct nlmsghdr *h, void *arg);
/*
 * Send req (its nlmsg_type, length and payload set; flags and seq are set here) on a new
 * NETLINK_<proto> socket and call fn for each message of the answer. 0, -E2BIG when the
 * dump had more than max_msgs messages (the first max_msgs were handled), -EOPNOTSUPP on
 * a made-up root, or -errno (the kernel's error for the request included).
 */
int netlink__dump(struct reader *rd, int proto, struct nlmsghdr *req, size_t max_msgs,
		  netlink_fn fn, void *arg);

/* ---- pids.c ---- */

int pids__probe(const char *root, char *why, size_t whylen);
int pids__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		 int phase);
void pids__fini(struct collector_state *cs);
/*
 * Whether a round skips its pass over the processes: a middle round (not
 * PHASE_FIRST or PHASE_LAST) after one that was not skipped, when the last
 * middle round's pass cost more than 1% of one CPU over interval_s.
 */
int pids__skip_policy(int64_t last_cost_ns, double interval_s, int skipped_last, int phase);

/*
 * ---- holders.c: what proc.pids keeps for the trends of finite resources ----
 * Called by pids.c: each process's stat and io when read at first sight or in the last
 * round (first, last), its fd count every round its stat is read (changed: the stat
 * differed from its last read), or, where a task source serves, its sample at first sight
 * and in the last round (the per-round fd counts are in its sonde:task records); after
 * each round,
 * holders__round writes "sonde:fds" and, in the last round, the suspects' open files
 * ("sonde:files").
 */
void holders__stat(struct collector_state *cs, int pid, const char *data, size_t len, int first,
		   int last);
void holders__io(struct collector_state *cs, int pid, const char *data, size_t len, int first,
		 int last);
void holders__fds(struct collector_state *cs, struct reader *rd, int pid, int first, int last,
		  int changed);
/* The same from a task source's sample (it carries CPU time, I/O and the fd count): no read. */
void holders__task(struct collector_state *cs, const struct task_sample *t, int first, int last);
/* Room for n processes at once (a task source's first pass says how many). */
void holders__reserve(struct collector_state *cs, size_t n);
void holders__round(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
void holders__free(struct collector_state *cs);

/* ---- threads.c: proc.threads ---- */

int threads__probe(const char *root, char *why, size_t whylen);
int threads__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
void threads__fini(struct collector_state *cs);
/* Stop the sampler's thread (the window ended, maybe with an abandoned round). */
void threads__stop(struct collector_state *cs);
/* The run facts of proc.threads: where the threads came from, the sampler's rate and cost. */
void threads__facts(const struct collector_state *cs, struct strbuf *b);

/* ---- cgroups.c ---- */

int cgroups__probe(const char *root, char *why, size_t whylen);
int cgroups__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
void cgroups__fini(struct collector_state *cs);

/* ---- observer.c: where sonde itself runs (run facts: PID and cgroup namespaces, caps) ---- */

void observer__facts(const char *root, struct strbuf *b);

/* ---- containers.c: who the containers of the kept cgroups are ---- */

/*
 * The record "sonde:containers" of the kept cgroups (dirs: mount point + path, rels: the
 * same relative to their hierarchy, each once): the containers their paths name and the
 * runtimes' state of the host, fields only (docs/capture-format.md).
 */
void containers__record(struct reader *rd, struct capture_writer *w, const struct strv *dirs,
			const struct strv *rels);

/* ---- mounts.c ---- */

int mounts__probe(const char *root, char *why, size_t whylen);
int mounts__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		   int phase);

/* ---- sockets.c: net.sockets ---- */

int sockets__probe(const char *root, char *why, size_t whylen);
int sockets__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
void sockets__fini(struct collector_state *cs);

/* ---- links.c: net.links ---- */

int links__probe(const char *root, char *why, size_t whylen);
int links__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		  int phase);

/* ---- hostctx.c: host.context, the host's configuration, once per window ---- */

int hostctx__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase);
/*
 * Run argv[0] (found in PATH) with argv, no input, its stderr discarded, and
 * read its output into out (at most max_bytes; *truncated past them) within
 * timeout_ms, the reader's lock released meanwhile (the watchdog's round
 * goes on). 0, or the errno its failure is recorded with: ENOENT not in PATH,
 * ETIMEDOUT killed at the deadline, EPROTO it exited non-zero.
 */
int hostctx__spawn_read(struct reader *rd, char *const argv[], int timeout_ms, size_t max_bytes,
			struct strbuf *out, int *truncated);

/* ---- hostctx_pkgs.c: the installed packages, once after the window ---- */

void hostctx__packages(struct collector_state *cs, struct reader *rd, struct capture_writer *w);

/* ---- kmsg.c ---- */

int kmsg__probe(const char *root, char *why, size_t whylen);
int kmsg__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		 int phase);

#endif
