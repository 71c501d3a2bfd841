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
#include <stdlib.h>
#include <string.h>

#include <asm/unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

static int syscount_configure(void *skel, const struct trace_opts *o)
{
	struct syscount_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
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
};

static int by_count_desc(const void *a, const void *b)
{
	const struct id_row *x = a, *y = b;

	return x->v.count < y->v.count ? 1 : x->v.count > y->v.count ? -1 : 0;
}

static int proc_by_count(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->v.count < y->v.count ? 1 : x->v.count > y->v.count ? -1 : 0;
}

static int proc_by_time(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

static int err_by_rank_count(const void *a, const void *b)
{
	const struct err_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
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

/* Grow *rows to hold one more; 0 or -ENOMEM. */
static int grow(void **rows, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*rows, (*cap = *cap ? *cap * 2 : 256) * size);
	if (!p)
		return -ENOMEM;
	*rows = p;
	return 0;
}

static void json_id(struct json *j, __u32 id)
{
	const char *n = id < SYSCOUNT_MAX_ID ? syscall_name(id) : "other";

	json__key(j, "id");
	json__int(j, id);
	if (n) {
		json__key(j, "name");
		json__string(j, n);
	}
}

static void json_errno(struct json *j, __u32 e)
{
	const char *n = errno_name(e);

	json__key(j, "errno");
	json__int(j, e);
	if (n) {
		json__key(j, "errno_name");
		json__string(j, n);
	}
}

static void json_stat(struct json *j, const struct syscount_stat *v)
{
	json__key(j, "count");
	json__int(j, (int64_t)v->count);
	json__key(j, "errors");
	json__int(j, (int64_t)v->errors);
	json__key(j, "total_us");
	json__number(j, (double)v->total_ns / 1e3);
}

static const struct syscount_comm *comm_of(const struct proc_row *procs, size_t n, __u32 tgid)
{
	for (size_t i = 0; i < n; i++)
		if (procs[i].tgid == tgid)
			return &procs[i].comm;
	return NULL;
}

/* Read every key of a hash map of struct err_row-compatible entries. */
static int read_errs(int fd, size_t key_size, struct err_row **rows, size_t *n)
{
	struct syscount_proc_err_key key, next;
	size_t cap = 0;
	void *prev = NULL;
	int err;

	*n = 0;
	memset(&key, 0, sizeof(key));
	memset(&next, 0, sizeof(next));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct err_row *r;

		if ((err = grow((void **)rows, *n, &cap, sizeof(**rows))))
			return err;
		r = &(*rows)[*n];
		memset(r, 0, sizeof(*r));
		if (!bpf_map_lookup_elem(fd, &next, &r->count)) {
			if (key_size == sizeof(struct syscount_err_key)) {
				const struct syscount_err_key *ek = (const void *)&next;

				r->k.id = ek->id;
				r->k.err = ek->err;
			} else {
				r->k = next;
			}
			r->rank = exhaustion_rank(r->k.id, r->k.err);
			(*n)++;
		}
		memcpy(&key, &next, key_size);
		prev = &key;
	}
	return 0;
}

static int syscount_collect(struct trace_run *t, struct json *j)
{
	struct syscount_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus();
	struct syscount_stat *per_cpu = NULL, total = { 0 };
	struct id_row *ids = NULL;
	struct proc_row *procs = NULL;
	struct err_row *errs = NULL, *perrs = NULL;
	size_t nids = 0, nprocs = 0, cap = 0, nerrs = 0, nperrs = 0;
	__u32 key, next, *prev = NULL;
	int fd, err = 0;

	if (ncpu <= 0)
		return -EINVAL;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	ids = calloc(SYSCOUNT_MAX_ID + 1, sizeof(*ids));
	if (!per_cpu || !ids) {
		err = -ENOMEM;
		goto cleanup;
	}

	/* per syscall number: a per-CPU array */
	fd = bpf_map__fd(skel->maps.by_id);
	for (key = 0; key <= SYSCOUNT_MAX_ID; key++) {
		struct id_row r = { .id = key };

		if (bpf_map_lookup_elem(fd, &key, per_cpu)) {
			err = -errno;
			goto cleanup;
		}
		for (int c = 0; c < ncpu; c++) {
			r.v.count += per_cpu[c].count;
			r.v.errors += per_cpu[c].errors;
			r.v.total_ns += per_cpu[c].total_ns;
		}
		if (!r.v.count)
			continue;
		total.count += r.v.count;
		total.errors += r.v.errors;
		total.total_ns += r.v.total_ns;
		ids[nids++] = r;
	}
	qsort(ids, nids, sizeof(*ids), by_count_desc);

	/* per process: a per-CPU hash, and the names beside it */
	fd = bpf_map__fd(skel->maps.by_proc);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct proc_row *r;

		if ((err = grow((void **)&procs, nprocs, &cap, sizeof(*procs))))
			goto cleanup;
		r = &procs[nprocs];
		memset(r, 0, sizeof(*r));
		if (!bpf_map_lookup_elem(fd, &next, per_cpu)) {
			r->tgid = next;
			for (int c = 0; c < ncpu; c++) {
				r->v.count += per_cpu[c].count;
				r->v.errors += per_cpu[c].errors;
				r->v.total_ns += per_cpu[c].total_ns;
			}
			/* absent name (its map was full): an empty comm, the drop is counted */
			bpf_map_lookup_elem(bpf_map__fd(skel->maps.comms), &next, &r->comm);
			nprocs++;
		}
		key = next;
		prev = &key;
	}

	if ((err = read_errs(bpf_map__fd(skel->maps.errs), sizeof(struct syscount_err_key),
			     &errs, &nerrs)) ||
	    (err = read_errs(bpf_map__fd(skel->maps.proc_errs),
			     sizeof(struct syscount_proc_err_key), &perrs, &nperrs)))
		goto cleanup;
	qsort(errs, nerrs, sizeof(*errs), err_by_rank_count);
	qsort(perrs, nperrs, sizeof(*perrs), err_by_rank_count);

	json__key(j, "arch");
	json__string(j, SYSCALL_NAMES_ARCH);
	json__key(j, "syscalls");
	json__int(j, (int64_t)total.count);
	json__key(j, "errors");
	json__int(j, (int64_t)total.errors);
	json__key(j, "total_us");
	json__number(j, (double)total.total_ns / 1e3);
	json__key(j, "by_syscall");
	json__begin_array(j);
	for (size_t i = 0; i < nids; i++) {
		json__begin_object(j);
		json_id(j, ids[i].id);
		json_stat(j, &ids[i].v);
		json__end_object(j);
	}
	json__end_array(j);

	/* the top by count and the top by time: a process can block long in few calls */
	json__key(j, "processes_seen");
	json__int(j, (int64_t)nprocs);
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
		json__key(j, "pid");
		json__int(j, procs[i].tgid);
		json__key(j, "comm");
		trace__json_comm(j, procs[i].comm.comm, sizeof(procs[i].comm.comm));
		json_stat(j, &procs[i].v);
		json__end_object(j);
	}
	json__end_array(j);

	json__key(j, "errors_by_syscall");
	json__begin_array(j);
	for (size_t i = 0; i < nerrs && i < TOP_ERRS; i++) {
		json__begin_object(j);
		json_id(j, errs[i].k.id);
		json_errno(j, errs[i].k.err);
		json__key(j, "count");
		json__int(j, (int64_t)errs[i].count);
		json__end_object(j);
	}
	json__end_array(j);

	json__key(j, "process_errors_seen");
	json__int(j, (int64_t)nperrs);
	json__key(j, "process_errors");
	json__begin_array(j);
	for (size_t i = 0; i < nperrs && i < TOP_PROC_ERRS; i++) {
		const struct syscount_comm *c = comm_of(procs, nprocs, perrs[i].k.tgid);

		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, perrs[i].k.tgid);
		json__key(j, "comm");
		if (c)
			trace__json_comm(j, c->comm, sizeof(c->comm));
		else
			json__string(j, "");
		json_id(j, perrs[i].k.id);
		json_errno(j, perrs[i].k.err);
		json__key(j, "count");
		json__int(j, (int64_t)perrs[i].count);
		json__end_object(j);
	}
	json__end_array(j);
cleanup:
	free(errs);
	free(perrs);
	free(procs);
	free(ids);
	free(per_cpu);
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
};
