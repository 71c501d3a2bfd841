/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a file or a directory may say what sonde does (a config file, a
 * directory of checks whose code it runs): what sshd's StrictModes asks of
 * authorized_keys and sudo of sudoers, so that root never takes orders from a
 * file another user can write.
 */
#ifndef SONDE_TRUST_H
#define SONDE_TRUST_H

#include <stddef.h>

/*
 * path (symlinks resolved) and every directory above it up to / must be owned
 * by root or by this process's effective user, and be writable by neither
 * their group nor others; a directory above it may be if it has the sticky
 * bit (/tmp: no one else can rename or remove what is ours in it). The null
 * device passes: it reads as an empty file. 0, and the resolved path in real
 * (PATH_MAX bytes; NULL: not wanted), which is what to open: path itself may
 * pass through a link another user can point elsewhere once checked; -EPERM
 * with why ("writable by others (mode 0666)", "its directory /x is owned by
 * uid 1000, not by root or uid 0"); or -errno with strerror in why.
 */
int trust__path(const char *path, char *real, char *why, size_t whylen);

#endif
