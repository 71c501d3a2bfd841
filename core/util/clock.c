// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

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

int64_t clock__iso8601_parse(const char *s)
{
	struct tm tm = { 0 };
	char z = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000LL;
}
