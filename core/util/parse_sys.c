// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attributes of /sys with more than one number in them (formats in
 * parse.h): a PCI Express link's speed and a device's AER counters. The
 * one-number attributes go through parse_value.c. The rules every parser
 * keeps are at the top of parse.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

int parse_pci_link_speed(const char *buf, size_t len, double *gts)
{
	const char *le = parse_line_one(buf, len), *p = buf;
	double v;

	if (!le)
		return -EINVAL;
	p = parse_skip_blanks(p, le);
	/* "Unknown" (link down, not PCI Express) has no number */
	if (parse_scan_decimal(&p, le, &v) || parse_skip_blanks(p, le) == p)
		return -EINVAL;
	p = parse_skip_blanks(p, le);
	if (le - p < 4 || memcmp(p, "GT/s", 4) || !parse_at_boundary(p + 4, le))
		return -EINVAL;
	*gts = v;
	return 0;
}

struct aer_sum {
	uint64_t sum, total;
	bool any, has_total, wraps;
};

static int aer_line(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct aer_sum *s = arg;
	struct parse_word w = { v, vl };
	uint64_t n;

	if (parse_word_u64(w, &n))
		return 0;
	if (kl > 6 && !memcmp(k, "TOTAL_", 6)) {
		s->total = n;
		s->has_total = true;
		return 1; /* the kernel's own total: the first one stands */
	}
	s->wraps |= n > UINT64_MAX - s->sum;
	s->sum += n;
	s->any = true;
	return 0;
}

int parse_aer_counters(const char *buf, size_t len, uint64_t *total)
{
	struct aer_sum s = { 0 };

	parse_kv(buf, len, aer_line, &s);
	if (s.has_total) {
		*total = s.total;
		return 0;
	}
	if (!s.any || s.wraps)
		return -EINVAL;
	*total = s.sum;
	return 0;
}

/* ---- CPUs and NUMA nodes ---- */

int parse_cpu_list(const char *buf, size_t len, unsigned *count)
{
	const char *le = parse_line_one(buf, len), *p = buf;
	uint64_t n = 0;

	if (!le)
		return -EINVAL;
	/* "0-3,5,7-8"; an empty line is an empty list */
	p = parse_skip_blanks(p, le);
	while (p < le && !parse_is_blank(*p)) {
		uint64_t a, b;

		if (parse_scan_u64(&p, le, &a) || a > INT32_MAX)
			return -EINVAL;
		b = a;
		if (p < le && *p == '-') {
			p++;
			if (parse_scan_u64(&p, le, &b) || b < a || b > INT32_MAX)
				return -EINVAL;
		}
		n += b - a + 1;
		if (p == le || *p != ',')
			break;
		p++; /* a ',' is followed by a range: the loop's scan refuses anything else */
		if (p == le)
			return -EINVAL;
	}
	if (n > UINT32_MAX || parse_skip_blanks(p, le) != le)
		return -EINVAL;
	*count = (unsigned)n;
	return 0;
}

int parse_numbered_name(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p = s + pl;
	uint64_t v;

	if (n <= pl || memcmp(s, prefix, pl) || parse_scan_u64(&p, s + n, &v) || p != s + n ||
	    v > INT32_MAX)
		return -1;
	return (int)v;
}

int parse_node_meminfo(const char *buf, size_t len, kv_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le, *k, *v;
	size_t klen, vlen;
	int ret;

	/* "Node 0 MemTotal:       16083148 kB" */
	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		const char *p = parse_skip_blanks(ls, le), *w = parse_token_end(p, le);
		uint64_t node;

		if (!parse_word_is(p, (size_t)(w - p), "Node") || parse_scan_u64_field(&w, le, &node) ||
		    !parse_kv_split(w, le, &k, &klen, &v, &vlen))
			continue;
		ret = fn(k, klen, v, vlen, arg);
		if (ret)
			return ret;
	}
	return 0;
}
