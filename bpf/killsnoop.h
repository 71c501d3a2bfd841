/* SPDX-License-Identifier: GPL-2.0-or-later */
/* killsnoop: signals generated during the window; shared with user space. */
#ifndef SONDE_KILLSNOOP_H
#define SONDE_KILLSNOOP_H

#define KILLSNOOP_MAX_KEYS 4096 /* distinct (sender, target, signal, result, code) */
#define KILLSNOOP_FATAL_BYTES (64 * 1024) /* ring buffer of fatal signals: ~800 records */

/* SIGHUP INT QUIT ILL ABRT BUS FPE KILL SEGV TERM XCPU XFSZ SYS: default action terminate */
#define KILLSNOOP_FATAL_DEFAULT                                                               \
	((1ULL << 1) | (1ULL << 2) | (1ULL << 3) | (1ULL << 4) | (1ULL << 6) | (1ULL << 7) |  \
	 (1ULL << 8) | (1ULL << 9) | (1ULL << 11) | (1ULL << 15) | (1ULL << 24) |            \
	 (1ULL << 25) | (1ULL << 31))

struct killsnoop_key {
	__u32 sender_tgid;  /* the process running when the signal was generated */
	__u32 target_pid;   /* the thread the signal was generated for */
	__s32 sig, result;  /* result: TRACE_SIGNAL_DELIVERED (0), IGNORED, ALREADY_PENDING, ... */
	__s32 code;         /* si_code: SI_USER (kill), SI_TKILL, SI_KERNEL, fault codes, ... */
	char sender_comm[16];
	char target_comm[16];
};

struct killsnoop_val {
	__u64 count, first_ns, last_ns;
	__u32 sender_pid;   /* the sending thread, last seen */
	__u32 target_tgid;  /* 0: unknown (classic tracepoint) */
	__u32 group;        /* sent to the whole thread group, last seen */
};

struct killsnoop_event {
	__u64 ts_ns;
	__u32 sender_pid, sender_tgid, target_pid, target_tgid;
	__s32 sig, result, code, group;
	char sender_comm[16];
	char target_comm[16];
};

#endif
