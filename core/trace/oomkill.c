// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oomkill: OOM kills during the window. data = { kills (records read),
 * page_size, kills_list = [ { at_s (seconds after the tool attached; add
 * traced_from_s for the window), victim = { pid, tid (absent when unknown),
 * comm, rss_pages, rss_bytes, anon_bytes, file_bytes, shmem_bytes,
 * total_vm_bytes, oom_score_adj, memcg }, trigger = { pid, tid, comm },
 * totalpages, oom_memcg (kprobe only: "" for a host-wide OOM) } ] }. A field
 * the attach mode cannot give is absent.
 *
 * Without BPF, the same from oom:mark_victim in a tracefs instance
 * (ftrace.h): the victim's pid, and on kernels that print them (6.x) its
 * comm and memory in kB; the trigger is the task the event fired in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/ftrace.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "oomkill.h"
#include "oomkill.skel.h"

#define MAX_KILLS 256 /* more than the ring buffer holds */

static void *oomkill_open(struct bpf_object **obj)
{
	struct oomkill_bpf *skel = oomkill_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

struct kill_list {
	struct oomkill_event *ev;
	size_t n;
};

static int on_kill(void *ctx, void *data, size_t size)
{
	struct kill_list *k = ctx;

	if (size < sizeof(struct oomkill_event) || k->n >= MAX_KILLS)
		return 0;
	memcpy(&k->ev[k->n++], data, sizeof(struct oomkill_event));
	return 0;
}

/* pages of unit bytes, as bytes */
static void json_bytes(struct json *j, const char *key, __u64 pages, double unit)
{
	trace__json_int(j, key, (int64_t)((double)pages * unit));
}

/* The data of the kills read, whichever way they were (the ring buffer, tracefs). */
static void json_kills(struct trace_run *t, struct json *j, const struct kill_list *k)
{
	struct kill_list kills = *k;
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0)
		page = 4096;
	trace__json_int(j, "kills", kills.n);
	trace__json_int(j, "page_size", page);
	json__key(j, "kills_list");
	json__begin_array(j);
	for (size_t i = 0; i < kills.n; i++) {
		const struct oomkill_event *e = &kills.ev[i];
		/* the classic record gives kB; the others pages */
		double unit = e->flags & OOMKILL_RSS_IN_KB ? 1024.0 : (double)page;
		__u64 rss = e->victim_anon_pages + e->victim_file_pages + e->victim_shmem_pages;

		json__begin_object(j);
		json__key(j, "at_s");
		json__number(j, ((double)e->ts_ns - (double)t->attached_mono_ns) / 1e9);
		json__key(j, "victim");
		json__begin_object(j);
		trace__json_int(j, "pid", e->victim_tgid);
		if (e->flags & OOMKILL_HAVE_VICTIM_TID) {
			trace__json_int(j, "tid", e->victim_pid);
		}
		trace__json_comm(j, "comm", e->victim_comm, sizeof(e->victim_comm));
		if (e->flags & OOMKILL_HAVE_RSS) {
			trace__json_int(j, "rss_pages",
					(int64_t)((double)rss * unit / (double)page));
			json_bytes(j, "rss_bytes", rss, unit);
			json_bytes(j, "anon_bytes", e->victim_anon_pages, unit);
			json_bytes(j, "file_bytes", e->victim_file_pages, unit);
			json_bytes(j, "shmem_bytes", e->victim_shmem_pages, unit);
			json_bytes(j, "total_vm_bytes", e->victim_total_vm_pages, unit);
			trace__json_int(j, "oom_score_adj", e->oom_score_adj);
		}
		if (e->flags & OOMKILL_HAVE_VICTIM_CG)
			trace__json_comm(j, "memcg", e->victim_memcg, sizeof(e->victim_memcg));
		json__end_object(j);
		json__key(j, "trigger");
		json__begin_object(j);
		trace__json_int(j, "pid", e->trigger_tgid);
		trace__json_int(j, "tid", e->trigger_pid);
		trace__json_comm(j, "comm", e->trigger_comm, sizeof(e->trigger_comm));
		json__end_object(j);
		if (e->flags & OOMKILL_HAVE_TOTALPAGES) {
			trace__json_int(j, "totalpages", e->totalpages);
			trace__json_comm(j, "oom_memcg", e->oom_memcg, sizeof(e->oom_memcg));
		}
		json__end_object(j);
	}
	json__end_array(j);
}

static int oomkill_collect(struct trace_run *t, struct json *j)
{
	struct oomkill_bpf *skel = t->skel;
	struct kill_list kills = { 0 };
	struct ring_buffer *rb = NULL;
	int err = 0;

	kills.ev = calloc(MAX_KILLS, sizeof(*kills.ev));
	if (!kills.ev)
		return -ENOMEM;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_kill, &kills, NULL);
	if (!rb) {
		err = -errno;
		goto cleanup;
	}
	if (ring_buffer__consume(rb) < 0) {
		err = -errno;
		goto cleanup;
	}
	json_kills(t, j, &kills);
cleanup:
	ring_buffer__free(rb);
	free(kills.ev);
	return err;
}

/* ---- the tracefs variant: oom:mark_victim lines ---- */

static void *ft_new(void)
{
	struct kill_list *k = calloc(1, sizeof(*k));

	if (k && !(k->ev = calloc(MAX_KILLS, sizeof(*k->ev)))) {
		free(k);
		k = NULL;
	}
	return k;
}

static void ft_free(void *state)
{
	struct kill_list *k = state;

	free(k->ev);
	free(k);
}

static int64_t field_or(const struct ftrace_line *l, const char *name, int64_t dflt)
{
	int64_t v;

	return parse_ftrace_int(l->fields, l->fields_len, name, &v) ? dflt : v;
}

/*
 * "pid=%d comm=%s total-vm=%lukB anon-rss=%lukB file-rss:%lukB shmem-rss:%lukB
 * uid=%u pgtables=%lukB oom_score_adj=%hd" (6.x; "pid=%d" before): the kB
 * values end in "kB", and file-rss and shmem-rss are printed with ':'.
 */
static uint64_t kb_field(const struct ftrace_line *l, const char *key)
{
	const char *p = l->fields, *end = l->fields + l->fields_len;
	size_t n = strlen(key);

	for (; p + n < end; p++)
		if ((p == l->fields || p[-1] == ' ') && !memcmp(p, key, n))
			return strtoull(p + n, NULL, 10);
	return 0;
}

static void ft_line(void *state, const struct ftrace_line *l, int self)
{
	struct kill_list *k = state;
	struct oomkill_event *e;
	const char *comm;
	size_t n;

	if (l->event_len != 11 || memcmp(l->event, "mark_victim", 11) || k->n >= MAX_KILLS)
		return;
	e = &k->ev[k->n++];
	memset(e, 0, sizeof(*e));
	e->ts_ns = l->ts_ns;
	e->victim_tgid = e->victim_pid = (__u32)field_or(l, "pid", 0);
	if (!parse_ftrace_field(l->fields, l->fields_len, "comm", &comm, &n))
		memcpy(e->victim_comm, comm, n < sizeof(e->victim_comm) ? n : sizeof(e->victim_comm) - 1);
	if (!parse_ftrace_field(l->fields, l->fields_len, "total-vm", &comm, &n)) {
		e->flags |= OOMKILL_HAVE_RSS | OOMKILL_RSS_IN_KB;
		e->victim_total_vm_pages = kb_field(l, "total-vm=");
		e->victim_anon_pages = kb_field(l, "anon-rss=");
		e->victim_file_pages = kb_field(l, "file-rss:");
		e->victim_shmem_pages = kb_field(l, "shmem-rss:");
		e->oom_score_adj = (__s32)field_or(l, "oom_score_adj", 0);
	}
	e->trigger_pid = (__u32)l->pid;
	e->trigger_tgid = (__u32)(l->tgid > 0 ? l->tgid : l->pid);
	memcpy(e->trigger_comm, l->comm, sizeof(e->trigger_comm));
}

static int ft_collect(struct trace_run *t, void *state, struct json *j)
{
	json_kills(t, j, state);
	return 0;
}

static const struct ftrace_tool oomkill_ftrace = {
	.events = { { "oom", "mark_victim", NULL } },
	.state_new = ft_new,
	.line = ft_line,
	.collect = ft_collect,
	.state_free = ft_free,
};

static void oomkill_destroy(void *skel)
{
	oomkill_bpf__destroy(skel);
}

const struct trace_tool trace_oomkill = {
	.name = "oomkill",
	.what = "OOM kills: victim (pid, comm, rss, memory cgroup) and the task that triggered it",
	/* bcc's kprobe first: it sees totalpages and the cgroup that ran out */
	.attach = { ATTACH_KPROBE, ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_TRACEFS,
		    ATTACH_NR },
	.ftrace = &oomkill_ftrace,
	.open = oomkill_open,
	.collect = oomkill_collect,
	.destroy = oomkill_destroy,
	.hooks = { { HEV_OOM, 1 } },
	.run_cost = 10.0,
	.instead = "oom_kill of /proc/vmstat and the kernel log",
};
