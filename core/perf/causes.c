// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Causes of incomplete stacks and unknown frames, with remedies (causes.h).
 *
 * The package of a file comes from dpkg's own lists, read directly rather
 * than by running dpkg-query: no child process in the collector, no shell
 * quoting of a path a user chose, and one pass over the lists answers every
 * path of the profile at once (~1,000 small files on a Debian host).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/causes.h"
#include "util/clock.h"

static const char *const keys[CAUSE_NR] = {
	[CAUSE_NO_FRAME_POINTERS] = "no_frame_pointers",
	[CAUSE_STACK_COPY_END] = "stack_deeper_than_copy",
	[CAUSE_NO_CFI] = "no_unwind_table",
	[CAUSE_CFI_BROKEN] = "unwind_table_led_nowhere",
	[CAUSE_JIT] = "jit_without_perf_map",
	[CAUSE_INTERPRETER] = "interpreter_without_perf_map",
	[CAUSE_PROCESS_EXITED] = "process_exited",
	[CAUSE_STRIPPED] = "stripped",
	[CAUSE_UNREADABLE] = "file_unreadable",
	[CAUSE_LOST_STACK] = "user_stack_lost",
	[CAUSE_UNWIND_BUDGET] = "unwind_over_budget",
	[CAUSE_TABLES_TOO_LARGE] = "unwind_tables_too_large",
};

const char *causes__key(enum cause_kind k)
{
	return k < CAUSE_NR ? keys[k] : "?";
}

enum cause_kind causes__of_stack(int cfi, const char *stop, enum sym_why outer_why)
{
	stop = stop ? stop : "";
	/* what sonde refused to do first: the file's own state does not explain these */
	if (cfi && !strncmp(stop, "over_", 5))
		return CAUSE_UNWIND_BUDGET;
	if (cfi && !strcmp(stop, "tables_too_large"))
		return CAUSE_TABLES_TOO_LARGE;
	if (!strcmp(stop, "lost_stack"))
		return CAUSE_LOST_STACK;
	if (outer_why == SYM_PROC_GONE || !strcmp(stop, "process_exited"))
		return CAUSE_PROCESS_EXITED;
	if (outer_why == SYM_NO_MAPPING || !strcmp(stop, "no_module"))
		return CAUSE_JIT;
	if (outer_why == SYM_FILE_UNREADABLE || !strcmp(stop, "file_unreadable"))
		return CAUSE_UNREADABLE;
	if (!cfi)
		return CAUSE_NO_FRAME_POINTERS;
	if (!strcmp(stop, "stack_copy_end"))
		return CAUSE_STACK_COPY_END;
	if (!strcmp(stop, "no_cfi"))
		return CAUSE_NO_CFI;
	return CAUSE_CFI_BROKEN;
}

int causes__of_frame(enum sym_why w)
{
	switch (w) {
	case SYM_NO_SYMBOL:
		return CAUSE_STRIPPED;
	case SYM_FILE_UNREADABLE:
		return CAUSE_UNREADABLE;
	case SYM_NO_MAPPING:
		return CAUSE_JIT;
	case SYM_PROC_GONE:
		return CAUSE_PROCESS_EXITED;
	default:
		return -1;
	}
}

const char *causes__runtime(const char *comm, const char *folded)
{
	comm = comm ? comm : "";
	folded = folded ? folded : "";
	if (!strncmp(comm, "python", 6) || strstr(folded, "_PyEval_EvalFrame"))
		return "python";
	if (!strcmp(comm, "java") || strstr(folded, "JavaThread") || strstr(folded, "JVM_"))
		return "java";
	if (!strcmp(comm, "node") || strstr(folded, "v8::") || strstr(folded, "node::"))
		return "node";
	return NULL;
}

static const char *runtime_flag(const char *runtime)
{
	if (!runtime)
		return "if it is a JIT runtime, make it write a perf map (/tmp/perf-PID.map), which "
		       "sonde reads; otherwise a frame-pointer walk went astray (see the other causes)";
	if (!strcmp(runtime, "python"))
		return "Python 3.12+: run it with -X perf (or PYTHONPERFSUPPORT=1) so it writes "
		       "/tmp/perf-PID.map; older Pythons cannot";
	if (!strcmp(runtime, "java"))
		return "Java: -XX:+PreserveFramePointer and a perf map (perf-map-agent, or "
		       "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit on JDK 17+)";
	return "Node.js: run it with --perf-basic-prof (or --perf-basic-prof-only-functions)";
}

/* Debian ships glibc's debug files as libc6-dbg in the main archive, not as a -dbgsym. */
static void debug_package(const char *pkg, const char *release, char *buf, size_t n)
{
	if (!strcmp(pkg, "libc6") || !strcmp(pkg, "libc-bin"))
		snprintf(buf, n, "libc6-dbg (main archive)");
	else
		snprintf(buf, n, "%s-dbgsym (Debian's debug archive: deb http://deb.debian.org/"
			 "debian-debug/ %s-debug main)", pkg, release && *release ? release : "<release>");
}

void causes__remedy(enum cause_kind k, const char *where, const char *pkg, const char *runtime,
		    const char *cfi, const char *release, char *buf, size_t n)
{
	char dbg[200];

	where = where && *where ? where : "?";
	if (pkg && *pkg)
		debug_package(pkg, release, dbg, sizeof(dbg));
	switch (k) {
	case CAUSE_NO_FRAME_POINTERS:
		if (cfi && *cfi)
			snprintf(buf, n, "%s has no frame pointers and sonde's CFI unwinding did not "
				 "cover this sample (%s): rebuild it with -fno-omit-frame-pointer", where,
				 cfi);
		else
			snprintf(buf, n, "%s has no frame pointers and sonde's CFI unwinding did not "
				 "cover this sample (no stack copy kept for it): rebuild it with "
				 "-fno-omit-frame-pointer", where);
		break;
	case CAUSE_STACK_COPY_END:
		snprintf(buf, n, "the stack is deeper than the %d bytes sonde copies per sample: the "
			 "outer frames are not in the copy (deep recursion or large stack frames); "
			 "nothing to install", 8192);
		break;
	case CAUSE_NO_CFI:
		if (pkg && *pkg)
			snprintf(buf, n, "%s has no unwind table (.eh_frame) for this code: install %s "
				 "(its .debug_frame), or rebuild with -fasynchronous-unwind-tables",
				 where, dbg);
		else
			snprintf(buf, n, "%s has no unwind table (.eh_frame) for this code: rebuild it "
				 "with -fasynchronous-unwind-tables (or with frame pointers)", where);
		break;
	case CAUSE_CFI_BROKEN:
		snprintf(buf, n, "the unwind tables of %s led to a frame outside the copied stack "
			 "(hand-written assembly without tables, a signal frame, or a corrupt stack)",
			 where);
		break;
	case CAUSE_JIT:
		snprintf(buf, n, "JIT code of %s without a perf map: %s", where, runtime_flag(runtime));
		break;
	case CAUSE_INTERPRETER:
		snprintf(buf, n, "%s's interpreted functions show as the interpreter's own frames: %s",
			 where, runtime_flag(runtime));
		break;
	case CAUSE_PROCESS_EXITED:
		snprintf(buf, n, "process exited before symbolization: %s started and ended between "
			 "two reads of its maps (1 s apart); nothing to install, a longer run of it is "
			 "profiled whole", where);
		break;
	case CAUSE_STRIPPED:
		if (pkg && *pkg)
			snprintf(buf, n, "%s is stripped: install %s", where, dbg);
		else if (pkg)
			snprintf(buf, n, "%s is stripped: find its package (dpkg -S %s; dpkg's lists "
				 "were not all read in sonde's time for them) and install its debug "
				 "symbols (PACKAGE-dbgsym)", where, where);
		else
			snprintf(buf, n, "%s is stripped and no Debian package owns it: keep its symbol "
				 "table, or install its debug file by build-id under /usr/lib/debug", where);
		break;
	case CAUSE_LOST_STACK:
		snprintf(buf, n, "%s: the kernel's stack map did not keep these user stacks (two stacks "
			 "collided in its hash, or it was full) and no stack copy gave them back "
			 "(CFI unwinding off, the copy dropped, or its walk no better): nothing to "
			 "install; a shorter window or a lower SONDE_PROFILE_HZ stores fewer stacks",
			 where);
		break;
	case CAUSE_UNWIND_BUDGET:
		snprintf(buf, n, "the unwind rules of %s cost more to evaluate than sonde's unwind "
			 "budget allows (a sample, a process or the run; see cfi.budget): these samples "
			 "kept their frame-pointer stacks; rebuild it with -fno-omit-frame-pointer, and "
			 "if it is no compiler's output, find out who wrote its tables", where);
		break;
	case CAUSE_TABLES_TOO_LARGE:
		snprintf(buf, n, "%s claims unwind or debug sections larger than sonde reads (%u MiB "
			 "each, read or inflated): not handed to the unwinder, these samples kept "
			 "their frame-pointer stacks; a file that large is crafted or needs its debug "
			 "sections split off (objcopy --only-keep-debug)", where,
			 SYM_MAX_SECTION_BYTES >> 20);
		break;
	case CAUSE_UNREADABLE:
	default:
		snprintf(buf, n, "%s could not be read (deleted or replaced since it was mapped, or "
			 "not ELF): nothing to install", where);
		break;
	}
}

/* /usr-merged twins: /usr/lib/x <-> /lib/x (also bin, sbin, lib64, lib32). */
static int same_file_path(const char *a, const char *b)
{
	static const char *const tops[] = { "/lib/", "/lib64/", "/lib32/", "/bin/", "/sbin/" };
	size_t la = strlen(a), lb = strlen(b);

	if (la == lb)
		return !strcmp(a, b);
	/* twins differ by "/usr" only: every other line of the lists is out here */
	if (la != lb + 4 && lb != la + 4)
		return 0;
	for (int swap = 0; swap < 2; swap++) {
		const char *x = swap ? b : a, *y = swap ? a : b;

		if (!strncmp(x, "/usr/", 5))
			for (size_t i = 0; i < sizeof(tops) / sizeof(*tops); i++)
				if (!strncmp(x + 4, tops[i], strlen(tops[i])) && !strcmp(x + 4, y))
					return 1;
	}
	return 0;
}

/* Trees a Debian package installs programs and libraries into: a path elsewhere (/tmp,
 * /home, a container's root, memfd) is no package's, and its lists are not read for it. */
static int in_package_tree(const char *p)
{
	static const char *const trees[] = { "/usr/", "/lib/", "/lib64/", "/lib32/", "/libx32/",
					     "/bin/", "/sbin/", "/opt/" };

	for (size_t i = 0; i < sizeof(trees) / sizeof(*trees); i++)
		if (!strncmp(p, trees[i], strlen(trees[i])))
			return 1;
	return 0;
}

int causes__dpkg_owners(const char *infodir, const char *const *paths, size_t n, char **owners,
			double budget_s)
{
	DIR *d;
	struct dirent *de;
	size_t left = 0;
	char *line = NULL;
	size_t cap = 0;
	int64_t until = budget_s > 0 ? clock__ns(CLOCK_MONOTONIC) + (int64_t)(budget_s * 1e9) : 0;
	int cut = 0;

	for (size_t i = 0; i < n; i++) {
		owners[i] = NULL;
		if (paths[i] && in_package_tree(paths[i]))
			left++;
	}
	if (!left)
		return 0;
	d = opendir(infodir);
	if (!d)
		return -errno;
	while (left && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char pkg[256];
		int fd;
		FILE *f;

		if (len < 6 || len >= sizeof(pkg) || strcmp(de->d_name + len - 5, ".list"))
			continue;
		/* 1,000 lists, 12 MB here: cheap from the page cache, seconds behind a saturated disk */
		if (until && clock__ns(CLOCK_MONOTONIC) > until) {
			cut = 1;
			break;
		}
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		memcpy(pkg, de->d_name, len - 5);
		pkg[len - 5] = '\0';
		pkg[strcspn(pkg, ":")] = '\0'; /* "libc6:amd64" */
		while (left && getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			for (size_t i = 0; i < n; i++)
				if (!owners[i] && paths[i] && in_package_tree(paths[i]) &&
				    same_file_path(paths[i], line)) {
					owners[i] = strdup(pkg);
					left--;
				}
		}
		fclose(f);
	}
	free(line);
	closedir(d);
	return cut;
}

void causes__add(struct causes *c, enum cause_kind k, const char *where, const char *runtime,
		 uint64_t value)
{
	where = where ? where : "";
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == k && !strcmp(c->v[i].where, where)) {
			c->v[i].value += value;
			return;
		}
	if (c->n >= CAUSES_MAX) {
		where = "[other]";
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].kind == k && !strcmp(c->v[i].where, where)) {
				c->v[i].value += value;
				return;
			}
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct cause *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n] = (struct cause){ k, strdup(where), runtime ? strdup(runtime) : NULL, value };
	if (c->v[c->n].where)
		c->n++;
}

static int by_value(const void *a, const void *b)
{
	const struct cause *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->kind != y->kind ? (int)x->kind - (int)y->kind : strcmp(x->where, y->where);
}

static int path_cause(enum cause_kind k)
{
	return k == CAUSE_STRIPPED || k == CAUSE_NO_CFI || k == CAUSE_NO_FRAME_POINTERS;
}

/* VERSION_CODENAME of /etc/os-release ("bookworm"), or "" (not Debian-like, unreadable). */
static void os_codename(char *buf, size_t n)
{
	FILE *f = fopen("/etc/os-release", "re");
	char line[256];

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VERSION_CODENAME=", 17)) {
			char *v = line + 17;

			v[strcspn(v, "\n")] = '\0';
			if (*v == '"' && strlen(v) >= 2) {
				v++;
				v[strlen(v) - 1] = '\0';
			}
			/* a name, nothing else: it goes into an apt source line */
			if (strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(v))
				snprintf(buf, n, "%s", v);
			break;
		}
	fclose(f);
}

void causes__write(struct causes *c, struct json *j, const char *value_key, uint64_t value_div,
		   const char *cfi, const char *infodir)
{
	const char *paths[CAUSES_TOP] = { 0 };
	char *owners[CAUSES_TOP] = { 0 };
	size_t top;
	char remedy[768], release[64];
	int cut;

	qsort(c->v, c->n, sizeof(*c->v), by_value);
	top = c->n < CAUSES_TOP ? c->n : CAUSES_TOP;
	for (size_t i = 0; i < top; i++)
		if (path_cause(c->v[i].kind) && c->v[i].where[0] == '/')
			paths[i] = c->v[i].where;
	cut = causes__dpkg_owners(infodir ? infodir : "/var/lib/dpkg/info", paths, top, owners,
				  CAUSES_DPKG_BUDGET_S) > 0;
	os_codename(release, sizeof(release));
	json__key(j, "unknown_causes");
	json__begin_array(j);
	for (size_t i = 0; i < top; i++) {
		const struct cause *e = &c->v[i];

		if (!(e->value / value_div))
			continue;
		/* "" where the lists were not all read in time: its owner is unknown, not none */
		causes__remedy(e->kind, e->where,
			       owners[i] ? owners[i] : cut && paths[i] && in_package_tree(paths[i]) ? "" : NULL,
			       e->runtime, cfi, release, remedy, sizeof(remedy));
		json__begin_object(j);
		json__key(j, "cause");
		json__string(j, causes__key(e->kind));
		json__key(j, "where");
		json__string(j, e->where);
		json__key(j, value_key);
		json__int(j, (int64_t)(e->value / value_div));
		json__key(j, "package");
		if (owners[i])
			json__string(j, owners[i]);
		else
			json__null(j);
		json__key(j, "remedy");
		json__string(j, remedy);
		json__end_object(j);
	}
	json__end_array(j);
	for (size_t i = 0; i < top; i++)
		free(owners[i]);
}

void causes__free(struct causes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].where);
		free(c->v[i].runtime);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}
