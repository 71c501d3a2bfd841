# SPDX-License-Identifier: GPL-2.0-or-later
# sonde: `make deps` (Debian packages), `make` (the binary), `make check` (tests),
# `make run` (a run on this host), `make bench` (benchmarks), `make install`,
# `make uninstall`, `make deb` (build-aux/install.mk), `make static` (one
# statically linked binary to hand over, build-aux/static.mk), `make rpm`
# (an RPM of it, build-aux/rpm.mk).

VERSION := 0.1.0
SHELL := /bin/bash
CC ?= cc
BUILD := build
# libcurl gives its header only: core/bundle/upload.c opens the library when
# an upload starts (linked, its 24 libraries cost every run 5 MB of RSS).
PKGS_LINKED := lua5.4 libcmark libarchive libmd
PKGS := $(PKGS_LINKED) libcurl

# Debian packages: building, testing (mpstat/iostat for agreement tests, jq and
# prove for the test scripts, xz-utils for tar -J, util-linux for losetup,
# libxml2-utils for xmllint: the flame graph SVG must parse as XML; lua-check
# for luacheck over checks/, methodologies/ and ranking/; nftables for the
# conntrack scenario, e2fsprogs for the file system ones, python3 for the
# scenarios' sockets and threads; libcurl for run --upload;
# prometheus, prometheus-node-exporter, ansible-core, openssh-server, python3 and
# openssl for the fleet tests: the Prometheus round trip, the playbook over ssh,
# the upload server); libmd-dev for SHA-256; libdw-dev (elfutils) for CFI unwinding
# of user stacks copied by the profile (core/perf/unwind.c); installing (build-aux/install.mk: scdoc for the man pages,
# man-db to read them, bash-completion, zsh and tmux (a real TAB) to test completion,
# debhelper, dpkg-dev, fakeroot and lintian for `make deb`, debootstrap for the
# fresh-machine test); redis-server and redis-tools for `make bench`'s workload
# under observation); systemd (systemd-analyze) and strace for the audit unit's
# sandbox tests); runc for the containers' live tests (real OCI containers, cgroup v1), and
# libcap2-bin (capsh) to drop capabilities where sonde runs as a container would;
# python3-yaml to check contrib/kubernetes's manifests; cmake, libzstd-dev and
# liblzma-dev for `make static` (libarchive built from Debian's source, the static
# archives it links); rpm for `make rpm` (rpmbuild) and its test (rpm --root).
DEB_PKGS := build-essential pkg-config liblua5.4-dev libcmark-dev libarchive-dev \
	    xz-utils sysstat jq perl util-linux mount procps time clang libclang-rt-14-dev \
	    llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev iproute2 libxml2-utils lua-check \
	    nftables e2fsprogs \
	    libcurl4-openssl-dev prometheus prometheus-node-exporter ansible-core \
	    openssh-server openssh-client python3 openssl \
	    scdoc man-db bash-completion zsh tmux debhelper dpkg-dev fakeroot lintian debootstrap \
	    libmd-dev redis-server redis-tools chromium systemd strace runc libcap2-bin \
	    python3-yaml cmake libzstd-dev liblzma-dev rpm

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
	  -fstack-protector-strong -D_FORTIFY_SOURCE=2 -D_GNU_SOURCE \
	  -DSONDE_VERSION='"$(VERSION)"' -Icore -I$(BUILD)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS_LINKED) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lbpf -ldw -lelf -lz -lpthread -lm

# BPF tools: the tools of the table core/trace/tools.h (one TRACE_TOOL(<tool>)
# line each, which the runner and tests/layout/bpf-tools.t read too), each
# bpf/<tool>.bpf.c -> build/bpf/<tool>.bpf.o -> build/bpf/<tool>.skel.h, which
# core/trace/<tool>.c includes. Compiled once for every kernel (CO-RE) against
# the committed bpf/vmlinux.h (`make vmlinux` regenerates it from this host's BTF).
BPF_CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')
TRACE_TOOLS := $(shell sed -n 's/^TRACE_TOOL(\([a-z0-9_]*\))$$/\1/p' core/trace/tools.h)
# BPF programs that are not tools of the window: the task iterator the pids
# collector samples (bpf/tasks.bpf.c, core/trace/tasks.c). tests/layout/bpf-tools.t reads this line.
BPF_ITERS := tasks
BPF_PROGS := $(TRACE_TOOLS) $(BPF_ITERS)
BPF_SKELS := $(BPF_PROGS:%=$(BUILD)/bpf/%.skel.h)
# kept (not removed as intermediates): `make check`'s last line stays prove's summary
.SECONDARY: $(BPF_PROGS:%=$(BUILD)/bpf/%.bpf.o) $(BUILD)/bpf/profile_nobtf.bpf.o

# core/<layer>/*.c (docs/architecture.md); main.c alone at the top. Objects
# mirror the tree under build/; -MMD -MP writes each object's header
# dependencies beside it, so a header change rebuilds what includes it.
LAYERS := util collect perf trace lua report bundle run cmd
CORE_SRCS := $(foreach l,$(LAYERS),$(wildcard core/$(l)/*.c))
CORE_OBJS := $(patsubst core/%.c,$(BUILD)/%.o,$(CORE_SRCS)) $(BUILD)/embedded.o
# The report's assets (stylesheet, flame graph script) live beside its renderers.
EMBED_FILES := $(sort $(wildcard checks/*/*.lua methodologies/*.lua ranking/*.lua \
				 core/report/*.css core/report/*.js))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
SCRIPT_TESTS = $(sort $(wildcard tests/*/*.t))
DEPFLAGS = -MMD -MP

.PHONY: FORCE all deps check unit run bench bench-syscount bench-fslatency bench-unwind bench-static bench-tools bench-cpus fuzz fuzz-build clean vmlinux
all: sonde

sonde: $(BUILD)/main.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -Ibpf -c -o $@ $<

# A tool's C side includes its skeleton, generated first (an order-only
# prerequisite: -MMD records the real dependency once it has been built).
TOOL_OBJS := $(BPF_PROGS:%=$(BUILD)/trace/%.o)
$(TOOL_OBJS): $(BUILD)/trace/%.o: core/trace/%.c | $(BUILD)/bpf/%.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -Ibpf -I$(BUILD)/bpf -c -o $@ $<

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/%.h bpf/sonde.bpf.h bpf/vmlinux.h
	@mkdir -p $(BUILD)/bpf
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Ibpf -c $< -o $@.tmp
	llvm-strip -g $@.tmp -o $@
	rm -f $@.tmp

# The profile again without CO-RE, for kernels without BTF (bpf/profile.bpf.c
# says what it gives up): the UAPI headers of the build host instead of vmlinux.h.
$(BUILD)/bpf/profile_nobtf.bpf.o: bpf/profile.bpf.c bpf/profile.h bpf/sonde.bpf.h
	@mkdir -p $(BUILD)/bpf
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -DPROFILE_NO_BTF -Wall -Ibpf \
		-I/usr/include/$(shell $(CC) -print-multiarch) -c $< -o $@.tmp
	llvm-strip -g $@.tmp -o $@
	rm -f $@.tmp
$(BUILD)/trace/profile.o: | $(BUILD)/bpf/profile_nobtf.skel.h

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

# Syscall and errno names for syscount, from the build host's <asm/unistd.h>
# and <linux/errno.h> (the numbers differ by architecture; one level of alias,
# like arm64's __NR_fcntl __NR3264_fcntl, is resolved; unknown numbers stay numbers).
$(BUILD)/syscall_names.h: | $(BUILD)
	{ echo '/* generated by the Makefile from <asm/unistd.h> and <linux/errno.h> ($(shell uname -m)) */'; \
	  echo '#define SYSCALL_NAMES_ARCH "$(shell uname -m)"'; \
	  printf '#include <asm/unistd.h>\n#include <linux/errno.h>\n' | $(CC) -E -dM - | awk ' \
		$$1 == "#define" && NF == 3 { v[$$2] = $$3 } \
		function num(x) { if (x !~ /^[0-9]+$$/ && (x in v)) x = v[x]; return x ~ /^[0-9]+$$/ ? x : "" } \
		END { print "static const char *const syscall_names[] = {"; \
		      for (k in v) if (k ~ /^__NR_/ && k !~ /^__NR_(syscalls|arch_specific_syscall)$$/ && (n = num(v[k])) != "") printf "\t[%s] = \"%s\",\n", n, substr(k, 6) | "sort -t[ -k2 -n"; \
		      close("sort -t[ -k2 -n"); print "};"; \
		      print "static const char *const errno_names[] = {"; \
		      for (k in v) if (k ~ /^E[A-Z0-9]+$$/ && v[k] ~ /^[0-9]+$$/) printf "\t[%s] = \"%s\",\n", v[k], k | "sort -t[ -k2 -n"; \
		      close("sort -t[ -k2 -n"); print "};" }'; \
	} > $@.tmp && mv $@.tmp $@
$(BUILD)/trace/syscount.o: | $(BUILD)/syscall_names.h
# The names of what threads wait in (util/waits.c) come from the same header.
$(BUILD)/util/waits.o: | $(BUILD)/syscall_names.h
# The task iterator's second file (thread states) shares its skeleton.
$(BUILD)/trace/tasks_wait.o $(BUILD)/trace/tasks_pass.o: $(BUILD)/trace/%.o: core/trace/%.c | \
		$(BUILD)/bpf/tasks.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -Ibpf -I$(BUILD)/bpf -c -o $@ $<

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h

# checks/, methodologies/, ranking/ and the report's assets are compiled into
# the binary, so the single file works anywhere.
$(BUILD)/embedgen: build-aux/embedgen.c | $(BUILD)
	$(CC) -O2 -o $@ $<
# The list of what is embedded, rewritten only when it changes: a file removed
# or renamed (no newer prerequisite then) regenerates embedded.c too.
$(BUILD)/embedded.list: FORCE | $(BUILD)
	@echo '$(EMBED_FILES)' | cmp -s - $@ 2>/dev/null || echo '$(EMBED_FILES)' > $@
$(BUILD)/embedded.c: $(BUILD)/embedgen $(EMBED_FILES) $(BUILD)/embedded.list
	@echo "embedgen: $(words $(EMBED_FILES)) files into $@"
	@$(BUILD)/embedgen $(EMBED_FILES) > $@.tmp && mv $@.tmp $@
$(BUILD)/embedded.o: $(BUILD)/embedded.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJS) | $(BUILD)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $< $(CORE_OBJS) $(LDLIBS)

# bench/fleet_gen.c: made-up fleets from one real bundle, for sonde fleet's
# test (tests/cli/fleet.t) and benchmark (bench/fleet.sh).
$(BUILD)/fleet-gen: bench/fleet_gen.c $(CORE_OBJS)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(CORE_OBJS) $(LDLIBS)

# bench/cpus_bench.c: per-CPU map sizes, /proc read and parse costs (bench/cpus.sh).
$(BUILD)/cpus-bench: bench/cpus_bench.c $(CORE_OBJS)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -o $@ $< $(CORE_OBJS) $(LDLIBS)

# bench/spawn_procs.c: the populations of bench/scale.sh (forked in one process group).
$(BUILD)/spawn-procs: bench/spawn_procs.c | $(BUILD)
	$(CC) $(CFLAGS) -pthread -o $@ $<

$(BUILD):
	mkdir -p $(BUILD)

# the C unit tests, and the tools the script tests need
unit: $(UNIT_TESTS) $(BUILD)/fleet-gen

# The whole suite, as TAP through prove; its last line is the summary. When
# the static build exists (make static), it is brought up to date first:
# tests/checks/golden-static.t runs the golden tests against it too.
# the static build too: the golden tests judge every case with both binaries
check: sonde $(UNIT_TESTS) $(BUILD)/fleet-gen man completion static
	prove --exec '' $(UNIT_TESTS) $(SCRIPT_TESTS)

run: sonde
	./sonde run

# sonde's own cost (CPU, RSS, wall) with 1,000 processes, then what it costs a
# workload it watches (redis under redis-benchmark, dd bs=1), against baselines;
# sonde fleet over 1,000 and 10,000 generated bundles; the per-interval histograms' cost
# per event against the whole-window ones; what the heat maps add to the page.
bench: sonde $(BUILD)/fleet-gen $(BUILD)/spawn-procs
	bench/run-bench.sh
	bench/scale.sh
	bench/overhead.sh
	bench/runout.sh
	bench/fleet.sh
	bench/fslatency.sh
	bench/intervals.sh
	bench/heatmap.sh
	bench/packages.sh
	bench/unwind.sh
	bench/setup.sh
	bench/static.sh

# What syscount costs a syscall-bound load (dd bs=1), alone against traced.
bench-syscount: sonde
	bench/syscount.sh

# What fslatency costs dd bs=1 (every call traced) and an fsync loop, alone against traced.
bench-fslatency: sonde
	bench/fslatency.sh

# What CFI unwinding in the profile costs a CPU-bound process (49 Hz, stack
# copies) and sonde after the window (CPU per 1,000 samples), issue 14.
bench-unwind: sonde
	bench/unwind.sh
	bench/setup.sh

# The static build against the dynamic one: size, start-up time and RSS.
bench-static: sonde static
	bench/static.sh

# One program run of each hot BPF tool against the counting program: run_cost.
bench-tools: sonde
	bench/tool-cost.sh

# Many CPUs on paper (issue 32): per-CPU map bytes and kernel memory, /proc
# file sizes and their read and parse costs at 192 and 1,024 CPUs, the
# profile's ring, and what analyzing the 192- and 1,024-CPU cases costs.
bench-cpus: sonde $(BUILD)/cpus-bench
	bench/cpus.sh

# libFuzzer targets (tests/fuzz/fuzz_*.c) over the parsers and readers of
# untrusted input; `make fuzz` runs each for FUZZ_SECONDS from the committed
# seeds (tests/fuzz/corpus/<target>), new inputs go to build/fuzz/ only.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS = -g -O1 -std=gnu11 -D_GNU_SOURCE -DSONDE_VERSION='"$(VERSION)"' -Icore \
	      -Ibpf -I$(BUILD)/bpf -I$(BUILD) $(PKG_CFLAGS) \
	      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := parse capture json_read bundle_verify check_schema bundle_extract hostctx redact
UTIL_JSON := core/util/json_read.c core/util/json.c core/util/strbuf.c core/util/file.c core/util/tty.c
fuzz_parse_SRCS := $(wildcard core/util/parse_*.c) core/util/waits.c
fuzz_capture_SRCS := core/collect/capture.c core/util/file.c
fuzz_hostctx_SRCS := core/collect/hostctx_read.c core/collect/capture.c core/util/file.c \
		     core/util/strv.c $(wildcard core/util/parse_*.c) core/util/waits.c
fuzz_json_read_SRCS := $(UTIL_JSON)
fuzz_bundle_verify_SRCS := core/bundle/verify.c core/bundle/write.c core/util/sha256.c $(UTIL_JSON)
# The schema validator needs the whole engine (Lua, the embedded catalog): every core
# source but main.c, with the libraries sonde links.
fuzz_check_schema_SRCS = $(CORE_SRCS) $(BUILD)/embedded.c
fuzz_check_schema_LIBS = $(PKG_LIBS) -lbpf -ldw -lelf -lz -lpthread
fuzz_bundle_extract_SRCS := core/bundle/read.c core/bundle/want.c core/bundle/write.c core/util/sha256.c \
			    core/util/child.c core/util/scratch.c $(UTIL_JSON)
fuzz_redact_SRCS := core/bundle/redact.c core/bundle/redact_rules.c core/bundle/redact_addr.c core/bundle/redact_views.c \
		    core/bundle/redact_files.c core/collect/capture.c $(UTIL_JSON)
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard core/*/*.c core/*/*.h)
	@mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(fuzz_$*_SRCS) -larchive -lmd $(fuzz_$*_LIBS) -lm

# it links core/trace/<tool>.c, which include the generated skeletons and syscall names
$(BUILD)/fuzz/fuzz_check_schema: $(BPF_SKELS) $(BUILD)/embedded.c $(BUILD)/syscall_names.h
$(BUILD)/fuzz/fuzz_parse: $(BUILD)/syscall_names.h

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

include build-aux/install.mk
include build-aux/static.mk
include build-aux/rpm.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
