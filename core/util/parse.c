// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsers for the /proc text formats sonde captures (formats in parse.h).
 *
 * Two rules hold throughout:
 *
 * - Nothing at or past len is read and the buffer is not assumed to be
 *   NUL-terminated, so the C string functions (strtoull, sscanf, strchr) are
 *   never pointed at it. Numbers go through the bounded scanners below, which
 *   also refuse a value that does not fit instead of wrapping it the way
 *   sscanf does, or clamping it the way strtoull does.
 *
 * - The kernel ends every line it prints with '\n', so bytes after the last
 *   '\n' are the cut-off part of a truncated read (the file grew past the
 *   reader's buffer, or a capture was cut short). A counter "224074\n" cut
 *   to "2240" must not be reported as 2240: the next delta would look like a
 *   reset. Multi-line files therefore use only complete lines, and
 *   /proc/PID/stat, one long line, keeps only the fields that a following
 *   blank or '\n' proves complete.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

static inline bool parse_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool parse_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *parse_skip_blanks(const char *p, const char *end)
{
	while (p < end && parse_is_blank(*p))
		p++;
	return p;
}

/* End of the run of non-blank bytes at p. */
static const char *parse_token_end(const char *p, const char *end)
{
	while (p < end && !parse_is_blank(*p) && *p != '\n')
		p++;
	return p;
}

static inline bool parse_at_boundary(const char *p, const char *end)
{
	return p == end || parse_is_blank(*p) || *p == '\n';
}

static bool parse_word_is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

/*
 * The next complete line at *pos: [*ls, *le) with *le on its '\n'. A tail
 * without '\n' is not returned (see the top of the file).
 */
static bool parse_next_line(const char **pos, const char *end, const char **ls, const char **le)
{
	const char *nl;

	if (*pos >= end)
		return false;
	nl = memchr(*pos, '\n', end - *pos);
	if (!nl)
		return false;
	*ls = *pos;
	*le = nl;
	*pos = nl + 1;
	return true;
}

/* Decimal digits at *pp; refuses no digits and anything above UINT64_MAX. */
static int parse_scan_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || !parse_is_digit(*p))
		return -EINVAL;
	for (; p < end && parse_is_digit(*p); p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	*pp = p;
	return 0;
}

/* A whole numeric field: blanks, digits, then a blank, '\n' or end ("12ab" is refused). */
static int parse_scan_u64_field(const char **pp, const char *end, uint64_t *out)
{
	const char *p = parse_skip_blanks(*pp, end);

	if (parse_scan_u64(&p, end, out) || !parse_at_boundary(p, end))
		return -EINVAL;
	*pp = p;
	return 0;
}

/* Powers of ten that a double holds exactly (up to 1e22); 19 digits is all a u64 mantissa takes. */
static const double parse_pow10[] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
};

/*
 * A non-negative decimal such as "0.43" (load and PSI averages). By hand
 * rather than strtod: the buffer is not NUL-terminated and strtod obeys
 * LC_NUMERIC. All digits go into one integer divided once by an exact power
 * of ten, so "1.95" yields the same double as the literal 1.95.
 */
static int parse_scan_decimal(const char **pp, const char *end, double *out)
{
	const char *p = *pp;
	uint64_t mant;
	int scale = 0;

	if (parse_scan_u64(&p, end, &mant))
		return -EINVAL;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !parse_is_digit(*p))
			return -EINVAL;
		for (; p < end && parse_is_digit(*p); p++) {
			unsigned int d = *p - '0';

			/* Digits past what the mantissa holds are below a double's precision. */
			if (scale < 19 && mant <= (UINT64_MAX - d) / 10) {
				mant = mant * 10 + d;
				scale++;
			}
		}
	}
	*out = (double)mant / parse_pow10[scale];
	*pp = p;
	return 0;
}

/*
 * "[-]digits" filling exactly [s, s + n). The magnitude is returned so each
 * caller applies the range of its own field.
 */
static int parse_num_token(const char *s, size_t n, bool *neg, uint64_t *mag)
{
	const char *p = s, *end = s + n;

	*neg = false;
	if (p < end && *p == '-') {
		*neg = true;
		p++;
	}
	if (parse_scan_u64(&p, end, mag) || p != end)
		return -EINVAL;
	return 0;
}

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

static void parse_stat_scalar(const char *p, const char *end, uint64_t *out)
{
	uint64_t v;

	if (!parse_scan_u64_field(&p, end, &v) && parse_skip_blanks(p, end) == end)
		*out = v;
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
			parse_stat_scalar(we, le, &out->ctxt);
		} else if (parse_word_is(w, wn, "btime")) {
			parse_stat_scalar(we, le, &out->btime);
		} else if (parse_word_is(w, wn, "processes")) {
			parse_stat_scalar(we, le, &out->processes);
		} else if (parse_word_is(w, wn, "procs_running")) {
			parse_stat_scalar(we, le, &out->procs_running);
		} else if (parse_word_is(w, wn, "procs_blocked")) {
			parse_stat_scalar(we, le, &out->procs_blocked);
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

/* ---- /proc/loadavg, /proc/sys/fs/file-nr ---- */

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
	if (!buf || !len)
		return -EINVAL;
	end = memchr(buf, '\n', len);
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

int parse_file_nr(const char *buf, size_t len, struct file_nr *out)
{
	struct file_nr fn = { 0 };
	const char *p, *end;

	memset(out, 0, sizeof(*out));
	if (!buf || !len)
		return -EINVAL;
	end = memchr(buf, '\n', len);
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

/*
 * "Key: value" or "key value": the key runs to the first ':' or blank, the
 * value is the rest without surrounding blanks. False when either is empty.
 */
static bool parse_kv_split(const char *ls, const char *le, const char **k, size_t *klen,
			   const char **v, size_t *vlen)
{
	const char *p = parse_skip_blanks(ls, le), *ks = p, *ve;

	while (p < le && *p != ':' && !parse_is_blank(*p))
		p++;
	if (p == ks)
		return false;
	*k = ks;
	*klen = p - ks;
	if (p < le && *p == ':')
		p++;
	p = parse_skip_blanks(p, le);
	ve = le;
	while (ve > p && parse_is_blank(ve[-1]))
		ve--;
	if (ve == p)
		return false;
	*v = p;
	*vlen = ve - p;
	return true;
}

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

/* ---- /proc/PID/stat ---- */

/* The unsigned fields kept, by index after the comm. */
static const struct {
	int idx;
	size_t off;
} pid_stat_u64_fields[] = {
	{ 8, offsetof(struct pid_stat, minflt) },
	{ 10, offsetof(struct pid_stat, majflt) },
	{ 12, offsetof(struct pid_stat, utime) },
	{ 13, offsetof(struct pid_stat, stime) },
	{ 18, offsetof(struct pid_stat, num_threads) },
	{ 20, offsetof(struct pid_stat, starttime) },
	{ 21, offsetof(struct pid_stat, vsize) },
	{ 22, offsetof(struct pid_stat, rss_pages) },
	{ 40, offsetof(struct pid_stat, blkio_ticks) }, /* delayacct_blkio_ticks, 2.6.18 */
};

/*
 * Field idx after the comm (1 = state, 2 = ppid, ... as in proc(5) minus 2).
 * cut: the token ran into the end of a buffer without '\n', so it may be the
 * front of a longer one. Returns 0 when stored, 1 when cut (not stored), or
 * -EINVAL when the token cannot be a field of this line.
 */
static int parse_stat_field(struct pid_stat *ps, int idx, const char *t, size_t n, bool cut)
{
	uint64_t mag;
	size_t i;
	bool neg;

	if (idx == 1) {
		if (n != 1)
			return -EINVAL;
		if (cut)
			return 1;
		ps->state = t[0];
		return 0;
	}
	if (cut && n == 1 && t[0] == '-')
		return 1;
	if (parse_num_token(t, n, &neg, &mag))
		return -EINVAL;
	if (cut)
		return 1;

	switch (idx) {
	case 2:
		if (neg || mag > INT_MAX)
			return -EINVAL;
		ps->ppid = (int)mag;
		break;
	case 37:
		if (neg || mag > INT_MAX)
			return -EINVAL;
		ps->processor = (int)mag;
		break;
	case 17:
		if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > INT64_MAX)
			return -EINVAL;
		ps->nice = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
		break;
	default:
		for (i = 0; i < sizeof(pid_stat_u64_fields) / sizeof(pid_stat_u64_fields[0]); i++) {
			if (pid_stat_u64_fields[i].idx != idx)
				continue;
			if (neg && mag)
				return -EINVAL;
			memcpy((char *)ps + pid_stat_u64_fields[i].off, &mag, sizeof(mag));
			return 0;
		}
		/* Not kept; signed ones (tpgid -1, cutime) are legal here. */
		break;
	}
	return 0;
}

int parse_pid_stat(const char *buf, size_t len, struct pid_stat *out)
{
	struct pid_stat ps = { 0 };
	const char *end, *open, *close, *p, *lim, *nl;
	size_t clen;
	uint64_t pid;
	bool whole;
	int idx, ret;

	memset(out, 0, sizeof(*out));
	if (!buf || !len)
		return -EINVAL;
	end = buf + len;
	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	/*
	 * The comm is whatever the task called itself, ')' and '\n' included;
	 * only the fields after it are known not to contain ')', so the last one
	 * closes the comm.
	 */
	for (close = end; close > open + 1 && close[-1] != ')'; close--)
		;
	if (close[-1] != ')')
		return -EINVAL;
	close--;
	p = buf;
	if (parse_scan_u64_field(&p, open, &pid) || pid > INT_MAX ||
	    parse_skip_blanks(p, open) != open)
		return -EINVAL;
	ps.pid = (int)pid;
	clen = close - open - 1;
	if (clen > sizeof(ps.comm) - 1)
		clen = sizeof(ps.comm) - 1;
	memcpy(ps.comm, open + 1, clen);

	p = close + 1;
	nl = memchr(p, '\n', end - p);
	whole = nl != NULL;
	lim = nl ? nl : end;
	for (idx = 1; idx < INT_MAX; idx++) {
		const char *t;

		p = parse_skip_blanks(p, lim);
		if (p == lim)
			break;
		t = p;
		p = parse_token_end(p, lim);
		ret = parse_stat_field(&ps, idx, t, p - t, p == lim && !whole);
		if (ret < 0)
			return ret;
		if (ret)
			break;
		ps.nfields = idx;
	}
	*out = ps;
	return 0;
}

/* ---- /proc/PID/status ---- */

int parse_pid_status(const char *buf, size_t len, struct pid_status *out)
{
	const char *pos, *end, *ls, *le, *k, *v;
	size_t klen, vlen;
	bool found = false, vol = false, nonvol = false;
	uint64_t x;

	memset(out, 0, sizeof(*out));
	out->uid = -1;
	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		/*
		 * Name is taken raw after "Name:\t": trimming would eat blanks
		 * that are part of the name, and an all-blank name is still one.
		 */
		if (le - ls >= 5 && !memcmp(ls, "Name:", 5)) {
			const char *s = ls + 5;
			size_t n;

			if (s < le && *s == '\t')
				s++;
			n = le - s;
			if (n > sizeof(out->name) - 1)
				n = sizeof(out->name) - 1;
			memcpy(out->name, s, n);
			out->name[n] = '\0';
			found = true;
			continue;
		}
		if (!parse_kv_split(ls, le, &k, &klen, &v, &vlen))
			continue;
		if (parse_word_is(k, klen, "State")) {
			out->state = v[0];
			found = true;
		} else if (parse_word_is(k, klen, "PPid")) {
			if (!parse_kv_u64(v, vlen, 0, &x) && x <= INT_MAX) {
				out->ppid = (int)x;
				found = true;
			}
		} else if (parse_word_is(k, klen, "Uid")) {
			/* "real effective saved fs": the leading number is the real uid. */
			if (!parse_kv_u64(v, vlen, 0, &x) && x <= UINT32_MAX) {
				out->uid = (int64_t)x;
				found = true;
			}
		} else if (parse_word_is(k, klen, "Threads")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->threads = x;
				found = true;
			}
		} else if (parse_word_is(k, klen, "VmRSS")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->vm_rss_kb = x;
				found = true;
			}
		} else if (parse_word_is(k, klen, "voluntary_ctxt_switches")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->vol_ctxt = x;
				vol = found = true;
			}
		} else if (parse_word_is(k, klen, "nonvoluntary_ctxt_switches")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->nonvol_ctxt = x;
				nonvol = found = true;
			}
		}
	}
	out->has_ctxt = vol && nonvol;
	return found ? 0 : -EINVAL;
}

/* ---- /proc/PID/io ---- */

static const struct {
	const char *key;
	size_t off;
} pid_io_fields[] = {
	{ "rchar", offsetof(struct pid_io, rchar) },
	{ "wchar", offsetof(struct pid_io, wchar) },
	{ "syscr", offsetof(struct pid_io, syscr) },
	{ "syscw", offsetof(struct pid_io, syscw) },
	{ "read_bytes", offsetof(struct pid_io, read_bytes) },
	{ "write_bytes", offsetof(struct pid_io, write_bytes) },
	{ "cancelled_write_bytes", offsetof(struct pid_io, cancelled_write_bytes) },
};

#define PID_IO_NFIELDS (sizeof(pid_io_fields) / sizeof(pid_io_fields[0]))

struct pid_io_walk {
	struct pid_io *io;
	unsigned int seen; /* bit i: pid_io_fields[i] */
};

static int pid_io__kv(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	struct pid_io_walk *w = arg;
	uint64_t x;
	size_t i;

	for (i = 0; i < PID_IO_NFIELDS; i++) {
		if (!parse_word_is(key, klen, pid_io_fields[i].key))
			continue;
		if (!parse_kv_u64(val, vlen, 0, &x)) {
			memcpy((char *)w->io + pid_io_fields[i].off, &x, sizeof(x));
			w->seen |= 1u << i;
		}
		break;
	}
	return 0;
}

int parse_pid_io(const char *buf, size_t len, struct pid_io *out)
{
	struct pid_io_walk w = { .io = out };

	memset(out, 0, sizeof(*out));
	parse_kv(buf, len, pid_io__kv, &w);
	/*
	 * All seven have been printed together since 2.6.20, so fewer means a cut
	 * read: present stays 0 so no one takes a missing write_bytes for zero.
	 */
	out->present = w.seen == (1u << PID_IO_NFIELDS) - 1;
	return w.seen ? 0 : -EINVAL;
}

/* ---- /proc/PID/limits ---- */

static int parse_limit(const char **pp, const char *end, uint64_t *out)
{
	const char *p = parse_skip_blanks(*pp, end), *te = parse_token_end(p, end);

	if (parse_word_is(p, te - p, "unlimited")) {
		*out = UINT64_MAX;
		*pp = te;
		return 0;
	}
	return parse_scan_u64_field(pp, end, out);
}

int parse_pid_schedstat(const char *buf, size_t len, struct pid_schedstat *out)
{
	const char *pos = buf, *ls, *le, *p;
	uint64_t v[3];

	if (!buf || !parse_next_line(&pos, buf + len, &ls, &le))
		return -EINVAL; /* empty, or cut before its newline */
	p = ls;
	for (int i = 0; i < 3; i++) {
		p = parse_skip_blanks(p, le);
		if (parse_scan_u64(&p, le, &v[i]) || !parse_at_boundary(p, le))
			return -EINVAL;
	}
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
}

int parse_pid_limits_nofile(const char *buf, size_t len, uint64_t *soft, uint64_t *hard)
{
	static const char label[] = "Max open files";
	const char *pos, *end, *ls, *le, *p;
	uint64_t s, h;

	if (!buf || !len)
		return -EINVAL;
	pos = buf;
	end = buf + len;
	while (parse_next_line(&pos, end, &ls, &le)) {
		if ((size_t)(le - ls) <= sizeof(label) - 1 ||
		    memcmp(ls, label, sizeof(label) - 1) || !parse_is_blank(ls[sizeof(label) - 1]))
			continue;
		p = ls + sizeof(label) - 1;
		if (parse_limit(&p, le, &s) || parse_limit(&p, le, &h))
			return -EINVAL;
		*soft = s;
		*hard = h;
		return 0;
	}
	return -EINVAL;
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
