#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a flame graph adds to report.html, and how long it takes: folds and
# renders synthetic profiles (bench/flamegraph_bench.c: a random call tree,
# Zipf counts) of 2,000 and 20,000 distinct stacks, and prints the bytes
# added to the page (graph, script and CSP hash) against the 500 KiB target.
# With a file argument, measures that folded profile instead.
#
# Usage: bench/flamegraph.sh [FOLDED-FILE]
# Knobs: FG_BENCH_STACKS (default "2000 20000"), FG_BENCH_SAMPLES_PER_STACK (10).

TOP=$(cd "$(dirname "$0")/.." && pwd)
TARGET_KIB=500
die() {
	echo "flamegraph bench: $*" >&2
	exit 1
}

cd "$TOP" || die "no tree at $TOP"
make -s sonde >/dev/null || die "make sonde failed"
T=$(mktemp -d /tmp/sonde-fgbench.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
# Linked like the unit tests: the object of every core source but main (not
# whatever build/ holds: an object of a source since removed would clash).
OBJS="$(ls core/*/*.c | sed -e 's#^core/#build/#' -e 's#\.c$#.o#') build/embedded.o"
# shellcheck disable=SC2046,SC2086
cc -O2 -std=gnu11 -D_GNU_SOURCE -Icore -Ibuild -o "$T/bench" bench/flamegraph_bench.c $OBJS \
	$(pkg-config --cflags --libs lua5.4 libcmark libarchive libcurl) -lbpf -lelf -lz -lm ||
	die "building bench/flamegraph_bench.c failed"

printf "%-8s %9s %11s %11s %14s %9s %10s  %s\n" stacks distinct samples "folded B" \
	"html added B" "fold ms" "render ms" "target < ${TARGET_KIB} KiB"
row() {
	awk -v t="$TARGET_KIB" -F'\t' '{ printf "%-8s %9s %11s %11s %14s %9s %10s  %s (%.0f KiB)\n",
		$1, $2, $3, $4, $5, $6, $7, ($5 < t * 1024 ? "PASS" : "FAIL"), $5 / 1024 }'
}
if [ -n "$1" ]; then
	[ -r "$1" ] || die "cannot read $1"
	"$T/bench" - <"$1" | row
	exit 0
fi
for n in ${FG_BENCH_STACKS:-2000 20000}; do
	"$T/bench" "$n" $((n * ${FG_BENCH_SAMPLES_PER_STACK:-10})) | row || die "bench failed"
done
