// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One-value files (/proc/sys, /sys attributes: "256\n", "0x1f\n", "-1\n",
 * "32768\t60999\n"), a number as sonde itself printed it ("%.17g") and the
 * record of such numbers from earlier bundles (raw/history.cap), and the
 * pieces a reader of a record's lines shares: the complete-line walker and
 * a word as a C string. The rules every parser keeps are at the top of
 * parse.h.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

bool parse_line(const char **pos, const char *end, const char **ls, const char **le)
{
	return *pos && parse_next_line(pos, end, ls, le);
}

bool parse_word_cstr(struct parse_word w, char *out, size_t outlen)
{
	if (!outlen)
		return false;
	if (w.n >= outlen || (w.n && memchr(w.p, '\0', w.n))) {
		out[0] = '\0';
		return false;
	}
	memcpy(out, w.p, w.n);
	out[w.n] = '\0';
	return true;
}

bool parse_word_is_str(struct parse_word w, const char *lit)
{
	return w.p && parse_word_is(w.p, w.n, lit);
}

/* The one line of a one-value file, without its '\n' and surrounding blanks; false when cut. */
static bool value_line(const char *buf, size_t len, const char **p, const char **le)
{
	const char *nl = parse_line_one(buf, len);

	if (!nl)
		return false;
	*p = parse_skip_blanks(buf, nl);
	*le = nl;
	while (*le > *p && parse_is_blank((*le)[-1]))
		(*le)--;
	return *le > *p;
}

int parse_value_u64(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v;
	const char *p, *le;

	if (!value_line(buf, len, &p, &le) || parse_scan_u64(&p, le, &v) || p != le)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_value_i64(const char *buf, size_t len, int64_t *out)
{
	int64_t v;
	const char *p, *le;

	if (!value_line(buf, len, &p, &le) || parse_scan_i64_field(&p, le, &v) || p != le)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_value_hex(const char *buf, size_t len, uint64_t *out)
{
	uint64_t v;
	const char *p, *le;

	if (!value_line(buf, len, &p, &le) || parse_scan_hex(&p, le, &v) || p != le)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_value_u64s(const char *buf, size_t len, uint64_t *v, size_t n)
{
	const char *p, *le;

	if (!value_line(buf, len, &p, &le))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (parse_scan_u64_field(&p, le, &v[i]))
			return -EINVAL;
	return p == le ? 0 : -EINVAL;
}

int parse_kv_double(const char *val, size_t vlen, double *out)
{
	/* "%.17g" of a double is at most 24 bytes ("-2.2250738585072014e-308") */
	char num[40], *e;
	const char *p, *end;
	double v;

	if (!val)
		return -EINVAL;
	end = val + vlen;
	p = parse_skip_blanks(val, end);
	while (end > p && parse_is_blank(end[-1]))
		end--;
	if (p == end || (size_t)(end - p) >= sizeof(num) || memchr(p, '\0', (size_t)(end - p)))
		return -EINVAL;
	memcpy(num, p, (size_t)(end - p));
	num[end - p] = '\0';
	/*
	 * strtod on a bounded NUL-terminated copy: "%.17g" goes back to the
	 * same double only through a correctly rounded reader, which strtod is.
	 * sonde never calls setlocale, so the decimal point is '.'.
	 */
	errno = 0;
	v = strtod(num, &e);
	if (e == num || *e || (errno == ERANGE && isinf(v)))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_kv_hex(const char *val, size_t vlen, uint64_t *out)
{
	const char *p, *end;
	uint64_t v;

	if (!val)
		return -EINVAL;
	end = val + vlen;
	p = parse_skip_blanks(val, end);
	if (parse_scan_hex(&p, end, &v) || parse_skip_blanks(p, end) != end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* ---- raw/history.cap ---- */

static int history_line(const char *ls, const char *le, struct history_line *h)
{
	struct parse_word f[5], extra;
	const char *p = ls;
	int n = 0;

	memset(h, 0, sizeof(*h));
	if (le - ls > 8 && !memcmp(ls, "boot_id ", 8)) {
		h->kind = HISTORY_BOOT_ID;
		h->boot_id = (struct parse_word){ ls + 8, (size_t)(le - ls - 8) };
		return 0;
	}
	if (le - ls > 12 && !memcmp(ls, "end_wall_ns ", 12)) {
		h->kind = HISTORY_END_WALL_NS;
		/* the number alone on its line: le is on the line's '\n' */
		return parse_value_i64(ls + 12, (size_t)(le + 1 - ls - 12), &h->end_wall_ns);
	}
	/* "metric\tCHECK\tMETRIC\tINSTANCE\tVALUE" */
	while (n < 5 && parse_tab_field(&p, le, &f[n]))
		n++;
	if (n < 5 || parse_tab_field(&p, le, &extra) || !parse_word_is(f[0].p, f[0].n, "metric") ||
	    parse_kv_double(f[4].p, f[4].n, &h->value))
		return -EINVAL;
	h->kind = HISTORY_METRIC;
	h->check = f[1];
	h->metric = f[2];
	h->instance = f[3];
	return 0;
}

int parse_history_record(const char *buf, size_t len, history_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	struct history_line h;
	int ret;

	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		/* "host H" and lines of another kind are skipped */
		if (history_line(ls, le, &h))
			continue;
		ret = fn(&h, arg);
		if (ret)
			return ret;
	}
	return 0;
}
