// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host id (util/hostid.h): HMAC-SHA256 keyed by the machine-id, checked
 * against the value any HMAC implementation gives; what is not a machine-id;
 * the fallback to /var/lib/dbus/machine-id; and why when neither is there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/hostid.h"
#include "tap.h"

#define MID "b08dfa6083e7567a1921a715000001fb"
/* python3: hmac.new(bytes.fromhex(MID), APP_ID, hashlib.sha256).hexdigest()[:32] */
#define MID_HOST_ID "3027b725515f212a2c4e6200ac39ad99"

static void test_derive(void)
{
	char id[HOST_ID_LEN + 1];

	is_int(host_id__derive(MID "\n", 33, id), 0, "a machine-id with its newline");
	is_str(id, MID_HOST_ID, "its host id is the HMAC of sonde's application id");
	ok(strstr(MID, id) == NULL && strcmp(id, MID), "the host id is not the machine-id");
	is_int(host_id__derive(MID, 32, id), 0, "a machine-id without a newline");
	is_str(id, MID_HOST_ID, "the same host id");
	is_int(host_id__derive("B08DFA6083E7567A1921A715000001FB\n", 33, id), 0, "upper-case hex");
	is_str(id, MID_HOST_ID, "the same host id");
	is_int(host_id__derive("b08dfa6083e7567a1921a715000001fc", 32, id), 0, "another machine-id");
	ok(strcmp(id, MID_HOST_ID) != 0, "another host id");
	is_int(host_id__derive("uninitialized\n", 14, id), -EINVAL, "\"uninitialized\" is no machine-id");
	is_int(host_id__derive("", 0, id), -EINVAL, "empty is no machine-id");
	is_int(host_id__derive(MID "0\n", 34, id), -EINVAL, "33 hex characters are no machine-id");
	is_int(host_id__derive("b08dfa6083e7567a1921a715000001fz", 32, id), -EINVAL, "a non-hex character");
	is_int(host_id__derive("00000000000000000000000000000000", 32, id), -EINVAL, "all zeros");
	ok(host_id__valid(MID_HOST_ID), "a host id is valid");
	ok(!host_id__valid("3027B725515F212A2C4E6200AC39AD99"), "upper case is not ours");
	ok(!host_id__valid(MID_HOST_ID "0"), "33 characters are not");
	ok(!host_id__valid("unknown: no machine-id"), "an unknown is not");
	ok(!host_id__valid(NULL), "nothing is not");
}

static void put(const char *path, const char *text)
{
	ok(!file__write_all(path, text, strlen(text)), "wrote %s", path);
}

static void test_read(void)
{
	char root[] = "/tmp/sonde-test-hostid.XXXXXX", path[256], id[HOST_ID_LEN + 1], why[256];

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/etc", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/var", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/var/lib", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/var/lib/dbus", root);
	mkdir(path, 0700);

	ok(host_id__read(root, id, why, sizeof(why)) < 0, "no machine-id: an error");
	ok(strstr(why, "/etc/machine-id: No such file") && strstr(why, "/var/lib/dbus/machine-id"),
	   "why names both files (%s)", why);

	snprintf(path, sizeof(path), "%s/var/lib/dbus/machine-id", root);
	put(path, MID "\n");
	is_int(host_id__read(root, id, why, sizeof(why)), 0, "the dbus machine-id when /etc has none");
	is_str(id, MID_HOST_ID, "its host id");

	snprintf(path, sizeof(path), "%s/etc/machine-id", root);
	put(path, "uninitialized\n");
	is_int(host_id__read(root, id, why, sizeof(why)), 0, "an uninitialized /etc/machine-id: the dbus one");

	put(path, "b08dfa6083e7567a1921a715000001fc\n");
	is_int(host_id__read(root, id, why, sizeof(why)), 0, "/etc/machine-id first");
	ok(strcmp(id, MID_HOST_ID) != 0, "its host id, not the dbus one's");

	snprintf(path, sizeof(path), "%s/var/lib/dbus/machine-id", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/etc/machine-id", root);
	put(path, "garbage\n");
	ok(host_id__read(root, id, why, sizeof(why)) < 0, "garbage, and no dbus file: an error");
	ok(strstr(why, "/etc/machine-id: not a machine-id") != NULL, "why says so (%s)", why);
	unlink(path);
	file__remove_tree(root);
}

int main(void)
{
	test_derive();
	test_read();
	return tap_done();
}
