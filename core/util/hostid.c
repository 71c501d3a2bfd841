// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host id (interface and why in hostid.h): the machine-id read, checked
 * and turned into sonde's own id of the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/hostid.h"
#include "util/parse_scan.h"
#include "util/sha256.h"

/* sonde's application id (random, fixed: changing it changes every host id). */
static const uint8_t app_id[16] = { 0x39, 0xfa, 0x3c, 0x6a, 0x47, 0x37, 0x41, 0xc3,
				    0xad, 0xb6, 0xa0, 0xf9, 0x10, 0x0e, 0x7b, 0x13 };

int host_id__derive(const char *machine_id, size_t len, char out[HOST_ID_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t key[16], mac[32];
	int zero = 1;

	if (len == 33 && machine_id[32] == '\n')
		len = 32;
	if (len != 32)
		return -EINVAL;
	for (size_t i = 0; i < 16; i++) {
		int hi = parse_hex_digit(machine_id[2 * i]), lo = parse_hex_digit(machine_id[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = (uint8_t)(hi << 4 | lo);
		zero &= !key[i];
	}
	if (zero) /* all zeros is no machine's id */
		return -EINVAL;
	sha256__hmac(key, sizeof(key), app_id, sizeof(app_id), mac);
	for (size_t i = 0; i < HOST_ID_LEN / 2; i++) {
		out[2 * i] = digits[mac[i] >> 4];
		out[2 * i + 1] = digits[mac[i] & 0xf];
	}
	out[HOST_ID_LEN] = '\0';
	return 0;
}

int host_id__read(const char *root, char out[HOST_ID_LEN + 1], char *why, size_t whylen)
{
	static const char *const paths[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
	char path[4200], said[2][96];
	int rc = -ENOENT;

	for (size_t i = 0; i < 2; i++) {
		char *text = NULL;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s%s", root ? root : "", paths[i]);
		rc = file__read_bounded(AT_FDCWD, path, 4096, &text, &len);
		if (!rc) {
			rc = host_id__derive(text, len, out);
			free(text);
			if (!rc)
				return 0;
			snprintf(said[i], sizeof(said[i]), "%s: not a machine-id", paths[i]);
		} else {
			snprintf(said[i], sizeof(said[i]), "%s: %s", paths[i], strerror(-rc));
		}
	}
	snprintf(why, whylen, "%s; %s", said[0], said[1]);
	return rc;
}

int host_id__valid(const char *s)
{
	size_t n = 0;

	for (; s && s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == HOST_ID_LEN;
}
