# SPDX-License-Identifier: GPL-2.0-or-later
# Installing sonde like any other tool (included by the Makefile):
#   make install [PREFIX=/usr/local] [DESTDIR=...]   make uninstall (the same variables)
#   make man          the man pages (docs/man/*.scd, built with scdoc) into build/man/
#   make completion   the bash and zsh completion scripts, printed by the binary itself
#   make deb          a Debian package (debian/, dpkg-buildpackage) into build/deb/
# The config file's directory is /etc whatever PREFIX is (SYSCONFDIR): the
# binary reads $(SYSCONFDIR)/sonde/sonde.conf, compiled in.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/sonde
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL ?= install

CFLAGS += -DSONDE_SYSCONFDIR='"$(SYSCONFDIR)"'

MAN_SRCS := $(wildcard docs/man/*.scd)
MAN_PAGES := $(patsubst docs/man/%.scd,$(BUILD)/man/%,$(MAN_SRCS))
COMPLETIONS := $(BUILD)/completion/sonde.bash $(BUILD)/completion/_sonde
DOCS := README.md $(wildcard docs/*.md)
UNITS := contrib/systemd/sonde-audit.service contrib/systemd/sonde-audit.timer

.PHONY: man completion install uninstall deb

man: $(MAN_PAGES)
$(BUILD)/man/%: docs/man/%.scd
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp && mv $@.tmp $@

# The scripts come from the binary: they ask it at each TAB, from the same tables as --help.
completion: $(COMPLETIONS)
$(BUILD)/completion/sonde.bash: sonde
	@mkdir -p $(@D)
	./sonde completion bash > $@.tmp && mv $@.tmp $@
$(BUILD)/completion/_sonde: sonde
	@mkdir -p $(@D)
	./sonde completion zsh > $@.tmp && mv $@.tmp $@

# The units name the binary and the audit script where this install puts them.
define install_unit
	sed -e 's|/usr/local/bin/sonde|$(BINDIR)/sonde|g' \
	    -e 's|/usr/local/lib/sonde/|$(LIBEXECDIR)/sonde/|g' -e 's|/usr/share/doc/sonde|$(DOCDIR)|g' $(1) > $(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(1)).tmp
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(1)).tmp
	mv $(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(1)).tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(1))
endef

install: sonde man completion
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(LIBEXECDIR)/sonde $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/sonde
	$(INSTALL) -m 0755 sonde $(DESTDIR)$(BINDIR)/sonde
	$(INSTALL) -m 0644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL) -m 0644 $(BUILD)/completion/sonde.bash $(DESTDIR)$(BASHCOMPDIR)/sonde
	$(INSTALL) -m 0644 $(BUILD)/completion/_sonde $(DESTDIR)$(ZSHCOMPDIR)/_sonde
	$(INSTALL) -m 0755 contrib/systemd/sonde-audit $(DESTDIR)$(LIBEXECDIR)/sonde/sonde-audit
	$(call install_unit,contrib/systemd/sonde-audit.service)
	$(call install_unit,contrib/systemd/sonde-audit.timer)
	$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	@# An operator's config is never overwritten.
	test -e $(DESTDIR)$(SYSCONFDIR)/sonde/sonde.conf || \
		$(INSTALL) -m 0644 contrib/sonde.conf $(DESTDIR)$(SYSCONFDIR)/sonde/sonde.conf

# What install put there, and nothing else; the config file only when it was not changed.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sonde $(DESTDIR)$(BASHCOMPDIR)/sonde $(DESTDIR)$(ZSHCOMPDIR)/_sonde
	rm -f $(patsubst docs/man/%.scd,$(DESTDIR)$(MANDIR)/man1/%,$(filter %.1.scd,$(MAN_SRCS)))
	rm -f $(patsubst docs/man/%.scd,$(DESTDIR)$(MANDIR)/man5/%,$(filter %.5.scd,$(MAN_SRCS)))
	rm -f $(foreach u,$(UNITS),$(DESTDIR)$(SYSTEMDUNITDIR)/$(notdir $(u)))
	rm -f $(DESTDIR)$(LIBEXECDIR)/sonde/sonde-audit
	rm -f $(foreach d,$(DOCS),$(DESTDIR)$(DOCDIR)/$(notdir $(d)))
	-rmdir $(DESTDIR)$(LIBEXECDIR)/sonde $(DESTDIR)$(DOCDIR) 2>/dev/null
	if cmp -s contrib/sonde.conf $(DESTDIR)$(SYSCONFDIR)/sonde/sonde.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/sonde/sonde.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/sonde 2>/dev/null || true; \
	fi

# The package is built from a copy of the source tree (the files git knows, as
# they are in the work tree, or every file outside build/ without git), so that
# dpkg-buildpackage's clean never touches this tree's build/. The .deb lands in
# build/deb/.
DEB_DIR := $(BUILD)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/sonde-$(VERSION)
	{ git ls-files -co --exclude-standard 2>/dev/null || \
	  find . -path ./$(BUILD) -prune -o -type f -print | sed 's|^\./||'; } | \
		while IFS= read -r f; do [ -f "$$f" ] && printf '%s\n' "$$f"; done | \
		tar -cf - --no-recursion -T - | tar -xf - -C $(DEB_DIR)/sonde-$(VERSION)
	cd $(DEB_DIR)/sonde-$(VERSION) && dpkg-buildpackage -us -uc -b -Jauto
	@ls $(DEB_DIR)/*.deb
