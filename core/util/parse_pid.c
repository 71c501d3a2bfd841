// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsers of the per-process files sonde captures (formats in parse.h):
 * /proc/PID/stat, status, io, schedstat and limits, and the sonde:task/PID
 * record a task source writes in their stead. The rules every parser
 * keeps (never past len, complete lines only) are at the top of parse.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

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

/*
 * "PID (COMM) ...": the pid, the comm (cut to comm_len - 1 bytes) and where
 * what follows it starts. The comm is whatever the task called itself, ')'
 * and '\n' included; only the fields after it are known not to contain ')',
 * so the last one closes the comm.
 */
static int parse_pid_comm(const char *buf, size_t len, int *pid, char *comm, size_t comm_len,
			  const char **rest)
{
	const char *end, *open, *close, *p;
	size_t clen;
	uint64_t v;

	if (!buf || !len)
		return -EINVAL;
	end = buf + len;
	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	for (close = end; close > open + 1 && close[-1] != ')'; close--)
		;
	if (close[-1] != ')')
		return -EINVAL;
	close--;
	p = buf;
	if (parse_scan_u64_field(&p, open, &v) || v > INT_MAX || parse_skip_blanks(p, open) != open)
		return -EINVAL;
	*pid = (int)v;
	clen = close - open - 1;
	if (clen > comm_len - 1)
		clen = comm_len - 1;
	memcpy(comm, open + 1, clen);
	comm[clen] = '\0';
	*rest = close + 1;
	return 0;
}

int parse_pid_stat(const char *buf, size_t len, struct pid_stat *out)
{
	struct pid_stat ps = { 0 };
	const char *end, *p, *lim, *nl;
	bool whole;
	int idx, ret;

	memset(out, 0, sizeof(*out));
	if (parse_pid_comm(buf, len, &ps.pid, ps.comm, sizeof(ps.comm), &p))
		return -EINVAL;
	end = buf + len;
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

/* ---- sonde:task/PID (a task source's record: docs/capture-format.md) ---- */

/* The fields after the comm, in order; "-" is unknown, "unlimited" RLIM_INFINITY. */
#define TASK_U64(f) { offsetof(struct pid_task, f), 0 }
static const struct {
	size_t off;
	int kind; /* 0: u64, 1: "-" allowed (unknown), 2: "unlimited" allowed */
} task_fields[] = {
	TASK_U64(ppid_u), TASK_U64(kthread_u), TASK_U64(threads), TASK_U64(rss_pages),
	TASK_U64(processor_u), TASK_U64(utime), TASK_U64(stime), TASK_U64(minflt),
	TASK_U64(majflt), TASK_U64(blkio_ticks), TASK_U64(starttime), { offsetof(struct pid_task, uid_u), 1 },
	TASK_U64(vol_ctxt), TASK_U64(nonvol_ctxt), TASK_U64(run_ns), TASK_U64(wait_ns),
	TASK_U64(slices), { offsetof(struct pid_task, fds_u), 1 },
	{ offsetof(struct pid_task, nofile_soft), 2 }, { offsetof(struct pid_task, nofile_hard), 2 },
	{ offsetof(struct pid_task, rchar), 1 }, { offsetof(struct pid_task, wchar), 1 },
	{ offsetof(struct pid_task, syscr), 1 }, { offsetof(struct pid_task, syscw), 1 },
	{ offsetof(struct pid_task, read_bytes), 1 }, { offsetof(struct pid_task, write_bytes), 1 },
};
#undef TASK_U64

/* One more field of a task record: a number, or "-" (unknown) as UINT64_MAX. */
static int parse_task_optional(const char **pp, const char *lim, uint64_t *v)
{
	const char *p = parse_skip_blanks(*pp, lim), *t = p;

	p = parse_token_end(p, lim);
	if (p == t)
		return -EINVAL;
	*pp = p;
	if (p - t == 1 && t[0] == '-') {
		*v = UINT64_MAX;
		return 0;
	}
	return parse_scan_u64(&t, p, v) || t != p ? -EINVAL : 0;
}

int parse_task_record(const char *buf, size_t len, struct pid_task *out)
{
	struct pid_task pt = { 0 };
	const char *end = buf + len, *p, *lim;
	size_t i, nf = sizeof(task_fields) / sizeof(task_fields[0]);
	int unknown_io = 0;

	memset(out, 0, sizeof(*out));
	if (parse_pid_comm(buf, len, &pt.pid, pt.comm, sizeof(pt.comm), &p))
		return -EINVAL;
	lim = memchr(p, '\n', end - p);
	if (!lim)
		return -EINVAL; /* a record is one whole line */
	p = parse_skip_blanks(p, lim);
	if (lim - p < 2 || !parse_is_blank(p[1]))
		return -EINVAL;
	pt.state = p[0];
	p += 1;
	for (i = 0; i < nf; i++) {
		const char *t;
		uint64_t v;
		size_t n;

		p = parse_skip_blanks(p, lim);
		t = p;
		p = parse_token_end(p, lim);
		n = (size_t)(p - t);
		if (!n)
			return -EINVAL;
		if (task_fields[i].kind == 1 && n == 1 && t[0] == '-') {
			v = UINT64_MAX;
			unknown_io += i >= nf - 6;
		} else if (task_fields[i].kind == 2 && parse_word_is(t, n, "unlimited")) {
			v = UINT64_MAX;
		} else {
			const char *q = t;

			if (parse_scan_u64(&q, p, &v) || q != p)
				return -EINVAL;
		}
		memcpy((char *)&pt + task_fields[i].off, &v, sizeof(v));
	}
	/* Two optional fields: anonymous and swapped-out pages (absent in older captures). */
	pt.anon_pages = pt.swap_pages = UINT64_MAX;
	if (parse_skip_blanks(p, lim) != lim &&
	    (parse_task_optional(&p, lim, &pt.anon_pages) ||
	     parse_task_optional(&p, lim, &pt.swap_pages)))
		return -EINVAL;
	if (parse_skip_blanks(p, lim) != lim || pt.ppid_u > INT_MAX || pt.processor_u > INT_MAX ||
	    pt.kthread_u > 1 || (unknown_io && unknown_io != 6))
		return -EINVAL;
	pt.ppid = (int)pt.ppid_u;
	pt.processor = (int)pt.processor_u;
	pt.kernel_thread = (int)pt.kthread_u;
	pt.uid = pt.uid_u > INT64_MAX ? -1 : (int64_t)pt.uid_u;
	pt.fds = pt.fds_u == UINT64_MAX ? -1 : (int64_t)pt.fds_u;
	pt.has_io = !unknown_io;
	*out = pt;
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
		} else if (parse_word_is(k, klen, "RssAnon")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->rss_anon_kb = x;
				out->has_anon = found = true;
			}
		} else if (parse_word_is(k, klen, "VmSwap")) {
			if (!parse_kv_u64(v, vlen, 0, &x)) {
				out->vm_swap_kb = x;
				out->has_swap = found = true;
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

/* ---- pids in names: /proc's directories, capture paths ---- */

int parse_pid_name(const char *s, size_t n)
{
	const char *p = s;
	uint64_t v;

	if (!s || parse_scan_u64(&p, s + n, &v) || p != s + n || !v || v > PARSE_PID_MAX)
		return -1;
	return (int)v;
}

int parse_capture_pid_path(const char *path, const char **file)
{
	const char *digits, *p;
	int task = !strncmp(path, "sonde:task/", 11), pid;

	if (!task && strncmp(path, "/proc/", 6))
		return -1;
	digits = path + (task ? 11 : 6);
	for (p = digits; parse_is_digit(*p); p++)
		;
	if (*p != (task ? '\0' : '/') || (pid = parse_pid_name(digits, (size_t)(p - digits))) < 0)
		return -1;
	*file = task ? "task" : p + 1;
	return pid;
}

/* ---- sonde's records of the holders of finite resources (collect/holders.c) ---- */

int parse_fds_record(const char *buf, size_t len, pid_fds_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	int ret;

	/* "PID N": the open fds of a process that round */
	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		const char *p = parse_skip_blanks(ls, le), *pe = parse_token_end(p, le);
		int pid = parse_pid_name(p, (size_t)(pe - p));
		uint64_t n;

		if (pid < 0 || parse_scan_u64_field(&pe, le, &n) || n > INT64_MAX ||
		    parse_skip_blanks(pe, le) != le)
			continue;
		ret = fn(pid, n, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* The fields of a sonde:files line after its kind, by kind: how many, which are numbers. */
static int files_fields(const char *p, const char *le, struct files_line *f)
{
	struct parse_word w[9], extra;
	int n = 0;

	while (n < 9 && parse_tab_field(&p, le, &w[n]))
		n++;
	/* a line of its kind alone has no pid: w[0] was never filled */
	if (!n || parse_tab_field(&p, le, &extra) || (f->pid = parse_pid_name(w[0].p, w[0].n)) < 0)
		return -EINVAL;
	switch (f->kind) {
	case FILES_SUSPECT: /* PID REASONS */
		f->reasons = w[1];
		return n == 2 ? 0 : -EINVAL;
	case FILES_CWD:     /* PID MAJ:MIN INO PATH */
		f->dev = w[1];
		f->path = w[3];
		return n == 4 && !parse_word_u64(w[2], &f->ino) ? 0 : -EINVAL;
	case FILES_FILE:    /* PID FD MODE MAJ:MIN INO SIZE ALLOCATED NLINK PATH */
		f->mode = w[2];
		f->dev = w[3];
		f->path = w[8];
		return n == 9 && !parse_word_u64(w[1], &f->fd) && !parse_word_u64(w[4], &f->ino) &&
			       !parse_word_u64(w[5], &f->size) &&
			       !parse_word_u64(w[6], &f->blocks_bytes) &&
			       !parse_word_u64(w[7], &f->nlink) ?
		       0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int files_line(const char *ls, const char *le, struct files_line *f)
{
	static const char *const kinds[] = {
		[FILES_SUSPECT] = "suspect", [FILES_CWD] = "cwd", [FILES_FILE] = "file",
		[FILES_CUT] = "cut",
	};
	const char *p = ls;
	struct parse_word kind = { ls, 0 };

	memset(f, 0, sizeof(*f));
	parse_tab_field(&p, le, &kind);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (parse_word_is(kind.p, kind.n, kinds[k])) {
			f->kind = (int)k;
			/* "cut": the record's bound was reached */
			return k == FILES_CUT ? (p > le ? 0 : -EINVAL) : files_fields(p, le, f);
		}
	return -EINVAL;
}

int parse_files_record(const char *buf, size_t len, files_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	struct files_line f;
	int ret;

	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		if (files_line(ls, le, &f))
			continue;
		ret = fn(&f, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int parse_pid_list(const char *buf, size_t len, pid_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	int ret;

	/* cgroup.procs, tasks: "PID" a line */
	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		const char *p = parse_skip_blanks(ls, le), *pe = parse_token_end(p, le);
		int pid = parse_pid_name(p, (size_t)(pe - p));

		if (pid < 0 || parse_skip_blanks(pe, le) != le)
			continue;
		ret = fn(pid, arg);
		if (ret)
			return ret;
	}
	return 0;
}
