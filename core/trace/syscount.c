// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * syscount: system calls per process and per syscall number, with errors
 * (per errno) and time spent in them, aggregated in the kernel over the
 * window (bpf/syscount.bpf.c). sonde's own syscalls are left out.
 *
 * data = {
 *   arch,                        names below are this architecture's (the build host's)
 *   syscalls, errors, total_us,  every counted syscall (counted at exit)
 *   by_syscall = [ { id, name?, count, errors, total_us } ],   every number seen, by count
 *   processes_seen,
 *   processes = [ { pid, comm, count, errors, total_us } ],    top 50 by count and top 50 by time
 *   errors_by_syscall = [ { id, name?, errno, errno_name?, count } ],           top 100 by count
 *   process_errors_seen,
 *   process_errors = [ { pid, comm, id, name?, errno, errno_name?, count } ],
 *         top 200: resource exhaustion first (EMFILE, ENFILE, ENOMEM, EAGAIN of
 *         fork/vfork/clone/clone3), then by count
 * }
 * A number the build host's headers do not name has no "name" (id 1024 is
 * every number >= 1024: ia32 compat or x32 calls); likewise "errno_name".
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <asm/unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "syscount.h"
#include "syscount.skel.h"
#include "syscall_names.h"

#define TOP_PROCS 50
#define TOP_ERRS 100
#define TOP_PROC_ERRS 200

static void *syscount_open(struct bpf_object **obj)
{
	struct syscount_bpf *skel = syscount_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

extern const struct trace_tool trace_syscount;

static int syscount_configure(void *skel, const struct trace_opts *o)
{
	struct syscount_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_SUSPECTS(s->rodata, o, &trace_syscount);
#ifdef __NR_execve
	s->rodata->targ_nr_execve = __NR_execve;
#endif
#ifdef __NR_execveat
	s->rodata->targ_nr_execveat = __NR_execveat;
#endif
	return 0;
}

static const char *syscall_name(__u32 id)
{
	if (id < sizeof(syscall_names) / sizeof(syscall_names[0]))
		return syscall_names[id];
	return NULL;
}

/* Kernel-internal codes a syscall can return at the sys_exit tracepoint (include/linux/errno.h). */
static const char *const kernel_errno_names[] = {
	[512 - 512] = "ERESTARTSYS", [513 - 512] = "ERESTARTNOINTR",
	[514 - 512] = "ERESTARTNOHAND", [515 - 512] = "ENOIOCTLCMD",
	[516 - 512] = "ERESTART_RESTARTBLOCK", [517 - 512] = "EPROBE_DEFER",
	[518 - 512] = "EOPENSTALE", [519 - 512] = "ENOPARAM",
	[521 - 512] = "EBADHANDLE", [522 - 512] = "ENOTSYNC",
	[523 - 512] = "EBADCOOKIE", [524 - 512] = "ENOTSUPP",
	[525 - 512] = "ETOOSMALL", [526 - 512] = "ESERVERFAULT",
	[527 - 512] = "EBADTYPE", [528 - 512] = "EJUKEBOX",
	[529 - 512] = "EIOCBQUEUED", [530 - 512] = "ERECALLCONFLICT",
	[531 - 512] = "ENOGRACE",
};

static const char *errno_name(__u32 e)
{
	if (e < sizeof(errno_names) / sizeof(errno_names[0]))
		return errno_names[e];
	if (e >= 512 && e - 512 < sizeof(kernel_errno_names) / sizeof(kernel_errno_names[0]))
		return kernel_errno_names[e - 512];
	return NULL;
}

struct id_row {
	__u32 id;
	struct syscount_stat v;
};

struct proc_row {
	__u32 tgid;
	int picked;
	struct syscount_stat v;
	struct syscount_comm comm;
};

struct err_row {
	struct syscount_proc_err_key k; /* tgid 0 in the per-syscall list */
	__u64 count;
	int rank; /* 0: exhaustion of a resource (listed first), 1: the rest */
	struct syscount_comm comm; /* the process's, in the per-process list */
};

static const struct trace_map_row proc_rows = TRACE_MAP_ROW(struct proc_row, tgid, v);
static const struct trace_map_row proc_err_rows = TRACE_MAP_ROW(struct err_row, k, count);
/* A (syscall, errno) key lands on the id and err of a row's (process, syscall, errno) key. */
_Static_assert(offsetof(struct syscount_proc_err_key, err) -
			       offsetof(struct syscount_proc_err_key, id) ==
		       offsetof(struct syscount_err_key, err),
	       "the per-syscall error key is the tail of the per-process one");
static const struct trace_map_row err_rows =
	TRACE_MAP_ROW_SIZED(struct err_row, k.id, sizeof(struct syscount_err_key), count);

static int by_count_desc(const void *a, const void *b)
{
	const struct id_row *x = a, *y = b;

	return trace__cmp_desc(x->v.count, y->v.count);
}

static int proc_by_count(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return trace__cmp_desc(x->v.count, y->v.count);
}

static int proc_by_time(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return trace__cmp_desc(x->v.total_ns, y->v.total_ns);
}

static int err_by_rank_count(const void *a, const void *b)
{
	const struct err_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return trace__cmp_desc(x->count, y->count);
}

/* The failures that fill the fd, task and memory error cells of the USE matrix. */
static int exhaustion_rank(__u32 id, __u32 err)
{
	const char *n;

	if (err == EMFILE || err == ENFILE || err == ENOMEM)
		return 0;
	n = syscall_name(id);
	if (err == EAGAIN && n &&
	    (!strcmp(n, "fork") || !strcmp(n, "vfork") || !strcmp(n, "clone") ||
	     !strcmp(n, "clone3")))
		return 0;
	return 1;
}

static void json_id(struct json *j, __u32 id)
{
	const char *n = id < SYSCOUNT_MAX_ID ? syscall_name(id) : "other";

	trace__json_int(j, "id", id);
	if (n) {
		json__key(j, "name");
		json__string(j, n);
	}
}

static void json_errno(struct json *j, __u32 e)
{
	const char *n = errno_name(e);

	trace__json_int(j, "errno", e);
	if (n) {
		json__key(j, "errno_name");
		json__string(j, n);
	}
}

static void json_stat(struct json *j, const struct syscount_stat *v)
{
	trace__json_int(j, "count", v->count);
	trace__json_int(j, "errors", v->errors);
	trace__json_us(j, "total_us", v->total_ns);
}

/* The comm of each process of the listed per-process errors (empty when unknown). */
static void name_proc_errs(struct err_row *perrs, size_t n, const struct proc_row *procs,
			   size_t nprocs)
{
	for (size_t i = 0; i < n && i < TOP_PROC_ERRS; i++)
		for (size_t k = 0; k < nprocs; k++)
			if (procs[k].tgid == perrs[i].k.tgid) {
				perrs[i].comm = procs[k].comm;
				break;
			}
}

/* Every syscall number seen (a per-CPU array), by count, and their total. 0 or -errno. */
static int read_ids(int fd, struct id_row *ids, size_t *nids, struct syscount_stat *total)
{
	memset(total, 0, sizeof(*total));
	*nids = 0;
	for (__u32 key = 0; key <= SYSCOUNT_MAX_ID; key++) {
		struct id_row r = { .id = key };
		int err = trace_map__percpu_sum(fd, key, &r.v, sizeof(r.v));

		if (err)
			return err;
		if (!r.v.count)
			continue;
		total->count += r.v.count;
		total->errors += r.v.errors;
		total->total_ns += r.v.total_ns;
		ids[(*nids)++] = r;
	}
	qsort(ids, *nids, sizeof(*ids), by_count_desc);
	return 0;
}

/* The errors of one map, resource exhaustion first, then by count. 0 or -errno. */
static int read_errs(int fd, const struct trace_map_row *l, struct err_row **rows, size_t *n)
{
	int err = trace_map__read(fd, l, 0, (void **)rows, n);

	if (err)
		return err;
	for (size_t i = 0; i < *n; i++)
		(*rows)[i].rank = exhaustion_rank((*rows)[i].k.id, (*rows)[i].k.err);
	qsort(*rows, *n, sizeof(**rows), err_by_rank_count);
	return 0;
}

static void json_by_syscall(struct json *j, const struct syscount_stat *total,
			    const struct id_row *ids, size_t nids)
{
	json__key(j, "arch");
	json__string(j, SYSCALL_NAMES_ARCH);
	trace__json_int(j, "syscalls", total->count);
	trace__json_int(j, "errors", total->errors);
	trace__json_us(j, "total_us", total->total_ns);
	json__key(j, "by_syscall");
	json__begin_array(j);
	for (size_t i = 0; i < nids; i++) {
		json__begin_object(j);
		json_id(j, ids[i].id);
		json_stat(j, &ids[i].v);
		json__end_object(j);
	}
	json__end_array(j);
}

/* The top by count and the top by time, by count: a process can block long in few calls. */
static void json_processes(struct json *j, struct proc_row *procs, size_t nprocs)
{
	trace__json_int(j, "processes_seen", nprocs);
	qsort(procs, nprocs, sizeof(*procs), proc_by_time);
	for (size_t i = 0; i < nprocs && i < TOP_PROCS; i++)
		procs[i].picked = 1;
	qsort(procs, nprocs, sizeof(*procs), proc_by_count);
	json__key(j, "processes");
	json__begin_array(j);
	for (size_t i = 0; i < nprocs; i++) {
		if (i >= TOP_PROCS && !procs[i].picked)
			continue;
		json__begin_object(j);
		trace__json_int(j, "pid", procs[i].tgid);
		trace__json_comm(j, "comm", procs[i].comm.comm, sizeof(procs[i].comm.comm));
		json_stat(j, &procs[i].v);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_err(struct json *j, const void *row, void *arg)
{
	const struct err_row *r = row;

	json_id(j, r->k.id);
	json_errno(j, r->k.err);
	trace__json_int(j, "count", r->count);
}

static void json_proc_err(struct json *j, const void *row, void *arg)
{
	const struct err_row *r = row;

	trace__json_int(j, "pid", r->k.tgid);
	trace__json_comm(j, "comm", r->comm.comm, sizeof(r->comm.comm));
	json_err(j, row, NULL);
}

static int syscount_collect(struct trace_run *t, struct json *j)
{
	struct syscount_bpf *skel = t->skel;
	struct syscount_stat total;
	struct id_row *ids = calloc(SYSCOUNT_MAX_ID + 1, sizeof(*ids));
	struct proc_row *procs = NULL;
	struct err_row *errs = NULL, *perrs = NULL;
	size_t nids = 0, nprocs = 0, nerrs = 0, nperrs = 0;
	int err;

	if (!ids)
		return -ENOMEM;
	if ((err = read_ids(bpf_map__fd(skel->maps.by_id), ids, &nids, &total)) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.by_proc), &proc_rows, 0, (void **)&procs,
				   &nprocs)))
		goto cleanup;
	/* absent name (its map was full): an empty comm, the drop is counted */
	for (size_t i = 0; i < nprocs; i++)
		bpf_map_lookup_elem(bpf_map__fd(skel->maps.comms), &procs[i].tgid, &procs[i].comm);
	if ((err = read_errs(bpf_map__fd(skel->maps.errs), &err_rows, &errs, &nerrs)) ||
	    (err = read_errs(bpf_map__fd(skel->maps.proc_errs), &proc_err_rows, &perrs, &nperrs)))
		goto cleanup;

	json_by_syscall(j, &total, ids, nids);
	json_processes(j, procs, nprocs);
	name_proc_errs(perrs, nperrs, procs, nprocs);
	trace__json_top(j, NULL, "errors_by_syscall", errs, nerrs, sizeof(*errs), TOP_ERRS,
			json_err, NULL);
	trace__json_top(j, "process_errors_seen", "process_errors", perrs, nperrs, sizeof(*perrs),
			TOP_PROC_ERRS, json_proc_err, NULL);
cleanup:
	free(errs);
	free(perrs);
	free(procs);
	free(ids);
	return err;
}

static void syscount_destroy(void *skel)
{
	syscount_bpf__destroy(skel);
}

const struct trace_tool trace_syscount = {
	.name = "syscount",
	.what = "syscalls per process and per syscall, with errors (errno) and time",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = syscount_open,
	.configure = syscount_configure,
	.collect = syscount_collect,
	.destroy = syscount_destroy,
	.hooks = { { HEV_SYSCALL, 2 } },
	.run_cost = 3.0,
	.hot = 1,
	.filters = 1,
	.instead = "read and write syscalls per process from /proc/PID/io (syscr, syscw)",
};
