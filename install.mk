# install.mk: man pages, make install / uninstall, make deb (included by Makefile).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#       $(PREFIX)/bin/aioscope and the aiotop link, $(PREFIX)/share/man (aioscope(8),
#       aioscope-COMMAND(8), aiotop(8), aiodev(4)), the bash completion where
#       bash-completion loads it on demand, $(PREFIX)/share/doc/aioscope, and the
#       module source for DKMS in /usr/src/aiodev-VERSION (with dkms.conf: that is
#       where dkms looks, whatever PREFIX is). Nothing is registered with dkms: run
#       'dkms install aiodev/VERSION' afterwards, or use the packages (make deb).
#   make uninstall [PREFIX=] [DESTDIR=]
#       removes exactly those files (and the directories install made, once empty)
#   make deb
#       build/deb/aioscope_VERSION_amd64.deb and aiodev-dkms_VERSION_all.deb, from
#       debian/ with debhelper and dh-dkms, then lintian on both

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/aioscope
COMPDIR := $(PREFIX)/share/bash-completion/completions
DKMSDIR := /usr/src/aiodev-$(VERSION)
INSTALL ?= install

MAN_PAGES := $(patsubst man/%.scd,build/man/%,$(wildcard man/*.scd)) build/man/aiotop.8
KMOD_SRCS := $(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h) kmod/Kbuild
DOCS := README.md $(wildcard docs/*.md)

# Everything install puts under $(DESTDIR), for uninstall.
INSTALLED := $(BINDIR)/aioscope $(BINDIR)/aiotop \
	$(foreach p,$(notdir $(MAN_PAGES)),$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(p)) \
	$(COMPDIR)/aioscope $(COMPDIR)/aiotop \
	$(foreach d,$(DOCS),$(DOCDIR)/$(notdir $(d))) \
	$(foreach f,$(KMOD_SRCS),$(DKMSDIR)/$(notdir $(f))) $(DKMSDIR)/VERSION $(DKMSDIR)/dkms.conf

man: $(MAN_PAGES)

build/man/%: man/%.scd VERSION
	@mkdir -p build/man
	sed 's/@VERSION@/$(VERSION)/g' $< | scdoc >$@.tmp && mv $@.tmp $@

build/man/aiotop.8:
	@mkdir -p build/man
	echo '.so man8/aioscope-top.8' >$@

build/dkms.conf: kmod/dkms.conf.in VERSION
	@mkdir -p build
	sed 's/@VERSION@/$(VERSION)/g' $< >$@

# The CLI only (not the module matrix): what install needs.
build/cli/aioscope: FORCE
	$(MAKE) -C cli

FORCE:
.PHONY: FORCE

install: build/cli/aioscope man build/dkms.conf
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(COMPDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DKMSDIR)
	$(INSTALL) -m 755 build/cli/aioscope $(DESTDIR)$(BINDIR)/aioscope
	ln -sf aioscope $(DESTDIR)$(BINDIR)/aiotop
	$(INSTALL) -m 644 $(filter %.4,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man4/
	$(INSTALL) -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 completion/aioscope $(DESTDIR)$(COMPDIR)/aioscope
	ln -sf aioscope $(DESTDIR)$(COMPDIR)/aiotop
	$(INSTALL) -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -m 644 $(KMOD_SRCS) VERSION build/dkms.conf $(DESTDIR)$(DKMSDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DKMSDIR) 2>/dev/null

# The packages are built from a copy of the tree in build/deb/aioscope-VERSION
# (dpkg-buildpackage writes its results to the parent directory: build/deb/).
deb:
	rm -rf build/deb
	mkdir -p build/deb/aioscope-$(VERSION)
	tar --exclude=./build --exclude=./.git -cf - . | tar -C build/deb/aioscope-$(VERSION) -xf -
	cd build/deb/aioscope-$(VERSION) && dpkg-buildpackage -b -us -uc
	rm -rf build/deb/aioscope-$(VERSION)
	lintian --fail-on error --info build/deb/*.changes
	@ls build/deb/*.deb
