// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: what the checks read. Every function builds Lua values from the
 * capture streams (never from the live host) through the C parsers; a file
 * that was not collected, or could not be read on the host, gives
 * nil, reason, so that the check can report a known unknown.
 *
 * This file holds the system-wide files (stat, loadavg, meminfo, vmstat,
 * pressure, snmp, file-nr, interrupts), the kernel log, and the one table of
 * ctx.proc functions; the other domains are in ctx_proc_devices.c,
 * ctx_proc_fs.c, ctx_proc_cgroups.c and ctx_proc_tasks.c, and the series
 * they all build in ctx_series.c (lua/ctx.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/* kv files: every numeric value as a field. */
struct kv_opts {
	lua_State *L;
	int to_bytes;
};

static int kv_field(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct kv_opts *o = arg;
	char key[128];
	uint64_t u;

	if (kl == 0 || kl >= sizeof(key) || parse_kv_u64(v, vl, o->to_bytes, &u))
		return 0;
	memcpy(key, k, kl);
	key[kl] = '\0';
	ctx__push_u64(o->L, u);
	lua_setfield(o->L, -2, key);
	return 0;
}

static int sample_kv(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct kv_opts o = { L, arg != NULL };

	return parse_kv(r->data, r->len, kv_field, &o) < 0;
}

static int sample_snmp(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct kv_opts o = { L, 0 };

	return parse_snmp(r->data, r->len, kv_field, &o) < 0;
}

static const struct ctx_u64_field cpu_time_fields[] = {
	CTX_U64(struct cpu_times, user), CTX_U64(struct cpu_times, nice),
	CTX_U64(struct cpu_times, system), CTX_U64(struct cpu_times, idle),
	CTX_U64(struct cpu_times, iowait), CTX_U64(struct cpu_times, irq),
	CTX_U64(struct cpu_times, softirq), CTX_U64(struct cpu_times, steal),
	CTX_U64(struct cpu_times, guest), CTX_U64(struct cpu_times, guest_nice), { NULL, 0 },
};

/* ctx.proc.stat() -> { total = series, cpus = { series, ... (each with .id) }, ncpu = n } */
static int proc_stat(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "proc.stat");
	int ncpu_max = 0, nsamples = 0, ids[4096];

	if (!st)
		return ctx__missing(L, st, "proc.stat", "/proc/stat", NULL);
	lua_newtable(L);        /* result */
	lua_newtable(L);        /* total series */
	lua_newtable(L);        /* cpu id -> series */
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		struct proc_stat ps = { 0 };
		double t = analysis__t(an, r);

		if (r->err || strcmp(r->path, "/proc/stat") || parse_proc_stat(r->data, r->len, &ps))
			continue;
		nsamples++;
		lua_newtable(L);
		ctx__set_num(L, "t", t);
		ctx__set_u64_fields(L, &ps.total, cpu_time_fields);
		ctx__set_u64(L, "ctxt", ps.ctxt);
		ctx__set_u64(L, "processes", ps.processes);
		ctx__set_u64(L, "procs_running", ps.procs_running);
		ctx__set_u64(L, "procs_blocked", ps.procs_blocked);
		lua_rawseti(L, -3, nsamples);
		for (int c = 0; c < ps.ncpu; c++) {
			int id = ps.cpu_id[c];

			if (lua_rawgeti(L, -1, id + 1) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_newtable(L);
				lua_pushvalue(L, -1);
				lua_rawseti(L, -3, id + 1);
				if (ncpu_max < (int)(sizeof(ids) / sizeof(ids[0])))
					ids[ncpu_max++] = id;
			}
			lua_newtable(L);
			ctx__set_num(L, "t", t);
			ctx__set_u64_fields(L, &ps.cpu[c], cpu_time_fields);
			lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
			lua_pop(L, 1);
		}
		proc_stat__free(&ps);
	}
	if (!nsamples) {
		lua_pop(L, 3);
		return ctx__missing(L, st, "proc.stat", "/proc/stat", NULL);
	}
	/* cpus as a dense array in id order, each series knowing its CPU number. */
	lua_newtable(L);
	for (int a = 0; a < ncpu_max; a++)
		for (int b = a + 1; b < ncpu_max; b++)
			if (ids[b] < ids[a]) {
				int x = ids[a];

				ids[a] = ids[b];
				ids[b] = x;
			}
	for (int k = 0; k < ncpu_max; k++) {
		lua_rawgeti(L, -2, ids[k] + 1);
		ctx__series_mt(L);
		lua_pushinteger(L, ids[k]);
		lua_setfield(L, -2, "id");
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -4, "cpus");
	lua_pop(L, 1);
	ctx__series_mt(L);
	lua_setfield(L, -2, "total");
	lua_pushinteger(L, ncpu_max);
	lua_setfield(L, -2, "ncpu");
	return 1;
}

static int sample_loadavg(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct loadavg la;

	if (parse_loadavg(r->data, r->len, &la))
		return -1;
	ctx__set_num(L, "load1", la.load1);
	ctx__set_num(L, "load5", la.load5);
	ctx__set_num(L, "load15", la.load15);
	ctx__set_u64(L, "runnable", la.runnable);
	ctx__set_u64(L, "threads", la.threads);
	return 0;
}

static int proc_loadavg(lua_State *L)
{
	return ctx__series(L, "proc.loadavg", "/proc/loadavg", NULL, sample_loadavg, NULL);
}

static int proc_meminfo(lua_State *L)
{
	return ctx__series(L, "proc.meminfo", "/proc/meminfo", NULL, sample_kv, (void *)1);
}

static int proc_vmstat(lua_State *L)
{
	return ctx__series(L, "proc.vmstat", "/proc/vmstat", NULL, sample_kv, NULL);
}

static int proc_pressure(lua_State *L)
{
	static const char *const res[] = { "cpu", "memory", "io", NULL };
	int i = luaL_checkoption(L, 1, NULL, res);
	char path[64];

	snprintf(path, sizeof(path), "/proc/pressure/%s", res[i]);
	return ctx__series(L, "proc.pressure", path,
			   "pressure stall information needs Linux 4.20+ with CONFIG_PSI, "
			   "booted with psi=1 where it is off by default (RHEL 8)",
			   ctx__sample_pressure, NULL);
}

static int proc_snmp(lua_State *L)
{
	/* snmp and netstat merged per round: both are "Proto.Counter" keys. */
	int n = ctx__series(L, "proc.snmp", "/proc/net/snmp", NULL, sample_snmp, NULL);

	if (n != 1)
		return n;
	{
		struct analysis *an = ctx__analysis(L);
		const struct capture_stream *st = ctx__stream(L, "proc.snmp");
		lua_Integer len = (lua_Integer)lua_rawlen(L, -1), k = 0;

		for (size_t i = 0; i < st->n && k < len; i++) {
			const struct capture_rec *r = &st->rec[i];
			struct kv_opts o = { L, 0 };

			if (r->err || strcmp(r->path, "/proc/net/netstat"))
				continue;
			/* Pair netstat with the snmp sample of the same round. */
			for (lua_Integer j = 1; j <= len; j++) {
				double t = ctx__sample_t(L, -1, j);

				if (fabs(t - analysis__t(an, r)) < 0.5) {
					lua_rawgeti(L, -1, j);
					parse_snmp(r->data, r->len, kv_field, &o);
					lua_pop(L, 1);
					k++;
					break;
				}
			}
		}
	}
	return 1;
}

static int sample_filenr(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct file_nr f;

	if (parse_file_nr(r->data, r->len, &f))
		return -1;
	ctx__set_u64(L, "allocated", f.allocated);
	ctx__set_u64(L, "unused", f.unused);
	ctx__set_u64(L, "max", f.max);
	return 0;
}

static int proc_filenr(lua_State *L)
{
	return ctx__series(L, "proc.filenr", "/proc/sys/fs/file-nr", NULL, sample_filenr,
			   NULL);
}

/* ---- files with one line per device (lua/ctx.h), records read more than once ---- */

/* ---- interrupts, kernel log ---- */

struct irq_walk {
	lua_State *L;
	const char *field;
};

static int irq_line(const char *name, size_t nl, const char *desc, size_t dl, uint64_t total,
		    void *arg)
{
	struct irq_walk *w = arg;
	lua_State *L = w->L;

	lua_pushlstring(L, name, nl);
	if (lua_rawget(L, -2) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushlstring(L, desc, dl);
		lua_setfield(L, -2, "desc");
		lua_pushlstring(L, name, nl);
		lua_pushvalue(L, -2);
		lua_rawset(L, -4);
	}
	ctx__set_u64(L, w->field, total);
	lua_pop(L, 1);
	return 0;
}

/*
 * { [name] = { desc, first, last } } of a file in /proc/interrupts' format, at
 * both ends; and, when a read of it was cut at the reader's cap (1 MiB: a
 * 192-CPU /proc/interrupts of more than 490 lines), a second value
 * { cut = true, bytes = what was kept }: the lines past the cap, the arch
 * ones at the end among them, are not in the first.
 */
static int irq_ends(lua_State *L, const char *stream, const char *path)
{
	const struct capture_stream *st = ctx__stream(L, stream);
	const struct capture_rec *r0 = ctx__rec(st, path, 0);
	const struct capture_rec *r1 = ctx__rec(st, path, 1);
	struct irq_walk w = { L, "first" };
	int cut = r0 && r0->truncated;

	if (!r0 || r0->err)
		return ctx__missing(L, st, stream, path, NULL);
	lua_newtable(L);
	parse_interrupts(r0->data, r0->len, irq_line, &w);
	if (r1 && !r1->err) {
		w.field = "last";
		parse_interrupts(r1->data, r1->len, irq_line, &w);
		cut |= r1->truncated;
	}
	if (!cut)
		return 1;
	lua_createtable(L, 0, 2);
	lua_pushboolean(L, 1);
	lua_setfield(L, -2, "cut");
	ctx__set_u64(L, "bytes", r0->len);
	return 2;
}

/* ctx.proc.interrupts() -> { [name] = { desc, first, last } } (sums over CPUs) [, { cut, bytes }] */
static int proc_interrupts(lua_State *L)
{
	return irq_ends(L, "proc.interrupts", "/proc/interrupts");
}

/* ctx.proc.softirqs() -> { [type] = { first, last } } (sums over CPUs) [, { cut, bytes }], as interrupts() */
static int proc_softirqs(lua_State *L)
{
	return irq_ends(L, "proc.softirqs", "/proc/softirqs");
}

/* Up to SCHED_CPUS CPUs of /proc/schedstat at both ends of the window. */
#define SCHED_CPUS 2048
struct sched_ends {
	int n;
	struct sched_cpu {
		int cpu;
		uint64_t run_ns, wait_ns, slices;
	} c[SCHED_CPUS];
};

static int sched_cpu(int cpu, uint64_t run_ns, uint64_t wait_ns, uint64_t slices, void *arg)
{
	struct sched_ends *e = arg;

	if (e->n < SCHED_CPUS)
		e->c[e->n++] = (struct sched_cpu){ cpu, run_ns, wait_ns, slices };
	return 0;
}

/*
 * ctx.proc.schedstat() -> { seconds, cpus = { { cpu, run_s, wait_s, slices }, ... }, cut }:
 * per CPU, what its run queue ran and made wait between the two ends of the
 * window; cut when a read hit the reader's cap (1 MiB: about 800 CPUs with three
 * scheduling domains), and the CPUs past it are not in cpus.
 */
static int proc_schedstat(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.schedstat");
	const struct capture_rec *r0 = ctx__rec(st, "/proc/schedstat", 0);
	const struct capture_rec *r1 = ctx__rec(st, "/proc/schedstat", 1);
	struct sched_ends *a, *b;
	lua_Integer n = 0;

	if (!r0 || r0->err || !r1 || r1->err || r0 == r1)
		return ctx__missing(L, st, "proc.schedstat", "/proc/schedstat",
				    "the kernel keeps it with CONFIG_SCHEDSTATS");
	a = lua_newuserdatauv(L, sizeof(*a), 0);
	b = lua_newuserdatauv(L, sizeof(*b), 0);
	a->n = b->n = 0;
	if (parse_schedstat(r0->data, r0->len, sched_cpu, a) ||
	    parse_schedstat(r1->data, r1->len, sched_cpu, b)) {
		lua_pushnil(L);
		lua_pushstring(L, "/proc/schedstat: not a format sonde reads (version 15+)");
		return 2;
	}
	lua_createtable(L, 0, 3);
	ctx__set_num(L, "seconds", (double)(r1->mono_ns - r0->mono_ns) / 1e9);
	lua_pushboolean(L, r0->truncated || r1->truncated);
	lua_setfield(L, -2, "cut");
	lua_createtable(L, b->n, 0);
	for (int i = 0; i < b->n; i++)
		for (int k = 0; k < a->n; k++) {
			const struct sched_cpu *x = &a->c[k], *y = &b->c[i];

			if (x->cpu != y->cpu)
				continue;
			lua_createtable(L, 0, 4);
			lua_pushinteger(L, y->cpu);
			lua_setfield(L, -2, "cpu");
			ctx__set_num(L, "run_s",
				     (double)counter__delta(x->run_ns, y->run_ns, NULL) / 1e9);
			ctx__set_num(L, "wait_s",
				     (double)counter__delta(x->wait_ns, y->wait_ns, NULL) / 1e9);
			ctx__set_u64(L, "slices", counter__delta(x->slices, y->slices, NULL));
			lua_rawseti(L, -2, ++n);
			break;
		}
	lua_setfield(L, -2, "cpus");
	return 1;
}

/* ctx.proc.kernel_log() -> { "line", ... } (OOM-related records only) */
static int proc_kernel_log(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "kernel.log");
	const struct capture_rec *r = ctx__rec(st, "/dev/kmsg", 1);
	const char *p, *end;
	lua_Integer n = 0;

	if (!r || r->err)
		return ctx__missing(L, st, "kernel.log", "/dev/kmsg",
				    "reading the kernel log needs root "
				    "(or kernel.dmesg_restrict=0)");
	lua_newtable(L);
	for (p = r->data, end = r->data + r->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l) {
			lua_pushlstring(L, p, l);
			lua_rawseti(L, -2, ++n);
		}
		p += l + 1;
	}
	return 1;
}

static const luaL_Reg proc_functions[] = {
	{ "stat", proc_stat },
	{ "loadavg", proc_loadavg },
	{ "meminfo", proc_meminfo },
	{ "vmstat", proc_vmstat },
	{ "pressure", proc_pressure },
	{ "snmp", proc_snmp },
	{ "filenr", proc_filenr },
	{ "diskstats", ctx_proc__diskstats },
	{ "disks", ctx_proc__disks },
	{ "netdev", ctx_proc__netdev },
	{ "interfaces", ctx_proc__interfaces },
	{ "controllers", ctx_proc__controllers },
	{ "interrupts", proc_interrupts },
	{ "softirqs", proc_softirqs },
	{ "schedstat", proc_schedstat },
	{ "kernel_log", proc_kernel_log },
	{ "filesystems", ctx_proc__filesystems },
	{ "swaps", ctx_proc__swaps },
	{ "cgroups", ctx_proc__cgroups },
	{ "containers", ctx_proc__containers },
	{ "tasks", ctx_proc__tasks },
	{ "threads", ctx_proc__threads },
	{ "task_series", ctx_proc__task_series },
	{ "task_levels", ctx_proc__task_levels },
	{ "open_files", ctx_proc__open_files },
	{ NULL, NULL },
};

/* Expects the analysis as a light userdata on top; replaces it with the module. */
int luaopen_sonde_proc(lua_State *L)
{
	void *an = lua_touserdata(L, -1);

	lua_pop(L, 1);
	luaL_newlibtable(L, proc_functions);
	lua_pushlightuserdata(L, an);
	luaL_setfuncs(L, proc_functions, 1);
	ctx_proc_net__register(L, an);
	return 1;
}
