// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

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

/* n digits at s as a number within [lo, hi]; -1 when they are not. */
static int digits(const char *s, int n, int lo, int hi)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v < lo || v > hi ? -1 : v;
}

int clock__parse_iso8601(const char *s, int64_t *out)
{
	static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
	struct tm tm = { 0 };

	for (size_t i = 0; i < sizeof(form) - 1; i++)
		if (!s || !s[i] || (form[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != form[i]))
			return -EINVAL;
	if (s[sizeof(form) - 1])
		return -EINVAL;
	tm.tm_year = digits(s, 4, 1970, 9999) - 1900;
	tm.tm_mon = digits(s + 5, 2, 1, 12) - 1;
	tm.tm_mday = digits(s + 8, 2, 1, 31);
	tm.tm_hour = digits(s + 11, 2, 0, 23);
	tm.tm_min = digits(s + 14, 2, 0, 59);
	tm.tm_sec = digits(s + 17, 2, 0, 60);
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mday < 0 || tm.tm_hour < 0 || tm.tm_min < 0 ||
	    tm.tm_sec < 0)
		return -EINVAL;
	*out = (int64_t)timegm(&tm);
	return 0;
}

int64_t clock__iso8601_ns(const char *s)
{
	int64_t t;

	return s && !clock__parse_iso8601(s, &t) ? t * 1000000000LL : 0;
}
