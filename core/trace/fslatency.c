// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fslatency: how long the file syscalls take, per process, syscall class and
 * mount of the file behind the fd, per interval of the window, and the
 * slowest calls (bpf/fslatency.bpf.c). sonde's own calls are left out.
 *
 * data = {
 *   calls, total_us, hist,            every traced call; hist: log2 of us
 *   intervals = { interval_ms, unit = "us", counts = [[c0, c1, ...], ...] },
 *         counts[i][s]: calls of interval i (from when the tool was loaded,
 *         within milliseconds of traced_from_s) whose latency is in slot s
 *   processes_seen, keys_seen,
 *   by_process = [ { pid, comm, syscall, count, total_us, max_us, bytes, hist } ]
 *         per (process, syscall class), top 50 by time
 *   by_mount = [ { mnt_id, mount, fstype, source, dev, count, total_us, max_us, hist } ]
 *         every mount seen, by time
 *   by_process_mount = [ { pid, comm, syscall, mnt_id, mount, fstype, count, total_us,
 *         max_us, bytes, hist } ]    per (process, class, mount), top 100 by time
 *   slowest = [ { pid, tid, comm, syscall, mnt_id, mount, fstype, file, fd, latency_us,
 *         at_s, ret } ]             the 20 slowest calls (at_s: after the attach)
 * }
 * mount "" : the mount was gone from /proc/self/mountinfo when the window
 * ended; mnt_id 0: no file behind the fd (closed meanwhile, open failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "util/parse.h"
#include "fslatency.h"
#include "fslatency.skel.h"

#define TOP_PROCS 50
#define TOP_PROC_MOUNTS 100
#define TOP_SLOWEST 20
#define MOUNTINFO_MAX (4u << 20)

static const char *const class_names[FSLAT_NR_CLASSES] = {
	[FSLAT_NONE] = "?",
	[FSLAT_READ] = "read",
	[FSLAT_WRITE] = "write",
	[FSLAT_PREAD] = "pread",
	[FSLAT_PWRITE] = "pwrite",
	[FSLAT_READV] = "readv",
	[FSLAT_WRITEV] = "writev",
	[FSLAT_OPEN] = "open",
	[FSLAT_FSYNC] = "fsync",
	[FSLAT_FDATASYNC] = "fdatasync",
	[FSLAT_SYNC_FILE_RANGE] = "sync_file_range",
	[FSLAT_IO_URING_ENTER] = "io_uring_enter",
};

static const char *class_name(__u32 c)
{
	return c < FSLAT_NR_CLASSES ? class_names[c] : "?";
}

/* Syscall number -> class, from the build host's <asm/unistd.h> (what it lacks is not traced). */
static void set_classes(volatile __u8 *cls)
{
#define CLASS(nr, c)                                       \
	do {                                               \
		if ((nr) >= 0 && (nr) < FSLAT_MAX_ID)      \
			cls[(nr)] = (c);                   \
	} while (0)
#ifdef __NR_read
	CLASS(__NR_read, FSLAT_READ);
#endif
#ifdef __NR_write
	CLASS(__NR_write, FSLAT_WRITE);
#endif
#ifdef __NR_pread64
	CLASS(__NR_pread64, FSLAT_PREAD);
#endif
#ifdef __NR_preadv
	CLASS(__NR_preadv, FSLAT_PREAD);
#endif
#ifdef __NR_preadv2
	CLASS(__NR_preadv2, FSLAT_PREAD);
#endif
#ifdef __NR_pwrite64
	CLASS(__NR_pwrite64, FSLAT_PWRITE);
#endif
#ifdef __NR_pwritev
	CLASS(__NR_pwritev, FSLAT_PWRITE);
#endif
#ifdef __NR_pwritev2
	CLASS(__NR_pwritev2, FSLAT_PWRITE);
#endif
#ifdef __NR_readv
	CLASS(__NR_readv, FSLAT_READV);
#endif
#ifdef __NR_writev
	CLASS(__NR_writev, FSLAT_WRITEV);
#endif
#ifdef __NR_open
	CLASS(__NR_open, FSLAT_OPEN);
#endif
#ifdef __NR_creat
	CLASS(__NR_creat, FSLAT_OPEN);
#endif
#ifdef __NR_openat
	CLASS(__NR_openat, FSLAT_OPEN);
#endif
#ifdef __NR_openat2
	CLASS(__NR_openat2, FSLAT_OPEN);
#endif
#ifdef __NR_fsync
	CLASS(__NR_fsync, FSLAT_FSYNC);
#endif
#ifdef __NR_fdatasync
	CLASS(__NR_fdatasync, FSLAT_FDATASYNC);
#endif
#ifdef __NR_sync_file_range
	CLASS(__NR_sync_file_range, FSLAT_SYNC_FILE_RANGE);
#endif
#ifdef __NR_sync_file_range2
	CLASS(__NR_sync_file_range2, FSLAT_SYNC_FILE_RANGE);
#endif
#ifdef __NR_io_uring_enter
	CLASS(__NR_io_uring_enter, FSLAT_IO_URING_ENTER);
#endif
#undef CLASS
}

static void *fslatency_open(struct bpf_object **obj)
{
	struct fslatency_bpf *skel = fslatency_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

extern const struct trace_tool trace_fslatency;

static int fslatency_configure(void *skel, const struct trace_opts *o)
{
	struct fslatency_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_SUSPECTS(s->rodata, o, &trace_fslatency);
	set_classes(s->rodata->targ_class);
	TRACE_SET_INTERVALS(s->rodata, o);
	return 0;
}

/* One mount of /proc/self/mountinfo. */
struct mnt_info {
	unsigned id;
	char dev[24];
	char point[256];
	char fstype[32];
	char source[128];
};

/*
 * A /proc file whole (its size is 0 to fstat: read to EOF), at most
 * MOUNTINFO_MAX bytes. 0 or -errno.
 */
static int read_proc(const char *path, char **out, size_t *len)
{
	size_t cap = 65536, got = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (!buf || fd < 0) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t r = read(fd, buf + got, cap - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto fail;
		}
		if (!r)
			break;
		got += (size_t)r;
		if (got == cap) {
			char *nb;

			if (cap >= MOUNTINFO_MAX) {
				err = -EFBIG;
				goto fail;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
		}
	}
	close(fd);
	buf[got] = 0;
	*out = buf;
	*len = got;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

/* The mounts sonde sees now (its mount namespace: the host's, as a rule). NULL when unreadable. */
static struct mnt_info *read_mountinfo(size_t *n)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len, cap = 0;
	struct mnt_info *v = NULL;

	*n = 0;
	if (read_proc("/proc/self/mountinfo", &buf, &len))
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct mnt_info m = { 0 };
		char point[256], *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%u %*u %23s %*s %255s", &m.id, m.dev, point) != 3 ||
		    sscanf(dash + 3, "%31s %127s", m.fstype, m.source) < 1)
			continue;
		parse_mountinfo_unescape(point);
		snprintf(m.point, sizeof(m.point), "%s", point);
		parse_mountinfo_unescape(m.source);
		if (*n == cap) {
			struct mnt_info *nv = realloc(v, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap = cap ? cap * 2 : 64;
		}
		v[(*n)++] = m;
	}
	free(buf);
	return v;
}

/* One (process, class, mount) summed over the CPUs. */
struct key_row {
	struct fslat_key k;
	struct fslat_stat v;
	int picked;
};

struct rows {
	struct key_row *v;
	size_t n, cap;
	int ncpu;
};

static int add_key(const void *key, const void *value, void *arg)
{
	struct rows *r = arg;
	struct key_row row = { .k = *(const struct fslat_key *)key };
	const char *p = value;

	for (int c = 0; c < r->ncpu; c++, p += sizeof(struct fslat_stat)) {
		const struct fslat_stat *s = (const void *)p;

		row.v.count += s->count;
		row.v.total_ns += s->total_ns;
		row.v.bytes += s->bytes;
		if (s->max_ns > row.v.max_ns)
			row.v.max_ns = s->max_ns;
		for (int i = 0; i < FSLAT_SLOTS; i++)
			row.v.slots[i] += s->slots[i];
	}
	if (!row.v.count)
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct key_row *nv = realloc(r->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		r->v = nv;
		r->cap = cap;
	}
	r->v[r->n++] = row;
	return 0;
}

static void stat_add(struct fslat_stat *to, const struct fslat_stat *s)
{
	to->count += s->count;
	to->total_ns += s->total_ns;
	to->bytes += s->bytes;
	if (s->max_ns > to->max_ns)
		to->max_ns = s->max_ns;
	for (int i = 0; i < FSLAT_SLOTS; i++)
		to->slots[i] += s->slots[i];
}

static int row_by_time(const void *a, const void *b)
{
	const struct key_row *x = a, *y = b;

	return trace__cmp_desc(x->v.total_ns, y->v.total_ns);
}

static int slow_by_lat(const void *a, const void *b)
{
	const struct fslat_slow *x = a, *y = b;

	return trace__cmp_desc(x->lat_ns, y->lat_ns);
}

/* What user space knows of the mounts: their names from the kernel, places from mountinfo. */
struct names {
	int comms_fd, mounts_fd;
	const struct mnt_info *mi;
	size_t nmi;
};

static void json_hist(struct json *j, const char *key, const struct fslat_stat *s)
{
	unsigned long long slots[FSLAT_SLOTS];

	for (int i = 0; i < FSLAT_SLOTS; i++)
		slots[i] = s->slots[i];
	json__key(j, key);
	trace__json_log2(j, slots, FSLAT_SLOTS);
}

static void json_stat(struct json *j, const struct fslat_stat *s, int bytes)
{
	trace__json_int(j, "count", s->count);
	trace__json_us(j, "total_us", s->total_ns);
	trace__json_us(j, "max_us", s->max_ns);
	if (bytes)
		trace__json_int(j, "bytes", s->bytes);
	json_hist(j, "hist", s);
}

static void json_comm(struct json *j, const struct names *nm, __u32 tgid)
{
	struct fslat_comm c = { { 0 } };

	/* absent (its map was full): an empty comm, the drop is counted */
	bpf_map_lookup_elem(nm->comms_fd, &tgid, &c);
	trace__json_comm(j, "comm", c.comm, sizeof(c.comm));
}

static void json_mount(struct json *j, const struct names *nm, __u32 mnt_id, int full)
{
	struct fslat_mount m = { 0 };
	const struct mnt_info *mi = NULL;

	trace__json_int(j, "mnt_id", mnt_id);
	if (!mnt_id) {
		json__kv_str(j, "mount", "");
		json__kv_str(j, "fstype", "");
		return;
	}
	bpf_map_lookup_elem(nm->mounts_fd, &mnt_id, &m);
	for (size_t i = 0; i < nm->nmi; i++)
		if (nm->mi[i].id == mnt_id) {
			mi = &nm->mi[i];
			break;
		}
	json__kv_str(j, "mount", mi ? mi->point : "");
	if (m.fstype[0])
		trace__json_comm(j, "fstype", m.fstype, sizeof(m.fstype));
	else
		json__kv_str(j, "fstype", mi ? mi->fstype : "");
	if (full) {
		char dev[24];

		json__kv_str(j, "source", mi ? mi->source : "");
		snprintf(dev, sizeof(dev), "%u:%u", m.dev >> 20, m.dev & 0xfffff);
		json__kv_str(j, "dev", mi ? mi->dev : dev);
	}
}

/*
 * The per-interval histograms (summed over the CPUs), one row per interval
 * from the window's start to the detach or this read; nothing when they are
 * not kept (SONDE_INTERVALS=0).
 */
static int json_intervals(struct trace_run *t, struct json *j)
{
	struct fslatency_bpf *skel = t->skel;
	uint64_t iv_ns = skel->rodata->sonde_iv_ns;
	size_t niv = trace_run__intervals(t, iv_ns);
	uint64_t c[TRACE_MAX_INTERVALS * FSLAT_SLOTS];
	unsigned long long counts[TRACE_MAX_INTERVALS * FSLAT_SLOTS];
	int err;

	if (!iv_ns)
		return 0;
	err = trace_map__counters(bpf_map__fd(skel->maps.intervals), c, niv * FSLAT_SLOTS);
	if (err)
		return err;
	for (size_t i = 0; i < niv * FSLAT_SLOTS; i++)
		counts[i] = c[i];
	trace__json_intervals(j, iv_ns, "us", counts, niv, FSLAT_SLOTS);
	return 0;
}

/* The slowest calls of every CPU, merged. n: how many. */
static struct fslat_slow *read_slowest(int fd, size_t *n)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fslat_top *tops;
	struct fslat_slow *out;
	__u32 zero = 0;

	*n = 0;
	if (ncpu <= 0)
		return NULL;
	_Static_assert(sizeof(struct fslat_top) % 8 == 0, "per-CPU values are 8-byte strides");
	tops = calloc((size_t)ncpu, sizeof(*tops));
	out = calloc((size_t)ncpu * FSLAT_TOP, sizeof(*out));
	if (!tops || !out || bpf_map_lookup_elem(fd, &zero, tops)) {
		free(tops);
		free(out);
		return NULL;
	}
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < FSLAT_TOP; i++)
			if (tops[c].e[i].lat_ns)
				out[(*n)++] = tops[c].e[i];
	free(tops);
	qsort(out, *n, sizeof(*out), slow_by_lat);
	return out;
}

static void json_slowest(struct json *j, const struct names *nm, int fd, int64_t t0_ns)
{
	size_t n;
	struct fslat_slow *s = read_slowest(fd, &n);

	json__key(j, "slowest");
	json__begin_array(j);
	for (size_t i = 0; s && i < n && i < TOP_SLOWEST; i++) {
		json__begin_object(j);
		trace__json_int(j, "pid", s[i].tgid);
		trace__json_int(j, "tid", s[i].tid);
		trace__json_comm(j, "comm", s[i].comm, sizeof(s[i].comm));
		json__kv_str(j, "syscall", class_name(s[i].class));
		json_mount(j, nm, s[i].mnt_id, 0);
		json__key(j, "file");
		json__string_n(j, s[i].name, strnlen(s[i].name, sizeof(s[i].name)));
		trace__json_int(j, "fd", s[i].fd);
		trace__json_us(j, "latency_us", s[i].lat_ns);
		json__key(j, "at_s");
		json__number(j, ((double)s[i].at_ns - (double)t0_ns) / 1e9);
		trace__json_int(j, "ret", s[i].ret);
		json__end_object(j);
	}
	json__end_array(j);
	free(s);
}

/* Rows merged on a coarser key: same(a, b) says two rows fall together. */
static size_t merge(const struct key_row *in, size_t n, struct key_row *out,
		    int (*same)(const struct fslat_key *, const struct fslat_key *))
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < m; k++)
			if (same(&out[k].k, &in[i].k))
				break;
		if (k == m)
			out[m++] = (struct key_row){ .k = in[i].k };
		stat_add(&out[k].v, &in[i].v);
	}
	qsort(out, m, sizeof(*out), row_by_time);
	return m;
}

static int same_proc_class(const struct fslat_key *a, const struct fslat_key *b)
{
	return a->tgid == b->tgid && a->class == b->class;
}

static int same_mount(const struct fslat_key *a, const struct fslat_key *b)
{
	return a->mnt_id == b->mnt_id;
}

static int same_proc(const struct fslat_key *a, const struct fslat_key *b)
{
	return a->tgid == b->tgid;
}

static int fslatency_collect(struct trace_run *t, struct json *j)
{
	struct fslatency_bpf *skel = t->skel;
	struct rows r = { .ncpu = libbpf_num_possible_cpus() };
	struct key_row *tmp = NULL, all = { 0 };
	struct names nm = { .comms_fd = bpf_map__fd(skel->maps.comms),
			    .mounts_fd = bpf_map__fd(skel->maps.mounts) };
	struct mnt_info *mi = NULL;
	size_t m;
	int err;

	if (r.ncpu <= 0)
		return -EINVAL;
	err = trace_map__each(bpf_map__fd(skel->maps.stats), FSLAT_MAX_KEYS, add_key, &r);
	if (err)
		goto cleanup;
	tmp = calloc(r.n + 1, sizeof(*tmp));
	if (!tmp) {
		err = -ENOMEM;
		goto cleanup;
	}
	mi = read_mountinfo(&nm.nmi);
	nm.mi = mi;
	for (size_t i = 0; i < r.n; i++)
		stat_add(&all.v, &r.v[i].v);

	trace__json_int(j, "calls", all.v.count);
	trace__json_us(j, "total_us", all.v.total_ns);
	trace__json_us(j, "max_us", all.v.max_ns);
	json_hist(j, "hist", &all.v);
	err = json_intervals(t, j);
	if (err)
		goto cleanup;
	trace__json_int(j, "processes_seen", (int64_t)merge(r.v, r.n, tmp, same_proc));
	trace__json_int(j, "keys_seen", (int64_t)r.n);

	m = merge(r.v, r.n, tmp, same_proc_class);
	json__key(j, "by_process");
	json__begin_array(j);
	for (size_t i = 0; i < m && i < TOP_PROCS; i++) {
		json__begin_object(j);
		trace__json_int(j, "pid", tmp[i].k.tgid);
		json_comm(j, &nm, tmp[i].k.tgid);
		json__kv_str(j, "syscall", class_name(tmp[i].k.class));
		json_stat(j, &tmp[i].v, 1);
		json__end_object(j);
	}
	json__end_array(j);

	m = merge(r.v, r.n, tmp, same_mount);
	json__key(j, "by_mount");
	json__begin_array(j);
	for (size_t i = 0; i < m; i++) {
		json__begin_object(j);
		json_mount(j, &nm, tmp[i].k.mnt_id, 1);
		json_stat(j, &tmp[i].v, 0);
		json__end_object(j);
	}
	json__end_array(j);

	qsort(r.v, r.n, sizeof(*r.v), row_by_time);
	json__key(j, "by_process_mount");
	json__begin_array(j);
	for (size_t i = 0; i < r.n && i < TOP_PROC_MOUNTS; i++) {
		json__begin_object(j);
		trace__json_int(j, "pid", r.v[i].k.tgid);
		json_comm(j, &nm, r.v[i].k.tgid);
		json__kv_str(j, "syscall", class_name(r.v[i].k.class));
		json_mount(j, &nm, r.v[i].k.mnt_id, 0);
		json_stat(j, &r.v[i].v, 1);
		json__end_object(j);
	}
	json__end_array(j);
	json_slowest(j, &nm, bpf_map__fd(skel->maps.slowest), t->attached_mono_ns);
cleanup:
	free(mi);
	free(tmp);
	free(r.v);
	return err;
}

static void fslatency_destroy(void *skel)
{
	fslatency_bpf__destroy(skel);
}

const struct trace_tool trace_fslatency = {
	.name = "fslatency",
	.what = "file syscall latency (read, write, open, fsync, ...) per process, syscall and mount",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = fslatency_open,
	.configure = fslatency_configure,
	.collect = fslatency_collect,
	.destroy = fslatency_destroy,
	.hooks = { { HEV_SYSCALL, 2 } },
	.run_cost = 4.0,
	.hot = 1,
	.filters = 1,
	.instead = "read and write syscalls per process from /proc/PID/io (syscr, syscw) and "
		   "block I/O wait from /proc/PID/stat (delayacct_blkio_ticks)",
};
