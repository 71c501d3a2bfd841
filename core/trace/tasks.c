// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The task iterator's user side (its API is in trace.h): one read of the iterator per
 * round, its per-thread records folded into processes with the arithmetic
 * /proc/PID/stat uses (thread_group_cputime_adjusted, nsec_to_clock_t), so
 * the numbers mean what the /proc walk's would.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/tasks_int.h"

_Static_assert(TASKS_CMDLINE_MAX == CMDLINE_CAP, "the pass reads what the /proc reader keeps");

/*
 * The variants the loader tries, best first: each gives up what an older
 * kernel refuses (the sleepable programs: the command lines pass and the
 * sampler's poll fds, Linux 5.18; the syscall a thread is in:
 * bpf_task_pt_regs, 5.15; a D thread's kernel stack: bpf_get_task_stack,
 * 5.9), and says so.
 */
static const struct tasks_variant {
	int sleepable, regs, kstack;
	const char *lost; /* what the thread states lose from here on */
} tasks_variants[] = {
	{ 1, 1, 1, "" },
	{ 0, 1, 1, "the fd a thread polls (sleepable iterators, Linux 5.18)" },
	{ 0, 0, 1, "the syscall a thread is in and its fd (bpf_task_pt_regs, Linux 5.15)" },
	{ 0, 0, 0, "the syscall a thread is in and its fd (bpf_task_pt_regs, Linux 5.15), and the "
		   "kernel stacks of threads in D state (bpf_get_task_stack, Linux 5.9)" },
};

static int tasks_load_variant(struct trace_tasks *t, const struct tasks_variant *v)
{
	int err;

	t->skel = tasks_bpf__open();
	if (!t->skel)
		return -errno;
	t->skel->rodata->targ_regs = v->regs;
	t->skel->rodata->targ_kstack = v->kstack;
	tasks_wait__configure(t->skel);
	bpf_program__set_autoload(t->skel->progs.dump_cmdline, v->sleepable);
	bpf_program__set_autoload(t->skel->progs.dump_wait, v->sleepable);
	bpf_program__set_autoload(t->skel->progs.dump_wait_ns, !v->sleepable);
	err = tasks_bpf__load(t->skel);
	if (err) {
		tasks_bpf__destroy(t->skel);
		t->skel = NULL;
	}
	return err;
}

/*
 * Open and load the iterators: the first variant the kernel takes. Where it
 * refuses the sleepable command lines pass (before Linux 5.18: no
 * bpf_copy_from_user_task) t->cmd_why says why, and t->threads_lost what the
 * thread states miss. 0 or -errno (the first variant's error).
 */
static int tasks_load(struct trace_tasks *t)
{
	int err = 0, first = 0;

	for (size_t i = 0; i < sizeof(tasks_variants) / sizeof(tasks_variants[0]); i++) {
		const struct tasks_variant *v = &tasks_variants[i];

		err = tasks_load_variant(t, v);
		if (!first)
			first = err;
		if (err)
			continue;
		snprintf(t->threads_lost, sizeof(t->threads_lost), "%s", v->lost);
		if (!v->sleepable)
			snprintf(t->cmd_why, sizeof(t->cmd_why),
				 "the kernel refused the command lines iterator (iter.s/task with "
				 "bpf_copy_from_user_task, Linux 5.18 and later): %s",
				 strerror(-first));
		return 0;
	}
	return first ? first : err;
}

int trace_tasks__open(struct trace_tasks **out, char *why, size_t whylen)
{
	struct trace_tasks *t;
	int err;

	*out = NULL;
	err = trace__probe(why, whylen);
	if (err)
		return err;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->clk_tck = sysconf(_SC_CLK_TCK);
	if (t->clk_tck <= 0)
		t->clk_tck = 100;
	err = tasks_load(t);
	if (err) {
		/* iter/task is 5.8, but the pass counts fds with bpf_loop: 5.17 */
		snprintf(why, whylen, "the kernel refused the task iterator (iter/task with "
			 "bpf_loop, Linux 5.17 and later): %s", strerror(-err));
		goto fail;
	}
	t->link = bpf_program__attach_iter(t->skel->progs.dump_task, NULL);
	if (!t->link) {
		err = -errno;
		snprintf(why, whylen, "the task iterator does not attach: %s", strerror(-err));
		goto fail;
	}
	if (bpf_program__autoload(t->skel->progs.dump_cmdline)) {
		t->cmd_link = bpf_program__attach_iter(t->skel->progs.dump_cmdline, NULL);
		if (!t->cmd_link)
			snprintf(t->cmd_why, sizeof(t->cmd_why),
				 "the command lines iterator does not attach: %s", strerror(errno));
	}
	tasks_wait__init(t);
	*out = t;
	return 0;
fail:
	trace_tasks__close(t);
	return err ? err : -EINVAL;
}

void trace_tasks__close(struct trace_tasks *t)
{
	if (!t)
		return;
	tasks_wait__fini(t);
	bpf_link__destroy(t->cmd_link);
	bpf_link__destroy(t->link);
	tasks_bpf__destroy(t->skel);
	free(t->recs);
	free(t->cmd_buf);
	free(t->cmd_ix);
	free(t->buf);
	free(t->procs);
	free(t->ix);
	free(t->prev);
	free(t);
}

static size_t hash_u32(uint32_t v, size_t cap)
{
	return (v * 2654435761u) & (cap - 1);
}

/* The process of tgid in this pass (created for a leader); NULL when unknown or out of memory. */
static struct proc_fold *proc_of(struct trace_tasks *t, uint32_t tgid, const struct tasks_rec *leader)
{
	size_t h;

	for (h = hash_u32(tgid, t->ix_cap); t->ix[h]; h = (h + 1) & (t->ix_cap - 1))
		if (t->procs[t->ix[h] - 1].leader->tgid == tgid)
			return &t->procs[t->ix[h] - 1];
	if (!leader || t->nprocs == t->procs_cap)
		return NULL;
	memset(&t->procs[t->nprocs], 0, sizeof(t->procs[0]));
	t->procs[t->nprocs].leader = leader;
	t->ix[h] = (uint32_t)++t->nprocs;
	return &t->procs[t->nprocs - 1];
}

/* Room for n processes and their index; 0 or -ENOMEM. */
static int procs_reserve(struct trace_tasks *t, size_t n)
{
	size_t icap = 1024;

	if (n > t->procs_cap) {
		struct proc_fold *np = realloc(t->procs, n * sizeof(*np));

		if (!np)
			return -ENOMEM;
		t->procs = np;
		t->procs_cap = n;
	}
	while (icap < n * 2)
		icap <<= 1;
	if (icap != t->ix_cap) {
		uint32_t *ni = realloc(t->ix, icap * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		t->ix = ni;
		t->ix_cap = icap;
	}
	memset(t->ix, 0, t->ix_cap * sizeof(*t->ix));
	t->nprocs = 0;
	return 0;
}

static void io_add(struct tasks_io *a, const struct tasks_io *b)
{
	a->rchar += b->rchar;
	a->wchar += b->wchar;
	a->syscr += b->syscr;
	a->syscw += b->syscw;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
}

/* The slot of (tgid, start) in the previous-times table; NULL when it cannot grow. */
static struct cputime_prev *prev_slot(struct trace_tasks *t, uint32_t tgid, uint64_t start)
{
	size_t h;

	if ((t->prev_n + 1) * 2 > t->prev_cap) {
		size_t ncap = t->prev_cap ? t->prev_cap * 2 : 4096;
		struct cputime_prev *np = calloc(ncap, sizeof(*np));

		if (!np)
			return NULL;
		t->prev_n = 0;
		/* the processes seen in the last two rounds move over; the dead are left behind */
		for (size_t k = 0; k < t->prev_cap; k++) {
			struct cputime_prev *o = &t->prev[k];

			if (!o->tgid || o->round + 2 < t->round)
				continue;
			for (h = hash_u32(o->tgid, ncap); np[h].tgid; h = (h + 1) & (ncap - 1))
				;
			np[h] = *o;
			t->prev_n++;
		}
		free(t->prev);
		t->prev = np;
		t->prev_cap = ncap;
	}
	for (h = hash_u32(tgid, t->prev_cap); t->prev[h].tgid; h = (h + 1) & (t->prev_cap - 1))
		if (t->prev[h].tgid == tgid)
			break;
	if (!t->prev[h].tgid) {
		t->prev_n++;
		t->prev[h].tgid = tgid;
		t->prev[h].start = start;
		t->prev[h].utime = t->prev[h].stime = 0;
	} else if (t->prev[h].start != start) {
		t->prev[h].start = start;
		t->prev[h].utime = t->prev[h].stime = 0;
	}
	t->prev[h].round = t->round;
	return &t->prev[h];
}

/*
 * cputime_adjust() as /proc/PID/stat applies it: the tick-sampled user and
 * system times scaled so that they sum to the precise run time, never below
 * what was shown before (the kernel's prev_cputime, and our own last round).
 */
static void cputime_adjust(struct trace_tasks *t, const struct proc_fold *p, uint64_t *ut,
			   uint64_t *st)
{
	const struct tasks_rec *l = p->leader;
	uint64_t rtime = p->sum_exec, utime = p->utime, stime = p->stime;
	uint64_t prev_u = l->prev_utime, prev_s = l->prev_stime;
	struct cputime_prev *mine = prev_slot(t, l->tgid, l->start_boottime);

	if (mine && mine->utime + mine->stime > prev_u + prev_s) {
		prev_u = mine->utime;
		prev_s = mine->stime;
	}
	if (prev_u + prev_s >= rtime) {
		utime = prev_u;
		stime = prev_s;
	} else {
		if (stime == 0)
			utime = rtime;
		else if (utime == 0)
			stime = rtime;
		else
			stime = (uint64_t)((unsigned __int128)stime * rtime / (stime + utime));
		if (stime < prev_s)
			stime = prev_s;
		utime = rtime - stime;
		if (utime < prev_u) {
			utime = prev_u;
			stime = rtime - utime;
		}
	}
	if (mine) {
		mine->utime = utime;
		mine->stime = stime;
	}
	*ut = utime;
	*st = stime;
}

static uint64_t to_ticks(const struct trace_tasks *t, uint64_t ns)
{
	return ns / (1000000000ull / (uint64_t)t->clk_tck);
}

static void fill_sample(struct trace_tasks *t, const struct proc_fold *p, struct task_sample *s)
{
	const struct tasks_rec *l = p->leader;
	uint64_t ut, st;

	memset(s, 0, sizeof(*s));
	s->pid = (int)l->tgid;
	s->ppid = (int)l->ppid;
	memcpy(s->comm, l->comm, sizeof(l->comm));
	s->comm[sizeof(s->comm) - 1] = '\0';
	s->state = tasks__state_letter(l->state, l->exit_state);
	s->kernel_thread = !!(l->flags & TASKS_KTHREAD);
	s->processor = (int)l->cpu;
	s->uid = l->uid == (uint32_t)-1 ? -1 : (int64_t)l->uid;
	s->starttime = to_ticks(t, l->start_boottime);
	cputime_adjust(t, p, &ut, &st);
	s->utime = to_ticks(t, ut);
	s->stime = to_ticks(t, st);
	s->minflt = p->min_flt;
	s->majflt = p->maj_flt;
	s->blkio_ticks = to_ticks(t, l->blkio_delay);
	s->threads = l->nr_threads;
	s->rss_pages = l->rss_pages;
	s->anon_pages = l->flags & TASKS_HAVE_MM ? l->anon_pages : UINT64_MAX;
	s->swap_pages = l->flags & TASKS_HAVE_MM ? l->swap_pages : UINT64_MAX;
	s->vol_ctxt = l->nvcsw;
	s->nonvol_ctxt = l->nivcsw;
	s->run_ns = l->sum_exec;
	s->wait_ns = l->run_delay;
	s->slices = l->pcount;
	s->has_io = !!(l->flags & TASKS_HAVE_IO);
	s->rchar = p->io.rchar;
	s->wchar = p->io.wchar;
	s->syscr = p->io.syscr;
	s->syscw = p->io.syscw;
	s->read_bytes = p->io.read_bytes;
	s->write_bytes = p->io.write_bytes;
	s->fds = (l->flags & TASKS_HAVE_FILES) && !(l->flags & TASKS_FDS_CUT) ? (int64_t)l->fds : -1;
	s->nofile_soft = l->nofile_cur;
	s->nofile_hard = l->nofile_max;
}

/*
 * Index the pass's records: each is a struct tasks_rec and its tail (the
 * thread's wait). 0, or -ENOMEM.
 */
static int tasks_index(struct trace_tasks *t, size_t len)
{
	size_t off = 0;

	t->nrecs = 0;
	while (off + sizeof(struct tasks_rec) <= len) {
		const struct tasks_rec *r = (const struct tasks_rec *)(t->buf + off);

		if (t->nrecs == t->recs_cap) {
			size_t ncap = t->recs_cap ? t->recs_cap * 2 : 4096;
			const struct tasks_rec **nr = realloc(t->recs, ncap * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			t->recs = nr;
			t->recs_cap = ncap;
		}
		t->recs[t->nrecs++] = r;
		off += sizeof(*r) + r->tail;
	}
	return 0;
}

int trace_tasks__read(struct trace_tasks *t, char *why, size_t whylen)
{
	ssize_t len = tasks__read_pass(t->link, &t->buf, &t->cap);
	const struct tasks_rec **r;
	size_t n;
	int err;

	t->nprocs = 0;
	t->nrecs = 0;
	t->pass_seq = 0;
	if (len < 0) {
		snprintf(why, whylen, "reading the task iterator: %s", strerror((int)-len));
		return (int)len;
	}
	err = tasks_index(t, (size_t)len);
	n = t->nrecs;
	r = t->recs;
	t->round++;
	if (!err)
		err = procs_reserve(t, n);
	if (err) {
		snprintf(why, whylen, "folding %zu threads into processes: %s", n, strerror(-err));
		return err;
	}
	/* leaders first: a thread may come before its leader (tids wrap around) */
	for (size_t i = 0; i < n; i++) {
		struct proc_fold *p;

		if (!(r[i]->flags & TASKS_LEADER) || !(p = proc_of(t, r[i]->tgid, r[i])))
			continue;
		p->utime = r[i]->sig_utime;
		p->stime = r[i]->sig_stime;
		p->sum_exec = r[i]->sig_sum_exec;
		p->min_flt = r[i]->sig_min_flt;
		p->maj_flt = r[i]->sig_maj_flt;
		p->io = r[i]->sig_io;
	}
	for (size_t i = 0; i < n; i++) {
		struct proc_fold *p = proc_of(t, r[i]->tgid, NULL);

		if (!p)
			continue; /* a thread whose leader the pass did not see */
		p->utime += r[i]->utime;
		p->stime += r[i]->stime;
		p->sum_exec += r[i]->sum_exec;
		p->min_flt += r[i]->min_flt;
		p->maj_flt += r[i]->maj_flt;
		io_add(&p->io, &r[i]->io);
	}
	return 0;
}

int trace_tasks__each(struct trace_tasks *t, task_visit_fn visit, void *ctx)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		struct task_sample s;
		int err;

		fill_sample(t, &t->procs[i], &s);
		err = visit(ctx, &s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The command lines pass: its records, indexed by tgid. 0, or -errno with why
 * (the pids collector then reads /proc/PID/cmdline).
 */
static int cmdlines_read(struct trace_tasks *t, char *why, size_t whylen)
{
	ssize_t len = tasks__read_pass(t->cmd_link, &t->cmd_buf, &t->cmd_cap);
	struct tasks_cmdline h;
	size_t off, n = 0, icap = 1024;

	t->cmd_len = 0;
	if (len < 0) {
		snprintf(why, whylen, "reading the command lines iterator: %s",
			 strerror((int)-len));
		return (int)len;
	}
	for (off = 0; off + sizeof(h) <= (size_t)len; off += sizeof(h) + h.len, n++)
		memcpy(&h, t->cmd_buf + off, sizeof(h));
	while (icap < n * 2)
		icap <<= 1;
	if (icap != t->cmd_ix_cap) {
		uint32_t *ni = realloc(t->cmd_ix, icap * sizeof(*ni));

		if (!ni) {
			snprintf(why, whylen, "indexing %zu command lines: %s", n, strerror(ENOMEM));
			return -ENOMEM;
		}
		t->cmd_ix = ni;
		t->cmd_ix_cap = icap;
	}
	memset(t->cmd_ix, 0, t->cmd_ix_cap * sizeof(*t->cmd_ix));
	for (off = 0; off + sizeof(h) <= (size_t)len; off += sizeof(h) + h.len) {
		size_t k;

		memcpy(&h, t->cmd_buf + off, sizeof(h));
		if (off + sizeof(h) + h.len > (size_t)len || off >= UINT32_MAX)
			break; /* a record the pass cut: the rest from /proc */
		for (k = hash_u32(h.tgid, t->cmd_ix_cap); t->cmd_ix[k];
		     k = (k + 1) & (t->cmd_ix_cap - 1))
			;
		t->cmd_ix[k] = (uint32_t)off + 1;
	}
	t->cmd_len = (size_t)len;
	return 0;
}

/*
 * pid's command line from the last pass, as /proc/PID/cmdline would read with
 * a cap of TASKS_CMDLINE_MAX: 0 with its bytes, or -ENOENT (not in the pass,
 * or unreadable there: read /proc).
 */
static int cmdline_of(const struct trace_tasks *t, int pid, const char **data, size_t *len,
		      int *cut)
{
	struct tasks_cmdline h;

	if (!t->cmd_len || pid <= 0)
		return -ENOENT;
	for (size_t k = hash_u32((uint32_t)pid, t->cmd_ix_cap); t->cmd_ix[k];
	     k = (k + 1) & (t->cmd_ix_cap - 1)) {
		const char *p = t->cmd_buf + t->cmd_ix[k] - 1;

		memcpy(&h, p, sizeof(h));
		if (h.tgid != (uint32_t)pid)
			continue;
		if (h.flags & TASKS_CMDLINE_FAULT)
			return -ENOENT;
		*data = p + sizeof(h);
		*len = h.len;
		*cut = !!(h.flags & TASKS_CMDLINE_CUT);
		if (h.flags & TASKS_CMDLINE_PROCTITLE) {
			/* get_mm_proctitle(): one page, up to and with its first NUL */
			const char *nul = memchr(*data, '\0', *len);
			long page = sysconf(_SC_PAGESIZE);

			if (nul)
				*len = (size_t)(nul - *data) + 1;
			*cut = !nul && *cut && page > TASKS_CMDLINE_MAX;
		}
		return 0;
	}
	return -ENOENT;
}

static int tasks_cmdlines_read(void *arg, char *why, size_t whylen)
{
	return cmdlines_read(arg, why, whylen);
}

static int tasks_cmdline(void *arg, int pid, const char **data, size_t *len, int *cut)
{
	return cmdline_of(arg, pid, data, len, cut);
}

static void tasks_cmdlines_drop(void *arg)
{
	struct trace_tasks *t = arg;

	free(t->cmd_buf);
	free(t->cmd_ix);
	t->cmd_buf = NULL;
	t->cmd_ix = NULL;
	t->cmd_cap = t->cmd_len = t->cmd_ix_cap = 0;
}

/* The pass of round seq, read once whichever collector asks first (pids, threads). */
static int tasks_read(void *arg, uint32_t seq, char *why, size_t whylen)
{
	struct trace_tasks *t = arg;
	int err;

	if (t->pass_seq == seq + 1)
		return 0;
	err = trace_tasks__read(t, why, whylen);
	if (!err)
		t->pass_seq = seq + 1;
	return err;
}

static int tasks_each_thread(void *arg, thread_visit_fn visit, void *ctx)
{
	return tasks_wait__each_thread(arg, visit, ctx);
}

static int tasks_sample_process(void *arg, int tgid, thread_visit_fn visit, void *ctx)
{
	return tasks_wait__sample_process(arg, tgid, visit, ctx);
}

static void tasks_sample_drop(void *arg, int tgid)
{
	tasks_wait__sample_drop(arg, tgid);
}

static int tasks_each(void *arg, task_visit_fn visit, void *ctx)
{
	return trace_tasks__each(arg, visit, ctx);
}

static size_t tasks_count(void *arg)
{
	const struct trace_tasks *t = arg;

	return t->nprocs;
}

void trace_tasks__source(struct trace_tasks *t, struct task_source *src)
{
	src->name = "bpf_iter_task";
	src->read = tasks_read;
	src->each = tasks_each;
	src->count = tasks_count;
	src->arg = t;
	if (t->cmd_link) {
		src->cmdlines_read = tasks_cmdlines_read;
		src->cmdline = tasks_cmdline;
		src->cmdlines_drop = tasks_cmdlines_drop;
	}
	src->cmdlines_why = t->cmd_why;
	src->each_thread = tasks_each_thread;
	src->threads_why = "";
	src->threads_lost = t->threads_lost;
	if (!t->sampler_why[0]) {
		src->sample_process = tasks_sample_process;
		src->sample_drop = tasks_sample_drop;
		src->sampler_name = t->wait_prog ? "bpf_iter_task per process (poll fds)" :
						   "bpf_iter_task per process";
	}
	src->sampler_why = t->sampler_why;
}
