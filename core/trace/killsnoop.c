// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * killsnoop: signals generated during the window. data = { count (signals),
 * signals_seen (distinct rows), signals = 100 rows (fatal signals first, then
 * others, SIGCHLD last; by count within each) [ { sender_pid
 * (process), sender_tid (last sending thread), sender_comm, target_pid
 * (thread), target_tgid (0: unknown), target_comm, sig, signal ("SIGTERM"),
 * code, origin ("user", "kernel", "tkill", "queue", "fault", ...), result,
 * outcome ("delivered", "ignored", "already_pending", "overflow_fail",
 * "lose_info"), group, count, first_at_s, last_at_s } ], fatal_signals (the
 * names kept one by one), fatal = the fatal ones in order [ { at_s, sender_pid,
 * sender_tid, sender_comm, target_pid, target_tgid, target_comm, sig, signal,
 * code, origin, result, outcome, group } ], self_signals (signals sonde sent
 * or was sent, left out of the rest) }. *_at_s: seconds after the tool
 * attached (add traced_from_s for seconds into the window).
 *
 * Without BPF, the same from signal:signal_generate in a tracefs instance
 * (ftrace.h), counted in sonde: the target's tgid is not in the event
 * (target_tgid 0, as from a classic tracepoint).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/ftrace.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "killsnoop.h"
#include "killsnoop.skel.h"

#define TOP_ROWS 100
#define MAX_FATAL 1024 /* more than the ring buffer holds */

static const char *const sig_names[32] = {
	[1] = "SIGHUP",	    [2] = "SIGINT",   [3] = "SIGQUIT",	 [4] = "SIGILL",    [5] = "SIGTRAP",
	[6] = "SIGABRT",    [7] = "SIGBUS",   [8] = "SIGFPE",	 [9] = "SIGKILL",   [10] = "SIGUSR1",
	[11] = "SIGSEGV",   [12] = "SIGUSR2", [13] = "SIGPIPE",	 [14] = "SIGALRM",  [15] = "SIGTERM",
	[16] = "SIGSTKFLT", [17] = "SIGCHLD", [18] = "SIGCONT",	 [19] = "SIGSTOP",  [20] = "SIGTSTP",
	[21] = "SIGTTIN",   [22] = "SIGTTOU", [23] = "SIGURG",	 [24] = "SIGXCPU",  [25] = "SIGXFSZ",
	[26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH", [29] = "SIGIO",    [30] = "SIGPWR",
	[31] = "SIGSYS",
};

/* enum trace_signal_deliver_result (include/trace/events/signal.h) */
static const char *const outcomes[] = { "delivered", "ignored", "already_pending",
					"overflow_fail", "lose_info" };

static void sig_name(int sig, char *buf, size_t n)
{
	if (sig > 0 && sig < 32 && sig_names[sig])
		snprintf(buf, n, "%s", sig_names[sig]);
	else if (sig >= 32 && sig < 65)
		snprintf(buf, n, "SIGRT%d", sig - 32); /* numbered from 32 as the kernel does */
	else
		snprintf(buf, n, "signal %d", sig);
}

/* Where the signal came from, from si_code (include/uapi/asm-generic/siginfo.h). */
static void origin_name(int sig, int code, char *buf, size_t n)
{
	const char *w = NULL;

	switch (code) {
	case 0: w = "user"; break;      /* SI_USER: kill(2) */
	case 0x80: w = "kernel"; break; /* SI_KERNEL */
	case -1: w = "queue"; break;    /* SI_QUEUE: sigqueue */
	case -2: w = "timer"; break;    /* SI_TIMER: POSIX timer */
	case -3: w = "mesgq"; break;
	case -4: w = "asyncio"; break;
	case -5: w = "sigio"; break;
	case -6: w = "tkill"; break;    /* SI_TKILL: tkill/tgkill */
	case -7: w = "dethread"; break; /* SI_DETHREAD: exec killing the other threads */
	case -60: w = "asyncnl"; break;
	}
	if (!w && code > 0) {
		switch (sig) {
		case 4: case 5: case 7: case 8: case 11:
			w = "fault"; /* ILL_*, TRAP_*, BUS_*, FPE_*, SEGV_*: raised by the CPU */
			break;
		case 17:
			w = "child"; /* CLD_*: a child exited or stopped */
			break;
		}
	}
	if (w)
		snprintf(buf, n, "%s", w);
	else
		snprintf(buf, n, "code %d", code);
}

static void *killsnoop_open(struct bpf_object **obj)
{
	struct killsnoop_bpf *skel = killsnoop_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

struct row {
	struct killsnoop_key k;
	struct killsnoop_val v;
};

static const struct trace_map_row signal_rows = TRACE_MAP_ROW(struct row, k, v);

struct fatal_list {
	struct killsnoop_event *ev;
	size_t n;
};

/* fatal signals first, SIGCHLD (one per exiting child: the bulk on a busy host) last */
static int rank(const struct row *r, __u64 fatal_mask)
{
	if (r->k.sig > 0 && r->k.sig < 64 && ((fatal_mask >> r->k.sig) & 1))
		return 0;
	return r->k.sig == 17 ? 2 : 1;
}

static int by_rank_count(const void *a, const void *b, void *mask)
{
	const struct row *x = a, *y = b;
	int rx = rank(x, *(__u64 *)mask), ry = rank(y, *(__u64 *)mask);

	if (rx != ry)
		return rx - ry;
	return trace__cmp_desc(x->v.count, y->v.count);
}

static int on_fatal(void *ctx, void *data, size_t size)
{
	struct fatal_list *f = ctx;

	if (size < sizeof(struct killsnoop_event) || f->n >= MAX_FATAL)
		return 0;
	memcpy(&f->ev[f->n++], data, sizeof(struct killsnoop_event));
	return 0;
}

static void json_signal(struct json *j, int sig, int code, int result)
{
	char buf[32];

	trace__json_int(j, "sig", sig);
	json__key(j, "signal");
	sig_name(sig, buf, sizeof(buf));
	json__string(j, buf);
	trace__json_int(j, "code", code);
	json__key(j, "origin");
	origin_name(sig, code, buf, sizeof(buf));
	json__string(j, buf);
	trace__json_int(j, "result", result);
	json__key(j, "outcome");
	if (result >= 0 && result < (int)(sizeof(outcomes) / sizeof(outcomes[0])))
		json__string(j, outcomes[result]);
	else
		json__string(j, "?");
}

static double at_s(const struct trace_run *t, __u64 ts)
{
	return ((double)ts - (double)t->attached_mono_ns) / 1e9;
}

static void json_signal_row(struct json *j, const void *row, void *t)
{
	const struct row *r = row;

	trace__json_int(j, "sender_pid", r->k.sender_tgid);
	trace__json_int(j, "sender_tid", r->v.sender_pid);
	trace__json_comm(j, "sender_comm", r->k.sender_comm, sizeof(r->k.sender_comm));
	trace__json_int(j, "target_pid", r->k.target_pid);
	trace__json_int(j, "target_tgid", r->v.target_tgid);
	trace__json_comm(j, "target_comm", r->k.target_comm, sizeof(r->k.target_comm));
	json_signal(j, r->k.sig, r->k.code, r->k.result);
	json__key(j, "group");
	json__bool(j, r->v.group != 0);
	trace__json_int(j, "count", r->v.count);
	json__key(j, "first_at_s");
	json__number(j, at_s(t, r->v.first_ns));
	json__key(j, "last_at_s");
	json__number(j, at_s(t, r->v.last_ns));
}

static void json_fatal(struct json *j, const void *row, void *t)
{
	const struct killsnoop_event *e = row;

	json__key(j, "at_s");
	json__number(j, at_s(t, e->ts_ns));
	trace__json_int(j, "sender_pid", e->sender_tgid);
	trace__json_int(j, "sender_tid", e->sender_pid);
	trace__json_comm(j, "sender_comm", e->sender_comm, sizeof(e->sender_comm));
	trace__json_int(j, "target_pid", e->target_pid);
	trace__json_int(j, "target_tgid", e->target_tgid);
	trace__json_comm(j, "target_comm", e->target_comm, sizeof(e->target_comm));
	json_signal(j, e->sig, e->code, e->result);
	json__key(j, "group");
	json__bool(j, e->group != 0);
}

/* The fatal signals the ring buffer holds now, in order. 0 or -errno. */
static int read_fatal(int fd, struct fatal_list *fatal)
{
	struct ring_buffer *rb;
	int err = 0;

	fatal->ev = calloc(MAX_FATAL, sizeof(*fatal->ev));
	if (!fatal->ev)
		return -ENOMEM;
	rb = ring_buffer__new(fd, on_fatal, fatal, NULL);
	if (!rb)
		return -errno;
	if (ring_buffer__consume(rb) < 0)
		err = -errno;
	ring_buffer__free(rb);
	return err;
}

static int killsnoop_configure(void *skel, const struct trace_opts *o)
{
	((struct killsnoop_bpf *)skel)->rodata->targ_self_tgid = (__u32)o->self_pid;
	return 0;
}

/* The data, whichever way the rows and the fatal signals were read (maps, tracefs). */
static void json_signals(struct trace_run *t, struct json *j, struct row *rows, size_t nrows,
			 const struct fatal_list *fatal_in, __u64 self, __u64 fatal_mask)
{
	struct fatal_list fatal = *fatal_in;
	__u64 total = 0;
	char buf[32];

	for (size_t i = 0; i < nrows; i++)
		total += rows[i].v.count;
	qsort_r(rows, nrows, sizeof(*rows), by_rank_count, &fatal_mask);
	trace__json_int(j, "count", total);
	trace__json_top(j, "signals_seen", "signals", rows, nrows, sizeof(*rows), TOP_ROWS,
			json_signal_row, t);
	json__key(j, "fatal_signals");
	json__begin_array(j);
	for (int s = 1; s < 64; s++)
		if ((fatal_mask >> s) & 1) {
			sig_name(s, buf, sizeof(buf));
			json__string(j, buf);
		}
	json__end_array(j);
	trace__json_top(j, NULL, "fatal", fatal.ev, fatal.n, sizeof(*fatal.ev), fatal.n, json_fatal,
			t);
	trace__json_int(j, "self_signals", self);
}

static int killsnoop_collect(struct trace_run *t, struct json *j)
{
	struct killsnoop_bpf *skel = t->skel;
	struct fatal_list fatal = { 0 };
	struct row *rows = NULL;
	size_t nrows = 0;
	__u64 self = 0;
	int err;

	err = trace_map__read(bpf_map__fd(skel->maps.signals), &signal_rows, KILLSNOOP_MAX_KEYS,
			      (void **)&rows, &nrows);
	if (!err)
		err = read_fatal(bpf_map__fd(skel->maps.fatal), &fatal);
	if (!err) {
		trace_map__percpu_sum(bpf_map__fd(skel->maps.self_signals), 0, &self, sizeof(self));
		json_signals(t, j, rows, nrows, &fatal, self, skel->rodata->targ_fatal_mask);
	}
	free(fatal.ev);
	free(rows);
	return err;
}

/* ---- the tracefs variant: signal:signal_generate lines, counted here ---- */

struct ft_state {
	struct row *rows;
	size_t nrows;
	struct fatal_list fatal;
	__u64 self, dropped;
};

static void *ft_new(void)
{
	struct ft_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->rows = calloc(KILLSNOOP_MAX_KEYS, sizeof(*st->rows));
	st->fatal.ev = calloc(MAX_FATAL, sizeof(*st->fatal.ev));
	if (!st->rows || !st->fatal.ev) {
		free(st->rows);
		free(st->fatal.ev);
		free(st);
		return NULL;
	}
	return st;
}

static void ft_free(void *state)
{
	struct ft_state *st = state;

	free(st->rows);
	free(st->fatal.ev);
	free(st);
}

static int64_t field_or(const struct ftrace_line *l, const char *name, int64_t dflt)
{
	int64_t v;

	return parse_ftrace_int(l->fields, l->fields_len, name, &v) ? dflt : v;
}

/* "sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d"; the sender is the line's task. */
static void ft_line(void *state, const struct ftrace_line *l, int self)
{
	struct ft_state *st = state;
	struct killsnoop_key k = { 0 };
	const char *comm;
	size_t n, i;
	int sender = l->tgid > 0 ? l->tgid : l->pid, group = (int)field_or(l, "grp", 0);

	if (l->event_len != 15 || memcmp(l->event, "signal_generate", 15))
		return;
	k.sender_tgid = (__u32)sender;
	k.target_pid = (__u32)field_or(l, "pid", 0);
	if (sender == self || (int)k.target_pid == self) {
		st->self++; /* sonde's own: left out, as the BPF programs leave them */
		return;
	}
	k.sig = (__s32)field_or(l, "sig", 0);
	k.result = (__s32)field_or(l, "res", -1);
	k.code = (__s32)field_or(l, "code", 0);
	memcpy(k.sender_comm, l->comm, sizeof(k.sender_comm));
	if (!parse_ftrace_field(l->fields, l->fields_len, "comm", &comm, &n))
		memcpy(k.target_comm, comm, n < sizeof(k.target_comm) ? n : sizeof(k.target_comm) - 1);
	for (i = 0; i < st->nrows && memcmp(&st->rows[i].k, &k, sizeof(k)); i++)
		;
	if (i == st->nrows) {
		if (i == KILLSNOOP_MAX_KEYS) {
			st->dropped++;
			return;
		}
		st->rows[st->nrows++].k = k;
		st->rows[i].v.first_ns = l->ts_ns;
	}
	st->rows[i].v.count++;
	st->rows[i].v.last_ns = l->ts_ns;
	st->rows[i].v.sender_pid = (__u32)l->pid;
	st->rows[i].v.group = group != 0;
	if (k.sig > 0 && k.sig < 64 && ((KILLSNOOP_FATAL_DEFAULT >> k.sig) & 1) &&
	    st->fatal.n < MAX_FATAL) {
		struct killsnoop_event *e = &st->fatal.ev[st->fatal.n++];

		memset(e, 0, sizeof(*e));
		e->ts_ns = l->ts_ns;
		e->sender_pid = (__u32)l->pid;
		e->sender_tgid = k.sender_tgid;
		e->target_pid = k.target_pid;
		e->sig = k.sig;
		e->result = k.result;
		e->code = k.code;
		e->group = group != 0;
		memcpy(e->sender_comm, k.sender_comm, sizeof(e->sender_comm));
		memcpy(e->target_comm, k.target_comm, sizeof(e->target_comm));
	}
}

static int ft_collect(struct trace_run *t, void *state, struct json *j)
{
	struct ft_state *st = state;

	t->c.drops += st->dropped;
	json_signals(t, j, st->rows, st->nrows, &st->fatal, st->self, KILLSNOOP_FATAL_DEFAULT);
	return 0;
}

static const struct ftrace_tool killsnoop_ftrace = {
	.events = { { "signal", "signal_generate", NULL } },
	.state_new = ft_new,
	.line = ft_line,
	.collect = ft_collect,
	.state_free = ft_free,
};

static void killsnoop_destroy(void *skel)
{
	killsnoop_bpf__destroy(skel);
}

const struct trace_tool trace_killsnoop = {
	.name = "killsnoop",
	.what = "signals sent (who to whom, which, with what result), fatal ones one by one",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_TRACEFS, ATTACH_NR },
	.ftrace = &killsnoop_ftrace,
	.open = killsnoop_open,
	.configure = killsnoop_configure,
	.collect = killsnoop_collect,
	.destroy = killsnoop_destroy,
	.uncounted = "signals",
	.run_cost = 3.0,
};
