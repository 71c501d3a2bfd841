/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capture streams: the raw evidence, verbatim, as sonde read it.
 *
 * One file per collector under raw/ (raw/<collector>.cap). A stream is a
 * header line followed by records; each record is one read of one file:
 *
 *   sonde-capture 1\n
 *   @ <seq> <wall_ns> <mono_ns> <len> <flags> <path>\n<len bytes>\n
 *   = <seq> <wall_ns> <mono_ns> <len> - <path>\n
 *   ! <seq> <wall_ns> <mono_ns> <errno> - <path>\n
 *
 * '@' is a successful read (flags: '-' or 't' when the read was cut at the
 * capture cap), '=' a successful read whose bytes are exactly those of the
 * previous read of the same path in this stream (an idle process's stat, read
 * every round: most of a capture otherwise), '!' a failed one (so "why is
 * this unknown" survives into the bundle). seq is the sample round (0 = first sample of the window), wall_ns
 * is CLOCK_REALTIME and mono_ns CLOCK_MONOTONIC at the read. The payload is
 * length-prefixed, so any byte a hostile process puts in its name is data,
 * never structure. Paths never contain '\n' (the writer refuses them).
 */
#ifndef SONDE_CAPTURE_H
#define SONDE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAPTURE_MAGIC "sonde-capture 1\n"

/* The last payload written per path, to write exact repeats as '=' records. */
struct capture_last {
	char *path;
	char *data;
	size_t len; /* SIZE_MAX: the last read of this path failed */
};

struct capture_writer {
	FILE *f;
	char *path;
	struct capture_last *last; /* open addressing on the path */
	size_t last_cap, last_n;
	uint64_t bytes;   /* payload bytes written */
	uint64_t records; /* records written, errors included */
	int last_repeat;  /* the last record written was a '=' repeat */
	int err;          /* first write error (-errno), sticky */
};

/* Create raw_dir/<stream>.cap. Returns 0 or -errno. */
int capture_writer__open(struct capture_writer *w, const char *raw_dir, const char *stream);
int capture_writer__record(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			   const char *path, const void *buf, size_t len, int truncated);
/*
 * A record of a path read once in the stream (a process's command line at
 * first sight): written in full and not kept to compare the next one with,
 * which would cost a copy per process for a '=' that never comes.
 */
int capture_writer__record_once(struct capture_writer *w, uint32_t seq, int64_t wall_ns,
				int64_t mono_ns, const char *path, const void *buf, size_t len,
				int truncated);
/*
 * A read whose bytes are exactly those of path's previous record in this
 * stream (len bytes, a successful read), written as a '=' record whatever its
 * size: for a caller copying a stream record by record (sonde redact), which
 * knows the two are equal without comparing them. The reader refuses a
 * repeat that matches no such record, so the caller must be right.
 */
int capture_writer__repeat(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			   const char *path, size_t len);
/*
 * A '=' record for path, whose bytes the caller knows are those of its last
 * record (a task source's unchanged process): no payload to compare. 0, or
 * -ENOENT when path has no last payload to repeat (write it in full).
 */
int capture_writer__repeat_last(struct capture_writer *w, uint32_t seq, int64_t wall_ns,
				int64_t mono_ns, const char *path);
int capture_writer__error(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			  const char *path, int err);
/* Flush and close; returns the sticky error, if any. */
int capture_writer__close(struct capture_writer *w);

struct capture_rec {
	uint32_t seq;
	int64_t wall_ns, mono_ns;
	int err;       /* 0, or the errno of a failed read */
	int truncated; /* the read hit the capture cap */
	const char *path;
	const char *data; /* not NUL-terminated beyond len (a NUL follows, for convenience) */
	size_t len;
};

/*
 * What reading streams may take: they come from bundles anyone may have
 * crafted (a 330 KB bundle of tiny records once took 9.8 GB as 56-byte
 * records). The memory bound is the extraction's (core/bundle/read.c), so
 * opening a bundle and analyzing it are held to the same limit.
 */
struct capture_limits {
	uint64_t max_stream_bytes; /* one raw/<name>.cap file */
	uint64_t max_records;      /* records of one stream */
	uint64_t max_memory_bytes; /* all the streams loaded, text, records and index together */
};

extern const struct capture_limits capture_default_limits;

struct capture_stream {
	char *name; /* "proc.stat" */
	char *text; /* the file, owned */
	size_t text_len;
	struct capture_rec *rec;
	size_t n;
	/* capture_set: loaded on first use; refused (why) when over a limit or malformed */
	int loaded;
	char *why;
	uint64_t held; /* bytes charged to the set */
};

struct capture_set {
	struct capture_stream *s; /* by name */
	size_t n;
	char *raw_dir;
	struct capture_limits lim;
	uint64_t held; /* bytes of every loaded stream */
};

/*
 * List raw_dir/<name>.cap without reading them: a stream is read and parsed
 * when first asked for (capture_set__stream), so what no check reads costs
 * nothing, and memory is charged stream by stream against lim (NULL: the
 * defaults). Returns 0 or -errno with errbuf.
 */
int capture_set__open(struct capture_set *cs, const char *raw_dir, const struct capture_limits *lim,
		      char *errbuf, size_t errlen);
/*
 * capture_set__open and load every stream now. A malformed stream is an
 * error naming the file and the byte offset (errbuf); a stream cut short
 * (the run was killed mid-write) keeps the complete records and drops the
 * tail. Returns 0 or -errno / -EINVAL.
 */
int capture_set__load(struct capture_set *cs, const char *raw_dir, char *errbuf, size_t errlen);
/* Parse one stream from memory (takes ownership of text on success and failure), default limits;
 * on success it is marked loaded. */
int capture_stream__parse(struct capture_stream *st, char *text, size_t len, char *errbuf,
			  size_t errlen);
void capture_set__free(struct capture_set *cs);
/*
 * The stream name, loaded now if it was not; NULL when absent, or refused
 * (too large, malformed, over the memory limit): capture_set__why says why.
 */
const struct capture_stream *capture_set__stream(struct capture_set *cs, const char *name);
/* Why stream name, present in raw/, could not be loaded; NULL when it was (or is absent). */
const char *capture_set__why(const struct capture_set *cs, const char *name);
/* The last record for path, or NULL. */
const struct capture_rec *capture_stream__last(const struct capture_stream *st, const char *path);

#endif
