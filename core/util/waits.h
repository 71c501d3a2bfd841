/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The words of what a thread waits in, as the thread states' capture writes
 * them (docs/capture-format.md, proc.threads), whoever read them: the BPF
 * task iterator (core/trace) or /proc (core/collect). One place, so that
 * both sources say the same thing the same way.
 */
#ifndef SONDE_WAITS_H
#define SONDE_WAITS_H

#include <stddef.h>
#include <stdint.h>

/* This build's syscall names (the build host's <asm/unistd.h>): NULL for an unknown number. */
const char *waits__syscall_name(long nr);
/* The number of a syscall, or -1. */
long waits__syscall_nr(const char *name);
/* Does syscall name take the fd it may block on as its first argument (read, recvfrom, ...)? */
int waits__takes_fd(const char *name);
/* Visit each such syscall's name (for a bitmap by number). */
void waits__each_fd_syscall(void (*fn)(void *arg, const char *name), void *arg);

const char *waits__tcp_state(unsigned state);

/*
 * Scheduler plumbing at the top of a sleeping thread's kernel stack
 * (schedule, io_schedule, __switch_to, ...): not where it waits. A stack is
 * kept from its first other frame, at most WAITS_KSTACK_FRAMES, "fn<fn<fn".
 */
int waits__sched_frame(const char *fn, size_t n);
#define WAITS_KSTACK_FRAMES 8

/*
 * An inet socket as the capture names it: "tcp L>R STATE", "tcp L LISTEN
 * q=N" (N its accept queue), "udp L>R", "udp L", "inet TYPE L"; L and R are
 * "1.2.3.4:80" or "[::1]:80". family AF_INET or AF_INET6, addresses in
 * network order (4 or 16 bytes), ports in host order; proto IPPROTO_*.
 */
void waits__inet(char *out, size_t len, int family, int proto, int sotype, const uint8_t *laddr,
		 unsigned lport, const uint8_t *raddr, unsigned rport, unsigned tcp_state,
		 unsigned backlog);
/* Any other socket: "unix stream", "netlink dgram", "packet raw", "sock dgram". */
void waits__sock(char *out, size_t len, int family, int sotype);

#endif
