/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ctx a check runs with (private to core/lua/): ctx.c assembles it, one
 * domain per file, ctx.proc (ctx_proc*.c), ctx.bpf (ctx_bpf.c), ctx.perf
 * (ctx_perf.c), the report methods (ctx_report.c), on what they share
 * (ctx_series.c: ctx__need, streams, series). Each domain's functions get the
 * analysis as upvalue 1.
 */
#ifndef SONDE_CTX_H
#define SONDE_CTX_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "collect/analysis.h"
#include "lua/result.h"

/* The registry key of the check being run (its collect list), for ctx__need. */
#define CTX_REG_CHECK "sonde.check"

/* Push the ctx table for one check: host, window, proc, bpf, perf and the report methods. */
void ctx__push(lua_State *L, struct analysis *an, struct check_result *res);

/*
 * Every capture a check reads goes through here: the check must have declared
 * the collector that wrote it (collect = { ... }), or it is stopped in status
 * error with a message naming the check, the accessor (ctx.<domain>.<name>,
 * the function the check called) and the collector.
 */
void ctx__need(lua_State *L, const char *domain, const char *collector);

/* Make the report methods (ctx:metric, ...) writing into res the metatable of the table on top. */
void ctx_report__set_methods(lua_State *L, struct check_result *res);

/*
 * ctx:heatmap's table at idx (ctx_heat.c) into e: unit, step_s (the
 * interval), hm_rows, hm_row_ms, values (column after column). 0, or -1 with
 * a one-line reason in err; raises no Lua error (what was set in e is freed
 * with it).
 */
#define HEAT_MAX_COLS 256 /* intervals */
#define HEAT_MAX_ROWS 64  /* log2 slots */
int ctx_heat__read(lua_State *L, int idx, struct evidence *e, char *err, size_t errlen);

/* Each expects the analysis as a light userdata on top and replaces it with the module. */
int luaopen_sonde_proc(lua_State *L);
int luaopen_sonde_bpf(lua_State *L);
int luaopen_sonde_perf(lua_State *L);

/*
 * The ctx__* helpers below are ctx_series.c's, shared by every ctx file.
 * The ctx_proc__* functions further down are ctx.proc's: ctx_proc.c holds
 * the system-wide files and the kernel log, the other ctx_proc_<domain>.c
 * one domain each: ctx_proc_devices.c (disks, interfaces, their
 * controllers), ctx_proc_fs.c (file systems, swap), ctx_proc_cgroups.c,
 * ctx_proc_tasks.c.
 */
struct analysis *ctx__analysis(lua_State *L);
/* The capture stream of collector (NULL when not collected), once ctx__need allows it. */
const struct capture_stream *ctx__stream(lua_State *L, const char *collector);
void ctx__push_u64(lua_State *L, uint64_t v);
/* t[k] = v on the table on top. */
void ctx__set_u64(lua_State *L, const char *k, uint64_t v);
void ctx__set_num(lua_State *L, const char *k, double v);
/* t[k] = the n bytes at s, as a Lua string (NULs and all), on the table on top. */
void ctx__set_lstr(lua_State *L, const char *k, const char *s, size_t n);
/* A uint64_t member of a parsed struct, by name; a table of them ends with a NULL name. */
struct ctx_u64_field {
	const char *name;
	size_t off;
};
#define CTX_U64(type, member) { #member, offsetof(type, member) }
/* t[name] = the member, for each field of f, on the table on top. */
void ctx__set_u64_fields(lua_State *L, const void *s, const struct ctx_u64_field *f);
/* The t (seconds into the window) of sample i of the series at index s. */
double ctx__sample_t(lua_State *L, int s, lua_Integer i);
/* Give the table on top the series methods (first, last, max, delta, rate, ...). */
void ctx__series_mt(lua_State *L);
/* Push "path: strerror(err) — hint" and return it. */
const char *ctx__err_reason(lua_State *L, const char *path, int err, const char *hint);
/* Push nil, reason for a path with no readable record in stream st (NULL: not collected). */
int ctx__missing(lua_State *L, const struct capture_stream *st, const char *stream,
		 const char *path, const char *hint);
/* The first (or last) record of path in st, readable or not; NULL when none. */
const struct capture_rec *ctx__rec(const struct capture_stream *st, const char *path,
				   int last);
/* t[k] = the record's text, trimmed; nothing when r is NULL or failed. */
void ctx__set_text(lua_State *L, const char *k, const struct capture_rec *r);
/* t[k] = the record's number; nothing when r is NULL, failed or not a number. */
void ctx__set_rec_u64(lua_State *L, const char *k, const struct capture_rec *r);

/* Fill the sample table on top from one record; non-zero skips the record. */
typedef int (*ctx_sample_fn)(lua_State *L, const struct capture_rec *r, void *arg);
/* Push the series of every readable record of path in stream, or nil, reason. */
int ctx__series(lua_State *L, const char *stream, const char *path, const char *hint,
		ctx_sample_fn fn, void *arg);
/* A /proc/pressure/<resource> sample (ctx.proc.pressure, and per cgroup). */
int ctx__sample_pressure(lua_State *L, const struct capture_rec *r, void *arg);

/*
 * Files with one line per device (diskstats, net/dev, mounts, swaps) become
 * { [name] = series }: for each line, ctx__keyed_begin pushes a new
 * sample table for name at time t, ctx__keyed_end files it.
 */
struct ctx_keyed {
	lua_State *L;
	double t;
};
typedef void (*ctx_keyed_fn)(const struct capture_rec *r, struct ctx_keyed *w);
void ctx__keyed_begin(lua_State *L, const char *name, double t);
void ctx__keyed_end(lua_State *L);
/* Push { [name] = series } from every readable record of path in stream, or nil, reason. */
int ctx__keyed_series(lua_State *L, const char *stream, const char *path,
		      ctx_keyed_fn parse);

/* The ctx.proc functions of the other files (luaopen_sonde_proc's table). */
int ctx_proc__diskstats(lua_State *L);
int ctx_proc__disks(lua_State *L);
int ctx_proc__netdev(lua_State *L);
int ctx_proc__interfaces(lua_State *L);
int ctx_proc__controllers(lua_State *L);
int ctx_proc__filesystems(lua_State *L);
int ctx_proc__swaps(lua_State *L);
int ctx_proc__cgroups(lua_State *L);
int ctx_proc__containers(lua_State *L);
int ctx_proc__threads(lua_State *L);
int ctx_proc__tasks(lua_State *L);
int ctx_proc__task_series(lua_State *L);
/* ctx_proc_holders.c: per-process levels, the suspects' open files (proc.pids) */
int ctx_proc__task_levels(lua_State *L);
int ctx_proc__open_files(lua_State *L);
/* ctx_history.c: push ctx.history, the levels of earlier bundles of this host */
void ctx_history__push(lua_State *L, struct analysis *an);
/* ctx_proc_net.c: listeners, local ports, conntrack (net.sockets), links (net.links) */
void ctx_proc_net__register(lua_State *L, void *an);

#endif
