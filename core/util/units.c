// SPDX-License-Identifier: GPL-2.0-or-later
/* Numbers for people (units.h): three significant digits, SI or binary prefixes, no exponent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

/*
 * |v| rounded to three significant digits, as its digits "438" and its
 * decimal exponent (4.39e3: 3), through printf's own rounding so that
 * 999.6 is 1.00e3 and never "1000" printed as three digits.
 */
static double round3(double a, int *e10)
{
	char tmp[32], *end;

	snprintf(tmp, sizeof(tmp), "%.2e", a);
	*e10 = (int)strtol(strchr(tmp, 'e') + 1, &end, 10);
	return strtod(tmp, NULL);
}

/* r (three significant digits, exponent e10) with its decimals, trailing zeros dropped. */
static int put3(char *buf, size_t len, const char *sign, double r, int e10, const char *prefix)
{
	int decimals = e10 >= 2 ? 0 : 2 - e10;
	char num[64];
	size_t n;

	if (decimals > 12)
		decimals = 12;
	snprintf(num, sizeof(num), "%.*f", decimals, r);
	n = strlen(num);
	if (decimals) {
		while (n && num[n - 1] == '0')
			num[--n] = '\0';
		if (n && num[n - 1] == '.')
			num[--n] = '\0';
	}
	return snprintf(buf, len, "%s%s%s", sign, num, prefix);
}

static int special(char *buf, size_t len, double v)
{
	if (isnan(v))
		return snprintf(buf, len, "n/a");
	return snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
}

/* v with prefixes from base (1000 or 1024) on, of the names given, or none. */
static int scaled(char *buf, size_t len, double v, double base, const char *const *names,
		  int nnames)
{
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v), r;
	int e10, k = 0;

	if (!isfinite(v))
		return special(buf, len, v);
	if (a == 0)
		return snprintf(buf, len, "0%s", nnames ? names[0] : "");
	r = round3(a, &e10);
	/* The next prefix once the rounded value has four digits: 1000 B is 0.977 KiB. */
	while (k + 1 < nnames && r >= 1000) {
		a /= base;
		k++;
		r = round3(a, &e10);
	}
	return put3(buf, len, sign, r, e10, nnames ? names[k] : "");
}

int units__num(char *buf, size_t len, double v)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };

	return scaled(buf, len, v, 1000, si, 7);
}

int units__plain(char *buf, size_t len, double v)
{
	return scaled(buf, len, v, 1000, NULL, 0);
}

static int bytes(char *buf, size_t len, double v, const char *per)
{
	static const char *const iec[] = { " B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB" };
	char num[64];

	scaled(num, sizeof(num), v, 1024, iec, 7);
	return snprintf(buf, len, "%s%s", num, per);
}

/* A duration of v ns in the unit that reads best. */
static int duration(char *buf, size_t len, double ns)
{
	static const struct {
		double below, div;
		const char *name;
	} ladder[] = {
		{ 1e3, 1, "ns" },           { 1e6, 1e3, "us" },
		{ 1e9, 1e6, "ms" },         { 100e9, 1e9, "s" },
		/* a time to exhaustion of 1.69e+05 s is 47 h */
		{ 6000e9, 60e9, "min" },    { 172800e9, 3600e9, "h" },
		{ INFINITY, 86400e9, "days" },
	};
	double a = fabs(ns);
	char num[64];
	size_t i = 0;

	if (!isfinite(ns))
		return special(buf, len, ns);
	while (i + 1 < sizeof(ladder) / sizeof(*ladder)) {
		int e10;
		/* by the rounded value: 999.6 us is 1 ms, not "1000 us" */
		double r = round3(a / ladder[i].div, &e10);

		if (r * ladder[i].div < ladder[i].below)
			break;
		i++;
	}
	units__plain(num, sizeof(num), ns / ladder[i].div);
	return snprintf(buf, len, "%s %s", num, ladder[i].name);
}

int units__singular(char *buf, size_t len, const char *u)
{
	static const char *const symbols[] = { "s", "ms", "us", "ns", "bytes", "days", NULL };
	static const char *const es[] = { "sses", "ches", "shes", "xes", NULL };
	size_t n = strlen(u), cut = 1;

	for (const char *const *s = symbols; *s; s++)
		if (!strcmp(u, *s))
			return 0;
	if (n < 3 || u[n - 1] != 's' || u[n - 2] == 's' || strpbrk(u, "/ %"))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((u[i] >= 'a' && u[i] <= 'z') || (u[i] >= 'A' && u[i] <= 'Z') || u[i] == '-'))
			return 0;
	/* processes, switches, pushes, boxes: the plural added "es" */
	for (const char *const *s = es; *s; s++)
		if (n > strlen(*s) && !strcmp(u + n - strlen(*s), *s))
			cut = 2;
	snprintf(buf, len, "%.*s", (int)(n - cut), u);
	return 1;
}

int units__value(char *buf, size_t len, double v, const char *unit)
{
	static const struct {
		const char *name;
		double ns;
	} times[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	const char *u = unit ? unit : "";
	char num[64], one[64];

	if (!strcmp(u, "%")) {
		if (!isfinite(v))
			return special(buf, len, v);
		units__plain(num, sizeof(num), v);
		return snprintf(buf, len, "%s%%", num);
	}
	if (!strcmp(u, "ratio"))
		return units__plain(buf, len, v);
	if (!*u)
		return units__num(buf, len, v);
	if (!strcmp(u, "bytes"))
		return bytes(buf, len, v, "");
	if (!strcmp(u, "bytes/s"))
		return bytes(buf, len, v, "/s");
	for (size_t i = 0; i < sizeof(times) / sizeof(*times); i++)
		if (!strcmp(u, times[i].name))
			return duration(buf, len, v * times[i].ns);
	units__num(num, sizeof(num), v);
	if (!strcmp(u, "/s"))
		return snprintf(buf, len, "%s/s", num);
	if (!strcmp(num, "1") && units__singular(one, sizeof(one), u))
		return snprintf(buf, len, "1 %s", one);
	return snprintf(buf, len, "%s %s", num, u);
}

int units__range(char *buf, size_t len, double lo, double hi, const char *unit)
{
	char a[64], b[64];
	const char *sa, *sb;

	units__value(a, sizeof(a), lo, unit);
	units__value(b, sizeof(b), hi, unit);
	sa = strchr(a, ' ');
	sb = strchr(b, ' ');
	/* 0 has no unit of its own: it takes hi's ("0-2 us") */
	if (lo == 0 && sb)
		return snprintf(buf, len, "0-%s", b);
	if (sa && sb && !strcmp(sa, sb))
		return snprintf(buf, len, "%.*s-%s", (int)(sa - a), a, b);
	return snprintf(buf, len, "%s-%s", a, b);
}
