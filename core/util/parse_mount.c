// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mounts and their capacity (formats in parse.h): /proc/PID/mountinfo and
 * the octal escapes of its paths, /proc/swaps, sonde's statvfs record
 * (sonde:statfs), its cgroup hierarchies (sonde:cgroups) and a cgroup's
 * per-device I/O files (io.max, io.stat, blkio.*). The rules every parser
 * keeps are at the top of parse.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

/* ---- octal escapes (mountinfo, swaps, sonde's path fields) ---- */

static bool octal_escape(const char *s, size_t left)
{
	return left >= 4 && s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
	       s[2] <= '7' && s[3] >= '0' && s[3] <= '7';
}

size_t parse_unescape_octal(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (octal_escape(s + i, n - i)) {
			out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
					  (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

void parse_mountinfo_unescape(char *s)
{
	size_t n = strlen(s);

	s[parse_unescape_octal(s, n, s)] = '\0';
}

/* ---- /proc/PID/mountinfo ---- */

/* "MAJOR:MINOR" */
static int scan_dev(struct parse_word w, unsigned *major, unsigned *minor)
{
	const char *p = w.p, *end = w.p + w.n;
	uint64_t a, b;

	if (parse_scan_u64(&p, end, &a) || a > UINT_MAX || p == end || *p++ != ':' ||
	    parse_scan_u64(&p, end, &b) || b > UINT_MAX || p != end)
		return -EINVAL;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return 0;
}

/*
 * "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
 * optional fields (none or more) end at the "-" word.
 */
static int mountinfo_line(const char *p, const char *le, struct mountinfo_line *m)
{
	struct parse_word w, rest[3];
	int n = 0;

	memset(m, 0, sizeof(*m));
	if (parse_scan_u64_field(&p, le, &m->id) || parse_scan_u64_field(&p, le, &m->parent) ||
	    parse_scan_word(&p, le, &m->dev) || scan_dev(m->dev, &m->major, &m->minor) ||
	    parse_scan_word(&p, le, &m->root) || parse_scan_word(&p, le, &m->point) ||
	    parse_scan_word(&p, le, &m->options))
		return -EINVAL;
	do {
		if (parse_scan_word(&p, le, &w))
			return -EINVAL;
	} while (!parse_word_is(w.p, w.n, "-"));
	while (n < 3 && !parse_scan_word(&p, le, &rest[n]))
		n++;
	/*
	 * The kernel always prints the super options; a mount whose source was
	 * "" prints nothing for it ("- tmpfs  rw"), so two words are the type
	 * and the super options.
	 */
	if (n < 2 || parse_skip_blanks(p, le) != le)
		return -EINVAL;
	m->fstype = rest[0];
	if (n == 3)
		m->source = rest[1];
	else
		m->source.p = rest[1].p;
	m->super = rest[n - 1];
	return 0;
}

int parse_mountinfo(const char *buf, size_t len, mountinfo_fn fn, void *arg)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	struct mountinfo_line m;
	int ret;

	while (buf && parse_next_line(&pos, end, &ls, &le)) {
		if (mountinfo_line(ls, le, &m))
			continue;
		ret = fn(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- /proc/swaps ---- */

int parse_swaps(const char *buf, size_t len, swaps_fn fn, void *arg)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	int ret;

	/* "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority": the header, always first */
	if (!buf || !parse_next_line(&pos, end, &ls, &le))
		return 0;
	while (parse_next_line(&pos, end, &ls, &le)) {
		struct swap_line s;
		const char *p = ls;

		if (parse_scan_word(&p, le, &s.name) || parse_scan_word(&p, le, &s.type) ||
		    parse_scan_u64_field(&p, le, &s.size_kb) ||
		    parse_scan_u64_field(&p, le, &s.used_kb) ||
		    parse_scan_i64_field(&p, le, &s.priority) || parse_skip_blanks(p, le) != le)
			continue;
		ret = fn(&s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- sonde:statfs ---- */

/* "ok" lines end with "frsize blocks bfree bavail files ffree flag" (docs/capture-format.md). */
static bool statfs_numbers(struct parse_word w, struct statfs_line *s)
{
	uint64_t *v[] = { &s->frsize, &s->blocks, &s->bfree, &s->bavail,
			  &s->files,  &s->ffree,  &s->flag };
	const char *p = w.p, *end = w.p + w.n;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (parse_scan_u64_field(&p, end, v[i]))
			return false;
	return parse_skip_blanks(p, end) == end;
}

/* "STATUS\tMAJ:MIN\tFSTYPE\tSOURCE\tMOUNT\tDEVICE[\tNUMBERS]" */
static int statfs_line(const char *p, const char *le, struct statfs_line *s)
{
	struct parse_word *f[] = { &s->status, &s->dev,	  &s->fstype, &s->source,
				   &s->point,  &s->device, &s->numbers };
	struct parse_word extra;
	int n = 0;

	memset(s, 0, sizeof(*s));
	while (n < 7 && parse_tab_field(&p, le, f[n]))
		n++;
	if (n < 6 || parse_tab_field(&p, le, &extra) || !s->point.n)
		return -EINVAL;
	s->nfields = n;
	if (s->device.n == 1 && s->device.p[0] == '-')
		s->device.n = 0;
	if (n == 7)
		s->has_numbers = statfs_numbers(s->numbers, s);
	if (s->status.n >= 4 && !memcmp(s->status.p, "err=", 4)) {
		uint64_t e;

		s->has_err = 1;
		if (!parse_word_u64((struct parse_word){ s->status.p + 4, s->status.n - 4 }, &e) &&
		    e <= INT_MAX)
			s->err = (int)e;
	}
	return 0;
}

int parse_statfs_record(const char *buf, size_t len, statfs_fn fn, void *arg)
{
	const char *pos = buf, *end = buf + len, *ls, *le;
	struct statfs_line s;
	int ret;

	while (buf && parse_next_line(&pos, end, &ls, &le)) {
		/* "cut\tN" (the mounts past the record's bound) has two fields: skipped */
		if (statfs_line(ls, le, &s))
			continue;
		ret = fn(&s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- sonde:cgroups ---- */

int parse_cgroups_record(const char *buf, size_t len, cgroup_hier_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	int ret;

	/* "VERSION MOUNT [CONTROLLERS]" a hierarchy (collect/cgroups.c) */
	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		struct cgroup_hier_line h = { 0 };
		const char *p = ls;
		uint64_t ver;

		if (parse_scan_u64_field(&p, le, &ver) || (ver != 1 && ver != 2) ||
		    parse_scan_word(&p, le, &h.mount))
			continue;
		h.version = (int)ver;
		if (!parse_scan_word(&p, le, &h.controllers) && parse_skip_blanks(p, le) != le)
			continue;
		ret = fn(&h, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- a cgroup's per-device I/O files ---- */

/* "KEY=N" words after the device: one call each; "KEY=max" and other values are no number. */
static int cgroup_io_pairs(const char *p, const char *le, struct cgroup_io_line *c,
			   cgroup_io_fn fn, void *arg)
{
	struct parse_word w;
	int ret;

	while (!parse_scan_word(&p, le, &w)) {
		const char *eq = memchr(w.p, '=', w.n);

		if (!eq || eq == w.p ||
		    parse_word_u64((struct parse_word){ eq + 1, (size_t)(w.p + w.n - eq - 1) },
				   &c->value))
			continue;
		c->key = (struct parse_word){ w.p, (size_t)(eq - w.p) };
		ret = fn(c, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int parse_cgroup_io(const char *buf, size_t len, cgroup_io_fn fn, void *arg)
{
	const char *pos = buf, *ls, *le;
	int ret;

	while (buf && parse_next_line(&pos, buf + len, &ls, &le)) {
		struct cgroup_io_line c = { 0 };
		struct parse_word w1, w2;
		const char *p = ls;

		if (parse_scan_word(&p, le, &c.dev) || !memchr(c.dev.p, ':', c.dev.n) ||
		    parse_scan_word(&p, le, &w1))
			continue;
		if (memchr(w1.p, '=', w1.n)) {
			c.kind = CGIO_PAIR;
			ret = cgroup_io_pairs(w1.p, le, &c, fn, arg);
		} else if (parse_scan_word(&p, le, &w2)) {
			/* "8:0 N" */
			c.kind = CGIO_NUMBER;
			if (parse_word_u64(w1, &c.value))
				continue;
			ret = fn(&c, arg);
		} else {
			/* "8:0 Read N" */
			c.kind = CGIO_WORD;
			c.key = w1;
			if (parse_word_u64(w2, &c.value) || parse_skip_blanks(p, le) != le)
				continue;
			ret = fn(&c, arg);
		}
		if (ret)
			return ret;
	}
	return 0;
}
