// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tasks: a task iterator (iter/task, kernels 5.8 and later) that walks every
 * thread once and writes one struct tasks_rec each into the iterator's
 * seq_file: what /proc/PID/{stat,status,io,schedstat,limits} and the fd
 * table would give, in one pass, about half a microsecond a thread instead of
 * a dozen opens and reads a process. Not a tool of the window: the pids
 * collector reads it every round (core/trace/tasks.c folds the threads into
 * processes, as /proc does).
 *
 * A second, sleepable iterator reads every process's command line in one pass
 * (dump_cmdline, below), where the kernel has what it needs.
 *
 * Fields are read through the BTF-typed task pointer (plain loads the
 * verifier guards, no helper call); the fd bitmap, an array of words, with
 * bpf_probe_read_kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "tasks.h"

#define PF_KTHREAD 0x00200000
#define RLIMIT_NOFILE 7

/* Before 5.16 (x86), task_cpu() was task->cpu. */
struct task_struct___old {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u64 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

struct fds_walk {
	unsigned long *bits;
	__u64 n;
	int fault;
};

static long count_word(__u32 i, void *arg)
{
	struct fds_walk *w = arg;
	__u64 word;

	if (bpf_probe_read_kernel(&word, sizeof(word), w->bits + i)) {
		w->fault = 1;
		return 1;
	}
	w->n += popcount64(word);
	return 0;
}

/*
 * Open fds: the set bits of the file table's open_fds, up to TASKS_FDS_MAX,
 * a word a step through bpf_loop (Linux 5.17): the verifier checks the step
 * once instead of walking a bounded loop's every turn (200 ms of loading).
 */
static __always_inline void count_fds(struct tasks_rec *r, struct task_struct *task)
{
	struct files_struct *files = task->files;
	struct fds_walk w = { 0 };
	struct fdtable *fdt;
	__u32 max_fds;

	if (!files)
		return;
	fdt = files->fdt;
	if (!fdt)
		return;
	max_fds = fdt->max_fds;
	w.bits = fdt->open_fds;
	r->flags |= TASKS_HAVE_FILES;
	if (max_fds > TASKS_FDS_MAX) {
		r->flags |= TASKS_FDS_CUT;
		return;
	}
	bpf_loop((max_fds + 63) / 64, count_word, &w, 0);
	if (w.fault)
		r->flags |= TASKS_FDS_CUT;
	else
		r->fds = w.n;
}

static __always_inline void read_io(struct tasks_io *o, struct task_io_accounting *a)
{
	o->rchar = a->rchar;
	o->wchar = a->wchar;
	o->syscr = a->syscr;
	o->syscw = a->syscw;
	o->read_bytes = a->read_bytes;
	o->write_bytes = a->write_bytes;
}

/* What only the leader carries: the process as a whole, and the threads that exited. */
static __always_inline void fill_leader(struct tasks_rec *r, struct task_struct *task)
{
	struct signal_struct *sig = task->signal;
	struct mm_struct *mm = task->mm;
	struct task_delay_info *delays = task->delays;

	r->flags |= TASKS_LEADER;
	r->start_boottime = task->start_boottime;
	if (delays)
		r->blkio_delay = delays->blkio_delay;
	if (mm) {
		r->flags |= TASKS_HAVE_MM;
		r->anon_pages = sonde_rss_pages_how(mm, 1, 1);
		r->swap_pages = sonde_rss_pages_how(mm, 2, 1);
		r->rss_pages = sonde_rss_pages_how(mm, 0, 1) + r->anon_pages +
			       sonde_rss_pages_how(mm, 3, 1);
	}
	if (sig) {
		r->nr_threads = sig->nr_threads;
		r->sig_utime = sig->utime;
		r->sig_stime = sig->stime;
		r->sig_sum_exec = sig->sum_sched_runtime;
		r->sig_min_flt = sig->min_flt;
		r->sig_maj_flt = sig->maj_flt;
		r->prev_utime = sig->prev_cputime.utime;
		r->prev_stime = sig->prev_cputime.stime;
		r->nofile_cur = sig->rlim[RLIMIT_NOFILE].rlim_cur;
		r->nofile_max = sig->rlim[RLIMIT_NOFILE].rlim_max;
		if (bpf_core_field_exists(sig->ioac))
			read_io(&r->sig_io, &sig->ioac);
	}
	count_fds(r, task);
}

SEC("iter/task")
int dump_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct tasks_rec r;

	if (!task)
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	r.pid = task->pid;
	r.tgid = task->tgid;
	r.ppid = task->real_parent ? task->real_parent->tgid : 0;
	if (task->flags & PF_KTHREAD)
		r.flags |= TASKS_KTHREAD;
	r.state = task->__state;
	r.exit_state = task->exit_state;
	if (bpf_core_field_exists(task->thread_info.cpu))
		r.cpu = task->thread_info.cpu;
	else
		r.cpu = BPF_CORE_READ((struct task_struct___old *)task, cpu);
	r.uid = task->real_cred ? task->real_cred->uid.val : (__u32)-1; /* INVALID_UID: unknown */
	/* two plain loads of the 16-byte name, the verifier checks them against task_struct */
	__builtin_memcpy(r.comm, task->comm, sizeof(r.comm));
	r.utime = task->utime;
	r.stime = task->stime;
	r.sum_exec = task->se.sum_exec_runtime;
	r.min_flt = task->min_flt;
	r.maj_flt = task->maj_flt;
	r.nvcsw = task->nvcsw;
	r.nivcsw = task->nivcsw;
	r.run_delay = task->sched_info.run_delay;
	r.pcount = task->sched_info.pcount;
	if (bpf_core_field_exists(task->ioac)) {
		r.flags |= TASKS_HAVE_IO;
		read_io(&r.io, &task->ioac);
	}
	if (task->pid == task->tgid)
		fill_leader(&r, task);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}

/*
 * Twice the largest copy: the verifier sees the size masked to this, and the
 * map value must hold whatever it sees.
 */
#define CMDLINE_BUF (2 * TASKS_CMDLINE_MAX)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[CMDLINE_BUF]);
} cmdline_buf SEC(".maps");

/*
 * Every process's command line, as fs/proc/base.c get_mm_cmdline() gives it:
 * the bytes from arg_start to arg_end; or, when the process overwrote the NUL
 * that ends argv (setproctitle(3)), from arg_start into the environment area
 * (the user side cuts at the first NUL, as get_mm_proctitle() does). One
 * pass instead of an open, a read and a close of /proc/PID/cmdline per
 * process (10 us each here): the pids collector runs it in its first round,
 * where every process is seen for the first time. Optional: where the kernel
 * refuses it, the program is not loaded and /proc is read.
 */
SEC("iter.s/task")
int dump_cmdline(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct tasks_cmdline h = { 0 };
	unsigned long arg_start, arg_end, env_start, env_end, len;
	struct mm_struct *mm;
	__u32 zero = 0, n;
	char *buf, c = 0;

	if (!task || task->pid != task->tgid || (task->flags & PF_KTHREAD))
		return 0;
	mm = task->mm;
	if (!mm)
		return 0; /* exited, or a zombie: /proc says it (empty) */
	buf = bpf_map_lookup_elem(&cmdline_buf, &zero);
	if (!buf)
		return 0;
	h.tgid = task->tgid;
	arg_start = mm->arg_start;
	arg_end = mm->arg_end;
	env_start = mm->env_start;
	env_end = mm->env_end;
	if (!env_end || arg_start >= arg_end) {
		bpf_seq_write(seq, &h, sizeof(h)); /* not spawned far enough: empty */
		return 0;
	}
	if (env_start != arg_end || env_end < env_start)
		env_end = arg_end;
	if (bpf_copy_from_user_task(&c, 1, (void *)(arg_end - 1), task, 0)) {
		h.flags = TASKS_CMDLINE_FAULT;
		bpf_seq_write(seq, &h, sizeof(h));
		return 0;
	}
	if (c) {
		h.flags = TASKS_CMDLINE_PROCTITLE;
		len = env_end - arg_start; /* the kernel reads one page of it */
	} else {
		len = arg_end - arg_start;
	}
	if (len > TASKS_CMDLINE_MAX) {
		h.flags |= TASKS_CMDLINE_CUT;
		len = TASKS_CMDLINE_MAX;
	}
	n = (__u32)len & (CMDLINE_BUF - 1);
	if (bpf_copy_from_user_task(buf, n, (void *)arg_start, task, 0)) {
		h.flags = TASKS_CMDLINE_FAULT;
		bpf_seq_write(seq, &h, sizeof(h));
		return 0;
	}
	h.len = n;
	bpf_seq_write(seq, &h, sizeof(h));
	bpf_seq_write(seq, buf, n);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
