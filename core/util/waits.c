// SPDX-License-Identifier: GPL-2.0-or-later
/* The words of what a thread waits in (waits.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "util/waits.h"
#include "syscall_names.h"

#define NSYSCALLS (sizeof(syscall_names) / sizeof(syscall_names[0]))

/*
 * Syscalls whose first argument is the fd they may block on. Not epoll_wait:
 * its fd is the epoll instance, which says nothing of what it waits for (an
 * event loop's wait is idle by its syscall), and naming it cost every
 * waiting thread six probe reads a round.
 */
static const char *const fd_syscalls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
	"preadv2", "pwritev2", "recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg",
	"sendmmsg", "connect", "accept", "accept4",
	"fsync", "fdatasync", "flock", "fcntl", "ioctl", "sendfile", "splice", "tee",
	"sync_file_range", "fallocate", "ftruncate", "getdents64", "io_uring_enter", "shutdown",
	NULL,
};

const char *waits__syscall_name(long nr)
{
	return nr >= 0 && (size_t)nr < NSYSCALLS ? syscall_names[nr] : NULL;
}

long waits__syscall_nr(const char *name)
{
	for (size_t i = 0; i < NSYSCALLS; i++)
		if (syscall_names[i] && !strcmp(syscall_names[i], name))
			return (long)i;
	return -1;
}

int waits__takes_fd(const char *name)
{
	for (const char *const *n = fd_syscalls; *n; n++)
		if (!strcmp(*n, name))
			return 1;
	return 0;
}

void waits__each_fd_syscall(void (*fn)(void *arg, const char *name), void *arg)
{
	for (const char *const *n = fd_syscalls; *n; n++)
		fn(arg, *n);
}

const char *waits__tcp_state(unsigned s)
{
	static const char *const names[] = {
		"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
		"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int waits__sched_frame(const char *fn, size_t n)
{
	static const char *const prefixes[] = { "__schedule", "schedule", "io_schedule",
						"__switch_to", "preempt_schedule", NULL };

	for (const char *const *p = prefixes; *p; p++)
		if (n >= strlen(*p) && !memcmp(fn, *p, strlen(*p)))
			return 1;
	return (n == 11 && !memcmp(fn, "bit_wait_io", 11)) || (n == 8 && !memcmp(fn, "bit_wait", 8));
}

static const char *sock_type(int t)
{
	static const char *const types[] = { "?", "stream", "dgram", "raw", "rdm", "seqpacket" };

	return t >= 0 && t < 6 ? types[t] : "?";
}

/* "1.2.3.4:80" or "[::1]:80" */
static void endpoint(char *out, size_t len, int family, const uint8_t *addr, unsigned port)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(out, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

void waits__inet(char *out, size_t len, int family, int proto, int sotype, const uint8_t *laddr,
		 unsigned lport, const uint8_t *raddr, unsigned rport, unsigned tcp_state,
		 unsigned backlog)
{
	char l[64], r[64];

	endpoint(l, sizeof(l), family, laddr, lport);
	endpoint(r, sizeof(r), family, raddr, rport);
	if (proto == 6 && tcp_state == 10)
		snprintf(out, len, "tcp %s LISTEN q=%u", l, backlog);
	else if (proto == 6)
		snprintf(out, len, "tcp %.60s>%.60s %s", l, r, waits__tcp_state(tcp_state));
	else if (proto == 17 && rport)
		snprintf(out, len, "udp %.60s>%.60s", l, r);
	else if (proto == 17)
		snprintf(out, len, "udp %s", l);
	else
		snprintf(out, len, "inet %s %s", sock_type(sotype), l);
}

void waits__sock(char *out, size_t len, int family, int sotype)
{
	snprintf(out, len, "%s %s",
		 family == AF_UNIX ? "unix" : family == AF_NETLINK ? "netlink" :
		 family == AF_PACKET ? "packet" : "sock", sock_type(sotype));
}
