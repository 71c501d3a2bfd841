// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON documents of a window's captures, read on first use within their
 * bounds (untrusted: a bundle's): the BPF tools' (raw/bpf/<tool>.json), with
 * the summary of each for the report's appendix, and the perf counters'
 * (raw/perf/counters.json).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/analysis.h"
#include "util/file.h"
#include "util/json.h"
#include "util/json_read.h"

/* ---- BPF tools ---- */

#define BPF_DOC_MAX (32u << 20)

static int doc_by_name(const void *a, const void *b)
{
	return strcmp(((const struct bpf_doc *)a)->name, ((const struct bpf_doc *)b)->name);
}

/* What one parsed JSON value may cost: the jval, its key pointer, an allocation for its string. */
#define JVAL_COST 96

static uint64_t jval_count(const struct jval *v)
{
	uint64_t n = 1;

	if (v->type == J_ARRAY || v->type == J_OBJECT)
		for (size_t i = 0; i < v->len; i++)
			n += jval_count(&v->items[i]);
	return n;
}

/*
 * A JSON capture of sonde's own (raw/bpf/<tool>.json, raw/perf/counters.json):
 * read bounded, parsed strictly, of the expected schema, within what is left
 * of the analysis's memory limit (the streams' share, an->docs_held) and
 * charged to it. NULL with the reason in why (shown names the file); *rc is
 * -ENOENT when it is absent.
 */
static struct jval *raw_doc(struct analysis *an, int dirfd, const char *path, const char *shown,
			    const char *schema, const struct json_read_limits *dlim, int *rc,
			    char *why, size_t whylen)
{
	struct json_read_limits lim = *dlim;
	uint64_t used = an->cs.held + an->docs_held, room;
	struct jval *doc = NULL;
	char *text = NULL, err[256];
	size_t len = 0;
	const char *sc;

	room = an->cs.lim.max_memory_bytes > used ? an->cs.lim.max_memory_bytes - used : 0;
	*rc = file__read_bounded(dirfd, path, lim.max_bytes < room ? lim.max_bytes : room, &text,
				 &len);
	if (*rc) {
		snprintf(why, whylen, "%s: %s", shown,
			 *rc != -EFBIG ? strerror(-*rc) :
			 room < lim.max_bytes ? "too large for what is left of the analysis's memory limit" :
			 "too large");
		return NULL;
	}
	/* its values, at their cost, within what is left beside the text */
	if ((room - len) / JVAL_COST < lim.max_items)
		lim.max_items = (size_t)((room - len) / JVAL_COST);
	*rc = json_read(text, len, &lim, &doc, err, sizeof(err));
	free(text);
	if (*rc) {
		snprintf(why, whylen, "%s is not valid JSON: %s%s", shown, err,
			 lim.max_items < dlim->max_items ?
				 " (within what is left of the analysis's memory limit)" : "");
		return NULL;
	}
	an->docs_held += len + jval_count(doc) * JVAL_COST;
	if (doc->type != J_OBJECT || !(sc = jval__str(doc, "schema")) || strcmp(sc, schema)) {
		snprintf(why, whylen, "%s is not a %s document", shown, schema);
		jval__free(doc);
		*rc = -EINVAL;
		return NULL;
	}
	return doc;
}

void analysis__load_bpf_docs(struct analysis *an)
{
	static const struct json_read_limits lim = {
		.max_bytes = BPF_DOC_MAX, .max_depth = 16, .max_items = 4u << 20,
		.max_string = 64u << 10,
	};
	char dir[4200];
	DIR *d;
	struct dirent *de;
	size_t cap = 0;

	an->bpf_loaded = 1;
	snprintf(dir, sizeof(dir), "%s/bpf", an->raw_dir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		struct bpf_doc *bd;
		char shown[300];
		int rc;

		if (de->d_name[0] == '.' || nl <= 5 || nl - 5 >= sizeof(bd->name) ||
		    strcmp(de->d_name + nl - 5, ".json"))
			continue;
		if (an->nbpf == cap) {
			struct bpf_doc *n = realloc(an->bpf, (cap = cap ? cap * 2 : 16) * sizeof(*n));

			if (!n)
				break;
			an->bpf = n;
		}
		bd = &an->bpf[an->nbpf++];
		memset(bd, 0, sizeof(*bd));
		memcpy(bd->name, de->d_name, nl - 5);
		snprintf(shown, sizeof(shown), "raw/bpf/%s", de->d_name);
		bd->doc = raw_doc(an, dirfd(d), de->d_name, shown, "sonde.bpf/1", &lim, &rc, bd->why,
				  sizeof(bd->why));
	}
	closedir(d);
	if (an->nbpf)
		qsort(an->bpf, an->nbpf, sizeof(*an->bpf), doc_by_name);
}

const struct jval *analysis__bpf(struct analysis *an, const char *name, char *why, size_t whylen)
{
	const struct jval *data;
	const char *status, *reason;

	if (!an->bpf_loaded)
		analysis__load_bpf_docs(an);
	for (size_t i = 0; i < an->nbpf; i++) {
		if (strcmp(an->bpf[i].name, name))
			continue;
		if (!an->bpf[i].doc) {
			snprintf(why, whylen, "%s", an->bpf[i].why);
			return NULL;
		}
		status = jval__str(an->bpf[i].doc, "status");
		reason = jval__str(an->bpf[i].doc, "reason");
		data = jval__get(an->bpf[i].doc, "data");
		if (!status || strcmp(status, "ok") || !data || data->type != J_OBJECT) {
			snprintf(why, whylen, "BPF tool %s did not run: %s", name,
				 reason ? reason : "no reason recorded");
			return NULL;
		}
		return an->bpf[i].doc;
	}
	snprintf(why, whylen,
		 "BPF tool %s was not run in this window (raw/bpf/%s.json is absent: no check "
		 "asked for it, or the capture predates it)",
		 name, name);
	return NULL;
}

static double num_or(const struct jval *v, const char *key, double def)
{
	double d;

	return jval__num(v, key, &d) ? def : d;
}

/* The cost model's part of a tool's document: prediction, filter, what instead. */
static void tool_prediction(struct tool_summary *t, const struct jval *doc)
{
	const struct jval *p = jval__get(doc, "predicted"), *f = jval__get(doc, "filtered_to");
	const struct jval *data = jval__get(doc, "data");
	const char *s;
	size_t used = 0;

	if (p && p->type == J_OBJECT) {
		t->has_pred = 1;
		t->predicted_pct = num_or(p, "cpu_pct", 0);
		t->has_load = jval__get(p, "load_pct") != NULL;
		t->predicted_load_pct = num_or(p, "load_pct", t->predicted_pct);
		t->duty = num_or(p, "duty", 1);
		t->budget_pct = num_or(doc, "budget_pct", 0);
	}
	s = jval__str(doc, "instead");
	snprintf(t->instead, sizeof(t->instead), "%s", s ? s : "");
	for (size_t i = 0; f && f->type == J_ARRAY && i < f->len && used < sizeof(t->filtered_to);
	     i++) {
		size_t room = sizeof(t->filtered_to) - used;

		if (f->items[i].type == J_NUMBER)
			used += (size_t)snprintf(t->filtered_to + used, room, "%s%.0f",
						 i ? ", " : "", f->items[i].number);
	}
	if (data && data->type == J_OBJECT)
		t->self_signals = (uint64_t)num_or(data, "self_signals", 0);
}

void self_parts__json(struct json *j, const double part[SELF_PARTS], double rest)
{
	char key[48];

	for (int p = 0; p < SELF_PARTS; p++) {
		snprintf(key, sizeof(key), "%s_pct", self_part__name((enum self_part)p));
		json__kv_number(j, key, part[p]);
	}
	json__kv_number(j, "rest_pct", rest);
}

void tool_stop__json(struct json *j, const struct tool_stop *s)
{
	if (s->by == TOOL_STOP_NONE)
		return;
	json__key(j, "stopped");
	json__begin_object(j);
	json__kv_str(j, "by", s->by == TOOL_STOP_GUARD ? "overhead_guard" : "duty_cycle");
	json__kv_number(j, "at_s", s->at_s);
	if (s->by == TOOL_STOP_GUARD) {
		json__kv_number(j, "budget_pct", s->budget_pct);
		json__kv_number(j, "capacity_pct", s->capacity_pct);
		json__kv_number(j, "spend_pct", s->spend_pct);
		json__kv_number(j, "pct", s->pct);
		json__kv_number(j, "admitted_pct", s->admitted_pct);
		json__key(j, "own");
		json__begin_object(j);
		json__kv_number(j, "pct", s->own_pct);
		json__kv_number(j, "reserved_pct", s->own_reserved_pct);
		self_parts__json(j, s->own_part_pct, s->own_rest_pct);
		json__end_object(j);
		json__key(j, "tools");
		json__begin_array(j);
		for (size_t i = 0; i < s->ntools && i < TOOL_STOP_TOOLS; i++) {
			json__begin_object(j);
			json__kv_str(j, "name", s->tools[i].name);
			json__kv_number(j, "pct", s->tools[i].pct);
			json__kv_number(j, "admitted_pct", s->tools[i].admitted_pct);
			json__end_object(j);
		}
		json__end_array(j);
	}
	json__end_object(j);
}

/* Who stopped the tool early and whose cost it was ("stopped": struct tool_stop). */
static void tool_stop(struct tool_stop *s, const struct jval *doc)
{
	const struct jval *st = jval__get(doc, "stopped"), *own, *tools;
	const char *by = st && st->type == J_OBJECT ? jval__str(st, "by") : NULL;
	char key[48];

	if (!by)
		return;
	s->by = !strcmp(by, "overhead_guard") ? TOOL_STOP_GUARD :
		!strcmp(by, "duty_cycle")     ? TOOL_STOP_DUTY :
						TOOL_STOP_NONE;
	s->at_s = num_or(st, "at_s", 0);
	if (s->by != TOOL_STOP_GUARD)
		return;
	s->budget_pct = num_or(st, "budget_pct", 0);
	s->capacity_pct = num_or(st, "capacity_pct", 0);
	s->spend_pct = num_or(st, "spend_pct", 0);
	s->pct = num_or(st, "pct", 0);
	s->admitted_pct = num_or(st, "admitted_pct", 0);
	own = jval__get(st, "own");
	if (own && own->type == J_OBJECT) {
		s->own_pct = num_or(own, "pct", 0);
		s->own_reserved_pct = num_or(own, "reserved_pct", 0);
		s->own_rest_pct = num_or(own, "rest_pct", 0);
		for (int p = 0; p < SELF_PARTS; p++) {
			snprintf(key, sizeof(key), "%s_pct", self_part__name((enum self_part)p));
			s->own_part_pct[p] = num_or(own, key, 0);
		}
	}
	tools = jval__get(st, "tools");
	for (size_t i = 0; tools && tools->type == J_ARRAY && i < tools->len &&
			   s->ntools < TOOL_STOP_TOOLS; i++) {
		const struct jval *t = &tools->items[i];
		const char *name = t->type == J_OBJECT ? jval__str(t, "name") : NULL;

		if (!name)
			continue;
		snprintf(s->tools[s->ntools].name, sizeof(s->tools[0].name), "%s", name);
		s->tools[s->ntools].pct = num_or(t, "pct", 0);
		s->tools[s->ntools++].admitted_pct = num_or(t, "admitted_pct", 0);
	}
}

int analysis__tools(struct analysis *an, const struct tool_summary **out, size_t *n)
{
	if (!an->bpf_loaded)
		analysis__load_bpf_docs(an);
	if (!an->tools && an->nbpf) {
		an->tools = calloc(an->nbpf, sizeof(*an->tools));
		if (!an->tools)
			return -ENOMEM;
		for (size_t i = 0; i < an->nbpf; i++) {
			struct tool_summary *t = &an->tools[an->ntools++];
			const struct jval *doc = an->bpf[i].doc, *cost;
			const char *s;

			snprintf(t->name, sizeof(t->name), "%s", an->bpf[i].name);
			if (!doc) {
				snprintf(t->status, sizeof(t->status), "unreadable");
				snprintf(t->reason, sizeof(t->reason), "%s", an->bpf[i].why);
				continue;
			}
			s = jval__str(doc, "status");
			snprintf(t->status, sizeof(t->status), "%s", s ? s : "?");
			s = jval__str(doc, "reason");
			snprintf(t->reason, sizeof(t->reason), "%s", s ? s : "");
			s = jval__str(doc, "attach");
			snprintf(t->attach, sizeof(t->attach), "%s", s ? s : "");
			s = jval__str(doc, "stopped_early");
			snprintf(t->stopped, sizeof(t->stopped), "%s", s ? s : "");
			tool_stop(&t->stop, doc);
			t->runs = (uint64_t)num_or(doc, "runs", 0);
			t->drops = (uint64_t)num_or(doc, "drops", 0);
			t->setup_ms = num_or(doc, "setup_ms", 0);
			t->teardown_ms = num_or(doc, "teardown_ms", 0);
			t->traced_from_s = num_or(doc, "traced_from_s", 0);
			t->traced_to_s = num_or(doc, "traced_to_s", 0);
			tool_prediction(t, doc);
			cost = jval__get(doc, "cost");
			if (cost && cost->type == J_OBJECT) {
				t->cpu_ns = num_or(cost, "cpu_ns", 0);
				s = jval__str(cost, "source");
				snprintf(t->cost_source, sizeof(t->cost_source), "%s", s ? s : "");
			}
		}
	}
	*out = an->tools;
	*n = an->ntools;
	return 0;
}

/* ---- perf counters ---- */

const struct jval *analysis__perf_counters(struct analysis *an, char *why, size_t whylen)
{
	static const struct json_read_limits lim = {
		.max_bytes = BPF_DOC_MAX, .max_depth = 8, .max_items = 1u << 20,
		.max_string = 4u << 10,
	};
	const char *status, *reason;
	const struct jval *ev;

	if (!an->perf_loaded) {
		char path[4200];
		int rc;

		an->perf_loaded = 1;
		snprintf(path, sizeof(path), "%s/perf/counters.json", an->raw_dir);
		an->perf_doc = raw_doc(an, AT_FDCWD, path, "raw/perf/counters.json", "sonde.perf/1",
				       &lim, &rc, an->perf_why, sizeof(an->perf_why));
		if (rc == -ENOENT)
			snprintf(an->perf_why, sizeof(an->perf_why),
				 "perf counters were not collected in this window "
				 "(raw/perf/counters.json is absent: no check asked for "
				 "perf.counters, or the capture predates it)");
	}
	if (!an->perf_doc) {
		snprintf(why, whylen, "%s", an->perf_why);
		return NULL;
	}
	status = jval__str(an->perf_doc, "status");
	reason = jval__str(an->perf_doc, "reason");
	ev = jval__get(an->perf_doc, "events");
	if (!status || strcmp(status, "ok") || !ev || ev->type != J_OBJECT) {
		snprintf(why, whylen, "perf counters did not run: %s",
			 reason ? reason : "no reason recorded");
		return NULL;
	}
	return an->perf_doc;
}
