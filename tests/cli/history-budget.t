#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Across runs, what reading the earlier bundles may cost. A decompression bomb
# of about 1 MB (400 members of 16 MiB of zeros, then a manifest that claims this
# host) in --out, named newer than the one honest earlier bundle:
#
# 1. 256 hard links to it (one file, 256 names) with --timeout 60: the run
#    reads the bomb's manifest once, within its budget, says the other names are
#    the same file, still uses the honest bundle, and writes its bundle. (Before,
#    each name was extracted whole, one after the other, until the deadline killed
#    the run: no bundle.)
# 2. Eight copies of it (eight files): the run stops reading within its budget
#    (20 s), skips the rest saying so, and writes its bundle in time.
. tests/lib/tap.sh

for tool in jq python3 tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-cli-history-budget.XXXXXX)
# What an extraction writes goes to memory, not to a disk the other tests share.
SCRATCH=$T
[ -d /dev/shm ] && [ -w /dev/shm ] && SCRATCH=$(mktemp -d /dev/shm/sonde-history-budget.XXXXXX)
cleanup() {
	rm -rf "$T"
	[ "$SCRATCH" = "$T" ] || rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/out" "$T/probe"
CHECK=use.filesystem-runout # it declares the history collector
HOST=$(cat /proc/sys/kernel/hostname | sed 's/[^A-Za-z0-9.-]/_/g')

# The honest earlier bundle: a run of this host, by this user.
"$SONDE" run --window 1 --interval 1 --no-bpf --no-perf --no-progress --check $CHECK --out "$T/probe" \
	>/dev/null 2>&1
HONEST=$(ls "$T/probe"/sonde-*.tar.xz 2>/dev/null | head -1)
[ -n "$HONEST" ] || skip_all "sonde run wrote no bundle here"
tar -xJOf "$HONEST" manifest.json >"$T/manifest.json" || skip_all "cannot read the manifest of $HONEST"
[ "$(jq -r '.host.host_id // empty' "$T/manifest.json")" ] ||
	skip_all "this host has no machine-id: its bundles are matched by hostname only"
mv "$HONEST" "$T/out/"
HONEST=$(basename "$HONEST")

# bomb OUT: 400 members raw/zNNNN.cap of 16 MiB of zeros, each an xz stream of its own (the 16 MiB
# compressed once), then manifest.json: this host's manifest, as the last member
python3 - "$T/bomb.tar.xz" "$T/manifest.json" <<'EOF' || skip_all "python3 could not make the bomb"
import lzma, sys, tarfile
out, manifest = sys.argv[1], open(sys.argv[2], "rb").read()
size = 16 << 20
zeros = lzma.compress(bytes(size), preset=0)
def header(name, n):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mode = n, 0o600
    return ti.tobuf(format=tarfile.USTAR_FORMAT)
with open(out, "wb") as f:
    for i in range(400):
        f.write(lzma.compress(header("raw/z%04d.cap" % i, size), preset=0))
        f.write(zeros)
    pad = bytes((512 - len(manifest) % 512) % 512)
    f.write(lzma.compress(header("manifest.json", len(manifest)) + manifest + pad + bytes(1024), preset=0))
EOF
diag "the bomb: $(stat -c %s "$T/bomb.tar.xz") bytes, 6.25 GiB of members"
chmod 0600 "$T/bomb.tar.xz"

# names newer than the honest bundle's: sonde-HOST-2099MMDDTHHMMSSZ.tar.xz
future() { printf 'sonde-%s-2099%02d%02dT%02d0000Z.tar.xz' "$HOST" $((($1 / 28 / 24) % 12 + 1)) $((($1 / 24) % 28 + 1)) $(($1 % 24)); }

# audit TIMEOUT DIR: a run over --out that must exit 0 and write its bundle (NEW, in took s), whose
# raw/history.cap and report.md go to $T/DIR
audit() {
	local start rc
	start=$(date +%s)
	TMPDIR=$SCRATCH "$SONDE" run --window 1 --interval 1 --no-bpf --no-perf --no-progress --timeout "$1" \
		--check $CHECK --out "$T/out" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	took=$(($(date +%s) - start))
	is "$rc" 0 "--timeout $1: the run exits 0 (in $took s)"
	[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
	NEW=$(sed -n 's/^Bundle: //p' "$T/stdout")
	ok "it wrote its bundle" test -n "$NEW" -a -f "$NEW"
	mkdir -p "$T/$2"
	tar -xJf "$NEW" -C "$T/$2" raw/history.cap report.md 2>/dev/null
}

# ---- 1. 256 hard links to one bomb ----
cp "$T/bomb.tar.xz" "$T/out/$(future 0)"
for i in $(seq 1 255); do ln "$T/out/$(future 0)" "$T/out/$(future "$i")"; done
is "$(stat -c %h "$T/out/$(future 0)")" 256 "one bomb under 256 names"
audit 60 x1
H=$T/x1/raw/history.cap
is "$(grep -c '^skipped sonde-.*: the same file as .* (a hard link)$' "$H")" 255 \
	"255 names skipped as the same file as one already looked at"
ok "the bomb's manifest was looked for once, within the budget" \
	test "$(grep -c "^skipped $(future 255): no readable manifest: " "$H")" -eq 1
ok "the honest earlier bundle is still used" grep -qxF "used $HONEST (same machine-id)" "$H"
ok "the record says the budget" grep -q '^trusted: files owned by uid [0-9]*, not writable by others; budget: [0-9.]* s, 64 MiB extracted in all$' "$H"
ok "and what was spent" grep -q '^spent [0-9.]* s, [0-9]* KiB extracted$' "$H"
rm -f "$NEW" "$T/out"/sonde-"$HOST"-2099*.tar.xz
ls "$SCRATCH" | grep -q . && diag "left in the scratch directory: $(ls "$SCRATCH")"
is "$(ls -A "$SCRATCH" | grep -c '^\.sonde-open-')" 0 "no extraction left behind"

# ---- 2. eight bombs (eight files) ----
for i in $(seq 0 7); do cp "$T/bomb.tar.xz" "$T/out/$(future "$i")"; done
audit 300 x2
ok "within the 20 s budget and the window ($took s)" test "$took" -le 40
H=$T/x2/raw/history.cap
n=$(grep -c '^skipped sonde-.*: the history budget ran out (20 s, 64 MiB extracted in all)$' "$H")
diag "$n skipped for the budget; $(grep '^spent' "$H")"
ok "the bundles past the budget are skipped, saying so ($n)" test "$n" -ge 1
ok "the honest one among them" grep -qxF "skipped $HONEST: the history budget ran out (20 s, 64 MiB extracted in all)" "$H"
ok "report.md counts them" grep -q "earlier bundles in --out (raw/history.cap): 0 used, 9 skipped, none refused" "$T/x2/report.md"

done_testing
