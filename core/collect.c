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
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "parse.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "dev"
#endif

int64_t clock__ns(int clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

struct collector_state {
	const struct collector *c;
	struct capture_writer w;
	const char *root;
	struct name_list names; /* disks, interfaces */
	uint8_t *seen;          /* pids: bitmap of pids already given their first-sight reads */
	size_t seen_bytes;
	struct idle_slot *idle; /* pids: open addressing on the pid */
	size_t idle_cap, idle_n;
	uint64_t nproc;         /* pids: processes in the last round */
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
	}
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
	}
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

/* Only what the checks need (OOM kills, I/O errors): the rest of the log stays private. */
static int kept_line(const char *s, size_t n)
{
	return contains_ci(s, n, "out of memory") || contains_ci(s, n, "oom-kill") ||
	       contains_ci(s, n, "invoked oom-killer") || contains_ci(s, n, "killed process") ||
	       contains_ci(s, n, "oom_reaper") || contains_ci(s, n, "i/o error") ||
	       contains_ci(s, n, "blk_update_request") || contains_ci(s, n, "medium error");
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

static void names_fini(struct collector_state *cs)
{
	name_list__free(&cs->names);
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
static const struct collector c_kmsg = { "kernel.log", "kernel log: OOM and I/O error records (/dev/kmsg)",
					 kmsg_probe, kmsg_sample, NULL };

const struct collector *const collectors[] = {
	&c_host,   &c_stat,  &c_loadavg, &c_meminfo,    &c_vmstat, &c_pressure, &c_diskstats,
	&c_netdev, &c_snmp,  &c_filenr,  &c_interrupts, &c_pids,   &c_kmsg,     NULL,
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
