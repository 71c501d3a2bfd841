// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capture streams (write, read back, hostile and cut-short input) and the
 * per-process summaries derived from them (pid reuse, processes that start
 * or exit during the window, counters that go backwards).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/analysis.h"
#include "collect/capture.h"
#include "tap.h"

static char tmpdir[] = "/tmp/sonde-test-capture-XXXXXX";

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static int parse_copy(const char *text, size_t len, struct capture_stream *st, char *err,
		      size_t errlen)
{
	char *copy = malloc(len + 1);

	memcpy(copy, text, len);
	copy[len] = '\0';
	memset(st, 0, sizeof(*st));
	st->name = "test";
	return capture_stream__parse(st, copy, len, err, errlen);
}

static void free_stream(struct capture_stream *st)
{
	free(st->text);
	free(st->rec);
}

static void test_roundtrip(void)
{
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	const char hostile[] = "1 (a) S 1 (b\n@ 0 0 0 5 - /x\nzzzzz) R 1\0tail";
	char err[256], path[512], *text;
	size_t len = 0;
	int rc;

	rc = capture_writer__open(&w, tmpdir, "t.one");
	is_int(rc, 0, "writer opens raw/t.one.cap");
	is_int(capture_writer__record(&w, 0, 100, 10, "/proc/1/stat", hostile, sizeof(hostile) - 1, 0),
	       0, "a payload that looks like a record header is written as data");
	is_int(capture_writer__error(&w, 0, 101, 11, "/proc/pressure/cpu", ENOENT), 0,
	       "a failed read is recorded");
	is_int(capture_writer__record(&w, 1, 200, 20, "/proc/loadavg", "", 0, 1), 0,
	       "an empty, truncated payload is written");
	is_int(capture_writer__record(&w, 1, 200, 20, "bad\npath", "x", 1, 0), -EINVAL,
	       "a path with a newline is refused");
	is_int(capture_writer__close(&w), 0, "writer closes cleanly");

	rc = capture_set__load(&cs, tmpdir, err, sizeof(err));
	is_int(rc, 0, "the stream loads back");
	st = capture_set__stream(&cs, "t.one");
	ok(st != NULL, "stream found by collector name");
	if (!st)
		return;
	is_int(st->n, 3, "three records");
	is_str(st->rec[0].path, "/proc/1/stat", "path of the first record");
	is_int(st->rec[0].len, sizeof(hostile) - 1, "payload length kept, embedded NUL included");
	ok(!memcmp(st->rec[0].data, hostile, sizeof(hostile) - 1), "payload bytes identical");
	is_int(st->rec[1].err, ENOENT, "errno of the failed read kept");
	is_int(st->rec[2].truncated, 1, "truncation flag kept");
	is_int(st->rec[2].seq, 1, "sample round kept");
	is_int(st->rec[2].mono_ns, 20, "monotonic time kept");
	ok(capture_stream__last(st, "/proc/loadavg") == &st->rec[2], "last record of a path");
	ok(capture_stream__last(st, "/proc/1/stat") == &st->rec[0], "a path read once: its record");
	capture_set__free(&cs);

	/* Cut the file at every offset: complete records stay, nothing crashes. */
	snprintf(path, sizeof(path), "%s/t.one.cap", tmpdir);
	text = slurp(path, &len);
	ok(text != NULL, "stream file read back");
	{
		int crashes = 0, shrink_ok = 1;
		size_t prev = 0;

		for (size_t cut = strlen(CAPTURE_MAGIC); cut <= len; cut++) {
			struct capture_stream s2;

			rc = parse_copy(text, cut, &s2, err, sizeof(err));
			if (rc)
				crashes++;
			if (s2.n < prev)
				shrink_ok = 0;
			prev = s2.n;
			free_stream(&s2);
		}
		is_int(crashes, 0, "every prefix of a stream parses (a killed run's tail is dropped)");
		ok(shrink_ok, "a longer prefix never yields fewer records");
	}
	free(text);
	unlink(path);
}

static void test_hostile(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "not a capture\n", "wrong magic" },
		{ CAPTURE_MAGIC "# 0 0 0 1 - /x\nx\n", "unknown record kind" },
		{ CAPTURE_MAGIC "@ 0 0 0 1 ? /x\nx\n", "unknown flag" },
		{ CAPTURE_MAGIC "@ x 0 0 1 - /x\nx\n", "non-numeric round" },
		{ CAPTURE_MAGIC "@ 99999999999 0 0 1 - /x\nx\n", "round beyond 32 bits" },
		{ CAPTURE_MAGIC "@ 0 0 0 1 - /x\nxy\n", "payload longer than its length" },
		{ CAPTURE_MAGIC "@ 0 0 0 99999999999999999999999 - /x\nx\n", "length overflow" },
		{ CAPTURE_MAGIC "@ 0 0 0 1 - \nx\n", "empty path" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct capture_stream st;
		int rc = parse_copy(bad[i].text, strlen(bad[i].text), &st, err, sizeof(err));

		ok(rc == -EINVAL && strstr(err, "test:"), "refused with a message naming the stream: %s",
		   bad[i].why);
		free_stream(&st);
	}
	{
		/* A length that runs past the end is a cut write, not corruption. */
		const char *t = CAPTURE_MAGIC "@ 0 0 0 1 - /a\na\n@ 0 0 0 500 - /b\nshort";
		struct capture_stream st;

		is_int(parse_copy(t, strlen(t), &st, err, sizeof(err)), 0,
		       "a payload cut short ends the stream");
		is_int(st.n, 1, "and the complete record before it is kept");
		free_stream(&st);
	}
}

/* A record written once is never a '=' and never the base of one. */
static void test_record_once(void)
{
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	char err[256], path[512], *text;
	size_t len = 0;
	const char *a = "/bin/a\0x\0", *b = "/bin/b\0";
	int reps = 0;

	capture_writer__open(&w, tmpdir, "t.once");
	capture_writer__record_once(&w, 0, 1, 1, "/proc/7/cmdline", a, 9, 0);
	capture_writer__record_once(&w, 1, 2, 2, "/proc/7/cmdline", a, 9, 0); /* same bytes */
	capture_writer__record(&w, 2, 3, 3, "/proc/8/cmdline", a, 9, 0);     /* remembered */
	capture_writer__record_once(&w, 3, 4, 4, "/proc/8/cmdline", b, 7, 0);
	capture_writer__record(&w, 4, 5, 5, "/proc/8/cmdline", a, 9, 0);     /* not a repeat of 2 */
	is_int(capture_writer__close(&w), 0, "once stream written");
	snprintf(path, sizeof(path), "%s/t.once.cap", tmpdir);
	text = slurp(path, &len);
	for (char *q = text; q && (q = strstr(q, "\n= ")); q++)
		reps++;
	is_int(reps, 0, "records written once are in full, and a later read of the path is too");
	free(text);
	is_int(capture_set__load(&cs, tmpdir, err, sizeof(err)), 0, "once stream loads");
	st = capture_set__stream(&cs, "t.once");
	ok(st && st->n == 5 && st->rec[4].len == 9 && !memcmp(st->rec[4].data, a, 9) &&
		   st->rec[3].len == 7,
	   "... and reads back as written");
	capture_set__free(&cs);
	unlink(path);
}

static void test_repeats(void)
{
	struct capture_writer w;
	struct capture_set cs;
	const struct capture_stream *st;
	char err[256], path[512], *text;
	size_t len = 0;
	const char *a = "1 (sleep) S 1 1 1 0 -1 0 0 0 0 0 0 0\n", *b = "2 (busy) R 1\n";

	capture_writer__open(&w, tmpdir, "t.rep");
	capture_writer__record(&w, 0, 1, 1, "/proc/1/stat", a, strlen(a), 0);
	capture_writer__record(&w, 0, 1, 1, "/proc/2/stat", b, strlen(b), 0);
	capture_writer__record(&w, 1, 2, 2, "/proc/1/stat", a, strlen(a), 0); /* repeat */
	capture_writer__record(&w, 1, 2, 2, "/proc/2/stat", "2 (busy) R 2\n", 13, 0);
	capture_writer__error(&w, 2, 3, 3, "/proc/1/stat", ESRCH);
	capture_writer__record(&w, 3, 4, 4, "/proc/1/stat", a, strlen(a), 0); /* after a failure */
	capture_writer__record(&w, 4, 5, 5, "/proc/1/stat", a, strlen(a), 0); /* repeat again */
	capture_writer__record(&w, 4, 5, 5, "/proc/3/stat", "", 0, 0);
	capture_writer__record(&w, 5, 6, 6, "/proc/3/stat", "", 0, 0); /* empty repeat */
	is_int(capture_writer__close(&w), 0, "repeat stream written");
	snprintf(path, sizeof(path), "%s/t.rep.cap", tmpdir);
	text = slurp(path, &len);
	{
		int reps = 0;

		for (char *q = text; q && (q = strstr(q, "\n= ")); q++)
			reps++;
		is_int(reps, 3, "exact repeats are written as '=' records (not after a failed read)");
	}
	free(text);
	is_int(capture_set__load(&cs, tmpdir, err, sizeof(err)), 0, "repeat stream loads");
	st = capture_set__stream(&cs, "t.rep");
	ok(st && st->n == 9, "every read is a record");
	if (st && st->n == 9) {
		is_int(st->rec[2].len, strlen(a), "a repeat has the bytes of the earlier read");
		ok(!memcmp(st->rec[2].data, a, strlen(a)), "... byte for byte");
		is_int(st->rec[2].seq, 1, "... and its own round");
		is_int(st->rec[3].len, 13, "a changed payload is written in full");
		is_int(st->rec[6].len, strlen(a), "a repeat after a repeat resolves");
		is_int(st->rec[8].len, 0, "an empty payload repeats");
	}
	capture_set__free(&cs);
	unlink(path);

	{
		struct capture_stream s2;
		const char *orphan = CAPTURE_MAGIC "= 0 0 0 3 - /x\n";
		const char *mismatch = CAPTURE_MAGIC "@ 0 0 0 1 - /x\nx\n= 1 0 0 2 - /x\n";
		const char *after_err = CAPTURE_MAGIC "@ 0 0 0 1 - /x\nx\n! 1 0 0 3 - /x\n= 2 0 0 1 - /x\n";

		ok(parse_copy(orphan, strlen(orphan), &s2, err, sizeof(err)) == -EINVAL &&
			   strstr(err, "repeat"),
		   "a repeat with no earlier read is refused: %s", err);
		free_stream(&s2);
		ok(parse_copy(mismatch, strlen(mismatch), &s2, err, sizeof(err)) == -EINVAL,
		   "a repeat whose length differs from the earlier read is refused");
		free_stream(&s2);
		ok(parse_copy(after_err, strlen(after_err), &s2, err, sizeof(err)) == -EINVAL,
		   "a repeat of a failed read is refused");
		free_stream(&s2);
	}
}

/* ---- bounded, lazy loading (issue 18, item 7) ---- */

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

/* A stream of one read of /a and n repeats of it: 15 bytes a record, 56 once parsed. */
static void write_repeats(const char *dir, const char *name, size_t n)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(CAPTURE_MAGIC "@ 0 0 0 1 - /a\nx\n", f);
	for (size_t i = 0; i < n; i++)
		fputs("= 0 0 0 1 - /a\n", f);
	fclose(f);
}

static void test_limits(void)
{
	const char ok_text[] = CAPTURE_MAGIC "@ 0 0 0 2 - /proc/loadavg\nab\n= 1 0 0 2 - /proc/loadavg\n";
	const char bad_text[] = CAPTURE_MAGIC "@ 0 0 0 2 - /x\nab\n% 1 0 0 2 - /x\n";
	struct capture_limits lim = { .max_stream_bytes = 1u << 20, .max_records = 100,
				      .max_memory_bytes = 64u << 10 };
	char dir[600], err[256];
	struct capture_set cs;
	const struct capture_stream *st;
	const char *why;

	snprintf(dir, sizeof(dir), "%s/limits", tmpdir);
	mkdir(dir, 0700);
	write_file(dir, "good.cap", ok_text, sizeof(ok_text) - 1);
	write_file(dir, "malformed.cap", bad_text, sizeof(bad_text) - 1);
	write_repeats(dir, "many.cap", 100); /* 101 records: one over the cap */
	write_repeats(dir, "big.cap", 10000); /* 150 KB: over the whole 64 KiB limit */
	write_repeats(dir, "half.cap", 500);  /* 36 KB loaded: one fits in 64 KiB, not two */
	write_repeats(dir, "half2.cap", 500);

	is_int(capture_set__open(&cs, dir, &lim, err, sizeof(err)), 0, "the streams are listed");
	is_int(cs.n, 6, "six streams listed");
	is_int(cs.held, 0, "... none read yet");
	st = capture_set__stream(&cs, "good");
	ok(st && st->n == 2 && st->rec[1].len == 2, "a stream is read when first asked for");
	ok(!capture_set__stream(&cs, "malformed"), "a malformed stream is refused");
	why = capture_set__why(&cs, "malformed");
	ok(why && strstr(why, "malformed.cap: malformed capture at byte"), "... with why: %s",
	   why ? why : "(none)");
	ok(capture_set__stream(&cs, "good") == st, "... and the others still load");
	ok(!capture_set__stream(&cs, "many"), "a stream over the record cap is refused");
	why = capture_set__why(&cs, "many");
	ok(why && strstr(why, "many.cap: more than 100 records"), "... with why: %s",
	   why ? why : "(none)");
	ok(!capture_set__stream(&cs, "big"), "a stream larger than the memory limit is not read");
	why = capture_set__why(&cs, "big");
	ok(why && strstr(why, "memory limit"), "... with why: %s", why ? why : "(none)");
	capture_set__free(&cs);

	lim.max_records = 1u << 20;
	is_int(capture_set__open(&cs, dir, &lim, err, sizeof(err)), 0, "listed again, no record cap");
	ok(capture_set__stream(&cs, "half") != NULL, "a stream within the limit loads");
	ok(!capture_set__stream(&cs, "half2"), "the next one past the limit does not");
	why = capture_set__why(&cs, "half2");
	ok(why && strstr(why, "memory limit"), "... with why: %s", why ? why : "(none)");
	ok(cs.held <= lim.max_memory_bytes, "what the set holds stays within the limit (%llu bytes)",
	   (unsigned long long)cs.held);
	ok(!capture_set__stream(&cs, "absent") && !capture_set__why(&cs, "absent"),
	   "an absent stream is absent, with no reason");
	capture_set__free(&cs);

	/* capture_set__load reads everything now: the malformed stream fails it, as before */
	ok(capture_set__load(&cs, dir, err, sizeof(err)) == -EINVAL && strstr(err, ".cap: "),
	   "loading every stream at once fails on the first refused: %s", err);
}

/* ---- tasks ---- */

static void stat_line(char *buf, size_t len, int pid, const char *comm, int ppid, unsigned long ut,
		      unsigned long st, unsigned long start)
{
	snprintf(buf, len,
		 "%d (%s) R %d 1 1 0 -1 4194304 10 0 0 0 %lu %lu 0 0 20 0 1 0 %lu 1000000 100 "
		 "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
		 pid, comm, ppid, ut, st, start);
}

static void rec(struct capture_writer *w, uint32_t seq, const char *path, const char *text)
{
	/* one second per round, from mono 1e9 */
	capture_writer__record(w, seq, 1700000000000000000LL + seq * 1000000000LL,
			       1000000000LL + seq * 1000000000LL, path, text, strlen(text), 0);
}

static void test_tasks(void)
{
	char dir[600], raw[700], line[512], err[256];
	struct capture_writer w;
	struct analysis an;
	const struct task_summary *t;
	size_t n;
	int found_old = 0, found_new = 0;

	snprintf(dir, sizeof(dir), "%s/tasks", tmpdir);
	snprintf(raw, sizeof(raw), "%s/raw", dir);
	mkdir(dir, 0700);
	mkdir(raw, 0700);

	capture_writer__open(&w, raw, "sonde");
	{
		const char *facts = "version: test\nwindow_s: 2\ninterval_s: 1\n"
				    "start_wall_ns: 1700000000000000000\nend_wall_ns: 1700000002000000000\n"
				    "start_mono_ns: 1000000000\nend_mono_ns: 3000000000\nsamples: 3\n"
				    "partial: 0\nstop_reason: complete\nclk_tck: 100\npage_size: 4096\n"
				    "pid: 77\n";
		rec(&w, 2, "sonde:run", facts);
	}
	capture_writer__close(&w);
	capture_writer__open(&w, raw, "host");
	rec(&w, 0, "/proc/uptime", "1000.00 1900.00\n");
	capture_writer__close(&w);

	capture_writer__open(&w, raw, "proc.pids");
	/* pid 10 runs all window: 300 ticks in the window (from 100 to 400). */
	stat_line(line, sizeof(line), 10, "a) S 1 (b", 1, 100, 0, 500);
	rec(&w, 0, "/proc/10/stat", line);
	capture_writer__record(&w, 0, 1700000000000000000LL, 1000000000LL, "/proc/10/cmdline",
			       "worker\0--flag\0", 14, 0);
	stat_line(line, sizeof(line), 10, "a) S 1 (b", 1, 250, 0, 500);
	rec(&w, 1, "/proc/10/stat", line);
	stat_line(line, sizeof(line), 10, "a) S 1 (b", 1, 400, 0, 500);
	rec(&w, 2, "/proc/10/stat", line);
	rec(&w, 2, "/proc/10/fd", "0\n1\n2\n");
	rec(&w, 0, "/proc/10/schedstat", "1000000000 500000000 40\n");
	rec(&w, 2, "/proc/10/schedstat", "3000000000 2500000000 100\n");
	rec(&w, 2, "/proc/10/limits",
	    "Limit                     Soft Limit           Hard Limit           Units     \n"
	    "Max open files            1024                 4096                 files     \n");
	/* pid 20 exits after round 0. */
	stat_line(line, sizeof(line), 20, "gone", 1, 50, 5, 600);
	rec(&w, 0, "/proc/20/stat", line);
	/* pid 30 is reused: an old process (start 700) then a new one born in the window. */
	stat_line(line, sizeof(line), 30, "old", 1, 10, 0, 700);
	rec(&w, 0, "/proc/30/stat", line);
	stat_line(line, sizeof(line), 30, "new", 1, 20, 0, 100050); /* 1000.5 s after boot */
	rec(&w, 2, "/proc/30/stat", line);
	rec(&w, 2, "/proc/30/schedstat", "200000000 7000000 9\n");
	/* pid 77 is sonde itself. */
	stat_line(line, sizeof(line), 77, "sonde", 1, 1, 1, 800);
	rec(&w, 0, "/proc/77/stat", line);
	rec(&w, 2, "/proc/77/stat", line);
	/* pid 40: counters go backwards (a reset): no huge number. */
	stat_line(line, sizeof(line), 40, "reset", 1, 5000000000ULL, 0, 900);
	rec(&w, 0, "/proc/40/stat", line);
	stat_line(line, sizeof(line), 40, "reset", 1, 10, 0, 900);
	rec(&w, 2, "/proc/40/stat", line);
	/* pid 45 sleeps: the same stat bytes every round, written as repeats. */
	stat_line(line, sizeof(line), 45, "sleeper", 1, 7, 3, 950);
	rec(&w, 0, "/proc/45/stat", line);
	rec(&w, 1, "/proc/45/stat", line);
	rec(&w, 2, "/proc/45/stat", line);
	/* garbage and a failed read are skipped */
	rec(&w, 1, "/proc/50/stat", "garbage without parens\n");
	capture_writer__error(&w, 1, 0, 2000000000LL, "/proc/60/stat", ESRCH);
	capture_writer__close(&w);

	is_int(analysis__open(&an, raw, err, sizeof(err)), 0, "analysis opens the hand-made captures");
	is_int(analysis__tasks(&an, &t, &n), 0, "tasks built");
	is_int(n, 7, "seven processes (pid 30 counted twice: reused), garbage skipped");
	for (size_t i = 0; i < n; i++) {
		const struct task_summary *s = &t[i];

		if (s->pid == 10) {
			is_str(s->comm, "a) S 1 (b", "hostile comm kept whole");
			is_int(s->utime, 300, "utime over the window");
			is_int(s->started, 0, "present from the start");
			is_int(s->exited, 0, "present at the end");
			is_int(s->fds, 3, "fd count from the listing");
			is_int(s->nofile_soft, 1024, "RLIMIT_NOFILE soft");
			is_str(s->cmdline, "worker --flag", "argv joined with spaces");
			is_int(s->has_sched, 1, "schedstat at both ends");
			is_int(s->wait_ns, 2000000000, "run-queue wait over the window");
			is_int(s->slices, 60, "times scheduled in over the window");
		} else if (s->pid == 20) {
			is_int(s->exited, 1, "a process gone after round 0 is marked exited");
			is_int(s->utime, 0, "a process seen once did nothing measurable");
		} else if (s->pid == 30 && s->starttime == 700) {
			found_old = 1;
			is_int(s->exited, 1, "the first owner of a reused pid exited");
		} else if (s->pid == 30) {
			found_new = 1;
			is_int(s->started, 1, "the second owner started in the window");
			is_int(s->utime, 20, "born in the window: counted from zero");
			is_str(s->comm, "new", "its own name");
			is_int(s->slices, 9, "born in the window: schedstat counted from zero");
		} else if (s->pid == 77) {
			is_int(s->self, 1, "sonde itself is marked as the observer");
		} else if (s->pid == 45) {
			is_int(s->utime + s->stime, 0, "a sleeper's repeated stat: no CPU in the window");
			is_int(s->exited, 0, "a repeat in the last round means still alive");
			ok(s->last_t > 1.99 && s->last_t < 2.01, "a repeat moves the last-seen time");
			is_str(s->comm, "sleeper", "its name from the first full record");
		} else if (s->pid == 40) {
			is_int(s->utime, 0, "a counter that went backwards gives 0, not a wrap to 2^64");
		}
	}
	ok(found_old && found_new, "pid reuse gives two processes");
	is_int(an.clk_tck, 100, "run facts: clk_tck");
	ok(an.elapsed_s > 1.99 && an.elapsed_s < 2.01, "run facts: elapsed from the monotonic clock");
	analysis__close(&an);
}

/* One sonde:task/PID line (util/parse.h): the fields tests vary, the rest fixed. */
static void task_line(char *buf, size_t len, int pid, const char *comm, int ppid, int kthread,
		      unsigned long ut, unsigned long start, const char *fds, const char *io)
{
	snprintf(buf, len,
		 "%d (%s) S %d %d 1 100 0 %lu 0 10 0 0 %lu 1000 5 1 2000000 300000 4 %s 1024 4096 %s\n",
		 pid, comm, ppid, kthread, ut, start, fds, io);
}

/* Summaries from a task source's records: the same facts as from /proc, from one record a round. */
static void test_task_records(void)
{
	char dir[600], raw[700], line[512], err[256];
	struct capture_writer w;
	struct analysis an;
	const struct task_summary *t;
	size_t n;
	int seen = 0;

	snprintf(dir, sizeof(dir), "%s/taskrec", tmpdir);
	snprintf(raw, sizeof(raw), "%s/raw", dir);
	mkdir(dir, 0700);
	mkdir(raw, 0700);
	capture_writer__open(&w, raw, "sonde");
	rec(&w, 2, "sonde:run",
	    "version: test\nwindow_s: 2\ninterval_s: 1\nstart_wall_ns: 1700000000000000000\n"
	    "end_wall_ns: 1700000002000000000\nstart_mono_ns: 1000000000\nend_mono_ns: 3000000000\n"
	    "samples: 3\npartial: 0\nstop_reason: complete\nclk_tck: 100\npage_size: 4096\npid: 9\n"
	    "tasks_source: bpf_iter_task\n");
	capture_writer__close(&w);
	capture_writer__open(&w, raw, "host");
	rec(&w, 0, "/proc/uptime", "1000.00 1900.00\n");
	capture_writer__close(&w);

	capture_writer__open(&w, raw, "proc.pids");
	/* 100: a worker, unchanged at round 1 (a repeat), 250 ticks more at round 2 */
	task_line(line, sizeof(line), 100, "worker", 1, 0, 50, 500, "12", "1 2 3 4 5 6");
	rec(&w, 0, "sonde:task/100", line);
	capture_writer__record(&w, 0, 1700000000000000000LL, 1000000000LL, "/proc/100/cmdline",
			       "worker\0-v\0", 10, 0);
	rec(&w, 1, "sonde:task/100", line);
	task_line(line, sizeof(line), 100, "worker", 1, 0, 300, 500, "14", "11 12 13 14 15 16");
	rec(&w, 2, "sonde:task/100", line);
	/* 200: read from /proc at first (the pass missed it), then from the source */
	stat_line(line, sizeof(line), 200, "mixed", 1, 10, 0, 600);
	rec(&w, 0, "/proc/200/stat", line);
	task_line(line, sizeof(line), 200, "mixed", 1, 0, 70, 600, "-", "- - - - - -");
	rec(&w, 2, "sonde:task/200", line);
	rec(&w, 2, "/proc/200/fd", "0\n1\n2\n3\n");
	/* 300: a kernel thread by the source's word; 301: a child of kthreadd that is not one */
	task_line(line, sizeof(line), 300, "kworker/0:1", 2, 1, 0, 700, "-", "- - - - - -");
	rec(&w, 0, "sonde:task/300", line);
	rec(&w, 2, "sonde:task/300", line);
	task_line(line, sizeof(line), 301, "odd", 2, 0, 0, 710, "3", "0 0 0 0 0 0");
	rec(&w, 0, "sonde:task/301", line);
	rec(&w, 2, "sonde:task/301", line);
	/* 400: reused (another starttime at round 2) */
	task_line(line, sizeof(line), 400, "old", 1, 0, 5, 800, "3", "0 0 0 0 0 0");
	rec(&w, 0, "sonde:task/400", line);
	task_line(line, sizeof(line), 400, "new", 1, 0, 9, 100050, "3", "0 0 0 0 0 0");
	rec(&w, 2, "sonde:task/400", line);
	/* garbage is skipped */
	rec(&w, 1, "sonde:task/500", "not a task record\n");
	capture_writer__close(&w);

	is_int(analysis__open(&an, raw, err, sizeof(err)), 0, "task records: analysis opens");
	is_int(analysis__tasks(&an, &t, &n), 0, "task records: tasks built");
	is_int(n, 6, "task records: six processes (400 twice), garbage skipped");
	for (size_t i = 0; i < n; i++) {
		const struct task_summary *s = &t[i];

		if (s->pid == 100) {
			seen |= 1;
			is_int(s->utime, 250, "task records: utime over the window");
			ok(s->has_io && s->rchar == 10 && s->write_bytes == 10,
			   "task records: I/O from the first and last records");
			ok(s->has_sched && s->has_ctxt, "task records: schedstat and switches known");
			is_int(s->fds, 14, "task records: fds from the last record");
			ok(s->nofile_soft == 1024 && s->nofile_hard == 4096, "task records: limits");
			is_int(s->uid, 1000, "task records: uid");
			is_str(s->cmdline, "worker -v", "task records: the command line beside them");
			ok(s->last_t > 1.99 && !s->exited && !s->started, "task records: alive throughout");
		} else if (s->pid == 200) {
			seen |= 2;
			is_int(s->utime, 60, "/proc then task record: one process, its delta across both");
			is_int(s->has_io, 0, "'-' I/O: unknown, not zero");
			is_int(s->fds, 4, "'-' fds: the /proc listing gives them");
		} else if (s->pid == 300) {
			seen |= 4;
			is_int(s->kernel_thread, 1, "the source's kernel-thread flag");
		} else if (s->pid == 301) {
			seen |= 8;
			is_int(s->kernel_thread, 0, "a child of kthreadd with no command line is not "
						    "taken for a kernel thread when the source says so");
		} else if (s->pid == 400 && s->starttime == 800) {
			seen |= 16;
			is_int(s->exited, 1, "reused pid: the first owner exited");
		} else if (s->pid == 400) {
			seen |= 32;
			ok(s->started && s->utime == 9, "reused pid: the second owner, counted from zero");
		}
	}
	is_int(seen, 63, "task records: every process met");
	analysis__close(&an);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_hostile();
	test_repeats();
	test_record_once();
	test_tasks();
	test_task_records();
	test_limits();
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		ok(system(cmd) == 0, "temporary files removed");
	}
	return tap_done();
}
