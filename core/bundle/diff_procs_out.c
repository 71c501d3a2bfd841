// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, the processes compared (what each side keeps: diff_procs.c):
 * groups new, gone and changed beyond the noise of their windows and by
 * more than what is material, and their three renderings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "util/tty.h"
#include "util/units.h"

#define ROWS_MAX 500  /* changes kept (JSON) */
#define ROWS_SHOWN 15 /* of each kind, in the terminal and the page */
#define MATERIAL 0.2  /* a change of at least 20% ... */

static const struct {
	const char *label, *unit, *key;
	double floor; /* ... and at least this much */
} attrs[PA_N] = {
	[PA_COUNT] = { "processes", "", "processes", 2 },
	[PA_CPU] = { "CPU", "%", "cpu_pct", 5 },
	[PA_RSS] = { "RSS", "bytes", "rss_bytes", 16 << 20 },
	[PA_ANON] = { "anonymous memory", "bytes", "anon_bytes", 16 << 20 },
	[PA_READ] = { "disk reads", "bytes/s", "read_bytes_per_s", 64 << 10 },
	[PA_WRITE] = { "disk writes", "bytes/s", "write_bytes_per_s", 64 << 10 },
	[PA_THREADS] = { "threads", "", "threads", 4 },
	[PA_FDS] = { "open fds", "", "fds", 16 },
	[PA_CSW] = { "context switches", "/s", "context_switches_per_s", 100 },
};

static const char *const kind_names[] = { "new", "gone", "changed" };

static const struct pfact *find(const struct proc_facts *pf, const char *cmd, const char *cg)
{
	size_t lo = 0, hi = pf->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(pf->g[mid].command, cmd);

		c = c ? c : strcmp(pf->g[mid].cgroup, cg);
		if (!c)
			return &pf->g[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A group's quantity on a side where it is absent: none of it, and no doubt about that. */
static struct dq side_q(const struct pfact *f, int a)
{
	return f ? f->q[a] : (struct dq){ 0, 0, 0, 1 };
}

static int material(const struct dq *o, const struct dq *n, int a)
{
	double d = fabs(n->v - o->v);

	return d >= attrs[a].floor && d >= MATERIAL * fmax(fabs(o->v), fabs(n->v));
}

struct key {
	const char *command, *cgroup;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->command, y->command);

	return c ? c : strcmp(x->cgroup, y->cgroup);
}

/* Every group of every side, once. */
static struct key *all_keys(struct diff_side *const *old, size_t nold, const struct diff_side *n,
			    size_t *nk)
{
	size_t cap = n->procs->n;
	struct key *k;

	for (size_t i = 0; i < nold; i++)
		cap += old[i]->procs->n;
	k = calloc(cap + 1, sizeof(*k));
	if (!k)
		return NULL;
	*nk = 0;
	for (size_t s = 0; s <= nold; s++) {
		const struct proc_facts *pf = s < nold ? old[s]->procs : n->procs;

		for (size_t i = 0; i < pf->n; i++)
			k[(*nk)++] = (struct key){ pf->g[i].command, pf->g[i].cgroup };
	}
	qsort(k, *nk, sizeof(*k), key_cmp);
	if (*nk) {
		size_t w = 1;

		for (size_t i = 1; i < *nk; i++)
			if (key_cmp(&k[i], &k[w - 1]))
				k[w++] = k[i];
		*nk = w;
	}
	return k;
}

/* One group compared: 1 when it is a change to list (into c), 0 when not, -ENOMEM. */
static int compare_group(struct diff_side *const *old, size_t nold, const struct diff_side *n,
			 const struct key *k, struct proc_change *c)
{
	const struct pfact *nf = find(n->procs, k->command, k->cgroup);
	struct dq q[DIFF_BASELINE_MAX];
	size_t seen = 0, persistent = 0;
	int any = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < nold; i++) {
		const struct pfact *of = find(old[i]->procs, k->command, k->cgroup);

		seen += of != NULL;
		persistent += of && of->persistent;
	}
	for (int a = 0; a < PA_N; a++) {
		for (size_t i = 0; i < nold; i++)
			q[i] = side_q(find(old[i]->procs, k->command, k->cgroup), a);
		c->o[a] = dq__baseline(q, nold);
		c->n[a] = side_q(nf, a);
		c->v[a] = dq__verdict(&c->o[a], &c->n[a], attrs[a].unit);
		if ((c->v[a] == DV_UP || c->v[a] == DV_DOWN) && material(&c->o[a], &c->n[a], a))
			any = 1;
		else if (c->v[a] == DV_UP || c->v[a] == DV_DOWN)
			c->v[a] = DV_WITHIN; /* beyond the windows' noise, but not material */
	}
	if (nf && nf->persistent && !seen)
		c->kind = PC_NEW;
	else if (!nf && persistent && c->o[PA_COUNT].v > 0)
		c->kind = PC_GONE;
	else if (nf && seen && any)
		c->kind = PC_CHANGED;
	else
		return 0;
	c->command = strdup(k->command);
	c->cgroup = strdup(k->cgroup);
	return c->command && c->cgroup ? 1 : -ENOMEM;
}

/* New and gone first, most CPU first; then changed, the largest CPU change first. */
static int change_order(const void *a, const void *b)
{
	const struct proc_change *x = a, *y = b;
	double kx, ky;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->kind == PC_GONE)
		kx = x->o[PA_CPU].v, ky = y->o[PA_CPU].v;
	else if (x->kind == PC_NEW)
		kx = x->n[PA_CPU].v, ky = y->n[PA_CPU].v;
	else
		kx = fabs(x->n[PA_CPU].v - x->o[PA_CPU].v),
		ky = fabs(y->n[PA_CPU].v - y->o[PA_CPU].v);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	kx = x->kind == PC_GONE ? x->o[PA_COUNT].v : x->n[PA_COUNT].v;
	ky = y->kind == PC_GONE ? y->o[PA_COUNT].v : y->n[PA_COUNT].v;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->command, y->command);
}

int diff_procs__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
			struct proc_diff *pd)
{
	struct key *keys;
	size_t nk = 0;
	int rc = 0;

	memset(pd, 0, sizeof(*pd));
	for (size_t i = 0; i <= nold; i++) {
		const struct diff_side *s = i < nold ? old[i] : new_;

		if (!s->procs || s->procs->why[0]) {
			snprintf(pd->why, sizeof(pd->why), "%s: %s", s->name,
				 s->procs ? s->procs->why : s->raw_why);
			return 0;
		}
	}
	pd->known = 1;
	pd->groups_new = new_->procs->n;
	pd->procs_new = new_->procs->procs;
	pd->groups_old = old[0]->procs->n;
	pd->procs_old = old[0]->procs->procs;
	keys = all_keys(old, nold, new_, &nk);
	pd->c = calloc(nk + 1, sizeof(*pd->c));
	if (!keys || !pd->c) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nk && rc >= 0; i++) {
		rc = compare_group(old, nold, new_, &keys[i], &pd->c[pd->n]);
		if (rc > 0)
			pd->n++;
	}
	free(keys);
	if (rc < 0)
		return rc;
	qsort(pd->c, pd->n, sizeof(*pd->c), change_order);
	return 0;
}

void diff_procs__free(struct proc_diff *pd)
{
	for (size_t i = 0; i < pd->n; i++) {
		free(pd->c[i].command);
		free(pd->c[i].cgroup);
	}
	free(pd->c);
	memset(pd, 0, sizeof(*pd));
}

static size_t count_kind(const struct proc_diff *pd, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < pd->n; i++)
		n += (int)pd->c[i].kind == kind;
	return n;
}

/* "9545 processes, CPU 12.3%, RSS 1.2 GiB": what a side had of a group. */
static void side_words(char *buf, size_t len, const struct dq *q)
{
	char a[48], b[48], c[48];

	units__value(a, sizeof(a), q[PA_COUNT].v, "processes");
	units__value(b, sizeof(b), q[PA_CPU].v, "%");
	units__value(c, sizeof(c), q[PA_RSS].v, "bytes");
	snprintf(buf, len, "%s, CPU %s, RSS %s", a, b, c);
}

/* "CPU 12% -> 48% (windows 8%..15%, 40%..55%)" for each quantity that changed, "; " between. */
static void changed_words(char *buf, size_t len, const struct proc_change *c)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int a = 0; a < PA_N && used < len; a++) {
		char o[48], n[48], ol[48], oh[48], nl[48], nh[48];
		const char *u = attrs[a].unit;

		if (c->v[a] != DV_UP && c->v[a] != DV_DOWN)
			continue;
		units__value(o, sizeof(o), c->o[a].v, u);
		units__value(n, sizeof(n), c->n[a].v, u);
		units__value(ol, sizeof(ol), c->o[a].lo, u);
		units__value(oh, sizeof(oh), c->o[a].hi, u);
		units__value(nl, sizeof(nl), c->n[a].lo, u);
		units__value(nh, sizeof(nh), c->n[a].hi, u);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s -> %s (%s..%s, %s..%s)",
					 used ? "; " : "", attrs[a].label, o, n, ol, oh, nl, nh);
	}
}

static void change_words(char *buf, size_t len, const struct proc_change *c)
{
	if (c->kind == PC_NEW)
		side_words(buf, len, c->n);
	else if (c->kind == PC_GONE)
		side_words(buf, len, c->o);
	else
		changed_words(buf, len, c);
}

void diff_procs__text(FILE *out, const struct proc_diff *pd)
{
	size_t shown[3] = { 0 };
	char words[1024];

	if (!pd->known) {
		fputs("\nProcesses: not compared: ", out);
		tty__puts(out, pd->why);
		fputc('\n', out);
		return;
	}
	fprintf(out,
		"\nProcesses, by command and cgroup: %zu new, %zu gone, %zu changed beyond noise "
		"(processes: %zu -> %zu)\n",
		count_kind(pd, PC_NEW), count_kind(pd, PC_GONE), count_kind(pd, PC_CHANGED),
		pd->procs_old, pd->procs_new);
	for (size_t i = 0; i < pd->n; i++) {
		const struct proc_change *c = &pd->c[i];

		if (shown[c->kind]++ >= ROWS_SHOWN)
			continue;
		fprintf(out, "  %-8s ", kind_names[c->kind]);
		tty__puts(out, c->command);
		fputs("  ", out);
		tty__puts(out, c->cgroup);
		change_words(words, sizeof(words), c);
		fputs(": ", out);
		tty__puts(out, words);
		fputc('\n', out);
	}
	for (int k = 0; k < 3; k++)
		if (shown[k] > ROWS_SHOWN)
			fprintf(out, "  ... and %zu more %s (--json has them)\n",
				shown[k] - ROWS_SHOWN, kind_names[k]);
}

void diff_procs__doc(struct doc *d, const struct proc_diff *pd)
{
	static const char *const head[] = { "change", "command", "cgroup", "what" };
	size_t shown[3] = { 0 };
	char words[1024];
	struct block *t;

	inl__words(doc__heading(d, 2, "processes"), "Processes");
	if (!pd->known) {
		struct inlines *in = doc__para(d);

		inl__words(in, "Not compared: ");
		inl__text(in, pd->why);
		return;
	}
	inl__words(doc__para(d),
		   "By command and cgroup, never by pid: %zu new, %zu gone, %zu changed beyond the "
		   "noise of their windows (processes: %zu before, %zu now). A change is beyond "
		   "noise when the two windows' per-interval ranges do not overlap, and material "
		   "when it is 20%% of the value and more than a floor (5%% of a CPU, 16 MiB, "
		   "64 KiB/s, 4 threads, 16 fds, 100 switches/s, 2 processes).",
		   count_kind(pd, PC_NEW), count_kind(pd, PC_GONE), count_kind(pd, PC_CHANGED),
		   pd->procs_old, pd->procs_new);
	if (!pd->n)
		return;
	t = doc__table_head(d, "llll", head);
	for (size_t i = 0; i < pd->n; i++) {
		const struct proc_change *c = &pd->c[i];

		if (shown[c->kind]++ >= ROWS_SHOWN)
			continue;
		inl__words(doc__cell(t, c->kind == PC_CHANGED ? CELL_WARN : CELL_PLAIN), "%s",
			   kind_names[c->kind]);
		inl__code(doc__cell(t, CELL_PLAIN), c->command);
		inl__code(doc__cell(t, CELL_PLAIN), c->cgroup);
		change_words(words, sizeof(words), c);
		inl__words(doc__cell(t, CELL_PLAIN), "%s", words);
	}
}

static void json_q(struct json *j, const char *key, const struct dq *q)
{
	json__key(j, key);
	json__begin_object(j);
	for (int a = 0; a < PA_N; a++) {
		json__kv_number(j, attrs[a].key, q[a].v);
	}
	json__end_object(j);
}

void diff_procs__json(struct json *j, const struct proc_diff *pd)
{
	json__key(j, "processes");
	json__begin_object(j);
	json__key(j, "compared");
	json__bool(j, pd->known);
	if (!pd->known) {
		json__kv_str(j, "why", pd->why);
		json__end_object(j);
		return;
	}
	json__kv_int(j, "processes_old", (int64_t)pd->procs_old);
	json__kv_int(j, "processes_new", (int64_t)pd->procs_new);
	json__key(j, "changes");
	json__begin_array(j);
	for (size_t i = 0; i < pd->n && i < ROWS_MAX; i++) {
		const struct proc_change *c = &pd->c[i];

		json__begin_object(j);
		json__kv_str(j, "change", kind_names[c->kind]);
		json__kv_str(j, "command", c->command);
		json__kv_str(j, "cgroup", c->cgroup);
		json_q(j, "old", c->o);
		json_q(j, "new", c->n);
		json__key(j, "beyond_noise");
		json__begin_array(j);
		for (int a = 0; a < PA_N; a++) {
			if (c->v[a] != DV_UP && c->v[a] != DV_DOWN)
				continue;
			json__begin_object(j);
			json__kv_str(j, "quantity", attrs[a].key);
			json__kv_str(j, "verdict", dverdict_names[c->v[a]]);
			dq__json_interval(j, "old_range", &c->o[a]);
			dq__json_interval(j, "new_range", &c->n[a]);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}
