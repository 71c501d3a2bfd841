# SPDX-License-Identifier: GPL-2.0-or-later
# make static: build/static/sonde, one statically linked binary to hand over
# to a host where sonde is not installed (issue 31, docs/static.md). It needs
# the kernel, /proc, /sys and a writable output directory; no shared library,
# no /etc file, no locale, no NSS.
#
# The objects are the dynamic build's (the same code), but for main.c (its
# --version says "static") and core/bundle/upload.c (no libcurl: --upload is
# refused before the window), compiled again with -DSONDE_STATIC. The
# libraries are Debian 12's static archives (libbpf, libelf, libdw, liblua5.4,
# libcmark, libmd, liblzma, libzstd, libz, libbz2), but libarchive: Debian's
# libarchive.a needs nettle, libxml2 (and so ICU, and getaddrinfo: NSS) and
# libacl because its format table names every format, so it is built here from
# Debian's source package (apt-get source, from a private list of deb-src
# lines under build/static/apt: the host's apt configuration is not changed)
# with zlib, xz and zstd only. The link fails on any glibc warning
# (--fatal-warnings): a function that needs NSS or dlopen at run time
# (getpwnam, getaddrinfo, dlopen, iconv) pulled in later breaks the build, not
# the customer's run. libdw's dlopen of libdebuginfod is made to fail
# (build-aux/static-nodlopen.c says why).

STATIC := $(BUILD)/static
STATIC_APT := -o Dir::Etc::SourceList=$(abspath $(STATIC))/apt/sources.list \
	      -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$(abspath $(STATIC))/apt/lists \
	      -o Dir::Cache=$(abspath $(STATIC))/apt/cache
STATIC_DEB_SRC := http://deb.debian.org/debian bookworm main|http://deb.debian.org/debian-security bookworm-security main
# libarchive's features: what sonde writes (tar, xz) and reads (tar; gzip, xz, zstd).
STATIC_ARCHIVE_CMAKE := -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DENABLE_TAR=OFF \
	-DENABLE_CPIO=OFF -DENABLE_CAT=OFF -DENABLE_TEST=OFF -DENABLE_ACL=OFF -DENABLE_XATTR=OFF \
	-DENABLE_ICONV=OFF -DENABLE_BZip2=OFF -DENABLE_LZ4=OFF -DENABLE_LIBB2=OFF \
	-DENABLE_OPENSSL=OFF -DENABLE_NETTLE=OFF -DENABLE_MBEDTLS=OFF -DENABLE_LIBXML2=OFF \
	-DENABLE_EXPAT=OFF -DENABLE_PCREPOSIX=OFF -DENABLE_LZO=OFF -DENABLE_CNG=OFF \
	-DENABLE_ZLIB=ON -DENABLE_LZMA=ON -DENABLE_ZSTD=ON
STATIC_LIBARCHIVE := $(STATIC)/libarchive/build/libarchive/libarchive.a
STATIC_OBJS := $(filter-out $(BUILD)/bundle/upload.o,$(CORE_OBJS)) $(STATIC)/main.o $(STATIC)/upload.o \
	       $(STATIC)/static-nodlopen.o
# The order a one-pass static link needs: users before what they use.
STATIC_LIBS := $(shell pkg-config --libs lua5.4 libcmark libmd) $(STATIC_LIBARCHIVE) \
	       -lbpf -ldw -lelf -lzstd -llzma -lbz2 -lz -lpthread -lm

.PHONY: static
static: $(STATIC)/sonde

$(STATIC)/sonde: $(STATIC_OBJS) $(STATIC_LIBARCHIVE)
	$(CC) -static $(LDFLAGS) -Wl,--fatal-warnings -Wl,--wrap=dlopen -o $@.tmp $(STATIC_OBJS) $(STATIC_LIBS)
	strip -o $@ $@.tmp && rm -f $@.tmp
	@echo "static: $@, $$(stat -c %s $@) bytes"

$(STATIC)/main.o $(STATIC)/upload.o: CFLAGS += -DSONDE_STATIC
$(STATIC)/main.o: core/main.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -c -o $@ $<
$(STATIC)/upload.o: core/bundle/upload.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) -c -o $@ $<
$(STATIC)/static-nodlopen.o: build-aux/static-nodlopen.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

# Debian's source of libarchive (its security patches applied by dpkg-source),
# the version of bookworm and bookworm-security, once.
$(STATIC)/libarchive/src/CMakeLists.txt:
	@mkdir -p $(STATIC)/apt/lists/partial $(STATIC)/apt/cache/archives/partial $(STATIC)/libarchive
	echo '$(STATIC_DEB_SRC)' | tr '|' '\n' | sed 's/^/deb-src /' > $(STATIC)/apt/sources.list
	apt-get -qq $(STATIC_APT) update
	rm -rf $(STATIC)/libarchive/dl && mkdir -p $(STATIC)/libarchive/dl
	cd $(STATIC)/libarchive/dl && apt-get -qq $(STATIC_APT) source --download-only libarchive
	rm -rf $(STATIC)/libarchive/src
	dpkg-source -q -x $(STATIC)/libarchive/dl/libarchive_*.dsc $(STATIC)/libarchive/src

$(STATIC_LIBARCHIVE): $(STATIC)/libarchive/src/CMakeLists.txt
	cmake -S $(STATIC)/libarchive/src -B $(STATIC)/libarchive/build $(STATIC_ARCHIVE_CMAKE) \
		> $(STATIC)/libarchive/cmake.log
	$(MAKE) -s -C $(STATIC)/libarchive/build archive_static > $(STATIC)/libarchive/make.log
