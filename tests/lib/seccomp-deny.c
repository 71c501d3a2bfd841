// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seccomp-deny SYSCALL[,SYSCALL...] CMD [ARG...]: run CMD with those system
 * calls refused (EPERM, as a container runtime's default profile refuses
 * bpf()), for the tests of sonde's fallbacks (tests/live/fallbacks.t).
 * Knows bpf and perf_event_open. Built by the test that uses it.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned int nr;
} known[] = {
	{ "bpf", __NR_bpf },
	{ "perf_event_open", __NR_perf_event_open },
};

int main(int argc, char **argv)
{
	struct sock_filter f[16];
	unsigned int n = 0, deny[4], ndeny = 0;
	char *list, *tok, *save = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: seccomp-deny SYSCALL[,SYSCALL...] CMD [ARG...]\n");
		return 2;
	}
	list = argv[1];
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < sizeof(known) / sizeof(*known); k++)
			if (!strcmp(tok, known[k].name))
				break;
		if (k == sizeof(known) / sizeof(*known) || ndeny == 4) {
			fprintf(stderr, "seccomp-deny: %s: not a system call this knows\n", tok);
			return 2;
		}
		deny[ndeny++] = known[k].nr;
	}
	/* another architecture's calls (x32, i386) are killed rather than misread */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (unsigned int i = 0; i < ndeny; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, deny[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						      SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("seccomp-deny: prctl");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
