// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbolizer on ELF files built here with cc: PIE and not, with .symtab
 * and stripped (only .dynsym left), a process snapshotted and then gone, a
 * process never seen, a JIT map, and kallsyms (real, and hidden by
 * kptr_restrict).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
	kernel();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	return tap_done();
}
