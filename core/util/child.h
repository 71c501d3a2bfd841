/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A child process sonde forks to do one risky thing (extract a bundle, load a
 * user's checks, run a check) under a watchdog in the parent.
 */
#ifndef SONDE_CHILD_H
#define SONDE_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"

/*
 * Call first in the child: it is killed (SIGKILL) when the parent dies, so an
 * interrupted sonde leaves nothing running (and it exits now if the parent
 * died before this), and the parent's handlers of SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGPIPE and SIGALRM (cleanup, the report, the deadline) are reset
 * to the default: they are not the child's to run.
 */
void child__tie(pid_t parent);

/*
 * In the parent: read what the child pid writes to fd into out until it
 * closes it, then reap the child (*status). The watchdog: every tick (at most
 * tick_ms between two looks) and after every read, overdue(arg) is asked; when
 * it says so, or out holds more than max bytes, the child is killed (SIGKILL)
 * and 1 is returned. 0 when the child closed fd by itself. fd is closed.
 */
int child__collect(pid_t pid, int fd, struct strbuf *out, size_t max, int tick_ms,
		   int (*overdue)(void *arg), void *arg, int *status);

#endif
