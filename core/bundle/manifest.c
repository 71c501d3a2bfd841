// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a bundle is called and what it declares: manifest.json (schema,
 * version, the command line, the host, the window, and every member's size
 * and sha256, which sonde verify checks), the bundle's file name, and the
 * name of the redaction map that goes next to it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bundle/bundle.h"
#include "collect/analysis.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/json.h"

#define MANIFEST_SCHEMA "sonde.manifest/1"

void bundle__manifest_files(struct json *j, const struct bundle_list *bl)
{
	json__begin_array(j);
	for (size_t i = 0; i < bl->n; i++) {
		json__begin_object(j);
		json__key(j, "path");
		json__string(j, bl->m[i].path);
		json__key(j, "size");
		json__int(j, (int64_t)bl->m[i].size);
		json__key(j, "sha256");
		json__string(j, bl->m[i].sha256);
		json__end_object(j);
	}
	json__end_array(j);
}

int bundle__write_manifest(const char *stage, const char *command, const char *case_id,
			   const struct analysis *an, char *err, size_t errlen)
{
	struct bundle_list bl = { 0 };
	struct json j = { .pretty = 1 };
	char t[64], path[4200];
	int rc;

	rc = bundle__scan(stage, &bl);
	if (rc) {
		snprintf(err, errlen, "listing %s: %s", stage, strerror(-rc));
		return rc;
	}
	json__begin_object(&j);
	json__key(&j, "schema");
	json__string(&j, MANIFEST_SCHEMA);
	json__key(&j, "sonde_version");
	json__string(&j, SONDE_VERSION);
	json__key(&j, "command");
	json__string(&j, command ? command : "");
	json__key(&j, "case_id");
	if (case_id)
		json__string(&j, case_id);
	else
		json__null(&j);
	json__key(&j, "host");
	json__begin_object(&j);
	json__key(&j, "hostname");
	json__string(&j, an->hostname);
	json__key(&j, "host_id");
	if (an->host_id[0])
		json__string(&j, an->host_id);
	else
		json__null(&j);
	json__key(&j, "kernel");
	json__string(&j, an->kernel);
	json__key(&j, "cpus");
	json__int(&j, an->cpus);
	json__key(&j, "mem_total_bytes");
	json__int(&j, (int64_t)an->mem_total);
	json__key(&j, "virtualization");
	if (an->virt[0])
		json__string(&j, an->virt);
	else
		json__null(&j);
	json__end_object(&j);
	clock__iso8601(an->start_wall_ns, t, sizeof(t), 0);
	json__key(&j, "start");
	json__string(&j, t);
	clock__iso8601(an->end_wall_ns, t, sizeof(t), 0);
	json__key(&j, "end");
	json__string(&j, t);
	json__key(&j, "partial");
	json__bool(&j, an->partial);
	json__key(&j, "files");
	bundle__manifest_files(&j, &bl);
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	bundle_list__free(&bl);
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	rc = j.out.oom ? -ENOMEM : file__write_all(path, j.out.buf, j.out.len);
	if (rc)
		snprintf(err, errlen, "writing manifest.json: %s", strerror(-rc));
	strbuf__free(&j.out);
	return rc;
}

/* A part of a file name: [A-Za-z0-9.-] kept, anything else '_'; its length. */
static size_t name_part(char *out, size_t size, const char *s)
{
	size_t k = 0;

	for (const char *p = s; *p && k + 1 < size; p++)
		out[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '.' || *p == '-') ? *p : '_';
	out[k] = '\0';
	return k;
}

int bundle__case_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n > 64 || id[0] == '.' || id[0] == '-')
		return 0;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

void bundle__host_part(const char *hostname, char *out, size_t len)
{
	if (!name_part(out, len < 64 ? len : 64, hostname ? hostname : ""))
		snprintf(out, len, "unknown");
}

/* Host names and case ids become part of a file name: [A-Za-z0-9.-] only. */
void bundle__path(const char *dir, const struct analysis *an, const char *case_id, char *out,
		  size_t len)
{
	char host[64], cs[72] = "", t[32];

	bundle__host_part(an->hostname, host, sizeof(host));
	if (case_id && name_part(cs + 1, sizeof(cs) - 1, case_id))
		cs[0] = '-';
	clock__iso8601(an->start_wall_ns, t, sizeof(t), 1);
	/* A clash with an existing bundle is resolved when it is published (bundle__write). */
	snprintf(out, len, "%s/sonde-%s%s-%s" BUNDLE_EXT, dir, host, cs, t);
}

/* Next to the bundle, never in it: sonde-HOST-TIME.redaction-map.json. */
void bundle__map_path(const char *bundle, char *out, size_t len)
{
	const char *ext = bundle__ext(bundle);
	size_t n = ext ? (size_t)(ext - bundle) : strlen(bundle);

	snprintf(out, len, "%.*s.redaction-map.json", (int)n, bundle);
}
