// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process levels for the trends of finite resources (proc.pids:
 * /proc/PID/stat every round, "sonde:fds" and /proc/PID/status; or, where
 * the task source served, "sonde:task/PID" records, which carry the fd
 * count; docs/capture-format.md): every process's RSS, threads, fds and
 * anonymous memory per round, built once in one pass over the stream.
 *
 * The runout checks (memory, fds, tasks, ...) each asked for them: built in
 * the parent before they fork, the checks share one copy instead of six
 * passes over 10,000 processes' records.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "util/pidmap.h"

static void levels__free(struct pidmap *lt)
{
	for (size_t i = 0; i < lt->cap; i++) {
		struct task_levels *pl = pidmap__slot(lt, i);

		if (pl)
			free(pl->v);
	}
	pidmap__free(lt);
}

/* A level of process pid at round r; NULL on -ENOMEM (*err). */
static struct task_level *levels__add(struct pidmap *lt, const struct analysis *an, int pid,
				 uint64_t starttime, const struct capture_rec *r, int *err)
{
	struct task_levels *pl;

	if (!(pl = pidmap__get(lt, pid)))
		goto nomem;
	/* a pid reused by another process: the new one starts its own levels */
	if (pl->n && pl->starttime != starttime)
		pl->n = 0;
	pl->starttime = starttime;
	if (pl->n == pl->cap) {
		size_t nc = pl->cap ? pl->cap * 2 : 8;
		struct task_level *nv = realloc(pl->v, nc * sizeof(*nv));

		if (!nv)
			goto nomem;
		pl->v = nv;
		pl->cap = nc;
	}
	pl->v[pl->n] = (struct task_level){ r->seq, analysis__t(an, r), 0, 0, -1, -1 };
	return &pl->v[pl->n++];
nomem:
	*err = -ENOMEM;
	return NULL;
}

/* One /proc/PID/stat record: a level of its process. 0 or -ENOMEM. */
static int levels__stat(struct pidmap *lt, const struct analysis *an, int pid,
			const struct capture_rec *r)
{
	struct pid_stat ps;
	struct task_level *l;
	int err = 0;

	if (parse_pid_stat(r->data, r->len, &ps) || ps.nfields < 20)
		return 0;
	if ((l = levels__add(lt, an, pid, ps.starttime, r, &err))) {
		l->rss = ps.rss_pages * (uint64_t)an->page_size;
		l->threads = ps.num_threads;
	}
	return err;
}

/*
 * One sonde:task/PID record: a level with its fd count (counted by the
 * source). A repeat (an unchanged process) shares its payload: its last
 * level again, without parsing. 0 or -ENOMEM; *fds set when a count was there.
 */
static int levels__task(struct pidmap *lt, const struct analysis *an, int pid,
			const struct capture_rec *r, int *fds)
{
	struct task_levels *pl = pidmap__find(lt, pid);
	struct pid_task pt;
	struct task_level *l;
	int err = 0;

	if (pl && pl->n && pl->last_data == r->data) {
		struct task_level prev = pl->v[pl->n - 1];

		if ((l = levels__add(lt, an, pid, pl->starttime, r, &err))) {
			prev.seq = l->seq;
			prev.t = l->t;
			*l = prev;
		}
		return err;
	}
	if (parse_task_record(r->data, r->len, &pt))
		return 0;
	if (!(l = levels__add(lt, an, pid, pt.starttime, r, &err)))
		return err;
	l->rss = pt.rss_pages * (uint64_t)an->page_size;
	l->threads = pt.threads;
	l->fds = pt.fds;
	if (pt.anon_pages != UINT64_MAX)
		l->anon = (int64_t)(pt.anon_pages * (uint64_t)an->page_size);
	if (pt.fds >= 0)
		*fds = 1;
	pl = pidmap__find(lt, pid);
	pl->last_data = r->data;
	return 0;
}

/* "sonde:fds" of round seq: each "PID N" line completes that process's level of the round. */
struct fds_round {
	struct pidmap *lt;
	uint32_t seq;
};

static int levels__fds_line(int pid, uint64_t count, void *arg)
{
	struct fds_round *fr = arg;
	struct task_levels *pl = pidmap__find(fr->lt, pid);

	if (!pl)
		return 0;
	/* its stat of the same round: the latest, unless the records are not in round order */
	for (size_t k = pl->n; k-- > 0;)
		if (pl->v[k].seq == fr->seq) {
			pl->v[k].fds = (int64_t)count;
			break;
		} else if (pl->v[k].seq < fr->seq) {
			break;
		}
	return 0;
}

static void levels__fds(struct pidmap *lt, const struct capture_rec *r)
{
	struct fds_round fr = { lt, r->seq };

	parse_fds_record(r->data, r->len, levels__fds_line, &fr);
}

/*
 * A /proc/PID/status record (the /proc walk reads it at first sight for a
 * process born in the window, and in the last round): its RssAnon completes
 * the process's level of that round, read from its stat just before. Two
 * points at most: the check says so rather than fit them.
 */
static void levels__status(struct pidmap *lt, int pid, const struct capture_rec *r)
{
	struct task_levels *pl = pidmap__find(lt, pid);
	struct pid_status ps;

	if (!pl || !pl->n || parse_pid_status(r->data, r->len, &ps) || !ps.has_anon)
		return;
	for (size_t k = pl->n; k-- > 0;)
		if (pl->v[k].seq == r->seq) {
			pl->v[k].anon = (int64_t)(ps.rss_anon_kb * 1024);
			break;
		} else if (pl->v[k].seq < r->seq) {
			break;
		}
}

/* One of a level's values (fds, anon) moved between the rounds it was known in. */
static int known_moved(int64_t v, int64_t *seen)
{
	if (v < 0)
		return 0;
	if (*seen >= 0 && v != *seen)
		return 1;
	*seen = v;
	return 0;
}

int task_levels__moved(const struct task_levels *pl)
{
	int64_t fds = -1, anon = -1;

	for (size_t k = 0; k < pl->n; k++) {
		if (pl->v[k].rss != pl->v[0].rss || pl->v[k].threads != pl->v[0].threads)
			return 1;
		if (known_moved(pl->v[k].fds, &fds) || known_moved(pl->v[k].anon, &anon))
			return 1;
	}
	return 0;
}

void analysis__levels_free(struct analysis *an)
{
	if (an->levels_built)
		levels__free(&an->levels);
	an->levels_built = 0;
}

int analysis__levels(struct analysis *an, const struct pidmap **out, int *fds_counted)
{
	const struct capture_stream *st;
	int err = 0, fds = 0;

	if (an->levels_built) {
		*out = &an->levels;
		*fds_counted = an->levels_fds;
		return an->levels_err;
	}
	if (!(st = capture_set__stream(&an->cs, "proc.pids")))
		return -ENOENT;
	an->levels = (struct pidmap)PIDMAP_INIT(sizeof(struct task_levels));
	for (size_t i = 0; i < st->n && !err; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *file;
		int pid;

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:fds")) {
			levels__fds(&an->levels, r);
			fds = 1;
			continue;
		}
		pid = parse_capture_pid_path(r->path, &file);
		if (pid < 0)
			continue;
		if (!strncmp(r->path, "sonde:task/", 11))
			err = levels__task(&an->levels, an, pid, r, &fds);
		else if (!strcmp(file, "stat"))
			err = levels__stat(&an->levels, an, pid, r);
		else if (!strcmp(file, "status"))
			levels__status(&an->levels, pid, r);
	}
	if (err) {
		levels__free(&an->levels);
		an->levels = (struct pidmap)PIDMAP_INIT(sizeof(struct task_levels));
	}
	an->levels_built = 1;
	an->levels_err = err;
	an->levels_fds = fds;
	*out = &an->levels;
	*fds_counted = fds;
	return err;
}
