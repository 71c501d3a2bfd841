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

static int mount_sink(const struct mountinfo_line *m, void *arg)
{
	(void)m;
	(void)arg;
	return 0;
}

static int swap_sink(const struct swap_line *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

static int statfs_sink(const struct statfs_line *s, void *arg)
{
	(void)s;
	(void)arg;
	return 0;
}

static int listen_sink(const struct net_listen_line *l, void *arg)
{
	(void)l;
	(void)arg;
	return 0;
}

static int accepts_sink(const struct net_accepts_line *a, void *arg)
{
	(void)a;
	(void)arg;
	return 0;
}

static int owner_sink(const struct net_owner_line *o, void *arg)
{
	(void)o;
	(void)arg;
	return 0;
}

static int ports_sink(const struct net_ports_line *l, void *arg)
{
	(void)l;
	(void)arg;
	return 0;
}

static int link_sink(const struct net_link_line *l, void *arg)
{
	(void)l;
	(void)arg;
	return 0;
}

static int qdisc_sink(const struct net_qdisc_line *q, void *arg)
{
	(void)q;
	(void)arg;
	return 0;
}

static int fds_sink(int pid, uint64_t n, void *arg)
{
	(void)pid;
	(void)n;
	(void)arg;
	return 0;
}

static int files_sink(const struct files_line *f, void *arg)
{
	(void)f;
	(void)arg;
	return 0;
}

static int pid_sink(int pid, void *arg)
{
	(void)pid;
	(void)arg;
	return 0;
}

static int hier_sink(const struct cgroup_hier_line *h, void *arg)
{
	(void)h;
	(void)arg;
	return 0;
}

static int kmsg_sink(const struct kmsg_line *k, void *arg)
{
	(void)arg;
	/* the words point into the input: read them whole */
	return (k->text.n && k->text.p[k->text.n - 1] == 1) || (k->line.n && k->line.p[0] == 1);
}

static int history_sink(const struct history_line *h, void *arg)
{
	(void)arg;
	return h->kind == HISTORY_METRIC && h->instance.n && h->instance.p[h->instance.n - 1] == 1;
}

static int cgio_sink(const struct cgroup_io_line *c, void *arg)
{
	(void)arg;
	return c->key.n && c->key.p[c->key.n - 1] == 1 && c->dev.p[0] == 1;
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
	uint64_t u, us[3];
	int64_t i64;
	unsigned un32;
	double d;

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
	parse_value_u64(buf, size, &u);
	parse_value_i64(buf, size, &i64);
	parse_value_hex(buf, size, &u);
	parse_value_u64s(buf, size, us, 1 + size % 3);
	parse_kv_double(buf, size, &d);
	parse_pci_link_speed(buf, size, &d);
	parse_aer_counters(buf, size, &u);
	parse_mountinfo(buf, size, mount_sink, NULL);
	parse_swaps(buf, size, swap_sink, NULL);
	parse_statfs_record(buf, size, statfs_sink, NULL);
	parse_net_listen(buf, size, listen_sink, NULL);
	parse_net_accepts(buf, size, accepts_sink, NULL);
	parse_net_owners(buf, size, owner_sink, NULL);
	parse_net_ports(buf, size, ports_sink, NULL);
	parse_net_links(buf, size, link_sink, NULL);
	parse_net_qdisc(buf, size, qdisc_sink, NULL);
	parse_socket_link(buf, size, &u);
	parse_pid_name(buf, size);
	parse_fds_record(buf, size, fds_sink, NULL);
	parse_files_record(buf, size, files_sink, NULL);
	parse_pid_list(buf, size, pid_sink, NULL);
	parse_cgroups_record(buf, size, hier_sink, NULL);
	parse_uptime(buf, size, &d, &d);
	parse_kmsg(buf, size, kmsg_sink, NULL);
	parse_history_record(buf, size, history_sink, NULL);
	parse_cpu_list(buf, size, &un32);
	parse_numbered_name(buf, size, "node");
	parse_node_meminfo(buf, size, kv_sink, NULL);
	parse_cgroup_io(buf, size, cgio_sink, NULL);
	parse_kv_hex(buf, size, &u);
	{
		char *un = malloc(size ? size : 1);

		if (un) {
			parse_unescape_octal(buf, size, un);
			free(un);
		}
	}
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
