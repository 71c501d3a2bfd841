// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What each thread waits in (the thread states, proc.threads), from the
 * task iterator's pass (tasks.c reads it; the struct tasks_wait after each
 * thread's record) and from the per-process sampler (dump_wait, a task
 * iterator link made for one process: Linux 6.1 iterates that process's
 * threads alone, so sampling a suspect many times a round costs its threads,
 * not the host's). The raw fields become the capture's words here: the
 * syscall's name, the file behind the fd as text, the kernel stack's
 * function names.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf/symbolize.h"
#include "trace/tasks_int.h"
#include "util/parse.h"
#include "util/waits.h"

/* Is delay accounting on (kernel.task_delayacct, off by default since 5.14)? */
static int delayacct_on(void)
{
	char c = '0';
	int fd = open("/proc/sys/kernel/task_delayacct", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

static void fd_bit(void *arg, const char *name)
{
	struct tasks_bpf *skel = arg;
	long nr = waits__syscall_nr(name);

	if (nr >= 0 && nr < TASKS_SYSCALL_BITS)
		skel->rodata->targ_fd_syscalls[nr / 64] |= 1ull << (nr % 64);
}

void tasks_wait__configure(struct tasks_bpf *skel)
{
	waits__each_fd_syscall(fd_bit, skel);
	skel->rodata->targ_poll_nr = waits__syscall_nr("poll");
	skel->rodata->targ_ppoll_nr = waits__syscall_nr("ppoll");
	/* the delays are kept only while delay accounting is on */
	skel->rodata->targ_delays = delayacct_on();
}

/*
 * Can the kernel iterate one process's threads? A link for our own process:
 * where it is refused, the sampler reads /proc (sampler_why says why).
 */
void tasks_wait__init(struct trace_tasks *t)
{
	struct bpf_program *prog;
	union bpf_iter_link_info li = { 0 };
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));
	struct bpf_link *l;

	pthread_mutex_init(&t->ksyms_mu, NULL);
	t->wait_prog = bpf_program__autoload(t->skel->progs.dump_wait);
	prog = t->wait_prog ? t->skel->progs.dump_wait : t->skel->progs.dump_wait_ns;
	li.task.pid = (__u32)getpid();
	l = bpf_program__attach_iter(prog, &o);
	if (!l) {
		snprintf(t->sampler_why, sizeof(t->sampler_why),
			 "the kernel does not iterate one process's threads (a task iterator link "
			 "with a pid, Linux 6.1): %s", strerror(errno));
		return;
	}
	bpf_link__destroy(l);
}

void tasks_wait__fini(struct trace_tasks *t)
{
	for (size_t i = 0; i < TASKS_SAMPLED_MAX; i++)
		bpf_link__destroy(t->sampled[i].link);
	memset(t->sampled, 0, sizeof(t->sampled));
	free(t->sbuf);
	t->sbuf = NULL;
	if (t->skel)
		pthread_mutex_destroy(&t->ksyms_mu);
	symbolizer__free(t->ksyms);
	t->ksyms = NULL;
}

static void sock_object(const struct tasks_wait *w, char *out, size_t len)
{
	if (w->sk_family == AF_INET || w->sk_family == AF_INET6)
		waits__inet(out, len, w->sk_family, w->sk_proto, w->sk_type, w->sk_laddr,
			    w->sk_lport, w->sk_raddr, w->sk_rport, w->sk_state, w->sk_backlog);
	else
		waits__sock(out, len, w->sk_family, w->sk_type);
}

/* The capture's words for the file of w's fd (thread_sample.object). */
static void wait_object(const struct tasks_wait *w, char *out, size_t len)
{
	unsigned maj = w->dev >> 20, min = w->dev & 0xfffff;

	out[0] = '\0';
	if (!(w->flags & WAIT_FD))
		return;
	if (w->flags & WAIT_SOCK) {
		sock_object(w, out, len);
	} else if (w->flags & WAIT_ANON) {
		char name[sizeof(w->anon) + 1];
		size_t i;

		/* a kernel name ("[eventpoll]"), kept to one printable word */
		for (i = 0; i < sizeof(w->anon) && w->anon[i]; i++)
			name[i] = w->anon[i] > ' ' && w->anon[i] < 0x7f ? w->anon[i] : '_';
		name[i] = '\0';
		snprintf(out, len, "anon %s", name);
	} else {
		switch (w->i_mode & S_IFMT) {
		case S_IFIFO: snprintf(out, len, "pipe"); break;
		case S_IFREG: snprintf(out, len, "file %u:%u %llu", maj, min, (unsigned long long)w->ino); break;
		case S_IFDIR: snprintf(out, len, "dir %u:%u %llu", maj, min, (unsigned long long)w->ino); break;
		case S_IFCHR: snprintf(out, len, "chr"); break;
		case S_IFBLK: snprintf(out, len, "blk"); break;
		case S_IFSOCK: snprintf(out, len, "sock"); break;
		default: snprintf(out, len, "other"); break;
		}
	}
}

/*
 * The kernel's own names for a D thread's stack: /proc/TGID/task/TID/stack
 * (root with CAP_SYS_ADMIN), 20 to 50 us a thread, where loading and sorting
 * /proc/kallsyms to name the pass's addresses costs 50 ms and 8 MB at the
 * first D thread. 0 when the file was read (out empty when the thread has
 * left D since the pass: no frame then), or -errno (kallsyms names them).
 */
static int proc_kstack(int tgid, int tid, char *out, size_t len)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", tgid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	if (parse_kernel_stack(buf, (size_t)n, out, len))
		out[0] = '\0';
	return 0;
}

/* A D thread's kernel stack as "fn<fn<fn", leaf first, the scheduler's frames left out. */
static void wait_kstack(struct trace_tasks *t, const struct tasks_wait *w, const __u64 *stack,
			char *out, size_t len)
{
	__u32 n = w->nstack;
	size_t used = 0;
	int kept = 0;

	out[0] = '\0';
	if (!n || !proc_kstack((int)w->tgid, (int)w->pid, out, len))
		return;
	/* /proc refused it: the pass's addresses, named from kallsyms (loaded once) */
	pthread_mutex_lock(&t->ksyms_mu);
	if (!t->ksyms && (t->ksyms = symbolizer__new()))
		symbolizer__kernel_load(t->ksyms, NULL);
	for (__u32 i = 0; t->ksyms && i < n && i < TASKS_KSTACK && kept < WAITS_KSTACK_FRAMES; i++) {
		const char *fn = symbolizer__kernel(t->ksyms, stack[i], NULL);
		int nw;

		if (!kept && waits__sched_frame(fn, strlen(fn)))
			continue;
		nw = snprintf(out + used, len - used, "%s%s", kept ? "<" : "", fn);
		if (nw < 0 || (size_t)nw >= len - used)
			break;
		used += (size_t)nw;
		kept++;
	}
	pthread_mutex_unlock(&t->ksyms_mu);
}

/* What a thread waits in, as words: its syscall, its arguments, its fd's file, its D stack. */
static void thread_words(void *arg, struct thread_sample *s)
{
	struct trace_tasks *t = arg;
	const struct tasks_wait *w = s->raw;

	s->syscall[0] = s->object[0] = s->kstack[0] = '\0';
	s->has_args = 0;
	if (w->flags & WAIT_KTHREAD || (w->flags & WAIT_ONCPU)) {
		snprintf(s->syscall, sizeof(s->syscall), "-");
	} else if (!(w->flags & WAIT_SYSCALL)) {
		snprintf(s->syscall, sizeof(s->syscall), "?");
	} else if (w->syscall < 0) {
		snprintf(s->syscall, sizeof(s->syscall), "-");
	} else {
		const char *name = waits__syscall_name((long)w->syscall);

		if (name)
			snprintf(s->syscall, sizeof(s->syscall), "%s", name);
		else
			snprintf(s->syscall, sizeof(s->syscall), "#%lld", (long long)w->syscall);
		s->has_args = 1;
		memcpy(s->args, w->args, sizeof(s->args));
	}
	wait_object(w, s->object, sizeof(s->object));
	wait_kstack(t, w, (const __u64 *)(w + 1), s->kstack, sizeof(s->kstack));
	s->words = 1;
}

/* A thread's numbers; its words are filled when the visitor asks (thread_sample__words). */
static void thread_of(struct trace_tasks *t, const struct tasks_wait *w, struct thread_sample *s)
{
	s->tid = (int)w->pid;
	s->tgid = (int)w->tgid;
	s->state = tasks__state_letter(w->state, 0);
	s->flags = (w->flags & WAIT_ONCPU ? THREAD_ONCPU : 0) |
		   (w->flags & WAIT_IOWAIT ? THREAD_IOWAIT : 0) |
		   (w->flags & WAIT_KTHREAD ? THREAD_KTHREAD : 0) |
		   (w->flags & WAIT_POLLFD ? THREAD_POLLFD : 0);
	s->start_ns = w->start_time;
	s->run_ns = w->sum_exec;
	s->runq_ns = w->run_delay;
	s->nvcsw = w->nvcsw;
	s->nivcsw = w->nivcsw;
	s->has_delays = !!(w->flags & WAIT_DELAYS);
	s->blkio_ns = w->delay_blkio;
	s->swapin_ns = w->delay_swapin;
	s->reclaim_ns = w->delay_freepages;
	s->thrashing_ns = w->delay_thrashing;
	s->words = 0;
	s->words_fill = thread_words;
	s->words_arg = t;
	s->raw = w;
}

int tasks_wait__each_thread(struct trace_tasks *t, thread_visit_fn visit, void *ctx)
{
	struct thread_sample s;

	for (size_t i = 0; i < t->nrecs; i++) {
		const struct tasks_rec *r = t->recs[i];
		const struct tasks_wait *w;
		int err;

		if (!(r->flags & TASKS_HAVE_WAIT) || r->tail < sizeof(*w))
			continue;
		w = (const struct tasks_wait *)(r + 1);
		thread_of(t, w, &s);
		err = visit(ctx, &s);
		if (err)
			return err;
	}
	return 0;
}

/* tgid's link (made at its first sample); NULL with errno when the table is full or refused. */
static struct bpf_link *sampled_link(struct trace_tasks *t, int tgid)
{
	union bpf_iter_link_info li = { 0 };
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &li, .link_info_len = sizeof(li));
	struct tasks_sampled *free_slot = NULL;

	for (size_t i = 0; i < TASKS_SAMPLED_MAX; i++) {
		if (t->sampled[i].link && t->sampled[i].tgid == tgid)
			return t->sampled[i].link;
		if (!t->sampled[i].link && !free_slot)
			free_slot = &t->sampled[i];
	}
	if (!free_slot) {
		errno = ENOSPC;
		return NULL;
	}
	li.task.pid = (__u32)tgid;
	free_slot->link = bpf_program__attach_iter(t->wait_prog ? t->skel->progs.dump_wait :
								  t->skel->progs.dump_wait_ns, &o);
	if (!free_slot->link)
		return NULL;
	free_slot->tgid = tgid;
	return free_slot->link;
}

int tasks_wait__sample_process(struct trace_tasks *t, int tgid, thread_visit_fn visit, void *ctx)
{
	struct bpf_link *link = sampled_link(t, tgid);
	struct thread_sample s;
	ssize_t len;
	size_t off = 0, n = 0;

	if (!link)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	len = tasks__read_pass(link, &t->sbuf, &t->scap);
	if (len < 0)
		return (int)len;
	while (off + sizeof(struct tasks_wait) <= (size_t)len) {
		const struct tasks_wait *w = (const struct tasks_wait *)(t->sbuf + off);
		int err;

		off += sizeof(*w) + (size_t)w->nstack * 8;
		if (off > (size_t)len)
			break;
		thread_of(t, w, &s);
		n++;
		err = visit(ctx, &s);
		if (err)
			return err;
	}
	if (!n) {
		tasks_wait__sample_drop(t, tgid);
		return -ESRCH; /* no thread left: it exited */
	}
	return 0;
}

void tasks_wait__sample_drop(struct trace_tasks *t, int tgid)
{
	for (size_t i = 0; i < TASKS_SAMPLED_MAX; i++)
		if (t->sampled[i].link && t->sampled[i].tgid == tgid) {
			bpf_link__destroy(t->sampled[i].link);
			t->sampled[i].link = NULL;
			t->sampled[i].tgid = 0;
		}
}
