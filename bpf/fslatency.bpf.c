// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fslatency: how long the file syscalls take (read, write, pread/pwrite and
 * their vector forms, readv/writev, open/openat, fsync, fdatasync,
 * sync_file_range, io_uring_enter), entry to exit with blocking included,
 * per process, syscall class and mount of the file behind the fd, as log2
 * histograms of microseconds over the window and per interval of it, and the
 * slowest calls with their file name. bcc's fileslower and ext4dist, seen
 * from the syscall rather than the filesystem: no filesystem-specific hook,
 * so it works the same on ext4, xfs, btrfs, NFS, tmpfs or FUSE.
 *
 * It hooks every syscall of the host, so it is a drill-down tool filtered in
 * the kernel to the suspects (sonde_traced() first thing). The syscall number
 * picks the class from read-only data (a frozen array: no map lookup), and
 * every other syscall returns at once, at entry and at exit (the number from
 * the saved registers). Entry stamps the thread's in-flight slot; exit finds
 * the file from the fd (task->files->fdt->fd[fd], or the returned fd for
 * open) and its mount (f_path.mnt, the struct mount around it for the id),
 * then adds to per-CPU maps: a hash per (process, class, mount) with its
 * histogram, and an array of histograms indexed by interval of the window
 * (the shared plan of bpf/sonde.bpf.h: sonde_interval()). Strings are read
 * only when a process or mount is first seen, and the file name only when a
 * call enters the per-CPU top of the slowest.
 *
 * Three variants of the same logic: tp_btf, raw_tp and the classic
 * tracepoint, on raw_syscalls:sys_enter and sys_exit.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define SONDE_INTERVALS
#include "sonde.bpf.h"
#include "fslatency.h"

#ifndef E2BIG
#define E2BIG 7 /* a full hash map refuses a new key with it */
#endif

const volatile __u32 targ_self_tgid = 0;     /* sonde: its own calls are left out */
const volatile __u8 targ_class[FSLAT_MAX_ID] = {}; /* syscall number -> enum fslat_class */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FSLAT_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fslat_inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FSLAT_MAX_KEYS);
	__type(key, struct fslat_key);
	__type(value, struct fslat_stat);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SONDE_MAX_INTERVALS * FSLAT_SLOTS); /* [interval][slot] */
	__type(key, __u32);
	__type(value, __u64);
} intervals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FSLAT_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct fslat_comm);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FSLAT_MAX_MOUNTS);
	__type(key, __u32);
	__type(value, struct fslat_mount);
} mounts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fslat_top);
} slowest SEC(".maps");

static __always_inline __u32 class_of(long id)
{
	if (id < 0 || id >= FSLAT_MAX_ID)
		return FSLAT_NONE;
	return targ_class[id];
}

/* The class of a call to trace at entry, or FSLAT_NONE: every other call stops here. */
static __always_inline __u32 enter_class(long id)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	sonde_count(SONDE_STAT_RUNS);
	if (!sonde_traced(tgid) || tgid == targ_self_tgid)
		return FSLAT_NONE;
	return class_of(id);
}

/* Stamp the thread's in-flight slot; arg0 is the fd (open: resolved at exit). */
static __always_inline void on_enter(__u32 class, long arg0)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fslat_inflight *f, init;

	init.start_ns = bpf_ktime_get_ns();
	init.fd = class == FSLAT_OPEN ? -1 : (__s32)arg0;
	init.class = class;
	/* In place when the thread already has a slot: an update would allocate. */
	f = bpf_map_lookup_elem(&inflight, &tid);
	if (f) {
		*f = init;
		return;
	}
	/* An LRU hash evicts the stalest slot rather than fail: no drop to count. */
	bpf_map_update_elem(&inflight, &tid, &init, BPF_ANY);
}

/* The file behind the current task's fd, or NULL (closed meanwhile, out of range). */
static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt;
	struct file **fds, *file = NULL;

	if (fd < 0)
		return NULL;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]))
		return NULL;
	return file;
}

/* The id of the mount the file was reached through; its device and type once. */
static __always_inline __u32 mount_of(struct file *file)
{
	struct vfsmount *vmnt = BPF_CORE_READ(file, f_path.mnt);
	struct mount *mnt;
	struct fslat_mount m = {};
	struct super_block *sb;
	__u32 id;

	if (!vmnt)
		return 0;
	mnt = (void *)vmnt - bpf_core_field_offset(struct mount, mnt);
	id = (__u32)BPF_CORE_READ(mnt, mnt_id);
	if (bpf_map_lookup_elem(&mounts, &id))
		return id;
	sb = BPF_CORE_READ(vmnt, mnt_sb);
	m.dev = BPF_CORE_READ(sb, s_dev);
	bpf_probe_read_kernel_str(m.fstype, sizeof(m.fstype), BPF_CORE_READ(sb, s_type, name));
	if (bpf_map_update_elem(&mounts, &id, &m, BPF_NOEXIST) == -E2BIG)
		sonde_count(SONDE_STAT_DROPS);
	return id;
}

/* Keep the call when it is among this CPU's FSLAT_TOP slowest. */
static __always_inline void keep_slow(struct fslat_top *top, __u64 lat, __u64 now,
				      __u64 pid_tgid, const struct fslat_inflight *f, long ret,
				      struct file *file, __u32 mnt_id)
{
	__u32 i = top->min_idx, min_idx = 0;
	__u64 min_ns = ~0ULL;
	struct fslat_slow *e;
	const unsigned char *name;

	if (i >= FSLAT_TOP)
		return;
	e = &top->e[i];
	e->lat_ns = lat;
	e->at_ns = now;
	e->ret = ret;
	e->tgid = (__u32)(pid_tgid >> 32);
	e->tid = (__u32)pid_tgid;
	e->class = f->class;
	e->mnt_id = mnt_id;
	e->fd = f->class == FSLAT_OPEN ? (__s32)ret : f->fd;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->name[0] = 0;
	if (file) {
		name = BPF_CORE_READ(file, f_path.dentry, d_name.name);
		if (name)
			bpf_probe_read_kernel_str(e->name, sizeof(e->name), name);
	}
	for (__u32 k = 0; k < FSLAT_TOP; k++) {
		if (top->e[k].lat_ns < min_ns) {
			min_ns = top->e[k].lat_ns;
			min_idx = k;
		}
	}
	top->min_ns = min_ns;
	top->min_idx = min_idx;
}

static __always_inline void on_exit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now, lat, us, *c;
	__u32 tid = (__u32)pid_tgid, tgid = (__u32)(pid_tgid >> 32), slot, idx, zero = 0;
	struct fslat_key k = { .tgid = tgid };
	struct fslat_inflight *f, in;
	struct fslat_stat *s;
	struct fslat_top *top;
	struct file *file;

	f = bpf_map_lookup_elem(&inflight, &tid);
	/* No slot: a call entered before tracing began, or a slot evicted. */
	if (!f || !f->start_ns)
		return;
	in = *f;
	f->start_ns = 0;
	now = bpf_ktime_get_ns();
	lat = now - in.start_ns;
	us = lat / 1000;
	slot = sonde_log2(us);
	if (slot >= FSLAT_SLOTS)
		slot = FSLAT_SLOTS - 1;

	file = fd_file(in.class == FSLAT_OPEN ? (ret >= 0 ? (int)ret : -1) : in.fd);
	k.class = in.class;
	k.mnt_id = file ? mount_of(file) : 0;

	s = bpf_map_lookup_elem(&stats, &k);
	if (!s) {
		struct fslat_stat init = {};
		struct fslat_comm cm;

		if (!bpf_map_lookup_elem(&comms, &tgid)) {
			bpf_get_current_comm(cm.comm, sizeof(cm.comm));
			if (bpf_map_update_elem(&comms, &tgid, &cm, BPF_NOEXIST) == -E2BIG)
				sonde_count(SONDE_STAT_DROPS);
		}
		s = sonde_lookup_or_init(&stats, &k, &init);
	}
	if (s) {
		s->count++;
		s->total_ns += lat;
		if (lat > s->max_ns)
			s->max_ns = lat;
		if (ret > 0 && in.class != FSLAT_OPEN && in.class != FSLAT_IO_URING_ENTER)
			s->bytes += ret;
		s->slots[slot]++;
	}

	if (sonde_iv_ns) { /* read-only: when not kept, the verifier drops this */
		idx = sonde_interval(now) * FSLAT_SLOTS + slot;
		c = bpf_map_lookup_elem(&intervals, &idx);
		if (c)
			(*c)++; /* per CPU: no atomic needed */
	}

	top = bpf_map_lookup_elem(&slowest, &zero);
	if (top && lat > top->min_ns)
		keep_slow(top, lat, now, pid_tgid, &in, ret, file, k.mnt_id);
}

static __always_inline void on_exit_regs(struct pt_regs *regs, long ret)
{
	long id;

	sonde_count(SONDE_STAT_RUNS);
	if (!sonde_traced((__u32)(bpf_get_current_pid_tgid() >> 32)))
		return;
	id = sonde_exit_syscall_id(regs);
	if (id != -1 && class_of(id) == FSLAT_NONE)
		return;
	on_exit(ret);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	__u32 class = enter_class(id);

	if (class != FSLAT_NONE)
		on_enter(class, PT_REGS_PARM1_CORE_SYSCALL(regs));
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	on_exit_regs(regs, ret);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	__u32 class = enter_class(id);

	if (class != FSLAT_NONE)
		on_enter(class, PT_REGS_PARM1_CORE_SYSCALL(regs));
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	on_exit_regs(regs, ret);
	return 0;
}

SEC("tp/raw_syscalls/sys_enter")
int sys_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
	__u32 class = enter_class(ctx->id);

	if (class != FSLAT_NONE)
		on_enter(class, (long)ctx->args[0]);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int sys_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	if (!sonde_traced((__u32)(bpf_get_current_pid_tgid() >> 32)))
		return 0;
	if (class_of(ctx->id) == FSLAT_NONE)
		return 0;
	on_exit(ctx->ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
