/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host id: which machine a bundle is of, whatever its hostname says (two
 * hosts may share a name; a renamed host stays the same machine). It is not
 * the machine-id itself, an identifier systemd asks applications not to show:
 * it is HMAC-SHA256 keyed by the machine-id of a constant of sonde's, cut to
 * 128 bits, in hex (what sd_id128_get_machine_app_specific does). The same
 * machine always gives the same id, and the id does not give the machine-id
 * back, nor match any other application's id of the machine.
 */
#ifndef SONDE_HOSTID_H
#define SONDE_HOSTID_H

#include <stddef.h>

#define HOST_ID_LEN 32 /* hex characters */

/*
 * The host id from a machine-id's text (32 hex characters, then at most a
 * newline). 0, or -EINVAL when it is no machine-id ("uninitialized" early in
 * boot, empty, or anything else).
 */
int host_id__derive(const char *machine_id, size_t len, char out[HOST_ID_LEN + 1]);

/*
 * The host id of the machine under root ("" for this one): from
 * root/etc/machine-id, else root/var/lib/dbus/machine-id. 0, or a negative
 * errno with why (both paths and what each gave) in why.
 */
int host_id__read(const char *root, char out[HOST_ID_LEN + 1], char *why, size_t whylen);

/* Whether s is a host id: HOST_ID_LEN lower-case hex characters, nothing else. */
int host_id__valid(const char *s);

#endif
