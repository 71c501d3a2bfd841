// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The thread states: the parsers of their /proc files (syscall, stack, the
 * /proc/net line of a socket) and of their own record (sonde:threads), real
 * samples, cut reads and hostile lines; and the analysis that turns a
 * record into time per process and wait (thread_states__build): a parked
 * thread's interval whole to its wait, a switching one's off-CPU time split
 * by the sampler's samples, a thread born in the window counted from its
 * start, the threads in D at each round, a malformed line refused by name.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "tap.h"

static int near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

static void test_syscall(void)
{
	static const char blocked[] = "202 0x55c9a8487080 0x80 0x2 0x0 0x0 0x0 0x7ffc1 0x7f11\n";
	static const char running[] = "running\n";
	static const char fault[] = "-1 0x7ffc94a0 0x7f3a1c2b\n";
	struct pid_syscall sc;
	int bad = 0;

	is_int(parse_pid_syscall(blocked, strlen(blocked), &sc), 0, "syscall: a blocked thread parses");
	ok(sc.nr == 202 && sc.nargs == 6 && sc.args[0] == 0x55c9a8487080ull && sc.args[1] == 0x80 &&
	   sc.args[2] == 2, "syscall: its number and arguments");
	is_int(parse_pid_syscall(running, strlen(running), &sc), 0, "syscall: 'running' parses");
	ok(sc.running && sc.nr == -1, "syscall: running, in no syscall");
	is_int(parse_pid_syscall(fault, strlen(fault), &sc), 0, "syscall: '-1' (a fault) parses");
	ok(!sc.running && sc.nr == -1, "syscall: blocked outside a syscall");
	for (size_t cut = 0; cut < strlen(blocked) - 1; cut++)
		bad += parse_pid_syscall(blocked, cut, &sc) != -EINVAL;
	is_int(bad, 0, "syscall: every read cut before its newline is refused");
	is_int(parse_pid_syscall("abc\n", 4, &sc), -EINVAL, "syscall: a word is refused");
	is_int(parse_pid_syscall("99999999999\n", 12, &sc), -EINVAL, "syscall: an absurd number is refused");
	is_int(parse_pid_syscall("7 0xzz\n", 7, &sc), 0, "syscall: a bad argument keeps the number");
	is_int(sc.nargs, 0, "... with no argument");
}

static void test_stack(void)
{
	static const char stack[] = "[<0>] __schedule+0x3f4/0xb20\n"
				    "[<0>] schedule+0x27/0xf0\n"
				    "[<0>] percpu_rwsem_wait+0x10b/0x130\n"
				    "[<0>] mnt_want_write+0x8e/0xb0\n"
				    "[<0>] path_openat+0xa7c/0x1130\n";
	char out[64];

	is_int(parse_kernel_stack(stack, strlen(stack), out, sizeof(out)), 0, "stack: parses");
	is_str(out, "percpu_rwsem_wait<mnt_want_write<path_openat", "stack: leaf first, scheduler left out");
	is_int(parse_kernel_stack(stack, 40, out, sizeof(out)), -ENOENT,
	       "stack: only scheduler frames (a cut read): none");
	is_int(parse_kernel_stack("", 0, out, sizeof(out)), -ENOENT, "stack: empty");
	is_int(parse_kernel_stack(stack, strlen(stack), out, 20), 0, "stack: a small buffer");
	is_str(out, "percpu_rwsem_wait", "... keeps the frames that fit, whole");
	is_int(parse_kernel_stack("no brackets here\n", 17, out, sizeof(out)), -ENOENT,
	       "stack: a line without a frame is skipped");
}

static void test_net(void)
{
	static const char tcp[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
		"timeout inode\n"
		"   0: 0100007F:A321 00000000:0000 0A 00000000:00000003 00:00000000 00000000     0"
		"        0 958314 1 000000004781948a 100 0 0 10 0\n"
		"   1: 0100007F:9C40 0500000A:1538 01 00000000:00000000 00:00000000 00000000  1000"
		"        0 4242 1 0000000011d56b0a 20 4 30 10 -1\n";
	static const char tcp6[] =
		"  sl  local_address                         remote_address                        st "
		"tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A "
		"00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0\n";
	struct net_inet_sock s;
	uint8_t v4[4] = { 10, 0, 0, 5 }, lo[4] = { 127, 0, 0, 1 }, v6lo[16] = { 0 };

	v6lo[15] = 1;
	is_int(parse_net_inet_find(tcp, strlen(tcp), 4242, 0, &s), 0, "net: a connected socket found");
	ok(s.lport == 40000 && s.rport == 5432 && s.state == 1 && !memcmp(s.raddr, v4, 4) &&
	   !memcmp(s.laddr, lo, 4), "net: its addresses, ports and state (host-order words)");
	is_int(parse_net_inet_find(tcp, strlen(tcp), 958314, 0, &s), 0, "net: a listener found");
	ok(s.state == 10 && s.rx_queue == 3, "net: LISTEN, its accept queue from rx_queue");
	is_int(parse_net_inet_find(tcp, strlen(tcp), 1, 0, &s), -ENOENT, "net: an inode not there");
	is_int(parse_net_inet_find(tcp, strlen(tcp) - 5, 4242, 0, &s), -ENOENT,
	       "net: a line cut before its newline is not read");
	is_int(parse_net_inet_find(tcp6, strlen(tcp6), 777, 1, &s), 0, "net: an IPv6 listener");
	ok(s.lport == 8080 && !memcmp(s.laddr, v6lo, 16), "net: ::1 port 8080");
	is_int(parse_net_inet_find("   0: zz:zz zz\n", 15, 1, 0, &s), -ENOENT, "net: garbage");
}

static void test_lines(void)
{
	static const char t[] = "T\t12\t10\t5000\t300\t20\t7\t2\t-\tS\t-\tfutex\t0x10,0x80,0x2\t-\t-";
	static const char d[] = "T\t13\t10\t5000\t0\t0\t1\t0\t1,2,3,4\tD\ti\tread\t0x3,0x1,0x2\t"
				"file 8:1 12\tfolio_wait_bit_common<filemap_read";
	static const char w[] = "W\t12\t9\tS\t-\trecvfrom\t0x5,0x1,0x40\ttcp 1.2.3.4:5>6.7.8.9:10 "
				"ESTABLISHED\t-";
	struct threads_line l;
	int bad = 0;

	is_int(parse_threads_line(t, t + strlen(t), &l), 0, "line: T parses");
	ok(l.kind == 'T' && l.tid == 12 && l.tgid == 10 && l.start == 5000 && l.run == 300 &&
	   l.runq == 20 && l.nvcsw == 7 && l.nivcsw == 2 && !l.has_delays, "line: T's numbers");
	ok(l.state == 'S' && l.flags.n == 0 && l.syscall.n == 5 && l.has_args &&
	   l.args_v[0] == 0x10 && l.args_v[1] == 0x80 && l.args_v[2] == 2 && !l.object.n &&
	   !l.kstack.n, "line: T's wait words ('-' is none)");
	is_int(parse_threads_line(d, d + strlen(d), &l), 0, "line: T in D with delays and a stack");
	ok(l.has_delays && l.delays[3] == 4 && l.flags.n == 1 &&
	   l.object.n == strlen("file 8:1 12") && !memcmp(l.object.p, "file 8:1 12", l.object.n) &&
	   l.kstack.n == strlen("folio_wait_bit_common<filemap_read"),
	   "line: the delays, iowait, the file, the stack");
	is_int(parse_threads_line(w, w + strlen(w), &l), 0, "line: W parses");
	ok(l.kind == 'W' && l.tid == 12 && l.count == 9 &&
	   l.object.n == strlen("tcp 1.2.3.4:5>6.7.8.9:10 ESTABLISHED"), "line: W's count and wait");
	for (size_t cut = 3; cut < strlen(t); cut++)
		bad += !parse_threads_line(t, t + cut, &l) && l.kstack.n == 0 && cut < strlen(t) - 1;
	is_int(bad, 0, "line: a T cut anywhere is refused");
	is_int(parse_threads_line("X\t0", "X\t0" + 3, &l), -EINVAL, "line: tid 0 is refused");
	is_int(parse_threads_line("X\t99999999999", "X\t99999999999" + 13, &l), -EINVAL,
	       "line: a tid past int is refused");
	is_int(parse_threads_line("Q\t1", "Q\t1" + 3, &l), -EINVAL, "line: an unknown kind is refused");
	is_int(parse_threads_line("H\t1\tall\t1000", "H\t1\tall\t1000" + 12, &l), 0, "line: H");
	ok(!l.listed && l.dt == 1000, "line: H all, its interval");
	is_int(parse_threads_line("T\t1\t1\t1\t1\t1\t1\t1\t-\tSS\t-\t-\t-\t-\t-",
				  "T\t1\t1\t1\t1\t1\t1\t1\t-\tSS\t-\t-\t-\t-\t-" + 29, &l),
	       -EINVAL, "line: a two-letter state is refused");
	is_int(parse_threads_line("T\t1\t1\t1\t1\t1\t1\t1\t-\tS\t-\t-\tzz\t-\t-",
				  "T\t1\t1\t1\t1\t1\t1\t1\t-\tS\t-\t-\tzz\t-\t-" + 28, &l),
	       -EINVAL, "line: bad arguments are refused");
	is_int(parse_threads_line("T\t1\t1\t1\t1\t1\t1\t1\t-\tS\t-\t-\t-\t-\t-\textra",
				  "T\t1\t1\t1\t1\t1\t1\t1\t-\tS\t-\t-\t-\t-\t-\textra" + 34, &l),
	       -EINVAL, "line: a field too many is refused");
}

/* A capture stream of sonde:threads records: "SEQ MONO_S|lines..." blocks, \x1e between. */
static int stream_of(struct capture_stream *st, const char *const *rounds, const double *mono,
		     size_t n, char *err, size_t errlen)
{
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);

	len += (size_t)snprintf(text, cap, "sonde-capture 1\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "@ %zu %lld %lld %zu - sonde:threads\n%s\n",
					i, (long long)(mono[i] * 1e9), (long long)(mono[i] * 1e9),
					strlen(rounds[i]), rounds[i]);
	memset(st, 0, sizeof(*st));
	st->name = "proc.threads";
	return capture_stream__parse(st, text, len, err, errlen);
}

static const struct thread_proc *proc_of(const struct thread_states *ts, int pid)
{
	for (size_t i = 0; i < ts->nprocs; i++)
		if (ts->procs[i].pid == pid)
			return &ts->procs[i];
	return NULL;
}

static const struct thread_wait *wait_of(const struct thread_proc *p, const char *syscall)
{
	for (size_t i = 0; p && i < p->nwaits; i++)
		if (!strcmp(p->waits[i].syscall, syscall))
			return &p->waits[i];
	return NULL;
}

static void test_build(void)
{
	/*
	 * pid 10: thread 10 parked in epoll; 11 parked on a futex lock (val 2);
	 * 12 switching: 0.3 s on a CPU and 0.1 s queued a second, its off-CPU
	 * time sampled as 3 futex-lock samples and 1 read of a pipe. pid 20: one
	 * thread in D all along, one born 0.5 s into the second interval.
	 */
	static const char *const rounds[] = {
		"H\t0\tall\t0\n"
		"T\t10\t10\t1\t0\t0\t5\t0\t-\tS\t-\tepoll_wait\t0x3,0x0,0x0\t-\t-\n"
		"T\t11\t10\t1\t0\t0\t5\t0\t-\tS\t-\tfutex\t0x10,0x80,0x2\t-\t-\n"
		"T\t12\t10\t1\t0\t0\t5\t0\t-\tR\tc\t-\t-\t-\t-\n"
		"T\t20\t20\t1\t0\t0\t1\t0\t-\tD\t-\topenat\t0x1,0x2,0x3\t-\t"
		"percpu_rwsem_wait<mnt_want_write\n",
		"H\t1\tall\t1000000000\n"
		"T\t12\t10\t1\t300000000\t100000000\t105\t0\t-\tS\t-\tfutex\t0x10,0x80,0x2\t-\t-\n"
		"W\t12\t3\tS\t-\tfutex\t0x10,0x80,0x2\t-\t-\n"
		"W\t12\t1\tS\t-\tread\t0x4,0x0,0x0\tpipe\t-\n"
		"W\t12\t5\tR\tc\t-\t-\t-\t-\n"
		"C\t10\t9\t1\t4\n",
		"H\t2\tall\t1000000000\n"
		"T\t21\t20\t1001500000000\t100000000\t0\t3\t0\t-\tS\t-\tnanosleep\t0x0,0x0,0x0\t-\t-\n"
		"X\t10\n",
	};
	static const double mono[] = { 1000.0, 1001.0, 1002.0 };
	struct analysis an = { 0 };
	struct capture_stream st;
	struct thread_states *ts = NULL;
	const struct thread_proc *p;
	const struct thread_wait *w;
	char err[256] = "";

	an.start_mono_ns = 1000000000000ll;
	is_int(stream_of(&st, rounds, mono, 3, err, sizeof(err)), 0, "build: the stream parses %s", err);
	is_int(thread_states__build(&an, &st, &ts, err, sizeof(err)), 0, "build: the states build %s",
	       err);
	if (!ts)
		return;
	is_int(ts->rounds, 3, "build: three rounds");
	p = proc_of(ts, 10);
	ok(p && p->threads == 3, "build: pid 10 has its 3 threads");
	ok(p && near(p->oncpu_s, 0.3, 1e-9) && near(p->runq_s, 0.1, 1e-9),
	   "build: the switching thread's CPU and run-queue time, exact from its counters");
	w = wait_of(p, "epoll_wait");
	ok(w && near(w->s, 1.0, 1e-9) && near(w->parked_s, 1.0, 1e-9),
	   "build: epoll, parked, one interval whole (gone in the third round: not counted there)");
	w = wait_of(p, "futex");
	ok(w && near(w->s, 2.0 + 0.6 * 0.75 + 1.0, 1e-9),
	   "build: the futex: thread 11's 2 parked intervals, 3/4 of thread 12's 0.6 s off CPU "
	   "in the first, all of its second (parked there since)");
	ok(w && near(w->parked_s, 3.0, 1e-9) && w->threads == 2 && w->futex_val2 &&
	   w->futex_cmd && !strcmp(w->futex_cmd, "WAIT"),
	   "build: ... 3 s of it parked, 2 threads, a FUTEX_WAIT expecting 2");
	ok(w && near(w->wakes, 100 * 0.75, 1e-9), "build: ... with its share of the wakes");
	w = wait_of(p, "read");
	ok(w && near(w->s, 0.6 * 0.25, 1e-9) && !strcmp(w->object, "pipe"),
	   "build: the pipe read: the other quarter (running samples are not off-CPU time)");
	ok(p && p->passes == 9 && p->run_max == 1, "build: the sampler's passes and most on a CPU at once");
	p = proc_of(ts, 20);
	w = wait_of(p, "openat");
	ok(w && near(w->s, 2.0, 1e-9) && w->state == 'D' &&
	   !strcmp(w->kstack, "percpu_rwsem_wait<mnt_want_write"), "build: the D thread, both intervals");
	w = wait_of(p, "nanosleep");
	ok(w && near(w->s, 0.5 - 0.1, 1e-9),
	   "build: a thread born in the window, from its start (0.5 s, 0.1 s of it on a CPU)");
	ok(near(ts->d_mean, 1.0, 1e-9) && p && near(p->d_mean, 1.0, 1e-9),
	   "build: one thread in D at each round");
	thread_states__free(ts);
	free(st.text);
	free(st.rec);

	/* a line that is not one */
	{
		static const char *const bad[] = { "H\t0\tall\t0\nT\t1\t1\tnot a number\n" };
		static const double m[] = { 1000.0 };

		stream_of(&st, bad, m, 1, err, sizeof(err));
		ts = NULL;
		is_int(thread_states__build(&an, &st, &ts, err, sizeof(err)), -EINVAL,
		       "build: a malformed line is refused");
		is_str(err, "raw/proc.threads.cap: round 0, line 2: not a thread-state line",
		       "build: ... naming the round and the line");
		ok(!ts, "build: ... and nothing half built is returned");
		free(st.text);
		free(st.rec);
	}
}

int main(void)
{
	test_syscall();
	test_stack();
	test_net();
	test_lines();
	test_build();
	return tap_done();
}
