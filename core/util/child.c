// SPDX-License-Identifier: GPL-2.0-or-later
/* A forked child tied to its parent (util/child.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/child.h"

void child__tie(pid_t parent)
{
	static const int reset[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	for (size_t i = 0; i < sizeof(reset) / sizeof(*reset); i++)
		signal(reset[i], SIG_DFL);
}

int child__collect(pid_t pid, int fd, struct strbuf *out, size_t max, int tick_ms,
		   int (*overdue)(void *arg), void *arg, int *status)
{
	int killed = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char chunk[65536];
		ssize_t n;

		if (overdue(arg) || out->len > max) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		/* A timeout or EINTR: the watchdog looks again. */
		if (poll(&p, 1, tick_ms) <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf__append(out, chunk, (size_t)n);
	}
	close(fd);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return killed;
}
