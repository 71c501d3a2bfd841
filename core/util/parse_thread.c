// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-thread files of the /proc fallback of the thread states
 * (/proc/PID/task/TID/syscall and stack) and the line of /proc/net/tcp{,6}
 * or udp{,6} that holds a socket's inode; and the lines of the thread
 * states' own capture, sonde:threads (parse.h).
 */
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"
#include "util/waits.h"

int parse_pid_syscall(const char *buf, size_t len, struct pid_syscall *out)
{
	const char *end = parse_line_one(buf, len), *p = buf;
	uint64_t v;
	int i;

	memset(out, 0, sizeof(*out));
	out->nr = -1;
	if (!end)
		return -EINVAL;
	if (end - p >= 7 && !memcmp(p, "running", 7)) {
		out->running = 1;
		return 0;
	}
	if (end - p >= 2 && p[0] == '-' && p[1] == '1')
		return 0; /* blocked, not in a syscall (a fault, an interrupt) */
	if (parse_scan_u64(&p, end, &v) || v > 100000)
		return -EINVAL;
	out->nr = (long)v;
	for (i = 0; i < 6; i++) {
		p = parse_skip_blanks(p, end);
		if (parse_scan_hex(&p, end, &out->args[i]) || !parse_at_boundary(p, end))
			break;
	}
	out->nargs = i;
	return 0;
}

int parse_kernel_stack(const char *buf, size_t len, char *out, size_t outlen)
{
	const char *pos = buf, *ls, *le, *end = buf + len;
	size_t used = 0;
	int kept = 0;

	if (!outlen)
		return -EINVAL;
	out[0] = '\0';
	/* "[<0>] folio_wait_bit_common+0x13c/0x350", one frame a line, leaf first */
	while (buf && kept < WAITS_KSTACK_FRAMES && parse_next_line(&pos, end, &ls, &le)) {
		const char *fn = memchr(ls, ']', (size_t)(le - ls)), *fe;
		size_t n;

		if (!fn)
			continue;
		fn = parse_skip_blanks(fn + 1, le);
		for (fe = fn; fe < le && *fe != '+' && !parse_is_blank(*fe); fe++)
			;
		n = (size_t)(fe - fn);
		if (!n || (!kept && waits__sched_frame(fn, n)))
			continue;
		if (used + n + 2 > outlen)
			break;
		if (kept)
			out[used++] = '<';
		memcpy(out + used, fn, n);
		used += n;
		out[used] = '\0';
		kept++;
	}
	return kept ? 0 : -ENOENT;
}

/* An address of /proc/net/tcp: the kernel prints each 32-bit word of it as %08X in host order. */
static int scan_addr(const char **pp, const char *end, uint8_t *addr, int words)
{
	for (int w = 0; w < words; w++) {
		const char *p = *pp;
		uint32_t v = 0;

		for (int i = 0; i < 8; i++, p++) {
			int d = p < end ? parse_hex_digit((unsigned char)*p) : -1;

			if (d < 0)
				return -EINVAL;
			v = v << 4 | (unsigned)d;
		}
		memcpy(addr + 4 * w, &v, 4);
		*pp = p;
	}
	return 0;
}

static int scan_endpoint(const char **pp, const char *end, uint8_t *addr, int words,
			 unsigned *port)
{
	uint64_t v;

	*pp = parse_skip_blanks(*pp, end);
	if (scan_addr(pp, end, addr, words) || *pp >= end || **pp != ':')
		return -EINVAL;
	(*pp)++;
	if (parse_scan_hex(pp, end, &v) || v > 0xffff)
		return -EINVAL;
	*port = (unsigned)v;
	return 0;
}

int parse_net_inet_find(const char *buf, size_t len, uint64_t ino, int v6,
			struct net_inet_sock *out)
{
	const char *pos = buf, *ls, *le, *end = buf + len;
	int words = v6 ? 4 : 1;

	memset(out, 0, sizeof(*out));
	/* "sl local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ..." */
	while (buf && parse_next_line(&pos, end, &ls, &le)) {
		const char *p = parse_skip_blanks(ls, le);
		uint64_t st, txq, rxq, v;

		p = parse_token_end(p, le); /* "0:" */
		if (scan_endpoint(&p, le, out->laddr, words, &out->lport) ||
		    scan_endpoint(&p, le, out->raddr, words, &out->rport))
			continue;
		p = parse_skip_blanks(p, le);
		if (parse_scan_hex(&p, le, &st) || p >= le || *p != ' ')
			continue;
		p = parse_skip_blanks(p, le);
		if (parse_scan_hex(&p, le, &txq) || p >= le || *p != ':')
			continue;
		p++;
		if (parse_scan_hex(&p, le, &rxq))
			continue;
		/* tr:when, retrnsmt, uid, timeout, then the inode */
		for (int f = 0; f < 4; f++) {
			p = parse_skip_blanks(p, le);
			p = parse_token_end(p, le);
		}
		if (parse_scan_u64_field(&p, le, &v) || v != ino)
			continue;
		out->state = (unsigned)st;
		out->rx_queue = (unsigned)rxq;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

/* The next tab-separated field of [*p, le): [*fs, *fe); false past the end. */
static bool next_field(const char **p, const char *le, const char **fs, const char **fe)
{
	const char *t;

	if (*p > le)
		return false;
	t = memchr(*p, '\t', (size_t)(le - *p));
	*fs = *p;
	*fe = t ? t : le;
	*p = *fe + 1;
	return true;
}

static int field_u64(const char **p, const char *le, uint64_t *v)
{
	const char *fs, *fe, *q;

	if (!next_field(p, le, &fs, &fe))
		return -EINVAL;
	q = fs;
	if (parse_scan_u64(&q, fe, v) || q != fe)
		return -EINVAL;
	return 0;
}

static int field_word(const char **p, const char *le, struct threads_word *w)
{
	const char *fs, *fe;

	if (!next_field(p, le, &fs, &fe) || fs == fe)
		return -EINVAL;
	w->p = fs;
	w->n = (size_t)(fe - fs);
	if (w->n == 1 && *fs == '-')
		w->n = 0; /* "-": none */
	return 0;
}

/* STATE FLAGS SYSCALL ARGS OBJECT KSTACK: the words of a wait. */
static int wait_words(const char **p, const char *le, struct threads_line *out)
{
	struct threads_word state;
	const char *a, *ae;

	out->words.p = *p;
	out->words.n = (size_t)(le - *p);
	if (field_word(p, le, &state) || state.n != 1 || field_word(p, le, &out->flags) ||
	    field_word(p, le, &out->syscall) || field_word(p, le, &out->args) ||
	    field_word(p, le, &out->object) || field_word(p, le, &out->kstack) || *p <= le)
		return -EINVAL;
	out->state = *state.p;
	/* "0x1,0x2,0x3" */
	a = out->args.p;
	ae = a + out->args.n;
	for (int i = 0; out->args.n && i < 3; i++) {
		if (parse_scan_hex(&a, ae, &out->args_v[i]))
			return -EINVAL;
		if (i < 2 && (a >= ae || *a++ != ','))
			return -EINVAL;
	}
	out->has_args = out->args.n > 0;
	return 0;
}

int parse_threads_line(const char *ls, const char *le, struct threads_line *out)
{
	const char *p = ls + 2;
	uint64_t v[8];

	memset(out, 0, sizeof(*out));
	if (le - ls < 3 || ls[1] != '\t')
		return -EINVAL;
	out->kind = ls[0];
	switch (out->kind) {
	case 'H': /* H SEQ all|listed DT_NS */
		if (field_u64(&p, le, &v[0]) || field_word(&p, le, &out->flags) ||
		    field_u64(&p, le, &out->dt))
			return -EINVAL;
		out->listed = out->flags.n == 6 && !memcmp(out->flags.p, "listed", 6);
		return 0;
	case 'X': case 'L':
		if (field_u64(&p, le, &v[0]) || !v[0] || v[0] > INT32_MAX)
			return -EINVAL;
		out->tid = out->tgid = (int)v[0];
		return 0;
	case 'S': /* S PASSES CPU_NS LOST */
		if (field_u64(&p, le, &out->passes) || field_u64(&p, le, &out->run_max) ||
		    field_u64(&p, le, &out->run_sum))
			return -EINVAL;
		return 0;
	case 'C': /* C TGID PASSES RUN_MAX RUN_SUM */
		if (field_u64(&p, le, &v[0]) || !v[0] || v[0] > INT32_MAX ||
		    field_u64(&p, le, &out->passes) || field_u64(&p, le, &out->run_max) ||
		    field_u64(&p, le, &out->run_sum))
			return -EINVAL;
		out->tgid = (int)v[0];
		return 0;
	case 'W': /* W TID COUNT words */
		if (field_u64(&p, le, &v[0]) || !v[0] || v[0] > INT32_MAX ||
		    field_u64(&p, le, &out->count))
			return -EINVAL;
		out->tid = (int)v[0];
		return wait_words(&p, le, out);
	case 'T': { /* T TID TGID START RUN RUNQ NVCSW NIVCSW DELAYS words */
		const char *fs, *fe;

		for (int i = 0; i < 7; i++)
			if (field_u64(&p, le, &v[i]))
				return -EINVAL;
		if (!v[0] || v[0] > INT32_MAX || !v[1] || v[1] > INT32_MAX)
			return -EINVAL;
		out->tid = (int)v[0];
		out->tgid = (int)v[1];
		out->start = v[2];
		out->run = v[3];
		out->runq = v[4];
		out->nvcsw = v[5];
		out->nivcsw = v[6];
		if (!next_field(&p, le, &fs, &fe))
			return -EINVAL;
		if (fe - fs != 1 || *fs != '-') {
			for (int i = 0; i < 4; i++) {
				if (parse_scan_u64(&fs, fe, &out->delays[i]))
					return -EINVAL;
				if (i < 3 && (fs >= fe || *fs++ != ','))
					return -EINVAL;
			}
			out->has_delays = 1;
		}
		return wait_words(&p, le, out);
	}
	default:
		return -EINVAL;
	}
}
