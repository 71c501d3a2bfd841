// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The system-wide parsers of util/parse.h on the files of hosts with many
 * CPUs, as the kernel prints them: /proc/stat (a cpuN line each, and an intr
 * line of 424 + 8 x N counts), /proc/interrupts and /proc/softirqs (a column
 * each: lines of 11 x N bytes), /proc/schedstat (a cpuN line and three domain
 * lines each, cpumasks of N / 32 words), at 192 and 1,024 CPUs: whole, cut at
 * every line end, one byte before and after it, and at a stride inside lines,
 * and at sonde's read cap (1 MiB: a 1,024-CPU /proc/interrupts with 100 device
 * lines is longer, and the reader keeps its first MiB).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/strbuf.h"
#include "tap.h"

#define READ_CAP_BYTES (1u << 20) /* collect/collect.h READ_CAP */
#define DEVICE_LINES 100

/* A count of (line, cpu), below 1e6: ten digits hold it, and sums fit easily. */
static uint64_t count_of(int line, int cpu)
{
	return ((uint64_t)line * 7919 + (uint64_t)cpu * 104729) % 1000003;
}

/* The line ends of text: ends[i] is the offset just past the i-th '\n'. */
static size_t line_ends(const struct strbuf *t, size_t **ends)
{
	size_t n = 0;

	*ends = malloc((t->len + 1) * sizeof(**ends));
	if (!*ends)
		abort();
	for (size_t i = 0; i < t->len; i++)
		if (t->buf[i] == '\n')
			(*ends)[n++] = i + 1;
	return n;
}

/* A copy of the first len bytes, in a buffer of exactly that size (ASan sees any overread). */
static char *cut_copy(const struct strbuf *t, size_t len)
{
	char *b = malloc(len ? len : 1);

	if (!b)
		abort();
	memcpy(b, t->buf, len);
	return b;
}

/*
 * fn on cuts of t: at every line end, a byte before and after it, and every
 * stride bytes (0: none), each a copy of exactly len bytes and the number of
 * whole lines in it. The sum of what fn returns (its count of wrong results).
 */
typedef int (*cut_fn)(const char *b, size_t len, size_t whole, void *arg);

static int each_cut(const struct strbuf *t, size_t stride, cut_fn fn, void *arg)
{
	size_t *ends, nl = line_ends(t, &ends), n = 0, *lens = malloc((3 * nl + 2) * sizeof(*lens));
	int bad = 0;

	if (!lens)
		abort();
	for (size_t i = 0; i < nl; i++)
		for (int d = -1; d <= 1; d++)
			if ((size_t)((long)ends[i] + d) <= t->len)
				lens[n++] = (size_t)((long)ends[i] + d);
	for (size_t k = 0; k < n + (stride ? t->len / stride + 1 : 0); k++) {
		size_t len = k < n ? lens[k] : (k - n) * stride, whole = 0;
		char *b = cut_copy(t, len);

		while (whole < nl && ends[whole] <= len)
			whole++;
		bad += fn(b, len, whole, arg);
		free(b);
	}
	free(lens);
	free(ends);
	return bad;
}

/* ---- /proc/stat ---- */

static void cpu_fields(int c, uint64_t v[10])
{
	for (int f = 0; f < 10; f++)
		v[f] = f == 1 || f >= 7 ? 0 : (uint64_t)c * 100 + f + 1;
}

static void make_stat(struct strbuf *t, int ncpu)
{
	uint64_t sum[10] = { 0 }, v[10];
	int nr_irqs = 424 + 8 * ncpu;

	for (int c = 0; c < ncpu; c++) {
		cpu_fields(c, v);
		for (int f = 0; f < 10; f++)
			sum[f] += v[f];
	}
	strbuf__puts(t, "cpu ");
	for (int f = 0; f < 10; f++)
		strbuf__printf(t, " %llu", (unsigned long long)sum[f]);
	strbuf__puts(t, "\n");
	for (int c = 0; c < ncpu; c++) {
		cpu_fields(c, v);
		strbuf__printf(t, "cpu%d", c);
		for (int f = 0; f < 10; f++)
			strbuf__printf(t, " %llu", (unsigned long long)v[f]);
		strbuf__puts(t, "\n");
	}
	strbuf__puts(t, "intr 123456");
	for (int i = 0; i < nr_irqs; i++)
		strbuf__printf(t, " %d", i % 97 ? 0 : i);
	strbuf__puts(t, "\nctxt 987654321\nbtime 1763699000\nprocesses 50000\n"
			"procs_running 28\nprocs_blocked 1\n"
			"softirq 1000 0 100 0 300 200 0 0 100 0 300\n");
}

static int stat_cut(const char *b, size_t len, size_t whole, void *arg)
{
	size_t ncpu = (size_t)*(const int *)arg;
	struct proc_stat ps;
	int err = parse_proc_stat(b, len, &ps), bad;

	if (!whole)
		return err != -EINVAL;
	bad = err || ps.ncpu != (int)(whole - 1 < ncpu ? whole - 1 : ncpu);
	if (!err)
		proc_stat__free(&ps);
	return bad;
}

static void test_stat(int ncpu)
{
	struct strbuf t = { 0 };
	struct proc_stat ps;
	uint64_t v[10];
	int bad = 0, err;

	make_stat(&t, ncpu);
	if (t.oom)
		abort();
	err = parse_proc_stat(t.buf, t.len, &ps);
	is_int(err, 0, "/proc/stat at %d CPUs (%zu bytes) parses", ncpu, t.len);
	is_int(ps.ncpu, ncpu, "/proc/stat at %d CPUs: a cpuN line each", ncpu);
	for (int c = 0; c < ps.ncpu; c++) {
		cpu_fields(c, v);
		bad += ps.cpu_id[c] != c || ps.cpu[c].user != v[0] || ps.cpu[c].irq != v[5] ||
		       ps.cpu[c].softirq != v[6] || ps.cpu[c].idle != v[3];
	}
	is_int(bad, 0, "/proc/stat at %d CPUs: every CPU's number and times", ncpu);
	ok(ps.procs_running == 28 && ps.ctxt == 987654321 && ps.procs_blocked == 1,
	   "/proc/stat at %d CPUs: the scalars after an intr line of %d counts", ncpu,
	   424 + 8 * ncpu);
	proc_stat__free(&ps);

	/* -EINVAL before the "cpu " line is whole, then exactly the cpuN lines whole before the cut */
	is_int(each_cut(&t, 0, stat_cut, &ncpu), 0,
	       "/proc/stat at %d CPUs: every cut near a line end gives whole lines only", ncpu);

	/* offline CPUs: the kernel leaves their lines out, the numbers keep their gaps */
	t.len = 0;
	strbuf__puts(&t, "cpu  1 0 1 1 0 0 0 0 0 0\n");
	for (int c = 0; c < ncpu; c += 2)
		strbuf__printf(&t, "cpu%d 1 0 1 1 0 0 0 0 0 0\n", c);
	err = parse_proc_stat(t.buf, t.len, &ps);
	ok(!err && ps.ncpu == ncpu / 2 && ps.cpu_id[ps.ncpu - 1] == ncpu - 2,
	   "/proc/stat at %d CPUs with every odd one offline: %d lines, the last cpu%d", ncpu,
	   ncpu / 2, ncpu - 2);
	if (!err)
		proc_stat__free(&ps);
	strbuf__free(&t);
}

/* ---- /proc/interrupts and /proc/softirqs ---- */

struct irq_sums {
	int n, bad;
	int ndev, nsoft;
	uint64_t last_total;
	char last[16];
};

static int irq_sum(const char *name, size_t nlen, const char *desc, size_t dlen, uint64_t total,
		   void *arg)
{
	struct irq_sums *s = arg;

	s->n++;
	s->last_total = total;
	snprintf(s->last, sizeof(s->last), "%.*s", (int)(nlen < 15 ? nlen : 15), name);
	if (nlen && name[0] >= '0' && name[0] <= '9') {
		/* a device line: its number is its line index + 64, its sum known */
		int line = atoi(s->last) - 64;
		uint64_t want = 0;

		for (int c = 0; c < s->ndev; c++)
			want += count_of(line, c);
		s->bad += total != want || dlen < 8 || memcmp(desc + dlen - 7, "-TxRx-", 6);
	}
	return 0;
}

/* interrupts and softirqs: -EINVAL before the header is whole, then its whole lines */
static int irq_cut(const char *b, size_t len, size_t whole, void *arg)
{
	struct irq_sums c = { .ndev = *(const int *)arg };
	int err = parse_interrupts(b, len, irq_sum, &c);

	return whole ? err || c.bad || c.n != (int)whole - 1 : err != -EINVAL;
}

/* x86's format: "%*d:" then " %10u" a CPU, then the chip, hwirq and action name. */
static void make_interrupts(struct strbuf *t, int ncpu, int ndev)
{
	static const char *const arch[] = { "NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "RES",
					    "CAL", "TLB", "TRM", "THR", "DFR", "MCE", "MCP" };
	int prec = ncpu > 100 ? 4 : 3;

	strbuf__printf(t, "%*s", prec + 8, "");
	for (int c = 0; c < ncpu; c++)
		strbuf__printf(t, "CPU%-8d", c);
	strbuf__puts(t, "\n");
	for (int l = 0; l < ndev; l++) {
		strbuf__printf(t, "%*d:", prec, 64 + l);
		for (int c = 0; c < ncpu; c++)
			strbuf__printf(t, " %10llu", (unsigned long long)count_of(l, c));
		strbuf__printf(t, " IR-PCI-MSIX-0000:3b:00.0 %*d-edge      eth0-TxRx-%d\n", prec, l,
			       l % 10);
	}
	for (size_t a = 0; a < sizeof(arch) / sizeof(arch[0]); a++) {
		strbuf__printf(t, "%*s:", prec, arch[a]);
		for (int c = 0; c < ncpu; c++)
			strbuf__printf(t, " %10d", a == 1 ? 250000 : 0);
		strbuf__puts(t, "   Some interrupts\n");
	}
	strbuf__printf(t, "%*s: %10d\n%*s: %10d\n", prec, "ERR", 0, prec, "MIS", 0);
}

static void test_interrupts(int ncpu)
{
	struct strbuf t = { 0 };
	struct irq_sums s = { .ndev = ncpu };
	int err;

	make_interrupts(&t, ncpu, DEVICE_LINES);
	if (t.oom)
		abort();
	err = parse_interrupts(t.buf, t.len, irq_sum, &s);
	is_int(err, 0, "/proc/interrupts at %d CPUs (%zu bytes, lines of %zu) parses", ncpu, t.len,
	       (size_t)(t.len / (DEVICE_LINES + 17)));
	is_int(s.n, DEVICE_LINES + 16, "/proc/interrupts at %d CPUs: every line", ncpu);
	is_int(s.bad, 0, "/proc/interrupts at %d CPUs: each device line sums its %d columns", ncpu,
	       ncpu);
	is_str(s.last, "MIS", "/proc/interrupts at %d CPUs: the single-count lines at the end",
	       ncpu);

	/* cut near every line end, and at a stride inside the lines */
	is_int(each_cut(&t, 4099, irq_cut, &ncpu), 0,
	       "/proc/interrupts at %d CPUs: every cut gives the whole lines before it", ncpu);

	/* the reader's cap: a longer file keeps its first MiB, the lines whole in it */
	if (t.len > READ_CAP_BYTES) {
		struct irq_sums c = { .ndev = ncpu };
		size_t whole = 0, *ends, nl = line_ends(&t, &ends);

		while (whole < nl && ends[whole] <= READ_CAP_BYTES)
			whole++;
		free(ends);
		err = parse_interrupts(t.buf, READ_CAP_BYTES, irq_sum, &c);
		ok(!err && !c.bad && c.n == (int)whole - 1 && c.n < DEVICE_LINES,
		   "/proc/interrupts at %d CPUs cut at 1 MiB: its first %d device lines, no "
		   "local timer line",
		   ncpu, c.n);
	}

	/* CPU hotplug between two reads of the seq_file: a line of one column less is skipped */
	t.len = 0;
	strbuf__printf(&t, "%11s", "");
	for (int c = 0; c < ncpu; c++)
		strbuf__printf(&t, "CPU%-8d", c);
	strbuf__puts(&t, "\n 64:");
	for (int c = 0; c < ncpu - 1; c++)
		strbuf__printf(&t, " %10d", 1);
	strbuf__puts(&t, "  IR-PCI-MSIX 0-edge eth0-TxRx-0\n 65:");
	for (int c = 0; c < ncpu; c++)
		strbuf__printf(&t, " %10d", 1);
	strbuf__puts(&t, "  IR-PCI-MSIX 1-edge eth0-TxRx-1\n");
	memset(&s, 0, sizeof(s));
	err = parse_interrupts(t.buf, t.len, irq_sum, &s);
	ok(!err && s.n == 1 && !strcmp(s.last, "65") && s.last_total == (uint64_t)ncpu,
	   "/proc/interrupts at %d CPUs: a line of %d counts is skipped, the next one summed",
	   ncpu, ncpu - 1);
	strbuf__free(&t);
}

/* "%12s:" then " %10u" a possible CPU, under a header of 20 blanks and CPU%-8d. */
static void test_softirqs(int ncpu)
{
	static const char *const names[] = { "HI",      "TIMER",   "NET_TX", "NET_RX",
					     "BLOCK",   "IRQ_POLL", "TASKLET", "SCHED",
					     "HRTIMER", "RCU" };
	struct strbuf t = { 0 };
	struct irq_sums s = { 0 };
	uint64_t net_rx = 0;
	int err, bad, zero = 0; /* no device lines */

	strbuf__printf(&t, "%20s", "");
	for (int c = 0; c < ncpu; c++)
		strbuf__printf(&t, "CPU%-8d", c);
	strbuf__puts(&t, "\n");
	for (int l = 0; l < 10; l++) {
		strbuf__printf(&t, "%12s:", names[l]);
		for (int c = 0; c < ncpu; c++)
			strbuf__printf(&t, " %10llu", (unsigned long long)count_of(l, c));
		strbuf__puts(&t, "\n");
	}
	for (int c = 0; c < ncpu; c++)
		net_rx += count_of(3, c);
	err = parse_interrupts(t.buf, t.len, irq_sum, &s);
	ok(!err && s.n == 10 && !strcmp(s.last, "RCU"),
	   "/proc/softirqs at %d CPUs (%zu bytes): the 10 types", ncpu, t.len);
	bad = each_cut(&t, 1009, irq_cut, &zero);
	memset(&s, 0, sizeof(s));
	/* NET_RX's sum: the file cut after its line, so that it is the last one seen */
	{
		size_t at = (size_t)(strstr(t.buf, "NET_RX:") - t.buf);
		size_t end = (size_t)(strchr(t.buf + at, '\n') - t.buf) + 1;
		char *b = cut_copy(&t, end);

		err = parse_interrupts(b, end, irq_sum, &s);
		ok(!err && s.n == 4 && !strcmp(s.last, "NET_RX") && s.last_total == net_rx,
		   "/proc/softirqs at %d CPUs: NET_RX sums its %d columns", ncpu, ncpu);
		free(b);
	}
	is_int(bad, 0, "/proc/softirqs at %d CPUs: every cut gives the whole lines before it", ncpu);
	strbuf__free(&t);
}

/* ---- /proc/schedstat ---- */

struct sched_sums {
	int n, bad;
};

static int sched_sum(int cpu, uint64_t run_ns, uint64_t wait_ns, uint64_t slices, void *arg)
{
	struct sched_sums *s = arg;

	s->bad += cpu != s->n || run_ns != 1000000ull * (uint64_t)cpu + 7 ||
		  wait_ns != count_of(1, cpu) || slices != (uint64_t)cpu + 3;
	s->n++;
	return 0;
}

/* version 17: "cpuN" nine fields, then "domainD NAME MASK" and 45 counts a level */
static void make_schedstat(struct strbuf *t, int ncpu)
{
	static const char *const levels[] = { "SMT", "MC", "NUMA" };
	int words = (ncpu + 31) / 32;

	strbuf__puts(t, "version 17\ntimestamp 4295892357\n");
	for (int c = 0; c < ncpu; c++) {
		strbuf__printf(t, "cpu%d 0 0 %d %d %d %d %llu %llu %d\n", c, c, c, c, c,
			       1000000ull * (unsigned long long)c + 7,
			       (unsigned long long)count_of(1, c), c + 3);
		for (int d = 0; d < 3; d++) {
			strbuf__printf(t, "domain%d %s ", d, levels[d]);
			for (int w = words - 1; w >= 0; w--)
				strbuf__printf(t, "%s%08x", w == words - 1 ? "" : ",",
					       d == 2 || w == c / 32 ? 0xffffffffu : 0);
			for (int f = 0; f < 45; f++)
				strbuf__printf(t, " %d", f * c % 13);
			strbuf__puts(t, "\n");
		}
	}
}

/*
 * -EINVAL until the version line is whole, then the whole cpuN lines: the
 * third line, then every fourth (a cpu line and its three domain lines)
 */
static int sched_cut(const char *b, size_t len, size_t whole, void *arg)
{
	struct sched_sums c = { 0 };
	int err = parse_schedstat(b, len, sched_sum, &c);
	int cpus = whole < 3 ? 0 : (int)(whole - 3) / 4 + 1;

	return c.bad || c.n != cpus || (whole ? err != 0 : err != -EINVAL);
}

static void test_schedstat(int ncpu)
{
	struct strbuf t = { 0 };
	struct sched_sums s = { 0 };
	int err;

	make_schedstat(&t, ncpu);
	if (t.oom)
		abort();
	err = parse_schedstat(t.buf, t.len, sched_sum, &s);
	ok(!err && s.n == ncpu && !s.bad,
	   "/proc/schedstat at %d CPUs (%zu bytes, 3 domain lines a CPU): every CPU's run, wait "
	   "and timeslices",
	   ncpu, t.len);
	is_int(each_cut(&t, 0, sched_cut, NULL), 0,
	       "/proc/schedstat at %d CPUs: every cut near a line end gives whole CPUs only", ncpu);
	if (t.len > READ_CAP_BYTES) {
		struct sched_sums c = { 0 };

		err = parse_schedstat(t.buf, READ_CAP_BYTES, sched_sum, &c);
		ok(!err && !c.bad && c.n > 0 && c.n < ncpu,
		   "/proc/schedstat at %d CPUs (%zu bytes) cut at 1 MiB: its first %d CPUs", ncpu,
		   t.len, c.n);
	}
	strbuf__free(&t);
}

int main(void)
{
	static const int sizes[] = { 192, 1024 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		test_stat(sizes[i]);
		test_interrupts(sizes[i]);
		test_softirqs(sizes[i]);
		test_schedstat(sizes[i]);
	}
	return tap_done();
}
