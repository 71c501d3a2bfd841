#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`, part 2: sonde fleet over 1,000 and 10,000 generated bundles
# (build/fleet-gen makes them from one real bundle of this host, each the
# template's size), against the targets:
#   wall time, 1,000 bundles                      <= 60 s
#   wall time, 10,000 bundles                     <= 180 s
#   peak memory of the whole process tree         <  64 MiB, for both
# (sonde, its workers and their extraction children: the largest sum of their
# proportional set sizes, sampled every 20 ms, so pages the workers share with
# sonde count once), and the floor any reader pays: xz decompressing the same
# bundles in one process (the ratio says what sonde fleet adds: extraction
# under limits, verification against the manifest, the summaries). The time a
# bundle takes at 10,000 against 1,000 says whether the cost stays linear.
# Prints a table with PASS/FAIL per target; exits non-zero only when it cannot run.
#
# Knobs (environment): SONDE, FLEET_GEN (binaries), FLEET_BENCH_N (default 10000;
# the small row reads a tenth of them).

TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}
GEN=${FLEET_GEN:-$TOP/build/fleet-gen}
N=${FLEET_BENCH_N:-10000}
SMALL=$((N / 10))
TARGET_WALL_SMALL_S=60
TARGET_WALL_S=180
TARGET_RSS_MIB=64

die() {
	echo "fleet bench: $*" >&2
	exit 1
}

[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
[ -x "$GEN" ] || die "no $GEN (make build/fleet-gen)"
[ -x /usr/bin/time ] || die "GNU time is not installed (make deps: time)"
for tool in tar xz jq perl; do
	command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-fleetbench.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/run" "$T/tmpl" "$T/fleet" "$T/out" "$T/tmp"
export TMPDIR="$T/tmp"

# treepeak OUT CMD...: CMD in a process group of its own; every 20 ms the sum of the
# Pss of the group's processes (/proc/PID/smaps_rollup); the largest sum (KiB) to OUT.
cat >"$T/treepeak.pl" <<'EOF'
use strict;
use warnings;
use POSIX ":sys_wait_h";
use Time::HiRes qw(sleep);
my $out = shift;
my $pid = fork() // die "fork: $!";
if (!$pid) { setpgrp(0, 0); exec(@ARGV) or die "exec: $!"; }
my ($peak, $rc) = (0, 1);
while (1) {
	my $sum = 0;
	opendir(my $d, "/proc") or die;
	for my $p (grep { /^\d+$/ } readdir($d)) {
		open(my $s, "<", "/proc/$p/stat") or next;
		my $st = <$s>;
		close($s);
		next unless $st && $st =~ /\)\s+\S+\s+\d+\s+(\d+)/ && $1 == $pid;
		open(my $r, "<", "/proc/$p/smaps_rollup") or next;
		while (<$r>) { $sum += $1 if /^Pss:\s+(\d+)/; }
		close($r);
	}
	closedir($d);
	$peak = $sum if $sum > $peak;
	if (waitpid($pid, WNOHANG) == $pid) { $rc = $? >> 8; last; }
	sleep(0.02);
}
open(my $o, ">", $out) or die;
print $o "$peak\n";
close($o);
exit $rc;
EOF

"$SONDE" run --window 2 --no-progress --out "$T/run" >/dev/null 2>&1 ||
	die "the template run failed"
tar -xJf "$(ls "$T"/run/*.tar.xz)" -C "$T/tmpl" || die "cannot extract the template"
gen_start=$(date +%s.%N)
"$GEN" "$T/tmpl" "$N" "$T/fleet" "$T/truth" "$(nproc)" || die "fleet-gen failed"
gen_s=$(awk -v a="$gen_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
bundle_mib=$(du -sb "$T/fleet" | awk -v n="$N" '{ printf "%.3f", $1 / n / 1048576 }')
raw_mib=$(du -sb "$T/tmpl" | awk '{ printf "%.2f", $1 / 1048576 }')

# measure NAME CMD...: wall, user + sys (children included), largest process's peak
# RSS (GNU time), and the process tree's peak (treepeak)
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$T/$name.time" \
		perl "$T/treepeak.pl" "$T/$name.tree" "$@" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}

busy() {
	local a b
	a=$(head -1 /proc/stat)
	sleep 1
	b=$(head -1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { n = split(a, x); split(b, y); t = 0
		for (i = 2; i <= 9 && i <= n; i++) t += y[i] - x[i]
		idle = (y[5] - x[5]) + (y[6] - x[6]); printf "%.0f", (t > 0 ? 100 * (t - idle) / t : 0) }'
}
busy_before=$(busy)

# the floor: xz over the same bundles, one process
ls "$T"/fleet/*/*.tar.xz >"$T/list"
/usr/bin/time -f '%e %U %S %M' -o "$T/xz.time" sh -c "xargs xz -dc <'$T/list' >/dev/null"
# the first tenth of the hosts, their directories named; then all of them
measure small "$SONDE" fleet $(ls -d "$T"/fleet/* | head -n "$SMALL") --out "$T/out"
cp "$T/out/fleet.json" "$T/small.json"
measure fleet "$SONDE" fleet "$T/fleet" --out "$T/out"
for run in small fleet; do
	[ "$(cat "$T/$run.rc")" = 0 ] ||
		{ sed 's/^/  /' "$T/$run.err" | head -5 >&2; die "sonde fleet exited $(cat "$T/$run.rc")"; }
done

read -r wall user sys rss_kb <"$T/fleet.time"
read -r swall suser ssys srss_kb <"$T/small.time"
read -r xwall xuser xsys _ <"$T/xz.time"
tree_kb=$(cat "$T/fleet.tree")
stree_kb=$(cat "$T/small.tree")
hosts=$(jq '.hosts | length' "$T/out/fleet.json")
refused=$(jq '.refused | length' "$T/out/fleet.json")
future=$(jq '.future_bundles | length' "$T/out/fleet.json")
shosts=$(jq '.hosts | length' "$T/small.json")
want_out=$(grep -c '^outlier' "$T/truth")
found_out=$(jq '(.outliers | length) + .outliers_not_listed' "$T/out/fleet.json")

verdict() { # VALUE OP TARGET
	awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
		pass = (op == "<=") ? (v <= t) : (v < t); print (pass ? "PASS" : "FAIL") }'
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
per_ms() { awk -v w="$1" -v n="$2" 'BEGIN { printf "%.1f", 1000 * w / n }'; }
cpu=$(sum "$user" "$sys")
scpu=$(sum "$suser" "$ssys")
xcpu=$(sum "$xuser" "$xsys")

echo "sonde fleet benchmark: $N generated bundles on $(hostname), $(nproc) CPUs, $(uname -r)"
echo "each bundle: $bundle_mib MiB compressed, $raw_mib MiB extracted (the template: a 2 s run here);"
echo "generated in $gen_s s (not measured); host CPU busy with other work before: $busy_before%"
echo
printf "%-46s %14s %12s  %s\n" "figure" "measured" "target" "result"
printf "%-46s %14s %12s  %s\n" "----------------------------------------------" "--------------" "------------" "------"
printf "%-46s %12.2f s %12s  %s\n" "sonde fleet, $SMALL bundles: wall" "$swall" \
	"<= $TARGET_WALL_SMALL_S s" "$(verdict "$swall" "<=" "$TARGET_WALL_SMALL_S")"
printf "%-46s %12.2f s\n" "  CPU, user + sys (workers included)" "$scpu"
printf "%-46s %11s ms\n" "  per bundle, wall" "$(per_ms "$swall" "$SMALL")"
printf "%-46s %10s MiB %12s  %s\n" "  peak memory, process tree (PSS)" "$(mib "$stree_kb")" \
	"< $TARGET_RSS_MIB MiB" "$(verdict "$(mib "$stree_kb")" "<" "$TARGET_RSS_MIB")"
printf "%-46s %10s MiB\n" "  peak RSS, largest process" "$(mib "$srss_kb")"
printf "%-46s %12.2f s %12s  %s\n" "sonde fleet, $N bundles: wall" "$wall" "<= $TARGET_WALL_S s" \
	"$(verdict "$wall" "<=" "$TARGET_WALL_S")"
printf "%-46s %12.2f s\n" "  CPU, user + sys (workers included)" "$cpu"
printf "%-46s %11s ms\n" "  per bundle, wall" "$(per_ms "$wall" "$N")"
printf "%-46s %13sx\n" "  per bundle, against $SMALL bundles" \
	"$(awk -v a="$wall" -v b="$swall" -v n="$N" -v s="$SMALL" 'BEGIN { printf "%.2f", (a / n) / (b / s) }')"
printf "%-46s %10s MiB %12s  %s\n" "  peak memory, process tree (PSS)" "$(mib "$tree_kb")" \
	"< $TARGET_RSS_MIB MiB" "$(verdict "$(mib "$tree_kb")" "<" "$TARGET_RSS_MIB")"
printf "%-46s %10s MiB\n" "  peak RSS, largest process" "$(mib "$rss_kb")"
printf "%-46s %12.2f s\n" "baseline: xz -dc of the $N bundles, wall" "$xwall"
printf "%-46s %12.2f s\n" "  CPU" "$xcpu"
printf "%-46s %13.1fx\n" "sonde fleet / baseline, wall" "$(awk -v a="$wall" -v b="$xwall" 'BEGIN { print a / b }')"
printf "%-46s %13.1fx\n" "sonde fleet / baseline, CPU" "$(awk -v a="$cpu" -v b="$xcpu" 'BEGIN { print a / b }')"
printf "%-46s %14s\n" "hosts in the summaries (refused, future)" "$shosts, $hosts ($refused, $future)"
printf "%-46s %14s\n" "outliers found (made)" "$found_out ($want_out)"
echo
echo "Peak memory of the process tree: the largest sum of the proportional set sizes of"
echo "sonde and its workers, sampled every 20 ms. Extraction writes the members fleet"
echo "reads to \$TMPDIR (default /tmp) and removes them."
exit 0
