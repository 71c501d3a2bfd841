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
