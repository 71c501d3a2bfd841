// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host context read back from capture streams (collect/hostctx_read.c):
 * each fact from the records the collector writes, the reasons when a fact
 * is missing, and hostile or cut input (control characters, records without
 * the expected shape, an oversized node listing, a kernel log that is not
 * /dev/kmsg's format).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/hostctx.h"
#include "tap.h"
#include "util/strbuf.h"

struct rec {
	const char *path, *data; /* data NULL: a failed read with err */
	int err;
};
#define FAIL(path, err) { (path), NULL, (err) }
/* The tables below leave err out where a read succeeded: it is 0. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* A stream's text in the capture format, parsed into st. */
static int make_stream(struct capture_stream *st, const char *name, const struct rec *r)
{
	struct strbuf sb = { 0 };
	char err[256];

	strbuf__puts(&sb, CAPTURE_MAGIC);
	for (; r->path; r++)
		if (r->data)
			strbuf__printf(&sb, "@ 0 1 1 %zu - %s\n%s\n", strlen(r->data), r->path,
				       r->data);
		else
			strbuf__printf(&sb, "! 0 1 1 %d - %s\n", r->err, r->path);
	memset(st, 0, sizeof(*st));
	st->name = strdup(name);
	return capture_stream__parse(st, sb.buf, sb.len, err, sizeof(err));
}

static void read_set(const struct rec *host, const struct rec *ctx, struct host_context *hc,
		     int *rc)
{
	struct capture_set cs = { 0 };

	cs.s = calloc(2, sizeof(*cs.s));
	if (host && !make_stream(&cs.s[cs.n], "host", host))
		cs.n++;
	if (ctx && !make_stream(&cs.s[cs.n], HOSTCTX_STREAM, ctx))
		cs.n++;
	*rc = host_context__read(&cs, hc);
	capture_set__free(&cs);
}

static const struct rec host_recs[] = {
	{ "/proc/sys/kernel/osrelease", "6.1.0-18-amd64\n" },
	{ "/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\n" },
	{ "/proc/uptime", "200000.50 300000.00\n" },
	{ "/proc/cpuinfo", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6230\n"
			   "flags\t\t: fpu vme avx2\n\nprocessor\t: 1\n"
			   "model name\t: Intel(R) Xeon(R) Gold 6230\nflags\t\t: fpu vme avx2\n" },
	{ NULL },
};

static void test_facts(void)
{
	static const struct rec ctx[] = {
		{ "/etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
				     "(bookworm)\"\nID=debian\n" },
		{ "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n" },
		/* P (bit 0), W (bit 9), O (bit 12) */
		{ "/proc/sys/kernel/tainted", "4609\n" },
		{ "/proc/modules", "nvme 49152 2 - Live 0x0000000000000000\n"
				   "ext4 1003520 1 - Live 0x0000000000000000\n" },
		{ "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n" },
		{ "/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n" },
		{ "/sys/kernel/mm/transparent_hugepage/defrag",
		  "always defer defer+madvise [madvise] never\n" },
		{ "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n" },
		{ "/sys/devices/system/node", "node0\nnode1\n" },
		{ "/sys/devices/system/node/node0/cpulist", "0-3\n" },
		{ "/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       16384000 kB\n" },
		{ "/sys/devices/system/node/node0/distance", "10 21\n" },
		{ "/sys/devices/system/node/node1/cpulist", "4-7\n" },
		{ "/proc/sys/vm/swappiness", "60\n" },
		{ "/proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n" },
		{ "/proc/sys/kernel/sched_rt_runtime_us", "950000\n" },
		{ "/proc/sys/fs/inotify/max_user_watches", "8192\n" },
		{ "/proc/sys/vm/dirty_ratio", "20\n" },
		{ "/dev/kmsg", "6,1201,5000123,-;eth0: link up\n SUBSYSTEM=net\n"
			       "3,1202,6000000,-;EXT4-fs error (device sda1)\n" },
		{ HOSTCTX_FAILED_UNITS, "nginx.service loaded failed failed A web server\n"
					"backup.timer loaded failed failed Nightly backup\n" },
		{ NULL },
	};
	struct host_context hc;
	int rc;

	read_set(host_recs, ctx, &hc, &rc);
	is_int(rc, 0, "a complete host context reads");
	ok(hc.collected, "it says the stream was there");
	is_str(hc.os, "Debian GNU/Linux 12 (bookworm)", "os-release: PRETTY_NAME, unquoted");
	is_str(hc.kernel, "6.1.0-18-amd64", "the kernel release comes from the host stream");
	is_str(hc.cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet", "the command line");
	is_int(hc.tainted, 4609, "the taint value");
	is_str(hc.taint_flags, "PWO", "the taint letters, in the kernel's order");
	ok(hc.uptime_s > 199999 && hc.uptime_s < 200001, "uptime from /proc/uptime");
	is_int(hc.modules.n, 2, "two modules");
	is_str(hc.modules.n ? hc.modules.v[0] : NULL, "nvme", "a module's name is its first word");
	is_str(hc.cgroup, "v2", "cgroup.controllers at the root: v2");
	is_str(hc.thp, "madvise", "THP: the selected word");
	is_str(hc.thp_defrag, "madvise", "THP defrag: the selected word of a long line");
	is_str(hc.governor, "performance", "the governor");
	is_str(hc.cpu_model, "Intel(R) Xeon(R) Gold 6230", "the CPU model");
	is_int(hc.cpus, 2, "two processors");
	is_int(hc.cpu_flags.n, 3, "the first processor's flags");
	is_int(hc.nnuma, 2, "two NUMA nodes");
	if (hc.nnuma == 2) {
		is_str(hc.numa[0].cpus, "0-3", "node 0's CPUs");
		is_int(hc.numa[0].mem_kb, 16384000, "node 0's memory");
		is_str(hc.numa[1].cpus, "4-7", "node 1's CPUs");
		is_int(hc.numa[1].mem_kb, 0, "node 1 without meminfo: 0, unknown");
	}
	is_int(hc.sysctl_names.n, 5, "five sysctls (kernel.tainted is shown apart)");
	if (hc.sysctl_names.n == 5) {
		is_str(hc.sysctl_names.v[0], "fs.inotify.max_user_watches", "sysctls sorted, dotted");
		is_str(hc.sysctl_names.v[2], "net.ipv4.tcp_rmem", "net.ipv4.tcp_rmem");
		is_str(hc.sysctl_values.v[2], "4096 131072 6291456", "tabs become single spaces");
		is_str(hc.sysctl_names.v[4], "vm.swappiness", "the last one by name");
		is_str(hc.sysctl_values.v[4], "60", "its value, trimmed");
	}
	is_int(hc.kmsg.n, 2, "two kernel log records (the dictionary line is not one)");
	is_str(hc.kmsg.n ? hc.kmsg.v[0] : NULL, "[5.000123] eth0: link up",
	       "a record as [seconds] text");
	is_str(hc.failed_why, "", "failed units known");
	is_int(hc.failed_units.n, 2, "two failed units");
	is_str(hc.failed_units.n > 1 ? hc.failed_units.v[1] : NULL, "backup.timer",
	       "a unit's name is its first word");
	host_context__free(&hc);
}

static void test_unknowns(void)
{
	static const struct rec ctx[] = {
		FAIL("/proc/modules", ENOENT),
		FAIL("/dev/kmsg", EPERM),
		FAIL("/run/systemd/system", ENOENT),
		{ "/sys/fs/cgroup", "cpu\ncpuacct\nmemory\npids\n" },
		{ NULL },
	};
	static const struct rec ctx_timeout[] = {
		FAIL(HOSTCTX_FAILED_UNITS, ETIMEDOUT),
		{ "/sys/fs/cgroup/unified/cgroup.controllers", "\n" },
		{ NULL },
	};
	static const struct rec ctx_nosystemctl[] = {
		FAIL(HOSTCTX_FAILED_UNITS, ENOENT),
		{ NULL },
	};
	struct host_context hc;
	int rc;

	read_set(NULL, NULL, &hc, &rc);
	is_int(rc, 0, "no streams at all: not an error");
	ok(!hc.collected, "no host.context stream: not collected (an older bundle)");
	is_int(hc.tainted, -1, "taint unknown");
	ok(hc.uptime_s < 0, "uptime unknown");
	host_context__free(&hc);

	read_set(NULL, ctx, &hc, &rc);
	ok(hc.modules_known && !hc.modules.n, "no /proc/modules: a kernel without modules, none");
	ok(strstr(hc.kmsg_why, "CAP_SYSLOG") != NULL, "kernel log refused: says what it needs (%s)",
	   hc.kmsg_why);
	ok(strstr(hc.failed_why, "not booted with systemd") != NULL,
	   "no /run/systemd/system: not booted with systemd (%s)", hc.failed_why);
	is_str(hc.cgroup, "v1", "controllers as directories: v1");
	host_context__free(&hc);

	read_set(NULL, ctx_timeout, &hc, &rc);
	ok(strstr(hc.failed_why, "did not answer") != NULL, "systemctl timed out: said so");
	is_str(hc.cgroup, "hybrid (v1 and v2)", "unified/ has controllers: hybrid");
	host_context__free(&hc);

	read_set(NULL, ctx_nosystemctl, &hc, &rc);
	ok(strstr(hc.failed_why, "no systemctl") != NULL, "no systemctl: said so");
	host_context__free(&hc);
}

static void test_hostile(void)
{
	static char nodes[300000];
	static char kmsg[4096];
	struct rec ctx[] = {
		{ "/etc/os-release", "PRETTY_NAME=\"evil\x1b[31m\x07" "name\"\n" },
		{ "/usr/lib/os-release", "PRETTY_NAME=other\n" },
		{ "/proc/sys/kernel/tainted", "garbage\n" },
		{ "/sys/devices/system/node", nodes },
		{ "/sys/kernel/mm/transparent_hugepage/enabled", "[unterminated\n" },
		{ "/dev/kmsg", kmsg },
		{ "/proc/sys/vm/x", "a\x01" "b\n" },
		{ "/proc/modules", "\n\n   \n" },
		{ NULL },
	};
	struct host_context hc;
	size_t n = 0;
	int rc;

	/* More node entries than the reader keeps, and one that is not a node at the end. */
	for (int i = 0; n + 16 < sizeof(nodes); i++)
		n += (size_t)snprintf(nodes + n, sizeof(nodes) - n, "node%d\n", i);
	snprintf(kmsg, sizeof(kmsg), "not a kmsg record at all\n6,1,x,-;bad number\n;\n");
	read_set(NULL, ctx, &hc, &rc);
	is_int(rc, 0, "hostile records read without failing");
	ok(!strchr(hc.os, '\x1b') && !strchr(hc.os, '\x07'), "control characters are replaced (%s)",
	   hc.os);
	is_str(hc.os, "evil?[31m?name", "the text otherwise kept");
	is_int(hc.taint_flags[0], 0, "a taint that is not a number: no letters");
	ok(hc.nnuma <= 1024, "the node listing is bounded (%zu)", hc.nnuma);
	is_str(hc.thp, "[unterminated", "an unterminated selection: the text as it is");
	is_int(hc.kmsg.n, 3, "lines that are not kmsg records are kept as text");
	is_str(hc.sysctl_values.n ? hc.sysctl_values.v[0] : NULL, "a?b",
	       "a sysctl's control character replaced");
	is_int(hc.modules.n, 0, "blank module lines: no module");
	host_context__free(&hc);
}

static void test_taint_meaning(void)
{
	ok(host_context__taint_meaning('W') && strstr(host_context__taint_meaning('W'), "warning"),
	   "W means a warning");
	ok(!host_context__taint_meaning('?'), "an unknown letter has no meaning");
}

int main(void)
{
	test_facts();
	test_unknowns();
	test_hostile();
	test_taint_meaning();
	return tap_done();
}
