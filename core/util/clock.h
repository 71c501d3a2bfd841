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

/*
 * The UTC time clock__iso8601 writes ("2026-11-21T15:30:00Z", exactly that
 * form, every field in its range) as seconds since the epoch; 0 with *out, or
 * -EINVAL for anything else (from a bundle: untrusted text).
 */
int clock__parse_iso8601(const char *s, int64_t *out);
/* The same in ns since the epoch; 0 for NULL or anything that does not parse. */
int64_t clock__iso8601_ns(const char *s);

#endif
