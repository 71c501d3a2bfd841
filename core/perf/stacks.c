// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack samplers' user side (stacks.h): the maps poller, and counted stacks to
 * folded stacks.
 *
 * Why a poller: symbolizing a user address needs the process's maps, and a
 * short-lived process (a build's compiler, a cron job) is gone by the end of
 * the window. Polling the counts map once per second and reading the maps of
 * every new tgid then keeps most of them: only a process that both starts and
 * exits within one second of the last poll is lost, and its frames are
 * "[unknown]" and counted (unknown_reasons.process_exited). The ELF files are
 * read only at the end (they are still on disk; a file replaced since is
 * refused by inode), so the window itself pays for nothing but the maps.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "util/clock.h"
#include "util/hash.h"
#include "util/selfcpu.h"
#include "perf/stacks.h"

struct stack_poller {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int fd;
	size_t key_size;
	int interval_ms;
	struct symbolizer *sym;
	int batch_ok;                 /* batched lookups worked (or are still to be tried) */
	unsigned char *batch_keys, *batch_vals;
};

/* The tgid of a counts key (its first field), snapshotted unless it was the last one seen. */
static void seen_key(struct stack_poller *p, const unsigned char *key, uint32_t *last)
{
	uint32_t tgid;

	memcpy(&tgid, key, sizeof(tgid));
	if (tgid && tgid != *last)
		symbolizer__snapshot(p->sym, (int)tgid);
	*last = tgid;
}

/*
 * Every key of the counts map in batches of POLL_BATCH (BPF_MAP_LOOKUP_BATCH,
 * Linux 5.6): a few syscalls a poll where one a key made the poller cost as
 * much as the rest of the profile once a window had a few hundred distinct
 * stacks. 0 when the whole map was read, -1 when batches are not to be had
 * (an older kernel, a map type without them, a bucket larger than a batch):
 * the caller walks the keys one by one.
 */
#define POLL_BATCH 256

static int poll_batched(struct stack_poller *p, uint32_t *last)
{
	unsigned char in[64], out[64];
	void *batch_in = NULL;

	if (!p->batch_keys)
		return -1;
	for (;;) {
		__u32 count = POLL_BATCH;
		int err = bpf_map_lookup_batch(p->fd, batch_in, out, p->batch_keys, p->batch_vals,
					       &count, NULL);
		int end = err && errno == ENOENT;

		if (err && !end)
			return -1;
		for (__u32 i = 0; i < count && i < POLL_BATCH; i++)
			seen_key(p, p->batch_keys + (size_t)i * p->key_size, last);
		if (end)
			return 0;
		memcpy(in, out, sizeof(in));
		batch_in = in;
	}
}

static void poll_once(struct stack_poller *p)
{
	unsigned char key[64], next[64];
	void *prev = NULL;
	uint32_t last = 0;

	if (p->batch_ok && !poll_batched(p, &last))
		return;
	p->batch_ok = 0; /* not again: each failed try costs a syscall a poll */
	while (!bpf_map_get_next_key(p->fd, prev, next)) {
		seen_key(p, next, &last);
		memcpy(key, next, p->key_size);
		prev = key;
	}
}

static void *poller_main(void *arg)
{
	struct stack_poller *p = arg;
	struct timespec until;

	pthread_setname_np(pthread_self(), "sonde-stacks");
	self_cpu__enter(SELF_POLLERS);
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		pthread_mutex_unlock(&p->mu);
		poll_once(p);
		pthread_mutex_lock(&p->mu);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += p->interval_ms / 1000;
		until.tv_nsec += (long)(p->interval_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct stack_poller *stack_poller__start(int counts_fd, size_t key_size, struct symbolizer *sym,
					 int interval_ms)
{
	struct stack_poller *p;
	pthread_condattr_t ca;

	if (key_size > 64)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fd = counts_fd;
	p->key_size = key_size;
	/* the values' size from the map itself; a per-CPU map's values are not worth the copy */
	{
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(counts_fd, &info, &len) && info.key_size == key_size &&
		    info.value_size && info.value_size <= 64 && info.type == BPF_MAP_TYPE_HASH) {
			p->batch_keys = malloc(POLL_BATCH * key_size);
			p->batch_vals = malloc(POLL_BATCH * (size_t)info.value_size);
			p->batch_ok = p->batch_keys && p->batch_vals;
		}
	}
	p->sym = sym;
	p->interval_ms = interval_ms;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->th, NULL, poller_main, p)) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p->batch_keys);
		free(p->batch_vals);
		free(p);
		return NULL;
	}
	return p;
}

void stack_poller__stop(struct stack_poller *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	/* a last look: processes that appeared since the last poll and still live */
	poll_once(p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->batch_keys);
	free(p->batch_vals);
	free(p);
}

int stacks__read_counts(int counts_fd, size_t key_size, size_t value_size, size_t value_at,
			struct stack_sample **out, size_t *n)
{
	unsigned char key[64], next[64], val[64];
	struct stack_sample *v = NULL;
	size_t cap = 0, cnt = 0;
	void *prev = NULL;

	if (key_size > sizeof(key) || key_size < 32 || value_size > sizeof(val) ||
	    value_at + 8 > value_size)
		return -EINVAL;
	while (!bpf_map_get_next_key(counts_fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		if (bpf_map_lookup_elem(counts_fd, key, val))
			continue;
		if (cnt == cap) {
			struct stack_sample *nv = realloc(v, (cap = cap ? cap * 2 : 1024) * sizeof(*nv));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		/* the key layout of profile_key and offcpu_key: tgid, pid, kstack, ustack, comm[16] */
		memcpy(&v[cnt].tgid, key, 4);
		memcpy(&v[cnt].pid, key + 4, 4);
		memcpy(&v[cnt].kstack, key + 8, 4);
		memcpy(&v[cnt].ustack, key + 12, 4);
		memcpy(v[cnt].comm, key + 16, 16);
		memcpy(&v[cnt].value, val + value_at, 8);
		cnt++;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* ---- folding ---- */

/* Frames where a thread's user stack begins: a walk that reaches one is whole. */
static int thread_start(const char *name)
{
	static const char *const starts[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "clone3", "__clone", "__clone3", "__clone_internal", "thread_start",
		"_dl_start_user", "_dl_start", "__GI___clone3", "__GI___clone", "runtime.goexit",
		"runtime.goexit.abi0", "runtime.rt0_go", "runtime.rt0_go.abi0", "runtime.mstart",
		"runtime.mstart.abi0", NULL,
	};

	for (const char *const *s = starts; *s; s++)
		if (!strcmp(name, *s))
			return 1;
	return 0;
}

int stacks__user_whole(struct symbolizer *sym, int stack_fd, int depth, uint32_t tgid,
		       int32_t ustack)
{
	uint64_t ips[256];
	enum sym_why w;
	int n = 0;

	if (ustack < 0 || depth > 256)
		return 0;
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(stack_fd, &ustack, ips))
		return 0;
	while (n < depth && ips[n])
		n++;
	return n >= 3 && thread_start(symbolizer__user(sym, (int)tgid, ips[n - 1] - 1, &w));
}

/* A frame name safe in the folded format: ';' separates frames, a newline ends the line. */
static void put_frame(struct strbuf *sb, const char *name, const char *suffix)
{
	strbuf__puts(sb, ";");
	for (const char *c = name; *c; c++) {
		char ch = *c == ';' ? ':' : (*c == '\n' || *c == '\r') ? ' ' : *c;

		strbuf__append(sb, &ch, 1);
	}
	if (suffix)
		strbuf__puts(sb, suffix);
}

struct row {
	uint32_t tgid;
	char comm[16];
	uint64_t value;
	char *folded;
	int cfi;              /* produced by the CFI unwinder */
	const char *stop;     /* why the user part ends (a static string) */
	char *stop_at;        /* the file of its outermost user frame, or NULL */
};

/* How a user stack was folded: whole or not, lost in the stack map, where and why it stops. */
struct fold_meta {
	int broken, lost, user_frames;
	const char *stop;
	enum sym_why outer_why;
	uint64_t outer_addr;
	int has_outer;
};

#define FRAME_CAUSES 8 /* distinct (cause, file) of unknown frames counted per stack */

struct fold_state {
	struct symbolizer *sym;
	int stack_fd, depth;
	uint64_t *ips;
	const char **names;
	enum sym_why *whys;
	/* account: count frames and causes (off for the trial fold of an FP stack) */
	int account;
	uint64_t weight;
	struct causes *causes;
	struct { int kind; const char *where; } fc[FRAME_CAUSES];
	int nfc;
	uint64_t frames, unknown, by_why[SYM_WHY_NR];
	uint64_t broken_stacks, broken_value;
	uint64_t lost_stacks, lost_value; /* user stacks still "[lost stack]" */
};

/* An unknown user frame's cause, once per (cause, file) per stack. */
static void frame_cause(struct fold_state *fs, int tgid, uint64_t addr, enum sym_why w)
{
	int kind = causes__of_frame(w);
	const char *where;

	if (kind < 0 || fs->nfc >= FRAME_CAUSES)
		return;
	where = kind == CAUSE_STRIPPED || kind == CAUSE_UNREADABLE ?
			symbolizer__path(fs->sym, tgid, addr) : NULL;
	for (int i = 0; i < fs->nfc; i++)
		if (fs->fc[i].kind == kind && (fs->fc[i].where == where ||
					       (where && fs->fc[i].where && !strcmp(fs->fc[i].where, where))))
			return;
	fs->fc[fs->nfc].kind = kind;
	fs->fc[fs->nfc].where = where;
	fs->nfc++;
}

/* Append frames (leaf first in ips), outermost first; returns frames written. */
static int fold_ips(struct fold_state *fs, struct strbuf *sb, const uint64_t *ips, int n,
		    int user, int tgid, const char **outermost, struct fold_meta *m)
{
	int skip = 0;

	n = n > fs->depth ? fs->depth : n;
	for (int i = 0; i < n; i++) {
		/* a return address is after the call: step back into the calling function */
		uint64_t a = ips[i] - (i > 0 ? 1 : 0);
		enum sym_why w;

		fs->names[i] = user ? symbolizer__user(fs->sym, tgid, a, &w) :
				      symbolizer__kernel(fs->sym, a, &w);
		fs->whys[i] = w;
	}
	while (!user && skip < n - 1 && symbolizer__tracer_frame(fs->names[skip]))
		skip++;
	for (int i = n - 1; i >= skip; i--) {
		if (i == n - 1 && outermost)
			*outermost = fs->names[i];
		if (i == n - 1 && m) {
			m->outer_why = fs->whys[i];
			m->outer_addr = ips[i] - (i > 0 ? 1 : 0);
			m->has_outer = 1;
		}
		put_frame(sb, fs->names[i], user ? NULL : "_[k]");
		if (!fs->account)
			continue;
		fs->frames++;
		if (fs->whys[i] != SYM_OK) {
			fs->unknown++;
			fs->by_why[fs->whys[i]]++;
			if (user)
				frame_cause(fs, tgid, ips[i] - (i > 0 ? 1 : 0), fs->whys[i]);
		}
	}
	return n - skip;
}

/* Append the frames of a stack id, outermost first; returns frames written, -1 if the stack is gone. */
static int fold_stack(struct fold_state *fs, struct strbuf *sb, int32_t id, int user, int tgid,
		      const char **outermost, struct fold_meta *m)
{
	int n = 0;

	memset(fs->ips, 0, (size_t)fs->depth * sizeof(*fs->ips));
	if (bpf_map_lookup_elem(fs->stack_fd, &id, fs->ips))
		return -1;
	while (n < fs->depth && fs->ips[n])
		n++;
	return fold_ips(fs, sb, fs->ips, n, user, tgid, outermost, m);
}

/*
 * Fold one sample: its FP user stack (cfi NULL) or the CFI one. m says
 * whether the user part is whole, and why and where it stops.
 */
static char *fold_one(struct fold_state *fs, const struct stack_sample *s,
		      const struct cfi_stack *cfi, struct fold_meta *m)
{
	struct strbuf sb = { 0 };
	char comm[17];
	const char *outer = NULL;
	int un = 0;
	enum sym_proc kind = symbolizer__snapshot(fs->sym, (int)s->tgid);

	memset(m, 0, sizeof(*m));
	fs->nfc = 0;
	memcpy(comm, s->comm, 16);
	comm[16] = '\0';
	strbuf__puts(&sb, comm[0] ? comm : "?");
	for (char *c = sb.buf; c && *c; c++)
		if (*c == ';' || *c == '\n')
			*c = ' ';
	if (cfi) {
		un = fold_ips(fs, &sb, cfi->ips, cfi->n, 1, (int)s->tgid, &outer, m);
		if (!un) {
			put_frame(&sb, SYM_UNKNOWN, NULL);
			un = 1;
		}
		m->stop = cfi->stop;
	} else if (s->ustack >= 0) {
		un = fold_stack(fs, &sb, s->ustack, 1, (int)s->tgid, &outer, m);
		if (un < 0)
			put_frame(&sb, "[lost stack]", NULL);
		m->stop = un < 0 ? "lost_stack" : "fp_broken";
		m->lost = un < 0;
	} else if (s->ustack != -14 /* EFAULT */) {
		put_frame(&sb, "[lost stack]", NULL); /* not stored: stack map full or collided */
		un = -1;
		m->stop = "lost_stack";
		m->lost = 1;
	} else if (kind != SYM_PROC_KERNEL) {
		put_frame(&sb, SYM_UNKNOWN, NULL); /* a user thread whose stack could not be walked */
		if (fs->account) {
			fs->frames++;
			fs->unknown++;
			fs->by_why[SYM_NO_MAPPING]++;
		}
		un = 1;
		m->stop = "fp_fault";
		m->outer_why = kind == SYM_PROC_EXITED ? SYM_PROC_GONE : SYM_OK;
	} else {
		m->stop = "kernel_thread";
	}
	m->user_frames = un > 0 ? un : 0;
	/* a user thread's stack is whole when it reaches where the thread began (a lost one never) */
	if (kind != SYM_PROC_KERNEL && s->tgid && (un < 3 || !outer || !thread_start(outer)))
		m->broken = 1;
	else if (kind != SYM_PROC_KERNEL && un > 0)
		m->stop = "thread_start";
	if (s->kstack >= 0) {
		if (fold_stack(fs, &sb, s->kstack, 0, 0, NULL, NULL) < 0)
			put_frame(&sb, "[lost stack]", "_[k]");
	} else if (s->kstack != -14) {
		put_frame(&sb, "[lost stack]", "_[k]");
	}
	if (sb.oom) {
		strbuf__free(&sb);
		return NULL;
	}
	return sb.buf;
}

/*
 * Count what a folded stack of weight value misses: broken (a lost one too),
 * its cause, its unknown frames' causes. nb: the sample's CFI walk that did no
 * better (or was over the unwind budget), NULL when none.
 */
static void fold_account(struct fold_state *fs, const struct stack_sample *s, int cfi,
			 const struct cfi_stack *nb, const struct fold_meta *m, const char *folded,
			 uint64_t value)
{
	char comm[17];
	const char *runtime;

	memcpy(comm, s->comm, 16);
	comm[16] = '\0';
	runtime = causes__runtime(comm, folded);
	/* lost, whoever it was (a process exiting has no maps left: no broken stack, still lost) */
	if (m->lost) {
		fs->lost_stacks++;
		fs->lost_value += value;
	}
	if (m->broken) {
		/* an FP stack whose CFI walk was no better: the walk's stop says why, unless it is lost */
		enum cause_kind k = nb && !m->lost ? causes__of_stack(1, nb->stop, m->outer_why) :
						     causes__of_stack(cfi, m->stop, m->outer_why);
		const char *where = comm;

		fs->broken_stacks++;
		fs->broken_value += value;
		/* the file whose tables were refused or too costly, where the walk stopped */
		if (k == CAUSE_UNWIND_BUDGET || k == CAUSE_TABLES_TOO_LARGE)
			where = symbolizer__path(fs->sym, (int)s->tgid, nb->stop_pc);
		else if (k != CAUSE_JIT && k != CAUSE_PROCESS_EXITED && m->has_outer)
			where = symbolizer__path(fs->sym, (int)s->tgid, m->outer_addr);
		causes__add(fs->causes, k, where && *where ? where : comm, runtime, value);
	}
	for (int i = 0; i < fs->nfc; i++) {
		if (m->broken && (fs->fc[i].kind == CAUSE_JIT || fs->fc[i].kind == CAUSE_PROCESS_EXITED))
			continue; /* the stack's own cause already */
		causes__add(fs->causes, (enum cause_kind)fs->fc[i].kind,
			    fs->fc[i].where ? fs->fc[i].where : comm, runtime, value);
	}
	/* an interpreter without a perf map: its functions are the eval loop's frames */
	if (runtime && !strcmp(runtime, "python") && strstr(folded, "_PyEval_EvalFrame") &&
	    !symbolizer__perf_map_entries(fs->sym, (int)s->tgid))
		causes__add(fs->causes, CAUSE_INTERPRETER, comm, runtime, value);
}

static int by_value_desc(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->folded, y->folded);
}

struct proc_row {
	uint32_t tgid;
	char comm[16];
	uint64_t value, best;
	uint32_t stacks;
};

static int proc_by_value_desc(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->value < y->value ? 1 : x->value > y->value ? -1 : 0;
}

/* The folded stacks of one write: rows by value, the processes they belong to. */
struct stacks_out {
	struct row *rows;
	size_t nrows;
	struct proc_row *procs;
	size_t nprocs;
	uint64_t total;
};

struct fold_table {
	size_t *slots, hcap;
};

/* Add value to the row of (tgid, folded, unwinder, stop), or a new row; f is taken. */
static void row_add(struct fold_table *t, struct stacks_out *so, const struct stack_sample *s,
		    char *f, int cfi, const struct fold_meta *m, struct symbolizer *sym,
		    uint64_t value)
{
	uint64_t h = fnv1a(f, strlen(f), FNV1A_OFFSET ^ s->tgid ^ (uint64_t)cfi);
	struct row *r;
	size_t k;

	so->total += value;
	for (k = h & (t->hcap - 1); t->slots[k] != (size_t)-1; k = (k + 1) & (t->hcap - 1)) {
		r = &so->rows[t->slots[k]];
		if (r->tgid == s->tgid && r->cfi == cfi && !strcmp(r->stop, m->stop) &&
		    !strcmp(r->folded, f))
			break;
	}
	if (t->slots[k] != (size_t)-1) {
		so->rows[t->slots[k]].value += value;
		free(f);
		return;
	}
	t->slots[k] = so->nrows;
	r = &so->rows[so->nrows++];
	r->tgid = s->tgid;
	memcpy(r->comm, s->comm, 16);
	r->value = value;
	r->folded = f;
	r->cfi = cfi;
	r->stop = m->stop ? m->stop : "";
	r->stop_at = NULL;
	if (m->has_outer && strcmp(r->stop, "thread_start")) {
		const char *path = symbolizer__path(sym, (int)s->tgid, m->outer_addr);

		r->stop_at = path && *path ? strdup(path) : NULL;
	}
}

/* The sample of a CFI stack's key: open addressing over the samples' keys. */
static size_t key_find(const size_t *slots, size_t hcap, const struct stack_sample *v,
		       const struct cfi_stack *c)
{
	uint64_t h = ((uint64_t)c->tgid * 31 + c->pid) * 31 + (uint32_t)c->kstack;

	h = (h * 31 + (uint32_t)c->ustack) * 0x9e3779b97f4a7c15ull;
	for (size_t k = (h >> 17) & (hcap - 1); slots[k] != (size_t)-1; k = (k + 1) & (hcap - 1)) {
		const struct stack_sample *s = &v[slots[k]];

		if (s->tgid == c->tgid && s->pid == c->pid && s->kstack == c->kstack &&
		    s->ustack == c->ustack && !memcmp(s->comm, c->comm, 16))
			return slots[k];
	}
	return (size_t)-1;
}

static size_t *keys_index(const struct stack_sample *v, size_t n, size_t hcap)
{
	size_t *slots = malloc(hcap * sizeof(*slots));

	if (!slots)
		return NULL;
	memset(slots, 0xff, hcap * sizeof(*slots));
	for (size_t i = 0; i < n; i++) {
		uint64_t h = ((uint64_t)v[i].tgid * 31 + v[i].pid) * 31 + (uint32_t)v[i].kstack;
		size_t k;

		h = (h * 31 + (uint32_t)v[i].ustack) * 0x9e3779b97f4a7c15ull;
		for (k = (h >> 17) & (hcap - 1); slots[k] != (size_t)-1; k = (k + 1) & (hcap - 1))
			;
		slots[k] = i;
	}
	return slots;
}

/*
 * The CFI stacks: each one replaces one count of its sample's FP stack when
 * that one is broken or lost (the stack map dropped it in a collision) and the
 * CFI one is whole or deeper. fpw caches, per sample, whether its FP stack is
 * whole (1), broken (0) or not folded yet (-1), fpn its user frames, fpl
 * whether it is lost. nb gets, per sample, a CFI walk that did no better or
 * was over the unwind budget (for the cause of its broken FP stack).
 */
static int stacks_fold_cfi(struct fold_state *fs, struct fold_table *t, struct stack_sample *v,
			   size_t n, struct stacks_cfi *cfi, const struct cfi_stack **nb,
			   struct stacks_out *so)
{
	size_t hcap = 1, *keys;
	signed char *fpw = malloc(n ? n : 1), *fpl = malloc(n ? n : 1);
	int *fpn = malloc((n ? n : 1) * sizeof(int));
	int err = 0;

	while (hcap < 2 * n + 2)
		hcap <<= 1;
	keys = keys_index(v, n, hcap);
	if (!keys || !fpw || !fpn || !fpl) {
		err = -ENOMEM;
		goto cleanup;
	}
	memset(fpw, -1, n);
	for (size_t i = 0; i < cfi->n; i++) {
		const struct cfi_stack *c = &cfi->v[i];
		size_t at = key_find(keys, hcap, v, c);
		struct fold_meta m;
		char *f;

		if (at == (size_t)-1 || !v[at].value) {
			cfi->unmatched++; /* its count was dropped (counts map full) */
			continue;
		}
		if (fpw[at] < 0) {
			fs->account = 0;
			f = fold_one(fs, &v[at], NULL, &m);
			if (!f) {
				err = -ENOMEM;
				goto cleanup;
			}
			free(f);
			fpw[at] = !m.broken;
			fpn[at] = m.user_frames;
			fpl[at] = (signed char)m.lost;
		}
		if (fpw[at]) {
			cfi->fp_whole++;
			continue;
		}
		if (causes__of_stack(1, c->stop, SYM_OK) == CAUSE_UNWIND_BUDGET) {
			cfi->over_budget++; /* never walked, or its walk dropped: the FP stack stays */
			nb[at] = c;
			continue;
		}
		fs->account = 0;
		f = fold_one(fs, &v[at], c, &m);
		if (!f) {
			err = -ENOMEM;
			goto cleanup;
		}
		free(f);
		if (!c->n || (m.broken && m.user_frames <= fpn[at])) {
			cfi->not_better++;
			nb[at] = c;
			continue;
		}
		fs->account = 1;
		f = fold_one(fs, &v[at], c, &m);
		if (!f) {
			err = -ENOMEM;
			goto cleanup;
		}
		fold_account(fs, &v[at], 1, NULL, &m, f, 1);
		v[at].value--;
		cfi->used++;
		cfi->lost_recovered += (uint64_t)fpl[at];
		row_add(t, so, &v[at], f, 1, &m, fs->sym, 1);
	}
cleanup:
	free(keys);
	free(fpw);
	free(fpn);
	free(fpl);
	return err;
}

/* Fold every sample, merging the threads of a process that share a stack; rows by value. */
static int stacks_fold_all(struct fold_state *fs, struct stack_sample *v, size_t n,
			   struct stacks_cfi *cfi, struct stacks_out *so)
{
	struct fold_table t = { .hcap = 1 };
	size_t ncfi = cfi ? cfi->n : 0;
	const struct cfi_stack **nb = NULL; /* per sample: a CFI walk that was no better */
	int err = 0;

	while (t.hcap < 2 * (n + ncfi) + 2)
		t.hcap <<= 1;
	t.slots = malloc(t.hcap * sizeof(*t.slots));
	if (!t.slots)
		return -ENOMEM;
	memset(t.slots, 0xff, t.hcap * sizeof(*t.slots));
	if (ncfi) {
		nb = calloc(n ? n : 1, sizeof(*nb));
		err = nb ? stacks_fold_cfi(fs, &t, v, n, cfi, nb, so) : -ENOMEM;
	}
	for (size_t i = 0; !err && i < n; i++) {
		struct fold_meta m;
		char *f;

		if (!v[i].value)
			continue; /* every count went to CFI stacks */
		fs->account = 1;
		f = fold_one(fs, &v[i], NULL, &m);
		if (!f) {
			err = -ENOMEM;
			break;
		}
		fold_account(fs, &v[i], 0, nb ? nb[i] : NULL, &m, f, v[i].value);
		row_add(&t, so, &v[i], f, 0, &m, fs->sym, v[i].value);
	}
	free(t.slots);
	free(nb);
	if (!err)
		qsort(so->rows, so->nrows, sizeof(*so->rows), by_value_desc);
	return err;
}

/* The processes of the rows, by value (rows are few thousand at most: a linear scan will do). */
static void stacks_procs(struct stacks_out *so)
{
	for (size_t i = 0; i < so->nrows; i++) {
		const struct row *r = &so->rows[i];
		struct proc_row *p;
		size_t k;

		for (k = 0; k < so->nprocs && so->procs[k].tgid != r->tgid; k++)
			;
		p = &so->procs[k];
		if (k == so->nprocs) {
			p->tgid = r->tgid;
			so->nprocs++;
		}
		p->value += r->value;
		p->stacks++;
		if (r->value > p->best || !p->comm[0]) {
			p->best = r->value;
			memcpy(p->comm, r->comm, 16);
		}
	}
	qsort(so->procs, so->nprocs, sizeof(*so->procs), proc_by_value_desc);
}

/* What symbolizing cost and missed: frames, unknown ones by reason, broken stacks. */
static void stacks_write_quality(struct json *j, struct symbolizer *sym,
				 const struct fold_state *fs, uint64_t value_div,
				 const char *value_key, uint64_t recovered)
{
	struct symbolizer_stats st;

	symbolizer__stats(sym, &st);
	json__key(j, "frames");
	json__int(j, (int64_t)fs->frames);
	json__key(j, "unknown_frames");
	json__int(j, (int64_t)fs->unknown);
	json__key(j, "unknown_reasons");
	json__begin_object(j);
	for (int w = 1; w < SYM_WHY_NR; w++)
		if (fs->by_why[w]) {
			json__key(j, symbolizer__why_key((enum sym_why)w));
			json__int(j, (int64_t)fs->by_why[w]);
		}
	json__end_object(j);
	json__key(j, "kernel_symbols");
	json__string(j, symbolizer__kernel_why(sym)[0] ? symbolizer__kernel_why(sym) : "ok");
	json__key(j, "processes_snapshotted");
	json__int(j, (int64_t)st.procs);
	json__key(j, "processes_exited");
	json__int(j, (int64_t)st.procs_exited);
	json__key(j, "elf_files");
	json__int(j, (int64_t)st.elf_files);
	json__key(j, "elf_unreadable");
	json__int(j, (int64_t)st.elf_unreadable);
	json__key(j, "broken");
	json__begin_object(j);
	json__key(j, "stacks");
	json__int(j, (int64_t)fs->broken_stacks);
	json__key(j, value_key);
	json__int(j, (int64_t)(fs->broken_value / value_div));
	json__key(j, "what");
	json__string(j, "user stacks of fewer than 3 frames, that do not reach a thread-start "
			"frame (_start, __libc_start_call_main, start_thread, clone3, ...), or that "
			"the stack map lost");
	json__key(j, "fix");
	json__string(j, STACKS_BROKEN_FIX);
	json__end_object(j);
	/* still "[lost stack]" after the stack copies were unwound */
	json__key(j, "lost_user_stacks");
	json__begin_object(j);
	json__key(j, "stacks");
	json__int(j, (int64_t)fs->lost_stacks);
	json__key(j, value_key);
	json__int(j, (int64_t)(fs->lost_value / value_div));
	json__key(j, "recovered");
	json__int(j, (int64_t)recovered);
	json__key(j, "what");
	json__string(j, "user stacks the kernel's stack map did not keep (two stacks collided in "
			"its hash, or it was full) and no stack copy gave back; recovered: samples "
			"whose lost stack the CFI unwinding of their copy gave back");
	json__end_object(j);
}

/* The top processes, the top stacks (and their folded lines), and the rest as "other". */
static void stacks_write_rows(struct json *j, const struct stacks_out *so, uint64_t value_div,
			      const char *value_key, struct strbuf *folded)
{
	uint64_t other_value = 0;

	json__key(j, "processes");
	json__begin_array(j);
	for (size_t i = 0; i < so->nprocs && i < STACKS_TOP_PROCS; i++) {
		json__begin_object(j);
		json__key(j, "tgid");
		json__int(j, so->procs[i].tgid);
		json__key(j, "comm");
		json__string_n(j, so->procs[i].comm, strnlen(so->procs[i].comm, 16));
		json__key(j, value_key);
		json__int(j, (int64_t)(so->procs[i].value / value_div));
		json__key(j, "stacks");
		json__int(j, so->procs[i].stacks);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "processes_total");
	json__int(j, (int64_t)so->nprocs);
	json__key(j, "stacks_total");
	json__int(j, (int64_t)so->nrows);
	json__key(j, "stacks");
	json__begin_array(j);
	for (size_t i = 0; i < so->nrows; i++) {
		const struct row *r = &so->rows[i];

		if (i >= STACKS_TOP) {
			other_value += r->value;
			continue;
		}
		json__begin_object(j);
		json__key(j, "tgid");
		json__int(j, r->tgid);
		json__key(j, "comm");
		json__string_n(j, r->comm, strnlen(r->comm, 16));
		json__key(j, value_key);
		json__int(j, (int64_t)(r->value / value_div));
		json__key(j, "folded");
		json__string(j, r->folded);
		json__key(j, "unwinder");
		json__string(j, r->cfi ? "cfi" : "fp");
		json__key(j, "stop");
		json__string(j, r->stop);
		if (r->stop_at) {
			json__key(j, "stop_at");
			json__string(j, r->stop_at);
		}
		json__end_object(j);
		if (folded && r->value / value_div)
			strbuf__printf(folded, "%s %llu\n", r->folded,
				       (unsigned long long)(r->value / value_div));
	}
	json__end_array(j);
	json__key(j, "other");
	json__begin_object(j);
	json__key(j, "stacks");
	json__int(j, so->nrows > STACKS_TOP ? (int64_t)(so->nrows - STACKS_TOP) : 0);
	json__key(j, value_key);
	json__int(j, (int64_t)(other_value / value_div));
	json__end_object(j);
	if (folded && other_value / value_div)
		strbuf__printf(folded, "[other] %llu\n", (unsigned long long)(other_value / value_div));
}

int stacks__write(struct symbolizer *sym, int stack_fd, int depth, struct stack_sample *v,
		  size_t n, struct stacks_cfi *cfi, uint64_t value_div, const char *value_key, struct json *j,
		  struct strbuf *folded)
{
	struct fold_state fs = { .sym = sym, .stack_fd = stack_fd, .depth = depth };
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);
	struct stacks_out so = { 0 };
	struct causes causes = { 0 };
	size_t ncfi = cfi ? cfi->n : 0;
	int err = 0;

	value_div = value_div ? value_div : 1;
	fs.ips = calloc((size_t)depth, sizeof(*fs.ips));
	fs.names = calloc((size_t)depth, sizeof(*fs.names));
	fs.whys = calloc((size_t)depth, sizeof(*fs.whys));
	fs.causes = &causes;
	so.rows = calloc(n + ncfi ? n + ncfi : 1, sizeof(*so.rows));
	so.procs = calloc(n + ncfi ? n + ncfi : 1, sizeof(*so.procs));
	if (!fs.ips || !fs.names || !fs.whys || !so.rows || !so.procs) {
		err = -ENOMEM;
		goto cleanup;
	}
	symbolizer__kernel_load(sym, NULL);
	err = stacks_fold_all(&fs, v, n, cfi, &so);
	if (err)
		goto cleanup;
	stacks_procs(&so);

	json__key(j, "total");
	json__int(j, (int64_t)(so.total / value_div));
	stacks_write_quality(j, sym, &fs, value_div, value_key, cfi ? cfi->lost_recovered : 0);
	causes__write(&causes, j, value_key, value_div,
		      !cfi ? "frame pointers only for these stacks" : cfi->status, NULL);
	stacks_write_rows(j, &so, value_div, value_key, folded);
	json__key(j, "symbolize_ms");
	json__number(j, (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6);
cleanup:
	for (size_t i = 0; i < so.nrows; i++) {
		free(so.rows[i].folded);
		free(so.rows[i].stop_at);
	}
	causes__free(&causes);
	free(so.rows);
	free(so.procs);
	free(fs.ips);
	free(fs.names);
	free(fs.whys);
	return err;
}
