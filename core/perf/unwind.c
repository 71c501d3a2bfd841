// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CFI unwinding with libdw (unwind.h).
 *
 * Why libdw rather than libunwind: it is the unwinder perf itself uses for
 * --call-graph dwarf (tools/perf/util/unwind-libdw.c), maintained with
 * elfutils, already half-linked here (sonde reads ELF with libelf from the
 * same project), reads .debug_frame from separate debug files (found here by
 * build-id, locally only: find_debuginfo), and takes the register and memory
 * state through callbacks (dwfl_attach_state), which is what a copied stack
 * needs; libunwind's remote mode would need an address-space accessor and
 * its own ELF reading on top.
 *
 * Per process one Dwfl: its executable file mappings (from the symbolizer's
 * snapshot, so a process that exited since is still placed) are reported as
 * modules whose ELF is opened lazily by find_elf with ELF_C_READ (pread, never
 * mmap: a file truncated under us is a read error, not a SIGBUS). Each sample
 * is a thread of that Dwfl: set_initial_registers gives the copied registers,
 * memory_read the copied stack bytes; nothing else of the process is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "perf/unwind.h"
#include "util/clock.h"

static const char *const stop_keys[UNWIND_STOP_NR] = {
	[UNWIND_END] = "end",
	[UNWIND_DEPTH] = "depth_limit",
	[UNWIND_STACK_END] = "stack_copy_end",
	[UNWIND_NO_MODULE] = "no_module",
	[UNWIND_NO_CFI] = "no_cfi",
	[UNWIND_BAD_FRAME] = "bad_frame",
	[UNWIND_PROC_GONE] = "process_exited",
	[UNWIND_UNREADABLE] = "file_unreadable",
	[UNWIND_UNSUPPORTED] = "unsupported_arch",
	[UNWIND_TOO_LARGE] = "tables_too_large",
	[UNWIND_OVER_SAMPLE] = "over_sample_budget",
	[UNWIND_OVER_PROCESS] = "over_process_budget",
	[UNWIND_OVER_RUN] = "over_run_budget",
	[UNWIND_OVER_TIME] = "over_time_budget",
};

const char *unwind__stop_key(enum unwind_stop s)
{
	return s < UNWIND_STOP_NR ? stop_keys[s] : "?";
}

enum unwind_stop unwind__classify(int rc, int nframes, int max, int last_in_module,
				  int module_has_cfi, int read_above_copy)
{
	if (nframes >= max)
		return UNWIND_DEPTH;
	/*
	 * A read above the copy first: libdw ends a walk "normally" (rc 0) when
	 * the return address cannot be computed, which is what a read past the
	 * copied bytes looks like.
	 */
	if (read_above_copy)
		return UNWIND_STACK_END;
	if (rc == 0)
		return UNWIND_END;
	if (!last_in_module)
		return UNWIND_NO_MODULE;
	if (!module_has_cfi)
		return UNWIND_NO_CFI;
	return UNWIND_BAD_FRAME;
}

/* ---- the budget ---- */

void unwind_budget__init(struct unwind_budget *b)
{
	*b = (struct unwind_budget){
		.sample_max = UNWIND_SAMPLE_STEPS,
		.process_max = UNWIND_PROCESS_STEPS,
		.run_max = UNWIND_RUN_STEPS,
		.run_ns_max = UNWIND_RUN_NS,
	};
}

enum unwind_stop unwind_budget__admit(struct unwind_budget *b, int new_process, int64_t now_ns)
{
	if (!b->t0_ns)
		b->t0_ns = now_ns;
	b->sample = 0;
	if (new_process)
		b->process = 0;
	if (now_ns - b->t0_ns > b->run_ns_max)
		return UNWIND_OVER_TIME;
	if (b->run >= b->run_max)
		return UNWIND_OVER_RUN;
	if (b->process >= b->process_max)
		return UNWIND_OVER_PROCESS;
	return UNWIND_STOP_NR;
}

enum unwind_stop unwind_budget__charge(struct unwind_budget *b, uint64_t steps)
{
	/* the sample first: one costly sample does not use up its process */
	if (b->sample > b->sample_max || steps > b->sample_max - b->sample)
		return UNWIND_OVER_SAMPLE;
	/* a process or the run over its budget stays over: the samples after it are not walked */
	if (b->process > b->process_max || steps > b->process_max - b->process) {
		b->process = b->process_max;
		return UNWIND_OVER_PROCESS;
	}
	if (b->run > b->run_max || steps > b->run_max - b->run) {
		b->run = b->run_max;
		return UNWIND_OVER_RUN;
	}
	b->sample += steps;
	b->process += steps;
	b->run += steps;
	return UNWIND_STOP_NR;
}

/* libdw's DWARF_EXPR_STEPS_MAX (libdwfl/frame_unwind.c, elfutils 0.158 on): steps of one expression */
#define EXPR_STEPS_MAX 4096ull

uint64_t unwind__rule_steps(const Dwarf_Op *ops, size_t nops, uint64_t cfa_steps)
{
	uint64_t calls = 0, steps;
	int loops = 0;

	for (size_t i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_call_frame_cfa)
			calls++;
		/* the target is op offset + 3 + the signed 16-bit operand: at or before the op, a loop */
		else if ((ops[i].atom == DW_OP_skip || ops[i].atom == DW_OP_bra) &&
			 (int16_t)ops[i].number + 3 <= 0)
			loops = 1;
	}
	steps = nops < EXPR_STEPS_MAX ? nops : EXPR_STEPS_MAX;
	if (loops)
		return EXPR_STEPS_MAX * (1 + (calls ? cfa_steps : 0));
	return steps + (calls < EXPR_STEPS_MAX ? calls : EXPR_STEPS_MAX) * cfa_steps;
}

/*
 * Every rule of one frame (libdw's handle_cfi evaluates the 17 registers'):
 * the CFA expression's steps once per DW_OP_call_frame_cfa of a register
 * rule (inside the CFA expression itself that operation fails at once).
 */
static uint64_t frame_rules_steps(Dwarf_Frame *fr)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	uint64_t cfa = 1, total = 0;

	if (!dwarf_frame_cfa(fr, &ops, &n) && n)
		cfa = unwind__rule_steps(ops, n, 0);
	for (int r = 0; r < USTACK_NREGS; r++)
		if (!dwarf_frame_register(fr, r, mem, &ops, &n) && n)
			total += unwind__rule_steps(ops, n, cfa);
	return total;
}

/* A file reported for the current process: opened by find_elf when libdw first needs it. */
struct umod {
	uint64_t start;
	int fd;
	int too_large;             /* refused to libdw: unwind or debug sections past the bounds */
	char *path;
};

/* Frames priced, by row of their table, for the current process (a hot stack's repeat). */
#define COST_SLOTS 1024

struct unwinder {
	struct symbolizer *sym;
	int tgid;                  /* the process of dwfl, 0 none */
	enum sym_proc kind;
	Dwfl *dwfl;
	int attached, nmods, err;
	struct umod *mods;
	size_t nmods_cap;
	uint64_t too_large;        /* files refused, over every process */
	struct unwind_budget budget;
	struct { uint64_t lo, hi, steps; } costs[COST_SLOTS]; /* a row of a table: its price */
	/* the sample being unwound */
	const struct ustack_rec *rec;
	uint64_t *ips;
	int n, max, read_above;
	enum unwind_stop over;     /* UNWIND_STOP_NR, or the budget the walk would have broken */
	uint64_t over_pc;
};

/*
 * What libdw reads whole of a file it is handed (issue 27): .eh_frame and
 * .eh_frame_hdr (dwarf_getcfi_elf), every .debug_* and .zdebug_* section
 * (dwarf_begin_elf reads them all before it looks at one, decompressed),
 * the notes (the build-id) and the section names; without an .eh_frame
 * section, the file from its PT_GNU_EH_FRAME table to its end. A 16 KB
 * sparse file claiming a 4 GiB .debug_frame cost root 4 GiB: each such
 * section is held to the symbolizer's SYM_MAX_SECTION_BYTES, read or once
 * decompressed, and all of them together to twice that (a symbol table and
 * its strings, the most the symbolizer reads of a file). Checked on the very
 * Elf libdw is given, whose section headers libelf has cached: a file
 * rewritten after the check is read by what was checked. 0 or -EFBIG.
 */
#define FILE_MAX_BYTES (2ull * SYM_MAX_SECTION_BYTES)

static int libdw_reads(const char *name, const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_NOTE || !strncmp(name, ".eh_frame", 9) ||
	       !strncmp(name, ".debug", 6) || !strncmp(name, ".zdebug", 7) ||
	       !strncmp(name, ".gnu.debuglto_", 14);
}

/*
 * The size a compressed section has once inflated (0 when it is not one): the
 * header is read from the section's raw data, which libelf keeps, so libdw
 * inflates the bytes that were checked.
 */
static uint64_t inflated_size(Elf_Scn *scn, const char *name, const GElf_Shdr *sh)
{
	Elf_Data *d;
	GElf_Chdr ch;

	if (sh->sh_flags & SHF_COMPRESSED)
		return gelf_getchdr(scn, &ch) ? ch.ch_size : UINT64_MAX;
	if (strncmp(name, ".zdebug", 7))
		return 0;
	/* "ZLIB" and the inflated size, 8 bytes big-endian */
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 12 || memcmp(d->d_buf, "ZLIB", 4))
		return 0;
	{
		const unsigned char *b = d->d_buf;
		uint64_t v = 0;

		for (int i = 4; i < 12; i++)
			v = v << 8 | b[i];
		return v;
	}
}

static int elf_bounded(Elf *e, uint64_t file_size)
{
	uint64_t total = 0;
	size_t shstrndx = 0, nph = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int eh_frame = 0;

	/* the names first: elf_strptr reads the name table whole */
	if (!elf_getshdrstrndx(e, &shstrndx) && shstrndx &&
	    (!gelf_getshdr(elf_getscn(e, shstrndx), &sh) || sh.sh_size > SYM_MAX_SECTION_BYTES))
		return -EFBIG;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		uint64_t inflated;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = shstrndx ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		name = name ? name : "";
		eh_frame |= !strcmp(name, ".eh_frame");
		if (!libdw_reads(name, &sh))
			continue;
		if (sh.sh_size > SYM_MAX_SECTION_BYTES)
			return -EFBIG;
		inflated = inflated_size(scn, name, &sh);
		if (inflated > SYM_MAX_SECTION_BYTES)
			return -EFBIG;
		total += sh.sh_size + inflated;
		if (total > FILE_MAX_BYTES)
			return -EFBIG;
	}
	if (elf_getphdrnum(e, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if ((ph.p_type == PT_NOTE || ph.p_type == PT_GNU_EH_FRAME) &&
		    ph.p_filesz > SYM_MAX_SECTION_BYTES)
			return -EFBIG;
		if (ph.p_type == PT_GNU_EH_FRAME && !eh_frame && file_size > SYM_MAX_SECTION_BYTES)
			return -EFBIG;
	}
	return 0;
}

/*
 * A program or a library only: libdw relocates a relocatable file (ET_REL,
 * which a user can map executable too) by reading its symbol table and
 * relocations whole.
 */
static int elf_unwindable(Elf *e, int fd)
{
	struct stat st;
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return -ENOEXEC;
	if (fstat(fd, &st))
		return -errno;
	return elf_bounded(e, (uint64_t)st.st_size);
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct umod *m = *userdata;
	int fd;

	(void)mod;
	(void)name;
	(void)base;
	*file_name = NULL;
	*elfp = NULL;
	if (!m || m->fd < 0)
		return -1;
	fd = m->fd;
	m->fd = -1; /* libdw owns it now, and closes it with the module */
	*elfp = symbolizer__elf_begin(fd);
	if (*elfp && elf_unwindable(*elfp, fd) == -EFBIG)
		m->too_large = 1;
	if (!*elfp || m->too_large) {
		if (*elfp)
			elf_end(*elfp);
		*elfp = NULL;
		close(fd);
		return -1;
	}
	*file_name = strdup(m->path);
	return fd;
}

/*
 * The separate debug file of a module, for its .debug_frame: only the local
 * one by build-id under /usr/lib/debug/.build-id (what -dbgsym packages
 * install). Not dwfl_standard_find_debuginfo: with DEBUGINFOD_URLS in the
 * environment it would download debug files from the network while the
 * profile is collected.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char path[128];
	int len, fd, at;

	(void)userdata;
	(void)name;
	(void)base;
	(void)file_name;
	(void)debuglink;
	(void)crc;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len < 2 || len > 40)
		return -1;
	at = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", bits[0]);
	for (int i = 1; i < len && at < (int)sizeof(path) - 8; i++)
		at += snprintf(path + at, sizeof(path) - (size_t)at, "%02x", bits[i]);
	snprintf(path + at, sizeof(path) - (size_t)at, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	/* held to the same bounds, though libdw opens it itself (root's directory, not a user's) */
	{
		Elf *e = symbolizer__elf_begin(fd);
		int err = e ? elf_unwindable(e, fd) : -ENOEXEC;

		if (e)
			elf_end(e);
		if (err) {
			close(fd);
			return -1;
		}
	}
	*debuginfo_file_name = strdup(path);
	return fd;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp || !u->rec)
		return 0;
	*thread_argp = u;
	return (pid_t)u->rec->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (!u->rec || (pid_t)u->rec->pid != tid)
		return false;
	*thread_argp = u;
	return true;
}

/* Only the copied stack is memory: an address outside it is a failed read. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t sp = u->rec->regs[USTACK_REG_SP];

	(void)dwfl;
	if (addr >= sp && addr - sp <= u->rec->size && u->rec->size - (addr - sp) >= 8) {
		memcpy(result, u->rec->stack + (addr - sp), 8);
		return true;
	}
	if (addr >= sp)
		u->read_above = 1;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word regs[USTACK_NREGS];

	for (int i = 0; i < USTACK_NREGS; i++)
		regs[i] = u->rec->regs[i];
	return dwfl_thread_state_registers(thread, 0, USTACK_NREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static void proc_end(struct unwinder *u)
{
	if (u->dwfl)
		dwfl_end(u->dwfl);
	for (int i = 0; i < u->nmods; i++) {
		if (u->mods[i].fd >= 0)
			close(u->mods[i].fd);
		u->too_large += (uint64_t)u->mods[i].too_large;
		free(u->mods[i].path);
	}
	memset(u->costs, 0, sizeof(u->costs));
	free(u->mods);
	u->mods = NULL;
	u->nmods = 0;
	u->nmods_cap = 0;
	u->dwfl = NULL;
	u->attached = 0;
	u->tgid = 0;
}

/* The address range of the file's PT_LOAD segments (ELF vaddrs): what libdw places at the bias. */
static int load_range(int fd, uint64_t *lo, uint64_t *hi)
{
	Elf *e = symbolizer__elf_begin(fd);
	size_t nph = 0;
	int found = 0;

	if (!e)
		return -ENOEXEC;
	if (elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (!found || (ph.p_vaddr & -(ph.p_align ? ph.p_align : 1)) < *lo)
				*lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			if (!found || ph.p_vaddr + ph.p_memsz > *hi)
				*hi = ph.p_vaddr + ph.p_memsz;
			found = 1;
		}
	elf_end(e);
	return found ? 0 : -ENOEXEC;
}

static int report_mapping(const struct sym_mapping *m, void *arg)
{
	struct unwinder *u = arg;
	uint64_t lo = 0, hi = 0;
	Dwfl_Module *mod;
	const char *base;

	if (m->fd < 0 || load_range(m->fd, &lo, &hi) || hi <= lo)
		return 0;
	if ((size_t)u->nmods == u->nmods_cap) {
		size_t cap = u->nmods_cap ? u->nmods_cap * 2 : 32;
		struct umod *nv = realloc(u->mods, cap * sizeof(*nv));

		if (!nv)
			return 1;
		u->mods = nv;
		u->nmods_cap = cap;
	}
	base = strrchr(m->path, '/');
	mod = dwfl_report_module(u->dwfl, base ? base + 1 : m->path, m->bias + lo, m->bias + hi);
	if (!mod)
		return 0; /* overlaps one reported before (a file mapped twice): keep the first */
	u->mods[u->nmods].start = m->bias + lo;
	u->mods[u->nmods].too_large = 0;
	u->mods[u->nmods].fd = dup(m->fd);
	u->mods[u->nmods].path = strdup(m->path);
	u->nmods++;
	return 0;
}

/* Give each module its umod (by start address) once the array no longer moves. */
static int bind_module(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct unwinder *u = arg;

	(void)mod;
	(void)name;
	for (int i = 0; i < u->nmods; i++)
		if (u->mods[i].start == start) {
			*ud = &u->mods[i];
			break;
		}
	return DWARF_CB_OK;
}

static int proc_begin(struct unwinder *u, int tgid)
{
	proc_end(u);
	u->tgid = tgid;
	u->dwfl = dwfl_begin(&dwfl_cbs);
	if (!u->dwfl)
		return -ENOMEM;
	dwfl_report_begin(u->dwfl);
	u->kind = symbolizer__mappings(u->sym, tgid, report_mapping, u);
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (u->kind != SYM_PROC_USER)
		return -ESRCH;
	if (!u->nmods)
		return -ENOENT;
	dwfl_getmodules(u->dwfl, bind_module, u, 0);
	/* NULL elf: the architecture is the first module's (each is opened by find_elf) */
	u->attached = dwfl_attach_state(u->dwfl, NULL, tgid, &thread_cbs, u);
	return u->attached ? 0 : -ENOEXEC;
}

/* Whether mod's .eh_frame or .debug_frame has an entry for pc (a file may have tables for some code only). */
static int cfi_covers(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr;
	Dwarf_Addr bias;

	if ((cfi = dwfl_module_eh_cfi(mod, &bias)) && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		free(fr);
		return 1;
	}
	if ((cfi = dwfl_module_dwarf_cfi(mod, &bias)) && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		free(fr);
		return 1;
	}
	return 0;
}

/*
 * The steps of unwinding the frame at pc (the address libdw looks up: a
 * return address less one, the first frame's own pc): the rules of the table
 * libdw will use, .eh_frame first, else .debug_frame, as in
 * __libdwfl_frame_unwind; without either, the frame-pointer fallback. Kept
 * for the table's row (the addresses the same rules cover): the pcs of a hot
 * loop share one, so a process's samples mostly find their price here.
 */
static uint64_t frame_steps(struct unwinder *u, Dwarf_Addr pc)
{
	size_t k = (size_t)(((pc >> 4) * 0x9e3779b97f4a7c15ull) >> 54) % COST_SLOTS;
	uint64_t steps = UNWIND_FRAME_STEPS, lo = pc, hi = pc + 1;
	Dwfl_Module *mod;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias, start, end;
	Dwarf_CFI *cfi;

	if (u->costs[k].steps && u->costs[k].lo <= pc && pc < u->costs[k].hi)
		return u->costs[k].steps;
	mod = dwfl_addrmodule(u->dwfl, pc);
	if (mod && (((cfi = dwfl_module_eh_cfi(mod, &bias)) && !dwarf_cfi_addrframe(cfi, pc - bias, &fr)) ||
		    ((cfi = dwfl_module_dwarf_cfi(mod, &bias)) &&
		     !dwarf_cfi_addrframe(cfi, pc - bias, &fr)))) {
		steps += frame_rules_steps(fr);
		if (dwarf_frame_info(fr, &start, &end, NULL) >= 0 && start + bias <= pc &&
		    pc < end + bias) {
			lo = start + bias;
			hi = end + bias;
		}
		free(fr);
	}
	u->costs[k].lo = lo;
	u->costs[k].hi = hi;
	u->costs[k].steps = steps;
	return steps;
}

/*
 * Called for each frame before libdw unwinds it (dwfl_thread_getframes), so
 * the frame is priced and charged here, and a walk over the budget ends
 * before libdw evaluates its rules.
 */
static int on_frame(Dwfl_Frame *st, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	enum unwind_stop over;

	/* no isactivation: asking for it unwinds the caller before the budget is looked at */
	if (!dwfl_frame_pc(st, &pc, NULL))
		return DWARF_CB_ABORT;
	if (!pc)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	if (u->n >= u->max)
		return DWARF_CB_ABORT;
	over = unwind_budget__charge(&u->budget, frame_steps(u, u->n > 1 ? pc - 1 : pc));
	if (over != UNWIND_STOP_NR) {
		u->over = over;
		u->over_pc = pc;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

struct unwinder *unwinder__new(struct symbolizer *sym)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (u) {
		u->sym = sym;
		unwind_budget__init(&u->budget);
	}
	return u;
}

struct unwind_budget *unwinder__budget(struct unwinder *u)
{
	return &u->budget;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	proc_end(u);
	free(u);
}

/* Whether mod's file was refused to libdw (its sections past the bounds). */
static int module_too_large(Dwfl_Module *mod)
{
	void **ud = NULL;
	const struct umod *m;

	if (!mod || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) || !ud)
		return 0;
	m = *ud;
	return m && m->too_large;
}

int unwinder__unwind(struct unwinder *u, const struct ustack_rec *r, uint64_t *ips, int max,
		     enum unwind_stop *stop, uint64_t *stop_pc)
{
	Dwfl_Module *mod;
	Dwarf_Addr last;
	int rc, err = 0, new_proc = 0;
	uint64_t pc_dummy;

	stop_pc = stop_pc ? stop_pc : &pc_dummy;
	*stop_pc = r->regs[USTACK_REG_IP];
#if !defined(__x86_64__)
	*stop = UNWIND_UNSUPPORTED;
	return 0;
#endif
	if (max <= 0) {
		*stop = UNWIND_DEPTH;
		return 0;
	}
	/* the process's first outcome holds for all its samples */
	if ((int)r->tgid != u->tgid) {
		u->err = proc_begin(u, (int)r->tgid);
		new_proc = 1;
	}
	err = u->err;
	if (err) {
		*stop = err == -ESRCH ? UNWIND_PROC_GONE : UNWIND_UNREADABLE;
		return 0;
	}
	/* the time is this thread's CPU: the work, not how long a loaded host kept it waiting */
	*stop = unwind_budget__admit(&u->budget, new_proc, clock__ns(CLOCK_THREAD_CPUTIME_ID));
	if (*stop != UNWIND_STOP_NR)
		return 0;
	u->rec = r;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->read_above = 0;
	u->over = UNWIND_STOP_NR;
	rc = dwfl_getthread_frames(u->dwfl, (pid_t)r->pid, on_frame, u);
	u->rec = NULL;
	if (u->over != UNWIND_STOP_NR) {
		/* over the budget: no CFI stack at all, the sample keeps its FP one */
		*stop = u->over;
		*stop_pc = u->over_pc;
		return 0;
	}
	if (rc > 0 && u->n < max)
		rc = -1; /* aborted by on_frame on a frame without a pc */
	if (!u->n) {
		/* not even the first frame: the pc is in no file */
		*stop = UNWIND_NO_MODULE;
		return 0;
	}
	last = ips[u->n - 1] - (u->n > 1 ? 1 : 0);
	*stop_pc = last;
	mod = dwfl_addrmodule(u->dwfl, last);
	if (rc < 0 && module_too_large(mod))
		*stop = UNWIND_TOO_LARGE;
	else
		*stop = unwind__classify(rc < 0 ? -1 : 0, u->n, max, mod != NULL,
					 mod && cfi_covers(mod, last), u->read_above);
	return u->n;
}

static const struct ustack_store *sort_store;

static int by_tgid(const void *a, const void *b)
{
	const struct ustack_rec *x = &sort_store->v[*(const size_t *)a];
	const struct ustack_rec *y = &sort_store->v[*(const size_t *)b];

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

int unwind__store(struct symbolizer *sym, struct ustack_store *st, int depth,
		  int (*need)(const struct ustack_rec *r, void *arg), void *arg,
		  struct unwind_run *out)
{
	int64_t w0 = clock__ns(CLOCK_MONOTONIC), c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
	struct unwinder *u = NULL;
	size_t *order = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	unwind_budget__init(&out->budget); /* its limits, also when there is nothing to unwind */
	if (!st->n)
		return 0;
	order = malloc(st->n * sizeof(*order));
	out->v = calloc(st->n, sizeof(*out->v));
	out->ips = malloc(st->n * (size_t)depth * sizeof(*out->ips));
	u = unwinder__new(sym);
	if (!order || !out->v || !out->ips || !u) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < st->n; i++)
		order[i] = i;
	sort_store = st;
	qsort(order, st->n, sizeof(*order), by_tgid);
	for (size_t k = 0; k < st->n; k++) {
		struct ustack_rec *r = &st->v[order[k]];
		struct cfi_stack *c = &out->v[out->n];
		enum unwind_stop stop = UNWIND_BAD_FRAME;
		uint64_t *ips = out->ips + out->n * (size_t)depth;

		if (need && !need(r, arg)) {
			out->skipped++;
			ustack_store__drop(st, order[k]);
			continue;
		}
		c->n = r->stack ? unwinder__unwind(u, r, ips, depth, &stop, &c->stop_pc) : 0;
		c->tgid = r->tgid;
		c->pid = r->pid;
		c->kstack = r->kstack;
		c->ustack = r->ustack;
		memcpy(c->comm, r->comm, 16);
		c->ips = ips;
		c->stop = unwind__stop_key(stop);
		out->stops[stop]++;
		out->frames += (uint64_t)c->n;
		out->n++;
		ustack_store__drop(st, order[k]);
	}
cleanup:
	if (u) {
		proc_end(u); /* its files counted */
		out->files_too_large = u->too_large;
		out->budget = u->budget;
	}
	unwinder__free(u);
	free(order);
	out->wall_ms = (double)(clock__ns(CLOCK_MONOTONIC) - w0) / 1e6;
	out->cpu_ms = (double)(clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6;
	return err;
}

void unwind_run__free(struct unwind_run *r)
{
	free(r->v);
	free(r->ips);
	memset(r, 0, sizeof(*r));
}
