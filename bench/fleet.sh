#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`, part 2: sonde fleet over 1,000 generated bundles (build/fleet-gen
# makes them from one real bundle of this host, each the template's size), against
# the targets:
#   wall time for 1,000 bundles        <= 60 s
#   peak RSS (sonde and its workers)   <  64 MiB, and about the same for 100 bundles
# and, in the same invocation, the floor any reader pays: xz decompressing the
# same bundles in one process (the ratio says what sonde fleet adds: extraction
# under limits, verification against the manifest, the summaries).
# Prints a table with PASS/FAIL per target; exits non-zero only when it cannot run.
#
# Knobs (environment): SONDE, FLEET_GEN (binaries), FLEET_BENCH_N (default 1000).

TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}
GEN=${FLEET_GEN:-$TOP/build/fleet-gen}
N=${FLEET_BENCH_N:-1000}
SMALL=$((N / 10))
TARGET_WALL_S=60
TARGET_RSS_MIB=64

die() {
	echo "fleet bench: $*" >&2
	exit 1
}

[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
[ -x "$GEN" ] || die "no $GEN (make build/fleet-gen)"
[ -x /usr/bin/time ] || die "GNU time is not installed (make deps: time)"
for tool in tar xz jq; do
	command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-fleetbench.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/run" "$T/tmpl" "$T/fleet" "$T/out" "$T/tmp"
export TMPDIR="$T/tmp"

"$SONDE" run --window 2 --no-progress --out "$T/run" >/dev/null 2>&1 ||
	die "the template run failed"
tar -xJf "$(ls "$T"/run/*.tar.xz)" -C "$T/tmpl" || die "cannot extract the template"
gen_start=$(date +%s.%N)
"$GEN" "$T/tmpl" "$N" "$T/fleet" "$T/truth" "$(nproc)" || die "fleet-gen failed"
gen_s=$(awk -v a="$gen_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
bundle_mib=$(du -sb "$T/fleet" | awk -v n="$N" '{ printf "%.2f", $1 / n / 1048576 }')
raw_mib=$(du -sb "$T/tmpl" | awk '{ printf "%.2f", $1 / 1048576 }')

# measure NAME CMD...: wall, user + sys (children included), peak RSS, via GNU time
measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$T/$name.time" "$@" >"$T/$name.out" 2>"$T/$name.err"
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

# the same with the extraction on a tmpfs (TMPDIR=/dev/shm): what the file system costs
SHM=""
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SHM=$(mktemp -d /dev/shm/sonde-fleetbench.XXXXXX)
	trap 'rm -rf "$T" "$SHM"' EXIT
fi
# the floor: xz over the same bundles, one process
ls "$T"/fleet/*/*.tar.xz >"$T/list"
measure xz sh -c "xargs xz -dc <'$T/list' >/dev/null"
# the first tenth of the hosts, their directories named
measure small "$SONDE" fleet $(ls -d "$T"/fleet/* | head -n "$SMALL") --out "$T/out"
measure fleet "$SONDE" fleet "$T/fleet" --out "$T/out"
[ -n "$SHM" ] && TMPDIR=$SHM measure shm "$SONDE" fleet "$T/fleet" --out "$T/out"
[ "$(cat "$T/fleet.rc")" = 0 ] || { sed 's/^/  /' "$T/fleet.err" | head -5 >&2; die "sonde fleet exited $(cat "$T/fleet.rc")"; }

read -r wall user sys rss_kb <"$T/fleet.time"
read -r swall suser ssys srss_kb <"$T/small.time"
read -r xwall xuser xsys _ <"$T/xz.time"
hosts=$(jq '.hosts | length' "$T/out/fleet.json")
refused=$(jq '.refused | length' "$T/out/fleet.json")
want_out=$(grep -c '^outlier' "$T/truth")
found_out=$(jq '.outliers | length' "$T/out/fleet.json")

verdict() { # VALUE OP TARGET
	awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
		pass = (op == "<=") ? (v <= t) : (v < t); print (pass ? "PASS" : "FAIL") }'
}
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
xcpu=$(awk -v u="$xuser" -v s="$xsys" 'BEGIN { printf "%.2f", u + s }')
rss=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
srss=$(awk -v k="$srss_kb" 'BEGIN { printf "%.1f", k / 1024 }')

echo "sonde fleet benchmark: $N generated bundles on $(hostname), $(nproc) CPUs, $(uname -r)"
echo "each bundle: $bundle_mib MiB compressed, $raw_mib MiB extracted (the template: a 2 s run here);"
echo "generated in $gen_s s (not measured); host CPU busy with other work before: $busy_before%"
echo
printf "%-44s %14s %12s  %s\n" "figure" "measured" "target" "result"
printf "%-44s %14s %12s  %s\n" "--------------------------------------------" "--------------" "------------" "------"
printf "%-44s %12.2f s %12s  %s\n" "sonde fleet, $N bundles: wall" "$wall" "<= $TARGET_WALL_S s" \
	"$(verdict "$wall" "<=" "$TARGET_WALL_S")"
printf "%-44s %12.2f s\n" "  CPU, user + sys (workers included)" "$cpu"
printf "%-44s %12.1f ms\n" "  per bundle, wall" "$(awk -v w="$wall" -v n="$N" 'BEGIN { print 1000 * w / n }')"
printf "%-44s %10.1f MiB %12s  %s\n" "  peak RSS" "$rss" "< $TARGET_RSS_MIB MiB" \
	"$(verdict "$rss" "<" "$TARGET_RSS_MIB")"
printf "%-44s %10.1f MiB %12s\n" "  peak RSS with $SMALL bundles" "$srss" ""
printf "%-44s %12.2f s\n" "  wall with $SMALL bundles" "$swall"
if [ -n "$SHM" ]; then
	read -r mwall muser msys _ <"$T/shm.time"
	printf "%-44s %12.2f s\n" "  the same, extracting to a tmpfs: wall" "$mwall"
	printf "%-44s %12.2f s\n" "    CPU" "$(awk -v u="$muser" -v s="$msys" 'BEGIN { print u + s }')"
fi
printf "%-44s %12.2f s\n" "baseline: xz -dc of the same bundles, wall" "$xwall"
printf "%-44s %12.2f s\n" "  CPU" "$xcpu"
printf "%-44s %13.1fx\n" "sonde fleet / baseline, wall" "$(awk -v a="$wall" -v b="$xwall" 'BEGIN { print a / b }')"
printf "%-44s %13.1fx\n" "sonde fleet / baseline, CPU" "$(awk -v a="$cpu" -v b="$xcpu" 'BEGIN { print a / b }')"
printf "%-44s %14s\n" "hosts in the summary (refused)" "$hosts ($refused)"
printf "%-44s %14s\n" "outliers found (made)" "$found_out ($want_out)"
echo
echo "Peak RSS is GNU time's: the largest of sonde and the workers it waited for."
echo "Extraction writes every member to \$TMPDIR (default /tmp) and removes it: on a"
echo "disk file system that is most of the system time (the tmpfs row)."
exit 0
