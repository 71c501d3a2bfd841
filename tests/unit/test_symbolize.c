// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbolizer on ELF files built here with cc: PIE and not, with .symtab
 * and stripped (only .dynsym left), a process snapshotted and then gone, a
 * process never seen, a JIT map, and kallsyms (real, and hidden by
 * kptr_restrict). And what a hostile local user can do to a root sonde
 * (issue 18, items 2 and 3): a FIFO, a link, another user's file or a 200 GB
 * sparse file as /tmp/perf-PID.map, and an ELF file cut short while the
 * symbolizer reads it. And (issue 27, item 6) a program whose header claims
 * 8 million sections: libelf's elf_begin allocated an entry for each (2 GB)
 * before the symbolizer could look at one.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf/symbolize.h"
#include "tap.h"

static char dir[] = "/tmp/sonde-test-sym.XXXXXX";

static const char prog[] =
	"#include <stdio.h>\n#include <unistd.h>\n"
	"__attribute__((noinline)) int sonde_test_global(int x) { return x * 3 + 1; }\n"
	"__attribute__((noinline)) static int sonde_test_static(int x) { return x * 5 + 2; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%lx %lx\\n\", (unsigned long)&sonde_test_global, (unsigned long)&sonde_test_static);\n"
	"  fflush(stdout);\n"
	"  while (read(0, &c, 1) > 0) ;\n"
	"  return sonde_test_static(sonde_test_global(1)) == 0;\n}\n";

struct child {
	pid_t pid;
	int in, out;
	unsigned long global, stat;
};

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		printf("# command failed (%d): %s\n", rc, cmd);
	return rc;
}

/* Start bin; it prints its functions' run-time addresses and waits for stdin to close. */
static int spawn(const char *bin, struct child *c)
{
	int to[2], from[2];
	FILE *f;

	if (pipe(to) || pipe(from))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	f = fdopen(from[0], "r");
	if (!f || fscanf(f, "%lx %lx", &c->global, &c->stat) != 2) {
		if (f)
			fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static void reap(struct child *c)
{
	close(c->in);
	waitpid(c->pid, NULL, 0);
}

static void one_binary(const char *name, const char *flags, int strip)
{
	char bin[256], cmd[1024];
	struct symbolizer *s = symbolizer__new();
	struct child c;
	enum sym_why w;
	const char *got;

	snprintf(bin, sizeof(bin), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -fno-omit-frame-pointer -rdynamic -Wl,--build-id=sha1 %s -o %s %s/prog.c%s%s",
		 flags, bin, dir, strip ? " && strip --strip-all " : "", strip ? bin : "");
	if (sh(cmd) || spawn(bin, &c)) {
		ok(0, "%s: built and started", name);
		symbolizer__free(s);
		return;
	}
	/* a few bytes in: the address of a sample inside the function, not its entry */
	got = symbolizer__user(s, c.pid, c.global + 2, &w);
	is_str(got, "sonde_test_global", "%s: exported function named (%s)", name,
	       strip ? ".dynsym" : ".symtab");
	got = symbolizer__user(s, c.pid, c.stat + 2, &w);
	if (strip) {
		is_str(got, SYM_UNKNOWN, "%s: static function without .symtab is [unknown], not "
					 "its neighbour", name);
		is_int(w, SYM_NO_SYMBOL, "%s: ... because no symbol covers it", name);
	} else {
		is_str(got, "sonde_test_static", "%s: static function named from .symtab", name);
	}
	/* snapshotted, then gone: still named from the snapshot and the file on disk */
	reap(&c);
	got = symbolizer__user(s, c.pid, c.global + 2, &w);
	is_str(got, "sonde_test_global", "%s: named after the process exited (snapshot)", name);
	symbolizer__free(s);
}

static void gone_and_jit(void)
{
	char bin[256], jit[64];
	struct symbolizer *s = symbolizer__new();
	struct symbolizer_stats st;
	struct child c;
	enum sym_why w;
	FILE *f;

	snprintf(bin, sizeof(bin), "%s/pie", dir);
	if (spawn(bin, &c)) {
		ok(0, "started");
		return;
	}
	reap(&c);
	is_str(symbolizer__user(s, c.pid, c.global, &w), SYM_UNKNOWN,
	       "a process never snapshotted and gone: [unknown]");
	is_int(w, SYM_PROC_GONE, "... counted as process_exited");
	symbolizer__stats(s, &st);
	is_int(st.unknown[SYM_PROC_GONE], 1, "the unknown frame is counted");
	symbolizer__free(s);

	/* a JIT: an address in no file mapping, named by /tmp/perf-PID.map */
	s = symbolizer__new();
	if (spawn(bin, &c)) {
		ok(0, "started");
		return;
	}
	snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", c.pid);
	f = fopen(jit, "w");
	if (f) {
		fprintf(f, "10000 100 LazyCompile:~hot_loop app.js:12\n20000 80 Stub:other\n");
		fclose(f);
	}
	is_str(symbolizer__user(s, c.pid, 0x10040, &w), "LazyCompile:~hot_loop app.js:12",
	       "JIT address named from /tmp/perf-PID.map");
	is_str(symbolizer__user(s, c.pid, 0x30000, &w), SYM_UNKNOWN,
	       "an address in no mapping nor JIT entry is [unknown]");
	is_int(w, SYM_NO_MAPPING, "... as no_mapping");
	unlink(jit);
	reap(&c);
	symbolizer__free(s);
}

/* ---- a hostile /tmp/perf-PID.map (item 2) ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - the symbolizer blocked on the perf map (10 s)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static const char jit_lines[] = "10000 100 LazyCompile:~hot_loop app.js:12\n";

/* Plant what make() makes as /tmp/perf-PID.map of a live process; the JIT address must stay unnamed. */
static void planted(const char *what, int (*make)(const char *path), int named)
{
	char bin[256], jit[64];
	struct symbolizer *s = symbolizer__new();
	struct child c;
	enum sym_why w;
	double t0;
	const char *got;

	snprintf(bin, sizeof(bin), "%s/pie", dir);
	if (spawn(bin, &c)) {
		ok(0, "%s: started", what);
		symbolizer__free(s);
		return;
	}
	snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", c.pid);
	unlink(jit);
	if (make(jit)) {
		printf("ok %d # SKIP %s: cannot make it here (%s)\n", ++tap_n, what, strerror(errno));
		unlink(jit);
		reap(&c);
		symbolizer__free(s);
		return;
	}
	signal(SIGALRM, on_alarm);
	alarm(10);
	t0 = now_s();
	got = symbolizer__user(s, c.pid, 0x10040, &w);
	alarm(0);
	ok(now_s() - t0 < 5, "%s: the snapshot returns at once (%.2f s)", what, now_s() - t0);
	if (named)
		is_str(got, "LazyCompile:~hot_loop app.js:12", "%s: its entries before the cap are used",
		       what);
	else
		is_str(got, SYM_UNKNOWN, "%s: not read", what);
	unlink(jit);
	reap(&c);
	symbolizer__free(s);
}

static int write_map(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(jit_lines, f);
	return fclose(f);
}

static int make_fifo(const char *path)
{
	return mkfifo(path, 0644);
}

static int make_link(const char *path)
{
	char target[300];

	snprintf(target, sizeof(target), "%s/elsewhere.map", dir);
	return write_map(target) || symlink(target, path);
}

static int make_foreign(const char *path)
{
	/* another user's file (nobody's): only root can give one away */
	if (geteuid()) {
		errno = EPERM;
		return -1;
	}
	return write_map(path) || chown(path, 65534, 65534);
}

static int make_sparse(const char *path)
{
	/* real entries first, then 200 GB of holes: read up to the cap only */
	return write_map(path) || truncate(path, 200LL << 30);
}

static void hostile_jit_maps(void)
{
	planted("a FIFO as the perf map", make_fifo, 0);
	planted("a symbolic link as the perf map", make_link, 0);
	planted("another user's perf map", make_foreign, 0);
	planted("a 200 GB sparse perf map", make_sparse, 1);
	planted("the process's own perf map", write_map, 1);
}

/* ---- an ELF file cut short under the symbolizer (item 3) ---- */

/*
 * The attacker's move, from inside the reads: once the symbolizer has the
 * victim open (an mmap of it, or its first pread), the file is cut to 0
 * bytes. Through a mapping, the next access would be SIGBUS; through
 * pread, a short read. These wrappers take the place of libc's for libelf.
 */
static char victim_path[300];
static dev_t victim_dev;
static ino_t victim_ino;
static int victim_armed;

static void cut_victim(int fd)
{
	struct stat st;

	if (!victim_armed || fd < 0 || fstat(fd, &st) || st.st_dev != victim_dev ||
	    st.st_ino != victim_ino)
		return;
	victim_armed = 0;
	if (truncate(victim_path, 0))
		printf("# truncate %s: %s\n", victim_path, strerror(errno));
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	void *m;

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	m = real(addr, len, prot, flags, fd, off);
	if (m != MAP_FAILED)
		cut_victim(fd);
	return m;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	ssize_t r;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	r = real(fd, buf, n, off);
	cut_victim(fd);
	return r;
}

static void truncated_elf(void)
{
	char src[300], cmd[700];
	struct stat st;
	pid_t pid;
	int status = 0, fd;
	void *m;

	snprintf(src, sizeof(src), "%s/pie", dir);
	snprintf(victim_path, sizeof(victim_path), "%s/victim.so", dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, victim_path);
	if (sh(cmd) || (fd = open(victim_path, O_RDONLY)) < 0 || fstat(fd, &st)) {
		ok(0, "a copy of an ELF file to cut short");
		return;
	}
	/* mapped executable, as a library is: the symbolizer finds it in /proc/self/maps */
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		printf("ok %d # SKIP cannot map a file executable in %s (%s)\n", ++tap_n, dir,
		       strerror(errno));
		return;
	}
	victim_dev = st.st_dev;
	victim_ino = st.st_ino;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct symbolizer *s = symbolizer__new();
		enum sym_why w = SYM_OK;

		victim_armed = 1;
		symbolizer__user(s, getpid(), (uint64_t)(uintptr_t)m + 0x1000, &w);
		symbolizer__free(s);
		_exit(victim_armed ? 3 : w == SYM_FILE_UNREADABLE || w == SYM_NO_SYMBOL ? 0 : 4);
	}
	waitpid(pid, &status, 0);
	ok(!WIFSIGNALED(status), "an ELF file cut short while read: sonde survives (%s)",
	   WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no signal");
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "... the file was cut under it, and its frames are unknown, not guessed");
	munmap(m, (size_t)st.st_size);
}

/*
 * A copy of the pie program whose ELF header claims nsec sections (extended
 * numbering: e_shnum 0 and section 0's sh_size), its table past the end of
 * the file, which is made that long and sparse: 8 KB on disk. The kernel
 * runs it (it reads no section header).
 */
static int claim_sections(const char *path, uint64_t nsec)
{
	unsigned char h[64], s0[64] = { 0 };
	uint16_t zero16 = 0;
	struct stat st;
	uint64_t shoff;
	int fd = open(path, O_RDWR), err = 0;

	if (fd < 0 || fstat(fd, &st) || pread(fd, h, sizeof(h), 0) != sizeof(h) ||
	    h[EI_CLASS] != ELFCLASS64) {
		err = -1;
		goto out;
	}
	shoff = ((uint64_t)st.st_size + 4095) & ~4095ull;
	memcpy(s0 + 32, &nsec, 8);
	if (pwrite(fd, &shoff, 8, 40) != 8 || pwrite(fd, &zero16, 2, 60) != 2 ||
	    pwrite(fd, &zero16, 2, 62) != 2 || pwrite(fd, s0, sizeof(s0), (off_t)shoff) != 64 ||
	    ftruncate(fd, (off_t)(shoff + nsec * 64)))
		err = -1;
out:
	if (fd >= 0)
		close(fd);
	return err;
}

static void section_bomb(void)
{
	char bin[256], cmd[700];
	int pfd[2];
	struct child c;
	pid_t pid;
	long grew = -1;
	int w = -1, status;

	snprintf(bin, sizeof(bin), "%s/bomb", dir);
	snprintf(cmd, sizeof(cmd), "cp %s/pie %s", dir, bin);
	if (sh(cmd) || claim_sections(bin, 8000000) || spawn(bin, &c) || pipe(pfd)) {
		ok(0, "a program claiming 8 million sections: built and started");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct symbolizer *s = symbolizer__new();
		struct rusage r0, r1;
		enum sym_why why = SYM_OK;
		long out[2];

		getrusage(RUSAGE_SELF, &r0);
		symbolizer__user(s, c.pid, c.global + 2, &why);
		getrusage(RUSAGE_SELF, &r1);
		out[0] = r1.ru_maxrss - r0.ru_maxrss;
		out[1] = why;
		if (write(pfd[1], out, sizeof(out)) != sizeof(out))
			_exit(1);
		symbolizer__free(s);
		_exit(0);
	}
	close(pfd[1]);
	{
		long in[2];

		if (read(pfd[0], in, sizeof(in)) == sizeof(in)) {
			grew = in[0];
			w = (int)in[1];
		}
	}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	reap(&c);
	ok(grew >= 0 && grew < 64 * 1024, "8 million sections claimed: the symbolizer's peak RSS grew "
					  "%ld KiB (under 64 MiB)", grew);
	is_int(w, SYM_FILE_UNREADABLE, "... and its frames are unknown as file_unreadable");
	unlink(bin);
}

static void kernel(void)
{
	char path[300];
	struct symbolizer *s;
	enum sym_why w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	fprintf(f, "ffffffff81000000 T _stext\nffffffff81000100 t do_one\n"
		   "ffffffff81000200 D some_data\nffffffff81000300 T do_two\t[mymod]\n");
	fclose(f);
	s = symbolizer__new();
	is_int(symbolizer__kernel_load(s, path), 0, "kallsyms read");
	is_str(symbolizer__kernel(s, 0xffffffff81000150, &w), "do_one", "kernel address named");
	is_str(symbolizer__kernel(s, 0xffffffff81000250, &w), "do_one",
	       "data symbols are not frames: the text symbol before holds the address");
	is_str(symbolizer__kernel(s, 0xffffffff81000310, &w), "do_two", "module symbol named");
	is_str(symbolizer__kernel(s, 0xffffffff80000000, &w), SYM_UNKNOWN,
	       "below the first symbol: [unknown]");
	symbolizer__free(s);

	f = fopen(path, "w");
	fprintf(f, "0000000000000000 T _stext\n0000000000000000 t do_one\n");
	fclose(f);
	s = symbolizer__new();
	ok(symbolizer__kernel_load(s, path) == -EPERM, "kallsyms with zero addresses: refused");
	ok(strstr(symbolizer__kernel_why(s), "kptr_restrict") != NULL,
	   "the reason names kptr_restrict: %s", symbolizer__kernel_why(s));
	is_str(symbolizer__kernel(s, 0xffffffff81000150, &w), SYM_UNKNOWN,
	       "kernel frames are [unknown] then");
	is_int(w, SYM_KERNEL_HIDDEN, "... as kernel_hidden");
	symbolizer__free(s);

	s = symbolizer__new();
	if (!symbolizer__kernel_load(s, NULL)) {
		char want[128];

		/* the address of a symbol this kernel surely has, from the same file */
		unsigned long long a = 0;
		FILE *k = fopen("/proc/kallsyms", "r");
		char line[512];

		while (k && fgets(line, sizeof(line), k))
			if (sscanf(line, "%llx %*s %127s", &a, want) == 2 &&
			    !strcmp(want, "schedule"))
				break;
		if (k)
			fclose(k);
		is_str(symbolizer__kernel(s, a + 1, &w), "schedule",
		       "this kernel's schedule() named from /proc/kallsyms");
	} else {
		printf("ok %d # SKIP /proc/kallsyms: %s\n", ++tap_n, symbolizer__kernel_why(s));
	}
	symbolizer__free(s);
}

/* The tracer's frames the stack readers (perf/stacks.c, trace/klockstat.c) cut. */
static void tracer_frames(void)
{
	static const char *const tracer[] = {
		"bpf_prog_6deef7357e7b4530_handle_sched_switch", "bpf_trace_run4",
		"__bpf_trace_sched_switch", "trace_call_bpf", "perf_trace_sched_switch",
		"__traceiter_sched_switch", "trace_contention_begin",
	};
	static const char *const workload[] = {
		"__schedule", "schedule", "mutex_lock", "bpf_map_lookup_elem", "trace_call",
		"trace_call_bpf_x", "_raw_spin_lock", "[unknown]", "",
	};
	int all = 1, none = 1;

	for (size_t i = 0; i < sizeof(tracer) / sizeof(*tracer); i++)
		all &= symbolizer__tracer_frame(tracer[i]);
	for (size_t i = 0; i < sizeof(workload) / sizeof(*workload); i++)
		none &= !symbolizer__tracer_frame(workload[i]);
	ok(all, "the tracer's frames (BPF program, trampolines, tracepoint iterators) are cut");
	ok(none, "the workload's frames, bpf helpers and a name only starting alike are not");
}

int main(void)
{
	char src[300], cmd[400];
	FILE *f;

	if (!mkdtemp(dir) || system("command -v cc >/dev/null && command -v strip >/dev/null "
				    "&& command -v readelf >/dev/null")) {
		printf("1..0 # SKIP needs cc, strip and readelf (binutils)\n");
		return 0;
	}
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	f = fopen(src, "w");
	fputs(prog, f);
	fclose(f);
	one_binary("pie", "-fPIE -pie", 0);
	one_binary("nopie", "-fno-pie -no-pie", 0);
	one_binary("pie-stripped", "-fPIE -pie", 1);
	one_binary("nopie-stripped", "-fno-pie -no-pie", 1);
	gone_and_jit();
	hostile_jit_maps();
	truncated_elf();
	section_bomb();
	kernel();
	tracer_frames();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	return tap_done();
}
