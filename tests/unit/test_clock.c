// SPDX-License-Identifier: GPL-2.0-or-later
/* Timestamps (util/clock.h): ISO 8601 written and read back, and what is refused. */
#include <errno.h>
#include <stdint.h>

#include "util/clock.h"
#include "tap.h"

static void test_iso8601(void)
{
	static const char *const bad[] = {
		"", "2026-11-21T15:30:00", "2026-11-21T15:30:00Z ", "2026-11-21 15:30:00Z",
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-21T24:00:00Z",
		"2026-11-21T15:60:00Z", "1969-12-31T23:59:59Z", "~026-11-21T15:30:00Z",
		"+026-11-21T15:30:00Z", "2026-1-21T15:30:00ZZ", "99999-11-21T15:30:00Z",
	};
	char buf[64];
	int64_t t = -1;

	ok(!clock__parse_iso8601("1970-01-01T00:00:00Z", &t) && t == 0, "the epoch is 0");
	ok(!clock__parse_iso8601("2026-11-21T15:30:00Z", &t) && t == 1795275000,
	   "a time as clock__iso8601 writes it");
	clock__iso8601(t * 1000000000LL, buf, sizeof(buf), 0);
	is_str(buf, "2026-11-21T15:30:00Z", "and written back the same");
	ok(!clock__parse_iso8601("2999-01-01T00:00:00Z", &t) && t > 32000000000LL,
	   "a time far in the future is a time");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(clock__parse_iso8601(bad[i], &t) == -EINVAL, "refused: '%s'", bad[i]);
	ok(clock__parse_iso8601(NULL, &t) == -EINVAL, "refused: NULL");
}

int main(void)
{
	test_iso8601();
	return tap_done();
}
