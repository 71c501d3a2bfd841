/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User stack copies for CFI unwinding (issue 14): the records the profile's
 * BPF program writes to its ring buffer (the user registers and up to 8 KB of
 * the user stack of one sample, with the sample's counts key), parsed without
 * trusting them, kept in a bounded store during the window by a reader thread,
 * and dropped once unwound (core/perf/unwind.c).
 *
 * Record layout (bpf/profile.h struct profile_ustack, little endian host
 * order): 0 key (tgid u32, pid u32, kstack s32, ustack s32, comm[16]),
 * 32 regs u64[17] (x86_64 DWARF order), 168 size u32, 172 flags u32,
 * 176 data[size] (size <= USTACK_MAX_BYTES).
 */
#ifndef SONDE_USTACK_H
#define SONDE_USTACK_H

#include <stddef.h>
#include <stdint.h>

#define USTACK_NREGS 17
#define USTACK_MAX_BYTES 8192
#define USTACK_HDR 176
#define USTACK_REG_SP 7
#define USTACK_REG_IP 16

struct ustack_rec {
	uint32_t tgid, pid;
	int32_t kstack, ustack;
	char comm[16];
	uint64_t regs[USTACK_NREGS];
	uint32_t size, flags;
	uint8_t *stack;            /* size bytes from regs[USTACK_REG_SP] up; owned by the store */
	uint32_t chunk;            /* the store's: which of its chunks holds the copy */
};

/*
 * Parse one ring record of len bytes. 0, or -EINVAL when it is shorter than
 * its header, claims more stack than it carries or than USTACK_MAX_BYTES, or
 * has a zero tgid; out->stack then points into data (not copied).
 */
int ustack__parse(const void *data, size_t len, struct ustack_rec *out);

/*
 * The copies of one window, bounded in bytes. They are packed into chunks of
 * USTACK_CHUNK bytes mapped with their pages already in (MAP_POPULATE): one
 * mmap for some hundred copies, where a malloc each grew the heap a few pages
 * at a time and faulted every page in on its own (a reader thread's arena:
 * an mprotect and two page faults a copy, most of the reader's CPU). A chunk
 * is unmapped when the last copy in it is dropped.
 */
#define USTACK_CHUNK (1u << 20)

struct ustack_chunk {
	uint8_t *base;             /* NULL once unmapped */
	size_t size, used, live;   /* bytes mapped and handed out; copies still in it */
};

struct ustack_store {
	struct ustack_rec *v;
	size_t n, cap;
	size_t bytes, budget;      /* stack bytes held, and the most it may hold */
	struct ustack_chunk *chunk;
	size_t nchunk, chunkcap;
	uint64_t kept, over_budget, bad, bytes_copied;
};

/* Keep a copy of a parsed record (its stack copied): 0, -ENOSPC over budget, -ENOMEM. */
int ustack_store__add(struct ustack_store *s, const struct ustack_rec *r);
/* Free one record's stack (after unwinding it), or all of the store. */
void ustack_store__drop(struct ustack_store *s, size_t i);
void ustack_store__free(struct ustack_store *s);

/*
 * The reader: a thread draining the BPF ring buffer map ring_fd into store
 * every interval_ms; when the store is full it writes 0 to the BPF program's
 * switch (u32 value at key 0 of the array map ctl_fd, -1: none) so the
 * kernel stops copying.
 * NULL when the ring cannot be opened (the profile then keeps FP stacks only).
 */
struct ustack_reader;
struct ustack_reader *ustack_reader__start(int ring_fd, struct ustack_store *store,
					   int ctl_fd, int interval_ms);
/* Stops the thread after a last drain; the store is the caller's again. NULL is fine. */
void ustack_reader__stop(struct ustack_reader *r);

#endif
