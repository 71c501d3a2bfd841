#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: what a local user's crafted program makes a root sonde read (issue 27,
# item 6). Three busy programs built without frame pointers (so their samples
# are unwound with CFI), run as nobody, each a sparse file whose headers lie:
#   eh_frame:  its .eh_frame section claims 2 GiB (libdw read it whole)
#   dbg_frame: built with -g and no unwind tables, its .debug_frame claims
#              2 GiB (libdw's dwarf_begin_elf read every .debug_* whole)
#   sections:  its ELF header claims 8 million sections (libelf's elf_begin
#              allocated an entry for each: 2 GB, in the symbolizer too)
# Each file is a few KB on disk. Before the bounds, sonde's peak RSS passed
# 2 GiB; now it stays under 512 MiB, the files are not handed to libdw and
# the profile says so (unwind_tables_too_large, files_too_large).
. tests/lib/tap.sh
. tests/lib/unwind.sh

unwind_needs jq tar xz cc setpriv python3
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 ||
	skip_all "GNU time is not installed (make deps: time)"

T=$(mktemp -d /tmp/sonde-live-unwind-bounds.XXXXXX)
[ -n "$KEEP" ] && echo "# keeping $T"
tap_kill_at_exit
chmod 755 "$T"

unwind_chain_c "$T/chain.c"
cc -O2 -fomit-frame-pointer -o "$T/eh_frame" "$T/chain.c" &&
	cc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-o "$T/dbg_frame" "$T/chain.c" &&
	cp "$T/eh_frame" "$T/sections" || skip_all "cc could not build the test programs"

# lie.py FILE SECTION BYTES: the section's sh_size becomes BYTES, the file as long (sparse);
# lie.py FILE --sections N: the header claims N sections (e_shnum 0, section 0's sh_size)
cat >"$T/lie.py" <<'EOF'
import os, struct, sys
path, what, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, "r+b") as f:
    eh = f.read(64)
    assert eh[:4] == b"\x7fELF" and eh[4] == 2 and eh[5] == 1, "ELF64 little endian"
    shoff = struct.unpack_from("<Q", eh, 40)[0]
    shnum, shstrndx = struct.unpack_from("<HH", eh, 60)
    size = os.fstat(f.fileno()).st_size
    if what == "--sections":
        at = (size + 4095) & ~4095
        f.seek(40); f.write(struct.pack("<Q", at))
        f.seek(60); f.write(struct.pack("<HH", 0, 0))
        f.seek(at); f.write(struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, n, 0, 0, 0, 0))
        f.truncate(at + 64 * n)
        sys.exit(0)
    f.seek(shoff + 64 * shstrndx + 24)
    names = struct.unpack("<Q", f.read(8))[0]
    for i in range(shnum):
        f.seek(shoff + 64 * i)
        sh = f.read(64)
        f.seek(names + struct.unpack_from("<I", sh, 0)[0])
        if f.read(len(what) + 1) == what.encode() + b"\0":
            off = struct.unpack_from("<Q", sh, 24)[0]
            f.seek(shoff + 64 * i + 32)
            f.write(struct.pack("<Q", n))
            f.truncate(max(size, off + n))
            sys.exit(0)
sys.exit("no section " + what)
EOF
python3 "$T/lie.py" "$T/eh_frame" .eh_frame $((2 << 30)) &&
	python3 "$T/lie.py" "$T/dbg_frame" .debug_frame $((2 << 30)) &&
	python3 "$T/lie.py" "$T/sections" --sections 8000000 || skip_all "could not rewrite the test programs"
diag "on disk: $(du -k "$T/eh_frame" "$T/dbg_frame" "$T/sections" | awk '{ printf "%s KB %s, ", $1, $2 }')"

# local users' programs: nobody's, each in its own process group
declare -A PID
for p in eh_frame dbg_frame sections; do
	unwind_as_nobody "$T/$p"
	PID[$p]=$UNWIND_PID
done
sleep 0.5
for p in eh_frame dbg_frame sections; do
	kill -0 "${PID[$p]}" 2>/dev/null || skip_all "$p did not start as nobody"
done

mkdir "$T/out" "$T/x"
/usr/bin/time -f %M -o "$T/rss" "$SONDE" run --window 3 --check workload.cpu-why --no-drilldown \
	--timeout 120 --out "$T/out" --no-progress --json >"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run exits 0 beside the crafted programs"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
rss=$(tail -1 "$T/rss")
ok "sonde's peak RSS stays under 512 MiB: ${rss} KiB (the lies claim 2 GiB each)" test "${rss:-0}" -gt 0 -a "${rss:-0}" -lt 524288
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/x" raw 2>/dev/null
P=$T/x/raw/bpf/profile.json
status=$(jq -r .status "$P" 2>/dev/null)
if [ "$status" != ok ] || [ "$(jq -r .data.cfi.status "$P")" != on ]; then
	skip "the causes" "the profile or its CFI unwinding did not run: $(jq -r '.reason // .data.cfi.status' "$P" 2>/dev/null)"
	done_testing
	exit
fi
diag "cfi: $(jq -c '.data.cfi | {unwound, stops, files_too_large}' "$P")"
samples() { jq --argjson p "$1" '[.data.stacks[] | select(.tgid == $p) | .count] | add // 0' "$P"; }
for p in eh_frame dbg_frame; do
	n=$(samples "${PID[$p]}")
	ok "$p was sampled ($n)" test "$n" -ge 5
	ok "$p: not handed to libdw, named as unwind_tables_too_large" jq -e --arg f "$T/$p" \
		'[.data.unknown_causes[] | select(.cause == "unwind_tables_too_large" and .where == $f
		and (.remedy | test("512 MiB")))] | length == 1' "$P"
done
ok "the files refused are counted" jq -e '.data.cfi.files_too_large >= 2
	and .data.cfi.stops.tables_too_large >= 1' "$P"
n=$(samples "${PID[sections]}")
ok "sections was sampled ($n), its frames unknown: its file unreadable" jq -e --argjson p "${PID[sections]}" \
	'[.data.stacks[] | select(.tgid == $p) | .folded | test("sonde_leaf")] | length > 0 and all(. == false)' "$P"
done_testing
