/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Numbers for people: the one formatter of every number sonde prints for a
 * reader (the report, sonde diff, fleet, the terminal, and the checks'
 * sentences through the sandbox's `units` library). Three significant
 * digits, trailing zeros dropped, never an exponent: SI prefixes (k, M, G,
 * T, P, E) for counts and rates ("21.6k/s"), binary ones for bytes ("440
 * KiB/s"), durations in the unit that reads best ("2.8 ms", "47 h"), and a
 * counted noun in the singular for one ("1 sample"). Machine outputs (JSON,
 * Prometheus) keep their full numbers and never come through here.
 */
#ifndef SONDE_UNITS_H
#define SONDE_UNITS_H

#include <stddef.h>

/*
 * v with three significant digits and an SI prefix from 1000 on: "0",
 * "0.0028", "4.5", "438", "4.39k", "21.6M"; "n/a" for NaN, "inf" and
 * "-inf". Returns what snprintf would.
 */
int units__num(char *buf, size_t len, double v);
/* The same without a prefix: "1500", "0.168" (a percentage, a ratio). */
int units__plain(char *buf, size_t len, double v);
/*
 * v in unit, as a reader wants it:
 *   "%"                  "65.6%", "0.168%"
 *   "ratio", "", NULL    "0.75", "4.39k"
 *   "bytes", "bytes/s"   "512 B", "440 KiB/s", "1.5 GiB" (binary, from 1000 of a unit on)
 *   "ns" "us" "ms" "s"   "850 ns", "12.3 us", "2.8 ms", "4.5 s", "1.67 min", "47 h", "3.2 days"
 *   "/s"                 "21.6k/s"
 *   a counted noun       "1 sample", "3 samples", "1 process", "2 CPUs", "12.3k threads"
 *   anything else        "12.3 MB/s", "4.39k pages/s"
 */
int units__value(char *buf, size_t len, double v, const char *unit);
/*
 * A range lo..hi in unit, the unit said once when both ends share it:
 * "64-128 us", "512 us-1.02 ms", "0-2 us".
 */
int units__range(char *buf, size_t len, double lo, double hi, const char *unit);
/*
 * The singular of a counted noun unit ("samples" -> "sample", "processes"
 * -> "process", "CPUs" -> "CPU") into buf; 0 when unit is not one (a
 * symbol: "s", "ms", "bytes", a rate: "packets/s", or not a plural).
 */
int units__singular(char *buf, size_t len, const char *unit);

#endif
