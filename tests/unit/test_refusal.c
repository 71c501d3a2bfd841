// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why the kernel refuses a system call to root (util/refusal.h): a seccomp
 * filter (Seccomp: 2), kernel lockdown in confidentiality mode; strict
 * seccomp, no filter, integrity lockdown and garbage say nothing; and the
 * live reader, with this process filtered by a seccomp filter of its own.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/file.h"
#include "util/refusal.h"
#include "tap.h"

#define STATUS(mode) "Name:\tsonde\nUmask:\t0022\nNoNewPrivs:\t1\nSeccomp:\t" mode \
		     "\nSeccomp_filters:\t1\nSpeculation_Store_Bypass:\tthread vulnerable\n"

static void test_from(void)
{
	char why[512];
	const char *st;

	st = STATUS("2");
	is_int(refusal__from("bpf", st, strlen(st), NULL, why, sizeof(why)), 1,
	       "Seccomp: 2 is a filter");
	ok(strstr(why, "a seccomp filter refuses bpf() to sonde") != NULL, "why names it (%s)", why);
	ok(strstr(why, "run sonde outside that container or unit") != NULL, "and what to do");
	st = STATUS("0");
	why[0] = '\0';
	is_int(refusal__from("bpf", st, strlen(st), NULL, why, sizeof(why)), 0, "Seccomp: 0: none");
	is_str(why, "", "why untouched");
	st = STATUS("1");
	is_int(refusal__from("bpf", st, strlen(st), NULL, why, sizeof(why)), 0,
	       "Seccomp: 1 (strict) is not what refused it");
	is_int(refusal__from("bpf", "Seccomp:\tx\n", 11, NULL, why, sizeof(why)), 0,
	       "garbage: nothing said");
	is_int(refusal__from("bpf", NULL, 0, NULL, why, sizeof(why)), 0, "nothing read: nothing said");
	st = STATUS("0");
	is_int(refusal__from("perf_event_open", st, strlen(st), "none integrity [confidentiality]\n",
			     why, sizeof(why)), 1, "lockdown confidentiality");
	ok(strstr(why, "kernel lockdown") && strstr(why, "perf_event_open()"), "why says so (%s)",
	   why);
	is_int(refusal__from("bpf", st, strlen(st), "none [integrity] confidentiality\n", why,
			     sizeof(why)), 0, "lockdown integrity does not refuse reading");
	is_int(refusal__from("bpf", st, strlen(st), "[none] integrity confidentiality\n", why,
			     sizeof(why)), 0, "no lockdown");
	st = STATUS("2");
	is_int(refusal__from("bpf", st, strlen(st), "none integrity [confidentiality]\n", why,
			     sizeof(why)), 1, "seccomp and lockdown: the filter is named first");
	ok(strstr(why, "seccomp") != NULL, "(%s)", why);
}

/* In a child: a filter of its own (allowing everything), then the live reader sees it. */
static void test_live(void)
{
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { .len = 1, .filter = f };
	char why[512];
	int fds[2], status;
	pid_t pid;

	why[0] = '\0';
	is_int(refusal__policy("bpf", why, sizeof(why)) == 1 && strstr(why, "seccomp"), 0,
	       "this test runs without a seccomp filter");
	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		int r;

		close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
			_exit(2);
		r = refusal__policy("bpf", why, sizeof(why));
		if (write(fds[1], why, strlen(why) + 1) < 0)
			_exit(3);
		_exit(r == 1 ? 0 : 1);
	}
	close(fds[1]);
	memset(why, 0, sizeof(why));
	if (read(fds[0], why, sizeof(why) - 1) < 0)
		why[0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "under a seccomp filter, the live reader says 1");
	ok(strstr(why, "Seccomp: 2") != NULL, "from /proc/self/status (%s)", why);
}

static void test_read_small(void)
{
	char buf[16];

	ok(file__read_small("/proc/self/status", buf, sizeof(buf)) == 15, "a /proc file (size 0) "
	   "is read up to the buffer");
	ok(!strncmp(buf, "Name:", 5) && buf[15] == '\0', "NUL-terminated");
	is_int((int)file__read_small("/nonexistent/x", buf, sizeof(buf)), -ENOENT, "-errno");
	is_int((int)file__read_small("/proc/self/status", buf, 0), -EINVAL, "no room: -EINVAL");
}

int main(void)
{
	test_from();
	test_live();
	test_read_small();
	return tap_done();
}
