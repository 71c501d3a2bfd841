// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The controllers of disks and network interfaces: the PCI function (or
 * platform or bus device) each hangs from, its driver, its PCIe link and
 * AER error counters (for proc.diskstats and proc.netdev).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"

/* "0000:00:02.0": a PCI function (domain:bus:device.function). */
static int is_pci_function(const char *s, size_t n)
{
	static const char shape[] = "xxxx:xx:xx.x";

	if (n != sizeof(shape) - 1)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (shape[i] == 'x' ? !hex : s[i] != shape[i])
			return 0;
	}
	return 1;
}

/*
 * The controller of a device from the real path of its sysfs device directory
 * (below /sys/devices). The deepest PCI function on the path is the controller: bridges
 * and root ports come before it, the disk's SCSI host, NVMe controller or virtio device
 * after it. Without a PCI function (virtio-mmio, Xen, s390), the device that hangs from the
 * bus root: platform/<dev>, or the first directory below /sys/devices. Writes the id and
 * the kind ("pci", "platform", "bus") and the controller's sysfs directory (a prefix of
 * path); returns -ENOENT for a virtual device.
 */
static int controller_of(const char *path, char *id, size_t idlen, const char **kind,
			 size_t *dirlen)
{
	const char *p, *best = NULL;
	size_t bestlen = 0;

	if (strncmp(path, "/sys/devices/", 13) || !strncmp(path, "/sys/devices/virtual/", 21))
		return -ENOENT;
	for (p = path + 13; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (is_pci_function(p, n)) {
			best = p;
			bestlen = n;
		}
		p += n + (e ? 1 : 0);
	}
	if (best) {
		*kind = "pci";
	} else {
		const char *e;

		best = path + 13;
		*kind = "bus";
		if (!strncmp(best, "platform/", 9)) {
			best += 9;
			*kind = "platform";
		}
		e = strchr(best, '/');
		bestlen = e ? (size_t)(e - best) : strlen(best);
		if (!bestlen)
			return -ENOENT;
	}
	snprintf(id, idlen, "%.*s", (int)bestlen, best);
	*dirlen = (size_t)(best - path) + bestlen;
	return 0;
}

/* Entries of root+dir whose names start with prefix (prefix removed), comma-separated. */
static void list_with_prefix(struct strbuf *b, const struct reader *rd, const char *dir,
			     const char *prefix)
{
	struct strv nl = { 0 };
	size_t pl = strlen(prefix), shown = 0;

	/* Out of memory: the entries listed so far are shown. */
	reader__list_dir(rd, dir, &nl);
	for (size_t i = 0; i < nl.n && shown < 64; i++) {
		if (strncmp(nl.v[i], prefix, pl) || strchr(nl.v[i], '\t'))
			continue;
		record__printf(b, "%s%s", shown ? "," : "", nl.v[i] + pl);
		shown++;
	}
	if (!shown)
		record__printf(b, "-");
	strv__free(&nl);
}

/*
 * A resolved link is not a file read, so sonde records what it resolved as a composed text
 * (record `rec`, first round): one line per device of cs->names, tab-separated: name,
 * controller id ("-" for a virtual device), kind ("pci", "platform", "bus", "none"), the
 * controller's driver ("-" when unbound or unknown), the real path of <dir>/<name>/device
 * below the root ("-" when there is none), and the devices it is stacked on (`slaves/` of a
 * dm or md disk, `lower_*` of a bond, vlan or macvlan; comma-separated, "-" when none).
 * Then each PCI controller's link speed and width (current and max: a capacity bound) and
 * AER error counters are read through the reader; the controllers are kept in cs->ctrls so
 * that the last round reads the AER counters again.
 */
void controllers__record(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 const char *dir, const char *rec, int block)
{
	static const char *const pci_files[] = { "current_link_speed", "current_link_width",
						 "max_link_speed", "max_link_width", NULL };
	struct strbuf out = { 0 };
	size_t rootlen = strlen(cs->root);
	char link[4096], real[4096], rel[512], id[128], drv[4096], path[512];

	strv__free(&cs->ctrls);
	for (size_t i = 0; i < cs->names.n; i++) {
		const char *name = cs->names.v[i], *kind = "none", *dev = "-";
		const char *driver = "-";
		size_t dirlen = 0;
		int have = 0;

		if (strchr(name, '\t'))
			continue;
		snprintf(link, sizeof(link), "%s%s/%s/device", cs->root, dir, name);
		/* No device link (loop, zram, dm, lo, veth, bridges) or a dangling one: virtual. */
		if (realpath(link, real) && !strncmp(real, cs->root, rootlen)) {
			snprintf(rel, sizeof(rel), "%s", real + rootlen);
			dev = rel;
			have = !controller_of(rel, id, sizeof(id), &kind, &dirlen);
		}
		if (have) {
			ssize_t n;

			snprintf(link, sizeof(link), "%s%.*s/driver", cs->root, (int)dirlen, rel);
			n = readlink(link, drv, sizeof(drv) - 1);
			if (n > 0) {
				drv[n] = '\0';
				driver = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
			}
		} else {
			kind = "none";
		}
		record__printf(&out, "%s\t%s\t%s\t%s\t%s\t", name, have ? id : "-", kind, driver,
			       dev);
		snprintf(path, sizeof(path), "%s/%s%s", dir, name, block ? "/slaves" : "");
		list_with_prefix(&out, rd, path, block ? "" : "lower_");
		record__printf(&out, "\n");
		if (!have || strcmp(kind, "pci") || strv__has(&cs->ctrls, id))
			continue;
		/* Out of memory: named in the record, but its link and AER counters go unread. */
		if (strv__push(&cs->ctrls, id))
			continue;
	}
	reader__tee_text(rd, w, rec, out.buf ? out.buf : "", out.len);
	strbuf__free(&out);
	for (size_t j = 0; j < cs->ctrls.n; j++)
		for (const char *const *q = pci_files; *q; q++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", cs->ctrls.v[j],
				 *q);
			reader__tee(rd, w, path, NULL, NULL);
		}
}

/* PCIe AER counters of each PCI controller (first and last rounds: they are cumulative). */
void controllers__aer(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	static const char *const aer_files[] = { "aer_dev_correctable", "aer_dev_nonfatal",
						 "aer_dev_fatal", NULL };
	char path[512];

	for (size_t j = 0; j < cs->ctrls.n; j++)
		for (const char *const *q = aer_files; *q; q++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", cs->ctrls.v[j],
				 *q);
			reader__tee(rd, w, path, NULL, NULL);
		}
}
