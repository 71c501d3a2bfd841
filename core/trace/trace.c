// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF tool runner: feature probes, variant choice, fd-owned attach,
 * collection into raw/bpf/<tool>.json, and the words for libbpf's errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "util/file.h"
#include "util/refusal.h"
#include "util/str.h"
#include "trace/cost.h"
#include "trace/ftrace.h"
#include "trace/maps.h"
#include "trace/trace.h"

#define TRACE_TOOL(tool) extern const struct trace_tool trace_##tool;
#include "trace/tools.h"
#undef TRACE_TOOL

const struct trace_tool *const trace_tools[] = {
#define TRACE_TOOL(tool) &trace_##tool,
#include "trace/tools.h"
#undef TRACE_TOOL
	NULL,
};

/* trace_set and the overhead guard hold TRACE_MAX_TOOLS tools: every tool of the table, once. */
_Static_assert(sizeof(trace_tools) / sizeof(trace_tools[0]) == TRACE_MAX_TOOLS + 1,
	       "trace_tools[] is the table, and TRACE_MAX_TOOLS its count");
_Static_assert(TOOL_STOP_TOOLS >= TRACE_MAX_TOOLS, "a tool's stop names every tool of a window");

static const struct {
	const char *name, *suffix;
	/*
	 * The cost of one program run, measured on a small VM (an empty program
	 * on a syscall hook: tp_btf/raw_tp 80-110 ns, a classic tracepoint
	 * 150-170 ns): the estimate when the kernel does not count run time
	 * (docs/bpf-tools.md, "Cost, and the overhead guard").
	 */
	int ns_per_run;
} attach_info[ATTACH_NR] = {
	[ATTACH_TP_BTF] = { "tp_btf", "_btf", 100 },
	[ATTACH_RAW_TP] = { "raw_tp", "_raw", 100 },
	[ATTACH_TRACEPOINT] = { "tracepoint", "_tp", 160 },
	[ATTACH_FENTRY] = { "fentry", "_fentry", 100 },
	[ATTACH_KPROBE] = { "kprobe", "_kprobe", 250 },
	[ATTACH_PERF_EVENT] = { "perf_event", "_perf", 1000 },
	[ATTACH_TRACEFS] = { "tracefs", "_tracefs", 400 },
};

const char *trace_attach__name(enum trace_attach a)
{
	return a < ATTACH_NR ? attach_info[a].name : "?";
}

const struct trace_tool *trace_tool__find(const char *name)
{
	if (!strncmp(name, "bpf.", 4))
		name += 4;
	for (const struct trace_tool *const *t = trace_tools; *t; t++)
		if (!strcmp((*t)->name, name))
			return *t;
	return NULL;
}

/* ---- libbpf's messages: kept (the last warning explains a failure), never printed ---- */

static char libbpf_last[512];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (getenv("SONDE_LIBBPF_DEBUG"))
		vfprintf(stderr, fmt, ap);
	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n)
		memcpy(libbpf_last, line, n + 1);
	return 0;
}

static void libbpf_quiet(void)
{
	static int done;

	if (!done) {
		libbpf_set_print(libbpf_print);
		done = 1;
	}
	libbpf_last[0] = '\0';
}

/* The libbpf error of one step, in words a reader of the report can act on. */
static void explain(char *why, size_t n, const char *step, int err)
{
	const char *words;

	err = err < 0 ? -err : err;
	switch (err) {
	case EPERM:
	case EACCES:
		words = "permission denied (BPF needs root, or CAP_BPF with CAP_PERFMON; a "
			"lockdown kernel or a seccomp filter can also refuse it)";
		break;
	case ENOENT:
		words = "the kernel has no such attach point";
		break;
	case ESRCH:
		words = "the attach point is not in the kernel's BTF";
		break;
	case EINVAL:
		words = "the kernel refused it (verifier or unsupported attach)";
		break;
	case E2BIG:
		words = "the program is too large for this kernel";
		break;
	case EOPNOTSUPP:
	case 524: /* ENOTSUPP, kernel-internal */
		words = "not supported by this kernel";
		break;
	case ENOMEM:
		words = "out of memory (or the locked-memory limit for BPF maps)";
		break;
	default:
		words = strerror(err);
	}
	if (libbpf_last[0])
		snprintf(why, n, "%s: %s [libbpf: %.200s]", step, words, libbpf_last);
	else
		snprintf(why, n, "%s: %s", step, words);
}

/* ---- probes ---- */

static int cap_effective(int cap)
{
	char *buf = NULL, *p;
	size_t len = 0;
	unsigned long long caps;
	FILE *f = fopen("/proc/self/status", "r");
	int have = 0;

	if (!f)
		return 0;
	while (getline(&buf, &len, f) > 0)
		if (!strncmp(buf, "CapEff:", 7)) {
			caps = strtoull(buf + 7, &p, 16);
			have = (caps >> cap) & 1;
			break;
		}
	free(buf);
	fclose(f);
	return have;
}

/* bpf() refused or missing: why, and what the user can do. */
static int bpf_refused(int err, char *why, size_t whylen)
{
	char policy[400];

	if (err == ENOSYS) {
		snprintf(why, whylen, "this kernel has no bpf() system call (built without "
			 "CONFIG_BPF_SYSCALL, or older than 3.18): the figures BPF tools give come "
			 "from /proc where it can");
		return -ENOSYS;
	}
	if ((err == EPERM || err == EACCES) && refusal__policy("bpf", policy, sizeof(policy))) {
		snprintf(why, whylen, "bpf() refused: %s", policy);
		return -EPERM;
	}
	snprintf(why, whylen, "the kernel refused a minimal BPF program (%s)%s",
		 err ? strerror(err) : "raw tracepoint programs unsupported",
		 err == EPERM || err == EACCES ?
			 ": an LSM (SELinux, AppArmor) or kernel.unprivileged_bpf_disabled may "
			 "forbid it; run sonde as root, outside a container" : "");
	return -EOPNOTSUPP;
}

int trace__probe_bpf(char *why, size_t whylen)
{
	int r, err;

	/* CAP_SYS_ADMIN 21, CAP_PERFMON 38, CAP_BPF 39 */
	if (geteuid() != 0 && !cap_effective(21) && !(cap_effective(38) && cap_effective(39))) {
		snprintf(why, whylen,
			 "not permitted: sonde runs as uid %d without CAP_BPF and CAP_PERFMON "
			 "(run it as root, or grant it those capabilities)",
			 (int)geteuid());
		return -EPERM;
	}
	libbpf_quiet();
	errno = 0;
	r = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL);
	if (r != 1) {
		err = r < 0 ? -r : errno;
		return bpf_refused(err, why, whylen);
	}
	return 0;
}

int trace__probe(char *why, size_t whylen)
{
	int err = trace__probe_bpf(why, whylen);

	/* after bpf() itself: a host that refuses bpf() is told that, not that it lacks BTF */
	return err ? err : trace__kernel_btf(why, whylen);
}

int trace__probe_collector(const char *name, char *why, size_t whylen)
{
	const struct trace_tool *tool = trace_tool__find(name);
	int err = trace__probe_bpf(why, whylen);

	if (err || (tool && tool->btf_free))
		return err;
	return trace__kernel_btf(why, whylen);
}

static int tracefs_events(void)
{
	return !access("/sys/kernel/tracing/events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/events", F_OK);
}

/* Can this variant be tried at all? Cheap checks that give a better reason than a failed load. */
static int variant_possible(enum trace_attach a, char *why, size_t n)
{
	switch (a) {
	case ATTACH_TRACEPOINT:
		if (!tracefs_events()) {
			snprintf(why, n, "tracefs is not mounted (a classic tracepoint needs it for "
					 "the event id; sonde does not mount it)");
			return 0;
		}
		return 1;
	case ATTACH_KPROBE:
		/*
		 * Only the perf kprobe PMU gives an fd-owned kprobe; without it
		 * libbpf would write kprobe_events, which outlives a killed sonde.
		 */
		if (access("/sys/bus/event_source/devices/kprobe/type", F_OK)) {
			snprintf(why, n, "no kprobe PMU (/sys/bus/event_source/devices/kprobe): "
					 "sonde never writes kprobe_events");
			return 0;
		}
		return 1;
	case ATTACH_TRACEFS:
		return ftrace__possible(why, n);
	case ATTACH_FENTRY:
		if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, NULL) != 1) {
			snprintf(why, n, "BPF trampolines are not supported by this kernel");
			return 0;
		}
		return 1;
	default:
		return 1;
	}
}

/* Load only the programs of variant a (and the ones of every variant). */
static int select_variant(struct bpf_object *obj, enum trace_attach a)
{
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		int mine = str__has_suffix(name, attach_info[a].suffix), other = 0;

		for (int k = 0; k < ATTACH_NR; k++)
			if (k != (int)a && str__has_suffix(name, attach_info[k].suffix))
				other = 1;
		bpf_program__set_autoload(prog, mine || !other);
		n += mine;
	}
	return n;
}

static void run_destroy(struct trace_run *t)
{
	ftrace__destroy(t);
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
	if (t->tool && t->tool->release)
		t->tool->release(t);
	if (t->skel && t->tool)
		t->tool->destroy(t->skel);
	t->skel = NULL;
	t->obj = NULL;
}

/* Open, choose the variant, configure, load, and (attach) attach. 0 or -errno with why. */
static int start_variant(struct trace_run *t, const struct trace_tool *tool, enum trace_attach a,
			 const struct trace_opts *o, int attach, char *why, size_t n)
{
	struct bpf_program *prog;
	int err;

	memset(t, 0, sizeof(*t));
	t->stats_fd = -1;
	t->tool = tool;
	t->attach = a;
	if (a == ATTACH_TRACEFS)
		return ftrace__start(t, o, why, n);
	libbpf_quiet();
	t->skel = tool->open(&t->obj);
	if (!t->skel) {
		err = -errno;
		explain(why, n, "open", err);
		return err ? err : -EINVAL;
	}
	if (a != ATTACH_PERF_EVENT && !select_variant(t->obj, a)) {
		snprintf(why, n, "the tool has no %s variant", attach_info[a].name);
		err = -ENOENT;
		goto fail;
	}
	if (tool->configure && (err = tool->configure(t->skel, o))) {
		explain(why, n, "configure", err);
		goto fail;
	}
	err = bpf_object__load(t->obj);
	if (err) {
		explain(why, n, "load", err);
		goto fail;
	}
	{
		struct bpf_map *m = bpf_object__find_map_by_name(t->obj, "sonde_stats");

		t->stats_fd = m ? bpf_map__fd(m) : -1;
	}
	if (!attach)
		return 0;
	bpf_object__for_each_program(prog, t->obj) {
		struct bpf_link *link;
		char step[160];

		if (!bpf_program__autoload(prog) ||
		    bpf_program__type(prog) == BPF_PROG_TYPE_PERF_EVENT)
			continue;
		if (t->nlinks == (int)(sizeof(t->links) / sizeof(t->links[0]))) {
			snprintf(why, n, "too many programs");
			err = -E2BIG;
			goto fail;
		}
		libbpf_last[0] = '\0';
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			snprintf(step, sizeof(step), "attach %s", bpf_program__section_name(prog));
			explain(why, n, step, err);
			goto fail;
		}
		t->links[t->nlinks++] = link;
	}
	if (tool->attach_custom && (err = tool->attach_custom(t, o, why, n)))
		goto fail;
	return 0;
fail:
	run_destroy(t);
	return err ? err : -EINVAL;
}

/* Try the tool's variants in order; 0 with t started, or -errno with the reason and attempts. */
static int start_tool(struct trace_run *t, const struct trace_tool *tool, const struct trace_opts *o,
		      int attach, char *why, size_t n, char *attempts, size_t an, const char *no_bpf)
{
	size_t used = 0;
	int err = -ENOENT, said = 0;

	attempts[0] = '\0';
	snprintf(why, n, "the tool has no variant");
	for (const enum trace_attach *a = tool->attach; *a != ATTACH_NR; a++) {
		char one[600];

		if (no_bpf && *a != ATTACH_TRACEFS) {
			/* bpf() refused, or no BTF for CO-RE: said once for every BPF variant */
			snprintf(why, n, "%s", no_bpf);
			if (!said++ && used < an)
				used += (size_t)snprintf(attempts + used, an - used, "%sBPF: %s",
							 used ? "; " : "", no_bpf);
			err = -EOPNOTSUPP;
			continue;
		}
		if (!variant_possible(*a, one, sizeof(one))) {
			err = -EOPNOTSUPP;
		} else {
			err = start_variant(t, tool, *a, o, attach, one, sizeof(one));
			if (!err)
				return 0;
		}
		/* without BPF, the reason keeps why, then why tracefs could not stand in */
		if (said)
			snprintf(why, n, "%s; nor through tracefs: %s", no_bpf, one);
		else
			snprintf(why, n, "%s", one);
		if (used < an)
			used += (size_t)snprintf(attempts + used, an - used, "%s%s: %s",
						 used ? "; " : "", attach_info[*a].name, one);
	}
	return err;
}

int trace_tool__probe(const struct trace_tool *tool, enum trace_attach *attach, char *why,
		      size_t whylen)
{
	struct trace_opts o = { .self_pid = getpid(), .window_s = 1 };
	struct trace_run t;
	char attempts[1024];
	int err;

	err = trace__probe_collector(tool->name, why, whylen);
	if (err)
		return err;
	/* Attach and detach too: a variant can load and still be refused at attach (fentry here). */
	err = start_tool(&t, tool, &o, 1, why, whylen, attempts, sizeof(attempts), NULL);
	if (err) {
		if (attempts[0])
			snprintf(why, whylen, "%s", attempts);
		return err;
	}
	*attach = t.attach;
	run_destroy(&t);
	return 0;
}

/* ---- one window ---- */

int trace_set__wanted(const char *const *names)
{
	int n = 0;

	for (const char *const *nm = names; nm && *nm; nm++)
		n += !strncmp(*nm, "bpf.", 4) && trace_tool__find(*nm);
	return n;
}

/*
 * Why a tool was not attached: its prediction against what was left of the
 * budget once sonde's own sampling had its share, and when that share alone
 * is the whole budget, that first: no tool could fit, whatever it costs.
 */
static void over_budget_reason(struct trace_outcome *oc, const struct trace_set *ts)
{
	char self[200] = "";
	double load = oc->pred.load_pct > oc->pred.pct ? oc->pred.load_pct : oc->pred.pct;

	if (ts->self_pct >= ts->budget_pct) {
		snprintf(oc->reason, sizeof(oc->reason),
			 "not attached: sonde's own sampling alone is expected to take %.2f%% of "
			 "the host's CPU (%s), as much as the whole budget (--max-overhead %g%%), "
			 "so nothing was left for the tools; this one's predicted cost: %.2f%% of "
			 "the host's CPU, %.2f%% more CPU time for the work it traces%s%s",
			 ts->self_pct, ts->self_from[0] ? ts->self_from : "predicted",
			 ts->budget_pct, oc->pred.pct, load, oc->tool->instead ? "; instead: " : "",
			 oc->tool->instead ? oc->tool->instead : "");
		return;
	}
	if (ts->self_pct > 0)
		snprintf(self, sizeof(self), ", less %.2f%% for sonde's own sampling (%s)",
			 ts->self_pct, ts->self_from[0] ? ts->self_from : "predicted");
	snprintf(oc->reason, sizeof(oc->reason),
		 "not attached: its predicted cost, %.2f%% of the host's CPU, %.2f%% more CPU "
		 "time for the work it traces, does not fit the %.2f%% left of the budget "
		 "(--max-overhead %g%%%s)%s%s",
		 oc->pred.pct, load, oc->pred.budget_pct, ts->budget_pct, self,
		 oc->tool->instead ? "; instead: " : "",
		 oc->tool->instead ? oc->tool->instead : "");
}

/* Attach one admitted tool (its tracefs variant only when no_bpf says why); 1 when it started. */
static int start_admitted(struct trace_set *ts, struct trace_outcome *oc,
			  const struct trace_opts *o, const char *no_bpf)
{
	struct trace_run *t = &ts->runs[ts->nruns];
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);
	const struct trace_prediction *p = &oc->pred;

	if (start_tool(t, oc->tool, o, 1, oc->reason, sizeof(oc->reason), oc->attempts,
		       sizeof(oc->attempts), no_bpf))
		return 0;
	t->setup_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	t->attached_mono_ns = clock__ns(CLOCK_MONOTONIC);
	t->raw_dir = ts->raw_dir;
	t->filtered = trace_opts__filters(o, oc->tool);
	t->run_ns = trace_cost__run_ns(trace_cost__calibrate(), oc->tool, t->attach);
	/* Filtered: most runs stop at the filter; the prediction knows the blend. */
	if (p->done && p->runs_per_s > 0 && p->run_ns > 0 && t->filtered) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		t->run_ns *= p->pct / 100 * 1e9 * (double)(ncpu > 0 ? ncpu : 1) / p->runs_per_s /
			     p->run_ns;
	}
	if (p->done && p->duty > 0 && p->duty < 1)
		t->stop_at_mono_ns = t->attached_mono_ns + (int64_t)(p->duty * o->window_s * 1e9);
	oc->started = 1;
	oc->reason[0] = '\0';
	ts->nruns++;
	return 1;
}

/*
 * Every tool attached, the window starts: the origin of the per-interval
 * histograms (bpf/sonde.bpf.h sonde_iv_t0_ns, in its own data section) of
 * the tools that keep them. What they saw while the others were loading is in
 * interval 0.
 */
static void intervals_begin(struct trace_set *ts)
{
	int64_t now = clock__ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < ts->nruns; i++) {
		struct trace_run *t = &ts->runs[i];
		struct bpf_map *m = t->obj ? bpf_object__find_map_by_name(t->obj, ".data.sonde_iv")
					   : NULL;
		__u64 v = (__u64)now;
		__u32 zero = 0;

		/*
		 * A duty cycle counts from here: the tools loaded after this one (a
		 * few to hundreds of ms each) are not the window, and a cycle of
		 * 50 ms would be spent before it began.
		 */
		if (t->stop_at_mono_ns)
			t->stop_at_mono_ns = now + (t->stop_at_mono_ns - t->attached_mono_ns);
		if (!m || bpf_map__value_size(m) != sizeof(v))
			continue;
		if (!bpf_map_update_elem(bpf_map__fd(m), &zero, &v, BPF_ANY))
			t->iv_t0_mono_ns = now;
	}
}

/*
 * libbpf parses the kernel's BTF (/sys/kernel/btf/vmlinux, ~5 MB) again at
 * every bpf_object__load and frees it after: two buffers of its size, each
 * above glibc's mmap threshold, so every tool maps and faults in ~10 MB of
 * fresh pages and unmaps them. While the tools load, large blocks come from
 * the heap and stay there, so the next tool reuses the same pages;
 * afterwards the heap is trimmed and the default thresholds come back.
 */
static void heap_keep(int on)
{
	/* `make bench` loads the tools with glibc's defaults too, as its baseline (bench/setup.sh) */
	if (getenv("SONDE_BENCH_HEAP_DEFAULT"))
		return;
	if (on) {
		mallopt(M_MMAP_THRESHOLD, 64 << 20);
		mallopt(M_TRIM_THRESHOLD, 128 << 20);
	} else {
		mallopt(M_MMAP_THRESHOLD, 128 << 10);
		mallopt(M_TRIM_THRESHOLD, 128 << 10);
		malloc_trim(0);
	}
}

int trace_set__start(struct trace_set *ts, const char *const *names, const char *raw_dir,
		     const struct trace_opts *o, const char *disabled, char *err, size_t errlen)
{
	char dir[4200], general[512] = "", btf[512] = "";
	const char *no_bpf;
	int general_err = 0, btf_err = 0, started = 0;

	memset(ts, 0, sizeof(*ts));
	snprintf(ts->raw_dir, sizeof(ts->raw_dir), "%s", raw_dir);
	ts->disabled = disabled;
	for (const char *const *nm = names; nm && *nm; nm++) {
		const struct trace_tool *tool;
		size_t k;

		if (strncmp(*nm, "bpf.", 4) || !(tool = trace_tool__find(*nm)))
			continue;
		/* each tool of the table once: the outcomes (TRACE_MAX_TOOLS) hold them all */
		for (k = 0; k < ts->nout && ts->outcome[k].tool != tool; k++)
			;
		if (k == ts->nout)
			ts->outcome[ts->nout++].tool = tool;
	}
	if (!ts->nout)
		return 0;
	snprintf(dir, sizeof(dir), "%s/bpf", raw_dir);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!disabled)
		general_err = trace__probe_bpf(general, sizeof(general));
	if (!disabled && !general_err)
		btf_err = trace__kernel_btf(btf, sizeof(btf));
	/* without BPF, the tools with a tracefs variant are planned and run through it */
	ts->no_bpf = general_err || btf_err;
	if (!disabled) {
		trace_cost__plan(ts, o);
		ts->ntgids = o->ntgids < TRACE_MAX_TGIDS ? o->ntgids : TRACE_MAX_TGIDS;
		memcpy(ts->tgids, o->tgids, ts->ntgids * sizeof(ts->tgids[0]));
	}
	heap_keep(1);
	for (size_t i = 0; i < ts->nout; i++) {
		struct trace_outcome *oc = &ts->outcome[i];

		if (disabled) {
			snprintf(oc->reason, sizeof(oc->reason), "%s", disabled);
			continue;
		}
		no_bpf = general_err ? general : btf_err && !oc->tool->btf_free ? btf : NULL;
		if (no_bpf && !oc->tool->ftrace) {
			snprintf(oc->reason, sizeof(oc->reason), "%s", no_bpf);
			continue;
		}
		if (oc->pred.done && oc->pred.duty <= 0) {
			oc->over_budget = 1;
			over_budget_reason(oc, ts);
			continue;
		}
		started += start_admitted(ts, oc, o, no_bpf);
	}
	heap_keep(0);
	intervals_begin(ts);
	return started;
}

/* Read again at most once a second: the overhead guard asks for every tool, ten times a second. */
static int bpf_stats_enabled(void)
{
	static int64_t read_at;
	static int on;
	int64_t now = clock__ns(CLOCK_MONOTONIC);
	char buf[16] = "";
	ssize_t n;
	int fd;

	if (read_at && now - read_at < 1000000000)
		return on;
	read_at = now;
	fd = open("/proc/sys/kernel/bpf_stats_enabled", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return on = 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return on = n > 0 && buf[0] == '1';
}

/* The kernel's run time and count of a tool's programs (only counted while bpf_stats_enabled=1). */
static void prog_stats(const struct trace_run *t, uint64_t *run_ns, uint64_t *run_cnt)
{
	struct bpf_program *prog;

	*run_ns = *run_cnt = 0;
	bpf_object__for_each_program(prog, t->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		*run_cnt += info.run_cnt;
	}
}

static int64_t runs_so_far(const struct trace_run *t)
{
	uint64_t runs = 0;

	if (t->stats_fd >= 0)
		trace_map__percpu_sum(t->stats_fd, TRACE_STAT_RUNS, &runs, sizeof(runs));
	return (int64_t)runs;
}

/* One program run, estimated: calibrated here when a budget asked for it, else the reference. */
static double run_ns_estimate(const struct trace_run *t)
{
	return t->run_ns > 0 ? t->run_ns : attach_info[t->attach].ns_per_run;
}

int64_t trace_run__cost_ns(const struct trace_run *t)
{
	uint64_t ns, cnt;

	if (t->c.done || !trace_run__attached(t))
		return -1;
	if (t->ft)
		return ftrace__cost_ns(t);
	if (bpf_stats_enabled()) {
		prog_stats(t, &ns, &cnt);
		if (cnt)
			return (int64_t)ns;
	}
	return (int64_t)((double)runs_so_far(t) * run_ns_estimate(t));
}

int trace_run__attached(const struct trace_run *t)
{
	return (t->obj || t->ft) && !t->c.done && !t->detached_mono_ns;
}

void trace_run__detach(struct trace_run *t, const char *why, const struct tool_stop *stop)
{
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);

	if (!trace_run__attached(t))
		return;
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
	if (t->tool->detach)
		t->tool->detach(t);
	ftrace__stop(t);
	t->detached_mono_ns = clock__ns(CLOCK_MONOTONIC);
	t->detach_ms = (double)(t->detached_mono_ns - t0) / 1e6;
	snprintf(t->c.stopped, sizeof(t->c.stopped), "%s", why);
	t->c.stop = *stop;
}

/* Read the kernel's aggregates and counters into t->c, then detach everything. */
static void run_collect(struct trace_run *t)
{
	struct bpf_map *m;
	int64_t t0;
	int e;

	if (t->c.done)
		return;
	t->c.done = 1;
	m = t->obj ? bpf_object__find_map_by_name(t->obj, "sonde_stats") : NULL;
	/* Detached early: it saw the window up to then. */
	t->c.collected_mono_ns = t->detached_mono_ns ? t->detached_mono_ns :
						       clock__ns(CLOCK_MONOTONIC);
	{
		struct json data = { 0 };

		json__begin_object(&data);
		libbpf_last[0] = '\0';
		e = t->ft ? ftrace__collect(t, &data) : t->tool->collect(t, &data);
		json__end_object(&data);
		t->c.data = data.out;
	}
	if (e)
		explain(t->c.err, sizeof(t->c.err), "reading the kernel's maps", e);
	if (m) {
		uint64_t st[TRACE_STAT_NR];

		trace_map__counters(bpf_map__fd(m), st, TRACE_STAT_NR);
		t->c.runs = st[TRACE_STAT_RUNS];
		t->c.drops = st[TRACE_STAT_DROPS];
	}
	if (t->obj)
		prog_stats(t, &t->c.run_ns, &t->c.run_cnt);
	t0 = clock__ns(CLOCK_MONOTONIC);
	run_destroy(t);
	t->c.teardown_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
}

static const char *outcome_status(const struct trace_set *ts, const struct trace_outcome *oc)
{
	if (oc->started)
		return "ok";
	if (oc->over_budget)
		return "over_budget";
	return ts->disabled ? "disabled" : "unavailable";
}

static struct trace_run *run_of(struct trace_set *ts, const struct trace_tool *tool)
{
	for (size_t i = 0; i < ts->nruns; i++)
		if (ts->runs[i].tool == tool)
			return &ts->runs[i];
	return NULL;
}

/* The tool's own CPU: the kernel's count when it keeps one, else runs x one run's cost. */
static void json_cost(struct json *j, const struct trace_run *t, int stats_on)
{
	char how[400];
	double per = run_ns_estimate(t);

	json__key(j, "cost");
	json__begin_object(j);
	if (t->c.cost_how[0]) {
		json__key(j, "cpu_ns");
		json__int(j, t->c.cost_ns);
		json__key(j, "source");
		json__string(j, "estimate and measure");
		json__key(j, "how");
		json__string(j, t->c.cost_how);
		json__end_object(j);
		return;
	}
	json__key(j, "cpu_ns");
	if (stats_on && t->c.run_cnt) {
		json__int(j, (int64_t)t->c.run_ns);
		json__key(j, "source");
		json__string(j, "kernel");
		json__key(j, "how");
		json__string(j, "run time of the tool's programs counted by the kernel "
				"(kernel.bpf_stats_enabled was already on)");
	} else {
		json__int(j, (int64_t)((double)t->c.runs * per));
		json__key(j, "source");
		json__string(j, "estimate");
		json__key(j, "how");
		snprintf(how, sizeof(how),
			 "%llu program runs x %.0f ns, one %s run of this tool %s; the exact "
			 "figure needs kernel.bpf_stats_enabled=1, a global setting sonde does not "
			 "change",
			 (unsigned long long)t->c.runs, per, attach_info[t->attach].name,
			 t->run_ns > 0 ? "as calibrated on this host" :
					 "as measured on a small VM");
		json__string(j, how);
	}
	json__end_object(j);
}

/* What a started tool saw and cost. */
static void json_run(struct json *j, const struct trace_set *ts, const struct trace_run *t,
		     int64_t window_start_mono_ns, int64_t window_end_mono_ns, int stats_on)
{
	json__key(j, "attach");
	json__string(j, attach_info[t->attach].name);
	if (t->filtered) {
		/* filtered in the kernel: only these processes were traced */
		json__key(j, "filtered_to");
		json__begin_array(j);
		for (size_t k = 0; k < ts->ntgids; k++)
			json__int(j, ts->tgids[k]);
		json__end_array(j);
	}
	/* The part of the window the tool saw: it attaches before and is read after. */
	json__key(j, "traced_from_s");
	json__number(j, (double)(t->attached_mono_ns - window_start_mono_ns) / 1e9);
	json__key(j, "traced_to_s");
	json__number(j, (double)(t->c.collected_mono_ns - window_start_mono_ns) / 1e9);
	json__key(j, "window_s");
	json__number(j, (double)(window_end_mono_ns - window_start_mono_ns) / 1e9);
	json__key(j, "runs");
	json__int(j, (int64_t)t->c.runs);
	json__key(j, "drops");
	json__int(j, (int64_t)t->c.drops);
	json_cost(j, t, stats_on);
	json__key(j, "setup_ms");
	json__number(j, t->setup_ms);
	if (t->detached_mono_ns) {
		json__key(j, "detach_ms");
		json__number(j, t->detach_ms);
	}
	json__key(j, "teardown_ms");
	json__number(j, t->c.teardown_ms);
	json__key(j, "data");
	json__raw(j, t->c.data.buf && !t->c.data.oom ? t->c.data.buf : "{}",
		  t->c.data.buf && !t->c.data.oom ? t->c.data.len : 2);
}

int trace_set__finish(struct trace_set *ts, int64_t window_start_mono_ns,
		      int64_t window_end_mono_ns, char *err, size_t errlen)
{
	int stats_on = bpf_stats_enabled(), rc = 0;

	for (size_t i = 0; i < ts->nout; i++) {
		struct trace_outcome *oc = &ts->outcome[i];
		struct trace_run *t = oc->started ? run_of(ts, oc->tool) : NULL;
		struct json j = { .pretty = 0 };
		const char *status = outcome_status(ts, oc);
		char path[4400];
		int e;

		if (t) {
			run_collect(t);
			if (t->c.err[0])
				status = "failed";
		}

		json__begin_object(&j);
		json__key(&j, "schema");
		json__string(&j, "sonde.bpf/1");
		json__key(&j, "tool");
		json__string(&j, oc->tool->name);
		json__key(&j, "status");
		json__string(&j, status);
		if (!t || t->c.err[0]) {
			json__key(&j, "reason");
			json__string(&j, t ? t->c.err : oc->reason);
		}
		if (t && t->c.stopped[0]) {
			json__key(&j, "stopped_early");
			json__string(&j, t->c.stopped);
			tool_stop__json(&j, &t->c.stop);
		}
		if (oc->attempts[0]) {
			/* variants refused before the one that ran (or all of them) */
			json__key(&j, "attempts");
			json__string(&j, oc->attempts);
		}
		if (ts->budget_pct > 0) {
			json__key(&j, "budget_pct");
			json__number(&j, ts->budget_pct);
		}
		trace_cost__json(&j, &oc->pred, oc->tool->instead);
		if (t)
			json_run(&j, ts, t, window_start_mono_ns, window_end_mono_ns, stats_on);
		json__end_object(&j);
		strbuf__puts(&j.out, "\n");
		if (t)
			strbuf__free(&t->c.data);
		snprintf(path, sizeof(path), "%s/bpf/%s.json", ts->raw_dir, oc->tool->name);
		e = j.out.oom ? -ENOMEM : file__write_all(path, j.out.buf, j.out.len);
		strbuf__free(&j.out);
		if (e && !rc) {
			rc = e;
			snprintf(err, errlen, "%s: %s", path, strerror(-e));
		}
	}
	ts->nruns = 0;
	return rc;
}

void trace_set__destroy(struct trace_set *ts)
{
	for (size_t i = 0; i < ts->nruns; i++)
		run_destroy(&ts->runs[i]);
	ts->nruns = 0;
}
