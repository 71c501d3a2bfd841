// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oomkill: OOM kills during the window. data = { kills (records read),
 * page_size, kills_list = [ { at_s (seconds after the tool attached; add
 * traced_from_s for the window), victim = { pid, tid (absent when unknown),
 * comm, rss_pages, rss_bytes, anon_bytes, file_bytes, shmem_bytes,
 * total_vm_bytes, oom_score_adj, memcg }, trigger = { pid, tid, comm },
 * totalpages, oom_memcg (kprobe only: "" for a host-wide OOM) } ] }. A field
 * the attach mode cannot give is absent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

static int oomkill_collect(struct trace_run *t, struct json *j)
{
	struct oomkill_bpf *skel = t->skel;
	struct kill_list kills = { 0 };
	struct ring_buffer *rb = NULL;
	long page = sysconf(_SC_PAGESIZE);
	int err = 0;

	if (page <= 0)
		page = 4096;
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
cleanup:
	ring_buffer__free(rb);
	free(kills.ev);
	return err;
}

static void oomkill_destroy(void *skel)
{
	oomkill_bpf__destroy(skel);
}

const struct trace_tool trace_oomkill = {
	.name = "oomkill",
	.what = "OOM kills: victim (pid, comm, rss, memory cgroup) and the task that triggered it",
	/* bcc's kprobe first: it sees totalpages and the cgroup that ran out */
	.attach = { ATTACH_KPROBE, ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = oomkill_open,
	.collect = oomkill_collect,
	.destroy = oomkill_destroy,
	.hooks = { { HEV_OOM, 1 } },
	.run_cost = 10.0,
	.instead = "oom_kill of /proc/vmstat and the kernel log",
};
