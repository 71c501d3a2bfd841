# SPDX-License-Identifier: GPL-2.0-or-later
# sonde: `make deps` (Debian packages), `make` (the binary), `make check` (tests),
# `make run` (a run on this host), `make bench` (benchmarks).

VERSION := 0.1.0
CC ?= cc
BUILD := build
PKGS := lua5.4 libcmark libarchive

# Debian packages: building, testing (mpstat/iostat for agreement tests, jq and
# prove for the test scripts, xz-utils for tar -J, util-linux for losetup).
DEB_PKGS := build-essential pkg-config liblua5.4-dev libcmark-dev libarchive-dev \
	    xz-utils sysstat jq perl util-linux mount procps time

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
	  -fstack-protector-strong -D_FORTIFY_SOURCE=2 -D_GNU_SOURCE \
	  -DSONDE_VERSION='"$(VERSION)"' -Icore -I$(BUILD)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lm

CORE_SRCS := $(filter-out core/main.c,$(wildcard core/*.c))
CORE_OBJS := $(patsubst core/%.c,$(BUILD)/%.o,$(CORE_SRCS)) $(BUILD)/embedded.o
EMBED_FILES := $(sort $(wildcard checks/*/*.lua methodologies/*.lua reports/*))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
SCRIPT_TESTS = $(sort $(wildcard tests/*/*.t))

.PHONY: all deps check unit run bench clean
all: sonde

sonde: $(BUILD)/main.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: core/%.c $(wildcard core/*.h) | $(BUILD)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# checks/, methodologies/ and reports/ are compiled into the binary, so the
# single file works anywhere.
$(BUILD)/embedgen: core/tools/embedgen.c | $(BUILD)
	$(CC) -O2 -o $@ $<
$(BUILD)/embedded.c: $(BUILD)/embedgen $(EMBED_FILES)
	$(BUILD)/embedgen $(EMBED_FILES) > $@.tmp && mv $@.tmp $@
$(BUILD)/embedded.o: $(BUILD)/embedded.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJS) tests/unit/tap.h | $(BUILD)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $< $(CORE_OBJS) $(LDLIBS)

$(BUILD):
	mkdir -p $(BUILD)

unit: $(UNIT_TESTS)

# The whole suite, as TAP through prove; its last line is the summary.
check: sonde $(UNIT_TESTS)
	prove --exec '' $(UNIT_TESTS) $(SCRIPT_TESTS)

run: sonde
	./sonde run

bench: sonde
	bench/run-bench.sh

deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "all build and test packages are installed"; fi

clean:
	rm -rf $(BUILD) sonde
