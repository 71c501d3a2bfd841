// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Facts derived once from the captures: the run, the host, and a summary per
 * process (deltas over the window, with pid reuse and processes that start or
 * exit mid-window handled).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "collect/analysis.h"
#include "util/file.h"
#include "util/hostid.h"
#include "util/json_read.h"
#include "util/parse.h"

double analysis__t(const struct analysis *an, const struct capture_rec *r)
{
	return (double)(r->mono_ns - an->start_mono_ns) / 1e9;
}

static void copy_trimmed(char *dst, size_t dstlen, const char *s, size_t n)
{
	size_t o = 0;

	while (n && (*s == ' ' || *s == '\t' || *s == '\n'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		n--;
	for (size_t i = 0; i < n && o + 1 < dstlen; i++)
		dst[o++] = (s[i] >= 0x20 && s[i] != 0x7f) ? s[i] : ' ';
	dst[o] = '\0';
}

static const struct capture_rec *first_ok(const struct capture_stream *st, const char *path)
{
	if (!st)
		return NULL;
	for (size_t i = 0; i < st->n; i++)
		if (!st->rec[i].err && !strcmp(st->rec[i].path, path))
			return &st->rec[i];
	return NULL;
}

static uint64_t rec_u64(const struct capture_rec *r)
{
	uint64_t v = 0;

	if (r && parse_kv_u64(r->data, r->len, 0, &v))
		v = 0;
	return v;
}

struct run_kv {
	struct analysis *an;
};

static int run_fact(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct analysis *an = arg;
	char val[512];
	uint64_t u = 0;

	copy_trimmed(val, sizeof(val), v, vl);
#define KEY(name) (kl == strlen(name) && !memcmp(k, name, kl))
	if (KEY("version"))
		snprintf(an->version, sizeof(an->version), "%s", val);
	else if (KEY("window_s"))
		an->window_s = strtod(val, NULL);
	else if (KEY("interval_s"))
		an->interval_s = strtod(val, NULL);
	else if (KEY("start_wall_ns"))
		an->start_wall_ns = strtoll(val, NULL, 10);
	else if (KEY("end_wall_ns"))
		an->end_wall_ns = strtoll(val, NULL, 10);
	else if (KEY("start_mono_ns"))
		an->start_mono_ns = strtoll(val, NULL, 10);
	else if (KEY("end_mono_ns"))
		an->end_mono_ns = strtoll(val, NULL, 10);
	else if (KEY("samples") && !parse_kv_u64(val, strlen(val), 0, &u))
		an->samples = (uint32_t)u;
	else if (KEY("partial"))
		an->partial = atoi(val) != 0;
	else if (KEY("stop_reason"))
		snprintf(an->stop_reason, sizeof(an->stop_reason), "%.399s", val);
	else if (KEY("euid"))
		an->euid = atoi(val);
	else if (KEY("proc_hidepid"))
		snprintf(an->proc_hidepid, sizeof(an->proc_hidepid), "%.31s", val);
	else if (KEY("clk_tck"))
		an->clk_tck = atol(val);
	else if (KEY("page_size"))
		an->page_size = atol(val);
	else if (KEY("pid"))
		an->sonde_pid = atoi(val);
#undef KEY
	return 0;
}

/* "0-3,5,7-8" */
static int count_cpu_list(const char *s, size_t n)
{
	int count = 0;
	size_t i = 0;

	while (i < n) {
		long a = 0, b;
		int da = 0;

		while (i < n && s[i] >= '0' && s[i] <= '9' && da < 7)
			a = a * 10 + (s[i++] - '0'), da++;
		if (!da)
			break;
		b = a;
		if (i < n && s[i] == '-') {
			int db = 0;

			i++;
			b = 0;
			while (i < n && s[i] >= '0' && s[i] <= '9' && db < 7)
				b = b * 10 + (s[i++] - '0'), db++;
			if (!db || b < a)
				break;
		}
		count += (int)(b - a + 1);
		if (i < n && s[i] == ',')
			i++;
		else
			break;
	}
	return count;
}

static int meminfo_total(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	if (kl == 8 && !memcmp(k, "MemTotal", 8)) {
		parse_kv_u64(v, vl, 1, arg);
		return 1;
	}
	return 0;
}

static void derive_host(struct analysis *an)
{
	const struct capture_stream *host = capture_set__stream(&an->cs, "host");
	const struct capture_stream *stat = capture_set__stream(&an->cs, "proc.stat");
	const struct capture_stream *mem = capture_set__stream(&an->cs, "proc.meminfo");
	const struct capture_rec *r;

	if ((r = first_ok(host, "/proc/sys/kernel/hostname")))
		copy_trimmed(an->hostname, sizeof(an->hostname), r->data, r->len);
	if ((r = first_ok(host, "/proc/sys/kernel/osrelease")))
		copy_trimmed(an->kernel, sizeof(an->kernel), r->data, r->len);
	if ((r = first_ok(host, "/proc/sys/kernel/random/boot_id")))
		copy_trimmed(an->boot_id, sizeof(an->boot_id), r->data, r->len);
	if ((r = first_ok(host, "sonde:host-id"))) {
		char id[64];

		copy_trimmed(id, sizeof(id), r->data, r->len);
		if (host_id__valid(id)) /* else "unknown: why", or not ours */
			memcpy(an->host_id, id, sizeof(an->host_id));
	}
	an->threads_max = rec_u64(first_ok(host, "/proc/sys/kernel/threads-max"));
	an->pid_max = rec_u64(first_ok(host, "/proc/sys/kernel/pid_max"));
	an->nr_open = rec_u64(first_ok(host, "/proc/sys/fs/nr_open"));
	if ((r = first_ok(host, "/proc/uptime")))
		an->uptime_start = strtod(r->data, NULL);

	if ((r = first_ok(stat, "/proc/stat"))) {
		struct proc_stat ps = { 0 };

		if (!parse_proc_stat(r->data, r->len, &ps))
			an->cpus = ps.ncpu;
		proc_stat__free(&ps);
	}
	if (!an->cpus && (r = first_ok(host, "/sys/devices/system/cpu/online")))
		an->cpus = count_cpu_list(r->data, r->len);
	if (!an->cpus && (r = first_ok(host, "/proc/cpuinfo"))) {
		for (const char *p = r->data; (p = strstr(p, "processor")); p++)
			if (p == r->data || p[-1] == '\n')
				an->cpus++;
	}
	if ((r = first_ok(mem, "/proc/meminfo")))
		parse_kv(r->data, r->len, meminfo_total, &an->mem_total);

	/* Virtualization: the hypervisor's own word first, then DMI, then the CPU flag. */
	if ((r = first_ok(host, "/sys/hypervisor/type")) && r->len)
		copy_trimmed(an->virt, sizeof(an->virt), r->data, r->len);
	if (!an->virt[0] && (r = first_ok(host, "/sys/class/dmi/id/product_name")) && r->len) {
		char prod[96], vend[96] = "";
		const struct capture_rec *v = first_ok(host, "/sys/class/dmi/id/sys_vendor");

		copy_trimmed(prod, sizeof(prod), r->data, r->len);
		if (v)
			copy_trimmed(vend, sizeof(vend), v->data, v->len);
		if (strstr(prod, "KVM") || strstr(prod, "Virtual") || strstr(prod, "VMware") ||
		    strstr(vend, "QEMU") || strstr(vend, "Xen") || strstr(vend, "Amazon") ||
		    strstr(vend, "Google") || strstr(vend, "Microsoft"))
			snprintf(an->virt, sizeof(an->virt), "%s %s", vend, prod);
	}
	if (!an->virt[0] && (r = first_ok(host, "/proc/cpuinfo")) && strstr(r->data, " hypervisor"))
		snprintf(an->virt, sizeof(an->virt), "VM guest (CPU hypervisor flag)");
}

int analysis__open(struct analysis *an, const char *raw_dir, char *errbuf, size_t errlen)
{
	return analysis__open_limited(an, raw_dir, NULL, errbuf, errlen);
}

static void load_bpf_docs(struct analysis *an);

void analysis__preload(struct analysis *an, const char *collector)
{
	const struct thread_states *ts;
	const struct task_summary *tasks;
	size_t n;
	char why[256];

	capture_set__stream(&an->cs, collector);
	/*
	 * Summaries many checks read are built once, before they fork, and shared
	 * copy-on-write: twenty checks read the processes, seven the thread states;
	 * each built its own from the stream (10 ms a check at 10,000 processes).
	 */
	if (!strcmp(collector, "proc.threads"))
		analysis__threads(an, &ts, why, sizeof(why));
	if (!strcmp(collector, "proc.pids") || !strcmp(collector, "proc.threads"))
		analysis__tasks(an, &tasks, &n);
	/*
	 * The BPF tools' documents are read all at once, whichever tool a check
	 * asks for: 30 checks read one, and each parsed them all again (the
	 * profile's is hundreds of KB on a busy host).
	 */
	if (!strncmp(collector, "bpf.", 4) && !an->bpf_loaded)
		load_bpf_docs(an);
	if (!strcmp(collector, "perf.counters"))
		analysis__perf_counters(an, why, sizeof(why));
}

int analysis__open_limited(struct analysis *an, const char *raw_dir,
			   const struct capture_limits *lim, char *errbuf, size_t errlen)
{
	const struct capture_stream *meta;
	const struct capture_rec *r;
	int err;

	memset(an, 0, sizeof(*an));
	snprintf(an->raw_dir, sizeof(an->raw_dir), "%s", raw_dir);
	err = capture_set__open(&an->cs, raw_dir, lim, errbuf, errlen);
	if (err)
		return err;
	meta = capture_set__stream(&an->cs, "sonde");
	r = capture_stream__last(meta, "sonde:run");
	if (!r) {
		const char *why = capture_set__why(&an->cs, "sonde");

		if (why)
			snprintf(errbuf, errlen, "%s/%s", raw_dir, why);
		else
			snprintf(errbuf, errlen,
				 "%s: no run facts (raw/sonde.cap with a sonde:run record)", raw_dir);
		capture_set__free(&an->cs);
		return -EINVAL;
	}
	an->euid = -1;
	parse_kv(r->data, r->len, run_fact, an);
	if (an->clk_tck <= 0)
		an->clk_tck = 100;
	if (an->page_size <= 0)
		an->page_size = 4096;
	an->elapsed_s = (double)(an->end_mono_ns - an->start_mono_ns) / 1e9;
	if (an->elapsed_s < 0)
		an->elapsed_s = 0;
	derive_host(an);
	return 0;
}

/* ---- per-process summaries ---- */

/* The cumulative counters both /proc/PID/stat and a task record carry. */
struct task_counters {
	uint64_t utime, stime, minflt, majflt, blkio;
};

struct task_build {
	struct task_summary s;
	const char *stat_data;    /* payload of the last stat parsed: a repeat ('=') shares it */
	int kthread;              /* from a task record: 1 or 0; -1 unknown (guessed from /proc) */
	uint32_t first_seq, last_seq;
	int have_first_io, have_last_io;
	struct pid_io io0, io1;
	int have_ctxt0;
	uint64_t vol0, nonvol0;
	int have_sched0, have_sched1;
	struct pid_schedstat sched0, sched1;
	struct task_counters c0, c1; /* at first sight, and the latest */
};

struct task_index {
	int *slot; /* pid -> index+1 into builds, open addressing */
	size_t cap;
};

static size_t hash_pid(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static int *task_index__slot(struct task_index *ix, struct task_build *b, int pid)
{
	size_t h = hash_pid(pid, ix->cap);

	while (ix->slot[h] && b[ix->slot[h] - 1].s.pid != pid)
		h = (h + 1) & (ix->cap - 1);
	return &ix->slot[h];
}

/* The pid of "/proc/PID/FILE" (*file: FILE) or of "sonde:task/PID" (*file: "task"); -1 else. */
static int path_pid(const char *path, const char **file)
{
	long v = 0;
	const char *p, *digits;
	int task = !strncmp(path, "sonde:task/", 11);

	if (!task && strncmp(path, "/proc/", 6))
		return -1;
	digits = path + (task ? 11 : 6);
	for (p = digits; *p >= '0' && *p <= '9' && v < 100000000; p++)
		v = v * 10 + (*p - '0');
	if (p == digits || *p != (task ? '\0' : '/'))
		return -1;
	*file = task ? "task" : p + 1;
	return (int)v;
}

static int status_fields(struct task_build *t, const struct capture_rec *r, int first)
{
	struct pid_status ps;

	if (parse_pid_status(r->data, r->len, &ps))
		return -EINVAL;
	t->s.uid = ps.uid;
	if (ps.has_anon)
		t->s.anon_bytes = (int64_t)(ps.rss_anon_kb * 1024);
	if (ps.has_swap)
		t->s.swap_bytes = (int64_t)(ps.vm_swap_kb * 1024);
	if (ps.has_ctxt) {
		if (first && !t->have_ctxt0) {
			t->have_ctxt0 = 1;
			t->vol0 = ps.vol_ctxt;
			t->nonvol0 = ps.nonvol_ctxt;
		}
		t->s.has_ctxt = 1;
		t->s.vol_ctxt = ps.vol_ctxt;
		t->s.nonvol_ctxt = ps.nonvol_ctxt;
	}
	return 0;
}

static char *join_cmdline(const char *d, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = d[i] ? d[i] : ' ';
	while (n && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
	return s;
}

/* The processes being built from proc.pids, in the order first seen, and their index by pid. */
struct task_table {
	struct task_build *b;
	size_t nb, cb;
	struct task_index ix;
};

/*
 * A new entry for pid (a new process, or a pid reused by one), zeroed but
 * for its pid, indexed. NULL when out of memory.
 */
static struct task_build *task_table__add(struct task_table *tt, int pid)
{
	struct task_build *t;

	if (tt->nb == tt->cb) {
		size_t nc = tt->cb ? tt->cb * 2 : 256;
		struct task_build *nbp = realloc(tt->b, nc * sizeof(*nbp));

		if (!nbp)
			return NULL;
		tt->b = nbp;
		tt->cb = nc;
	}
	/* Growing the table may need a bigger index: rebuild it. */
	if ((tt->nb + 1) * 2 > tt->ix.cap) {
		size_t ncap = tt->ix.cap * 2;
		int *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		free(tt->ix.slot);
		tt->ix.slot = ns;
		tt->ix.cap = ncap;
		for (size_t k = 0; k < tt->nb; k++)
			*task_index__slot(&tt->ix, tt->b, tt->b[k].s.pid) = (int)k + 1;
	}
	t = &tt->b[tt->nb];
	memset(t, 0, sizeof(*t));
	t->s.pid = pid;
	*task_index__slot(&tt->ix, tt->b, pid) = (int)++tt->nb;
	return t;
}

/*
 * A new entry for a process first seen at r (a new pid, or a pid reused:
 * another starttime), with the counters' values there as its baseline.
 */
static struct task_build *task_table__first(struct task_table *tt, const struct analysis *an,
					    int pid, const struct capture_rec *r,
					    uint64_t starttime)
{
	struct task_build *t = task_table__add(tt, pid);

	if (!t)
		return NULL;
	t->s.uid = -1;
	t->s.fds = -1;
	t->s.anon_bytes = t->s.swap_bytes = -1;
	t->kthread = -1;
	t->s.starttime = starttime;
	t->first_seq = r->seq;
	t->s.first_t = analysis__t(an, r);
	return t;
}

/* A record of t was read: seen up to here; a repeat ('=') of it shares its payload. */
static void task_build__seen(struct task_build *t, const struct analysis *an,
			     const struct capture_rec *r)
{
	t->last_seq = r->seq;
	t->s.last_t = analysis__t(an, r);
	t->stat_data = r->data;
}

/*
 * The process a record with these counters is of: t, or a new one when there
 * was none or the pid was reused (its starttime differs); NULL without memory.
 */
static struct task_build *task_table__counters(struct task_table *tt, const struct analysis *an,
					       struct task_build *t, int pid,
					       const struct capture_rec *r, uint64_t starttime,
					       struct task_counters now)
{
	if (!t || t->s.starttime != starttime) {
		t = task_table__first(tt, an, pid, r, starttime);
		if (!t)
			return NULL;
		t->c0 = now;
	}
	t->c1 = now;
	return t;
}

/* One /proc/PID/stat record: a new process, or the latest values of a known one. */
static int task_table__stat(struct task_table *tt, const struct analysis *an,
			    struct task_build *t, int pid, const struct capture_rec *r)
{
	struct pid_stat ps;

	/* The same bytes as last round (an idle process): only the time moves. */
	if (t && r->data == t->stat_data) {
		task_build__seen(t, an, r);
		return 0;
	}
	if (parse_pid_stat(r->data, r->len, &ps) || ps.nfields < 20)
		return 0;
	t = task_table__counters(tt, an, t, pid, r, ps.starttime,
				 (struct task_counters){ ps.utime, ps.stime, ps.minflt, ps.majflt,
							 ps.blkio_ticks });
	if (!t)
		return -ENOMEM;
	memcpy(t->s.comm, ps.comm, sizeof(t->s.comm));
	t->s.ppid = ps.ppid;
	t->s.state = ps.state;
	t->s.threads = ps.num_threads;
	t->s.rss_bytes = ps.rss_pages * (uint64_t)an->page_size;
	t->s.processor = ps.processor;
	task_build__seen(t, an, r);
	return 0;
}

/*
 * A sonde:task/PID record (a task source's: util/parse.h): what stat,
 * status, schedstat, io, limits and the fd count give, in one.
 */
static int task_table__task(struct task_table *tt, const struct analysis *an,
			    struct task_build *t, int pid, const struct capture_rec *r)
{
	struct pid_task pt;

	if (t && r->data == t->stat_data) {
		task_build__seen(t, an, r);
		return 0;
	}
	if (parse_task_record(r->data, r->len, &pt))
		return 0;
	t = task_table__counters(tt, an, t, pid, r, pt.starttime,
				 (struct task_counters){ pt.utime, pt.stime, pt.minflt, pt.majflt,
							 pt.blkio_ticks });
	if (!t)
		return -ENOMEM;
	snprintf(t->s.comm, sizeof(t->s.comm), "%s", pt.comm);
	t->kthread = pt.kernel_thread;
	t->s.ppid = pt.ppid;
	t->s.state = pt.state;
	t->s.threads = pt.threads;
	t->s.rss_bytes = pt.rss_pages * (uint64_t)an->page_size;
	t->s.processor = pt.processor;
	t->s.uid = pt.uid;
	if (!t->have_ctxt0 && r->seq == t->first_seq) {
		t->have_ctxt0 = 1;
		t->vol0 = pt.vol_ctxt;
		t->nonvol0 = pt.nonvol_ctxt;
	}
	t->s.has_ctxt = 1;
	t->s.vol_ctxt = pt.vol_ctxt;
	t->s.nonvol_ctxt = pt.nonvol_ctxt;
	{
		struct pid_schedstat ss = { pt.run_ns, pt.wait_ns, pt.slices };

		if (!t->have_sched0 && r->seq == t->first_seq) {
			t->sched0 = ss;
			t->have_sched0 = 1;
		}
		t->sched1 = ss;
		t->have_sched1 = 1;
	}
	if (pt.has_io) {
		struct pid_io io = { .present = 1, .rchar = pt.rchar, .wchar = pt.wchar,
				     .syscr = pt.syscr, .syscw = pt.syscw,
				     .read_bytes = pt.read_bytes, .write_bytes = pt.write_bytes };

		if (!t->have_first_io && r->seq == t->first_seq) {
			t->io0 = io;
			t->have_first_io = 1;
		}
		t->io1 = io;
		t->have_last_io = 1;
	}
	if (pt.fds >= 0)
		t->s.fds = pt.fds;
	if (pt.anon_pages != UINT64_MAX)
		t->s.anon_bytes = (int64_t)(pt.anon_pages * (uint64_t)an->page_size);
	if (pt.swap_pages != UINT64_MAX)
		t->s.swap_bytes = (int64_t)(pt.swap_pages * (uint64_t)an->page_size);
	if (pt.nofile_soft) {
		t->s.nofile_soft = pt.nofile_soft;
		t->s.nofile_hard = pt.nofile_hard;
	}
	task_build__seen(t, an, r);
	return 0;
}

/* Any other file of a known process: status, io, schedstat, cmdline, limits, fd. */
static void task_build__file(struct task_build *t, const char *file, const struct capture_rec *r)
{
	if (!strcmp(file, "status")) {
		status_fields(t, r, r->seq == t->first_seq);
	} else if (!strcmp(file, "io")) {
		struct pid_io io;

		if (r->err) { /* refused (ptrace_may_access): sonde's rights, not a capture gap */
			t->s.io_denied |= r->err == EACCES || r->err == EPERM;
			return;
		}
		if (parse_pid_io(r->data, r->len, &io) || !io.present)
			return;
		if (!t->have_first_io && r->seq == t->first_seq) {
			t->io0 = io;
			t->have_first_io = 1;
		}
		t->io1 = io;
		t->have_last_io = 1;
	} else if (!strcmp(file, "schedstat")) {
		struct pid_schedstat ss;

		if (parse_pid_schedstat(r->data, r->len, &ss))
			return;
		if (!t->have_sched0 && r->seq == t->first_seq) {
			t->sched0 = ss;
			t->have_sched0 = 1;
		}
		t->sched1 = ss;
		t->have_sched1 = 1;
	} else if (!strcmp(file, "cmdline")) {
		free(t->s.cmdline);
		t->s.cmdline = join_cmdline(r->data, r->len);
	} else if (!strcmp(file, "limits")) {
		parse_pid_limits_nofile(r->data, r->len, &t->s.nofile_soft, &t->s.nofile_hard);
	} else if (!strcmp(file, "fd")) {
		int64_t c = 0;

		for (size_t k = 0; k < r->len; k++)
			c += r->data[k] == '\n';
		t->s.fds = c;
	}
}

/* The summary of one process: its counters' deltas over the part of the window it lived. */
static void task_build__summarize(const struct analysis *an, struct task_build *t,
				  uint32_t max_seq, struct task_summary *s)
{
	/* Started inside the window: everything it did is the window's. */
	int born = an->uptime_start > 0 &&
		   (double)t->s.starttime / (double)an->clk_tck > an->uptime_start;

	*s = t->s;
	s->started = t->first_seq > 0 || born;
	s->exited = t->last_seq < max_seq;
	if (born) {
		memset(&t->c0, 0, sizeof(t->c0));
		memset(&t->io0, 0, sizeof(t->io0));
		t->have_first_io = t->have_last_io;
		t->vol0 = t->nonvol0 = 0;
		t->have_ctxt0 = s->has_ctxt;
		memset(&t->sched0, 0, sizeof(t->sched0));
		t->have_sched0 = t->have_sched1;
	}
	s->utime = counter__delta(t->c0.utime, t->c1.utime, NULL);
	s->stime = counter__delta(t->c0.stime, t->c1.stime, NULL);
	s->minflt = counter__delta(t->c0.minflt, t->c1.minflt, NULL);
	s->majflt = counter__delta(t->c0.majflt, t->c1.majflt, NULL);
	s->blkio_ticks = counter__delta(t->c0.blkio, t->c1.blkio, NULL);
	s->has_io = t->have_first_io && t->have_last_io;
	if (s->has_io) {
		s->read_bytes = counter__delta(t->io0.read_bytes, t->io1.read_bytes, NULL);
		s->write_bytes = counter__delta(t->io0.write_bytes, t->io1.write_bytes, NULL);
		s->rchar = counter__delta(t->io0.rchar, t->io1.rchar, NULL);
		s->wchar = counter__delta(t->io0.wchar, t->io1.wchar, NULL);
		s->syscr = counter__delta(t->io0.syscr, t->io1.syscr, NULL);
		s->syscw = counter__delta(t->io0.syscw, t->io1.syscw, NULL);
	}
	s->has_sched = t->have_sched0 && t->have_sched1;
	if (s->has_sched) {
		s->run_ns = counter__delta(t->sched0.run_ns, t->sched1.run_ns, NULL);
		s->wait_ns = counter__delta(t->sched0.wait_ns, t->sched1.wait_ns, NULL);
		s->slices = counter__delta(t->sched0.slices, t->sched1.slices, NULL);
	}
	if (s->has_ctxt && t->have_ctxt0) {
		s->vol_ctxt = counter__delta(t->vol0, s->vol_ctxt, NULL);
		s->nonvol_ctxt = counter__delta(t->nonvol0, s->nonvol_ctxt, NULL);
	} else {
		s->has_ctxt = 0;
		s->vol_ctxt = s->nonvol_ctxt = 0;
	}
	s->self = s->pid == an->sonde_pid && !strcmp(s->comm, "sonde");
	if (t->kthread >= 0)
		s->kernel_thread = t->kthread;
	else
		s->kernel_thread = (s->pid == 2 || s->ppid == 2) && (!s->cmdline || !s->cmdline[0]);
	t->s.cmdline = NULL; /* ownership moved */
}

int analysis__tasks(struct analysis *an, const struct task_summary **out, size_t *n)
{
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.pids");
	struct task_table tt = { 0 };
	uint32_t max_seq = 0;
	int err = 0;

	if (an->tasks_built) {
		*out = an->tasks;
		*n = an->ntasks;
		return 0;
	}
	if (!st)
		return -ENOENT;
	for (tt.ix.cap = 1024; tt.ix.cap < st->n; tt.ix.cap <<= 1)
		;
	tt.ix.slot = calloc(tt.ix.cap, sizeof(*tt.ix.slot));
	if (!tt.ix.slot)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].seq > max_seq)
			max_seq = st->rec[i].seq;

	for (size_t i = 0; i < st->n && !err; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *file;
		int pid = path_pid(r->path, &file), *slot;
		struct task_build *t;

		if (pid <= 0 || (r->err && strcmp(file, "io")))
			continue;
		slot = task_index__slot(&tt.ix, tt.b, pid);
		t = *slot ? &tt.b[*slot - 1] : NULL;
		if (!strcmp(file, "stat"))
			err = task_table__stat(&tt, an, t, pid, r);
		else if (!strcmp(file, "task"))
			err = task_table__task(&tt, an, t, pid, r);
		else if (t)
			task_build__file(t, file, r);
	}
	if (err)
		goto cleanup;

	an->tasks = calloc(tt.nb ? tt.nb : 1, sizeof(*an->tasks));
	if (!an->tasks) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < tt.nb; i++)
		task_build__summarize(an, &tt.b[i], max_seq, &an->tasks[i]);
	an->ntasks = tt.nb;
	an->tasks_built = 1;
	*out = an->tasks;
	*n = an->ntasks;
cleanup:
	if (err)
		for (size_t i = 0; i < tt.nb; i++)
			free(tt.b[i].s.cmdline);
	free(tt.b);
	free(tt.ix.slot);
	return err;
}

/* ---- BPF tools ---- */

#define BPF_DOC_MAX (32u << 20)

static int doc_by_name(const void *a, const void *b)
{
	return strcmp(((const struct bpf_doc *)a)->name, ((const struct bpf_doc *)b)->name);
}

/* What one parsed JSON value may cost: the jval, its key pointer, an allocation for its string. */
#define JVAL_COST 96

static uint64_t jval_count(const struct jval *v)
{
	uint64_t n = 1;

	if (v->type == J_ARRAY || v->type == J_OBJECT)
		for (size_t i = 0; i < v->len; i++)
			n += jval_count(&v->items[i]);
	return n;
}

/*
 * A JSON capture of sonde's own (raw/bpf/<tool>.json, raw/perf/counters.json):
 * read bounded, parsed strictly, of the expected schema, within what is left
 * of the analysis's memory limit (the streams' share, an->docs_held) and
 * charged to it. NULL with the reason in why (shown names the file); *rc is
 * -ENOENT when it is absent.
 */
static struct jval *raw_doc(struct analysis *an, int dirfd, const char *path, const char *shown,
			    const char *schema, const struct json_read_limits *dlim, int *rc,
			    char *why, size_t whylen)
{
	struct json_read_limits lim = *dlim;
	uint64_t used = an->cs.held + an->docs_held, room;
	struct jval *doc = NULL;
	char *text = NULL, err[256];
	size_t len = 0;
	const char *sc;

	room = an->cs.lim.max_memory_bytes > used ? an->cs.lim.max_memory_bytes - used : 0;
	*rc = file__read_bounded(dirfd, path, lim.max_bytes < room ? lim.max_bytes : room, &text,
				 &len);
	if (*rc) {
		snprintf(why, whylen, "%s: %s", shown,
			 *rc != -EFBIG ? strerror(-*rc) :
			 room < lim.max_bytes ? "too large for what is left of the analysis's memory limit" :
			 "too large");
		return NULL;
	}
	/* its values, at their cost, within what is left beside the text */
	if ((room - len) / JVAL_COST < lim.max_items)
		lim.max_items = (size_t)((room - len) / JVAL_COST);
	*rc = json_read(text, len, &lim, &doc, err, sizeof(err));
	free(text);
	if (*rc) {
		snprintf(why, whylen, "%s is not valid JSON: %s%s", shown, err,
			 lim.max_items < dlim->max_items ?
				 " (within what is left of the analysis's memory limit)" : "");
		return NULL;
	}
	an->docs_held += len + jval_count(doc) * JVAL_COST;
	if (doc->type != J_OBJECT || !(sc = jval__str(doc, "schema")) || strcmp(sc, schema)) {
		snprintf(why, whylen, "%s is not a %s document", shown, schema);
		jval__free(doc);
		*rc = -EINVAL;
		return NULL;
	}
	return doc;
}

static void load_bpf_docs(struct analysis *an)
{
	static const struct json_read_limits lim = {
		.max_bytes = BPF_DOC_MAX, .max_depth = 16, .max_items = 4u << 20,
		.max_string = 64u << 10,
	};
	char dir[4200];
	DIR *d;
	struct dirent *de;
	size_t cap = 0;

	an->bpf_loaded = 1;
	snprintf(dir, sizeof(dir), "%s/bpf", an->raw_dir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		struct bpf_doc *bd;
		char shown[300];
		int rc;

		if (de->d_name[0] == '.' || nl <= 5 || nl - 5 >= sizeof(bd->name) ||
		    strcmp(de->d_name + nl - 5, ".json"))
			continue;
		if (an->nbpf == cap) {
			struct bpf_doc *n = realloc(an->bpf, (cap = cap ? cap * 2 : 16) * sizeof(*n));

			if (!n)
				break;
			an->bpf = n;
		}
		bd = &an->bpf[an->nbpf++];
		memset(bd, 0, sizeof(*bd));
		memcpy(bd->name, de->d_name, nl - 5);
		snprintf(shown, sizeof(shown), "raw/bpf/%s", de->d_name);
		bd->doc = raw_doc(an, dirfd(d), de->d_name, shown, "sonde.bpf/1", &lim, &rc, bd->why,
				  sizeof(bd->why));
	}
	closedir(d);
	if (an->nbpf)
		qsort(an->bpf, an->nbpf, sizeof(*an->bpf), doc_by_name);
}

const struct jval *analysis__bpf(struct analysis *an, const char *name, char *why, size_t whylen)
{
	const struct jval *data;
	const char *status, *reason;

	if (!an->bpf_loaded)
		load_bpf_docs(an);
	for (size_t i = 0; i < an->nbpf; i++) {
		if (strcmp(an->bpf[i].name, name))
			continue;
		if (!an->bpf[i].doc) {
			snprintf(why, whylen, "%s", an->bpf[i].why);
			return NULL;
		}
		status = jval__str(an->bpf[i].doc, "status");
		reason = jval__str(an->bpf[i].doc, "reason");
		data = jval__get(an->bpf[i].doc, "data");
		if (!status || strcmp(status, "ok") || !data || data->type != J_OBJECT) {
			snprintf(why, whylen, "BPF tool %s did not run: %s", name,
				 reason ? reason : "no reason recorded");
			return NULL;
		}
		return an->bpf[i].doc;
	}
	snprintf(why, whylen,
		 "BPF tool %s was not run in this window (raw/bpf/%s.json is absent: no check "
		 "asked for it, or the capture predates it)",
		 name, name);
	return NULL;
}

static double num_or(const struct jval *v, const char *key, double def)
{
	double d;

	return jval__num(v, key, &d) ? def : d;
}

/* The cost model's part of a tool's document: prediction, filter, what instead. */
static void tool_prediction(struct tool_summary *t, const struct jval *doc)
{
	const struct jval *p = jval__get(doc, "predicted"), *f = jval__get(doc, "filtered_to");
	const struct jval *data = jval__get(doc, "data");
	const char *s;
	size_t used = 0;

	if (p && p->type == J_OBJECT) {
		t->has_pred = 1;
		t->predicted_pct = num_or(p, "cpu_pct", 0);
		t->has_load = jval__get(p, "load_pct") != NULL;
		t->predicted_load_pct = num_or(p, "load_pct", t->predicted_pct);
		t->duty = num_or(p, "duty", 1);
		t->budget_pct = num_or(doc, "budget_pct", 0);
	}
	s = jval__str(doc, "instead");
	snprintf(t->instead, sizeof(t->instead), "%s", s ? s : "");
	for (size_t i = 0; f && f->type == J_ARRAY && i < f->len && used < sizeof(t->filtered_to);
	     i++) {
		size_t room = sizeof(t->filtered_to) - used;

		if (f->items[i].type == J_NUMBER)
			used += (size_t)snprintf(t->filtered_to + used, room, "%s%.0f",
						 i ? ", " : "", f->items[i].number);
	}
	if (data && data->type == J_OBJECT)
		t->self_signals = (uint64_t)num_or(data, "self_signals", 0);
}

int analysis__tools(struct analysis *an, const struct tool_summary **out, size_t *n)
{
	if (!an->bpf_loaded)
		load_bpf_docs(an);
	if (!an->tools && an->nbpf) {
		an->tools = calloc(an->nbpf, sizeof(*an->tools));
		if (!an->tools)
			return -ENOMEM;
		for (size_t i = 0; i < an->nbpf; i++) {
			struct tool_summary *t = &an->tools[an->ntools++];
			const struct jval *doc = an->bpf[i].doc, *cost;
			const char *s;

			snprintf(t->name, sizeof(t->name), "%s", an->bpf[i].name);
			if (!doc) {
				snprintf(t->status, sizeof(t->status), "unreadable");
				snprintf(t->reason, sizeof(t->reason), "%s", an->bpf[i].why);
				continue;
			}
			s = jval__str(doc, "status");
			snprintf(t->status, sizeof(t->status), "%s", s ? s : "?");
			s = jval__str(doc, "reason");
			snprintf(t->reason, sizeof(t->reason), "%s", s ? s : "");
			s = jval__str(doc, "attach");
			snprintf(t->attach, sizeof(t->attach), "%s", s ? s : "");
			s = jval__str(doc, "stopped_early");
			snprintf(t->stopped, sizeof(t->stopped), "%s", s ? s : "");
			t->runs = (uint64_t)num_or(doc, "runs", 0);
			t->drops = (uint64_t)num_or(doc, "drops", 0);
			t->setup_ms = num_or(doc, "setup_ms", 0);
			t->teardown_ms = num_or(doc, "teardown_ms", 0);
			t->traced_from_s = num_or(doc, "traced_from_s", 0);
			t->traced_to_s = num_or(doc, "traced_to_s", 0);
			tool_prediction(t, doc);
			cost = jval__get(doc, "cost");
			if (cost && cost->type == J_OBJECT) {
				t->cpu_ns = num_or(cost, "cpu_ns", 0);
				s = jval__str(cost, "source");
				snprintf(t->cost_source, sizeof(t->cost_source), "%s", s ? s : "");
			}
		}
	}
	*out = an->tools;
	*n = an->ntools;
	return 0;
}

/* ---- perf counters ---- */

const struct jval *analysis__perf_counters(struct analysis *an, char *why, size_t whylen)
{
	static const struct json_read_limits lim = {
		.max_bytes = BPF_DOC_MAX, .max_depth = 8, .max_items = 1u << 20,
		.max_string = 4u << 10,
	};
	const char *status, *reason;
	const struct jval *ev;

	if (!an->perf_loaded) {
		char path[4200];
		int rc;

		an->perf_loaded = 1;
		snprintf(path, sizeof(path), "%s/perf/counters.json", an->raw_dir);
		an->perf_doc = raw_doc(an, AT_FDCWD, path, "raw/perf/counters.json", "sonde.perf/1",
				       &lim, &rc, an->perf_why, sizeof(an->perf_why));
		if (rc == -ENOENT)
			snprintf(an->perf_why, sizeof(an->perf_why),
				 "perf counters were not collected in this window "
				 "(raw/perf/counters.json is absent: no check asked for "
				 "perf.counters, or the capture predates it)");
	}
	if (!an->perf_doc) {
		snprintf(why, whylen, "%s", an->perf_why);
		return NULL;
	}
	status = jval__str(an->perf_doc, "status");
	reason = jval__str(an->perf_doc, "reason");
	ev = jval__get(an->perf_doc, "events");
	if (!status || strcmp(status, "ok") || !ev || ev->type != J_OBJECT) {
		snprintf(why, whylen, "perf counters did not run: %s",
			 reason ? reason : "no reason recorded");
		return NULL;
	}
	return an->perf_doc;
}

void analysis__close(struct analysis *an)
{
	jval__free(an->perf_doc);
	for (size_t i = 0; i < an->nbpf; i++)
		jval__free(an->bpf[i].doc);
	free(an->bpf);
	free(an->tools);
	for (size_t i = 0; i < an->ntasks; i++)
		free(an->tasks[i].cmdline);
	free(an->tasks);
	thread_states__free(an->threads);
	container_set__free(an->containers);
	capture_set__free(&an->cs);
	memset(an, 0, sizeof(*an));
}
