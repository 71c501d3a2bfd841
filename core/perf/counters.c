// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.counters: system-wide CPU counters per online CPU (perf.h,
 * docs/perf-counters.md).
 *
 * Why two hardware groups and not one: a group is scheduled on the PMU all or
 * nothing, and a group with more events than the PMU has counters is never
 * scheduled at all (it reads running = 0 for the whole window). Many PMUs
 * have four general counters (one of them often held by the NMI watchdog),
 * so the events are split by what is divided by what: cycles with
 * instructions and the stalled cycles (IPC and stall shares need the same
 * cycles), and the LLC and branch events (miss ratios need their own
 * references). The leader is the first event of a group the PMU accepts, so
 * a PMU without stalled-cycle events (most Intel ones) still counts IPC.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/json.h"
#include "util/file.h"
#include "util/refusal.h"
#include "perf/counters.h"

const struct perf_event_spec perf_event_specs[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "count" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, "count" },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1,
	  "count" },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1,
	  "count" },
	/* The generic cache events: the last-level cache on x86 and most ARM PMUs. */
	{ "llc-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 2, "count" },
	{ "llc-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 2, "count" },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 2,
	  "count" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 2, "count" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, "count" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, "count" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, "count" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, "ns" },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, "ns" },
};
const size_t perf_nevents = sizeof(perf_event_specs) / sizeof(perf_event_specs[0]);

#define NGROUPS 3 /* group numbers 0..2 */

static long sys_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* 0, or -errno: the callers want the text or nothing (util/file.h reads it). */
static int read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n = file__read_small(path, buf, cap);

	return n < 0 ? (int)n : 0;
}

static int read_paranoid(void)
{
	char buf[32];

	if (read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return INT32_MIN;
	return atoi(buf);
}

/*
 * Is there a core PMU at all? The CPU's own PMU registers as type
 * PERF_TYPE_RAW (x86 "cpu" or "cpu_core", ARM "armv8_*"); a VM guest without
 * a virtual PMU has only software, tracepoint and breakpoint PMUs.
 */
static int have_core_pmu(void)
{
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3",
					     "armv8_pmuv3_0", NULL };
	char path[128], buf[32];

	for (const char *const *n = names; *n; n++) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", *n);
		if (!read_small(path, buf, sizeof(buf)))
			return 1;
	}
	return 0;
}

/* x86 guests see the "hypervisor" CPUID flag; others have /sys/hypervisor/type. */
static int is_vm_guest(void)
{
	char buf[64];
	FILE *f;
	char line[4096];
	int vm = 0;

	if (!read_small("/sys/hypervisor/type", buf, sizeof(buf)) && buf[0])
		return 1;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			vm = strstr(line, " hypervisor") != NULL;
			break;
		}
	}
	fclose(f);
	return vm;
}

static const char *errno_name(int e)
{
	switch (e) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	case E2BIG: return "E2BIG";
	case ENOSPC: return "ENOSPC";
	default: return "errno";
	}
}

/* Why event spec could not be opened with errno e, in words (with what would allow it). */
static void explain(const struct perf_event_spec *spec, int e, int paranoid, char *why,
		    size_t whylen)
{
	int hw = spec->type != PERF_TYPE_SOFTWARE;

	switch (e) {
	case EOPNOTSUPP:
	case ENOENT:
		if (hw && !have_core_pmu()) {
			if (is_vm_guest())
				snprintf(why, whylen,
					 "%s: not supported (%s): this VM guest has no virtual "
					 "PMU, so no hardware counter exists; the hypervisor must "
					 "expose one (KVM/QEMU: -cpu host,pmu=on or a vPMU-enabled "
					 "CPU model; Firecracker offers none)",
					 spec->name, errno_name(e));
			else
				snprintf(why, whylen,
					 "%s: not supported (%s): the kernel exposes no CPU PMU "
					 "(no /sys/bus/event_source/devices/cpu); a kernel built "
					 "with the CPU's perf driver is needed",
					 spec->name, errno_name(e));
		} else {
			snprintf(why, whylen,
				 "%s: not supported (%s): this CPU's PMU does not provide the "
				 "event", spec->name, errno_name(e));
		}
		break;
	case ENODEV:
		snprintf(why, whylen,
			 "%s: no such device (ENODEV): the CPU is offline or the event's PMU does "
			 "not cover it", spec->name);
		break;
	case EACCES:
	case EPERM: {
		char policy[400];

		if (refusal__policy("perf_event_open", policy, sizeof(policy)))
			snprintf(why, whylen, "%s: refused (%s): %s", spec->name, errno_name(e),
				 policy);
		else if (paranoid == INT32_MIN)
			snprintf(why, whylen,
				 "%s: permission denied (%s): system-wide counting needs "
				 "CAP_PERFMON (or CAP_SYS_ADMIN), and "
				 "/proc/sys/kernel/perf_event_paranoid is unreadable",
				 spec->name, errno_name(e));
		else
			snprintf(why, whylen,
				 "%s: permission denied (%s): perf_event_paranoid is %d; "
				 "system-wide (per-CPU) counting needs CAP_PERFMON (or "
				 "CAP_SYS_ADMIN, e.g. run as root) or perf_event_paranoid <= 0 "
				 "(sonde never changes it)",
				 spec->name, errno_name(e), paranoid);
		break;
	}
	case EMFILE:
	case ENFILE:
		snprintf(why, whylen,
			 "%s: too many open files (%s): one counter per CPU and event needs more "
			 "file descriptors than RLIMIT_NOFILE allows", spec->name, errno_name(e));
		break;
	case EBUSY:
		snprintf(why, whylen,
			 "%s: busy (EBUSY): another user holds the PMU exclusively", spec->name);
		break;
	case EINVAL:
		snprintf(why, whylen,
			 "%s: invalid (EINVAL): this kernel or PMU rejects the event or its group",
			 spec->name);
		break;
	default:
		snprintf(why, whylen, "%s: %s (%s %d)", spec->name, strerror(e), errno_name(e), e);
		break;
	}
}

/* "0-3,8,10-11" -> CPU numbers, at most max. */
static int parse_cpu_list(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a > INT_MAX)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b > INT_MAX)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b && n < max; c++)
			out[n++] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}

static int open_event(const struct perf_event_spec *spec, int cpu, int group_fd, uint64_t *id)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = spec->type;
	attr.config = spec->config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			   PERF_FORMAT_ID | (spec->group ? PERF_FORMAT_GROUP : 0);
	/* Leaders start disabled (enabled together just before the window); members follow. */
	attr.disabled = group_fd < 0;
	fd = sys_perf_event_open(&attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl((int)fd, PERF_EVENT_IOC_ID, id) < 0)
		*id = 0;
	return (int)fd;
}

/* Does names (collector names, NULL-terminated) ask for perf.counters? */
static int perf_counters__wanted(const char *const *names)
{
	for (const char *const *nm = names; nm && *nm; nm++)
		if (!strcmp(*nm, PERF_COLLECTOR))
			return 1;
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int online_cpus(struct perf_counters *pc)
{
	char buf[4096];
	int n, rc;

	rc = read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (rc) {
		snprintf(pc->general, sizeof(pc->general),
			 "cannot read /sys/devices/system/cpu/online: %s", strerror(-rc));
		return rc;
	}
	pc->cpus = calloc(PERF_MAX_CPUS, sizeof(*pc->cpus));
	if (!pc->cpus)
		return -ENOMEM;
	n = parse_cpu_list(buf, pc->cpus, PERF_MAX_CPUS);
	if (n <= 0) {
		snprintf(pc->general, sizeof(pc->general),
			 "/sys/devices/system/cpu/online is not a CPU list: '%.64s'", buf);
		return -EINVAL;
	}
	pc->ncpus = n;
	return 0;
}

int perf_counters__start(struct perf_counters *pc, const char *const *names, const char *raw_dir,
			 const char *disabled, char *err, size_t errlen)
{
	char dir[4200];
	int64_t t0 = mono_ns();
	size_t nslots;

	memset(pc, 0, sizeof(*pc));
	snprintf(pc->raw_dir, sizeof(pc->raw_dir), "%s", raw_dir);
	pc->wanted = perf_counters__wanted(names);
	if (!pc->wanted)
		return 0;
	snprintf(dir, sizeof(dir), "%s/perf", raw_dir);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	pc->disabled = disabled;
	pc->paranoid = read_paranoid();
	if (disabled || online_cpus(pc))
		return 0;
	nslots = (size_t)pc->ncpus * perf_nevents;
	pc->fd = malloc(nslots * sizeof(*pc->fd));
	pc->id = calloc(nslots, sizeof(*pc->id));
	pc->err = calloc(nslots, sizeof(*pc->err));
	if (!pc->fd || !pc->id || !pc->err) {
		snprintf(pc->general, sizeof(pc->general), "out of memory");
		return 0;
	}
	for (size_t i = 0; i < nslots; i++)
		pc->fd[i] = -1;
	for (int c = 0; c < pc->ncpus; c++) {
		int leader[NGROUPS] = { -1, -1, -1 };
		int *fd = &pc->fd[(size_t)c * perf_nevents];

		for (size_t e = 0; e < perf_nevents; e++) {
			const struct perf_event_spec *spec = &perf_event_specs[e];
			size_t slot = (size_t)c * perf_nevents + e;
			int g = spec->group;
			int r = open_event(spec, pc->cpus[c], g ? leader[g] : -1, &pc->id[slot]);

			if (r < 0) {
				pc->err[slot] = -r;
				continue;
			}
			fd[e] = r;
			if (g && leader[g] < 0)
				leader[g] = r;
		}
	}
	/* Enable as late as possible: the window starts right after this returns. */
	for (size_t i = 0; i < nslots; i++) {
		if (pc->fd[i] < 0)
			continue;
		ioctl(pc->fd[i], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	pc->enabled_mono_ns = mono_ns();
	pc->setup_ms = (double)(pc->enabled_mono_ns - t0) / 1e6;
	return 0;
}

/* One counter's reading. */
struct perf_reading {
	int ok;
	uint64_t value, enabled, running;
};

/*
 * Read cpu index c: a group read on each group's leader gives every member,
 * found by id; a software counter reads alone.
 */
static void read_cpu(struct perf_counters *pc, int c, struct perf_reading *out)
{
	const int *fd = &pc->fd[(size_t)c * perf_nevents];
	const uint64_t *id = &pc->id[(size_t)c * perf_nevents];
	int done[NGROUPS] = { 0 };

	for (size_t e = 0; e < perf_nevents; e++) {
		int g = perf_event_specs[e].group;
		uint64_t buf[3 + 2 * 16];
		ssize_t n;

		if (fd[e] < 0 || (g && done[g]))
			continue;
		n = read(fd[e], buf, sizeof(buf));
		if (!g) {
			/* value, enabled, running, id */
			if (n >= (ssize_t)(3 * sizeof(uint64_t))) {
				out[e].ok = 1;
				out[e].value = buf[0];
				out[e].enabled = buf[1];
				out[e].running = buf[2];
			}
			continue;
		}
		/* The first open event of a group is its leader: nr, enabled, running, {value, id}[nr]. */
		done[g] = 1;
		if (n < (ssize_t)(3 * sizeof(uint64_t)))
			continue;
		for (uint64_t k = 0; k < buf[0] && k < 16 && (3 + 2 * k + 1) * 8 < (uint64_t)n;
		     k++) {
			for (size_t m = 0; m < perf_nevents; m++) {
				if (perf_event_specs[m].group != g || fd[m] < 0 ||
				    id[m] != buf[3 + 2 * k + 1])
					continue;
				out[m].ok = 1;
				out[m].value = buf[3 + 2 * k];
				out[m].enabled = buf[1];
				out[m].running = buf[2];
			}
		}
	}
}

static double scaled_of(const struct perf_reading *r)
{
	if (!r->running)
		return 0;
	if (r->running >= r->enabled)
		return (double)r->value;
	return (double)r->value * ((double)r->enabled / (double)r->running);
}

static void write_event(struct json *j, struct perf_counters *pc, size_t e,
			const struct perf_reading *rd)
{
	const struct perf_event_spec *spec = &perf_event_specs[e];
	uint64_t value = 0, enabled = 0, running = 0;
	double scaled = 0;
	int opened = 0, counted = 0, first_err = 0;
	char why[512];

	for (int c = 0; c < pc->ncpus; c++) {
		const struct perf_reading *r = &rd[(size_t)c * perf_nevents + e];

		if (!r->ok) {
			if (!first_err)
				first_err = pc->err[(size_t)c * perf_nevents + e];
			continue;
		}
		opened++;
		if (r->running)
			counted++;
		value += r->value;
		enabled += r->enabled;
		running += r->running;
		scaled += scaled_of(r);
	}
	json__key(j, spec->name);
	json__begin_object(j);
	json__key(j, "kind");
	json__string(j, spec->type == PERF_TYPE_SOFTWARE ? "software" : "hardware");
	json__key(j, "group");
	if (spec->group)
		json__int(j, spec->group);
	else
		json__null(j);
	json__key(j, "unit");
	json__string(j, spec->unit);
	if (!opened) {
		int e2 = first_err ? first_err : EIO;

		json__key(j, "status");
		json__string(j, "unsupported");
		json__key(j, "errno");
		json__string(j, errno_name(e2));
		if (first_err)
			explain(spec, e2, pc->paranoid, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s: the counter could not be read", spec->name);
		json__key(j, "reason");
		json__string(j, why);
		json__end_object(j);
		return;
	}
	json__key(j, "status");
	if (!counted) {
		/* Opened but never on the PMU: a value of 0 here would be a lie. */
		json__string(j, "not_counted");
		json__key(j, "reason");
		snprintf(why, sizeof(why),
			 "%s: opened but never scheduled on the PMU during the window (its group "
			 "needs more counters than are free: another user or the NMI watchdog "
			 "holds some)", spec->name);
		json__string(j, why);
	} else {
		json__string(j, "ok");
		json__key(j, "value");
		json__int(j, (int64_t)value);
		json__key(j, "scaled");
		json__number(j, scaled);
		json__key(j, "running_ratio");
		json__number(j, enabled ? (double)running / (double)enabled : 0);
	}
	json__key(j, "enabled_ns");
	json__int(j, (int64_t)enabled);
	json__key(j, "running_ns");
	json__int(j, (int64_t)running);
	json__key(j, "per_cpu");
	json__begin_array(j);
	for (int c = 0; c < pc->ncpus; c++) {
		const struct perf_reading *r = &rd[(size_t)c * perf_nevents + e];
		int ce = pc->err[(size_t)c * perf_nevents + e];

		json__begin_object(j);
		json__key(j, "cpu");
		json__int(j, pc->cpus[c]);
		if (!r->ok) {
			json__key(j, "status");
			json__string(j, "unsupported");
			json__key(j, "errno");
			json__string(j, errno_name(ce ? ce : EIO));
			explain(spec, ce ? ce : EIO, pc->paranoid, why, sizeof(why));
			json__key(j, "reason");
			json__string(j, why);
		} else {
			json__key(j, "status");
			json__string(j, r->running ? "ok" : "not_counted");
			if (r->running) {
				json__key(j, "value");
				json__int(j, (int64_t)r->value);
				json__key(j, "scaled");
				json__number(j, scaled_of(r));
			}
			json__key(j, "enabled_ns");
			json__int(j, (int64_t)r->enabled);
			json__key(j, "running_ns");
			json__int(j, (int64_t)r->running);
		}
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}

int perf_counters__finish(struct perf_counters *pc, int64_t window_start_mono_ns,
			  int64_t window_end_mono_ns, char *err, size_t errlen)
{
	struct perf_reading *rd = NULL;
	struct json j = { .pretty = 0 };
	char path[4200], reason[512] = "";
	int64_t read_ns;
	int any = 0, rc;
	const char *status;

	if (!pc->wanted)
		return 0;
	if (pc->fd) {
		rd = calloc((size_t)pc->ncpus * perf_nevents, sizeof(*rd));
		if (!rd)
			snprintf(pc->general, sizeof(pc->general), "out of memory");
	}
	if (rd)
		for (int c = 0; c < pc->ncpus; c++)
			read_cpu(pc, c, &rd[(size_t)c * perf_nevents]);
	read_ns = mono_ns();
	perf_counters__destroy(pc);
	if (rd)
		for (size_t i = 0; i < (size_t)pc->ncpus * perf_nevents; i++)
			any |= rd[i].ok && rd[i].running;
	if (pc->disabled) {
		status = "disabled";
		snprintf(reason, sizeof(reason), "%s", pc->disabled);
	} else if (pc->general[0]) {
		status = "failed";
		snprintf(reason, sizeof(reason), "%s", pc->general);
	} else if (!any) {
		/* Say why with the first software event: it is what fails last. */
		size_t sw = 0;

		while (sw < perf_nevents && perf_event_specs[sw].type != PERF_TYPE_SOFTWARE)
			sw++;
		status = "failed";
		if (sw < perf_nevents && pc->err[sw])
			explain(&perf_event_specs[sw], pc->err[sw], pc->paranoid, reason,
				sizeof(reason));
		else
			snprintf(reason, sizeof(reason), "no counter counted during the window");
	} else {
		status = "ok";
	}

	json__begin_object(&j);
	json__key(&j, "schema");
	json__string(&j, "sonde.perf/1");
	json__key(&j, "collector");
	json__string(&j, PERF_COLLECTOR);
	json__key(&j, "status");
	json__string(&j, status);
	if (reason[0]) {
		json__key(&j, "reason");
		json__string(&j, reason);
	}
	json__key(&j, "perf_event_paranoid");
	if (pc->paranoid == INT32_MIN)
		json__null(&j);
	else
		json__int(&j, pc->paranoid);
	json__key(&j, "core_pmu");
	json__bool(&j, have_core_pmu());
	json__key(&j, "vm_guest");
	json__bool(&j, is_vm_guest());
	json__key(&j, "window_s");
	json__number(&j, (double)(window_end_mono_ns - window_start_mono_ns) / 1e9);
	if (rd) {
		json__key(&j, "counted_from_s");
		json__number(&j, (double)(pc->enabled_mono_ns - window_start_mono_ns) / 1e9);
		json__key(&j, "counted_to_s");
		json__number(&j, (double)(read_ns - window_start_mono_ns) / 1e9);
		json__key(&j, "setup_ms");
		json__number(&j, pc->setup_ms);
		json__key(&j, "cpus");
		json__begin_array(&j);
		for (int c = 0; c < pc->ncpus; c++)
			json__int(&j, pc->cpus[c]);
		json__end_array(&j);
		json__key(&j, "events");
		json__begin_object(&j);
		for (size_t e = 0; e < perf_nevents; e++)
			write_event(&j, pc, e, rd);
		json__end_object(&j);
	}
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	snprintf(path, sizeof(path), "%s/perf/counters.json", pc->raw_dir);
	rc = j.out.oom ? -ENOMEM : file__write_all(path, j.out.buf, j.out.len);
	strbuf__free(&j.out);
	free(rd);
	free(pc->cpus);
	free(pc->fd);
	free(pc->id);
	free(pc->err);
	pc->cpus = NULL;
	pc->fd = NULL;
	pc->id = NULL;
	pc->err = NULL;
	pc->wanted = 0;
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc;
}

void perf_counters__destroy(struct perf_counters *pc)
{
	if (!pc->fd)
		return;
	for (size_t i = 0; i < (size_t)pc->ncpus * perf_nevents; i++) {
		if (pc->fd[i] >= 0)
			close(pc->fd[i]);
		pc->fd[i] = -1;
	}
}

int perf_counters__probe(int *sw_ok, char *why, size_t whylen)
{
	const struct perf_event_spec *hw = &perf_event_specs[0], *sw = NULL;
	uint64_t id;
	int fd, paranoid = read_paranoid();

	for (size_t e = 0; e < perf_nevents && !sw; e++)
		if (perf_event_specs[e].type == PERF_TYPE_SOFTWARE)
			sw = &perf_event_specs[e];
	*sw_ok = 0;
	fd = open_event(sw, 0, -1, &id);
	if (fd < 0) {
		explain(sw, -fd, paranoid, why, whylen);
		return fd;
	}
	close(fd);
	*sw_ok = 1;
	fd = open_event(hw, 0, -1, &id);
	if (fd < 0) {
		char w[480];

		explain(hw, -fd, paranoid, w, sizeof(w));
		snprintf(why, whylen, "software counters only; hardware: %s", w);
		return fd;
	}
	close(fd);
	return 0;
}
