// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lines of a tracefs instance's trace_pipe (parse.h, struct ftrace_line),
 * for the tools' tracefs variant (core/trace/ftrace.c): with the instance's
 * options/record-tgid on, an event line is
 *
 *       COMM-PID   (  TGID) [CPU] FLAGS  SECONDS.FRACTION: EVENT: FIELDS
 *
 * where COMM is right-aligned and may hold blanks and dashes (the pid is
 * after its last dash), TGID is "-----" when unknown, and FIELDS is the
 * event's print format ("sig=9 errno=0 comm=sleep pid=12 ..."). A value may
 * hold blanks (a comm): it ends where the next " key=" begins. A lost-event
 * line reads "CPU:3 [LOST 12 EVENTS]".
 */
#include <errno.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

/* "SECONDS.FRACTION: " at p: the time, and what follows it; NULL when it is not one. */
static const char *timestamp(const char *p, const char *le, uint64_t *ts_ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;

	if (p >= le || !parse_is_digit(*p))
		return NULL;
	if (parse_scan_u64(&p, le, &sec) || sec > 1ull << 40 || p >= le || *p != '.')
		return NULL;
	p++;
	for (; p < le && parse_is_digit(*p); p++) {
		scale /= 10;
		frac += (uint64_t)(*p - '0') * scale;
	}
	if (p + 1 >= le || p[0] != ':' || p[1] != ' ')
		return NULL;
	*ts_ns = sec * 1000000000ull + frac;
	return p + 2;
}

/* "[CPU] FLAGS SECONDS.FRACTION: " at p: the CPU, the time, and where the event name starts. */
static const char *cpu_and_time(const char *p, const char *le, int *cpu, uint64_t *ts_ns)
{
	const char *ev;
	uint64_t c;

	if (p >= le || *p != '[')
		return NULL;
	p++;
	if (parse_scan_u64(&p, le, &c) || c > 1u << 20 || p >= le || *p != ']')
		return NULL;
	p++;
	if (p >= le || *p != ' ')
		return NULL;
	p = parse_skip_blanks(p, le);
	*cpu = (int)c;
	/* the flags ("d..1.", options/irq-info) come first, unless that option is off */
	if ((ev = timestamp(p, le, ts_ns)))
		return ev;
	p = parse_skip_blanks(parse_token_end(p, le), le);
	return timestamp(p, le, ts_ns);
}

/* "COMM-PID (  TGID)" in [ls, e): the task. 0 or -EINVAL. */
static int task(const char *ls, const char *e, struct ftrace_line *out)
{
	const char *dash, *s = parse_skip_blanks(ls, e);
	uint64_t v;

	while (e > s && parse_is_blank(e[-1]))
		e--;
	out->tgid = -1;
	if (e > s && e[-1] == ')') {
		const char *open = e - 1, *p;

		while (open > s && *open != '(')
			open--;
		if (*open != '(')
			return -EINVAL;
		p = parse_skip_blanks(open + 1, e - 1);
		if (p < e - 1 && parse_is_digit(*p) && !parse_scan_u64(&p, e - 1, &v) && v <= INT32_MAX)
			out->tgid = (int)v;
		for (e = open; e > s && parse_is_blank(e[-1]);)
			e--;
	}
	for (dash = e; dash > s && dash[-1] != '-';)
		dash--;
	if (dash == s || dash == e)
		return -EINVAL;
	{
		const char *p = dash;

		if (parse_scan_u64(&p, e, &v) || p != e || v > INT32_MAX)
			return -EINVAL;
	}
	out->pid = (int)v;
	v = (uint64_t)(dash - 1 - s);
	if (v >= sizeof(out->comm))
		v = sizeof(out->comm) - 1;
	memcpy(out->comm, s, v);
	out->comm[v] = '\0';
	return 0;
}

int parse_ftrace_line(const char *ls, const char *le, struct ftrace_line *out)
{
	memset(out, 0, sizeof(*out));
	/* The first "[CPU] FLAGS TIME: " that is one: a comm may hold a '[' too. */
	for (const char *b = ls; b < le; b++) {
		const char *ev, *colon;

		if (*b != '[' || b == ls || b[-1] != ' ')
			continue;
		ev = cpu_and_time(b, le, &out->cpu, &out->ts_ns);
		if (!ev)
			continue;
		if (task(ls, b, out))
			return -EINVAL;
		colon = memchr(ev, ':', (size_t)(le - ev));
		if (!colon || colon == ev)
			return -EINVAL;
		out->event = ev;
		out->event_len = (size_t)(colon - ev);
		out->fields = colon + 1 < le && colon[1] == ' ' ? colon + 2 : colon + 1;
		out->fields_len = (size_t)(le - out->fields);
		return 0;
	}
	return -EINVAL;
}

int parse_ftrace_lost(const char *ls, const char *le, uint64_t *lost)
{
	const char *p = ls;
	uint64_t cpu;

	if (le - p < 4 || memcmp(p, "CPU:", 4))
		return -EINVAL;
	p += 4;
	if (parse_scan_u64(&p, le, &cpu) || le - p < 7 || memcmp(p, " [LOST ", 7))
		return -EINVAL;
	p += 7;
	if (parse_scan_u64(&p, le, lost) || le - p < 8 || memcmp(p, " EVENTS]", 8))
		return -EINVAL;
	return 0;
}

/* At p (just after a blank, or the start): a "key=" word? */
static int key_at(const char *p, const char *end)
{
	const char *k = p;

	while (k < end && (*k == '_' || *k == '-' || (*k >= 'a' && *k <= 'z') ||
			   (*k >= 'A' && *k <= 'Z') || parse_is_digit(*k)))
		k++;
	return k > p && k < end && *k == '=';
}

int parse_ftrace_field(const char *fields, size_t len, const char *name, const char **val,
		       size_t *vlen)
{
	const char *end = fields + len;
	size_t n = strlen(name);

	for (const char *p = fields; p + n < end; p++) {
		const char *v, *e;

		if ((p != fields && p[-1] != ' ') || memcmp(p, name, n) || p[n] != '=')
			continue;
		v = p + n + 1;
		for (e = v; e < end; e++)
			if (*e == ' ' && key_at(e + 1, end))
				break;
		*val = v;
		*vlen = (size_t)(e - v);
		return 0;
	}
	return -ENOENT;
}

int parse_ftrace_int(const char *fields, size_t len, const char *name, int64_t *out)
{
	const char *v;
	size_t n;
	bool neg;
	uint64_t mag;

	if (parse_ftrace_field(fields, len, name, &v, &n))
		return -ENOENT;
	if (parse_num_token(v, n, &neg, &mag) || mag > INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)mag : (int64_t)mag;
	return 0;
}
