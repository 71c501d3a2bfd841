// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event counters the kernel keeps anyway, read live (never captured) so the
 * cost of a BPF tool can be predicted before it is attached: its programs run
 * once or twice per event, and these counters say how many events there are.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/rates.h"
#include "util/clock.h"
#include "util/parse.h"

/* /proc/stat is a few KiB per 100 CPUs; the others are small. */
#define RATES_READ_MAX (4u << 20)

static const struct {
	const char *name, *source;
} hev_info[HEV_NR] = {
	[HEV_SYSCALL] = { "syscalls",
			  "/proc/PID/io syscr + syscw of every process: read and write syscalls "
			  "only, so a lower bound of all syscalls" },
	[HEV_CTXT] = { "context switches", "/proc/stat ctxt" },
	[HEV_IRQ] = { "device interrupts",
		      "/proc/stat intr, the numbered IRQs (the ones a handler runs for, not the "
		      "local timer and the IPIs)" },
	[HEV_SOFTIRQ] = { "softirqs", "/proc/stat softirq" },
	[HEV_FORK] = { "processes created", "/proc/stat processes (forks and clones)" },
	[HEV_BLOCK_IO] = { "block I/Os", "/proc/diskstats: requests completed, whole disks" },
	[HEV_TCP_RESEND] = { "TCP retransmits and resets",
			     "/proc/net/snmp Tcp RetransSegs, OutRsts, EstabResets" },
	[HEV_NET_DROP] = { "packets dropped",
			   "/proc/net/dev drop and /proc/net/snmp discard and error counters: the "
			   "kernel drops in more places than it counts, so a lower bound" },
	[HEV_OOM] = { "OOM kills", "/proc/vmstat oom_kill" },
};

const char *host_event__name(enum host_event e)
{
	return e < HEV_NR ? hev_info[e].name : "?";
}

const char *host_event__source(enum host_event e)
{
	return e < HEV_NR ? hev_info[e].source : "?";
}

/* A /proc file whole (its size is 0 to stat), at most RATES_READ_MAX bytes. 0 or -errno. */
static int read_file(const char *root, const char *path, char **buf, size_t *len)
{
	char full[4200], *b = NULL;
	size_t cap = 0, got = 0;
	int fd, err = 0;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (got + 1 >= cap) {
			char *nb;

			if (cap >= RATES_READ_MAX) {
				err = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		n = read(fd, b + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

static void read_stat(const char *root, unsigned mask, struct host_events *out)
{
	struct proc_stat ps;
	char *buf;
	size_t len;

	if (read_file(root, "/proc/stat", &buf, &len))
		return;
	if (!parse_proc_stat(buf, len, &ps)) {
		const struct cpu_times *c = &ps.total;
		/*
		 * Device interrupts are the numbered IRQs of the "intr" line: its
		 * total also counts the architecture's own (the local timer, IPIs:
		 * thousands a second on an idle host), which run no irq_handler_entry.
		 */
		const struct {
			enum host_event e;
			unsigned bit;
			uint64_t v;
		} keys[] = { { HEV_CTXT, PROC_STAT_CTXT, ps.ctxt },
			     { HEV_IRQ, PROC_STAT_INTR, ps.intr_numbered },
			     { HEV_SOFTIRQ, PROC_STAT_SOFTIRQ, ps.softirq },
			     { HEV_FORK, PROC_STAT_PROCESSES, ps.processes } };

		/* guest time is in user already */
		out->busy_ticks = c->user + c->nice + c->system + c->irq + c->softirq + c->steal;
		out->busy_read = 1;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (!(mask & HEV_BIT(keys[i].e)) || !(ps.have & keys[i].bit))
				continue;
			out->n[keys[i].e] = keys[i].v;
			out->have |= HEV_BIT(keys[i].e);
		}
		proc_stat__free(&ps);
	}
	free(buf);
}

struct disk_sum {
	const char *root;
	uint64_t ios;
};

/* Whole disks only (they have /sys/block/NAME): a partition's I/Os are its disk's too. */
static int disk_add(const struct diskstat *ds, void *arg)
{
	struct disk_sum *s = arg;
	char path[4300];

	if (strchr(ds->name, '/') || ds->name[0] == '.')
		return 0;
	snprintf(path, sizeof(path), "%s/sys/block/%s", s->root, ds->name);
	if (access(path, F_OK))
		return 0;
	s->ios += ds->rd_ios + ds->wr_ios + ds->dc_ios + ds->fl_ios;
	return 0;
}

static void read_disks(const char *root, struct host_events *out)
{
	struct disk_sum s = { .root = root };
	char *buf;
	size_t len;

	if (read_file(root, "/proc/diskstats", &buf, &len))
		return;
	if (!parse_diskstats(buf, len, disk_add, &s)) {
		out->n[HEV_BLOCK_IO] = s.ios;
		out->have |= HEV_BIT(HEV_BLOCK_IO);
	}
	free(buf);
}

struct key_sum {
	const char *const *keys;
	uint64_t sum;
	int found;
};

static int key_add(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	struct key_sum *s = arg;
	uint64_t v;

	for (const char *const *k = s->keys; *k; k++)
		if (strlen(*k) == klen && !memcmp(*k, key, klen) &&
		    !parse_kv_u64(val, vlen, 0, &v)) {
			s->sum += v;
			s->found = 1;
		}
	return 0;
}

/* The sum of keys in a key/value file (snmp: "Tcp.RetransSegs"); 0 when any was found. */
static int sum_keys(const char *root, const char *path, int snmp, const char *const *keys,
		    uint64_t *out)
{
	struct key_sum s = { .keys = keys };
	char *buf;
	size_t len;

	if (read_file(root, path, &buf, &len))
		return -ENOENT;
	if (snmp)
		parse_snmp(buf, len, key_add, &s);
	else
		parse_kv(buf, len, key_add, &s);
	free(buf);
	*out = s.sum;
	return s.found ? 0 : -ENOENT;
}

static int netdev_drops(const struct netdev *nd, void *arg)
{
	*(uint64_t *)arg += nd->rx_drop + nd->tx_drop;
	return 0;
}

static void read_net(const char *root, unsigned mask, struct host_events *out)
{
	static const char *const resend[] = { "Tcp.RetransSegs", "Tcp.OutRsts", "Tcp.EstabResets",
					      NULL };
	static const char *const drops[] = { "Ip.InDiscards", "Ip.InHdrErrors", "Ip.InAddrErrors",
					     "Ip.InUnknownProtos", "Ip.OutDiscards", "Tcp.InErrs",
					     "Udp.NoPorts", "Udp.InErrors", NULL };
	uint64_t v = 0, dev = 0;
	char *buf;
	size_t len;

	if ((mask & HEV_BIT(HEV_TCP_RESEND)) &&
	    !sum_keys(root, "/proc/net/snmp", 1, resend, &out->n[HEV_TCP_RESEND]))
		out->have |= HEV_BIT(HEV_TCP_RESEND);
	if (!(mask & HEV_BIT(HEV_NET_DROP)))
		return;
	if (!read_file(root, "/proc/net/dev", &buf, &len)) {
		parse_net_dev(buf, len, netdev_drops, &dev);
		free(buf);
	}
	if (!sum_keys(root, "/proc/net/snmp", 1, drops, &v)) {
		out->n[HEV_NET_DROP] = v + dev;
		out->have |= HEV_BIT(HEV_NET_DROP);
	}
}

static int pid_syscalls(const char *root, int pid, uint64_t *out)
{
	static const char *const keys[] = { "syscr", "syscw", NULL };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return sum_keys(root, path, 0, keys, out);
}

/*
 * Every process's read and write syscalls. 10-20 us a process: read only when a
 * tool that hooks syscalls is asked for. A process that exits between two
 * readings takes its count with it: the rate is a lower bound.
 */
static void read_syscalls(const char *root, const int *pids, size_t npids,
			  struct host_events *out)
{
	char dir[4200];
	struct dirent *de;
	DIR *d;
	uint64_t sum = 0, v;

	snprintf(dir, sizeof(dir), "%s/proc", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int pid = parse_pid_name(de->d_name, strlen(de->d_name));

		if (pid < 0)
			continue;
		if (!pid_syscalls(root, pid, &v))
			sum += v;
	}
	closedir(d);
	out->n[HEV_SYSCALL] = sum;
	out->have |= HEV_BIT(HEV_SYSCALL);
	for (size_t i = 0; i < npids; i++)
		if (!pid_syscalls(root, pids[i], &v)) {
			out->suspect_syscalls += v;
			out->suspects_read++;
			if (i < HEV_MAX_PIDS) {
				out->pid_syscalls[i] = v;
				out->pid_syscalls_read |= 1u << i;
			}
		}
}

/* Each suspect's CPU time so far (utime + stime of all its threads), in ticks. */
static void read_pid_cpu(const char *root, const int *pids, size_t npids, struct host_events *out)
{
	for (size_t i = 0; i < npids && i < HEV_MAX_PIDS; i++) {
		struct pid_stat st;
		char path[64], *buf;
		size_t len;

		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		if (pids[i] <= 0 || read_file(root, path, &buf, &len))
			continue;
		if (!parse_pid_stat(buf, len, &st) && st.nfields >= 13) {
			out->pid_cpu_ticks[i] = st.utime + st.stime;
			out->pid_cpu_read |= 1u << i;
		}
		free(buf);
	}
}

int host_events__read(const char *root, unsigned mask, const int *pids, size_t npids,
		      struct host_events *out)
{
	uint64_t v;

	memset(out, 0, sizeof(*out));
	root = root ? root : "";
	out->mono_ns = clock__ns(CLOCK_MONOTONIC);
	/* the busy time, for every prediction: /proc/stat is read whatever the mask */
	if (mask)
		read_stat(root, mask, out);
	if (mask)
		read_pid_cpu(root, pids, npids, out);
	if (mask & HEV_BIT(HEV_BLOCK_IO))
		read_disks(root, out);
	if (mask & (HEV_BIT(HEV_TCP_RESEND) | HEV_BIT(HEV_NET_DROP)))
		read_net(root, mask, out);
	if ((mask & HEV_BIT(HEV_OOM)) &&
	    !sum_keys(root, "/proc/vmstat", 0, (const char *const[]){ "oom_kill", NULL }, &v)) {
		out->n[HEV_OOM] = v;
		out->have |= HEV_BIT(HEV_OOM);
	}
	if (mask & HEV_BIT(HEV_SYSCALL))
		read_syscalls(root, pids, npids, out);
	return out->have || !mask ? 0 : -ENOENT;
}

double host_events__rate(const struct host_events *a, const struct host_events *b,
			 enum host_event e)
{
	double dt = (double)(b->mono_ns - a->mono_ns) / 1e9;

	if (e >= HEV_NR || !(a->have & b->have & HEV_BIT(e)) || dt <= 0)
		return -1;
	/* A counter that went backwards (a process gone, a device removed): no events seen. */
	return b->n[e] >= a->n[e] ? (double)(b->n[e] - a->n[e]) / dt : 0;
}

double host_events__suspect_rate(const struct host_events *a, const struct host_events *b)
{
	double dt = (double)(b->mono_ns - a->mono_ns) / 1e9;

	if (!a->suspects_read || a->suspects_read != b->suspects_read || dt <= 0)
		return -1;
	return b->suspect_syscalls >= a->suspect_syscalls ?
		       (double)(b->suspect_syscalls - a->suspect_syscalls) / dt :
		       0;
}

double host_events__pid_rate(const struct host_events *a, const struct host_events *b, size_t k)
{
	double dt = (double)(b->mono_ns - a->mono_ns) / 1e9;

	if (k >= HEV_MAX_PIDS || !(a->pid_syscalls_read & b->pid_syscalls_read & (1u << k)) ||
	    dt <= 0)
		return -1;
	return b->pid_syscalls[k] >= a->pid_syscalls[k] ?
		       (double)(b->pid_syscalls[k] - a->pid_syscalls[k]) / dt :
		       0;
}

double host_events__cpus(const struct host_events *a, const struct host_events *b, int k)
{
	double dt = (double)(b->mono_ns - a->mono_ns) / 1e9, hz = (double)sysconf(_SC_CLK_TCK);
	uint64_t x, y;

	if (dt <= 0 || hz <= 0)
		return -1;
	if (k < 0) {
		if (!a->busy_read || !b->busy_read)
			return -1;
		x = a->busy_ticks;
		y = b->busy_ticks;
	} else {
		if (k >= HEV_MAX_PIDS || !(a->pid_cpu_read & b->pid_cpu_read & (1u << k)))
			return -1;
		x = a->pid_cpu_ticks[k];
		y = b->pid_cpu_ticks[k];
	}
	/* one tick over the span is the counters' resolution: less is not told from it */
	return (y > x + 1 ? (double)(y - x) : 1.0) / hz / dt;
}
