// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/clock.h"

int64_t clock__ns(int clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock__iso8601(int64_t wall_ns, char *buf, size_t len, int compact)
{
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}
