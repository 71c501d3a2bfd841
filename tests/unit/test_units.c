// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/units.c: numbers for people. Three significant digits, never an
 * exponent, SI prefixes for counts and rates, binary ones for bytes,
 * durations in the unit that reads best, a counted noun singular for one;
 * the figures the issue named ("2.155e+04 /s", "4.506e+05 bytes/s",
 * "queue_size 0.002803", "1 samples") as people read them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/units.h"
#include "tap.h"

static const char *val(double v, const char *unit)
{
	static char buf[128];

	units__value(buf, sizeof(buf), v, unit);
	return buf;
}

static const char *num(double v)
{
	static char buf[128];

	units__num(buf, sizeof(buf), v);
	return buf;
}

int main(void)
{
	static const struct {
		double v;
		const char *unit, *want;
	} cases[] = {
		/* the figures */
		{ 21550, "/s", "21.6k/s" },
		{ 450600, "bytes/s", "440 KiB/s" },
		{ 0.002803, "", "0.0028" },
		{ 1, "samples", "1 sample" },
		{ 2.8, "ms", "2.8 ms" },
		/* plain numbers */
		{ 0, "", "0" },
		{ 438, "", "438" },
		{ 4389, "", "4.39k" },
		{ 456400, NULL, "456k" },
		{ 999.6, "", "1k" },
		{ 1.047e6, "", "1.05M" },
		{ -12345, "", "-12.3k" },
		{ 4.5, "", "4.5" },
		{ 1e21, "", "1000E" },
		/* percentages and ratios: no prefix */
		{ 65.60402684563759, "%", "65.6%" },
		{ 100, "%", "100%" },
		{ 0.16778, "%", "0.168%" },
		{ 1500, "%", "1500%" },
		{ 0.75, "ratio", "0.75" },
		/* bytes */
		{ 512, "bytes", "512 B" },
		{ 1000, "bytes", "0.977 KiB" },
		{ 1024, "bytes", "1 KiB" },
		{ 25276502016.0, "bytes", "23.5 GiB" },
		{ 1.047e6, "bytes/s", "0.998 MiB/s" },
		/* durations */
		{ 850, "ns", "850 ns" },
		{ 0.0123, "ms", "12.3 us" },
		{ 999.6, "us", "1 ms" },
		{ 12345, "ms", "12.3 s" },
		{ 169000, "s", "46.9 h" },
		{ 100, "s", "1.67 min" },
		{ 300000, "s", "3.47 days" },
		/* counted nouns, singular for one */
		{ 3, "samples", "3 samples" },
		{ 0, "samples", "0 samples" },
		{ 1, "processes", "1 process" },
		{ 1, "switches", "1 switch" },
		{ 1, "CPUs", "1 CPU" },
		{ 2, "CPUs", "2 CPUs" },
		{ 12300, "threads", "12.3k threads" },
		{ 1, "bytes", "1 B" },
		{ 1, "s", "1 s" },
		{ 1, "packets/s", "1 packets/s" },
		{ 1.0004, "threads", "1 thread" },
		/* other units */
		{ 12.34, "MB/s", "12.3 MB/s" },
		{ 4389, "pages/s", "4.39k pages/s" },
	};
	char buf[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		is_str(val(cases[i].v, cases[i].unit), cases[i].want, "%g %s -> %s", cases[i].v,
		       cases[i].unit ? cases[i].unit : "(none)", cases[i].want);
	is_str(num(NAN), "n/a", "NaN is n/a");
	is_str(num(INFINITY), "inf", "infinity");
	is_str(val(-INFINITY, "ms"), "-inf", "minus infinity in a unit");
	ok(!strchr(num(1.234e-7), 'e'), "a tiny number has no exponent: %s", num(1.234e-7));
	ok(!strchr(num(1e300), 'e'), "a huge number has no exponent: %s", num(1e300));
	is_int(units__num(buf, sizeof(buf), 123456789), (int)strlen("123M"), "snprintf's count");
	is_str(buf, "123M", "into a small buffer");
	return tap_done();
}
