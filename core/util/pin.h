/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sonde's own code kept in memory for the run. A host in trouble is where
 * sonde runs: a disk saturated for seconds per request, with its page cache
 * reclaimed (proactive reclaim such as DAMON, memory.reclaim, or plain
 * pressure). sonde's text, cold since its last run, then faults in from that
 * disk a page at a time, each fault a wait as long as the disk's queue, in
 * the middle of a sampling round: the round misses the window. Locking the
 * executable's code at start reads it in once, before the window, and keeps
 * it there until exit.
 */
#ifndef SONDE_PIN_H
#define SONDE_PIN_H

#include <stddef.h>

/*
 * Lock the executable's own code (its r-x mappings of /proc/self/exe) in
 * memory: mlock, or where that is refused (RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK) read in without the lock (MADV_POPULATE_READ, Linux 5.14;
 * MADV_WILLNEED before). *bytes is the size of the code, *how "locked",
 * "populated", "advised". 0, or -errno when /proc/self/maps cannot be read or
 * no mapping of the executable was found.
 */
int pin__own_text(size_t *bytes, const char **how);

#endif
