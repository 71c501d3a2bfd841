// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words of a thread's wait as proc.threads writes them, for the round's
 * lines (threads.c) and the sampler's (threads_sampler.c): STATE FLAGS
 * SYSCALL ARGS OBJECT KSTACK, tab-separated (docs/capture-format.md).
 */
#include <inttypes.h>

#include "collect/threads.h"

/* A word of the capture: no tab, newline or control byte; "-" when empty. */
static void put_word(struct strbuf *b, const char *s)
{
	size_t start = b->len;

	if (!*s) {
		strbuf__puts(b, "-");
		return;
	}
	strbuf__puts(b, s);
	for (size_t i = start; !b->oom && i < b->len; i++)
		if ((unsigned char)b->buf[i] < 0x20 || b->buf[i] == 0x7f)
			b->buf[i] = '_';
}

void threads__words(struct strbuf *b, const struct thread_sample *t)
{
	char flags[8];
	size_t nf = 0;

	if (t->flags & THREAD_ONCPU)
		flags[nf++] = 'c';
	if (t->flags & THREAD_IOWAIT)
		flags[nf++] = 'i';
	if (t->flags & THREAD_KTHREAD)
		flags[nf++] = 'k';
	if (t->flags & THREAD_POLLFD)
		flags[nf++] = 'p';
	flags[nf] = '\0';
	strbuf__printf(b, "%c\t%s\t", t->state ? t->state : '?', nf ? flags : "-");
	put_word(b, t->syscall);
	if (t->has_args)
		strbuf__printf(b, "\t0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 "\t", t->args[0],
			       t->args[1], t->args[2]);
	else
		strbuf__puts(b, "\t-\t");
	put_word(b, t->object);
	strbuf__puts(b, "\t");
	put_word(b, t->kstack);
}
