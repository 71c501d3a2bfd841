// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: every /proc and /sys parser on the same bytes. The parsers
 * take a length and never a NUL terminator, so the input is copied into a
 * buffer of exactly its size: ASan sees any read past the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

static int kv_sink(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	uint64_t u;
	int64_t i;

	(void)k;
	(void)kl;
	(void)arg;
	parse_kv_u64(v, vl, 1, &u);
	parse_kv_i64(v, vl, &i);
	return 0;
}

static int disk_sink(const struct diskstat *d, void *arg)
{
	(void)d;
	(void)arg;
	return 0;
}

static int net_sink(const struct netdev *d, void *arg)
{
	(void)d;
	(void)arg;
	return 0;
}

static int irq_sink(const char *n, size_t nl, const char *d, size_t dl, uint64_t t, void *arg)
{
	(void)n;
	(void)nl;
	(void)d;
	(void)dl;
	(void)t;
	(void)arg;
	return 0;
}

static int sched_sink(int cpu, uint64_t run, uint64_t wait, uint64_t slices, void *arg)
{
	(void)cpu;
	(void)run;
	(void)wait;
	(void)slices;
	(void)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct proc_stat ps;
	struct loadavg la;
	struct psi psi;
	struct file_nr fnr;
	struct pid_stat pst;
	struct pid_status pss;
	struct pid_io pio;
	struct pid_schedstat sch;
	struct pid_task ptk;
	uint64_t soft, hard;
	struct pid_syscall psc;
	struct net_inet_sock nis;
	struct threads_line tl;
	char kstack[128];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&ps, 0, sizeof(ps));
	if (!parse_proc_stat(buf, size, &ps))
		proc_stat__free(&ps);
	parse_loadavg(buf, size, &la);
	parse_pressure(buf, size, &psi);
	parse_kv(buf, size, kv_sink, NULL);
	parse_snmp(buf, size, kv_sink, NULL);
	parse_diskstats(buf, size, disk_sink, NULL);
	parse_net_dev(buf, size, net_sink, NULL);
	parse_file_nr(buf, size, &fnr);
	parse_pid_stat(buf, size, &pst);
	parse_pid_status(buf, size, &pss);
	parse_pid_io(buf, size, &pio);
	parse_pid_schedstat(buf, size, &sch);
	parse_pid_limits_nofile(buf, size, &soft, &hard);
	parse_task_record(buf, size, &ptk);
	parse_interrupts(buf, size, irq_sink, NULL);
	parse_schedstat(buf, size, sched_sink, NULL);
	parse_pid_syscall(buf, size, &psc);
	parse_kernel_stack(buf, size, kstack, sizeof(kstack));
	parse_net_inet_find(buf, size, 1, size & 1, &nis);
	/* the thread states' record and trace_pipe, line by line as their readers read them */
	for (const char *p = buf, *end = buf + size, *nl; p < end; p = nl + 1) {
		struct ftrace_line fl;
		const char *v;
		size_t vl;
		uint64_t lost;
		int64_t x;

		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			break;
		parse_threads_line(p, nl, &tl);
		parse_ftrace_lost(p, nl, &lost);
		if (!parse_ftrace_line(p, nl, &fl)) {
			parse_ftrace_field(fl.fields, fl.fields_len, "comm", &v, &vl);
			parse_ftrace_int(fl.fields, fl.fields_len, "pid", &x);
		}
	}
	free(buf);
	return 0;
}
