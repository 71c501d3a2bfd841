/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why the kernel refuses a system call to a process that holds the right to
 * make it (root, or the capability): a policy above the capabilities. sonde
 * says so in a known unknown, with what the user can do, rather than "needs
 * root" to a user who is root.
 */
#ifndef SONDE_UTIL_REFUSAL_H
#define SONDE_UTIL_REFUSAL_H

#include <stddef.h>

/*
 * When a policy is seen that refuses call() to this process, 1 with a clause
 * in why ("a seccomp filter refuses bpf() to sonde (...): run it ..."); else 0
 * (why untouched). Seen: a seccomp filter on this process (Seccomp: 2 in
 * /proc/self/status: a container runtime's default profile, a unit's
 * SystemCallFilter=), kernel lockdown in confidentiality mode.
 */
int refusal__policy(const char *call, char *why, size_t n);

/* The same from the files' text, for tests: status is /proc/self/status, lockdown may be NULL. */
int refusal__from(const char *call, const char *status, size_t slen, const char *lockdown,
		  char *why, size_t n);

#endif
