// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's BTF probe (trace.h, trace__kernel_btf): the runner asks it for
 * every tool, and the profile to choose its build without CO-RE. A file of
 * its own, below both, so that neither calls the other for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

/*
 * The kernel's BTF, which every CO-RE tool needs to load: 0 when
 * /sys/kernel/btf/vmlinux holds BTF (its magic), else -ENOENT with the reason
 * and what the user can do.
 */
int trace__kernel_btf(char *why, size_t whylen)
{
	static const char path[] = "/sys/kernel/btf/vmlinux";
	static const char need[] =
		"sonde's BPF tools but the profile (CO-RE) need it to load: a kernel built with "
		"CONFIG_DEBUG_INFO_BTF (Linux 5.2+; RHEL 8.2+, Ubuntu 20.10+ or a 5.15 HWE kernel, "
		"Debian 11+, Amazon Linux 2 with kernel 5.10, SLES 15 SP3+); the figures they give "
		"come from /proc where it can (docs/portability.md)";
	unsigned char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0) {
		snprintf(why, whylen, "this kernel has no BTF (%s: %s): %s", path, strerror(errno),
			 need);
		return -ENOENT;
	}
	got = read(fd, magic, sizeof(magic));
	close(fd);
	/* struct btf_header starts with magic 0xeB9F, in the kernel's byte order (little here) */
	if (got != (ssize_t)sizeof(magic) || magic[0] != 0x9f || magic[1] != 0xeb) {
		snprintf(why, whylen, "this kernel has no BTF (%s is %s): %s", path,
			 got <= 0 ? "empty" : "not BTF", need);
		return -ENOENT;
	}
	return 0;
}
