// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Linked into the static build only (build-aux/static.mk, -Wl,--wrap=dlopen):
 * every dlopen() of the libraries inside it fails. libdw opens
 * libdebuginfod.so.1 the first time it looks for debug information; a static
 * binary that loaded the host's shared library would map the host's libc
 * beside its own, and on a RHEL host, where elfutils-debuginfod-client is
 * often installed, crash there or misbehave. Without it libdw goes on as it
 * does where the library is absent: no debuginfod downloads, which sonde does
 * not ask for anyway (a run must not fetch from the network).
 */
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);

void *__wrap_dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	return NULL;
}
