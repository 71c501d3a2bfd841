// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host.context: what sos would gather about the host, once, in the first
 * round of every window: the OS release, the kernel command line and taint
 * flags, the loaded modules, the sysctls that matter for performance, the
 * last lines of the kernel log, the cgroup version, the NUMA topology,
 * transparent huge pages and the CPU frequency governor, and the failed
 * systemd units. The kernel version, CPU model and flags and uptime are in
 * the host stream already. Verbatim reads, like every other collector: each
 * tee_* reads the live host and writes what it read into the capture; the
 * report's Host section and sonde diff read the capture back (hostctx_read.c,
 * whose read_* functions parse it).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/hostctx.h"

/* Kernel log records kept (the last ones) and their bytes at most. */
#define KMSG_TAIL 50
#define KMSG_TAIL_BYTES (16u << 10)
/* systemctl's answer: bounded in time and size, it must not hold the window. */
#define SYSTEMCTL_TIMEOUT_MS 2000
#define SYSTEMCTL_MAX_BYTES (64u << 10)

extern char **environ;

/*
 * The sysctl directories read, and which of their files: every file, or
 * those whose name starts with one of the prefixes. Write-only files
 * (vm.drop_caches) are skipped; the TCP Fast Open key is a secret.
 */
static const struct sysctl_dir {
	const char *dir;
	const char *const prefixes[8];
} sysctl_dirs[] = {
	{ "/proc/sys/vm", { "" } },
	{ "/proc/sys/net/core", { "" } },
	{ "/proc/sys/net/ipv4", { "tcp_", "ip_local_port_range", "udp_mem", "udp_rmem_min",
				  "udp_wmem_min" } },
	{ "/proc/sys/kernel", { "sched_", "numa_balancing", "pid_max", "threads-max",
				"nmi_watchdog", "timer_migration", "perf_event_paranoid" } },
	{ "/proc/sys/fs", { "file-max", "nr_open", "aio-max-nr" } },
	{ "/proc/sys/fs/inotify", { "max_user_watches", "max_user_instances" } },
};

static const char *const secret_sysctls[] = { "tcp_fastopen_key", NULL };

static int wanted_sysctl(const struct sysctl_dir *d, const char *name)
{
	for (const char *const *s = secret_sysctls; *s; s++)
		if (!strcmp(name, *s))
			return 0;
	for (size_t i = 0; i < sizeof(d->prefixes) / sizeof(*d->prefixes) && d->prefixes[i]; i++)
		if (!strncmp(name, d->prefixes[i], strlen(d->prefixes[i])))
			return 1;
	return 0;
}

static void tee_sysctls(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	for (size_t i = 0; i < sizeof(sysctl_dirs) / sizeof(*sysctl_dirs); i++) {
		const struct sysctl_dir *d = &sysctl_dirs[i];
		struct strv names = { 0 };
		char path[512], full[4608];
		struct stat sb;

		if (reader__list_dir(rd, d->dir, &names) && !names.n) {
			capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
					      clock__ns(CLOCK_MONOTONIC), d->dir, ENOENT);
			continue;
		}
		for (size_t k = 0; k < names.n; k++) {
			if (!wanted_sysctl(d, names.v[k]))
				continue;
			snprintf(path, sizeof(path), "%s/%s", d->dir, names.v[k]);
			snprintf(full, sizeof(full), "%s%s", cs->root, path);
			/* Not directories, not write-only files (vm.drop_caches). */
			if (stat(full, &sb) || !S_ISREG(sb.st_mode) || !(sb.st_mode & 0444))
				continue;
			reader__tee(rd, w, path, NULL, NULL);
		}
		strv__free(&names);
	}
}

/* The last KMSG_TAIL records of the kernel log (or lines of a stand-in file). */
static void tee_kmsg_tail(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	char full[4096], rec[8192];
	char *ring[KMSG_TAIL] = { 0 };
	size_t head = 0, count = 0, total = 0, first;
	struct strbuf out = { 0 };
	struct stat sb;
	FILE *f = NULL;
	int fd;

	snprintf(full, sizeof(full), "%s/dev/kmsg", cs->root);
	fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "/dev/kmsg", errno);
		return;
	}
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && (f = fdopen(fd, "r")))
		fd = -1;
	for (;;) {
		ssize_t n;

		/* /dev/kmsg: one record per read(), EPIPE when the oldest was overwritten. */
		if (f) {
			if (!fgets(rec, sizeof(rec), f))
				break;
			n = (ssize_t)strlen(rec);
		} else {
			n = read(fd, rec, sizeof(rec) - 1);
			if (n < 0 && (errno == EPIPE || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			rec[n] = '\0';
		}
		free(ring[head]);
		ring[head] = strndup(rec, (size_t)n);
		head = (head + 1) % KMSG_TAIL;
		count += count < KMSG_TAIL;
	}
	/* The newest records that fit the byte bound, written oldest first. */
	for (first = count; first > 0; first--) {
		const char *r = ring[(head + KMSG_TAIL - count + first - 1) % KMSG_TAIL];

		if (!r || total + strlen(r) > KMSG_TAIL_BYTES)
			break;
		total += strlen(r);
	}
	for (size_t i = first; i < count; i++) {
		const char *r = ring[(head + KMSG_TAIL - count + i) % KMSG_TAIL];
		size_t n = strlen(r);

		strbuf__printf(&out, "%s%s", r, n && r[n - 1] == '\n' ? "" : "\n");
	}
	capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
			       "/dev/kmsg", out.buf ? out.buf : "", out.oom ? 0 : out.len,
			       out.oom);
	strbuf__free(&out);
	for (size_t i = 0; i < KMSG_TAIL; i++)
		free(ring[i]);
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
}

int hostctx__spawn_read(struct reader *rd, char *const argv[], int timeout_ms, size_t max_bytes,
			struct strbuf *out, int *truncated)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	char buf[4096];
	int pipefd[2], status, err = 0;
	int64_t deadline;
	pid_t pid;

	*truncated = 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* The window's worker blocks every signal; the child gets the defaults back. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	err = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (err) {
		close(pipefd[0]);
		return err;
	}
	if (rd->lock)
		pthread_mutex_unlock(rd->lock);
	deadline = clock__ns(CLOCK_MONOTONIC) + (int64_t)timeout_ms * 1000000;
	for (;;) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		int64_t left = (deadline - clock__ns(CLOCK_MONOTONIC)) / 1000000;
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			err = ETIMEDOUT;
			kill(pid, SIGKILL);
			break;
		}
		n = read(pipefd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len + (size_t)n > max_bytes) {
			*truncated = 1;
			continue;
		}
		strbuf__append(out, buf, (size_t)n);
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	/* 127: the exec failed (not in PATH); any other failure: its answer is not one. */
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ENOENT : EPROTO;
	return err;
}

/*
 * `systemctl list-units --state=failed`: systemd keeps no file that says
 * which units failed, so this one fact is asked, of the systemctl in PATH,
 * under a deadline. Not on a host that was not booted with systemd.
 */
static void tee_failed_units(struct collector_state *cs, struct reader *rd,
			     struct capture_writer *w)
{
	static char *const argv[] = { "systemctl", "list-units", "--state=failed", "--no-legend",
				      "--plain", "--no-pager", "--full", NULL };
	char full[4096];
	struct strbuf out = { 0 };
	int err, truncated;

	/* sd_booted(): the directory systemd creates at boot; its absence is the answer. */
	snprintf(full, sizeof(full), "%s/run/systemd/system", cs->root);
	if (access(full, F_OK)) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "/run/systemd/system", errno);
		return;
	}
	err = hostctx__spawn_read(rd, argv, SYSTEMCTL_TIMEOUT_MS, SYSTEMCTL_MAX_BYTES, &out,
				  &truncated);
	if (err)
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), HOSTCTX_FAILED_UNITS, err);
	else
		capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME),
				       clock__ns(CLOCK_MONOTONIC), HOSTCTX_FAILED_UNITS,
				       out.buf ? out.buf : "", out.len, truncated || out.oom);
	strbuf__free(&out);
}

/* The NUMA nodes: which CPUs and how much memory each has, and their distances. */
static void tee_numa(struct reader *rd, struct capture_writer *w)
{
	static const char *const files[] = { "cpulist", "distance", "meminfo", NULL };
	struct strv nodes = { 0 };
	struct strbuf list = { 0 };
	char path[512];

	reader__tee(rd, w, "/sys/devices/system/node/online", NULL, NULL);
	if (reader__list_dir(rd, "/sys/devices/system/node", &nodes) && !nodes.n)
		return;
	for (size_t i = 0; i < nodes.n; i++)
		if (!strncmp(nodes.v[i], "node", 4) && nodes.v[i][4] >= '0' && nodes.v[i][4] <= '9')
			strbuf__printf(&list, "%s\n", nodes.v[i]);
	reader__tee_text(rd, w, "/sys/devices/system/node", list.buf ? list.buf : "", list.len);
	for (size_t i = 0; i < nodes.n; i++) {
		if (strncmp(nodes.v[i], "node", 4) || nodes.v[i][4] < '0' || nodes.v[i][4] > '9')
			continue;
		for (const char *const *f = files; *f; f++) {
			snprintf(path, sizeof(path), "/sys/devices/system/node/%s/%s", nodes.v[i],
				 *f);
			reader__tee(rd, w, path, NULL, NULL);
		}
	}
	strbuf__free(&list);
	strv__free(&nodes);
}

int hostctx__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase)
{
	static const char *const files[] = {
		"/etc/os-release", "/usr/lib/os-release", "/proc/cmdline",
		"/proc/sys/kernel/tainted", "/proc/modules",
		"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/unified/cgroup.controllers",
		"/sys/kernel/mm/transparent_hugepage/enabled",
		"/sys/kernel/mm/transparent_hugepage/defrag",
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", NULL,
	};
	struct strv cg = { 0 };
	struct strbuf list = { 0 };

	if (!(phase & PHASE_FIRST))
		return 0;
	for (const char *const *f = files; *f; f++)
		reader__tee(rd, w, *f, NULL, NULL);
	/* cgroup v1 shows as one directory per controller: the listing is the evidence. */
	if (!reader__list_dir(rd, "/sys/fs/cgroup", &cg) || cg.n) {
		for (size_t i = 0; i < cg.n; i++)
			strbuf__printf(&list, "%s\n", cg.v[i]);
		reader__tee_text(rd, w, "/sys/fs/cgroup", list.buf ? list.buf : "", list.len);
	}
	strbuf__free(&list);
	strv__free(&cg);
	tee_numa(rd, w);
	tee_sysctls(cs, rd, w);
	tee_kmsg_tail(cs, rd, w);
	tee_failed_units(cs, rd, w);
	return 0;
}
