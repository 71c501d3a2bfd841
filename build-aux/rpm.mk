# SPDX-License-Identifier: GPL-2.0-or-later
# make rpm: an RPM of the static build (build-aux/sonde.spec says why static)
# into build/rpm/RPMS/x86_64/, with rpmbuild from Debian's rpm package. The
# files are staged by `make install` with the paths of RPM distributions
# (units in /usr/lib/systemd/system, zsh completion in site-functions), then
# the static binary replaces the dynamic one.

RPM_DIR := $(BUILD)/rpm
RPM_INSTALL_VARS := PREFIX=/usr SYSCONFDIR=/etc SYSTEMDUNITDIR=/usr/lib/systemd/system \
		    LIBEXECDIR=/usr/libexec ZSHCOMPDIR=/usr/share/zsh/site-functions

.PHONY: rpm
rpm: $(STATIC)/sonde
	rm -rf $(RPM_DIR) && mkdir -p $(RPM_DIR)/stage
	$(MAKE) --no-print-directory install $(RPM_INSTALL_VARS) DESTDIR=$(abspath $(RPM_DIR))/stage
	$(INSTALL) -m 0755 $(STATIC)/sonde $(RPM_DIR)/stage/usr/bin/sonde
	rpmbuild -bb --quiet --define '_topdir $(abspath $(RPM_DIR))' \
		--define 'version $(VERSION)' --define 'stage $(abspath $(RPM_DIR))/stage' \
		build-aux/sonde.spec
	@ls $(RPM_DIR)/RPMS/*/*.rpm
