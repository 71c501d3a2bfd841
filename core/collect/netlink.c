// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Netlink dumps for the collectors that read the kernel's tables rather than
 * files: sockets (sock_diag: listeners, ephemeral ports) and links and their
 * queueing disciplines (rtnetlink). One socket per dump, a receive timeout,
 * and a bound on the messages handled, so a huge table costs a known amount.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "collect/collectors.h"

#define NL_BUF (64 * 1024)

int netlink__dump(struct reader *rd, int proto, struct nlmsghdr *req, size_t max_msgs,
		  netlink_fn fn, void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	size_t handled = 0;
	char *buf = NULL;
	int fd, err = 0, done = 0;

	if (rd->root[0])
		return -EOPNOTSUPP; /* a made-up root (tests) has no kernel tables to ask */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	buf = malloc(NL_BUF);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* An answer that never comes must not hold the round past the watchdog. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = 1;
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto cleanup;
	}
	while (!done) {
		ssize_t n;

		reader__blocking_begin(rd, "netlink dump");
		n = recv(fd, buf, NL_BUF, 0);
		reader__blocking_end(rd);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				err = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error ?
					      e->error :
					      -EINVAL;
				done = 1;
				break;
			}
			/* Past the bound the dump is left unread: the kernel builds no more of it. */
			if (handled++ >= max_msgs) {
				err = -E2BIG;
				done = 1;
				break;
			}
			if (fn(h, arg)) {
				done = 1;
				break;
			}
		}
	}
cleanup:
	free(buf);
	close(fd);
	return err;
}
