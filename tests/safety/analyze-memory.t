#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile bundle against `sonde analyze`'s memory (issue 18, item 7): the
# captures were loaded whole, every stream at once, with a 56-byte record per
# '=' repeat of 15 bytes, so a bundle of a few KB of xz grew to gigabytes
# (9.8 GB from 330 KB in the report). Generated here: four streams the
# default checks read (proc.stat, proc.loadavg, proc.meminfo, proc.pids) of
# five million tiny repeat records each (300 MB of text, about 45 KB as
# tar.xz). The analysis must stay under its memory limit (768 MiB, the
# extraction's), refuse each stream at the record cap with the reason, and
# still write its report.
. tests/lib/tap.sh

jq_true() { jq -e "$@" >/dev/null 2>&1; }

for tool in jq tar xz perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 ||
	skip_all "GNU time is not installed (make deps): it measures the peak RSS"

T=$(mktemp -d /tmp/sonde-safety-anmem.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
LIMIT_KB=$((768 * 1024))
RECORDS=5000000

mkdir -p "$T/b/raw"
# The run facts, so the bundle opens; then the streams of tiny repeats.
perl -e '
	my ($dir, $n) = @ARGV;
	my $facts = join("", map { "$_\n" } "version: 0.1.0", "window_s: 10.000", "interval_s: 1.000",
		"start_wall_ns: 1700000000000000000", "end_wall_ns: 1700000010000000000",
		"start_mono_ns: 1000000000", "end_mono_ns: 11000000000", "samples: 11", "partial: 0",
		"stop_reason: complete", "clk_tck: 100", "page_size: 4096", "pid: 1", "euid: 0");
	open(my $m, ">", "$dir/sonde.cap") or die "$dir/sonde.cap: $!";
	printf $m "sonde-capture 1\n@ 10 1700000010000000000 11000000000 %d - sonde:run\n%s\n",
		length($facts), $facts;
	close $m or die;
	my $chunk = "= 0 0 0 1 - /a\n" x 100000;
	for my $s (qw(proc.stat proc.loadavg proc.meminfo proc.pids)) {
		open(my $f, ">", "$dir/$s.cap") or die "$dir/$s.cap: $!";
		print $f "sonde-capture 1\n\@ 0 0 0 1 - /a\nx\n";
		print $f $chunk for 1 .. $n / 100000;
		close $f or die;
	}' "$T/b/raw" "$RECORDS" || skip_all "cannot write 300 MB of streams in $T"
(cd "$T/b" && XZ_OPT=-1 tar -cJf "$T/tiny.tar.xz" raw) || skip_all "tar -cJ failed"
rm -rf "$T/b"
diag "bundle: $(stat -c %s "$T/tiny.tar.xz") bytes of tar.xz, $((4 * RECORDS)) records"

/usr/bin/time -f %M -o "$T/rss" "$SONDE" analyze "$T/tiny.tar.xz" --json >"$T/findings.json" 2>"$T/stderr"
rc=$?
rss=$(tail -1 "$T/rss")
diag "sonde analyze: exit $rc, peak RSS $((rss / 1024)) MiB"
is "$rc" 0 "sonde analyze exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
ok "its peak RSS stays under the 768 MiB limit (got $((rss / 1024)) MiB)" test "$rss" -lt "$LIMIT_KB"
for s in proc.stat proc.pids; do
	ok "raw/$s.cap refused at the record cap, and the checks say so" \
		jq_true --arg s "raw/$s.cap: more than" '[.checks[].unknowns[]?.reason | select(startswith($s))] | length > 0' \
		"$T/findings.json"
done
ok "the report is written all the same" jq_true '.checks | length > 20' "$T/findings.json"
done_testing
