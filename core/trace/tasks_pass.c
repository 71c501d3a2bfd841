// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What both files of the task iterator read with: one pass of an iterator
 * link into a buffer, and the /proc state letter of a task's state bits
 * (tasks.c for the processes, tasks_wait.c for the threads and the sampler).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/tasks_int.h"

ssize_t tasks__read_pass(struct bpf_link *link, char **buf, size_t *cap)
{
	size_t len = 0;
	int fd = bpf_iter_create(bpf_link__fd(link));

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (*cap - len < 65536) {
			size_t ncap = *cap ? *cap * 2 : 1u << 20;
			char *nb = realloc(*buf, ncap);

			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			*buf = nb;
			*cap = ncap;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (ssize_t)len;
}

char tasks__state_letter(uint32_t state, uint32_t exit_state)
{
	static const char letters[] = "RSDTtXZPI";
	uint32_t s = (state | exit_state) & 0x7f; /* TASK_REPORT */
	int i = 0;

	if ((state & 0x402) == 0x402) /* TASK_IDLE: uninterruptible, no load */
		return 'I';
	if (state & 0x1000) /* TASK_RTLOCK_WAIT */
		s = 2;
	while (s) {
		i++;
		s >>= 1;
	}
	return letters[i < 9 ? i : 0];
}
