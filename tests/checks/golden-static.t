#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The golden tests (golden.t) against the static build (make static,
# build/static/sonde; STATIC=path for another): both builds must judge every
# case alike. `make check` builds the static binary first, so both are tested;
# run alone without it, this file skips with the reason.
TOP=${TOP:-$PWD}
STATIC=${STATIC:-$TOP/build/static/sonde}
if [ ! -x "$STATIC" ]; then
	echo "1..0 # SKIP no static binary at $STATIC (make static)"
	exit 0
fi
SONDE=$STATIC exec bash "$TOP/tests/checks/golden.t"
