# SPDX-License-Identifier: GPL-2.0-or-later
# sonde: `make deps` (Debian packages), `make` (the binary), `make check` (tests),
# `make run` (a run on this host), `make bench` (benchmarks).

VERSION := 0.1.0
SHELL := /bin/bash
CC ?= cc
BUILD := build
PKGS := lua5.4 libcmark libarchive

# Debian packages: building, testing (mpstat/iostat for agreement tests, jq and
# prove for the test scripts, xz-utils for tar -J, util-linux for losetup,
# libxml2-utils for xmllint: the flame graph SVG must parse as XML).
DEB_PKGS := build-essential pkg-config liblua5.4-dev libcmark-dev libarchive-dev \
	    xz-utils sysstat jq perl util-linux mount procps time clang libclang-rt-14-dev \
	    llvm libbpf-dev bpftool libelf-dev zlib1g-dev libxml2-utils

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
	  -fstack-protector-strong -D_FORTIFY_SOURCE=2 -D_GNU_SOURCE \
	  -DSONDE_VERSION='"$(VERSION)"' -Icore -I$(BUILD)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lbpf -lelf -lz -lm

# BPF tools: bpf/<tool>.bpf.c -> build/bpf/<tool>.bpf.o -> build/bpf/<tool>.skel.h,
# compiled once for every kernel (CO-RE) against the committed bpf/vmlinux.h
# (`make vmlinux` regenerates it from this host's BTF).
BPF_CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(BPF_SRCS))

CORE_SRCS := $(filter-out core/main.c,$(wildcard core/*.c))
CORE_OBJS := $(patsubst core/%.c,$(BUILD)/%.o,$(CORE_SRCS)) $(BUILD)/embedded.o
EMBED_FILES := $(sort $(wildcard checks/*/*.lua methodologies/*.lua reports/*))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
SCRIPT_TESTS = $(sort $(wildcard tests/*/*.t))

.PHONY: all deps check unit run bench fuzz fuzz-build clean vmlinux
all: sonde

sonde: $(BUILD)/main.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: core/%.c $(wildcard core/*.h) | $(BUILD)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Ibpf -c -o $@ $<

# A tool's C side includes its skeleton (a static pattern rule: the generic
# one above would otherwise win, the skeleton not existing yet).
TRACE_OBJS := $(patsubst core/trace_%.c,$(BUILD)/trace_%.o,$(wildcard core/trace_*.c))
$(TRACE_OBJS): $(BUILD)/trace_%.o: core/trace_%.c $(BUILD)/bpf/%.skel.h bpf/%.h $(wildcard core/*.h) | $(BUILD)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Ibpf -I$(BUILD)/bpf -c -o $@ $<

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/%.h bpf/sonde.bpf.h bpf/vmlinux.h
	@mkdir -p $(BUILD)/bpf
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Ibpf -c $< -o $@.tmp
	llvm-strip -g $@.tmp -o $@
	rm -f $@.tmp

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

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

# libFuzzer targets (tests/fuzz/fuzz_*.c) over the parsers and readers of
# untrusted input; `make fuzz` runs each for FUZZ_SECONDS from the committed
# seeds (tests/fuzz/corpus/<target>), new inputs go to build/fuzz/ only.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS = -g -O1 -std=gnu11 -D_GNU_SOURCE -DSONDE_VERSION='"$(VERSION)"' -Icore \
	      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := parse capture json_read bundle_verify
fuzz_parse_SRCS := core/parse.c
fuzz_capture_SRCS := core/capture.c core/file.c
fuzz_json_read_SRCS := core/json_read.c core/json.c
fuzz_bundle_verify_SRCS := core/bundle_verify.c core/bundle.c core/sha256.c core/json_read.c \
	core/json.c core/file.c
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard core/*.c core/*.h)
	@mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(fuzz_$*_SRCS) -larchive -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus_$$t; \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=1024 \
			-artifact_prefix=$(BUILD)/fuzz/crash-$$t- -print_final_stats=1 \
			$(BUILD)/fuzz/corpus_$$t tests/fuzz/corpus/$$t 2>&1 | \
			grep -E '^(stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|Done)' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

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
