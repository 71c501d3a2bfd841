// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User stack copies (ustack.h): parse, store, drain.
 *
 * The records come from a BPF program, but they are still input: a record
 * shorter than its header or whose size field claims more bytes than it
 * carries is counted as bad and skipped, never read past its end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf/ustack.h"
#include "util/selfcpu.h"

int ustack__parse(const void *data, size_t len, struct ustack_rec *out)
{
	const uint8_t *b = data;

	if (!data || len < USTACK_HDR)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(&out->tgid, b, 4);
	memcpy(&out->pid, b + 4, 4);
	memcpy(&out->kstack, b + 8, 4);
	memcpy(&out->ustack, b + 12, 4);
	memcpy(out->comm, b + 16, 16);
	memcpy(out->regs, b + 32, sizeof(out->regs));
	memcpy(&out->size, b + 168, 4);
	memcpy(&out->flags, b + 172, 4);
	if (!out->tgid || out->size > USTACK_MAX_BYTES || out->size > len - USTACK_HDR)
		return -EINVAL;
	out->stack = (uint8_t *)b + USTACK_HDR;
	return 0;
}

/* Room for len bytes (16-byte aligned) in the last chunk, or a new chunk: its index, or -1. */
static long chunk_room(struct ustack_store *s, size_t len)
{
	struct ustack_chunk *c = s->nchunk ? &s->chunk[s->nchunk - 1] : NULL;
	size_t size;
	void *base;

	if (c && c->base && c->size - c->used >= len)
		return (long)(s->nchunk - 1);
	if (s->nchunk == s->chunkcap) {
		size_t cap = s->chunkcap ? s->chunkcap * 2 : 8;
		struct ustack_chunk *nv = realloc(s->chunk, cap * sizeof(*nv));

		if (!nv)
			return -1;
		s->chunk = nv;
		s->chunkcap = cap;
	}
	/* a small budget (tests) needs no megabyte; a page multiple either way */
	size = s->budget < USTACK_CHUNK ? s->budget : USTACK_CHUNK;
	if (size < len)
		size = len;
	size = (size + 4095) & ~(size_t)4095;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		    -1, 0);
	if (base == MAP_FAILED)
		return -1;
	s->chunk[s->nchunk] = (struct ustack_chunk){ .base = base, .size = size };
	return (long)s->nchunk++;
}

int ustack_store__add(struct ustack_store *s, const struct ustack_rec *r)
{
	size_t len = ((size_t)r->size + 15) & ~(size_t)15;
	struct ustack_chunk *c;
	long k;

	if (s->bytes + r->size > s->budget) {
		s->over_budget++;
		return -ENOSPC;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct ustack_rec *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	k = chunk_room(s, len ? len : 16);
	if (k < 0)
		return -ENOMEM;
	c = &s->chunk[k];
	s->v[s->n] = *r;
	s->v[s->n].stack = c->base + c->used;
	s->v[s->n].chunk = (uint32_t)k;
	memcpy(s->v[s->n].stack, r->stack, r->size);
	c->used += len ? len : 16;
	c->live++;
	s->n++;
	s->bytes += r->size;
	s->bytes_copied += r->size;
	s->kept++;
	return 0;
}

void ustack_store__drop(struct ustack_store *s, size_t i)
{
	struct ustack_chunk *c;

	if (i >= s->n || !s->v[i].stack)
		return;
	s->bytes -= s->v[i].size;
	s->v[i].stack = NULL;
	s->v[i].size = 0;
	if (s->v[i].chunk >= s->nchunk)
		return;
	c = &s->chunk[s->v[i].chunk];
	if (c->live && !--c->live && c->base) {
		munmap(c->base, c->size);
		c->base = NULL;
	}
}

void ustack_store__free(struct ustack_store *s)
{
	for (size_t i = 0; i < s->nchunk; i++)
		if (s->chunk[i].base)
			munmap(s->chunk[i].base, s->chunk[i].size);
	free(s->chunk);
	free(s->v);
	s->v = NULL;
	s->chunk = NULL;
	s->n = s->cap = s->bytes = s->nchunk = s->chunkcap = 0;
}

struct ustack_reader {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int interval_ms;
	struct ring_buffer *rb;
	struct ustack_store *store;
	int ctl_fd, stopped_copies;
};

static int on_record(void *ctx, void *data, size_t len)
{
	struct ustack_reader *r = ctx;
	struct ustack_rec rec;

	if (ustack__parse(data, len, &rec)) {
		r->store->bad++;
		return 0;
	}
	/* full: tell the kernel to stop copying; the samples keep their FP stacks */
	if (ustack_store__add(r->store, &rec) == -ENOSPC && r->ctl_fd >= 0 && !r->stopped_copies) {
		uint32_t zero = 0, off = 0;

		bpf_map_update_elem(r->ctl_fd, &zero, &off, BPF_ANY);
		r->stopped_copies = 1;
	}
	return 0;
}

static void *reader_main(void *arg)
{
	struct ustack_reader *r = arg;
	struct timespec until;

	pthread_setname_np(pthread_self(), "sonde-ustack");
	self_cpu__enter(SELF_POLLERS);
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		pthread_mutex_unlock(&r->mu);
		ring_buffer__consume(r->rb);
		pthread_mutex_lock(&r->mu);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)r->interval_ms * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct ustack_reader *ustack_reader__start(int ring_fd, struct ustack_store *store,
					   int ctl_fd, int interval_ms)
{
	struct ustack_reader *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;

	if (!r)
		return NULL;
	r->store = store;
	r->ctl_fd = ctl_fd;
	r->interval_ms = interval_ms > 0 && interval_ms < 1000 ? interval_ms : 100;
	r->rb = ring_buffer__new(ring_fd, on_record, r, NULL);
	if (!r->rb) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&r->th, NULL, reader_main, r)) {
		ring_buffer__free(r->rb);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		return NULL;
	}
	return r;
}

void ustack_reader__stop(struct ustack_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	ring_buffer__consume(r->rb); /* what came since the last drain */
	ring_buffer__free(r->rb);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
