// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc, devices: disks (/proc/diskstats, /sys/block), network interfaces
 * (/proc/net/dev, /sys/class/net) and the controllers that serve them
 * (sonde's controller records, PCIe links and AER counters), all from the
 * proc.diskstats and proc.netdev captures.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/* ---- disks ---- */

static const struct ctx_u64_field disk_fields[] = {
	CTX_U64(struct diskstat, rd_ios), CTX_U64(struct diskstat, rd_merges),
	CTX_U64(struct diskstat, rd_sectors), CTX_U64(struct diskstat, rd_ticks),
	CTX_U64(struct diskstat, wr_ios), CTX_U64(struct diskstat, wr_merges),
	CTX_U64(struct diskstat, wr_sectors), CTX_U64(struct diskstat, wr_ticks),
	CTX_U64(struct diskstat, in_flight), CTX_U64(struct diskstat, io_ticks),
	CTX_U64(struct diskstat, time_in_queue), CTX_U64(struct diskstat, dc_ios),
	CTX_U64(struct diskstat, dc_sectors), CTX_U64(struct diskstat, dc_ticks),
	CTX_U64(struct diskstat, fl_ios), CTX_U64(struct diskstat, fl_ticks), { NULL, 0 },
};

static int disk_sample(const struct diskstat *d, void *arg)
{
	struct ctx_keyed *w = arg;

	ctx__keyed_begin(w->L, d->name, w->t);
	ctx__set_u64_fields(w->L, d, disk_fields);
	ctx__keyed_end(w->L);
	return 0;
}

static void parse_disks(const struct capture_rec *r, struct ctx_keyed *w)
{
	parse_diskstats(r->data, r->len, disk_sample, w);
}

/* ctx.proc.diskstats() -> { [name] = series } (partitions included; see disks()) */
int ctx_proc__diskstats(lua_State *L)
{
	return ctx__keyed_series(L, "proc.diskstats", "/proc/diskstats", parse_disks);
}

/* Each name listed in a "/sys/block"-style record (one per line). */
static int each_listed(lua_State *L, const struct capture_rec *list,
		       void (*fn)(lua_State *L, const char *name, void *arg), void *arg)
{
	const char *p, *end;

	if (!list || list->err)
		return 0;
	for (p = list->data, end = list->data + list->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char name[128];
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l && l < sizeof(name)) {
			memcpy(name, p, l);
			name[l] = '\0';
			fn(L, name, arg);
		}
		p += l + 1;
	}
	return 1;
}

static void disk_info(lua_State *L, const char *name, void *arg)
{
	const struct capture_stream *st = arg;
	struct analysis *an = ctx__analysis(L);
	char path[256];
	const struct capture_rec *r0, *r1;
	lua_Integer n = 0;

	lua_newtable(L);
#define DISK_PATH(f) (snprintf(path, sizeof(path), "/sys/block/%s/%s", name, f), path)
	r0 = ctx__rec(st, DISK_PATH("queue/rotational"), 0);
	if (r0 && !r0->err) {
		lua_pushboolean(L, r0->len && r0->data[0] == '1');
		lua_setfield(L, -2, "rotational");
	}
	ctx__set_rec_u64(L, "nr_requests",
			 ctx__rec(st, DISK_PATH("queue/nr_requests"), 0));
	ctx__set_rec_u64(L, "logical_block_size",
			 ctx__rec(st, DISK_PATH("queue/logical_block_size"), 0));
	ctx__set_rec_u64(L, "max_sectors_kb",
			 ctx__rec(st, DISK_PATH("queue/max_sectors_kb"), 0));
	ctx__set_text(L, "scheduler", ctx__rec(st, DISK_PATH("queue/scheduler"), 0));
	r0 = ctx__rec(st, DISK_PATH("size"), 0);
	{
		uint64_t sectors;

		if (r0 && !r0->err && !parse_value_u64(r0->data, r0->len, &sectors))
			ctx__set_u64(L, "size_bytes", sectors * 512);
	}
	r0 = ctx__rec(st, DISK_PATH("device/ioerr_cnt"), 0);
	r1 = ctx__rec(st, DISK_PATH("device/ioerr_cnt"), 1);
	{
		uint64_t e0, e1;

		/* ioerr_cnt is hex ("0x1f"). */
		if (r0 && !r0->err && r1 && !r1->err && !parse_value_hex(r0->data, r0->len, &e0) &&
		    !parse_value_hex(r1->data, r1->len, &e1)) {
			ctx__set_num(L, "ioerr_first", (double)e0);
			ctx__set_num(L, "ioerr_last", (double)e1);
		} else if (r0) {
			lua_pushfstring(L, "%s: %s", DISK_PATH("device/ioerr_cnt"),
					r0->err ? strerror(r0->err) :
					r1 && !r1->err ? "not a number" : "read once only");
			lua_setfield(L, -2, "ioerr_reason");
		}
	}
	lua_newtable(L); /* inflight series */
	DISK_PATH("inflight");
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		uint64_t rw[2];

		/* "       0        0": requests in flight, reads then writes */
		if (r->err || strcmp(r->path, path) || parse_value_u64s(r->data, r->len, rw, 2))
			continue;
		lua_newtable(L);
		ctx__set_num(L, "t", analysis__t(an, r));
		ctx__set_u64(L, "read", rw[0]);
		ctx__set_u64(L, "write", rw[1]);
		lua_rawseti(L, -2, ++n);
	}
	ctx__series_mt(L);
	lua_setfield(L, -2, "inflight");
#undef DISK_PATH
	lua_setfield(L, -2, name);
}

/* ctx.proc.disks() -> { [name] = { rotational, nr_requests, scheduler, inflight = series, ... } } */
int ctx_proc__disks(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.diskstats");
	const struct capture_rec *list = ctx__rec(st, "/sys/block", 0);

	if (!list)
		return ctx__missing(L, st, "proc.diskstats", "/sys/block", NULL);
	lua_newtable(L);
	each_listed(L, list, disk_info, (void *)st);
	return 1;
}

/* ---- network interfaces ---- */

static const struct ctx_u64_field net_fields[] = {
	CTX_U64(struct netdev, rx_bytes), CTX_U64(struct netdev, rx_packets),
	CTX_U64(struct netdev, rx_errs), CTX_U64(struct netdev, rx_drop),
	CTX_U64(struct netdev, rx_fifo), CTX_U64(struct netdev, rx_frame),
	CTX_U64(struct netdev, tx_bytes), CTX_U64(struct netdev, tx_packets),
	CTX_U64(struct netdev, tx_errs), CTX_U64(struct netdev, tx_drop),
	CTX_U64(struct netdev, tx_fifo), CTX_U64(struct netdev, tx_colls),
	CTX_U64(struct netdev, tx_carrier), { NULL, 0 },
};

static int net_sample(const struct netdev *d, void *arg)
{
	struct ctx_keyed *w = arg;

	ctx__keyed_begin(w->L, d->name, w->t);
	ctx__set_u64_fields(w->L, d, net_fields);
	ctx__keyed_end(w->L);
	return 0;
}

static void parse_ifaces(const struct capture_rec *r, struct ctx_keyed *w)
{
	parse_net_dev(r->data, r->len, net_sample, w);
}

/* ctx.proc.netdev() -> { [ifname] = series } */
int ctx_proc__netdev(lua_State *L)
{
	return ctx__keyed_series(L, "proc.netdev", "/proc/net/dev", parse_ifaces);
}

/* ctx.proc.interfaces() -> { [ifname] = { speed_mbps | speed_reason, operstate, mtu, type } } */
int ctx_proc__interfaces(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.netdev");

	if (!st)
		return ctx__missing(L, st, "proc.netdev", "/sys/class/net", NULL);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *p = r->path, *slash, *file;
		char name[128];
		int64_t v;

		if (strncmp(p, "/sys/class/net/", 15))
			continue;
		p += 15;
		slash = strchr(p, '/');
		if (!slash || (size_t)(slash - p) >= sizeof(name))
			continue;
		memcpy(name, p, (size_t)(slash - p));
		name[slash - p] = '\0';
		file = slash + 1;
		if (lua_getfield(L, -1, name) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, name);
		}
		if (!strcmp(file, "speed")) {
			/* EINVAL (link down, virtual device) and -1 both mean "no speed". */
			if (!r->err && !parse_value_i64(r->data, r->len, &v) && v > 0)
				ctx__set_num(L, "speed_mbps", (double)v);
			else {
				lua_pushfstring(L, "%s: %s", r->path,
						r->err ? strerror(r->err) :
							 "the driver reports no link speed");
				lua_setfield(L, -2, "speed_reason");
			}
		} else if (!strcmp(file, "mtu") || !strcmp(file, "type")) {
			ctx__set_rec_u64(L, file, r);
		} else {
			ctx__set_text(L, file, r);
		}
		lua_pop(L, 1);
	}
	return 1;
}

/* ---- controllers of disks and interfaces ---- */

/* Copy field i (tab-separated) of line [p, end) into out; "" when absent. */
static void tab_field(const char *p, const char *end, int i, char *out, size_t outlen)
{
	for (; i > 0 && p < end; i--) {
		const char *t = memchr(p, '\t', (size_t)(end - p));

		p = t ? t + 1 : end;
	}
	{
		const char *t = memchr(p, '\t', (size_t)(end - p));
		size_t n = t ? (size_t)(t - p) : (size_t)(end - p);

		if (n >= outlen)
			n = outlen - 1;
		memcpy(out, p, n);
		out[n] = '\0';
	}
}

/* t[k] = "text" unless text is "-" (unknown, none). */
static void set_field_dash(lua_State *L, const char *k, const char *v)
{
	if (!*v || !strcmp(v, "-"))
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

/* The PCI facts of controller id: link = { speed_gts, width, max_... } | link_reason; aer. */
static void pci_facts(lua_State *L, const struct capture_stream *st, const char *id)
{
	static const char *const aer[] = { "aer_dev_correctable", "aer_dev_nonfatal",
					   "aer_dev_fatal", NULL };
	static const char *const aer_key[] = { "correctable", "nonfatal", "fatal" };
	char path[256];
	const struct capture_rec *sp, *wd, *msp, *mwd;
	double gts = 0, mgts = 0;
	uint64_t width = 0, mwidth = 0;
	int reason = 0;

#define PCI_PATH(f) (snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", id, f), path)
	sp = ctx__rec(st, PCI_PATH("current_link_speed"), 0);
	wd = ctx__rec(st, PCI_PATH("current_link_width"), 0);
	msp = ctx__rec(st, PCI_PATH("max_link_speed"), 0);
	mwd = ctx__rec(st, PCI_PATH("max_link_width"), 0);
	/* "8.0 GT/s PCIe" ("Unknown" when the link is down or the device is not PCIe). */
	if (sp && !sp->err && wd && !wd->err && !parse_pci_link_speed(sp->data, sp->len, &gts) &&
	    gts > 0 && !parse_value_u64(wd->data, wd->len, &width) && width > 0) {
		lua_newtable(L);
		ctx__set_num(L, "speed_gts", gts);
		ctx__set_u64(L, "width", width);
		if (msp && !msp->err && !parse_pci_link_speed(msp->data, msp->len, &mgts) && mgts > 0)
			ctx__set_num(L, "max_speed_gts", mgts);
		if (mwd && !mwd->err && !parse_value_u64(mwd->data, mwd->len, &mwidth) && mwidth)
			ctx__set_u64(L, "max_width", mwidth);
		lua_setfield(L, -2, "link");
	} else {
		const struct capture_rec *bad = !sp || sp->err ? sp : wd;

		if (!sp)
			lua_pushfstring(L, "%s: not read", PCI_PATH("current_link_speed"));
		else if (bad && bad->err)
			lua_pushfstring(L, "%s: %s (not a PCI Express device: no link speed)",
					bad->path, strerror(bad->err));
		else
			lua_pushfstring(L, "%s: the link reports no speed or width (link down?)",
					sp->path);
		lua_setfield(L, -2, "link_reason");
	}
	lua_newtable(L);
	for (int i = 0; aer[i]; i++) {
		const struct capture_rec *r0 = ctx__rec(st, PCI_PATH(aer[i]), 0);
		const struct capture_rec *r1 = ctx__rec(st, path, 1);
		uint64_t v0, v1;

		if (r0 && !r0->err && r1 && r1 != r0 && !r1->err &&
		    !parse_aer_counters(r0->data, r0->len, &v0) &&
		    !parse_aer_counters(r1->data, r1->len, &v1)) {
			lua_newtable(L);
			ctx__set_num(L, "first", (double)v0);
			ctx__set_num(L, "last", (double)v1);
			lua_setfield(L, -2, aer_key[i]);
		} else if (!reason) {
			/* the first file that cannot be compared says why (usually: no AER) */
			lua_pushfstring(L, "%s: %s", path,
					!r0 ? "not read" :
					r0->err == ENOENT ? "No such file or directory (no PCIe "
							    "Advanced Error Reporting on this device)" :
					r0->err ? strerror(r0->err) :
					r1 == r0 ? "read once only" : "no counters in it");
			lua_setfield(L, -3, "aer_reason");
			reason = 1;
		}
	}
	lua_setfield(L, -2, "aer");
#undef PCI_PATH
}

/*
 * ctx.proc.controllers("disk" | "net") -> {
 *   devices = { [name] = { controller = id | nil, kind, driver, path, stacked_on = { ... } } },
 *   controllers = { [id] = { kind, driver, devices = { names, sorted },
 *                            link = { speed_gts, width, max_speed_gts, max_width } | nil,
 *                            link_reason, aer = { correctable = { first, last }, ... },
 *                            aer_reason } } }
 * from the sonde:disk-controllers / sonde:net-controllers record (docs/capture-format.md).
 */
int ctx_proc__controllers(lua_State *L)
{
	static const char *const kinds[] = { "disk", "net", NULL };
	int k = luaL_checkoption(L, 1, NULL, kinds);
	const char *stream = k ? "proc.netdev" : "proc.diskstats";
	const char *recname = k ? "sonde:net-controllers" : "sonde:disk-controllers";
	const struct capture_stream *st = ctx__stream(L, stream);
	const struct capture_rec *rec = ctx__rec(st, recname, 0);
	const char *p, *end;
	int devs, ctrls;

	if (!rec || rec->err)
		return ctx__missing(L, st, stream, recname,
				    "the recording predates controller resolution");
	lua_newtable(L);
	lua_newtable(L);
	devs = lua_gettop(L);
	lua_newtable(L);
	ctrls = lua_gettop(L);
	for (p = rec->data, end = rec->data + rec->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char name[128], id[128], kind[32], driver[128], dev[512], lower[1024];

		tab_field(p, le, 0, name, sizeof(name));
		tab_field(p, le, 1, id, sizeof(id));
		tab_field(p, le, 2, kind, sizeof(kind));
		tab_field(p, le, 3, driver, sizeof(driver));
		tab_field(p, le, 4, dev, sizeof(dev));
		tab_field(p, le, 5, lower, sizeof(lower));
		p = le + 1;
		if (!*name)
			continue;
		lua_newtable(L);
		set_field_dash(L, "controller", id);
		set_field_dash(L, "kind", kind);
		set_field_dash(L, "driver", driver);
		set_field_dash(L, "path", dev);
		lua_newtable(L);
		if (*lower && strcmp(lower, "-")) {
			lua_Integer n = 0;

			for (char *s = lower, *c; s; s = c ? c + 1 : NULL) {
				c = strchr(s, ',');
				if (c)
					*c = '\0';
				if (*s) {
					lua_pushstring(L, s);
					lua_rawseti(L, -2, ++n);
				}
			}
		}
		lua_setfield(L, -2, "stacked_on");
		lua_setfield(L, devs, name);
		if (!*id || !strcmp(id, "-"))
			continue;
		if (lua_getfield(L, ctrls, id) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_newtable(L);
			set_field_dash(L, "kind", kind);
			set_field_dash(L, "driver", driver);
			lua_newtable(L);
			lua_setfield(L, -2, "devices");
			if (!strcmp(kind, "pci"))
				pci_facts(L, st, id);
			else {
				lua_pushfstring(L, "%s is a %s device, not PCI: no link speed to bound it",
						id, kind);
				lua_setfield(L, -2, "link_reason");
				lua_pushfstring(L, "%s is a %s device, not PCI: no AER counters", id,
						kind);
				lua_setfield(L, -2, "aer_reason");
			}
			lua_pushvalue(L, -1);
			lua_setfield(L, ctrls, id);
		}
		/* the record lists devices sorted by name, so devices stays sorted */
		lua_getfield(L, -1, "devices");
		lua_pushstring(L, name);
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 2);
	}
	lua_setfield(L, -3, "controllers");
	lua_setfield(L, -2, "devices");
	return 1;
}
