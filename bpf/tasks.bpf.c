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
 *
 * The same pass says what each thread waits in (struct tasks_wait, after its
 * record): the thread-state analysis reads it every round. dump_wait gives
 * the same for the threads of one process, attached per process (a task
 * iterator link with a pid, Linux 6.1), so that the suspects' states are
 * sampled many times a round without walking every task of the host.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "tasks.h"

#define PF_KTHREAD 0x00200000
#define RLIMIT_NOFILE 7
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_NOLOAD 0x400
#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define AF_INET 2
#define AF_INET6 10
#define ANON_INODE_FS_MAGIC 0x09041934

/* Set by user space before load (core/trace/tasks_wait.c, the feature probes). */
const volatile bool targ_regs = true;   /* bpf_task_pt_regs (5.15): the syscall a thread is in */
const volatile bool targ_kstack = true; /* bpf_get_task_stack (5.9): the stack of a D thread */
const volatile bool targ_delays = false; /* kernel.task_delayacct=1: the delays are kept */
/* the syscalls whose first argument is an fd (bit per number), and poll's and ppoll's */
const volatile __u64 targ_fd_syscalls[TASKS_SYSCALL_BITS / 64] = {};
const volatile __s64 targ_poll_nr = -1, targ_ppoll_nr = -1;

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

/* The registers a thread saved at kernel entry, per architecture (CO-RE flavours). */
struct pt_regs___x86_wait {
	unsigned long orig_ax, di, si, dx;
} __attribute__((preserve_access_index));

struct user_pt_regs___arm64_wait {
	__u64 regs[31];
};

struct pt_regs___arm64_wait {
	struct user_pt_regs___arm64_wait user_regs;
	__u64 orig_x0;
	__s32 syscallno;
} __attribute__((preserve_access_index));

/* The wait of one thread and its kernel stack, written as one piece: too large for the stack. */
struct wait_scratch {
	struct tasks_wait w;
	__u64 stack[TASKS_KSTACK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wait_scratch);
} wait_buf SEC(".maps");

static __always_inline int fd_syscall(__s64 nr)
{
	if (nr < 0 || nr >= TASKS_SYSCALL_BITS)
		return 0;
	return (targ_fd_syscalls[(nr >> 6) & (TASKS_SYSCALL_BITS / 64 - 1)] >> (nr & 63)) & 1;
}

/* The syscall and its first three arguments, from the registers saved at entry. */
static __always_inline void wait_regs(struct tasks_wait *w, struct task_struct *task)
{
	struct pt_regs *regs;

	w->syscall = -1;
	if (!targ_regs)
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return;
	if (bpf_core_field_exists(((struct pt_regs___x86_wait *)regs)->orig_ax)) {
		struct pt_regs___x86_wait *x = (void *)regs;

		/* plain loads: the helper's pointer is typed (struct pt_regs), no probe read */
		w->syscall = (__s64)x->orig_ax;
		w->args[0] = x->di;
		w->args[1] = x->si;
		w->args[2] = x->dx;
	} else if (bpf_core_field_exists(((struct pt_regs___arm64_wait *)regs)->syscallno)) {
		struct pt_regs___arm64_wait *a = (void *)regs;

		w->syscall = a->syscallno;
		w->args[0] = a->orig_x0;
		w->args[1] = a->user_regs.regs[1];
		w->args[2] = a->user_regs.regs[2];
	} else {
		return;
	}
	w->flags |= WAIT_SYSCALL;
}

/* A socket's family, type, state, addresses and ports; a listener's accept queue. */
static __always_inline void wait_sock(struct tasks_wait *w, struct file *f)
{
	struct socket *so = BPF_CORE_READ(f, private_data);
	struct sock *sk;

	if (!so || !(sk = BPF_CORE_READ(so, sk)))
		return;
	w->flags |= WAIT_SOCK;
	w->sk_family = BPF_CORE_READ(sk, __sk_common.skc_family);
	w->sk_state = BPF_CORE_READ(sk, __sk_common.skc_state);
	w->sk_type = BPF_CORE_READ_BITFIELD_PROBED(sk, sk_type);
	w->sk_proto = BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
	w->sk_lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	w->sk_rport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
	w->sk_backlog = BPF_CORE_READ(sk, sk_ack_backlog);
	if (w->sk_family == AF_INET) {
		__be32 a = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__be32 b = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(w->sk_laddr, &a, 4);
		__builtin_memcpy(w->sk_raddr, &b, 4);
	} else if (w->sk_family == AF_INET6) {
		BPF_CORE_READ_INTO(&w->sk_laddr, sk, __sk_common.skc_v6_rcv_saddr);
		BPF_CORE_READ_INTO(&w->sk_raddr, sk, __sk_common.skc_v6_daddr);
	}
}

/* The file behind fd in task's table: its inode, and what kind of file it is. */
static __always_inline void wait_fd(struct tasks_wait *w, struct task_struct *task, __u64 fd)
{
	struct files_struct *files = task->files;
	struct fdtable *fdt;
	struct file **fds, *f = NULL;
	struct inode *inode;

	if (!files || !(fdt = files->fdt) || fd >= fdt->max_fds)
		return;
	fds = fdt->fd;
	if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd) || !f)
		return;
	inode = BPF_CORE_READ(f, f_inode);
	if (!inode)
		return;
	w->fd = (__s32)fd;
	w->flags |= WAIT_FD;
	w->i_mode = BPF_CORE_READ(inode, i_mode);
	w->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	w->ino = BPF_CORE_READ(inode, i_ino);
	if ((w->i_mode & S_IFMT) == S_IFSOCK) {
		wait_sock(w, f);
	} else if (BPF_CORE_READ(inode, i_sb, s_magic) == ANON_INODE_FS_MAGIC) {
		const unsigned char *name = BPF_CORE_READ(f, f_path.dentry, d_name.name);

		if (name && bpf_probe_read_kernel_str(w->anon, sizeof(w->anon), name) > 0)
			w->flags |= WAIT_ANON;
	}
}

/*
 * Does task's state want its wait: a thread of a user process (whatever its
 * state), or a kernel thread in uninterruptible sleep that counts in the
 * load average (not TASK_IDLE's parked workers).
 */
static __always_inline int wait_wanted(struct task_struct *task)
{
	__u32 state = task->__state;

	if (!(task->flags & PF_KTHREAD))
		return 1;
	return (state & TASK_UNINTERRUPTIBLE) && !(state & TASK_NOLOAD);
}

/*
 * Fill s with task's wait; the bytes to write (struct and stack). poll is
 * set in the sleepable sampler only: poll's array is in user memory.
 */
static __always_inline __u32 wait_fill(struct wait_scratch *s, struct task_struct *task,
				       int poll)
{
	struct tasks_wait *w = &s->w;
	struct task_delay_info *delays;
	long n = 0;

	__builtin_memset(w, 0, sizeof(*w));
	w->pid = task->pid;
	w->tgid = task->tgid;
	w->state = task->__state | task->exit_state;
	w->fd = -1;
	w->start_time = task->start_time;
	w->sum_exec = task->se.sum_exec_runtime;
	w->run_delay = task->sched_info.run_delay;
	w->nvcsw = task->nvcsw;
	w->nivcsw = task->nivcsw;
	if (task->on_cpu)
		w->flags |= WAIT_ONCPU;
	/* a plain load of the bitfield's word through the typed task pointer */
	if (bpf_core_field_exists(task->in_iowait) && BPF_CORE_READ_BITFIELD(task, in_iowait))
		w->flags |= WAIT_IOWAIT;
	delays = task->delays;
	if (targ_delays && delays) {
		w->flags |= WAIT_DELAYS;
		w->delay_blkio = delays->blkio_delay;
		w->delay_swapin = delays->swapin_delay;
		w->delay_freepages = delays->freepages_delay;
		if (bpf_core_field_exists(delays->thrashing_delay))
			w->delay_thrashing = delays->thrashing_delay;
	}
	if (task->flags & PF_KTHREAD) {
		w->flags |= WAIT_KTHREAD;
		w->syscall = -1;
	} else if (!(w->flags & WAIT_ONCPU) && (w->state & 0xff)) {
		/* asleep (a runnable thread waits for a CPU, not in its syscall) */
		wait_regs(w, task);
		if (fd_syscall(w->syscall)) {
			wait_fd(w, task, w->args[0]);
		} else if (poll && (w->syscall == targ_poll_nr || w->syscall == targ_ppoll_nr) &&
			   w->args[1] >= 1 && w->args[1] <= 4) {
			/* struct pollfd { int fd; short events, revents; }: the first fd polled */
			__s32 pfd = -1;

			if (!bpf_copy_from_user_task(&pfd, sizeof(pfd), (void *)w->args[0], task, 0) &&
			    pfd >= 0) {
				wait_fd(w, task, (__u64)pfd);
				if (w->flags & WAIT_FD)
					w->flags |= WAIT_POLLFD;
			}
		}
	}
	if (targ_kstack && (w->state & TASK_UNINTERRUPTIBLE) && !(w->state & TASK_NOLOAD)) {
		n = bpf_get_task_stack(task, s->stack, sizeof(s->stack), 0);
		if (n < 0)
			n = 0;
		w->nstack = (__u32)n / 8;
	}
	return sizeof(*w) + (w->nstack & 0xf) * 8;
}

static __always_inline struct wait_scratch *wait_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&wait_buf, &zero);
}

SEC("iter/task")
int dump_task(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct wait_scratch *ws = NULL;
	struct tasks_rec r;
	__u32 tail = 0;

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
	if (wait_wanted(task) && (ws = wait_scratch())) {
		tail = wait_fill(ws, task, 0);
		if (tail > sizeof(*ws))
			tail = sizeof(*ws);
		r.flags |= TASKS_HAVE_WAIT;
		r.tail = tail;
	}
	bpf_seq_write(seq, &r, sizeof(r));
	if (ws && tail)
		bpf_seq_write(seq, ws, tail);
	return 0;
}

/*
 * The sampler: one struct tasks_wait (and stack) per thread of the process
 * the link was made for (or of every process, where the kernel cannot say
 * one: user space then samples from /proc instead). Sleepable, so that a
 * thread in poll(2) on one to four fds names the first one; dump_wait_ns is
 * the same without it, for kernels without sleepable iterators.
 */
static __always_inline int wait_one(struct bpf_iter__task *ctx, int poll)
{
	struct task_struct *task = ctx->task;
	struct wait_scratch *ws;
	__u32 len;

	if (!task || !wait_wanted(task) || !(ws = wait_scratch()))
		return 0;
	len = wait_fill(ws, task, poll);
	if (len > sizeof(*ws))
		len = sizeof(*ws);
	bpf_seq_write(ctx->meta->seq, ws, len);
	return 0;
}

SEC("iter.s/task")
int dump_wait(struct bpf_iter__task *ctx)
{
	return wait_one(ctx, 1);
}

SEC("iter/task")
int dump_wait_ns(struct bpf_iter__task *ctx)
{
	return wait_one(ctx, 0);
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
