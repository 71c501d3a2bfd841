// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CFI unwinding (issue 14): the ring records of the profile's stack copies
 * parsed without trust (truncated, lying about their size, over the limit),
 * the bounded store, the stop-reason classification, the causes and their
 * remedies, the dpkg owner lookup on a made-up info directory, and libdw on
 * a real stack: this test's own registers and stack, copied the way the BPF
 * program copies them, from a thread three calls deep (built -O2, so without
 * frame pointers), unwound to the thread's start. And the unwinding's budget
 * (issue 27): its accounting alone, the price of DWARF rules, and a frame
 * built here with legal rules that cost libdw 41 million steps, refused
 * before libdw evaluates them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>

#include "perf/causes.h"
#include "util/clock.h"
#include "perf/symbolize.h"
#include "perf/unwind.h"
#include "perf/ustack.h"
#include "tap.h"

/* A record as bpf/profile.h lays it out: key, regs, size, flags, data. */
static size_t make_record(uint8_t *buf, uint32_t tgid, uint32_t size, size_t data_len)
{
	uint32_t pid = tgid + 1, flags = 0;
	int32_t ks = 5, us = 6;

	memset(buf, 0, USTACK_HDR + data_len);
	memcpy(buf, &tgid, 4);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &ks, 4);
	memcpy(buf + 12, &us, 4);
	memcpy(buf + 16, "worker", 6);
	for (int i = 0; i < USTACK_NREGS; i++) {
		uint64_t r = 0x1000 + (uint64_t)i;

		memcpy(buf + 32 + 8 * i, &r, 8);
	}
	memcpy(buf + 168, &size, 4);
	memcpy(buf + 172, &flags, 4);
	for (size_t i = 0; i < data_len; i++)
		buf[USTACK_HDR + i] = (uint8_t)i;
	return USTACK_HDR + data_len;
}

static void test_parse(void)
{
	static uint8_t buf[USTACK_HDR + USTACK_MAX_BYTES + 64];
	struct ustack_rec r;
	size_t len;

	len = make_record(buf, 42, 100, 100);
	is_int(ustack__parse(buf, len, &r), 0, "a well-formed record parses");
	is_int(r.tgid, 42, "its tgid");
	is_int(r.pid, 43, "its pid");
	is_int(r.kstack, 5, "its kernel stack id");
	is_int(r.ustack, 6, "its user stack id");
	ok(!strcmp(r.comm, "worker"), "its comm");
	is_int(r.regs[USTACK_REG_SP], 0x1007, "sp is DWARF register 7");
	is_int(r.regs[USTACK_REG_IP], 0x1010, "ip is DWARF register 16");
	is_int(r.size, 100, "its stack size");
	ok(r.stack == buf + USTACK_HDR && r.stack[99] == 99, "the stack points at the data");

	is_int(ustack__parse(buf, USTACK_HDR - 1, &r), -EINVAL, "shorter than its header: refused");
	is_int(ustack__parse(buf, 0, &r), -EINVAL, "empty: refused");
	is_int(ustack__parse(NULL, 500, &r), -EINVAL, "NULL: refused");
	len = make_record(buf, 42, 200, 100);
	is_int(ustack__parse(buf, len, &r), -EINVAL, "claims more stack than it carries: refused");
	len = make_record(buf, 42, 0xffffffffu, 100);
	is_int(ustack__parse(buf, len, &r), -EINVAL, "a size of 4 GB (wraps a 32-bit sum): refused");
	len = make_record(buf, 42, USTACK_MAX_BYTES + 8, USTACK_MAX_BYTES + 8);
	is_int(ustack__parse(buf, len, &r), -EINVAL, "more than the 8 KB a copy may hold: refused");
	len = make_record(buf, 0, 16, 16);
	is_int(ustack__parse(buf, len, &r), -EINVAL, "tgid 0 (the idle task has no user stack): refused");
	len = make_record(buf, 7, 0, 0);
	is_int(ustack__parse(buf, len, &r), 0, "a record with an empty copy parses (nothing to unwind)");
	len = make_record(buf, 7, USTACK_MAX_BYTES, USTACK_MAX_BYTES);
	is_int(ustack__parse(buf, len, &r), 0, "a full 8 KB copy parses");
	/* every truncation of a valid record is refused or stays inside the buffer */
	{
		int bad = 0;

		len = make_record(buf, 9, 300, 300);
		for (size_t cut = 0; cut < len; cut++) {
			int rc = ustack__parse(buf, cut, &r);

			if (rc == 0 && (size_t)(r.stack - buf) + r.size > cut)
				bad++;
			if (rc == 0 && cut < len)
				bad++; /* size says 300: anything shorter must be refused */
		}
		is_int(bad, 0, "every truncation of a record is refused");
	}
}

static void test_store(void)
{
	static uint8_t buf[USTACK_HDR + 4096];
	struct ustack_store s = { .budget = 10000 };
	struct ustack_rec r;

	make_record(buf, 5, 4096, 4096);
	ustack__parse(buf, sizeof(buf), &r);
	is_int(ustack_store__add(&s, &r), 0, "first copy kept");
	is_int(ustack_store__add(&s, &r), 0, "second copy kept");
	is_int(ustack_store__add(&s, &r), -ENOSPC, "third is over the 10,000-byte budget");
	is_int(s.over_budget, 1, "and counted");
	is_int(s.bytes, 8192, "the store holds what it kept");
	ok(s.v[0].stack != r.stack && s.v[0].stack[4095] == (uint8_t)4095, "a kept copy is the store's own");
	ustack_store__drop(&s, 0);
	is_int(s.bytes, 4096, "a dropped copy frees its bytes");
	ok(!s.v[0].stack && !s.v[0].size, "and is gone");
	ustack_store__drop(&s, 0);
	ustack_store__drop(&s, 99);
	is_int(s.bytes, 4096, "dropping twice or out of range does nothing");
	ustack_store__free(&s);
	is_int(s.n, 0, "freed");
}

/* Copies packed into chunks: each intact, a chunk unmapped when its last copy goes. */
static void test_store_chunks(void)
{
	static uint8_t buf[USTACK_HDR + USTACK_MAX_BYTES];
	struct ustack_store s = { .budget = 4u << 20 };
	struct ustack_rec r;
	size_t n = 0, bad = 0, first_chunk = 0;

	make_record(buf, 7, USTACK_MAX_BYTES, USTACK_MAX_BYTES);
	ustack__parse(buf, sizeof(buf), &r);
	for (uint32_t sz = 1; ustack_store__add(&s, &r) == 0; sz = sz * 7 % USTACK_MAX_BYTES + 1) {
		n++;
		r.size = sz; /* odd sizes: every copy still starts 16-byte aligned */
	}
	ok(n > 500, "copies of mixed sizes fill the 4 MiB budget (%zu)", n);
	ok(s.nchunk >= 2, "across several chunks (%zu)", s.nchunk);
	for (size_t i = 0; i < s.n; i++) {
		if ((uintptr_t)s.v[i].stack % 16 || s.v[i].chunk >= s.nchunk)
			bad++;
		for (uint32_t b = 0; b < s.v[i].size; b += 509)
			if (s.v[i].stack[b] != (uint8_t)b)
				bad++;
		if (s.v[i].chunk == 0)
			first_chunk++;
	}
	is_int(bad, 0, "every copy is aligned, in its chunk and intact");
	for (size_t i = 0; i + 1 < first_chunk; i++)
		ustack_store__drop(&s, i);
	ok(s.chunk[0].base != NULL, "a chunk stays while one of its copies does");
	ustack_store__drop(&s, first_chunk - 1);
	ok(s.chunk[0].base == NULL, "and is unmapped with its last copy");
	ok(s.v[first_chunk].stack && s.v[first_chunk].stack[509] == (uint8_t)509,
	   "the next chunk's copies are untouched");
	ustack_store__free(&s);
	is_int(s.nchunk, 0, "freed");
}

static void test_classify(void)
{
	is_int(unwind__classify(0, 6, 127, 1, 1, 0), UNWIND_END, "rc 0: the tables said outermost");
	is_int(unwind__classify(1, 127, 127, 1, 1, 0), UNWIND_DEPTH, "127 frames: the limit");
	is_int(unwind__classify(0, 9, 127, 1, 1, 1), UNWIND_STACK_END,
	       "rc 0 after a read above the copy: the stack was deeper than the copy");
	is_int(unwind__classify(-1, 3, 127, 1, 1, 1), UNWIND_STACK_END, "a failed read above the copy");
	is_int(unwind__classify(-1, 2, 127, 0, 0, 0), UNWIND_NO_MODULE, "a pc in no file: JIT code");
	is_int(unwind__classify(-1, 2, 127, 1, 0, 0), UNWIND_NO_CFI, "a file without unwind tables");
	is_int(unwind__classify(-1, 4, 127, 1, 1, 0), UNWIND_BAD_FRAME, "tables that led nowhere");
	is_str(unwind__stop_key(UNWIND_STACK_END), "stack_copy_end", "stop keys for the JSON");
	is_str(unwind__stop_key(UNWIND_STOP_NR), "?", "an out-of-range stop");

	is_int(causes__of_stack(0, "fp_broken", SYM_OK), CAUSE_NO_FRAME_POINTERS, "FP broken");
	is_int(causes__of_stack(0, "fp_broken", SYM_PROC_GONE), CAUSE_PROCESS_EXITED,
	       "FP broken in a process gone before its maps were read");
	is_int(causes__of_stack(1, "no_module", SYM_NO_MAPPING), CAUSE_JIT, "CFI stopped in JIT code");
	is_int(causes__of_stack(1, "no_cfi", SYM_OK), CAUSE_NO_CFI, "CFI: no table");
	is_int(causes__of_stack(1, "stack_copy_end", SYM_OK), CAUSE_STACK_COPY_END, "CFI: copy too short");
	is_int(causes__of_stack(1, "file_unreadable", SYM_OK), CAUSE_UNREADABLE, "CFI: unreadable file");
	is_int(causes__of_stack(1, "bad_frame", SYM_OK), CAUSE_CFI_BROKEN, "CFI: bad frame");
	is_int(causes__of_stack(1, NULL, SYM_OK), CAUSE_CFI_BROKEN, "no stop at all");
	is_int(causes__of_stack(1, "over_sample_budget", SYM_NO_MAPPING), CAUSE_UNWIND_BUDGET,
	       "CFI over its budget: that, whatever the FP stack's outer frame");
	is_int(causes__of_stack(1, "over_time_budget", SYM_OK), CAUSE_UNWIND_BUDGET, "out of time too");
	is_int(causes__of_stack(1, "tables_too_large", SYM_OK), CAUSE_TABLES_TOO_LARGE,
	       "CFI: a file refused to libdw");
	is_int(causes__of_stack(0, "lost_stack", SYM_OK), CAUSE_LOST_STACK,
	       "a user stack the stack map lost");
	is_str(unwind__stop_key(UNWIND_OVER_PROCESS), "over_process_budget", "budget stops' keys");
	is_int(causes__of_frame(SYM_NO_SYMBOL), CAUSE_STRIPPED, "a frame without symbol: stripped");
	is_int(causes__of_frame(SYM_KERNEL_HIDDEN), -1, "a kernel reason is not a user cause");
	is_str(causes__runtime("python3", ""), "python", "python by name");
	is_str(causes__runtime("worker", "a;_PyEval_EvalFrameDefault;b"), "python", "python by its eval loop");
	is_str(causes__runtime("node", ""), "node", "node");
	is_str(causes__runtime("C2 CompilerThre", "x;JavaThread::run;y"), "java", "java by its frames");
	ok(!causes__runtime("xz", "xz;lzma_code"), "xz is no runtime");
}

static void test_remedies(void)
{
	char b[768];

	causes__remedy(CAUSE_STRIPPED, "/usr/bin/xz", "xz-utils", NULL, "", "bookworm", b, sizeof(b));
	ok(strstr(b, "xz-utils-dbgsym") && strstr(b, "bookworm-debug"),
	   "stripped Debian binary: its -dbgsym and the debug archive (%s)", b);
	causes__remedy(CAUSE_STRIPPED, "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc6", NULL, "", NULL, b,
		       sizeof(b));
	ok(strstr(b, "libc6-dbg") && !strstr(b, "dbgsym"), "glibc's debug package is libc6-dbg (%s)", b);
	causes__remedy(CAUSE_STRIPPED, "/opt/app/bin/app", NULL, NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "no Debian package") && strstr(b, "/usr/lib/debug"), "stripped, no package (%s)", b);
	causes__remedy(CAUSE_STRIPPED, "/usr/bin/app", "", NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "dpkg -S /usr/bin/app") && !strstr(b, "no Debian package"),
	   "stripped, its owner not looked up in time: how to find it, never \"none\" (%s)", b);
	causes__remedy(CAUSE_INTERPRETER, "python3", NULL, "python", "", NULL, b, sizeof(b));
	ok(strstr(b, "-X perf"), "python: -X perf (%s)", b);
	causes__remedy(CAUSE_JIT, "java", NULL, "java", "", NULL, b, sizeof(b));
	ok(strstr(b, "PreserveFramePointer") && strstr(b, "perf-map-agent"), "java (%s)", b);
	causes__remedy(CAUSE_JIT, "node", NULL, "node", "", NULL, b, sizeof(b));
	ok(strstr(b, "--perf-basic-prof"), "node (%s)", b);
	causes__remedy(CAUSE_PROCESS_EXITED, "cc1", NULL, NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "process exited before symbolization"), "exited (%s)", b);
	causes__remedy(CAUSE_NO_FRAME_POINTERS, "/usr/bin/app", NULL, NULL,
		       "CFI unwinding off (SONDE_PROFILE_CFI=0)", NULL, b, sizeof(b));
	ok(strstr(b, "-fno-omit-frame-pointer") && strstr(b, "SONDE_PROFILE_CFI=0"),
	   "no frame pointers, CFI off: says both (%s)", b);
	causes__remedy(CAUSE_NO_CFI, "/usr/lib/libx.so", "libx1", NULL, "", "bookworm", b, sizeof(b));
	ok(strstr(b, "libx1-dbgsym") && strstr(b, ".debug_frame"), "no .eh_frame: the dbgsym's .debug_frame (%s)", b);
	causes__remedy(CAUSE_UNWIND_BUDGET, "/tmp/x", NULL, NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "/tmp/x") && strstr(b, "budget") && strstr(b, "frame-pointer stacks"),
	   "over budget: which file, and that its samples kept their FP stacks (%s)", b);
	causes__remedy(CAUSE_TABLES_TOO_LARGE, "/tmp/x", NULL, NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "/tmp/x") && strstr(b, "512 MiB"), "tables too large: the bound (%s)", b);
	causes__remedy(CAUSE_LOST_STACK, "xz", NULL, NULL, "", NULL, b, sizeof(b));
	ok(strstr(b, "stack map") && strstr(b, "collided"), "lost stacks: the map (%s)", b);
	causes__remedy(CAUSE_STACK_COPY_END, "/usr/bin/app", NULL, NULL, "", NULL, b, 40);
	is_int(strlen(b), 39, "a remedy is cut to the buffer");
}

static void test_dpkg(void)
{
	char dir[] = "/tmp/sonde-test-dpkg.XXXXXX", path[256];
	const char *paths[4] = { "/usr/lib/x86_64-linux-gnu/libfoo.so.1", "/usr/bin/bar",
				 "/opt/none", NULL };
	char *owners[4];
	FILE *f;

	ok(mkdtemp(dir) != NULL, "made %s", dir);
	snprintf(path, sizeof(path), "%s/libfoo1:amd64.list", dir);
	f = fopen(path, "w");
	fprintf(f, "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libfoo.so.1\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/bar.list", dir);
	f = fopen(path, "w");
	fprintf(f, "/usr/bin/bar\n/usr/share/doc/bar");
	fclose(f);
	snprintf(path, sizeof(path), "%s/bar.md5sums", dir);
	f = fopen(path, "w");
	fprintf(f, "0000 /opt/none\n");
	fclose(f);
	is_int(causes__dpkg_owners(dir, paths, 4, owners, 0), 0, "the lists are read");
	is_str(owners[0], "libfoo1", "a /usr/lib path found as /lib (usrmerge), :arch cut");
	is_str(owners[1], "bar", "a path on a last line without newline");
	ok(!owners[2], "a path only in a .md5sums is no package's");
	ok(!owners[3], "a NULL path has no owner");
	for (int i = 0; i < 4; i++)
		free(owners[i]);
	is_int(causes__dpkg_owners("/nonexistent-sonde", paths, 2, owners, 0), -ENOENT,
	       "no dpkg: -ENOENT, no owners");
	ok(!owners[0] && !owners[1], "and the owners are NULL");
	{
		/* paths no package installs to: the lists are not even opened */
		const char *elsewhere[3] = { "/tmp/a.out", "/home/u/app", NULL };

		is_int(causes__dpkg_owners("/nonexistent-sonde", elsewhere, 3, owners, 0), 0,
		       "paths outside /usr, /lib, /bin, /sbin, /opt: no list read");
		ok(!owners[0] && !owners[1] && !owners[2], "and no owners");
		is_int(causes__dpkg_owners(dir, paths, 4, owners, 1e-9), 1,
		       "a budget that runs out before the first list: cut short (1)");
		ok(!owners[0] && !owners[1], "and the owners are unknown");
	}
	snprintf(path, sizeof(path), "%s/bar.md5sums", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bar.list", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/libfoo1:amd64.list", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- the budget ---- */

static void test_budget(void)
{
	struct unwind_budget b;

	unwind_budget__init(&b);
	ok(b.sample_max == UNWIND_SAMPLE_STEPS && b.process_max == UNWIND_PROCESS_STEPS &&
		   b.run_max == UNWIND_RUN_STEPS && b.run_ns_max == UNWIND_RUN_NS,
	   "the default budget");
	b.sample_max = 100;
	b.process_max = 250;
	b.run_max = 400;
	b.run_ns_max = 1000;
	is_int(unwind_budget__admit(&b, 1, 5000), UNWIND_STOP_NR, "a first sample is admitted");
	is_int(unwind_budget__charge(&b, 60), UNWIND_STOP_NR, "a frame of 60 steps fits");
	is_int(unwind_budget__charge(&b, 60), UNWIND_OVER_SAMPLE, "a second one would pass 100");
	is_int(b.sample, 60, "... and is not charged");
	is_int(unwind_budget__admit(&b, 0, 5100), UNWIND_STOP_NR, "the next sample starts afresh");
	is_int(unwind_budget__charge(&b, 100), UNWIND_STOP_NR, "100 steps: the sample's all");
	is_int(unwind_budget__admit(&b, 0, 5200), UNWIND_STOP_NR, "a third sample");
	is_int(unwind_budget__charge(&b, 100), UNWIND_OVER_PROCESS,
	       "160 spent: 100 more would pass the process's 250");
	is_int(unwind_budget__admit(&b, 0, 5300), UNWIND_OVER_PROCESS,
	       "the process is used up: its next sample is not walked");
	is_int(unwind_budget__admit(&b, 1, 5400), UNWIND_STOP_NR, "another process is admitted");
	is_int(unwind_budget__charge(&b, 90), UNWIND_STOP_NR, "250 spent in the run");
	is_int(unwind_budget__admit(&b, 0, 5500), UNWIND_STOP_NR, "its next sample");
	is_int(unwind_budget__charge(&b, 100), UNWIND_STOP_NR, "350 spent in the run");
	is_int(unwind_budget__admit(&b, 1, 5600), UNWIND_STOP_NR, "a third process");
	is_int(unwind_budget__charge(&b, 60), UNWIND_OVER_RUN, "60 more would pass the run's 400");
	is_int(unwind_budget__admit(&b, 1, 5700), UNWIND_OVER_RUN, "the run is used up: no process walks");
	ok(b.run <= b.run_max && b.process <= b.process_max, "nothing was charged past a budget");
	unwind_budget__init(&b);
	b.run_ns_max = 1000;
	is_int(unwind_budget__admit(&b, 1, 7000), UNWIND_STOP_NR, "the clock starts at the first sample");
	is_int(unwind_budget__admit(&b, 0, 8000), UNWIND_STOP_NR, "a sample at the run's time");
	is_int(unwind_budget__admit(&b, 1, 8001), UNWIND_OVER_TIME, "a sample after it is not walked");
}

/* Rules as libdw hands them out (dwarf_frame_register: its synthesized ones, and expressions). */
static void test_rule_steps(void)
{
	Dwarf_Op val_offset[] = { { .atom = DW_OP_call_frame_cfa },
				  { .atom = DW_OP_plus_uconst, .number = 8 },
				  { .atom = DW_OP_stack_value } };
	Dwarf_Op breg[] = { { .atom = DW_OP_bregx, .number = 7, .number2 = 16 } };
	/* lit1; L: dup; bra L (offsets 0, 1, 2): -3 is the bra itself, -4 the dup */
	Dwarf_Op loop[] = { { .atom = DW_OP_lit1, .offset = 0 }, { .atom = DW_OP_dup, .offset = 1 },
			    { .atom = DW_OP_bra, .number = (uint16_t)-4, .offset = 2 } };
	Dwarf_Op fwd[] = { { .atom = DW_OP_call_frame_cfa, .offset = 0 },
			   { .atom = DW_OP_skip, .number = 1, .offset = 1 },
			   { .atom = DW_OP_nop, .offset = 4 }, { .atom = DW_OP_nop, .offset = 5 } };
	Dwarf_Op cfa_loop[] = { { .atom = DW_OP_call_frame_cfa, .offset = 0 },
				{ .atom = DW_OP_skip, .number = (uint16_t)-4, .offset = 1 } };
	static Dwarf_Op many[5000];

	is_int(unwind__rule_steps(val_offset, 3, 1), 4, "a saved register: 3 operations and the CFA's 1");
	is_int(unwind__rule_steps(breg, 1, 0), 1, "a CFA of a register and an offset: 1");
	is_int(unwind__rule_steps(fwd, 4, 10), 14, "a forward skip is no loop: 4 steps and the CFA's 10");
	is_int(unwind__rule_steps(loop, 3, 10), 4096,
	       "a backward branch without CFA: libdw's 4,096 steps at most");
	is_int(unwind__rule_steps(cfa_loop, 2, 4003), 4096ull * 4004,
	       "a loop over DW_OP_call_frame_cfa: each of 4,096 steps may evaluate the CFA again");
	for (size_t i = 0; i < 5000; i++)
		many[i] = (Dwarf_Op){ .atom = DW_OP_nop, .offset = i };
	is_int(unwind__rule_steps(many, 5000, 0), 4096, "5,000 operations: libdw stops at 4,096");
}

/* ---- libdw on a real stack ---- */

static struct ustack_rec live;
static uint8_t live_copy[USTACK_MAX_BYTES];
static uintptr_t stack_top;

#if defined(__x86_64__)
/* The registers here and up to 8 KB of the stack from sp, as the BPF program copies them. */
__attribute__((noinline)) static void capture(void)
{
	uint64_t *r = live.regs;
	size_t n;

	__asm__ volatile("movq %%rax, 0(%0)\n\tmovq %%rdx, 8(%0)\n\tmovq %%rcx, 16(%0)\n\t"
			 "movq %%rbx, 24(%0)\n\tmovq %%rsi, 32(%0)\n\tmovq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\tmovq %%rsp, 56(%0)\n\tmovq %%r8, 64(%0)\n\t"
			 "movq %%r9, 72(%0)\n\tmovq %%r10, 80(%0)\n\tmovq %%r11, 88(%0)\n\t"
			 "movq %%r12, 96(%0)\n\tmovq %%r13, 104(%0)\n\tmovq %%r14, 112(%0)\n\t"
			 "movq %%r15, 120(%0)\n\tleaq 0(%%rip), %%rax\n\tmovq %%rax, 128(%0)\n\t"
			 : : "r"(r) : "rax", "memory");
	n = stack_top - r[USTACK_REG_SP];
	n = n > sizeof(live_copy) ? sizeof(live_copy) : n;
	memcpy(live_copy, (void *)(uintptr_t)r[USTACK_REG_SP], n);
	live.size = (uint32_t)n;
	live.stack = live_copy;
}
#else
static void capture(void)
{
}
#endif

volatile int sink;
__attribute__((noinline)) void sonde_unwind_capture(void) { capture(); sink++; }
__attribute__((noinline)) void sonde_unwind_three(void) { capture(); sink++; }
__attribute__((noinline)) void sonde_unwind_two(void) { sonde_unwind_three(); sink++; }
__attribute__((noinline)) void sonde_unwind_one(void) { sonde_unwind_two(); sink++; }

#if defined(__x86_64__)
/*
 * Legal unwind rules that cost libdw about 41 million steps to evaluate
 * (issue 27): the CFA is rsp + 16, computed by a loop of 1,000 rounds (4,003
 * steps, under libdw's 4,096 per expression), and registers 0-6 and 8-15
 * keep their value after a loop of 680 rounds that each evaluate the CFA.
 */
__asm__("	.text\n"
	"	.globl	sonde_unwind_costly\n"
	"	.type	sonde_unwind_costly, @function\n"
	"sonde_unwind_costly:\n"
	"	.cfi_startproc\n"
	"	subq	$8, %rsp\n"
	"	.cfi_escape 0x0f, 12, 0x77, 0x10, 0x10, 0xe8, 0x07, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff, 0x13\n"
	"	.irp reg, 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15\n"
	"	.cfi_escape 0x16, \\reg, 14, 0x10, 0xa8, 0x05, 0x9c, 0x13, 0x31, 0x1c, 0x12, 0x28, 0xf8, 0xff, 0x13, 0x70 + \\reg, 0x00\n"
	"	.endr\n"
	"	call	sonde_unwind_capture\n"
	"	addq	$8, %rsp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	sonde_unwind_costly, .-sonde_unwind_costly\n");
void sonde_unwind_costly(void);
#endif

static int costly;

static void *thread_main(void *arg)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	(void)arg;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	stack_top = (uintptr_t)addr + size;
	live.tgid = (uint32_t)getpid();
	live.pid = (uint32_t)gettid();
#if defined(__x86_64__)
	if (costly) {
		sonde_unwind_costly();
		return NULL;
	}
#endif
	sonde_unwind_one();
	return NULL;
}

static void test_live(void)
{
#if !defined(__x86_64__)
	printf("ok %d - # SKIP CFI unwinding is x86_64 only\n", ++tap_n);
#else
	struct symbolizer *sym = symbolizer__new();
	struct unwinder *u = unwinder__new(sym);
	uint64_t ips[127];
	enum unwind_stop stop;
	pthread_t th;
	int n, at = -1, whole = 0;
	char chain[512] = "";

	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	ok(live.size > 256, "copied %u bytes of the thread's stack", live.size);
	n = unwinder__unwind(u, &live, ips, 127, &stop, NULL);
	ok(n >= 5, "unwound %d frames (stop %s)", n, unwind__stop_key(stop));
	for (int i = 0; i < n; i++) {
		enum sym_why w;
		const char *name = symbolizer__user(sym, (int)live.tgid, ips[i] - (i ? 1 : 0), &w);

		if (strlen(chain) + strlen(name) + 2 < sizeof(chain)) {
			strcat(chain, name);
			strcat(chain, " ");
		}
		if (at < 0 && !strcmp(name, "sonde_unwind_three"))
			at = i;
		if (!strcmp(name, "start_thread") || !strcmp(name, "clone3") || !strcmp(name, "__clone3"))
			whole = 1;
	}
	printf("# %s\n", chain);
	ok(at >= 0 && at + 2 < n, "sonde_unwind_three is on the stack, two more frames above it");
	if (at >= 0 && at + 2 < n) {
		enum sym_why w;

		is_str(symbolizer__user(sym, (int)live.tgid, ips[at + 1] - 1, &w), "sonde_unwind_two",
		       "its caller sonde_unwind_two (built without frame pointers)");
		is_str(symbolizer__user(sym, (int)live.tgid, ips[at + 2] - 1, &w), "sonde_unwind_one",
		       "and sonde_unwind_one");
	}
	ok(whole, "the walk reaches the thread's start (start_thread or clone3)");

	/* the same copy cut to 64 bytes: the walk stops with the copy, and says so */
	live.size = 64;
	n = unwinder__unwind(u, &live, ips, 127, &stop, NULL);
	is_int(stop, UNWIND_STACK_END, "a 64-byte copy: stack_copy_end (%d frames)", n);
	/* a process never seen: its maps are read now; tgid of no process */
	live.tgid = 0x7ffffff0;
	n = unwinder__unwind(u, &live, ips, 127, &stop, NULL);
	is_int(n, 0, "a process that does not exist: no frames");
	is_int(stop, UNWIND_PROC_GONE, "and process_exited");
	unwinder__free(u);
	symbolizer__free(sym);
#endif
}

/* A thread stopped in sonde_unwind_capture under sonde_unwind_costly (or the plain chain). */
static void capture_in(int in_costly)
{
	pthread_t th;

	costly = in_costly;
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	costly = 0;
}

static void test_live_budget(void)
{
#if !defined(__x86_64__)
	printf("ok %d - # SKIP CFI unwinding is x86_64 only\n", ++tap_n);
#else
	struct symbolizer *sym = symbolizer__new();
	struct unwinder *u = unwinder__new(sym);
	struct unwind_budget *b = unwinder__budget(u);
	uint64_t ips[127], pc = 0;
	enum unwind_stop stop;
	enum sym_why w;
	int64_t t0;
	int n;

	capture_in(1);
	t0 = clock__ns(CLOCK_MONOTONIC);
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	printf("# refused in %.1f ms, %llu steps charged\n", (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6,
	       (unsigned long long)b->run);
	is_int(stop, UNWIND_OVER_SAMPLE, "rules that cost libdw 41 million steps: over the sample's budget");
	is_int(n, 0, "... no CFI stack: the sample keeps its frame-pointer one");
	is_str(symbolizer__user(sym, (int)live.tgid, pc, &w), "sonde_unwind_costly",
	       "the stop names the frame whose rules were too costly");
	ok(b->run < UNWIND_SAMPLE_STEPS, "what was charged is the frames walked before it (%llu steps)",
	   (unsigned long long)b->run);

	/* the plain chain under a process budget of 1,000 steps: 4 frames fit, the 5th does not */
	capture_in(0);
	unwinder__free(u);
	u = unwinder__new(sym);
	b = unwinder__budget(u);
	b->process_max = 4 * (UNWIND_FRAME_STEPS + 40);
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	is_int(stop, UNWIND_OVER_PROCESS, "a process budget of 4 frames: the walk stops over it");
	is_int(n, 0, "... and is dropped");
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	is_int(stop, UNWIND_OVER_PROCESS, "the process's next sample is not walked");
	is_int(pc, live.regs[USTACK_REG_IP], "... its stop is where it was sampled");
	unwinder__free(u);
	u = unwinder__new(sym);
	b = unwinder__budget(u);
	b->run_ns_max = 0;
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	is_int(stop, UNWIND_END, "no CPU time left: the first sample starts the clock (%d frames)", n);
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	is_int(stop, UNWIND_OVER_TIME, "the run's CPU time used up: no sample after it is walked");
	unwinder__free(u);
	/* and within the default budget the chain unwinds whole, as before */
	u = unwinder__new(sym);
	n = unwinder__unwind(u, &live, ips, 127, &stop, &pc);
	is_int(stop, UNWIND_END, "the default budget: the chain to its end (%d frames)", n);
	unwinder__free(u);
	symbolizer__free(sym);
#endif
}

int main(void)
{
	test_parse();
	test_store();
	test_store_chunks();
	test_classify();
	test_budget();
	test_rule_steps();
	test_remedies();
	test_dpkg();
	test_live();
	test_live_budget();
	return tap_done();
}
