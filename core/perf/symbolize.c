// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Addresses to function names (symbolize.h): kallsyms, /proc/PID/maps + ELF
 * symbol tables (libelf), perf JIT maps.
 *
 * User addresses go through the file offset, never through a guessed load
 * base: offset = addr - map.start + map.pgoff, then the PT_LOAD segment that
 * holds that file offset gives the ELF virtual address the symbol tables use.
 * The same arithmetic is right for PIE and non-PIE executables and for shared
 * libraries, whatever the kernel's randomization.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/symbolize.h"

#define MAX_PROCS 8192        /* processes snapshotted; more are SYM_PROC_FULL */
#define MAX_MAPS 4096         /* executable mappings kept per process */
#define MAX_SEGS 32           /* PT_LOAD segments kept per file */
#define MAX_JIT 200000        /* perf map entries per process */
#define MAX_JIT_BYTES (64u << 20) /* bytes of a perf map read (a sparse 200 GB file stops here) */
#define MAX_NOTE_BYTES (64u << 10)
#define PROC_BUCKETS 1024
#define ELF_BUCKETS 256

struct sym {
	uint64_t addr, size;
	uint32_t name; /* offset in the table's strings */
};

struct symtab {
	struct sym *v;
	size_t n;
	char *strings;
};

struct elf_file {
	uint64_t dev, ino;         /* as /proc/PID/maps shows them */
	int err;                   /* -errno when unreadable */
	struct symtab tab;
	struct { uint64_t off, filesz, vaddr; } segs[MAX_SEGS];
	int nsegs;
	char build_id[41];
	struct elf_file *same;     /* same build-id, loaded before: use its table */
	struct elf_file *next;
};

struct map {
	uint64_t start, end, pgoff, dev, ino;
	char *path;
	struct elf_file *elf;      /* loaded on first use */
};

struct proc {
	int tgid;
	enum sym_proc kind;
	int refreshed;             /* maps read again once for an address they missed */
	struct map *maps;
	size_t nmaps;
	struct symtab jit;
	struct proc *next;
};

struct symbolizer {
	struct symtab kern;
	char *kbuf;
	int kloaded;
	char kwhy[256];
	struct proc *procs[PROC_BUCKETS];
	struct elf_file *elves[ELF_BUCKETS];
	struct symbolizer_stats st;
};

/* The JSON keys of unknown_reasons (docs/bpf-tools.md; enum sym_why says what each means). */
static const char *const why_keys[SYM_WHY_NR] = {
	[SYM_OK] = "ok",
	[SYM_KERNEL_HIDDEN] = "kernel_hidden",
	[SYM_KERNEL_NONE] = "kernel_no_symbol",
	[SYM_PROC_GONE] = "process_exited",
	[SYM_NO_MAPPING] = "no_mapping",
	[SYM_FILE_UNREADABLE] = "file_unreadable",
	[SYM_NO_SYMBOL] = "no_symbol",
};

int symbolizer__tracer_frame(const char *name)
{
	static const char *const prefix[] = { "bpf_prog_",   "bpf_trace_run", "__bpf_trace_",
					      "perf_trace_", "__traceiter_",  "trace_contention_" };

	if (!strcmp(name, "trace_call_bpf"))
		return 1;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(*prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

const char *symbolizer__why_key(enum sym_why w)
{
	return w < SYM_WHY_NR ? why_keys[w] : "?";
}

struct symbolizer *symbolizer__new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct symbolizer));
}

static void symtab_free(struct symtab *t)
{
	free(t->v);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	free(s->kern.v);
	free(s->kbuf);
	for (int b = 0; b < PROC_BUCKETS; b++)
		for (struct proc *p = s->procs[b], *n; p; p = n) {
			n = p->next;
			for (size_t i = 0; i < p->nmaps; i++)
				free(p->maps[i].path);
			free(p->maps);
			symtab_free(&p->jit);
			free(p);
		}
	for (int b = 0; b < ELF_BUCKETS; b++)
		for (struct elf_file *e = s->elves[b], *n; e; e = n) {
			n = e->next;
			symtab_free(&e->tab);
			free(e);
		}
	free(s);
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	*st = s->st;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* same address: the sized symbol first, it is the one kept */
	return (y->size > 0) - (x->size > 0);
}

/* Sort and drop the later duplicates of an address. */
static void symtab_sort(struct symtab *t)
{
	size_t w = 0;

	qsort(t->v, t->n, sizeof(*t->v), by_addr);
	for (size_t i = 0; i < t->n; i++)
		if (!w || t->v[w - 1].addr != t->v[i].addr)
			t->v[w++] = t->v[i];
	t->n = w;
}

/*
 * The symbol holding addr: the last one at or below it, if addr is inside its
 * size; a symbol without a size (assembly, kallsyms) holds up to the next one.
 */
static const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	const struct sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->v[lo - 1];
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

/* ---- kernel ---- */

int symbolizer__kernel_load(struct symbolizer *s, const char *path)
{
	FILE *f;
	size_t cap = 1 << 22, len = 0, n, ncap = 0, nonzero = 0;
	char *p, *end;
	int err = 0;

	if (s->kloaded)
		return s->kwhy[0] ? -EPERM : 0;
	s->kloaded = 1;
	path = path ? path : "/proc/kallsyms";
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		snprintf(s->kwhy, sizeof(s->kwhy), "%s: %s", path, strerror(errno));
		return err;
	}
	s->kbuf = malloc(cap + 1);
	while (s->kbuf && (n = fread(s->kbuf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *nb = realloc(s->kbuf, cap * 2 + 1);

			if (!nb) {
				free(s->kbuf);
				s->kbuf = NULL;
				break;
			}
			s->kbuf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!s->kbuf) {
		snprintf(s->kwhy, sizeof(s->kwhy), "%s: out of memory", path);
		return -ENOMEM;
	}
	s->kbuf[len] = '\0';
	/* The names stay in kbuf: each line "ADDR TYPE NAME[\t[MODULE]]" is cut in place. */
	for (p = s->kbuf; p < s->kbuf + len; p = end + 1) {
		char *type, *name, *q;
		uint64_t addr;

		end = strchr(p, '\n');
		if (!end)
			end = s->kbuf + len;
		*end = '\0';
		addr = strtoull(p, &type, 16);
		if (type == p || type[0] != ' ' || !type[1] || type[2] != ' ')
			continue;
		name = type + 3;
		type++;
		/* text symbols only: data addresses are never on a stack */
		if (*type != 't' && *type != 'T' && *type != 'w' && *type != 'W')
			continue;
		q = strpbrk(name, " \t");
		if (q)
			*q = '\0';
		if (addr)
			nonzero++;
		if (s->kern.n == ncap) {
			struct sym *nv = realloc(s->kern.v, (ncap = ncap ? ncap * 2 : 65536) *
							     sizeof(*nv));

			if (!nv) {
				snprintf(s->kwhy, sizeof(s->kwhy), "%s: out of memory", path);
				return -ENOMEM;
			}
			s->kern.v = nv;
		}
		s->kern.v[s->kern.n++] = (struct sym){ addr, 0, (uint32_t)(name - s->kbuf) };
	}
	if (!nonzero) {
		char kr[8] = "?";
		FILE *k = fopen("/proc/sys/kernel/kptr_restrict", "re");

		if (k) {
			if (!fgets(kr, sizeof(kr), k))
				snprintf(kr, sizeof(kr), "?");
			kr[strcspn(kr, "\n")] = '\0';
			fclose(k);
		}
		snprintf(s->kwhy, sizeof(s->kwhy),
			 "%s shows no kernel addresses (kernel.kptr_restrict=%s; sonde needs root, "
			 "or CAP_SYSLOG with kptr_restrict<2): kernel frames are [unknown]",
			 path, kr);
		s->kern.n = 0;
		return -EPERM;
	}
	symtab_sort(&s->kern);
	s->st.kernel_symbols = s->kern.n;
	return 0;
}

const char *symbolizer__kernel_why(const struct symbolizer *s)
{
	return s->kwhy;
}

const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr, enum sym_why *why)
{
	const struct sym *sym;
	enum sym_why w = SYM_OK;

	if (!s->kloaded)
		symbolizer__kernel_load(s, NULL);
	if (s->kwhy[0])
		w = SYM_KERNEL_HIDDEN;
	else if (!(sym = symtab_find(&s->kern, addr)))
		w = SYM_KERNEL_NONE;
	if (why)
		*why = w;
	if (w != SYM_OK) {
		s->st.unknown[w]++;
		return SYM_UNKNOWN;
	}
	return s->kbuf + sym->name;
}

/* ---- ELF files ---- */

/* A field of an ELF header or section header in the file's byte order. */
static uint64_t elf_field(const unsigned char *b, int size, int msb)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v |= (uint64_t)b[msb ? size - 1 - i : i] << (8 * i);
	return v;
}

/* The number of sections the header of fd claims (extended numbering too), or -1 when it is no ELF. */
static int64_t elf_claimed_sections(int fd)
{
	unsigned char h[64], s0[64];
	int c64, msb;
	uint64_t shoff, n;

	if (pread(fd, h, sizeof(h), 0) < 52 || memcmp(h, ELFMAG, SELFMAG))
		return -1;
	c64 = h[EI_CLASS] == ELFCLASS64;
	msb = h[EI_DATA] == ELFDATA2MSB;
	shoff = c64 ? elf_field(h + 40, 8, msb) : elf_field(h + 32, 4, msb);
	n = c64 ? elf_field(h + 60, 2, msb) : elf_field(h + 48, 2, msb);
	/* e_shnum 0 with a table: the count is section 0's sh_size (more than 0xff00 sections) */
	if (!n && shoff) {
		if (pread(fd, s0, sizeof(s0), (off_t)shoff) < (c64 ? 64 : 40))
			return 0;
		n = c64 ? elf_field(s0 + 32, 8, msb) : elf_field(s0 + 20, 4, msb);
	}
	return n > INT64_MAX ? INT64_MAX : (int64_t)n;
}

Elf *symbolizer__elf_begin(int fd)
{
	int64_t n = elf_claimed_sections(fd);
	size_t got = 0;
	Elf *e;

	if (n > (int64_t)SYM_MAX_SECTIONS) {
		errno = EFBIG;
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	/* the header read again by libelf: rewritten in between, it is refused all the same */
	if (e && elf_kind(e) == ELF_K_ELF && (elf_getshdrnum(e, &got) || got > SYM_MAX_SECTIONS)) {
		elf_end(e);
		errno = EFBIG;
		return NULL;
	}
	return e;
}

static void build_id_of(Elf *e, char *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	out[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > MAX_NOTE_BYTES ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz <= 20) {
				const unsigned char *b = (unsigned char *)d->d_buf + desc_off;

				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(out + 2 * i, "%02x", b[i]);
				return;
			}
		}
	}
}

/* The function symbols of the section of type want (SHT_SYMTAB or SHT_DYNSYM); 0 or -errno. */
static int read_symtab(Elf *e, Elf64_Word want, struct symtab *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d, *sd;
		Elf_Scn *strscn;
		size_t n;

		GElf_Shdr ssh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
			continue;
		/* libelf allocates and reads a section whole: a crafted size stops here */
		strscn = elf_getscn(e, sh.sh_link);
		if (!strscn || !gelf_getshdr(strscn, &ssh))
			return -ENOENT;
		if (sh.sh_size > SYM_MAX_SECTION_BYTES || ssh.sh_size > SYM_MAX_SECTION_BYTES)
			return -EFBIG;
		/* a .symtab whose data is NOBITS (debug-file placeholders) has no d_buf */
		d = elf_getdata(scn, NULL);
		sd = elf_getdata(strscn, NULL);
		if (!d || !d->d_buf || !sd || !sd->d_buf || !sd->d_size)
			return -ENOENT;
		n = sh.sh_size / sh.sh_entsize;
		t->strings = malloc(sd->d_size + 1);
		t->v = calloc(n ? n : 1, sizeof(*t->v));
		if (!t->strings || !t->v) {
			symtab_free(t);
			return -ENOMEM;
		}
		memcpy(t->strings, sd->d_buf, sd->d_size);
		t->strings[sd->d_size] = '\0';
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF || sym.st_name >= sd->d_size)
				continue;
			t->v[t->n++] = (struct sym){ sym.st_value, sym.st_size, sym.st_name };
		}
		if (!t->n) {
			symtab_free(t);
			return -ENOENT;
		}
		symtab_sort(t);
		return 0;
	}
	return -ENOENT;
}

/* Symbols of the separate debug file of a build-id (distribution -dbgsym packages), if installed. */
static int read_debug_file(const char *build_id, struct symtab *t)
{
	char path[128];
	Elf *e;
	int fd, err;

	if (strlen(build_id) < 3)
		return -ENOENT;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
		 build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	e = symbolizer__elf_begin(fd);
	err = e ? read_symtab(e, SHT_SYMTAB, t) : -EINVAL;
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/*
 * A stripped executable's entry point: the ELF header says where it is, and
 * on every libc sonde knows it is _start, the outermost frame of a main
 * thread. Named only when no symbol covers it, and only over its own bytes
 * (0x22 on x86_64 glibc; 0x30 with the padding to the next function).
 */
static void add_entry_symbol(Elf *e, struct symtab *t)
{
	static const char name[] = "_start";
	GElf_Ehdr eh;
	size_t len = 0;
	char *ns;
	struct sym *nv;

	if (!gelf_getehdr(e, &eh) || !eh.e_entry || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    (t->n && symtab_find(t, eh.e_entry)))
		return;
	if (t->strings)
		for (size_t i = 0; i < t->n; i++) {
			size_t end = t->v[i].name + strlen(t->strings + t->v[i].name) + 1;

			len = end > len ? end : len;
		}
	ns = realloc(t->strings, len + sizeof(name));
	if (!ns)
		return;
	t->strings = ns;
	nv = realloc(t->v, (t->n + 1) * sizeof(*nv));
	if (!nv)
		return;
	t->v = nv;
	memcpy(t->strings + len, name, sizeof(name));
	t->v[t->n++] = (struct sym){ eh.e_entry, 0x30, (uint32_t)len };
	symtab_sort(t);
}

/*
 * ELF_C_READ, never ELF_C_READ_MMAP: the files are the profiled users' own,
 * and one truncated while mapped would kill sonde with SIGBUS at the next
 * access. libelf then reads with pread(): a file cut short is a read error,
 * and a section is read only when asked for (and bounded, see read_symtab).
 */
static int elf_load(struct elf_file *f, int fd)
{
	Elf *e = symbolizer__elf_begin(fd);
	size_t nph = 0;
	int err = 0;

	if (!e || elf_kind(e) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	if (elf_getphdrnum(e, &nph)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	for (size_t i = 0; i < nph && f->nsegs < MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			f->segs[f->nsegs].off = ph.p_offset;
			f->segs[f->nsegs].filesz = ph.p_filesz;
			f->segs[f->nsegs].vaddr = ph.p_vaddr;
			f->nsegs++;
		}
	}
	build_id_of(e, f->build_id);
	/* .symtab, else the debug file's .symtab, else .dynsym (exported functions only) */
	if (read_symtab(e, SHT_SYMTAB, &f->tab) && read_debug_file(f->build_id, &f->tab))
		read_symtab(e, SHT_DYNSYM, &f->tab);
	add_entry_symbol(e, &f->tab);
cleanup:
	if (e)
		elf_end(e);
	return err;
}

/*
 * open(2) of a file a user may have replaced since it was mapped: without
 * blocking (a FIFO put in its place), and only a regular file is kept.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Open the file behind a mapping: the mapping itself while the process lives (also a deleted file), else its path. */
static int open_mapped(int tgid, const struct map *m)
{
	char p[4200];
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", tgid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
	fd = open_regular(p);
	if (fd >= 0)
		return fd;
	/* the process's own root: a container's files */
	snprintf(p, sizeof(p), "/proc/%d/root%s", tgid, m->path);
	fd = open_regular(p);
	if (fd >= 0)
		return fd;
	fd = open_regular(m->path);
	if (fd >= 0) {
		struct stat st;

		/* by path after the process is gone: only if it is still the same file */
		if (!fstat(fd, &st) && (uint64_t)st.st_ino == m->ino)
			return fd;
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static struct elf_file *elf_get(struct symbolizer *s, int tgid, struct map *m)
{
	unsigned b = (unsigned)((m->dev * 31 + m->ino) % ELF_BUCKETS);
	struct elf_file *f;
	int fd;

	for (f = s->elves[b]; f; f = f->next)
		if (f->dev == m->dev && f->ino == m->ino)
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = m->dev;
	f->ino = m->ino;
	fd = open_mapped(tgid, m);
	f->err = fd < 0 ? fd : elf_load(f, fd);
	if (fd >= 0)
		close(fd);
	s->st.elf_files++;
	if (f->err)
		s->st.elf_unreadable++;
	s->st.elf_symbols += f->tab.n;
	/* the same build in another place (a container's copy): share the first table */
	if (f->build_id[0])
		for (int k = 0; k < ELF_BUCKETS && !f->same; k++)
			for (struct elf_file *o = s->elves[k]; o; o = o->next)
				if (!o->same && !strcmp(o->build_id, f->build_id) && o->tab.n >= f->tab.n) {
					f->same = o;
					break;
				}
	f->next = s->elves[b];
	s->elves[b] = f;
	return f;
}

/* ---- processes ---- */

static int by_start(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * /tmp/perf-PID.map, a file any local user can plant for any pid, read by a
 * root sonde in the window: as perf does, only a regular file owned by the
 * process's user (or root), opened without following a link and without
 * blocking (a FIFO would hang the sampler until --timeout), and read up to
 * MAX_JIT_BYTES (a 200 GB sparse file would take as long). NULL otherwise.
 */
static FILE *open_jit_map(int tgid)
{
	char path[64], proc[32];
	struct stat lst, st, pst;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", tgid);
	snprintf(proc, sizeof(proc), "/proc/%d", tgid);
	if (lstat(path, &lst) || !S_ISREG(lst.st_mode) || stat(proc, &pst) ||
	    (lst.st_uid != pst.st_uid && lst.st_uid != 0))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	/* the file opened is the one checked, not one swapped in since */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != lst.st_dev ||
	    st.st_ino != lst.st_ino || st.st_uid != lst.st_uid) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static void read_jit_map(struct proc *p)
{
	char line[1024];
	size_t cap = 0, slen = 0, scap = 0;
	FILE *f = open_jit_map(p->tgid);

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && p->jit.n < MAX_JIT && ftello(f) <= MAX_JIT_BYTES) {
		unsigned long long start, size;
		int name_at = 0;
		size_t nl;

		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || !name_at)
			continue;
		nl = strcspn(line + name_at, "\n");
		if (p->jit.n == cap) {
			struct sym *nv = realloc(p->jit.v, (cap = cap ? cap * 2 : 256) * sizeof(*nv));

			if (!nv)
				break;
			p->jit.v = nv;
		}
		if (slen + nl + 1 > scap) {
			char *ns = realloc(p->jit.strings, scap = (slen + nl + 1) * 2);

			if (!ns)
				break;
			p->jit.strings = ns;
		}
		memcpy(p->jit.strings + slen, line + name_at, nl);
		p->jit.strings[slen + nl] = '\0';
		p->jit.v[p->jit.n++] = (struct sym){ start, size ? size : 1, (uint32_t)slen };
		slen += nl + 1;
	}
	fclose(f);
	symtab_sort(&p->jit);
}

/* Read the executable mappings of p->tgid into p. */
static void read_maps(struct proc *p)
{
	char path[64], *line = NULL;
	size_t len = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->tgid);
	f = fopen(path, "re");
	if (!f) {
		p->kind = SYM_PROC_EXITED;
		return;
	}
	p->kind = SYM_PROC_KERNEL;
	while (getline(&line, &len, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int path_at = 0;
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj,
			   &min, &ino, &path_at) < 7)
			continue;
		p->kind = SYM_PROC_USER;
		if (!strchr(perms, 'x') || p->nmaps >= MAX_MAPS)
			continue;
		file = path_at ? line + path_at : (char *)"";
		file[strcspn(file, "\n")] = '\0';
		if (p->nmaps == cap) {
			struct map *nm = realloc(p->maps, (cap = cap ? cap * 2 : 32) * sizeof(*nm));

			if (!nm)
				break;
			p->maps = nm;
		}
		p->maps[p->nmaps] = (struct map){ start, end, off, ((uint64_t)maj << 32) | min, ino,
						  strdup(file), NULL };
		if (p->maps[p->nmaps].path)
			p->nmaps++;
	}
	free(line);
	fclose(f);
	qsort(p->maps, p->nmaps, sizeof(*p->maps), by_start);
	read_jit_map(p);
}

static struct proc *proc_get(struct symbolizer *s, int tgid, int create)
{
	unsigned b = (unsigned)tgid % PROC_BUCKETS;
	struct proc *p;

	for (p = s->procs[b]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	if (s->st.procs >= MAX_PROCS) {
		p->kind = SYM_PROC_FULL;
		s->st.procs_full++;
	} else {
		read_maps(p);
		s->st.procs++;
		if (p->kind == SYM_PROC_EXITED)
			s->st.procs_exited++;
		s->st.jit_symbols += p->jit.n;
	}
	p->next = s->procs[b];
	s->procs[b] = p;
	return p;
}

enum sym_proc symbolizer__snapshot(struct symbolizer *s, int tgid)
{
	struct proc *p = proc_get(s, tgid, 1);

	return p ? p->kind : SYM_PROC_FULL;
}

static struct map *map_find(struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* The mapping of addr; the maps are read again once if they miss it (a library loaded later). */
static struct map *proc_map(struct symbolizer *s, struct proc *p, uint64_t addr)
{
	struct map *m = map_find(p, addr);

	if (m || p->refreshed || p->kind == SYM_PROC_EXITED || p->kind == SYM_PROC_FULL)
		return m;
	p->refreshed = 1;
	{
		struct proc fresh = { .tgid = p->tgid };

		read_maps(&fresh);
		if (fresh.kind == SYM_PROC_EXITED) {
			symtab_free(&fresh.jit);
			return NULL;
		}
		for (size_t i = 0; i < p->nmaps; i++)
			free(p->maps[i].path);
		free(p->maps);
		symtab_free(&p->jit);
		p->maps = fresh.maps;
		p->nmaps = fresh.nmaps;
		p->jit = fresh.jit;
		p->kind = fresh.kind;
	}
	return map_find(p, addr);
}

const char *symbolizer__user(struct symbolizer *s, int tgid, uint64_t addr, enum sym_why *why)
{
	struct proc *p = proc_get(s, tgid, 1);
	enum sym_why w = SYM_OK;
	const char *name = NULL;
	struct map *m;

	if (!p || p->kind == SYM_PROC_EXITED || p->kind == SYM_PROC_FULL) {
		w = SYM_PROC_GONE;
		goto out;
	}
	m = proc_map(s, p, addr);
	if (!m || !m->path[0] || (m->path[0] == '[' && strcmp(m->path, "[vdso]"))) {
		/* anonymous executable memory: JIT code, named by the runtime's perf map */
		const struct sym *j = symtab_find(&p->jit, addr);

		if (j)
			name = p->jit.strings + j->name;
		else
			w = SYM_NO_MAPPING;
		goto out;
	}
	if (!strcmp(m->path, "[vdso]")) {
		name = "[vdso]";
		goto out;
	}
	if (!m->elf)
		m->elf = elf_get(s, tgid, m);
	if (!m->elf || m->elf->err) {
		w = SYM_FILE_UNREADABLE;
		goto out;
	}
	{
		struct elf_file *f = m->elf;
		const struct symtab *t = f->same ? &f->same->tab : &f->tab;
		uint64_t off = addr - m->start + m->pgoff;
		const struct sym *sym = NULL;

		for (int i = 0; i < f->nsegs; i++)
			if (off >= f->segs[i].off && off < f->segs[i].off + f->segs[i].filesz) {
				sym = symtab_find(t, off - f->segs[i].off + f->segs[i].vaddr);
				break;
			}
		if (sym)
			name = t->strings + sym->name;
		else
			w = SYM_NO_SYMBOL;
	}
out:
	if (why)
		*why = w;
	if (w != SYM_OK || !name) {
		s->st.unknown[w == SYM_OK ? SYM_NO_SYMBOL : w]++;
		return SYM_UNKNOWN;
	}
	return name;
}

/* ---- for unwinders ---- */

enum sym_proc symbolizer__mappings(struct symbolizer *s, int tgid,
				   int (*cb)(const struct sym_mapping *m, void *arg), void *arg)
{
	struct proc *p = proc_get(s, tgid, 1);

	if (!p)
		return SYM_PROC_FULL;
	if (p->kind != SYM_PROC_USER)
		return p->kind;
	for (size_t i = 0; i < p->nmaps; i++) {
		struct map *m = &p->maps[i];
		struct sym_mapping sm = { m->start, m->end, m->pgoff, 0, m->path, -ENOENT };
		int seen = 0, stop;

		if (!m->path[0] || m->path[0] == '[')
			continue;
		/* each file once: its first executable mapping places it */
		for (size_t k = 0; k < i && !seen; k++)
			seen = p->maps[k].dev == m->dev && p->maps[k].ino == m->ino;
		if (seen)
			continue;
		if (!m->elf)
			m->elf = elf_get(s, tgid, m);
		if (m->elf && !m->elf->err) {
			const struct elf_file *f = m->elf;

			for (int k = 0; k < f->nsegs; k++)
				if (m->pgoff < f->segs[k].off + f->segs[k].filesz &&
				    m->pgoff + (m->end - m->start) > f->segs[k].off) {
					sm.bias = m->start - m->pgoff + f->segs[k].off - f->segs[k].vaddr;
					sm.fd = open_mapped(tgid, m);
					break;
				}
		} else {
			sm.fd = m->elf ? m->elf->err : -ENOMEM;
		}
		stop = cb(&sm, arg);
		if (sm.fd >= 0)
			close(sm.fd);
		if (stop)
			break;
	}
	return p->kind;
}

const char *symbolizer__path(struct symbolizer *s, int tgid, uint64_t addr)
{
	struct proc *p = proc_get(s, tgid, 1);
	struct map *m;

	if (!p || p->kind == SYM_PROC_EXITED || p->kind == SYM_PROC_FULL)
		return NULL;
	m = proc_map(s, p, addr);
	return m ? m->path : NULL;
}

size_t symbolizer__perf_map_entries(struct symbolizer *s, int tgid)
{
	struct proc *p = proc_get(s, tgid, 0);

	return p ? p->jit.n : 0;
}
