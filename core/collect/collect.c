// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observation window and the /proc and /sys collectors.
 *
 * Every collector reads through the reader, which records each read (or its
 * failure) verbatim with the sample round and both clocks. Collectors never
 * interpret what they read beyond what they need to decide what to read next
 * (which pids exist, which disks and interfaces there are).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "util/parse.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "dev"
#endif

/* ---- reader ---- */

static int reader__grow(struct reader *rd, size_t want)
{
	char *nb;

	if (want <= rd->cap)
		return 0;
	nb = realloc(rd->buf, want);
	if (!nb)
		return -ENOMEM;
	rd->buf = nb;
	rd->cap = want;
	return 0;
}

int reader__read(struct reader *rd, const char *path, size_t cap, const char **data, size_t *len,
		 int *truncated)
{
	char full[4096];
	size_t got = 0;
	int fd, err = 0;

	if (snprintf(full, sizeof(full), "%s%s", rd->root, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	if (rd->lock) {
		snprintf(rd->current, sizeof(rd->current), "%s", path);
		pthread_mutex_unlock(rd->lock);
	}
	/* O_NONBLOCK: a FIFO planted where a /proc file is expected must not hang the window. */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		rd->read_errors++;
		if (rd->lock)
			pthread_mutex_lock(rd->lock);
		return err;
	}
	*truncated = 0;
	if (reader__grow(rd, rd->cap ? rd->cap : 16384)) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		ssize_t n;
		size_t want;

		if (got == rd->cap) {
			if (rd->cap >= cap) {
				char probe;

				/* One more byte tells a file of exactly cap bytes from a longer one. */
				*truncated = read(fd, &probe, 1) > 0;
				break;
			}
			if (reader__grow(rd, rd->cap * 2 > cap ? cap : rd->cap * 2)) {
				err = -ENOMEM;
				goto cleanup;
			}
		}
		want = (cap < rd->cap ? cap : rd->cap) - got;
		n = read(fd, rd->buf + got, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* A process that exits mid-read makes its files return ESRCH: ordinary. */
			err = -errno;
			rd->read_errors++;
			goto cleanup;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		/*
		 * seq_file (all of /proc we read) and sysfs fill the buffer until the end
		 * of the file, so a short read is the end: asking again to see 0 would
		 * cost one more syscall per file, 16,000 a run with 1,000 processes.
		 */
		if ((size_t)n < want)
			break;
		if (got >= cap) {
			char probe;

			*truncated = read(fd, &probe, 1) > 0;
			break;
		}
	}
	*data = rd->buf;
	*len = got;
	rd->reads++;
	rd->read_bytes += got;
cleanup:
	close(fd);
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	return err;
}

int reader__tee(struct reader *rd, struct capture_writer *w, const char *path, const char **data,
		size_t *len)
{
	int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);
	const char *d = NULL;
	size_t l = 0;
	int trunc = 0, err;

	err = reader__read(rd, path, READ_CAP, &d, &l, &trunc);
	if (err)
		capture_writer__error(w, rd->seq, wall, mono, path, err);
	else
		capture_writer__record(w, rd->seq, wall, mono, path, d, l, trunc);
	if (data)
		*data = d;
	if (len)
		*len = l;
	return err;
}

void reader__free(struct reader *rd)
{
	free(rd->buf);
	rd->buf = NULL;
	rd->cap = 0;
}

/* Record a text we composed ourselves (directory listings, run facts). */
static void tee_text(struct reader *rd, struct capture_writer *w, const char *path, const char *text,
		     size_t len)
{
	capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
			       path, text, len, 0);
}

/* ---- collector state ---- */

struct name_list {
	char **v;
	size_t n;
};

static void name_list__free(struct name_list *nl)
{
	for (size_t i = 0; i < nl->n; i++)
		free(nl->v[i]);
	free(nl->v);
	nl->v = NULL;
	nl->n = 0;
}

/* Entries of root+dir, without dot entries, sorted; hidden names skipped. */
static int name_list__read_dir(struct name_list *nl, const char *root, const char *dir)
{
	char full[4096];
	struct dirent *de;
	DIR *d;

	snprintf(full, sizeof(full), "%s%s", root, dir);
	d = opendir(full);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || strchr(de->d_name, '\n'))
			continue;
		nv = realloc(nl->v, (nl->n + 1) * sizeof(*nv));
		if (!nv)
			break;
		nl->v = nv;
		nl->v[nl->n] = strdup(de->d_name);
		if (nl->v[nl->n])
			nl->n++;
	}
	closedir(d);
	for (size_t i = 1; i < nl->n; i++)
		for (size_t j = i; j > 0 && strcmp(nl->v[j - 1], nl->v[j]) > 0; j--) {
			char *t = nl->v[j];

			nl->v[j] = nl->v[j - 1];
			nl->v[j - 1] = t;
		}
	return 0;
}

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
	struct name_list names; /* disks, interfaces */
	struct name_list ctrls; /* diskstats, netdev: PCI functions that control them */
	uint8_t *seen;          /* pids: bitmap of pids already given their first-sight reads */
	size_t seen_bytes;
	struct idle_slot *idle; /* pids: open addressing on the pid */
	size_t idle_cap, idle_n;
	uint64_t nproc;         /* pids: processes in the last round */
	struct cg_state *cg;    /* proc.cgroups: the hierarchies and the cgroups kept */
};

static int probe_path(const char *root, const char *path, const char *what, char *why,
		      size_t whylen)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (access(full, R_OK) == 0)
		return 0;
	snprintf(why, whylen, "%s: %s: %s", what, path, strerror(errno));
	return -errno;
}

static int tee_each(struct reader *rd, struct capture_writer *w, const char *const *paths)
{
	for (; *paths; paths++)
		reader__tee(rd, w, *paths, NULL, NULL);
	return 0;
}

/* ---- host facts (always) ---- */

static int host_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		       int phase)
{
	static const char *const first[] = {
		"/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease",
		"/proc/sys/kernel/version", "/proc/cpuinfo", "/sys/devices/system/cpu/online",
		"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
		"/sys/hypervisor/type", "/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max",
		"/proc/sys/fs/nr_open", NULL,
	};

	if (phase & PHASE_FIRST)
		tee_each(rd, w, first);
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/uptime", NULL, NULL);
	return 0;
}

/* ---- simple every-round files ---- */

#define EVERY_ROUND(fn, ...)                                                                   \
	static int fn(struct collector_state *cs, struct reader *rd, struct capture_writer *w,  \
		      int phase)                                                                \
	{                                                                                       \
		static const char *const paths[] = { __VA_ARGS__, NULL };                       \
		return tee_each(rd, w, paths);                                                  \
	}

EVERY_ROUND(stat_sample, "/proc/stat")
EVERY_ROUND(loadavg_sample, "/proc/loadavg")
EVERY_ROUND(meminfo_sample, "/proc/meminfo")
EVERY_ROUND(vmstat_sample, "/proc/vmstat")
EVERY_ROUND(pressure_sample, "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io")
EVERY_ROUND(snmp_sample, "/proc/net/snmp", "/proc/net/netstat")

static int filenr_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 int phase)
{
	reader__tee(rd, w, "/proc/sys/fs/file-nr", NULL, NULL);
	return 0;
}

static int interrupts_sample(struct collector_state *cs, struct reader *rd,
			     struct capture_writer *w, int phase)
{
	/* Only the ends of the window: the counts are cumulative and the file is large. */
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/interrupts", NULL, NULL);
	return 0;
}

#define PROBE(fn, path, what)                                                                  \
	static int fn(const char *root, char *why, size_t whylen)                               \
	{                                                                                       \
		return probe_path(root, path, what, why, whylen);                               \
	}

PROBE(stat_probe, "/proc/stat", "no CPU statistics")
PROBE(loadavg_probe, "/proc/loadavg", "no load average")
PROBE(meminfo_probe, "/proc/meminfo", "no memory statistics")
PROBE(vmstat_probe, "/proc/vmstat", "no VM statistics")
PROBE(pressure_probe, "/proc/pressure/cpu",
      "no pressure stall information (kernel without CONFIG_PSI, or booted with psi=0)")
PROBE(snmp_probe, "/proc/net/snmp", "no network protocol statistics")
PROBE(filenr_probe, "/proc/sys/fs/file-nr", "no file table statistics")
PROBE(interrupts_probe, "/proc/interrupts", "no interrupt statistics")
PROBE(diskstats_probe, "/proc/diskstats", "no disk statistics")
PROBE(netdev_probe, "/proc/net/dev", "no network interface statistics")
PROBE(pids_probe, "/proc/self/stat", "no per-process statistics")

/* ---- disks ---- */

static void controllers__record(struct collector_state *cs, struct reader *rd,
				struct capture_writer *w, const char *dir, const char *rec,
				int block);
static void controllers__aer(struct collector_state *cs, struct reader *rd,
			     struct capture_writer *w);

static int diskstats_sample(struct collector_state *cs, struct reader *rd,
			    struct capture_writer *w, int phase)
{
	static const char *const queue_files[] = { "queue/rotational", "queue/nr_requests",
						   "queue/logical_block_size", "queue/scheduler",
						   "queue/max_sectors_kb", "size", NULL };
	char path[512];

	if (phase & PHASE_FIRST) {
		name_list__free(&cs->names);
		name_list__read_dir(&cs->names, cs->root, "/sys/block");
		/* The listing itself is evidence: which disks existed. */
		size_t tl = 0;
		for (size_t i = 0; i < cs->names.n; i++)
			tl += strlen(cs->names.v[i]) + 1;
		char *txt = malloc(tl + 1), *p = txt;
		if (txt) {
			for (size_t i = 0; i < cs->names.n; i++)
				p += sprintf(p, "%s\n", cs->names.v[i]);
			tee_text(rd, w, "/sys/block", txt, (size_t)(p - txt));
			free(txt);
		}
		for (size_t i = 0; i < cs->names.n; i++)
			for (const char *const *q = queue_files; *q; q++) {
				snprintf(path, sizeof(path), "/sys/block/%s/%s", cs->names.v[i], *q);
				reader__tee(rd, w, path, NULL, NULL);
			}
		controllers__record(cs, rd, w, "/sys/block", "sonde:disk-controllers", 1);
	}
	if (phase & (PHASE_FIRST | PHASE_LAST))
		controllers__aer(cs, rd, w);
	reader__tee(rd, w, "/proc/diskstats", NULL, NULL);
	for (size_t i = 0; i < cs->names.n; i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/inflight", cs->names.v[i]);
		reader__tee(rd, w, path, NULL, NULL);
		if (phase & (PHASE_FIRST | PHASE_LAST)) {
			/* SCSI disks count I/O errors here; most others expose none. */
			snprintf(path, sizeof(path), "/sys/block/%s/device/ioerr_cnt",
				 cs->names.v[i]);
			reader__tee(rd, w, path, NULL, NULL);
		}
	}
	return 0;
}

/* ---- network interfaces ---- */

static int netdev_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 int phase)
{
	static const char *const files[] = { "speed", "operstate", "mtu", "duplex", "type", NULL };
	char path[512];

	if (phase & PHASE_FIRST) {
		name_list__free(&cs->names);
		name_list__read_dir(&cs->names, cs->root, "/sys/class/net");
		for (size_t i = 0; i < cs->names.n; i++)
			for (const char *const *q = files; *q; q++) {
				snprintf(path, sizeof(path), "/sys/class/net/%s/%s",
					 cs->names.v[i], *q);
				reader__tee(rd, w, path, NULL, NULL);
			}
		controllers__record(cs, rd, w, "/sys/class/net", "sonde:net-controllers", 0);
	}
	if (phase & (PHASE_FIRST | PHASE_LAST))
		controllers__aer(cs, rd, w);
	reader__tee(rd, w, "/proc/net/dev", NULL, NULL);
	return 0;
}

/* ---- processes ---- */

static int pid_of(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return (int)v;
}

static int seen__test_and_set(struct collector_state *cs, int pid)
{
	size_t byte = (size_t)pid / 8;
	int was;

	if (byte >= cs->seen_bytes) {
		size_t nb = byte * 2 + 64;
		uint8_t *n = realloc(cs->seen, nb);

		if (!n)
			return 1; /* no memory: behave as "seen" (skip first-sight extras) */
		memset(n + cs->seen_bytes, 0, nb - cs->seen_bytes);
		cs->seen = n;
		cs->seen_bytes = nb;
	}
	was = cs->seen[byte] & (1u << (pid % 8));
	cs->seen[byte] |= (uint8_t)(1u << (pid % 8));
	return was != 0;
}

/* The idle counter of pid (created at 0); NULL when the table cannot grow. */
static struct idle_slot *idle__slot(struct collector_state *cs, int pid)
{
	size_t i;

	if ((cs->idle_n + 1) * 2 > cs->idle_cap) {
		size_t ncap = cs->idle_cap ? cs->idle_cap * 2 : 2048;
		struct idle_slot *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < cs->idle_cap; k++) {
			if (!cs->idle[k].pid)
				continue;
			for (i = ((uint32_t)cs->idle[k].pid * 2654435761u) & (ncap - 1); n[i].pid;
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = cs->idle[k];
		}
		free(cs->idle);
		cs->idle = n;
		cs->idle_cap = ncap;
	}
	for (i = ((uint32_t)pid * 2654435761u) & (cs->idle_cap - 1); cs->idle[i].pid;
	     i = (i + 1) & (cs->idle_cap - 1))
		if (cs->idle[i].pid == pid)
			return &cs->idle[i];
	cs->idle[i].pid = pid;
	cs->idle[i].same = 0;
	cs->idle_n++;
	return &cs->idle[i];
}

/* The fd table as a listing of fd numbers: the count is what checks use. Returns the count. */
static long tee_fd_listing(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			   int pid)
{
	long count = 0;
	char dir[64], full[4200];
	struct dirent *de;
	struct strlist {
		char *p;
		size_t len, cap;
	} s = { 0 };
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	snprintf(full, sizeof(full), "%s%s", cs->root, dir);
	d = opendir(full);
	if (!d) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), dir, errno);
		return -1;
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (s.len + nl + 2 > s.cap) {
			size_t nc = (s.cap + nl + 2) * 2;
			char *np;

			if (nc > READ_CAP)
				break; /* bounded; a table this large is still "huge" in the count */
			np = realloc(s.p, nc);
			if (!np)
				break;
			s.p = np;
			s.cap = nc;
		}
		memcpy(s.p + s.len, de->d_name, nl);
		s.len += nl;
		s.p[s.len++] = '\n';
		count++;
	}
	closedir(d);
	tee_text(rd, w, dir, s.p ? s.p : "", s.len);
	free(s.p);
	return count;
}

/* Below this many open fds a process is far from any RLIMIT_NOFILE worth the name. */
#define LIMITS_MIN_FDS 16
/* An idle process's stat is read in one round of this many. */
#define IDLE_EVERY 5

static int pids_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		       int phase)
{
	char full[4096], path[64];
	struct dirent *de;
	DIR *d;

	snprintf(full, sizeof(full), "%s/proc", cs->root);
	d = opendir(full);
	if (!d)
		return -errno;
	cs->nproc = 0;
	while ((de = readdir(d))) {
		int pid = pid_of(de->d_name), first;
		struct idle_slot *idle;

		if (pid <= 0)
			continue;
		cs->nproc++;
		first = !seen__test_and_set(cs, pid);
		idle = first ? NULL : idle__slot(cs, pid);
		/*
		 * A process whose stat came back unchanged twice in a row is idle: its
		 * cumulative counters are exact at the next read whenever that is, so it
		 * is read every IDLE_EVERY rounds (and in the first and last rounds).
		 * With 1,000 sleeping processes this is two thirds of all reads.
		 */
		if (idle && idle->same >= 2 && !(phase & (PHASE_FIRST | PHASE_LAST)) &&
		    rd->seq % IDLE_EVERY)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		/* Gone between readdir and open: it exited, nothing to keep. */
		if (reader__tee(rd, w, path, NULL, NULL) == -ENOENT) {
			cs->nproc--;
			continue;
		}
		if (!idle)
			idle = idle__slot(cs, pid);
		if (idle)
			idle->same = w->last_repeat ? (idle->same < 255 ? idle->same + 1 : 255) : 0;
		if (first || (phase & PHASE_LAST)) {
			int sched_err;

			/* 30 bytes: CPU time, run-queue wait and times scheduled, at both ends. */
			snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
			sched_err = reader__tee(rd, w, path, NULL, NULL);
			/*
			 * status (uid, threads, RSS, switch counts) is the costliest file
			 * per process: at the end for all, at first sight only for a
			 * process born in the window (its only one if it dies) or where
			 * schedstat is missing and status must give the switch baseline.
			 */
			if ((phase & PHASE_LAST) || rd->seq > 0 || sched_err) {
				snprintf(path, sizeof(path), "/proc/%d/status", pid);
				reader__tee(rd, w, path, NULL, NULL);
			}
			snprintf(path, sizeof(path), "/proc/%d/io", pid);
			reader__tee(rd, w, path, NULL, NULL);
		}
		if (first) {
			const char *data;
			size_t len;
			int trunc;
			int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);

			snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
			if (!reader__read(rd, path, CMDLINE_CAP, &data, &len, &trunc))
				capture_writer__record(w, rd->seq, wall, mono, path, data, len,
						       trunc);
		}
		if (phase & PHASE_LAST) {
			long nfds = tee_fd_listing(cs, rd, w, pid);

			/*
			 * RLIMIT_NOFILE matters only to a process that holds enough fds to
			 * approach it; reading limits for every process was 15% of the
			 * capture with 1,000 processes.
			 */
			if (nfds < 0 || nfds >= LIMITS_MIN_FDS) {
				snprintf(path, sizeof(path), "/proc/%d/limits", pid);
				reader__tee(rd, w, path, NULL, NULL);
			}
		}
	}
	closedir(d);
	return 0;
}

/* ---- kernel log: OOM and I/O error records only ---- */

static int contains_ci(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;

		while (j < k && (s[i + j] | 0x20) == (needle[j] | 0x20))
			j++;
		if (j == k)
			return 1;
	}
	return 0;
}

/* Only what the checks need (OOM kills, I/O, swap and file system errors): the rest of the log stays private. */
static int kept_line(const char *s, size_t n)
{
	return contains_ci(s, n, "out of memory") || contains_ci(s, n, "oom-kill") ||
	       contains_ci(s, n, "invoked oom-killer") || contains_ci(s, n, "killed process") ||
	       contains_ci(s, n, "oom_reaper") || contains_ci(s, n, "i/o error") ||
	       contains_ci(s, n, "blk_update_request") || contains_ci(s, n, "medium error") ||
	       contains_ci(s, n, "error on swap-device") || contains_ci(s, n, "fs error") ||
	       contains_ci(s, n, "remounting filesystem read-only");
}

#define KMSG_CAP (64u << 10)

static int kmsg_probe(const char *root, char *why, size_t whylen)
{
	return probe_path(root, "/dev/kmsg", "no kernel log", why, whylen);
}

static int kmsg_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		       int phase)
{
	char full[4096], rec[8192];
	struct stat sb;
	char *keep = NULL;
	size_t kl = 0;
	int fd, truncated = 0;
	int64_t wall, mono;

	if (!(phase & PHASE_LAST))
		return 0;
	wall = clock__ns(CLOCK_REALTIME);
	mono = clock__ns(CLOCK_MONOTONIC);
	snprintf(full, sizeof(full), "%s/dev/kmsg", cs->root);
	fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		capture_writer__error(w, rd->seq, wall, mono, "/dev/kmsg", errno);
		return 0;
	}
	keep = malloc(KMSG_CAP);
	if (!keep)
		goto cleanup;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* A capture tree standing in for /: one record per line. */
		FILE *f = fdopen(fd, "r");

		fd = -1;
		while (f && fgets(rec, sizeof(rec), f)) {
			size_t n = strlen(rec);

			if (!kept_line(rec, n))
				continue;
			if (kl + n > KMSG_CAP) {
				truncated = 1;
				break;
			}
			memcpy(keep + kl, rec, n);
			kl += n;
		}
		if (f)
			fclose(f);
	} else {
		/* /dev/kmsg: each read() returns one record; EPIPE means records were overwritten. */
		for (;;) {
			ssize_t n = read(fd, rec, sizeof(rec) - 1);

			if (n < 0 && (errno == EPIPE || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			if (!kept_line(rec, (size_t)n))
				continue;
			if (kl + (size_t)n + 1 > KMSG_CAP) {
				truncated = 1;
				continue;
			}
			memcpy(keep + kl, rec, (size_t)n);
			kl += (size_t)n;
			if (rec[n - 1] != '\n')
				keep[kl++] = '\n';
		}
	}
	capture_writer__record(w, rd->seq, wall, mono, "/dev/kmsg", keep, kl, truncated);
cleanup:
	free(keep);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* ---- resource controls: cgroups (v1 and v2) ---- */

/*
 * Which cgroups and files: the hierarchies are found in /proc/self/mountinfo
 * (cgroup2 anywhere; v1 only the cpu, cpuacct, memory and pids controllers,
 * which are the ones with USE counters). Each hierarchy is walked once, at the
 * first round, at most CG_MAX_DEPTH levels below its mount point and
 * CG_MAX_WALK directories in all; a cgroup is kept (its files read for the
 * window) when it or one of its descendants holds a process, so the dozens
 * of empty slices a systemd host carries cost one cgroup.procs read each. The
 * root cgroup of a hierarchy is the host itself (the host-wide checks cover
 * it) and is never kept. Cgroups created during the window are not seen.
 */
#define CG_MAX_DEPTH 4
#define CG_MAX_WALK 2048 /* directories looked at, over all hierarchies */
#define CG_MAX_KEPT 512  /* cgroups whose files are read every window */
#define CG_MAX_HIER 8

enum {
	CG_CPU = 1, CG_CPUACCT = 2, CG_MEMORY = 4, CG_PIDS = 8,
};

struct cg_hier {
	char mnt[256];
	int v2;
	unsigned ctrl;   /* v1: the controllers of this hierarchy */
	int truncated;   /* the walk hit a bound */
};

struct cg_node {
	char *dir;       /* mount point + relative path, as read (without the root) */
	int hier, parent, depth;
	int busy;        /* it or a descendant has a process */
	unsigned ctrl;   /* v2: from its cgroup.controllers */
};

struct cg_state {
	struct cg_hier h[CG_MAX_HIER];
	int nh;
	struct cg_node *node; /* the walk; kept ones have busy set */
	int nnode;
};

static unsigned cg_ctrl_bits(const char *s, size_t n, const char *sep)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = { { "cpu", CG_CPU }, { "cpuacct", CG_CPUACCT }, { "memory", CG_MEMORY },
		      { "pids", CG_PIDS } };
	unsigned bits = 0;

	while (n) {
		size_t k = 0, tok;

		while (k < n && !strchr(sep, s[k]))
			k++;
		tok = k;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == tok && !memcmp(names[i].name, s, tok))
				bits |= names[i].bit;
		if (k < n)
			k++;
		s += k;
		n -= k;
	}
	return bits;
}

/* The cgroup mounts of mountinfo: 0 and nh hierarchies, or -errno. */
static int cg_find_hierarchies(const char *root, struct cg_hier *h, int *nh)
{
	char full[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	*nh = 0;
	snprintf(full, sizeof(full), "%s/proc/self/mountinfo", root);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0 && *nh < CG_MAX_HIER) {
		char mnt[256], fstype[32], opts[512];
		const char *dash = strstr(line, " - ");
		unsigned bits = 0;
		int v2, dup = 0;

		/* id parent major:minor root mountpoint options ... - fstype source superoptions */
		if (!dash || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
		    sscanf(dash + 3, "%31s %*s %511s", fstype, opts) != 2)
			continue;
		if (strchr(mnt, '\\'))
			continue; /* an escaped (space-holding) mount point: not a standard one */
		v2 = !strcmp(fstype, "cgroup2");
		if (!v2) {
			if (strcmp(fstype, "cgroup"))
				continue;
			bits = cg_ctrl_bits(opts, strlen(opts), ",");
			if (!bits)
				continue; /* name=systemd, freezer, devices...: no USE counters */
		}
		/* A hierarchy mounted twice (bind mounts): the first mount stands for it. */
		for (int i = 0; i < *nh; i++)
			if (h[i].v2 == v2 && h[i].ctrl == bits)
				dup = 1;
		if (dup)
			continue;
		snprintf(h[*nh].mnt, sizeof(h[*nh].mnt), "%s", mnt);
		h[*nh].v2 = v2;
		h[*nh].ctrl = bits;
		h[*nh].truncated = 0;
		(*nh)++;
	}
	free(line);
	fclose(f);
	return 0;
}

static int cgroups_probe(const char *root, char *why, size_t whylen)
{
	struct cg_hier h[CG_MAX_HIER];
	int nh, err = cg_find_hierarchies(root, h, &nh);

	if (err) {
		snprintf(why, whylen, "no cgroup information: /proc/self/mountinfo: %s",
			 strerror(-err));
		return err;
	}
	if (!nh) {
		snprintf(why, whylen, "no cgroup hierarchy mounted (neither cgroup2 nor a v1 cpu, "
			 "cpuacct, memory or pids hierarchy in /proc/self/mountinfo)");
		return -ENOENT;
	}
	return 0;
}

static int cg_add(struct cg_state *cg, const char *dir, int hier, int parent, int depth)
{
	struct cg_node *n = realloc(cg->node, (size_t)(cg->nnode + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	cg->node = n;
	n += cg->nnode;
	memset(n, 0, sizeof(*n));
	n->dir = strdup(dir);
	if (!n->dir)
		return -ENOMEM;
	n->hier = hier;
	n->parent = parent;
	n->depth = depth;
	return cg->nnode++;
}

/*
 * Breadth-first walk of one hierarchy: the node list itself is the queue.
 * Each directory below the root gets its cgroup.procs read (recorded: which
 * processes were in it at the start); a non-empty one marks itself and its
 * ancestors busy.
 */
static void cg_walk(struct collector_state *cs, struct cg_state *cg, struct reader *rd,
		    struct capture_writer *w, int hier)
{
	struct cg_hier *h = &cg->h[hier];
	int first = cg->nnode;

	if (cg_add(cg, h->mnt, hier, -1, 0) < 0)
		return;
	for (int i = first; i < cg->nnode; i++) {
		char full[4096], path[4096];
		struct dirent *de;
		DIR *d;

		if (cg->node[i].depth > 0) {
			size_t len = 0;

			snprintf(path, sizeof(path), "%s/cgroup.procs", cg->node[i].dir);
			if (!reader__tee(rd, w, path, NULL, &len) && len > 0)
				for (int p = i; p >= 0 && !cg->node[p].busy; p = cg->node[p].parent)
					cg->node[p].busy = 1;
		}
		if (cg->node[i].depth >= CG_MAX_DEPTH)
			continue;
		snprintf(full, sizeof(full), "%s%s", cs->root, cg->node[i].dir);
		d = opendir(full);
		if (!d)
			continue;
		/* d_type spares a stat of each of the ~30 control files of every cgroup. */
		while ((de = readdir(d))) {
			char kid[4096];
			struct stat sb;

			if (de->d_name[0] == '.' || strchr(de->d_name, '\n'))
				continue;
			if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
				continue;
			snprintf(kid, sizeof(kid), "%s/%s", cg->node[i].dir, de->d_name);
			snprintf(full, sizeof(full), "%s%s", cs->root, kid);
			if (de->d_type == DT_UNKNOWN && (stat(full, &sb) || !S_ISDIR(sb.st_mode)))
				continue;
			if (cg->nnode >= CG_MAX_WALK) {
				h->truncated = 1;
				break;
			}
			if (cg_add(cg, kid, hier, i, cg->node[i].depth + 1) < 0)
				break;
		}
		closedir(d);
	}
}

/* Read one file of a kept cgroup. */
static void cg_tee(struct reader *rd, struct capture_writer *w, const struct cg_node *n,
		   const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", n->dir, file);
	reader__tee(rd, w, path, NULL, NULL);
}

static void cgroups_first(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	struct cg_state *cg = calloc(1, sizeof(*cg));
	char txt[4096];
	size_t tl = 0;
	int kept = 0, err;

	if (!cg)
		return;
	cs->cg = cg;
	err = cg_find_hierarchies(cs->root, cg->h, &cg->nh);
	if (err) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "sonde:cgroups", -err);
		return;
	}
	for (int i = 0; i < cg->nh; i++) {
		const char *data;
		size_t len;

		if (cg->h[i].v2) {
			char path[300];

			/* The controllers the v2 hierarchy offers (its root's list). */
			snprintf(path, sizeof(path), "%s/cgroup.controllers", cg->h[i].mnt);
			if (!reader__tee(rd, w, path, &data, &len))
				cg->h[i].ctrl = cg_ctrl_bits(data, len, " \n");
		}
		cg_walk(cs, cg, rd, w, i);
	}
	/*
	 * The kept cgroups, as one listing per hierarchy (path: the mount point):
	 * these are the cgroups the rest of the stream reads, in walk order. The
	 * "sonde:cgroups" record names the hierarchies: "VERSION MOUNT CONTROLLERS".
	 */
	for (int i = 0; i < cg->nh; i++) {
		size_t ml = strlen(cg->h[i].mnt), cap = 256, l = 0;
		char *list = malloc(cap);
		int trunc = cg->h[i].truncated;

		for (int k = 0; list && k < cg->nnode; k++) {
			const char *rel = cg->node[k].dir + ml;
			size_t rl = strlen(rel);

			if (cg->node[k].hier != i || !cg->node[k].busy || !cg->node[k].depth)
				continue;
			if (kept >= CG_MAX_KEPT) {
				cg->node[k].busy = 0;
				trunc = 1;
				continue;
			}
			kept++;
			if (l + rl + 2 > cap) {
				char *nl = realloc(list, cap = (l + rl + 2) * 2);

				if (!nl)
					break;
				list = nl;
			}
			memcpy(list + l, rel, rl);
			l += rl;
			list[l++] = '\n';
		}
		if (list)
			capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME),
					       clock__ns(CLOCK_MONOTONIC), cg->h[i].mnt, list, l,
					       trunc);
		free(list);
		tl += (size_t)snprintf(txt + tl, sizeof(txt) - tl, "%d %s %s%s%s%s\n",
				       cg->h[i].v2 ? 2 : 1, cg->h[i].mnt,
				       cg->h[i].ctrl & CG_CPU ? "cpu," : "",
				       cg->h[i].ctrl & CG_CPUACCT ? "cpuacct," : "",
				       cg->h[i].ctrl & CG_MEMORY ? "memory," : "",
				       cg->h[i].ctrl & CG_PIDS ? "pids," : "");
		if (tl >= sizeof(txt))
			tl = sizeof(txt) - 1;
	}
	tee_text(rd, w, "sonde:cgroups", txt, tl);
}

static int cgroups_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			  int phase)
{
	struct cg_state *cg;
	int ends = phase & (PHASE_FIRST | PHASE_LAST);

	if (phase & PHASE_FIRST)
		cgroups_first(cs, rd, w);
	cg = cs->cg;
	if (!cg)
		return 0;
	for (int k = 0; k < cg->nnode; k++) {
		const struct cg_node *n = &cg->node[k];
		const struct cg_hier *h = &cg->h[n->hier];
		unsigned ctrl = h->ctrl;

		if (!n->busy || !n->depth)
			continue;
		if (h->v2) {
			/* cpu.stat and the pressure files are in every v2 cgroup; the rest per controller. */
			if (ends) {
				cg_tee(rd, w, n, "cpu.stat");
				cg_tee(rd, w, n, "cpu.pressure");
				cg_tee(rd, w, n, "memory.pressure");
				cg_tee(rd, w, n, "io.pressure");
			}
			if (phase & PHASE_FIRST) {
				cg_tee(rd, w, n, "cgroup.controllers");
				if (ctrl & CG_CPU)
					cg_tee(rd, w, n, "cpu.max");
				if (ctrl & CG_MEMORY)
					cg_tee(rd, w, n, "memory.max");
				if (ctrl & CG_PIDS)
					cg_tee(rd, w, n, "pids.max");
			}
			if (ctrl & CG_MEMORY) {
				cg_tee(rd, w, n, "memory.current");
				if (ends)
					cg_tee(rd, w, n, "memory.events");
			}
			if (ctrl & CG_PIDS) {
				cg_tee(rd, w, n, "pids.current");
				if (ends)
					cg_tee(rd, w, n, "pids.events");
			}
		} else {
			if (ctrl & CG_CPU) {
				if (ends)
					cg_tee(rd, w, n, "cpu.stat");
				if (phase & PHASE_FIRST) {
					cg_tee(rd, w, n, "cpu.cfs_quota_us");
					cg_tee(rd, w, n, "cpu.cfs_period_us");
				}
			}
			if ((ctrl & CG_CPUACCT) && ends)
				cg_tee(rd, w, n, "cpuacct.usage");
			if (ctrl & CG_MEMORY) {
				cg_tee(rd, w, n, "memory.usage_in_bytes");
				if (phase & PHASE_FIRST)
					cg_tee(rd, w, n, "memory.limit_in_bytes");
				if (ends) {
					cg_tee(rd, w, n, "memory.failcnt");
					/*
					 * With memory+swap accounting the memsw counter is charged
					 * first: at equal limits only memsw.failcnt grows.
					 */
					cg_tee(rd, w, n, "memory.memsw.failcnt");
					cg_tee(rd, w, n, "memory.oom_control");
				}
				if (phase & PHASE_LAST)
					cg_tee(rd, w, n, "memory.max_usage_in_bytes");
			}
			if (ctrl & CG_PIDS) {
				cg_tee(rd, w, n, "pids.current");
				if (phase & PHASE_FIRST)
					cg_tee(rd, w, n, "pids.max");
				if (ends)
					cg_tee(rd, w, n, "pids.events");
			}
		}
		/* Who was in it at the end (the walk recorded the start). */
		if ((phase & PHASE_LAST) && !(phase & PHASE_FIRST))
			cg_tee(rd, w, n, "cgroup.procs");
	}
	return 0;
}

static void cgroups_fini(struct collector_state *cs)
{
	struct cg_state *cg = cs->cg;

	if (!cg)
		return;
	for (int k = 0; k < cg->nnode; k++)
		free(cg->node[k].dir);
	free(cg->node);
	free(cg);
	cs->cg = NULL;
}

/* ---- file systems and swap: capacity ---- */

/*
 * Not storage: no capacity to run out of (statfs reports 0 blocks or a fiction), and
 * some are costly to ask. tmpfs, ramfs-like devtmpfs and overlay are kept: they fill up
 * and fail writes with ENOSPC like a disk file system.
 */
static const char *const pseudo_fs[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
	"pstore", "bpf", "mqueue", "configfs", "fusectl", "binfmt_misc", "nsfs", "rpc_pipefs",
	"selinuxfs", "efivarfs", "hugetlbfs", "ramfs", "autofs", NULL,
};

/*
 * Network and user-space file systems: statfs goes to a server or a daemon and can hang
 * (a dead NFS server blocks it uninterruptibly). Not asked; listed as skipped.
 */
static const char *const remote_fs[] = {
	"nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "ceph", "glusterfs", "9p", "afs",
	"lustre", "gpfs", "ocfs2", "gfs2", "beegfs", "davfs", "sshfs", "fuse", "fuseblk", NULL,
};

#define MOUNTS_MAX 512 /* mounts listed per round: the rest is counted as cut */

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

struct strbuf_c {
	char *p;
	size_t len, cap;
};

static void sb_printf(struct strbuf_c *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t nc = (b->cap + (size_t)n + 1) * 2;
		char *np = nc <= READ_CAP ? realloc(b->p, nc) : NULL;

		if (!np)
			return; /* bounded: the record is cut at READ_CAP */
		b->p = np;
		b->cap = nc;
	}
}

/*
 * One line per mount: status, maj:min, fstype, source, mount point (both as mountinfo
 * escapes them: no spaces or tabs inside), the kernel name of the block device ("-" when
 * none), then statvfs: frsize blocks bfree bavail files ffree flag. status is "ok",
 * "same" (a second mount of a device already measured), "pseudo", "remote", or
 * "err=N" (statvfs failed with errno N).
 */
static int mounts_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 int phase)
{
	int ends = phase & (PHASE_FIRST | PHASE_LAST);
	struct strbuf_c out = { 0 };
	char devs[MOUNTS_MAX][24];
	const char *d = NULL;
	size_t len = 0, ndev = 0, nmounts = 0, cut = 0;
	int trunc = 0, err;
	char *copy = NULL, *line, *save = NULL;

	if (ends)
		err = reader__tee(rd, w, "/proc/self/mountinfo", &d, &len);
	else
		err = reader__read(rd, "/proc/self/mountinfo", READ_CAP, &d, &len, &trunc);
	if (!err && (copy = malloc(len + 1))) {
		memcpy(copy, d, len);
		copy[len] = '\0';
	}
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[24], mnt[1024], fstype[64], source[512], full[4200], blk[64] = "-";
		const char *dash = strstr(line, " - ");
		const char *status = "ok";
		struct statvfs sv;
		size_t k;

		if (!dash || sscanf(line, "%*s %*s %23s %*s %1023s", dev, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %511s", fstype, source) != 2)
			continue;
		if (nmounts >= MOUNTS_MAX) {
			cut++;
			continue;
		}
		nmounts++;
		if (in_list(pseudo_fs, fstype)) {
			status = "pseudo";
		} else if (in_list(remote_fs, fstype) || !strncmp(fstype, "fuse.", 5) ||
			   !strncmp(fstype, "nfs", 3)) {
			status = "remote";
		} else {
			for (k = 0; k < ndev; k++)
				if (!strcmp(devs[k], dev))
					break;
			if (k < ndev)
				status = "same";
			else
				snprintf(devs[ndev++], sizeof(devs[0]), "%s", dev);
		}
		if (strcmp(status, "ok")) {
			sb_printf(&out, "%s\t%s\t%s\t%s\t%s\t-\n", status, dev, fstype, source, mnt);
			continue;
		}
		/* The kernel's name of the device (sysfs directories use it, not the source). */
		{
			char link[4096], target[512];
			ssize_t n;

			snprintf(link, sizeof(link), "%s/sys/dev/block/%s", cs->root, dev);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				const char *base;

				target[n] = '\0';
				base = strrchr(target, '/');
				snprintf(blk, sizeof(blk), "%.63s", base ? base + 1 : target);
			}
		}
		snprintf(full, sizeof(full), "%s%s", cs->root, mnt);
		unescape_octal(full);
		if (statvfs(full, &sv)) {
			sb_printf(&out, "err=%d\t%s\t%s\t%s\t%s\t%s\n", errno, dev, fstype, source, mnt,
				  blk);
			continue;
		}
		sb_printf(&out,
			  "ok\t%s\t%s\t%s\t%s\t%s\t%lu %llu %llu %llu %llu %llu %lu\n", dev, fstype,
			  source, mnt, blk, (unsigned long)sv.f_frsize,
			  (unsigned long long)sv.f_blocks, (unsigned long long)sv.f_bfree,
			  (unsigned long long)sv.f_bavail, (unsigned long long)sv.f_files,
			  (unsigned long long)sv.f_ffree, (unsigned long)sv.f_flag);
		/* ext4 counts the errors it met in the superblock (and keeps the count). */
		if (ends && !strcmp(fstype, "ext4") && strcmp(blk, "-")) {
			char path[128];

			snprintf(path, sizeof(path), "/sys/fs/ext4/%s/errors_count", blk);
			reader__tee(rd, w, path, NULL, NULL);
		}
	}
	if (cut)
		sb_printf(&out, "cut\t%zu\n", cut);
	if (copy || !err)
		tee_text(rd, w, "sonde:statfs", out.p ? out.p : "", out.len);
	free(out.p);
	free(copy);
	reader__tee(rd, w, "/proc/swaps", NULL, NULL);
	return 0;
}

static int mounts_probe(const char *root, char *why, size_t whylen)
{
	return probe_path(root, "/proc/self/mountinfo", "no mount table", why, whylen);
}

/* ---- controllers of disks and interfaces ---- */

/* "0000:00:02.0": a PCI function (domain:bus:device.function). */
static int is_pci_function(const char *s, size_t n)
{
	static const char shape[] = "xxxx:xx:xx.x";

	if (n != sizeof(shape) - 1)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (shape[i] == 'x' ? !hex : s[i] != shape[i])
			return 0;
	}
	return 1;
}

/*
 * The controller of a device from the real path of its sysfs device directory
 * (below /sys/devices). The deepest PCI function on the path is the controller: bridges
 * and root ports come before it, the disk's SCSI host, NVMe controller or virtio device
 * after it. Without a PCI function (virtio-mmio, Xen, s390), the device that hangs from the
 * bus root: platform/<dev>, or the first directory below /sys/devices. Writes the id and
 * the kind ("pci", "platform", "bus") and the controller's sysfs directory (a prefix of
 * path); returns -ENOENT for a virtual device.
 */
static int controller_of(const char *path, char *id, size_t idlen, const char **kind,
			 size_t *dirlen)
{
	const char *p, *best = NULL;
	size_t bestlen = 0;

	if (strncmp(path, "/sys/devices/", 13) || !strncmp(path, "/sys/devices/virtual/", 21))
		return -ENOENT;
	for (p = path + 13; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (is_pci_function(p, n)) {
			best = p;
			bestlen = n;
		}
		p += n + (e ? 1 : 0);
	}
	if (best) {
		*kind = "pci";
	} else {
		const char *e;

		best = path + 13;
		*kind = "bus";
		if (!strncmp(best, "platform/", 9)) {
			best += 9;
			*kind = "platform";
		}
		e = strchr(best, '/');
		bestlen = e ? (size_t)(e - best) : strlen(best);
		if (!bestlen)
			return -ENOENT;
	}
	snprintf(id, idlen, "%.*s", (int)bestlen, best);
	*dirlen = (size_t)(best - path) + bestlen;
	return 0;
}

/* Entries of root+dir whose names start with prefix (prefix removed), comma-separated. */
static void list_with_prefix(struct strbuf_c *b, const char *root, const char *dir,
			     const char *prefix)
{
	struct name_list nl = { 0 };
	size_t pl = strlen(prefix), shown = 0;

	name_list__read_dir(&nl, root, dir);
	for (size_t i = 0; i < nl.n && shown < 64; i++) {
		if (strncmp(nl.v[i], prefix, pl) || strchr(nl.v[i], '\t'))
			continue;
		sb_printf(b, "%s%s", shown ? "," : "", nl.v[i] + pl);
		shown++;
	}
	if (!shown)
		sb_printf(b, "-");
	name_list__free(&nl);
}

/*
 * A resolved link is not a file read, so sonde records what it resolved as a composed text
 * (record `rec`, first round): one line per device of cs->names, tab-separated: name,
 * controller id ("-" for a virtual device), kind ("pci", "platform", "bus", "none"), the
 * controller's driver ("-" when unbound or unknown), the real path of <dir>/<name>/device
 * below the root ("-" when there is none), and the devices it is stacked on (`slaves/` of a
 * dm or md disk, `lower_*` of a bond, vlan or macvlan; comma-separated, "-" when none).
 * Then each PCI controller's link speed and width (current and max: a capacity bound) and
 * AER error counters are read through the reader; the controllers are kept in cs->ctrls so
 * that the last round reads the AER counters again.
 */
static void controllers__record(struct collector_state *cs, struct reader *rd,
				struct capture_writer *w, const char *dir, const char *rec,
				int block)
{
	static const char *const pci_files[] = { "current_link_speed", "current_link_width",
						 "max_link_speed", "max_link_width", NULL };
	struct strbuf_c out = { 0 };
	size_t rootlen = strlen(cs->root);
	char link[4096], real[4096], rel[512], id[128], drv[4096], path[512];

	name_list__free(&cs->ctrls);
	for (size_t i = 0; i < cs->names.n; i++) {
		const char *name = cs->names.v[i], *kind = "none", *dev = "-";
		const char *driver = "-";
		size_t dirlen = 0;
		int have = 0;

		if (strchr(name, '\t'))
			continue;
		snprintf(link, sizeof(link), "%s%s/%s/device", cs->root, dir, name);
		/* No device link (loop, zram, dm, lo, veth, bridges) or a dangling one: virtual. */
		if (realpath(link, real) && !strncmp(real, cs->root, rootlen)) {
			snprintf(rel, sizeof(rel), "%s", real + rootlen);
			dev = rel;
			have = !controller_of(rel, id, sizeof(id), &kind, &dirlen);
		}
		if (have) {
			ssize_t n;

			snprintf(link, sizeof(link), "%s%.*s/driver", cs->root, (int)dirlen, rel);
			n = readlink(link, drv, sizeof(drv) - 1);
			if (n > 0) {
				drv[n] = '\0';
				driver = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
			}
		} else {
			kind = "none";
		}
		sb_printf(&out, "%s\t%s\t%s\t%s\t%s\t", name, have ? id : "-", kind, driver, dev);
		snprintf(path, sizeof(path), "%s/%s%s", dir, name, block ? "/slaves" : "");
		list_with_prefix(&out, cs->root, path, block ? "" : "lower_");
		sb_printf(&out, "\n");
		if (have && !strcmp(kind, "pci")) {
			size_t j;

			for (j = 0; j < cs->ctrls.n && strcmp(cs->ctrls.v[j], id); j++)
				;
			if (j == cs->ctrls.n) {
				char **nv = realloc(cs->ctrls.v, (cs->ctrls.n + 1) * sizeof(*nv));

				if (nv) {
					cs->ctrls.v = nv;
					nv[cs->ctrls.n] = strdup(id);
					if (nv[cs->ctrls.n])
						cs->ctrls.n++;
				}
			}
		}
	}
	tee_text(rd, w, rec, out.p ? out.p : "", out.len);
	free(out.p);
	for (size_t j = 0; j < cs->ctrls.n; j++)
		for (const char *const *q = pci_files; *q; q++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", cs->ctrls.v[j],
				 *q);
			reader__tee(rd, w, path, NULL, NULL);
		}
}

/* PCIe AER counters of each PCI controller (first and last rounds: they are cumulative). */
static void controllers__aer(struct collector_state *cs, struct reader *rd,
			     struct capture_writer *w)
{
	static const char *const aer_files[] = { "aer_dev_correctable", "aer_dev_nonfatal",
						 "aer_dev_fatal", NULL };
	char path[512];

	for (size_t j = 0; j < cs->ctrls.n; j++)
		for (const char *const *q = aer_files; *q; q++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", cs->ctrls.v[j],
				 *q);
			reader__tee(rd, w, path, NULL, NULL);
		}
}

static void names_fini(struct collector_state *cs)
{
	name_list__free(&cs->names);
	name_list__free(&cs->ctrls);
	free(cs->seen);
	cs->seen = NULL;
	free(cs->idle);
	cs->idle = NULL;
}

static const struct collector c_host = { "host", "host facts (kernel, CPUs, virtualization)", NULL,
					 host_sample, NULL };
static const struct collector c_stat = { "proc.stat", "CPU time per CPU (/proc/stat)", stat_probe,
					 stat_sample, NULL };
static const struct collector c_loadavg = { "proc.loadavg", "run queue (/proc/loadavg)",
					    loadavg_probe, loadavg_sample, NULL };
static const struct collector c_meminfo = { "proc.meminfo", "memory (/proc/meminfo)",
					    meminfo_probe, meminfo_sample, NULL };
static const struct collector c_vmstat = { "proc.vmstat", "paging and reclaim (/proc/vmstat)",
					   vmstat_probe, vmstat_sample, NULL };
static const struct collector c_pressure = { "proc.pressure", "pressure stalls (/proc/pressure)",
					     pressure_probe, pressure_sample, NULL };
static const struct collector c_diskstats = { "proc.diskstats",
					      "disks (/proc/diskstats, /sys/block)",
					      diskstats_probe, diskstats_sample, names_fini };
static const struct collector c_netdev = { "proc.netdev",
					   "network interfaces (/proc/net/dev, /sys/class/net)",
					   netdev_probe, netdev_sample, names_fini };
static const struct collector c_snmp = { "proc.snmp", "TCP/IP counters (/proc/net/snmp, netstat)",
					 snmp_probe, snmp_sample, NULL };
static const struct collector c_filenr = { "proc.filenr", "file table (/proc/sys/fs/file-nr)",
					   filenr_probe, filenr_sample, NULL };
static const struct collector c_interrupts = { "proc.interrupts",
					       "interrupts and machine checks (/proc/interrupts)",
					       interrupts_probe, interrupts_sample, NULL };
static const struct collector c_pids = { "proc.pids", "every process (/proc/PID/{stat,status,io})",
					 pids_probe, pids_sample, names_fini };
static const struct collector c_cgroups = { "proc.cgroups",
					    "resource controls: cgroups v1 and v2 (/sys/fs/cgroup)",
					    cgroups_probe, cgroups_sample, cgroups_fini };
static const struct collector c_mounts = { "proc.mounts",
					   "file system and swap capacity (mountinfo, statvfs, /proc/swaps)",
					   mounts_probe, mounts_sample, NULL };
static const struct collector c_kmsg = { "kernel.log", "kernel log: OOM and I/O error records (/dev/kmsg)",
					 kmsg_probe, kmsg_sample, NULL };

const struct collector *const collectors[] = {
	&c_host,   &c_stat,  &c_loadavg, &c_meminfo,    &c_vmstat, &c_pressure, &c_diskstats,
	&c_netdev, &c_snmp,  &c_filenr,  &c_interrupts, &c_pids,   &c_kmsg,     &c_cgroups, &c_mounts, NULL,
};

const struct collector *collector__find(const char *name)
{
	for (const struct collector *const *c = collectors; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/* ---- the window ---- */

static void progress(const struct window_opts *o, double left, size_t ncol, uint64_t nproc,
		     uint64_t bytes)
{
	char line[160];
	int n;

	if (!o->progress)
		return;
	n = snprintf(line, sizeof(line), "\r\033[K  observing: %4.1f s left · %zu collectors", left,
		     ncol);
	if (nproc)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " · %" PRIu64 " processes", nproc);
	snprintf(line + n, sizeof(line) - (size_t)n, " · %.1f MiB captured  (Ctrl-C ends early)",
		 (double)bytes / (1 << 20));
	fputs(line, stderr);
	fflush(stderr);
}

/*
 * /proc's hidepid= option (hides other users' processes from a non-root
 * sonde), from our own mountinfo; "" when absent or on a replayed root.
 */
static void proc_hidepid(const char *root, char *out, size_t len)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;

	out[0] = '\0';
	if (root[0] || !(f = fopen("/proc/self/mountinfo", "re")))
		return;
	while (getline(&line, &cap, f) > 0) {
		char mnt[256], *opt;

		/* id parent major:minor root mountpoint options ... - fstype source superoptions */
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || strcmp(mnt, "/proc") ||
		    !strstr(line, " - proc "))
			continue;
		out[0] = '\0';
		if ((opt = strstr(line, "hidepid="))) {
			size_t n = strcspn(opt + 8, ", \n");

			snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), opt + 8);
		}
	}
	free(line);
	fclose(f);
}

static void write_run_facts(struct reader *rd, struct capture_writer *w, const struct window_opts *o,
			    const struct window_result *res)
{
	char txt[1536], hidepid[32];
	int n;

	n = snprintf(txt, sizeof(txt),
		     "version: %s\nwindow_s: %.3f\ninterval_s: %.3f\nstart_wall_ns: %" PRId64
		     "\nend_wall_ns: %" PRId64 "\nstart_mono_ns: %" PRId64 "\nend_mono_ns: %" PRId64
		     "\nsamples: %" PRIu32 "\npartial: %d\nstop_reason: %s\nclk_tck: %ld\n"
		     "page_size: %ld\npid: %ld\neuid: %d\nproc_hidepid: %s\n",
		     SONDE_VERSION, o->window_s, o->interval_s, res->start_wall_ns,
		     res->end_wall_ns, res->start_mono_ns, res->end_mono_ns, res->samples,
		     res->partial, res->stop_reason, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE),
		     (long)getpid(), (int)geteuid(), (proc_hidepid(o->root, hidepid, sizeof(hidepid)), hidepid));
	tee_text(rd, w, "sonde:run", txt, (size_t)n);
}

static int wanted(const struct window_opts *o, const char *name)
{
	if (!strcmp(name, "host"))
		return 1;
	for (const char *const *n = o->names; n && *n; n++)
		if (!strcmp(*n, name))
			return 1;
	return 0;
}

/*
 * Sampling rounds run in a worker thread so that a read that never returns (a
 * process whose memory is stuck, a hung mount) cannot hang sonde: the window
 * waits for each round at most stall_s, then gives it up, keeps what was
 * captured, and says which read hung. The worker holds the lock for the whole
 * round except inside open/read, so once the window takes the lock after a
 * timeout and keeps it, the worker can never touch the captures again.
 */
struct round_worker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int go, done, quit;
	int phase;
	struct collector_state *st;
	size_t nst;
	struct reader *rd;
};

static void *round_main(void *arg)
{
	struct round_worker *wk = arg;
	sigset_t all;

	/* Signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&wk->mu);
	for (;;) {
		while (!wk->go && !wk->quit)
			pthread_cond_wait(&wk->cv, &wk->mu);
		if (wk->quit)
			break;
		wk->go = 0;
		for (size_t i = 0; i < wk->nst; i++)
			wk->st[i].c->sample(&wk->st[i], wk->rd, &wk->st[i].w, wk->phase);
		wk->done = 1;
		pthread_cond_broadcast(&wk->cv);
	}
	pthread_mutex_unlock(&wk->mu);
	return NULL;
}

/* Run one round in the worker (main holds wk->mu). 0, or -ETIMEDOUT when it was given up. */
static int round_run(struct round_worker *wk, int phase, double stall_s)
{
	struct timespec dl;
	int64_t deadline = clock__ns(CLOCK_MONOTONIC) + (int64_t)(stall_s * 1e9);

	wk->phase = phase;
	wk->done = 0;
	wk->go = 1;
	pthread_cond_broadcast(&wk->cv);
	dl.tv_sec = deadline / 1000000000;
	dl.tv_nsec = deadline % 1000000000;
	while (!wk->done)
		if (pthread_cond_timedwait(&wk->cv, &wk->mu, &dl) == ETIMEDOUT && !wk->done)
			return -ETIMEDOUT;
	return 0;
}

int window__observe(const struct window_opts *o, struct window_result *res, char *errbuf,
		    size_t errlen)
{
	static struct round_worker wk; /* outlives the call when a round is abandoned */
	pthread_condattr_t ca;
	int worker = 0;
	struct collector_state st[32];
	struct capture_writer meta;
	struct reader rd = { .root = o->root };
	size_t nst = 0;
	int64_t t0, end, interval_ns, window_ns;
	int err = 0, last = 0;

	memset(res, 0, sizeof(*res));
	memset(st, 0, sizeof(st));
	err = capture_writer__open(&meta, o->raw_dir, "sonde");
	if (err) {
		snprintf(errbuf, errlen, "%s: %s", o->raw_dir, strerror(-err));
		return err;
	}
	for (const struct collector *const *c = collectors; *c; c++) {
		if (!wanted(o, (*c)->name) || nst == sizeof(st) / sizeof(st[0]))
			continue;
		st[nst].c = *c;
		st[nst].root = o->root;
		err = capture_writer__open(&st[nst].w, o->raw_dir, (*c)->name);
		if (err) {
			snprintf(errbuf, errlen, "%s/%s.cap: %s", o->raw_dir, (*c)->name,
				 strerror(-err));
			goto cleanup;
		}
		nst++;
	}

	pthread_mutex_init(&wk.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wk.cv, &ca);
	pthread_condattr_destroy(&ca);
	wk.st = st;
	wk.nst = nst;
	wk.rd = &rd;
	wk.go = wk.done = wk.quit = 0;
	pthread_mutex_lock(&wk.mu);
	rd.lock = &wk.mu;
	err = pthread_create(&wk.th, NULL, round_main, &wk);
	if (err) {
		pthread_mutex_unlock(&wk.mu);
		snprintf(errbuf, errlen, "cannot start the sampling thread: %s", strerror(err));
		err = -err;
		goto cleanup;
	}
	worker = 1;

	window_ns = (int64_t)(o->window_s * 1e9);
	interval_ns = (int64_t)(o->interval_s * 1e9);
	res->start_wall_ns = clock__ns(CLOCK_REALTIME);
	t0 = res->start_mono_ns = clock__ns(CLOCK_MONOTONIC);
	end = t0 + window_ns;
	snprintf(res->stop_reason, sizeof(res->stop_reason), "complete");

	for (uint32_t seq = 0;; seq++) {
		int64_t next;
		uint64_t bytes = 0, nproc = 0;

		rd.seq = seq;
		if (round_run(&wk, PHASE_TICK | (seq == 0 ? PHASE_FIRST : 0) |
					   (last ? PHASE_LAST : 0),
			      o->stall_s > 0 ? o->stall_s : 5) == -ETIMEDOUT) {
			int64_t now = clock__ns(CLOCK_MONOTONIC);

			/* Keep wk.mu: the worker stays blocked; its round is not counted. */
			res->abandoned = res->partial = 1;
			snprintf(res->stop_reason, sizeof(res->stop_reason),
				 "timed out after %.1f s: no answer in %.1f s reading %s (the "
				 "window ended there)",
				 (double)(now - t0) / 1e9, o->stall_s > 0 ? o->stall_s : 5,
				 rd.current);
			break;
		}
		for (size_t i = 0; i < nst; i++) {
			bytes += st[i].w.bytes;
			nproc += st[i].nproc;
		}
		res->samples = seq + 1;
		if (last)
			break;
		if (o->tick)
			o->tick(o->tick_arg, clock__ns(CLOCK_MONOTONIC), t0);
		next = t0 + (int64_t)(seq + 1) * interval_ns;
		if (next >= end) {
			next = end;
			last = 1;
		}
		for (;;) {
			int64_t now = clock__ns(CLOCK_MONOTONIC);
			struct timespec ts;

			if (o->stop && *o->stop) {
				res->partial = 1;
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 *o->stop == STOP_DEADLINE ?
						 "the --timeout deadline ended it after %.1f s" :
						 "interrupted after %.1f s",
					 (double)(now - t0) / 1e9);
				last = 1;
				break;
			}
			if (now >= next)
				break;
			progress(o, (double)(end - now) / 1e9, nst, nproc, bytes);
			/* Wake at least every 250 ms so the progress line moves and a stop is seen. */
			if (next - now > 250000000)
				now += 250000000;
			else
				now = next;
			ts.tv_sec = now / 1000000000;
			ts.tv_nsec = now % 1000000000;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	res->end_wall_ns = clock__ns(CLOCK_REALTIME);
	res->end_mono_ns = clock__ns(CLOCK_MONOTONIC);
	if (o->progress)
		fputs("\r\033[K", stderr);
	res->reads = rd.reads;
	res->read_bytes = rd.read_bytes;
	res->read_errors = rd.read_errors;
	for (size_t i = 0; i < nst; i++)
		res->capture_bytes += st[i].w.bytes;
	if (res->abandoned) {
		/* The blocked worker owns rd: a fresh reader (and buffer) for the facts. */
		struct reader facts = { .root = o->root };

		write_run_facts(&facts, &meta, o, res);
		reader__free(&facts);
	} else {
		write_run_facts(&rd, &meta, o, res);
	}
cleanup:
	if (worker && !res->abandoned) {
		wk.quit = 1;
		pthread_cond_broadcast(&wk.cv);
		pthread_mutex_unlock(&wk.mu);
		pthread_join(wk.th, NULL);
		rd.lock = NULL;
	}
	for (size_t i = 0; i < nst; i++) {
		int cerr = capture_writer__close(&st[i].w);

		if (cerr && !err) {
			err = cerr;
			snprintf(errbuf, errlen, "writing raw/%s.cap: %s", st[i].c->name,
				 strerror(-cerr));
		}
		/* An abandoned round may still point into the collector's state. */
		if (st[i].c->fini && !res->abandoned)
			st[i].c->fini(&st[i]);
	}
	{
		int merr = capture_writer__close(&meta);

		if (merr && !err) {
			err = merr;
			snprintf(errbuf, errlen, "writing raw/sonde.cap: %s", strerror(-merr));
		}
	}
	if (!res->abandoned)
		reader__free(&rd); /* else the blocked read may still write into its buffer */
	return err;
}
