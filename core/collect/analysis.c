// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Facts derived once from the captures: the run, the host, and a summary per
 * process (deltas over the window, with pid reuse and processes that start or
 * exit mid-window handled).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/hostid.h"
#include "util/json_read.h"
#include "util/parse.h"

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

/* A run fact's integer (0 when it is not one, as the facts of a bundle may be anything). */
static int64_t fact_i64(const char *v, size_t vl)
{
	int64_t x;

	return parse_kv_i64(v, vl, &x) ? 0 : x;
}

static double fact_double(const char *v, size_t vl)
{
	double x;

	return parse_kv_double(v, vl, &x) ? 0 : x;
}

/* An int fact: a value that does not fit an int is no value. */
static int fact_int(const char *v, size_t vl)
{
	int64_t x = fact_i64(v, vl);

	return x >= INT_MIN && x <= INT_MAX ? (int)x : 0;
}

/* The budget's facts (run/guard.c): 1 when k was one. */
static int budget_fact(struct run_budget *b, const char *k, size_t kl, const char *val)
{
	double v = fact_double(val, strlen(val));
	char key[48];

	if (kl == 10 && !memcmp(k, "budget_pct", 10)) {
		b->has = 1;
		b->budget_pct = v;
	} else if (kl == 17 && !memcmp(k, "self_reserved_how", 17)) {
		snprintf(b->reserved_how, sizeof(b->reserved_how), "%.599s", val);
	} else if (kl == 17 && !memcmp(k, "self_reserved_pct", 17)) {
		b->reserved_pct = v;
	} else if (kl == 8 && !memcmp(k, "self_pct", 8)) {
		b->has_self = 1;
		b->self_pct = v;
	} else if (kl == 13 && !memcmp(k, "self_rest_pct", 13)) {
		b->self_rest_pct = v;
	} else if (kl == 12 && !memcmp(k, "self_max_pct", 12)) {
		b->self_max_pct = v;
	} else if (kl == 13 && !memcmp(k, "self_max_at_s", 13)) {
		b->self_max_at_s = v;
	} else {
		for (int p = 0; p < SELF_PARTS; p++) {
			const char *name = self_part__name((enum self_part)p);

			snprintf(key, sizeof(key), "self_%s_pct", name);
			if (kl == strlen(key) && !memcmp(k, key, kl)) {
				b->self_part_pct[p] = v;
				return 1;
			}
			snprintf(key, sizeof(key), "self_reserved_%s_pct", name);
			if (kl == strlen(key) && !memcmp(k, key, kl)) {
				b->reserved_part_pct[p] = v;
				return 1;
			}
		}
		return 0;
	}
	return 1;
}

static int run_fact(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct analysis *an = arg;
	char val[640];
	uint64_t u = 0;

	copy_trimmed(val, sizeof(val), v, vl);
#define KEY(name) (kl == strlen(name) && !memcmp(k, name, kl))
	if (budget_fact(&an->budget, k, kl, val))
		return 0;
	if (KEY("version"))
		snprintf(an->version, sizeof(an->version), "%.31s", val);
	else if (KEY("window_s"))
		an->window_s = fact_double(v, vl);
	else if (KEY("interval_s"))
		an->interval_s = fact_double(v, vl);
	else if (KEY("start_wall_ns"))
		an->start_wall_ns = fact_i64(v, vl);
	else if (KEY("end_wall_ns"))
		an->end_wall_ns = fact_i64(v, vl);
	else if (KEY("start_mono_ns"))
		an->start_mono_ns = fact_i64(v, vl);
	else if (KEY("end_mono_ns"))
		an->end_mono_ns = fact_i64(v, vl);
	else if (KEY("samples") && !parse_kv_u64(v, vl, 0, &u))
		an->samples = (uint32_t)u;
	else if (KEY("partial"))
		an->partial = fact_i64(v, vl) != 0;
	else if (KEY("stop_reason"))
		snprintf(an->stop_reason, sizeof(an->stop_reason), "%.399s", val);
	else if (KEY("euid"))
		an->euid = fact_int(v, vl);
	else if (KEY("proc_hidepid"))
		snprintf(an->proc_hidepid, sizeof(an->proc_hidepid), "%.31s", val);
	else if (KEY("clk_tck"))
		an->clk_tck = (long)fact_i64(v, vl);
	else if (KEY("page_size"))
		an->page_size = (long)fact_i64(v, vl);
	else if (KEY("pid"))
		an->sonde_pid = fact_int(v, vl);
#undef KEY
	return 0;
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
		parse_uptime(r->data, r->len, &an->uptime_start, NULL);

	if ((r = first_ok(stat, "/proc/stat"))) {
		struct proc_stat ps = { 0 };

		if (!parse_proc_stat(r->data, r->len, &ps))
			an->cpus = ps.ncpu;
		proc_stat__free(&ps);
	}
	if (!an->cpus && (r = first_ok(host, "/sys/devices/system/cpu/online"))) {
		unsigned n;

		if (!parse_cpu_list(r->data, r->len, &n) && n <= INT_MAX)
			an->cpus = (int)n;
	}
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

void analysis__preload(struct analysis *an, const char *collector)
{
	const struct thread_states *ts;
	const struct task_summary *tasks;
	const struct pidmap *levels;
	size_t n;
	int fds;
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
	/* the six runout checks' levels of every process, one pass for all of them */
	if (!strcmp(collector, "proc.pids"))
		analysis__levels(an, &levels, &fds);
	/*
	 * The BPF tools' documents are read all at once, whichever tool a check
	 * asks for: 30 checks read one, and each parsed them all again (the
	 * profile's is hundreds of KB on a busy host).
	 */
	if (!strncmp(collector, "bpf.", 4) && !an->bpf_loaded)
		analysis__load_bpf_docs(an);
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
		int pid = parse_capture_pid_path(r->path, &file), *slot;
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
	analysis__levels_free(an);
	container_set__free(an->containers);
	capture_set__free(&an->cs);
	memset(an, 0, sizeof(*an));
}
