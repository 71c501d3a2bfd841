// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde's own code kept in memory (util/pin.h): the executable's r-x
 * mappings are found and locked (root, or RLIMIT_MEMLOCK large enough), or
 * read in without the lock where mlock is refused; the kernel's count of
 * locked memory (VmLck) says the lock holds.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "util/pin.h"
#include "tap.h"

/* VmLck of /proc/self/status, in kB, or -1. */
static long vm_locked_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(void)
{
	size_t bytes;
	const char *how;
	long before = vm_locked_kb(), after;
	int rc = pin__own_text(&bytes, &how);

	is_int(rc, 0, "the executable's mappings are found");
	ok(bytes >= 4096 && bytes % 4096 == 0, "its code is whole pages (%zu bytes)", bytes);
	ok(!strcmp(how, "locked") || !strcmp(how, "populated") || !strcmp(how, "advised"),
	   "and it was locked, populated or advised (%s)", how);
	after = vm_locked_kb();
	if (!strcmp(how, "locked"))
		ok(after - before >= (long)(bytes / 1024), "VmLck grew by the code's size (%ld -> %ld kB)",
		   before, after);
	else
		ok(after == before, "not locked: VmLck unchanged (%ld kB)", after);
	munlockall();

	/* a lock the limit refuses (no CAP_IPC_LOCK): the code is read in all the same */
	{
		struct rlimit rl = { 0, 0 };
		struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct cd[2];

		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (!syscall(SYS_capget, &hd, cd)) {
			cd[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
			syscall(SYS_capset, &hd, cd);
		}
		is_int(pin__own_text(&bytes, &how), 0, "RLIMIT_MEMLOCK 0, no CAP_IPC_LOCK: still 0");
		ok(!strcmp(how, "populated") || !strcmp(how, "advised"),
		   "and read in without the lock (%s)", how);
		is_int(vm_locked_kb(), before, "nothing locked");
	}
	return tap_done();
}
