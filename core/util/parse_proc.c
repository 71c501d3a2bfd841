// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsers of the system-wide /proc files sonde captures (formats in
 * parse.h): stat, loadavg, uptime, file-nr, pressure, the key/value files,
 * snmp, diskstats, net/dev, interrupts, schedstat, /dev/kmsg; and counter
 * deltas. The rules every parser keeps (never past len, complete lines
 * only) are at the top of parse.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

/* ---- /proc/stat ---- */

static int parse_cpu_times(const char *p, const char *end, struct cpu_times *ct)
{
	uint64_t v[10] = { 0 };
	int n = 0;

	/* Kernels add columns at the end (steal 2.6.11, guest 2.6.24, guest_nice 2.6.33). */
	while (n < 10) {
		p = parse_skip_blanks(p, end);
		if (p == end)
			break;
		if (parse_scan_u64_field(&p, end, &v[n]))
			return -EINVAL;
		n++;
	}
	if (n < 4)
		return -EINVAL;
	ct->user = v[0];
	ct->nice = v[1];
	ct->system = v[2];
	ct->idle = v[3];
	ct->iowait = v[4];
	ct->irq = v[5];
	ct->softirq = v[6];
	ct->steal = v[7];
	ct->guest = v[8];
	ct->guest_nice = v[9];
	return 0;
}

static int proc_stat__add_cpu(struct proc_stat *ps, int *cap, int id, const struct cpu_times *ct)
{
	if (ps->ncpu == *cap) {
		int ncap;
		void *p;

		if (*cap > INT_MAX / 2)
			return -ENOMEM;
		ncap = *cap ? *cap * 2 : 16;
		/* Each array is stored as soon as it moves, so the cleanup path frees it. */
		p = realloc(ps->cpu_id, ncap * sizeof(*ps->cpu_id));
		if (!p)
			return -ENOMEM;
		ps->cpu_id = p;
		p = realloc(ps->cpu, ncap * sizeof(*ps->cpu));
		if (!p)
			return -ENOMEM;
		ps->cpu = p;
		*cap = ncap;
	}
	ps->cpu_id[ps->ncpu] = id;
	ps->cpu[ps->ncpu] = *ct;
	ps->ncpu++;
	return 0;
}

static void parse_stat_scalar(const char *p, const char *end, uint64_t *out, unsigned *have,
			      unsigned bit)
{
	uint64_t v;

	if (!parse_scan_u64_field(&p, end, &v) && parse_skip_blanks(p, end) == end) {
		*out = v;
		*have |= bit;
	}
}

/*
 * "intr TOTAL N0 N1 ..." and "softirq TOTAL N0 ...": the total, and for intr
 * the sum of the numbered IRQs (the total also counts the architecture's
 * own: the local timer, IPIs). A line with a field that is not a number, or
 * a sum past 64 bits, is no reading.
 */
static void parse_stat_counts(const char *p, const char *end, uint64_t *total, uint64_t *rest,
			      unsigned *have, unsigned bit)
{
	uint64_t t, v, sum = 0;

	if (parse_scan_u64_field(&p, end, &t))
		return;
	while (parse_skip_blanks(p, end) != end) {
		if (parse_scan_u64_field(&p, end, &v) || v > UINT64_MAX - sum)
			return;
		sum += v;
	}
	*total = t;
	if (rest)
		*rest = sum;
	*have |= bit;
}

int parse_proc_stat(const char *buf, size_t len, struct proc_stat *out)
{
	const char *pos, *end, *ls, *le;
	bool have_total = false;
	int cap = 0, last_id = -1, err;

	memset(out, 0, sizeof(*out));
	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		const char *w = parse_skip_blanks(ls, le), *we = parse_token_end(w, le);
		size_t wn = we - w;
		struct cpu_times ct;
		uint64_t id;
		const char *d;

		if (wn >= 3 && !memcmp(w, "cpu", 3)) {
			if (parse_cpu_times(we, le, &ct))
				continue;
			if (wn == 3) {
				out->total = ct;
				have_total = true;
				continue;
			}
			d = w + 3;
			if (parse_scan_u64(&d, we, &id) || d != we || id > INT_MAX)
				continue;
			/*
			 * The kernel lists online CPUs in increasing order, with gaps
			 * for offline ones; anything else is not a kernel's output, and
			 * refusing it keeps cpu_id[] unique and sorted for the callers.
			 */
			if ((int)id <= last_id)
				continue;
			err = proc_stat__add_cpu(out, &cap, (int)id, &ct);
			if (err)
				goto fail;
			last_id = (int)id;
		} else if (parse_word_is(w, wn, "ctxt")) {
			parse_stat_scalar(we, le, &out->ctxt, &out->have, PROC_STAT_CTXT);
		} else if (parse_word_is(w, wn, "btime")) {
			parse_stat_scalar(we, le, &out->btime, &out->have, PROC_STAT_BTIME);
		} else if (parse_word_is(w, wn, "processes")) {
			parse_stat_scalar(we, le, &out->processes, &out->have, PROC_STAT_PROCESSES);
		} else if (parse_word_is(w, wn, "procs_running")) {
			parse_stat_scalar(we, le, &out->procs_running, &out->have,
					  PROC_STAT_PROCS_RUNNING);
		} else if (parse_word_is(w, wn, "procs_blocked")) {
			parse_stat_scalar(we, le, &out->procs_blocked, &out->have,
					  PROC_STAT_PROCS_BLOCKED);
		} else if (parse_word_is(w, wn, "intr")) {
			parse_stat_counts(we, le, &out->intr, &out->intr_numbered, &out->have,
					  PROC_STAT_INTR);
		} else if (parse_word_is(w, wn, "softirq")) {
			parse_stat_counts(we, le, &out->softirq, NULL, &out->have, PROC_STAT_SOFTIRQ);
		}
	}
	if (have_total)
		return 0;
	err = -EINVAL;
fail:
	proc_stat__free(out);
	memset(out, 0, sizeof(*out));
	return err;
}

void proc_stat__free(struct proc_stat *ps)
{
	if (!ps)
		return;
	free(ps->cpu_id);
	free(ps->cpu);
	ps->cpu_id = NULL;
	ps->cpu = NULL;
	ps->ncpu = 0;
}

/* ---- /proc/loadavg, /proc/uptime, /proc/sys/fs/file-nr ---- */

/* Blanks that must be there between two fields. */
static int parse_sep(const char **pp, const char *end)
{
	const char *p = parse_skip_blanks(*pp, end);

	if (p == *pp)
		return -EINVAL;
	*pp = p;
	return 0;
}

int parse_loadavg(const char *buf, size_t len, struct loadavg *out)
{
	struct loadavg la = { 0 };
	const char *p, *end;

	memset(out, 0, sizeof(*out));
	end = parse_line_one(buf, len);
	if (!end)
		return -EINVAL;
	p = parse_skip_blanks(buf, end);
	if (parse_scan_decimal(&p, end, &la.load1) || parse_sep(&p, end) ||
	    parse_scan_decimal(&p, end, &la.load5) || parse_sep(&p, end) ||
	    parse_scan_decimal(&p, end, &la.load15) || parse_sep(&p, end) ||
	    parse_scan_u64(&p, end, &la.runnable) || p == end || *p++ != '/' ||
	    parse_scan_u64(&p, end, &la.threads) || parse_sep(&p, end) ||
	    parse_scan_u64_field(&p, end, &la.last_pid))
		return -EINVAL;
	*out = la;
	return 0;
}

int parse_uptime(const char *buf, size_t len, double *up, double *idle)
{
	const char *p, *end = parse_line_one(buf, len);
	double u, i;

	if (!end)
		return -EINVAL;
	p = parse_skip_blanks(buf, end);
	if (parse_scan_decimal(&p, end, &u) || parse_sep(&p, end) ||
	    parse_scan_decimal(&p, end, &i) || parse_skip_blanks(p, end) != end)
		return -EINVAL;
	*up = u;
	if (idle)
		*idle = i;
	return 0;
}

int parse_file_nr(const char *buf, size_t len, struct file_nr *out)
{
	struct file_nr fn = { 0 };
	const char *p, *end;

	memset(out, 0, sizeof(*out));
	end = parse_line_one(buf, len);
	if (!end)
		return -EINVAL;
	p = buf;
	if (parse_scan_u64_field(&p, end, &fn.allocated) ||
	    parse_scan_u64_field(&p, end, &fn.unused) || parse_scan_u64_field(&p, end, &fn.max))
		return -EINVAL;
	*out = fn;
	return 0;
}

/* ---- /proc/pressure/<resource> ---- */

static int parse_psi_line(const char *p, const char *end, struct psi_line *pl)
{
	struct psi_line l = { 0 };
	unsigned int seen = 0;

	for (;;) {
		const char *t, *te, *eq, *v;
		int err, bit;

		p = parse_skip_blanks(p, end);
		if (p == end)
			break;
		t = p;
		te = parse_token_end(p, end);
		p = te;
		eq = memchr(t, '=', te - t);
		/* Tokens a later kernel might add are skipped, not refused. */
		if (!eq)
			continue;
		v = eq + 1;
		if (parse_word_is(t, eq - t, "avg10")) {
			err = parse_scan_decimal(&v, te, &l.avg10);
			bit = 1;
		} else if (parse_word_is(t, eq - t, "avg60")) {
			err = parse_scan_decimal(&v, te, &l.avg60);
			bit = 2;
		} else if (parse_word_is(t, eq - t, "avg300")) {
			err = parse_scan_decimal(&v, te, &l.avg300);
			bit = 4;
		} else if (parse_word_is(t, eq - t, "total")) {
			err = parse_scan_u64(&v, te, &l.total_us);
			bit = 8;
		} else {
			continue;
		}
		if (err || v != te)
			return -EINVAL;
		seen |= bit;
	}
	/* The kernel always prints all four; fewer is not a reading. */
	if (seen != 15)
		return -EINVAL;
	l.present = 1;
	*pl = l;
	return 0;
}

int parse_pressure(const char *buf, size_t len, struct psi *out)
{
	const char *pos, *end, *ls, *le;

	memset(out, 0, sizeof(*out));
	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		const char *w = parse_skip_blanks(ls, le), *we = parse_token_end(w, le);
		struct psi_line *pl;

		if (parse_word_is(w, we - w, "some"))
			pl = &out->some;
		else if (parse_word_is(w, we - w, "full"))
			pl = &out->full;
		else
			continue;
		/* A line with a bad value is dropped whole: half a line is no reading. */
		parse_psi_line(we, le, pl);
	}
	return out->some.present || out->full.present ? 0 : -EINVAL;
}

/* ---- key/value files ---- */

int parse_kv(const char *buf, size_t len, kv_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le, *k, *v;
	size_t klen, vlen;
	int ret;

	if (!buf || !len)
		return 0;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		if (!parse_kv_split(ls, le, &k, &klen, &v, &vlen))
			continue;
		ret = fn(k, klen, v, vlen, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* Longest "Prefix.Name" reported; real ones are under 40 bytes. */
#define SNMP_KEY_MAX 256

static int parse_snmp_pair(const char *hs, const char *hcolon, const char *he, const char *vcolon,
			   const char *ve, kv_fn fn, void *arg)
{
	char key[SNMP_KEY_MAX];
	size_t plen = hcolon - hs;
	const char *h = hcolon + 1, *v = vcolon + 1;
	int ret;

	memcpy(key, hs, plen);
	key[plen] = '.';
	/* Mismatched counts (a torn read, a hand-edited file): pair up the common prefix. */
	for (;;) {
		const char *n, *ne, *x, *xe;

		n = parse_skip_blanks(h, he);
		x = parse_skip_blanks(v, ve);
		if (n == he || x == ve)
			return 0;
		ne = parse_token_end(n, he);
		xe = parse_token_end(x, ve);
		h = ne;
		v = xe;
		/* A name too long to spell out is skipped rather than reported truncated. */
		if ((size_t)(ne - n) > sizeof(key) - plen - 1)
			continue;
		memcpy(key + plen + 1, n, ne - n);
		ret = fn(key, plen + 1 + (ne - n), x, xe - x, arg);
		if (ret)
			return ret;
	}
}

int parse_snmp(const char *buf, size_t len, kv_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le, *hs = NULL, *he = NULL, *hcolon = NULL;
	int ret;

	if (!buf || !len)
		return 0;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		const char *colon = memchr(ls, ':', le - ls), *first;

		if (!colon || colon == ls || (size_t)(colon - ls) >= SNMP_KEY_MAX - 1) {
			hs = NULL;
			continue;
		}
		/*
		 * The kernel prints each group as a header line of names then a
		 * value line of numbers, both starting "Prefix:". Telling the two
		 * apart by their first token, rather than by position, means a lost
		 * line costs its own group only: a stray value line is never taken
		 * for names.
		 */
		first = parse_skip_blanks(colon + 1, le);
		if (first == le || (!parse_is_digit(*first) && *first != '-')) {
			hs = ls;
			he = le;
			hcolon = colon;
			continue;
		}
		if (hs && colon - ls == hcolon - hs && !memcmp(ls, hs, colon - ls)) {
			ret = parse_snmp_pair(hs, hcolon, he, colon, le, fn, arg);
			if (ret)
				return ret;
		}
		hs = NULL;
	}
	return 0;
}

int parse_kv_u64(const char *val, size_t vlen, int to_bytes, uint64_t *out)
{
	const char *p, *end;
	uint64_t v;

	if (!val || !vlen)
		return -EINVAL;
	end = val + vlen;
	p = parse_skip_blanks(val, end);
	if (parse_scan_u64(&p, end, &v))
		return -EINVAL;
	if (to_bytes) {
		p = parse_skip_blanks(p, end);
		if (end - p == 2 && p[0] == 'k' && p[1] == 'B') {
			if (v > UINT64_MAX / 1024)
				return -EINVAL;
			v *= 1024;
		}
	}
	*out = v;
	return 0;
}

int parse_kv_decimal(const char *val, size_t vlen, double *out)
{
	const char *p, *end;

	if (!val || !vlen)
		return -EINVAL;
	end = val + vlen;
	p = parse_skip_blanks(val, end);
	return parse_scan_decimal(&p, end, out);
}

int parse_kv_i64(const char *val, size_t vlen, int64_t *out)
{
	const char *p, *end;
	bool neg = false;
	uint64_t mag;

	if (!val || !vlen)
		return -EINVAL;
	end = val + vlen;
	p = parse_skip_blanks(val, end);
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	if (parse_scan_u64(&p, end, &mag))
		return -EINVAL;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return -EINVAL;
		/* -(INT64_MAX) - 1 spelled so that no intermediate overflows. */
		*out = mag ? -(int64_t)(mag - 1) - 1 : 0;
	} else {
		if (mag > INT64_MAX)
			return -EINVAL;
		*out = (int64_t)mag;
	}
	return 0;
}

/* ---- /proc/diskstats ---- */

int parse_diskstats(const char *buf, size_t len, diskstat_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le;
	int ret;

	if (!buf || !len)
		return 0;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		struct diskstat ds = { 0 };
		uint64_t maj, min, f[17] = { 0 };
		const char *p = ls, *name;
		size_t n = 0, nlen;
		bool bad = false;

		if (parse_scan_u64_field(&p, le, &maj) || maj > UINT_MAX ||
		    parse_scan_u64_field(&p, le, &min) || min > UINT_MAX)
			continue;
		name = parse_skip_blanks(p, le);
		p = parse_token_end(name, le);
		nlen = p - name;
		/* DISK_NAME_LEN is 32: a longer name is no kernel's, and a cut one could alias. */
		if (!nlen || nlen >= sizeof(ds.name))
			continue;
		for (;;) {
			uint64_t v;

			p = parse_skip_blanks(p, le);
			if (p == le)
				break;
			if (parse_scan_u64_field(&p, le, &v)) {
				bad = true;
				break;
			}
			if (n < 17)
				f[n] = v;
			n++;
		}
		/* 11 fields since 2.6.25; 2.6 partitions had 4, too few to be useful. */
		if (bad || n < 11)
			continue;
		ds.major = maj;
		ds.minor = min;
		memcpy(ds.name, name, nlen);
		ds.rd_ios = f[0];
		ds.rd_merges = f[1];
		ds.rd_sectors = f[2];
		ds.rd_ticks = f[3];
		ds.wr_ios = f[4];
		ds.wr_merges = f[5];
		ds.wr_sectors = f[6];
		ds.wr_ticks = f[7];
		ds.in_flight = f[8];
		ds.io_ticks = f[9];
		ds.time_in_queue = f[10];
		ds.dc_ios = f[11];     /* 4.18 */
		ds.dc_merges = f[12];
		ds.dc_sectors = f[13];
		ds.dc_ticks = f[14];
		ds.fl_ios = f[15];     /* 5.5 */
		ds.fl_ticks = f[16];
		ds.nfields = n > INT_MAX ? INT_MAX : (int)n;
		ret = fn(&ds, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- /proc/net/dev ---- */

int parse_net_dev(const char *buf, size_t len, netdev_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le;
	int ret;

	if (!buf || !len)
		return 0;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		struct netdev nd = { 0 };
		uint64_t f[16];
		const char *colon = memchr(ls, ':', le - ls), *name, *ne, *p;
		int i;

		/* The two header lines have no ':'; interface names cannot contain one. */
		if (!colon)
			continue;
		name = parse_skip_blanks(ls, colon);
		ne = parse_token_end(name, colon);
		if (ne == name || ne - name >= (ptrdiff_t)sizeof(nd.name) ||
		    parse_skip_blanks(ne, colon) != colon)
			continue;
		/* No blank after the ':' on old kernels once rx_bytes grew wide: "eth0:123". */
		p = colon + 1;
		for (i = 0; i < 16; i++)
			if (parse_scan_u64_field(&p, le, &f[i]))
				break;
		if (i < 16)
			continue;
		memcpy(nd.name, name, ne - name);
		nd.rx_bytes = f[0];
		nd.rx_packets = f[1];
		nd.rx_errs = f[2];
		nd.rx_drop = f[3];
		nd.rx_fifo = f[4];
		nd.rx_frame = f[5];
		nd.rx_compressed = f[6];
		nd.rx_multicast = f[7];
		nd.tx_bytes = f[8];
		nd.tx_packets = f[9];
		nd.tx_errs = f[10];
		nd.tx_drop = f[11];
		nd.tx_fifo = f[12];
		nd.tx_colls = f[13];
		nd.tx_carrier = f[14];
		nd.tx_compressed = f[15];
		ret = fn(&nd, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- counters ---- */

/* A 32-bit wrap needs the old value in the top sixteenth, the new one in the bottom. */
#define WRAP_NEAR_TOP 0xf0000000u
#define WRAP_NEAR_BOTTOM 0x10000000u

uint64_t counter__delta(uint64_t prev, uint64_t cur, int *reset)
{
	if (cur >= prev)
		return cur - prev;
	/*
	 * Some counters are still 32 bits wide in the kernel (several
	 * /proc/net/snmp ones on 32-bit hosts, driver stats) and wrap: only a
	 * value near the top of the 32-bit range going to one near the bottom
	 * is such a wrap. Anything else going down restarted or went backwards
	 * (proc(5): iowait can decrease; 700 -> 699 is not 4 billion ticks of
	 * work), and contributes nothing.
	 */
	if (prev <= UINT32_MAX && prev >= WRAP_NEAR_TOP && cur < WRAP_NEAR_BOTTOM)
		return cur + ((uint64_t)1 << 32) - prev;
	if (reset)
		*reset = 1;
	return 0;
}

/* ---- /proc/interrupts ---- */

/*
 * The header "           CPU0       CPU1       " names one column per online
 * CPU; 0 when the line is anything else.
 */
static size_t parse_irq_header(const char *p, const char *le)
{
	size_t ncols = 0;

	for (;;) {
		const char *w = parse_skip_blanks(p, le), *we = parse_token_end(w, le), *d;

		if (w == le)
			return ncols;
		if (we - w < 4 || memcmp(w, "CPU", 3))
			return 0;
		for (d = w + 3; d < we; d++)
			if (!parse_is_digit(*d))
				return 0;
		ncols++;
		p = we;
	}
}

/*
 * "  0:         44          0   IO-APIC   2-edge      timer"
 * "MCE:          0          0   Machine check exceptions"
 * "ERR:          0"
 *
 * A line has one count per header column, except the global ones (x86
 * ERR/MIS, arm "Err") printed as a single count with nothing after it. The
 * counts are read up to the column count only: the description is free text
 * (chip, hwirq, action names) and a digit there is not a count. A line of any
 * other shape (CPU hotplug between two reads of the seq_file changes the
 * column count, or the text is not /proc/interrupts) is skipped rather than
 * summed over the wrong CPUs, and so is a line with a count or a sum that
 * does not fit in 64 bits: a partial or clamped sum would read as a counter
 * reset at the next reading. The kernel's per-CPU counts are unsigned int, so
 * the sum of real ones always fits.
 */
int parse_interrupts(const char *buf, size_t len, interrupts_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le;
	size_t ncols;
	int ret;

	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	if (!parse_next_line(&pos, end, &ls, &le))
		return -EINVAL;
	ncols = parse_irq_header(ls, le);
	if (!ncols)
		return -EINVAL;
	while (parse_next_line(&pos, end, &ls, &le)) {
		const char *colon = memchr(ls, ':', le - ls), *name, *p, *de;
		uint64_t total = 0, v;
		size_t cols;
		bool wraps = false;

		if (!colon)
			continue;
		name = parse_skip_blanks(ls, colon);
		if (name == colon || parse_token_end(name, colon) != colon)
			continue;
		p = colon + 1;
		for (cols = 0; cols < ncols; cols++) {
			if (parse_scan_u64_field(&p, le, &v))
				break;
			wraps |= v > UINT64_MAX - total;
			total += v;
		}
		p = parse_skip_blanks(p, le);
		if (wraps || (cols != ncols && !(cols == 1 && p == le)))
			continue;
		de = le;
		while (de > p && parse_is_blank(de[-1]))
			de--;
		ret = fn(name, colon - name, p, de - p, total, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * "version 17", "timestamp N", then per CPU "cpuN a b c d e f run_ns wait_ns
 * slices" (fields 7-9 since version 15) and its "domainN ..." lines.
 */
int parse_schedstat(const char *buf, size_t len, schedstat_fn fn, void *arg)
{
	const char *pos, *end, *ls, *le;
	uint64_t version = 0;
	int ret;

	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		const char *p = parse_skip_blanks(ls, le);
		uint64_t f[9], cpu;
		size_t n = 0;

		if ((size_t)(le - p) > 8 && !memcmp(p, "version ", 8)) {
			p += 8;
			if (parse_scan_u64_field(&p, le, &version))
				return -EINVAL;
			continue;
		}
		if ((size_t)(le - p) < 4 || memcmp(p, "cpu", 3) || p[3] < '0' || p[3] > '9')
			continue;
		if (version < 15)
			return -EINVAL;
		p += 3;
		if (parse_scan_u64_field(&p, le, &cpu) || cpu > INT32_MAX)
			continue;
		while (n < 9 && !parse_scan_u64_field(&p, le, &f[n]))
			n++;
		if (n < 9)
			continue;
		ret = fn((int)cpu, f[6], f[7], f[8], arg);
		if (ret)
			return ret;
	}
	return version ? 0 : -EINVAL;
}

/* ---- /dev/kmsg ---- */

/* "PRIO,SEQ,USEC,FLAGS[,...];TEXT": the fields before the ';' */
static bool kmsg_header(const char *p, const char *semi, struct kmsg_line *k)
{
	uint64_t prio;

	if (parse_scan_u64(&p, semi, &prio) || prio > INT32_MAX || p == semi || *p++ != ',' ||
	    parse_scan_u64(&p, semi, &k->seq) || p == semi || *p++ != ',' ||
	    parse_scan_u64(&p, semi, &k->usec) || (p != semi && *p != ','))
		return false;
	k->prio = (int)prio;
	return true;
}

int parse_kmsg(const char *buf, size_t len, kmsg_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	int ret;

	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		struct kmsg_line k = { .line = { ls, (size_t)(le - ls) } };
		const char *semi = memchr(ls, ';', (size_t)(le - ls));

		/* " SUBSYSTEM=pci": the dictionary of the record above */
		if (ls < le && *ls == ' ')
			k.kind = KMSG_DICT;
		else if (semi && kmsg_header(ls, semi, &k)) {
			k.kind = KMSG_RECORD;
			k.text = (struct parse_word){ semi + 1, (size_t)(le - semi - 1) };
		} else
			k.kind = KMSG_OTHER;
		ret = fn(&k, arg);
		if (ret)
			return ret;
	}
	return 0;
}
