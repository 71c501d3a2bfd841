// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policies that refuse a system call to root (refusal.h): seccomp
 * filters and kernel lockdown. Read when a refusal happens, never before:
 * the files cost nothing then, and a run that is not refused never reads them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/file.h"
#include "util/parse.h"
#include "util/refusal.h"

static int seccomp_mode(const char *key, size_t klen, const char *val, size_t vlen, void *arg)
{
	uint64_t mode;

	if (klen != 7 || memcmp(key, "Seccomp", 7) || parse_kv_u64(val, vlen, 0, &mode))
		return 0;
	*(int *)arg = (int)mode;
	return 1;
}

int refusal__from(const char *call, const char *status, size_t slen, const char *lockdown,
		  char *why, size_t n)
{
	int mode = 0;

	/* 2 is SECCOMP_MODE_FILTER; strict mode (1) allows read, write, exit only: not sonde */
	if (status && slen)
		parse_kv(status, slen, seccomp_mode, &mode);
	if (mode == 2) {
		snprintf(why, n,
			 "a seccomp filter refuses %s() to sonde although it has the right to "
			 "make it (Seccomp: 2 in /proc/self/status: a container runtime's default "
			 "profile, or a systemd unit's SystemCallFilter=): run sonde outside that "
			 "container or unit, or with %s() allowed (docker run --security-opt "
			 "seccomp=unconfined)", call, call);
		return 1;
	}
	/* the active mode is the bracketed one: "none integrity [confidentiality]" */
	if (lockdown && strstr(lockdown, "[confidentiality]")) {
		snprintf(why, n,
			 "kernel lockdown (confidentiality, /sys/kernel/security/lockdown; "
			 "Secure Boot kernels enable it) refuses %s() what reads kernel memory: "
			 "boot without lockdown=confidentiality to trace", call);
		return 1;
	}
	return 0;
}

int refusal__policy(const char *call, char *why, size_t n)
{
	char status[4096], lockdown[128];
	ssize_t slen = file__read_small("/proc/self/status", status, sizeof(status));
	ssize_t llen = file__read_small("/sys/kernel/security/lockdown", lockdown,
					sizeof(lockdown));

	return refusal__from(call, slen > 0 ? status : NULL, slen > 0 ? (size_t)slen : 0,
			     llen > 0 ? lockdown : NULL, why, n);
}
