// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace_pipe lines (util/parse_ftrace.c): real lines of this VM's tracefs
 * (record-tgid on, mono clock), a comm with blanks, dashes and brackets, an
 * unknown tgid, no irq-info flags, lost-event lines, fields whose values hold
 * blanks, and what is not a line.
 */
#include <errno.h>
#include <string.h>

#include "util/parse.h"
#include "tap.h"

static int line(const char *s, struct ftrace_line *l)
{
	return parse_ftrace_line(s, s + strlen(s), l);
}

static void test_lines(void)
{
	struct ftrace_line l;
	const char *v;
	size_t n;
	int64_t x;

	is_int(line("              sh-14960   (  14960) [000] d..1.  9115.648846: signal_generate: "
		    "sig=10 errno=0 code=0 comm=sh pid=14978 grp=1 res=0", &l), 0, "a signal line");
	is_str(l.comm, "sh", "comm");
	is_int(l.pid, 14960, "pid");
	is_int(l.tgid, 14960, "tgid");
	is_int(l.cpu, 0, "cpu");
	ok(l.ts_ns == 9115648846000ull, "the time in ns (%llu)", (unsigned long long)l.ts_ns);
	ok(l.event_len == 15 && !memcmp(l.event, "signal_generate", 15), "the event name");
	is_int(parse_ftrace_int(l.fields, l.fields_len, "sig", &x), 0, "sig=");
	is_int((int)x, 10, "... 10");
	is_int(parse_ftrace_int(l.fields, l.fields_len, "pid", &x), 0, "pid=");
	is_int((int)x, 14978, "... the target");
	is_int(parse_ftrace_int(l.fields, l.fields_len, "res", &x), 0, "the last field");
	is_int((int)x, 0, "... 0");
	is_int(parse_ftrace_int(l.fields, l.fields_len, "nope", &x), -ENOENT, "an absent field");
	is_int(parse_ftrace_int(l.fields, l.fields_len, "rno", &x), -ENOENT,
	       "a key's tail is not a key (errno= is not rno=)");

	is_int(line("     sonde-round-14545   (  14532) [001] d..1.  9116.764426: signal_generate: "
		    "sig=9 errno=0 code=0 comm=my prog [x] pid=14549 grp=1 res=0", &l), 0,
	       "a comm with dashes");
	is_str(l.comm, "sonde-round", "comm up to the last dash");
	is_int(l.pid, 14545, "the thread");
	is_int(l.tgid, 14532, "its process");
	is_int(parse_ftrace_field(l.fields, l.fields_len, "comm", &v, &n), 0, "comm=");
	ok(n == 11 && !memcmp(v, "my prog [x]", 11), "a value with blanks ends at the next key");

	is_int(line("  a b [2] c-7     (-------) [003] .... 12.000001: mark_victim: pid=7", &l), 0,
	       "a comm with blanks and brackets, tgid unknown");
	is_str(l.comm, "a b [2] c", "the whole comm");
	is_int(l.tgid, -1, "tgid -1");
	is_int(l.cpu, 3, "cpu");
	ok(l.ts_ns == 12000001000ull, "time");
	is_int(line("  kworker/0:1-42 [000] 5.5: sched_process_exec: filename=/bin/true pid=1", &l), 0,
	       "no tgid, no flags");
	is_int(l.pid, 42, "pid");
	ok(l.ts_ns == 5500000000ull, "time with one decimal");

	is_int(line("CPU:3 [LOST 12 EVENTS]", &l), -EINVAL, "a lost line is not an event");
	is_int(line("", &l), -EINVAL, "empty");
	is_int(line("garbage [x] 1.2: a: b", &l), -EINVAL, "no cpu");
	is_int(line("nodash [000] d... 1.5: ev: x=1", &l), -EINVAL, "no pid");
	is_int(line("a-1 [000] d... 1.5 ev: x=1", &l), -EINVAL, "no colon after the time");
}

static void test_lost(void)
{
	uint64_t lost = 0;
	const char *s = "CPU:3 [LOST 12 EVENTS]";

	is_int(parse_ftrace_lost(s, s + strlen(s), &lost), 0, "a lost line");
	ok(lost == 12, "12 events");
	s = "CPU:3 [LOST x EVENTS]";
	is_int(parse_ftrace_lost(s, s + strlen(s), &lost), -EINVAL, "not a count");
	s = "a-1 [000] d... 1.5: ev: x=1";
	is_int(parse_ftrace_lost(s, s + strlen(s), &lost), -EINVAL, "an event line");
}

int main(void)
{
	test_lines();
	test_lost();
	return tap_done();
}
