/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oomkill: OOM kills during the window, one record each; shared with user space. */
#ifndef SONDE_OOMKILL_H
#define SONDE_OOMKILL_H

#define OOMKILL_EVENTS_BYTES (16 * 1024) /* ring buffer: about 60 records; the rest are drops */
#define OOMKILL_CGROUP_LEN 64

/* Which fields of a record this variant could fill. */
#define OOMKILL_HAVE_RSS (1u << 0)        /* victim_*_pages */
#define OOMKILL_HAVE_VICTIM_CG (1u << 1)  /* victim_memcg */
#define OOMKILL_HAVE_TOTALPAGES (1u << 2) /* totalpages, oom_memcg (kprobe only) */
#define OOMKILL_HAVE_VICTIM_TID (1u << 3) /* victim_pid (tid) and victim_tgid both known */
#define OOMKILL_RSS_IN_KB (1u << 4)       /* the classic record gives kB, not pages */

struct oomkill_event {
	__u64 ts_ns;
	__u64 victim_anon_pages, victim_file_pages, victim_shmem_pages, victim_total_vm_pages;
	__u64 totalpages;   /* memory the OOM killer weighed the victim against (kprobe) */
	__u32 victim_pid, victim_tgid;
	__u32 trigger_pid, trigger_tgid;
	__s32 oom_score_adj;
	__u32 flags;
	char victim_comm[16];
	char trigger_comm[16];
	char victim_memcg[OOMKILL_CGROUP_LEN]; /* leaf name of the victim's memory cgroup */
	char oom_memcg[OOMKILL_CGROUP_LEN];    /* the cgroup that ran out ("" = the whole host) */
};

#endif
