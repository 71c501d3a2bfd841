#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: the static build (make static, build/static/sonde) against the
# dynamic one (./sonde): the file's size (as it is, and xz -9 as it travels
# in a ticket), the shared libraries each maps, and the start-up: wall time
# and peak RSS of `sonde --version` (exec, relocations, libc start) and of
# `sonde list --json` (the Lua catalog of every embedded check loaded too),
# medians of BENCH_REPS (default 50) runs, alternating. Exits 0 either way
# (a benchmark); says so and stops when the static binary is not built.

BENCH_NAME=static
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-50}
STATIC=${STATIC:-$TOP/build/static/sonde}
bench_cleanup() { rm -rf "$T"; }
bench_start xz awk ldd
[ -x "$STATIC" ] || { echo "$BENCH_NAME: no $STATIC (make static): nothing measured"; exit 0; }

# one BIN ARGS...: "wall_us peak_rss_kib" of one run
one() {
	local t0 t1 rss
	t0=$(date +%s%N)
	rss=$(command time -f %M "$@" 2>&1 >/dev/null | tail -1)
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000)) $rss"
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }

for ((i = 0; i < REPS; i++)); do
	one "$SONDE" --version >>"$T/dv"
	one "$STATIC" --version >>"$T/sv"
	one "$SONDE" list --json >>"$T/dl"
	one "$STATIC" list --json >>"$T/sl"
done
# `time`'s own fork and exec are in both columns alike; its wall is measured around it.
dsize=$(stat -c %s "$SONDE") ssize=$(stat -c %s "$STATIC")
dxz=$(xz -9 -T1 -c "$SONDE" | wc -c) sxz=$(xz -9 -T1 -c "$STATIC" | wc -c)
dlibs=$(ldd "$SONDE" | grep -c '=>')
echo "the static build against the dynamic one, median of $REPS runs each, on $(nproc) CPUs:"
printf "%-36s %14s %14s\n" "figure" "dynamic" "static"
printf "%-36s %11.2f MB %11.2f MB\n" "binary size" "$(div "$dsize" 1e6)" \
	"$(div "$ssize" 1e6)"
printf "%-36s %11.2f MB %11.2f MB\n" "binary size, xz -9" "$(div "$dxz" 1e6)" \
	"$(div "$sxz" 1e6)"
printf "%-36s %14s %14s\n" "shared libraries mapped" "$dlibs" 0
for w in v:--version l:"list --json"; do
	k=${w%%:*} what=${w#*:}
	dw=$(cut -d' ' -f1 "$T/d$k" | median) sw=$(cut -d' ' -f1 "$T/s$k" | median)
	dr=$(cut -d' ' -f2 "$T/d$k" | median) sr=$(cut -d' ' -f2 "$T/s$k" | median)
	printf "%-36s %11.1f ms %11.1f ms\n" "sonde $what, wall" "$(div "$dw" 1000)" \
		"$(div "$sw" 1000)"
	printf "%-36s %10.1f MiB %10.1f MiB\n" "sonde $what, peak RSS" "$(div "$dr" 1024)" \
		"$(div "$sr" 1024)"
done
