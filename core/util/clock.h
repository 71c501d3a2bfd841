/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clocks and timestamps. */
#ifndef SONDE_CLOCK_H
#define SONDE_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* clock_gettime(clk) in nanoseconds (CLOCK_MONOTONIC, CLOCK_REALTIME, ...). */
int64_t clock__ns(int clk);

/*
 * A wall-clock time (ns since the epoch) as UTC ISO 8601: "2026-11-21T15:30:00Z",
 * or with compact "20261121T153000Z" (for file names).
 */
void clock__iso8601(int64_t wall_ns, char *buf, size_t len, int compact);

/* "2026-11-21T15:30:00Z" (what clock__iso8601 writes) -> ns since the epoch; 0 when it does not parse. */
int64_t clock__iso8601_parse(const char *s);

#endif
