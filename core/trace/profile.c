// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile: timed on-CPU stack samples of every CPU (bpf/profile.bpf.c),
 * symbolized at the end of the window while the processes still exist.
 *
 * Frequency: SONDE_PROFILE_HZ (1-999, default 49 per CPU). 49 rather than 50
 * so the samples do not beat in step with 50/100 Hz timers.
 *
 * data = { unit = "samples", frequency_hz, cpus, samples, idle_samples,
 *   lost = { kernel_stack, user_stack, user_stack_fault, counts_full },
 *   lost_samples, total (samples counted with a stack key), frames,
 *   unknown_frames, unknown_reasons = { process_exited = n, ... },
 *   kernel_symbols ("ok" or why kernel frames are [unknown]),
 *   processes_snapshotted, processes_exited, elf_files, elf_unreadable,
 *   broken = { stacks, count, what, fix },
 *   processes = top 50 { tgid, comm, count, stacks }, processes_total,
 *   unknown_causes = [{ cause, where, count, package, remedy }],
 *   stacks = top 2000 { tgid, comm, count, folded = "comm;frame;...;frame_[k]",
 *     unwinder ("fp"/"cfi"), stop, stop_at },
 *   stacks_total, other = { stacks, count }, symbolize_ms,
 *   subsecond = { interval_ms, row_ms, unit = "samples", counts (busy samples, every CPU),
 *                 samples (every sample), cpus = [ { cpu, counts, samples } ],
 *                 processes = top 10 [ { tgid, samples, counts } ], processes_dropped },
 *   cfi = { status, copies, bytes_per_copy, unwound, stops, used, unwind_cpu_ms, ... } }
 * and raw/profile.folded: "comm;frame;...;frame count" per line.
 *
 * CFI unwinding (issue 14): the program also copies the user registers and
 * stack of each sample of a user thread (bpf/profile.h); they are drained
 * during the window (core/perf/ustack.c), unwound after it with libdw where
 * the sample's frame-pointer stack is broken (core/perf/unwind.c) and freed;
 * SONDE_PROFILE_CFI=0 turns it off.
 */
#include <errno.h>
#include <math.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/refusal.h"
#include "perf/stacks.h"
#include "perf/symbolize.h"
#include "perf/unwind.h"
#include "perf/ustack.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "profile.h"
#include "profile.skel.h"
#include "profile_nobtf.skel.h"

/*
 * profile_nobtf.skel.h is the same program built without CO-RE (Makefile,
 * bpf/profile.bpf.c): its skeleton has the same maps, program and read-only
 * data in the same places, so this file drives it as a struct profile_bpf.
 */
#define PROFILE_SAME(m) (offsetof(struct profile_bpf, m) == offsetof(struct profile_nobtf_bpf, m))
#define PROFILE_SAME_RO(m) (offsetof(struct profile_bpf__rodata, m) == \
			    offsetof(struct profile_nobtf_bpf__rodata, m))
_Static_assert(sizeof(struct profile_bpf) == sizeof(struct profile_nobtf_bpf) &&
		       PROFILE_SAME(obj) && PROFILE_SAME(maps.stacks) && PROFILE_SAME(maps.counts) &&
		       PROFILE_SAME(maps.pstats) && PROFILE_SAME(maps.ustacks) &&
		       PROFILE_SAME(maps.cfi_ctl) && PROFILE_SAME(maps.cfistats) &&
		       PROFILE_SAME(maps.subsec) && PROFILE_SAME(maps.subsec_procs) &&
		       PROFILE_SAME(progs.do_sample) && PROFILE_SAME(rodata),
	       "the two builds of the profile have one skeleton layout");
_Static_assert(sizeof(struct profile_bpf__rodata) == sizeof(struct profile_nobtf_bpf__rodata) &&
		       PROFILE_SAME_RO(targ_self_tgid) && PROFILE_SAME_RO(targ_subsec_s) &&
		       PROFILE_SAME_RO(targ_cfi) && PROFILE_SAME_RO(sonde_ntgids) &&
		       PROFILE_SAME_RO(sonde_tgids) && PROFILE_SAME_RO(sonde_iv_ns),
	       "the two builds of the profile have one read-only data layout");

_Static_assert(sizeof(struct profile_key) == 32, "perf/stacks.c reads this key layout");
_Static_assert(__builtin_offsetof(struct profile_ustack, regs) == 32 &&
		       __builtin_offsetof(struct profile_ustack, size) == 168 &&
		       __builtin_offsetof(struct profile_ustack, flags) == 172 &&
		       __builtin_offsetof(struct profile_ustack, data) == USTACK_HDR &&
		       PROFILE_USTACK_BYTES == USTACK_MAX_BYTES && PROFILE_NREGS == USTACK_NREGS,
	       "perf/ustack.c parses the ring records by this layout");

/* Stack copies held during a window, at most (then the kernel stops copying: FP stacks only). */
#define CFI_BUDGET (32u << 20)

#define MAX_CPUS 4096

struct profile_priv {
	int hz, ncpus;
	int fds[MAX_CPUS];
	struct bpf_link *links[MAX_CPUS];
	struct symbolizer *sym;
	struct stack_poller *poller;
	/* CFI unwinding: the copies of the window, and why there are none */
	struct ustack_store store;
	struct ustack_reader *reader;
	uint32_t ring_bytes;
	char cfi_why[200];
};

static void *profile_open(struct bpf_object **obj)
{
	char why[512];
	/* without kernel BTF, the build without CO-RE (no CFI copies: cfi_support says so) */
	struct profile_bpf *skel = trace__kernel_btf(why, sizeof(why)) ?
					   (struct profile_bpf *)profile_nobtf_bpf__open() :
					   profile_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

/*
 * Whether the profile can copy user stacks for CFI unwinding here: "" when it
 * can, else why not (the profile then keeps frame-pointer stacks only).
 * SONDE_PROFILE_CFI=0 turns it off.
 */
static void cfi_support(char *why, size_t n)
{
	const char *env = getenv("SONDE_PROFILE_CFI");

	char btf[512];

	why[0] = '\0';
	if (env && (!strcmp(env, "0") || !strcmp(env, "off")))
		snprintf(why, n, "CFI unwinding off (SONDE_PROFILE_CFI=%s)", env);
	else if (trace__kernel_btf(btf, sizeof(btf)))
		snprintf(why, n, "no CFI unwinding: the kernel has no BTF, which the stack copies "
			 "need (CONFIG_DEBUG_INFO_BTF, Linux 5.2+): frame-pointer stacks only");
#if !defined(__x86_64__)
	else
		snprintf(why, n, "CFI unwinding is implemented for x86_64 only");
#else
	else if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0)
		snprintf(why, n, "no CFI unwinding: the kernel has no BPF ring buffer (Linux 5.8+)");
	else if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) <= 0)
		snprintf(why, n, "no CFI unwinding: the kernel has no bpf_task_pt_regs (Linux 5.15+)");
#endif
}

/*
 * The stack copies' ring buffer holds what every CPU samples in
 * PROFILE_USTACK_HOLD_MS (the reader drains it every 100 ms; the rest is for a
 * reader held up on a busy host): 512 KiB for 2 CPUs at 49 Hz, where a fixed
 * 4 MiB cost sonde 8 MiB of RSS (the pages are mapped twice) and held 0.8 s of
 * copies on 64 CPUs. A copy that finds the ring full is counted and its sample
 * keeps its frame-pointer stack.
 */
#define PROFILE_USTACK_HOLD_MS 500
#define PROFILE_USTACK_RING_MIN (256u << 10)
#define PROFILE_USTACK_RING_MAX (16u << 20)

static int profile_hz(char *why, size_t n);

uint32_t trace_profile__ring_bytes(long ncpus, int hz)
{
	uint64_t rec = (sizeof(struct profile_ustack) + 8 + 7) & ~7ull; /* + the ring's header */
	uint64_t want = (uint64_t)(ncpus > 0 ? ncpus : 1) * (uint64_t)(hz > 0 ? hz : 1) * rec *
			PROFILE_USTACK_HOLD_MS / 1000;
	uint32_t bytes = PROFILE_USTACK_RING_MIN;

	while (bytes < want && bytes < PROFILE_USTACK_RING_MAX)
		bytes <<= 1;
	return bytes;
}

static int profile_configure(void *skel, const struct trace_opts *o)
{
	struct profile_bpf *s = skel;
	char why[200];

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	/* a column a second, or as many seconds as a long window needs to fit */
	s->rodata->targ_subsec_s = o->window_s > PROFILE_SUBSEC_COLS ?
					   (__u32)ceil(o->window_s / PROFILE_SUBSEC_COLS) : 1;
	cfi_support(why, sizeof(why));
	s->rodata->targ_cfi = !why[0];
	/* without CFI the program's copying is dead code: no ring buffer to create */
	if (why[0])
		bpf_map__set_autocreate(s->maps.ustacks, false);
	else
		bpf_map__set_max_entries(s->maps.ustacks,
					 trace_profile__ring_bytes(sysconf(_SC_NPROCESSORS_ONLN),
								   profile_hz(why, sizeof(why))));
	return 0;
}

/* The online CPUs ("0-3,6"), as a list; count, or -errno. */
static int online_cpus(int *cpus, int max)
{
	char buf[4096], *p = buf, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	while (*p && *p != '\n') {
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		if (*p == ',')
			p++;
	}
	return n;
}

/* SONDE_PROFILE_HZ, or the default; -EINVAL with why when it is not a frequency sonde allows. */
static int profile_hz(char *why, size_t n)
{
	const char *s = getenv("SONDE_PROFILE_HZ");
	char *end;
	long hz;

	if (!s || !*s)
		return PROFILE_DEFAULT_HZ;
	hz = strtol(s, &end, 10);
	if (*end || hz < 1 || hz > PROFILE_MAX_HZ) {
		snprintf(why, n, "SONDE_PROFILE_HZ=%.40s: not a sampling frequency from 1 to %d Hz",
			 s, PROFILE_MAX_HZ);
		return -EINVAL;
	}
	return (int)hz;
}

static void profile_release(struct trace_run *t)
{
	struct profile_priv *p = t->priv;

	if (!p)
		return;
	ustack_reader__stop(p->reader);
	ustack_store__free(&p->store);
	stack_poller__stop(p->poller);
	for (int i = 0; i < p->ncpus; i++) {
		bpf_link__destroy(p->links[i]);
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	}
	symbolizer__free(p->sym);
	free(p);
	t->priv = NULL;
}

/* The BPF program's switch for copying stacks. */
static void cfi_switch(struct profile_bpf *skel, __u32 on)
{
	__u32 zero = 0;

	if (skel->rodata->targ_cfi)
		bpf_map_update_elem(bpf_map__fd(skel->maps.cfi_ctl), &zero, &on, BPF_ANY);
}

/* Detached early (the overhead guard): the timers stop; the samples so far stay. */
static void profile_detach(struct trace_run *t)
{
	struct profile_priv *p = t->priv;
	struct profile_bpf *skel = t->skel;

	if (skel)
		cfi_switch(skel, 0);
	for (int i = 0; p && i < p->ncpus; i++)
		if (p->fds[i] >= 0)
			ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

/* Start draining the stack copies (after the perf events are attached). */
static void profile_cfi_start(struct profile_bpf *skel, struct profile_priv *p)
{
	if (!skel->rodata->targ_cfi) {
		cfi_support(p->cfi_why, sizeof(p->cfi_why));
		return;
	}
	p->store.budget = CFI_BUDGET;
	p->ring_bytes = bpf_map__max_entries(skel->maps.ustacks);
	p->reader = ustack_reader__start(bpf_map__fd(skel->maps.ustacks), &p->store,
					 bpf_map__fd(skel->maps.cfi_ctl), 100);
	if (!p->reader) {
		snprintf(p->cfi_why, sizeof(p->cfi_why),
			 "no CFI unwinding: the stack copies' ring buffer could not be read (%s)",
			 strerror(errno));
		return;
	}
	cfi_switch(skel, 1);
}

/* A copy is unwound only when its sample's frame-pointer stack is broken (the fast path holds). */
struct cfi_need {
	struct symbolizer *sym;
	int stack_fd;
};

static int cfi_needed(const struct ustack_rec *r, void *arg)
{
	const struct cfi_need *n = arg;

	return !stacks__user_whole(n->sym, n->stack_fd, PROFILE_STACK_DEPTH, r->tgid, r->ustack);
}

/*
 * "lost": samples whose stacks the maps did not keep, as the BPF program
 * counted them, and of the user stacks those the stack copies gave back
 * (after the folding: stacks__write counts them); "lost_samples" what is
 * still without its stack.
 */
static void profile_lost_json(struct json *j, const uint64_t *st, uint64_t recovered)
{
	uint64_t user = st[PROFILE_USTACK_LOST];

	recovered = recovered < user ? recovered : user;
	json__key(j, "lost");
	json__begin_object(j);
	trace__json_int(j, "kernel_stack", st[PROFILE_KSTACK_LOST]);
	trace__json_int(j, "user_stack", user);
	trace__json_int(j, "user_stack_recovered", recovered);
	trace__json_int(j, "user_stack_fault", st[PROFILE_USTACK_FAULT]);
	trace__json_int(j, "counts_full", st[PROFILE_KEYS_DROPPED]);
	json__end_object(j);
	json__key(j, "lost_samples");
	json__int(j, (int64_t)(st[PROFILE_KSTACK_LOST] + user - recovered + st[PROFILE_KEYS_DROPPED]));
}

/* The "cfi" member: what was copied, what the walks found, what it cost. */
static void profile_cfi_json(struct json *j, const struct profile_priv *p,
			     const uint64_t *cs, const struct unwind_run *ur,
			     const struct stacks_cfi *sc)
{
	json__key(j, "cfi");
	json__begin_object(j);
	json__key(j, "status");
	json__string(j, p->cfi_why[0] ? p->cfi_why : "on");
	trace__json_int(j, "stack_bytes_max", PROFILE_USTACK_BYTES);
	trace__json_int(j, "copies", cs[PROFILE_CFI_COPIED]);
	trace__json_int(j, "copies_kept", p->store.kept);
	trace__json_int(j, "bytes_copied", p->store.bytes_copied);
	json__key(j, "bytes_per_copy");
	json__number(j, p->store.kept ? (double)p->store.bytes_copied / (double)p->store.kept : 0);
	trace__json_int(j, "ring_bytes", p->ring_bytes);
	trace__json_int(j, "ring_full", cs[PROFILE_CFI_RING_FULL]);
	trace__json_int(j, "stack_unreadable", cs[PROFILE_CFI_FAULT]);
	trace__json_int(j, "no_user_regs", cs[PROFILE_CFI_NO_REGS]);
	trace__json_int(j, "over_budget", p->store.over_budget);
	trace__json_int(j, "bad_records", p->store.bad);
	trace__json_int(j, "unwound", ur->n);
	trace__json_int(j, "frames", ur->frames);
	json__key(j, "stops");
	json__begin_object(j);
	for (int s = 0; s < UNWIND_STOP_NR; s++)
		if (ur->stops[s])
			trace__json_int(j, unwind__stop_key((enum unwind_stop)s), ur->stops[s]);
	json__end_object(j);
	trace__json_int(j, "used", sc->used);
	trace__json_int(j, "fp_whole", sc->fp_whole + ur->skipped);
	trace__json_int(j, "not_better", sc->not_better);
	trace__json_int(j, "unmatched", sc->unmatched);
	trace__json_int(j, "lost_recovered", sc->lost_recovered);
	trace__json_int(j, "files_too_large", ur->files_too_large);
	/* what the unwinding may spend (core/perf/unwind.h), what it spent, who went over */
	json__key(j, "budget");
	json__begin_object(j);
	trace__json_int(j, "sample_steps", (int64_t)ur->budget.sample_max);
	trace__json_int(j, "process_steps", (int64_t)ur->budget.process_max);
	trace__json_int(j, "run_steps", (int64_t)ur->budget.run_max);
	trace__json_int(j, "run_cpu_ms", ur->budget.run_ns_max / 1000000);
	trace__json_int(j, "steps", (int64_t)ur->budget.run);
	trace__json_int(j, "over", (int64_t)sc->over_budget);
	json__key(j, "over_by");
	json__begin_object(j);
	trace__json_int(j, "sample", ur->stops[UNWIND_OVER_SAMPLE]);
	trace__json_int(j, "process", ur->stops[UNWIND_OVER_PROCESS]);
	trace__json_int(j, "run", ur->stops[UNWIND_OVER_RUN]);
	trace__json_int(j, "time", ur->stops[UNWIND_OVER_TIME]);
	json__end_object(j);
	json__end_object(j);
	json__key(j, "unwind_ms");
	json__number(j, ur->wall_ms);
	json__key(j, "unwind_cpu_ms");
	json__number(j, ur->cpu_ms);
	/* the copies are freed as they are unwound: the bundle never holds raw stacks */
	json__key(j, "raw_copies_kept");
	json__bool(j, 0);
	json__end_object(j);
}

static int profile_attach(struct trace_run *t, const struct trace_opts *o, char *why, size_t n)
{
	struct profile_bpf *skel = t->skel;
	struct profile_priv *p;
	static int cpus[MAX_CPUS];
	int ncpus, err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	p->hz = profile_hz(why, n);
	if (p->hz < 0)
		return p->hz;
	ncpus = online_cpus(cpus, MAX_CPUS);
	if (ncpus <= 0) {
		snprintf(why, n, "/sys/devices/system/cpu/online: %s",
			 ncpus ? strerror(-ncpus) : "no CPU");
		return ncpus ? ncpus : -ENODEV;
	}
	for (int i = 0; i < ncpus; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.size = sizeof(attr),
			.sample_freq = (__u64)p->hz,
			.freq = 1,
		};
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			err = -errno;
			if (err == -ENODEV) /* went offline since we read the list */
				continue;
			char policy[400];

			if ((err == -EACCES || err == -EPERM) &&
			    refusal__policy("perf_event_open", policy, sizeof(policy)))
				snprintf(why, n, "perf_event_open(cpu-clock, CPU %d): %s: %s", cpus[i],
					 strerror(-err), policy);
			else
				snprintf(why, n, "perf_event_open(cpu-clock, CPU %d): %s%s", cpus[i],
					 strerror(-err),
					 err == -EACCES || err == -EPERM ?
						 " (needs root or CAP_PERFMON; "
						 "kernel.perf_event_paranoid)" : "");
			return err;
		}
		p->fds[p->ncpus] = fd;
		p->links[p->ncpus] = bpf_program__attach_perf_event(skel->progs.do_sample, fd);
		if (!p->links[p->ncpus]) {
			err = -errno;
			close(fd);
			snprintf(why, n, "attaching the sampler to CPU %d's perf event: %s", cpus[i],
				 strerror(-err));
			return err;
		}
		p->ncpus++;
	}
	if (!p->ncpus) {
		snprintf(why, n, "no online CPU accepted a perf event");
		return -ENODEV;
	}
	p->sym = symbolizer__new();
	if (!p->sym)
		return -ENOMEM;
	/* without the poller only the processes alive at the end are symbolized: not fatal */
	p->poller = stack_poller__start(bpf_map__fd(skel->maps.counts), sizeof(struct profile_key),
					p->sym, 1000);
	profile_cfi_start(skel, p);
	return 0;
}

#define SUBSEC_TOP_PROCS 10

struct subsec_row {
	struct profile_subsec_key key;
	__u64 count;
};

static const struct trace_map_row subsec_rows = TRACE_MAP_ROW(struct subsec_row, key, count);

struct subsec_proc {
	__u32 tgid;
	uint64_t samples;
};

static int by_samples_desc(const void *a, const void *b)
{
	const struct subsec_proc *x = a, *y = b;

	return x->samples != y->samples ? trace__cmp_desc(x->samples, y->samples) :
					  (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

/* One map's counts ([column][row], ncols columns) as a list of columns, trailing zeros cut. */
static void json_subsec_counts(struct json *j, const char *key, const unsigned long long *cells,
			       size_t ncols)
{
	json__key(j, key);
	json__begin_array(j);
	for (size_t c = 0; c < ncols; c++)
		trace__json_log2(j, cells + c * PROFILE_SUBSEC_ROWS, PROFILE_SUBSEC_ROWS);
	json__end_array(j);
}

/* The top processes' own maps, from the (tgid, cell) hash. */
static int json_subsec_procs(struct json *j, int fd, size_t ncols)
{
	unsigned long long cells[PROFILE_SUBSEC_COLS * PROFILE_SUBSEC_ROWS];
	struct subsec_row *rows = NULL;
	struct subsec_proc *procs = NULL;
	size_t nrows = 0, nprocs = 0;
	int err = trace_map__read(fd, &subsec_rows, PROFILE_SUBSEC_PROC_CELLS, (void **)&rows,
				  &nrows);

	if (err)
		return err;
	procs = calloc(nrows + 1, sizeof(*procs));
	if (!procs) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nrows; i++) {
		size_t k = 0;

		while (k < nprocs && procs[k].tgid != rows[i].key.tgid)
			k++;
		if (k == nprocs)
			procs[nprocs++].tgid = rows[i].key.tgid;
		procs[k].samples += rows[i].count;
	}
	qsort(procs, nprocs, sizeof(*procs), by_samples_desc);
	json__key(j, "processes");
	json__begin_array(j);
	for (size_t p = 0; p < nprocs && p < SUBSEC_TOP_PROCS; p++) {
		memset(cells, 0, sizeof(cells));
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].key.tgid == procs[p].tgid &&
			    rows[i].key.cell < ncols * PROFILE_SUBSEC_ROWS)
				cells[rows[i].key.cell] = rows[i].count;
		json__begin_object(j);
		trace__json_int(j, "tgid", procs[p].tgid);
		trace__json_int(j, "samples", (int64_t)procs[p].samples);
		json_subsec_counts(j, "counts", cells, ncols);
		json__end_object(j);
	}
	json__end_array(j);
	free(procs);
	free(rows);
	return 0;
}

/*
 * "subsecond": busy samples by second of the window (or group of seconds)
 * and offset in the second, of every CPU together, each CPU, and the busiest
 * processes. 0 or -errno.
 */
static int json_subsecond(struct trace_run *t, struct json *j, uint64_t dropped)
{
	struct profile_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.subsec), err = 0;
	uint64_t col_ns = (uint64_t)skel->rodata->targ_subsec_s * 1000000000ull;
	size_t ncols = trace_run__intervals(t, col_ns), ncells;
	/* busy and all samples: every CPU's, then each CPU's ([cpu][cell]) */
	unsigned long long *busy = NULL, *all = NULL, *cbusy = NULL, *call = NULL;
	struct profile_subsec *v = NULL;

	if (ncpu <= 0)
		return -EINVAL;
	if (ncols > PROFILE_SUBSEC_COLS)
		ncols = PROFILE_SUBSEC_COLS;
	ncells = ncols * PROFILE_SUBSEC_ROWS;
	busy = calloc(ncells, sizeof(*busy));
	all = calloc(ncells, sizeof(*all));
	cbusy = calloc((size_t)ncpu * ncells, sizeof(*cbusy));
	call = calloc((size_t)ncpu * ncells, sizeof(*call));
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!busy || !all || !cbusy || !call || !v) {
		err = -ENOMEM;
		goto out;
	}
	for (__u32 cell = 0; cell < ncells; cell++) {
		if (bpf_map_lookup_elem(fd, &cell, v)) {
			err = -errno;
			goto out;
		}
		for (int c = 0; c < ncpu; c++) {
			busy[cell] += v[c].busy;
			all[cell] += v[c].samples;
			cbusy[(size_t)c * ncells + cell] = v[c].busy;
			call[(size_t)c * ncells + cell] = v[c].samples;
		}
	}
	json__key(j, "subsecond");
	json__begin_object(j);
	trace__json_int(j, "interval_ms", (int64_t)(col_ns / 1000000));
	trace__json_int(j, "row_ms", 1000 / PROFILE_SUBSEC_ROWS);
	json__key(j, "unit");
	json__string(j, "samples");
	json_subsec_counts(j, "counts", busy, ncols);
	json_subsec_counts(j, "samples", all, ncols);
	json__key(j, "cpus");
	json__begin_array(j);
	for (int c = 0; c < ncpu; c++) {
		size_t any = 0;

		for (size_t i = 0; i < ncells && !any; i++)
			any = call[(size_t)c * ncells + i] != 0;
		if (!any)
			continue; /* not online, or not sampled */
		json__begin_object(j);
		trace__json_int(j, "cpu", c);
		json_subsec_counts(j, "counts", cbusy + (size_t)c * ncells, ncols);
		json_subsec_counts(j, "samples", call + (size_t)c * ncells, ncols);
		json__end_object(j);
	}
	json__end_array(j);
	err = json_subsec_procs(j, bpf_map__fd(skel->maps.subsec_procs), ncols);
	trace__json_int(j, "processes_dropped", (int64_t)dropped);
	json__end_object(j);
out:
	free(v);
	free(call);
	free(cbusy);
	free(all);
	free(busy);
	return err;
}

static int profile_collect(struct trace_run *t, struct json *j)
{
	struct profile_bpf *skel = t->skel;
	struct profile_priv *p = t->priv;
	struct stack_sample *v = NULL;
	struct strbuf folded = { 0 };
	uint64_t st[PROFILE_STAT_NR] = { 0 }, cs[PROFILE_CFI_STAT_NR] = { 0 };
	struct unwind_run ur = { 0 };
	struct stacks_cfi sc = { 0 };
	struct cfi_need need;
	size_t n = 0;
	int fd = bpf_map__fd(skel->maps.pstats), err;

	/* stop sampling first: the counts and the counters then agree */
	cfi_switch(skel, 0);
	for (int i = 0; i < p->ncpus; i++)
		ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	stack_poller__stop(p->poller);
	p->poller = NULL;
	ustack_reader__stop(p->reader);
	p->reader = NULL;
	trace_map__counters(fd, st, PROFILE_STAT_NR);
	trace_map__counters(bpf_map__fd(skel->maps.cfistats), cs, PROFILE_CFI_STAT_NR);
	/* after the window: the copies become CFI stacks, and are freed */
	need.sym = p->sym;
	need.stack_fd = bpf_map__fd(skel->maps.stacks);
	err = unwind__store(p->sym, &p->store, PROFILE_STACK_DEPTH, cfi_needed, &need, &ur);
	if (err)
		return err;
	sc.v = ur.v;
	sc.n = ur.n;
	if (!p->cfi_why[0] && p->store.over_budget)
		snprintf(p->cfi_why, sizeof(p->cfi_why),
			 "the %u MB of stack copies a window may hold were full: later samples "
			 "kept their FP stacks", CFI_BUDGET >> 20);
	else if (!p->cfi_why[0] && cs[PROFILE_CFI_RING_FULL])
		snprintf(p->cfi_why, sizeof(p->cfi_why),
			 "%llu samples found the copies' ring buffer full and kept their FP stacks",
			 (unsigned long long)cs[PROFILE_CFI_RING_FULL]);
	sc.status = p->cfi_why;
	err = stacks__read_counts(bpf_map__fd(skel->maps.counts), sizeof(struct profile_key),
				  sizeof(__u64), 0, &v, &n);
	if (err)
		return err;

	json__key(j, "unit");
	json__string(j, "samples");
	trace__json_int(j, "frequency_hz", p->hz);
	trace__json_int(j, "cpus", p->ncpus);
	trace__json_int(j, "samples", st[PROFILE_SAMPLES]);
	trace__json_int(j, "idle_samples", st[PROFILE_IDLE]);
	err = json_subsecond(t, j, st[PROFILE_SUBSEC_DROPPED]);
	if (!err)
		err = stacks__write(p->sym, bpf_map__fd(skel->maps.stacks), PROFILE_STACK_DEPTH, v,
				    n, &sc, 1, "count", j, &folded);
	profile_lost_json(j, st, sc.lost_recovered);
	profile_cfi_json(j, p, cs, &ur, &sc);
	unwind_run__free(&ur);
	if (!err)
		err = trace_run__write_raw(t, "profile.folded", &folded);
	if (err == -EINVAL) /* no raw dir: a probe */
		err = 0;
	strbuf__free(&folded);
	free(v);
	return err;
}

static void profile_destroy(void *skel)
{
	profile_bpf__destroy(skel);
}

const struct trace_tool trace_profile = {
	.name = "profile",
	.what = "on-CPU stack samples of every CPU (49 Hz), symbolized",
	.attach = { ATTACH_PERF_EVENT, ATTACH_NR },
	.btf_free = 1,
	.open = profile_open,
	.configure = profile_configure,
	.attach_custom = profile_attach,
	.collect = profile_collect,
	.destroy = profile_destroy,
	.release = profile_release,
	.detach = profile_detach,
	.runs_per_cpu_s = 49,
	/*
	 * bench/tool-cost.sh, the kernel's own count of its run time under two
	 * dd bs=1: 22-50 us a sample, 170-310 counting-program runs (walking a
	 * kernel and a user stack and copying 4-8 KB of the user stack); 30, a
	 * guess, had it at a sixth of that. Under redis: 34-42 us.
	 */
	.run_cost = 250.0,
	.instead = "CPU time per process from /proc/PID/stat",
};
