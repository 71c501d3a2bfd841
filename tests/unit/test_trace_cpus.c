// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user side of the per-CPU tools on a host of many CPUs, here: in a mount
 * namespace of its own, /sys/devices/system/cpu/possible reads "0-191", so
 * libbpf_num_possible_cpus(), which sizes every per-CPU buffer sonde reads,
 * says 192 while the kernel fills its own CPUs' values (the rest stay zero).
 * hardirqs' collect over a full map (1,024 handlers) must stay within a few
 * MiB: it kept every handler's per-CPU values, 1,024 x 192 x 272 bytes (53 MB
 * of RSS at 192 CPUs, 285 MB at 1,024). softirqs' output names the CPUs that
 * ran a type, no others. Needs root (a mount namespace, BPF): else a skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/trace.h"
#include "util/json.h"
#include "tap.h"

#define FAKE_CPUS 192
#define HANDLERS 1024

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* /sys/devices/system/cpu/possible says 0-(n-1) for this process only. 0 or why not. */
static const char *fake_possible(int n)
{
	char path[] = "/tmp/sonde-possible.XXXXXX", text[32];
	int fd, len, err = 0;

	if (geteuid())
		return "needs root (a mount namespace, BPF maps)";
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return "no private mount namespace here";
	fd = mkstemp(path);
	if (fd < 0)
		return "no temporary file";
	len = snprintf(text, sizeof(text), "0-%d\n", n - 1);
	if (write(fd, text, (size_t)len) != len ||
	    mount(path, "/sys/devices/system/cpu/possible", NULL, MS_BIND, NULL))
		err = 1;
	close(fd);
	unlink(path); /* the bind mount keeps the file */
	return err ? "cannot bind a file over /sys/devices/system/cpu/possible" : NULL;
}

/* The tool opened and loaded (not attached), or NULL with why. */
static void *load_tool(const char *name, struct bpf_object **obj, const char **why)
{
	const struct trace_tool *tool = trace_tool__find(name);
	void *skel = tool ? tool->open(obj) : NULL;

	if (!skel) {
		*why = "the tool does not open";
		return NULL;
	}
	if (bpf_object__load(*obj)) {
		*why = "the tool does not load here (BTF, program types)";
		tool->destroy(skel);
		return NULL;
	}
	return skel;
}

/*
 * hardirqs with every key of its map used: handler k ran k + 1 times on CPU 0
 * and once on CPU 1 (the kernel's CPUs), for 1,000 ns a run.
 */
static void test_hardirqs(void)
{
	const struct trace_tool *tool = trace_tool__find("hardirqs");
	struct trace_run t = { .tool = tool };
	struct json j = { 0 };
	const char *why = NULL, *top, *first;
	struct bpf_map *m;
	char key[64], *val;
	size_t stride;
	long before;
	int fd, err;

	t.skel = load_tool("hardirqs", &t.obj, &why);
	if (!t.skel) {
		printf("ok %d # SKIP hardirqs: %s\n", ++tap_n, why);
		return;
	}
	m = bpf_object__find_map_by_name(t.obj, "irqs");
	fd = bpf_map__fd(m);
	stride = (bpf_map__value_size(m) + 7) / 8 * 8;
	val = calloc(FAKE_CPUS, stride);
	if (!val || bpf_map__key_size(m) > sizeof(key))
		abort();
	for (uint32_t k = 0; k < HANDLERS; k++) {
		uint64_t v[2] = { k + 1, 1000ull * (k + 1) }, one[2] = { 1, 1000 };

		memset(key, 0, sizeof(key));
		memcpy(key, &k, sizeof(k));
		snprintf(key + 4, 32, "eth0-TxRx-%u", k);
		memcpy(val, v, sizeof(v));
		memcpy(val + stride, one, sizeof(one));
		if (bpf_map_update_elem(fd, key, val, BPF_ANY))
			break;
	}
	before = max_rss_kb();
	json__begin_object(&j);
	err = tool->collect(&t, &j);
	json__end_object(&j);
	is_int(err, 0, "hardirqs: collect over %d handlers at %d possible CPUs", HANDLERS, FAKE_CPUS);
	ok(max_rss_kb() - before < 8 * 1024,
	   "hardirqs: the collect's peak RSS grew %ld KiB (at most 8 MiB; every handler's per-CPU "
	   "values would be %zu KiB)",
	   max_rss_kb() - before, (size_t)HANDLERS * FAKE_CPUS * stride / 1024);
	ok(j.out.buf && strstr(j.out.buf, "\"irqs_seen\":1024,"), "hardirqs: irqs_seen 1024");
	top = j.out.buf ? strstr(j.out.buf, "\"irqs\":[{") : NULL;
	first = "\"irqs\":[{\"irq\":1023,\"name\":\"eth0-TxRx-1023\",\"count\":1025,\"total_ns\":1025000,";
	ok(top && !strncmp(top, first, strlen(first)),
	   "hardirqs: the handler with the most time first, its sum over the CPUs");
	ok(top && strstr(top, "\"cpus\":[{\"cpu\":0,\"count\":1024,\"total_ns\":1024000},"
			      "{\"cpu\":1,\"count\":1,\"total_ns\":1000}]"),
	   "hardirqs: a handler's CPUs, those that ran it only");
	ok(j.out.buf && strstr(j.out.buf, "\"cpus\":[{\"cpu\":0,\"count\":524800,"),
	   "hardirqs: every handler's time per CPU");
	strbuf__free(&j.out);
	free(val);
	tool->destroy(t.skel);
}

/* softirqs: NET_RX ran on CPU 1 only */
static void test_softirqs(void)
{
	const struct trace_tool *tool = trace_tool__find("softirqs");
	struct trace_run t = { .tool = tool };
	struct json j = { 0 };
	const char *why = NULL;
	struct bpf_map *m;
	uint32_t vec = 3;
	size_t stride;
	char *val;
	int err;

	t.skel = load_tool("softirqs", &t.obj, &why);
	if (!t.skel) {
		printf("ok %d # SKIP softirqs: %s\n", ++tap_n, why);
		return;
	}
	m = bpf_object__find_map_by_name(t.obj, "vecs");
	stride = (bpf_map__value_size(m) + 7) / 8 * 8;
	val = calloc(FAKE_CPUS, stride);
	if (!val)
		abort();
	((uint64_t *)(val + stride))[0] = 90000;
	((uint64_t *)(val + stride))[1] = 450000000;
	bpf_map_update_elem(bpf_map__fd(m), &vec, val, BPF_ANY);
	json__begin_object(&j);
	err = tool->collect(&t, &j);
	json__end_object(&j);
	is_int(err, 0, "softirqs: collect at %d possible CPUs", FAKE_CPUS);
	ok(j.out.buf && strstr(j.out.buf, "{\"vec\":3,\"name\":\"NET_RX\",\"count\":90000,"
					  "\"total_ns\":450000000,") &&
		   strstr(j.out.buf, "\"cpus\":[{\"cpu\":1,\"count\":90000,\"total_ns\":450000000}]}"),
	   "softirqs: NET_RX on CPU 1, no other CPU listed");
	strbuf__free(&j.out);
	free(val);
	tool->destroy(t.skel);
}

int main(void)
{
	const char *why = fake_possible(FAKE_CPUS);

	if (why) {
		printf("1..0 # SKIP %s\n", why);
		return 0;
	}
	libbpf_set_print(NULL);
	is_int(libbpf_num_possible_cpus(), FAKE_CPUS, "libbpf sees %d possible CPUs", FAKE_CPUS);
	test_hardirqs();
	test_softirqs();
	return tap_done();
}
