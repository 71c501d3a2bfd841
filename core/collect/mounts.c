// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc.mounts: file system and swap capacity. Every mount of mountinfo with
 * its statvfs (never asked of a network or user-space file system: it can
 * hang), ext4's error count, and /proc/swaps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "util/parse.h"

/*
 * Not storage: no capacity to run out of (statfs reports 0 blocks or a fiction), and
 * some are costly to ask. tmpfs, ramfs-like devtmpfs and overlay are kept: they fill up
 * and fail writes with ENOSPC like a disk file system.
 */
static const char *const pseudo_fs[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
	"pstore", "bpf", "mqueue", "configfs", "fusectl", "binfmt_misc", "nsfs", "rpc_pipefs",
	"selinuxfs", "efivarfs", "hugetlbfs", "ramfs", "autofs", NULL,
};

/*
 * Network and user-space file systems: statfs goes to a server or a daemon and can hang
 * (a dead NFS server blocks it uninterruptibly). Not asked; listed as skipped.
 */
static const char *const remote_fs[] = {
	"nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "ceph", "glusterfs", "9p", "afs",
	"lustre", "gpfs", "ocfs2", "gfs2", "beegfs", "davfs", "sshfs", "fuse", "fuseblk", NULL,
};

#define MOUNTS_MAX 512 /* mounts listed per round: the rest is counted as cut */

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

/* What one round's walk of mountinfo carries from mount to mount. */
struct mounts_walk {
	struct collector_state *cs;
	struct reader *rd;
	struct capture_writer *w;
	int ends;
	struct strbuf out;
	char devs[MOUNTS_MAX][24];
	size_t ndev, nmounts, cut;
};

/* A word of mountinfo as a C string, cut to the buffer as the record's fields always were. */
#define WORD(buf, wd) snprintf(buf, sizeof(buf), "%.*s", (int)(wd).n, (wd).p)

/*
 * One line per mount: status, maj:min, fstype, source, mount point (both as mountinfo
 * escapes them: no spaces or tabs inside), the kernel name of the block device ("-" when
 * none), then statvfs: frsize blocks bfree bavail files ffree flag. status is "ok",
 * "same" (a second mount of a device already measured), "pseudo", "remote", or
 * "err=N" (statvfs failed with errno N).
 */
static int mount_line(const struct mountinfo_line *m, void *arg)
{
	struct mounts_walk *mw = arg;
	struct strbuf *out = &mw->out;
	char dev[24], mnt[1024], fstype[64], source[512], full[4200], blk[64] = "-";
	const char *status = "ok";
	struct statvfs sv;
	size_t k;

	WORD(dev, m->dev);
	WORD(mnt, m->point);
	WORD(fstype, m->fstype);
	WORD(source, m->source);
	if (mw->nmounts >= MOUNTS_MAX) {
		mw->cut++;
		return 0;
	}
	mw->nmounts++;
	if (in_list(pseudo_fs, fstype)) {
		status = "pseudo";
	} else if (in_list(remote_fs, fstype) || !strncmp(fstype, "fuse.", 5) ||
		   !strncmp(fstype, "nfs", 3)) {
		status = "remote";
	} else {
		for (k = 0; k < mw->ndev; k++)
			if (!strcmp(mw->devs[k], dev))
				break;
		if (k < mw->ndev)
			status = "same";
		else
			snprintf(mw->devs[mw->ndev++], sizeof(mw->devs[0]), "%s", dev);
	}
	if (strcmp(status, "ok")) {
		record__printf(out, "%s\t%s\t%s\t%s\t%s\t-\n", status, dev, fstype, source, mnt);
		return 0;
	}
	/* The kernel's name of the device (sysfs directories use it, not the source). */
	{
		char link[4096], target[512];
		ssize_t n;

		snprintf(link, sizeof(link), "%s/sys/dev/block/%s", mw->cs->root, dev);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			const char *base;

			target[n] = '\0';
			base = strrchr(target, '/');
			snprintf(blk, sizeof(blk), "%.63s", base ? base + 1 : target);
		}
	}
	snprintf(full, sizeof(full), "%s%s", mw->cs->root, mnt);
	parse_mountinfo_unescape(full);
	if (statvfs(full, &sv)) {
		record__printf(out, "err=%d\t%s\t%s\t%s\t%s\t%s\n", errno, dev, fstype, source,
			       mnt, blk);
		return 0;
	}
	record__printf(out, "ok\t%s\t%s\t%s\t%s\t%s\t%lu %llu %llu %llu %llu %llu %lu\n", dev,
		       fstype, source, mnt, blk, (unsigned long)sv.f_frsize,
		       (unsigned long long)sv.f_blocks, (unsigned long long)sv.f_bfree,
		       (unsigned long long)sv.f_bavail, (unsigned long long)sv.f_files,
		       (unsigned long long)sv.f_ffree, (unsigned long)sv.f_flag);
	/* ext4 counts the errors it met in the superblock (and keeps the count). */
	if (mw->ends && !strcmp(fstype, "ext4") && strcmp(blk, "-")) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/fs/ext4/%s/errors_count", blk);
		reader__tee(mw->rd, mw->w, path, NULL, NULL);
	}
	return 0;
}

int mounts__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		   int phase)
{
	struct mounts_walk mw = { .cs = cs, .rd = rd, .w = w };
	const char *d = NULL;
	size_t len = 0;
	int trunc = 0, err;

	mw.ends = phase & (PHASE_FIRST | PHASE_LAST);
	if (mw.ends)
		err = reader__tee(rd, w, "/proc/self/mountinfo", &d, &len);
	else
		err = reader__read(rd, "/proc/self/mountinfo", READ_CAP, &d, &len, &trunc);
	if (!err) {
		parse_mountinfo(d, len, mount_line, &mw);
		if (mw.cut)
			record__printf(&mw.out, "cut\t%zu\n", mw.cut);
		reader__tee_text(rd, w, "sonde:statfs", mw.out.buf ? mw.out.buf : "", mw.out.len);
	}
	strbuf__free(&mw.out);
	reader__tee(rd, w, "/proc/swaps", NULL, NULL);
	return 0;
}

int mounts__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/self/mountinfo", "no mount table", why, whylen);
}
