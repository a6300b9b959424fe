# Reveille — build, test, run and install.
# `make test` and `make run` install missing Debian packages first (through sudo when not root).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= /usr/local
# The Debian packages, in three lists, each named once (.ci/run and the README point here):
# BUILD_PACKAGES build and run Reveille, and show the demo `make run` shows without a desktop session
# (Xvfb, dunst, PulseAudio, and GTK 3's Python bindings for its screenshot); DEB_PACKAGES package it;
# TEST_PACKAGES are the peers the tests talk to for real: the desktops' notification servers (GNOME
# Shell, KDE Plasma with its desktop shell, sway with mako and swaync, five others), PipeWire,
# dbusmock's templates, Radicale and a keyring for sync, and the tools that drive them (makoctl calls
# systemd's busctl, and jq for its modes: the machine's image had both, a bare root has neither).
BUILD_PACKAGES := pkg-config libglib2.0-dev libglib2.0-bin libpulse-dev libsndfile1-dev libnotify-dev libical-dev \
	libgtk-4-dev libadwaita-1-dev libsoup-3.0-dev libsecret-1-dev gettext \
	dbus-daemon dbus-bin pulseaudio pulseaudio-utils sound-theme-freedesktop tzdata desktop-file-utils \
	xvfb xauth dunst python3-gi gir1.2-gtk-3.0
DEB_PACKAGES := build-essential debhelper dpkg-dev appstream
TEST_PACKAGES := $(DEB_PACKAGES) tmux locales bubblewrap python3-dbus python3-dbusmock \
	xdotool x11-utils wmctrl gnome-shell gjs xfconf dconf-service dconf-gsettings-backend \
	pipewire pipewire-bin pipewire-pulse wireplumber \
	xfce4-notifyd mate-notification-daemon lxqt-notificationd notification-daemon \
	kded5 plasma-workspace plasma-desktop-data kwin-x11 kwin-wayland layer-shell-qt qtwayland5 \
	sway grim wayvnc mako-notifier sway-notification-center systemd jq \
	radicale gnome-keyring libsecret-tools openssl at-spi2-core gir1.2-atspi-2.0 playerctl gnome-settings-daemon
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Release binaries carry the Swift runtime and Foundation inside them: they run without a
# Swift toolchain installed, start faster (no dynamic Swift libraries to bind) and map less.
# Linked by the toolchain's lld: relative relocations packed (DT_RELR, glibc 2.36: 8 KiB instead
# of 1 MiB of .rela.dyn read at every start), identical code folded, and no symbol exported
# (nothing looks the executables' symbols up; exported, each kept code --gc-sections could drop).
# libstdc++ (Swift's runtime is C++) is linked in too, only the parts it uses: -lstdc++ finds
# STATIC_CXX's archive before the shared library (1.1 MiB less resident in the agent).
STATIC_CXX := $(CURDIR)/.build/static-libstdc++
RELEASE := -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --icf=all -Xlinker --no-export-dynamic -Xswiftc -L$(STATIC_CXX)

.PHONY: deps deps-deb deps-test build release test test-desktops check-fresh bench run install uninstall man locale deb clean fuzz

## deps: install what building and running need (BUILD_PACKAGES), if any is missing
## deps-deb: and what packaging needs; deps-test: and every test peer (what make test installs)
deps:
	@scripts/install-packages $(BUILD_PACKAGES)
deps-deb:
	@scripts/install-packages $(BUILD_PACKAGES) $(DEB_PACKAGES)
deps-test:
	@scripts/install-packages $(BUILD_PACKAGES) $(TEST_PACKAGES)

## build: debug build of every target, tests included
build: deps
	$(SWIFT) build --build-tests

## release: optimized, self-contained binaries in .build/release
release: deps $(STATIC_CXX)/libstdc++.a
	$(SWIFT) build $(RELEASE)

# Without libstdc++'s archive (libstdc++-12-dev) the link dangles and finds the shared library.
$(STATIC_CXX)/libstdc++.a:
	mkdir -p $(STATIC_CXX) && ln -sf "$$("$$(dirname "$$(readlink -f $(SWIFT))")/clang" -print-file-name=libstdc++.a)" $@

## test: unit and end-to-end tests (the end-to-end tests start their own bus, notification server and PulseAudio)
# The end-to-end tests run the release executables, the ones `make deb` ships (REVEILLE_BUILD_DIR):
# what users run is what is tested, and a debug CLI or agent costs twice the CPU (15 against
# 7 ms a `reveille list`, about 800 CLI runs and 190 agents a run); the in-process tests are
# the debug build's, with its assertions.
# The end-to-end suites run side by side, each test on a thread of its own (they mostly wait on
# processes; see Tests/Support/ReveilleTestTraits/WaitsOnItsOwnThread.swift). Sixteen at a time
# keep a 2-core machine busy (eight left it half idle: 132 s, sixteen 89–92 s, 32 no faster).
# Each fuzz target replays its corpus (the seeds and what earlier runs found, ~40 ms each)
# first (-runs=500 stops at the first check after the replay, 600–2,700 inputs each), so CI
# keeps them building and finding nothing new; hunting is `make fuzz`'s (libFuzzer counts time
# in whole seconds: "1 s" ran 2.1 s each, 13 s in all; the replay takes 5). First, not beside
# the tests, as their sanitizer build takes both cores for minutes on a fresh clone while the
# end-to-end tests wait for peers that must draw.
test: deps-test build release locale
	@$(MAKE) --no-print-directory fuzz FUZZ_LIMIT=-runs=500 > .build/fuzz-in-test.log 2>&1 \
		|| { cat .build/fuzz-in-test.log; echo "make fuzz failed (.build/fuzz-in-test.log)"; exit 1; }
	@grep -E "^== |stat::number_of_executed_units" .build/fuzz-in-test.log
	REVEILLE_BUILD_DIR=$$($(SWIFT) build $(RELEASE) --show-bin-path) \
		SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16 $(SWIFT) test --skip-build

## test-desktops: only the suites that meet a real desktop: GNOME Shell, KDE Plasma (notifications,
## Do Not Disturb, the panel item, the lock screen's greeter), the alert window, the media player, the
## app window, PipeWire; what a new release of the desktops is tried with first
DESKTOP_SUITES := GnomeShellTests|DoNotDisturbTests|PanelItemTests|MediaPlayerTests|LockScreenTests|WaylandLockScreenTests|AlertWindowTests|AlertWindowClickTests|AppWindowTests|PipeWireSoundTests|DunstTests|XfceNotifydTests
test-desktops: deps-test build release locale
	REVEILLE_BUILD_DIR=$$($(SWIFT) build $(RELEASE) --show-bin-path) \
		SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16 $(SWIFT) test --skip-build --filter '$(DESKTOP_SUITES)'

## check-fresh: as a new user, from nothing (as root; mmdebstrap): in a minimal Debian 12 root with only
## the Swift toolchain, the README's two commands and the Debian package; in a Debian 13 root, the build
## and the desktop suites (GNOME Shell 48, KDE Plasma 6). See docs/testing.md.
check-fresh:
	scripts/check-fresh --release bookworm readme-run 'test -s .build/demo/alert.png && test -s .build/demo/alarm.wav' \
		readme-test 'make deb && scripts/check-package'
	scripts/check-fresh --release trixie 'make test-desktops' readme-run 'test -s .build/demo/alert.png && test -s .build/demo/alarm.wav'

## run: build, then ring a demo timer in 5 seconds: in this desktop session (and say how to stop the
## agent and where it logs), or, without one, on a private demo desktop that shows the alert, records
## its sound, presses Stop and stops everything again (scripts/run; REVEILLE_BUILD_DIR=DIR: binaries built there)
run: deps
	@scripts/run --announce
	@if [ -z "$(REVEILLE_BUILD_DIR)" ]; then $(MAKE) --no-print-directory release; fi
	@scripts/run --bin-dir "$${REVEILLE_BUILD_DIR:-$$($(SWIFT) build $(RELEASE) --show-bin-path)}"

## deb: a Debian package (dpkg-buildpackage -b), into .build/deb
deb: deps-deb
	dpkg-buildpackage -b -us -uc
	mkdir -p .build/deb && mv ../reveille_*.deb ../reveille_*.buildinfo ../reveille_*.changes .build/deb/

## locale: the translations (po/*.po) compiled and checked by msgfmt, into .build/locale
locale:
	@for lang in $$(cat po/LINGUAS); do mkdir -p .build/locale/$$lang/LC_MESSAGES; \
		msgfmt --check -o .build/locale/$$lang/LC_MESSAGES/reveille.mo po/$$lang.po || exit 1; done

## man: manual pages generated from the argument parser, into .build/man
# swift-argument-parser's generator runs on the release binaries themselves. Its package
# plugin would build the tools again without the static runtime, leaving the release build
# stale for the next install; built on its own (debug, beside), the generator touches nothing.
man: release
	mkdir -p .build/man
	$(SWIFT) build --product generate-manual
	for tool in reveille reveille-agent reveille-wake-helper; do \
		LC_ALL=C.UTF-8 LANGUAGE= $$($(SWIFT) build --show-bin-path)/generate-manual "$$($(SWIFT) build $(RELEASE) --show-bin-path)/$$tool" \
			--output-directory .build/man || exit 1; done
	scripts/finish-man .build/man

## install: release binaries, sounds, desktop files, D-Bus activation, systemd unit, man pages, completions
## (PREFIX=/usr/local by default, PREFIX=~/.local for one user; DESTDIR for packagers)
install: release man locale
	scripts/install --prefix "$(PREFIX)" --destdir "$(DESTDIR)" --bin-dir "$$($(SWIFT) build $(RELEASE) --show-bin-path)" --man-dir .build/man

## uninstall: stop this user's agent running from PREFIX, then remove exactly what install put there; alarms are kept
uninstall:
	scripts/stop-agent "$(DESTDIR)$(PREFIX)/bin/reveille-agent"
	scripts/install --uninstall --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

clean:
	rm -rf .build

## bench: release build, then figures against a private bus, notification server and PulseAudio
bench: deps $(STATIC_CXX)/libstdc++.a
	$(SWIFT) build $(RELEASE)
	REVEILLE_BUILD_DIR=$$($(SWIFT) build $(RELEASE) --show-bin-path) $$($(SWIFT) build $(RELEASE) --show-bin-path)/reveille-bench

## fuzz: libFuzzer on the agent's boundary (FUZZ_SECONDS each, 600 by default; or FUZZ_LIMIT, e.g. -runs=N): the request
## decoder, the store loader, the time parser, the sandbox marker, the iCalendar reader and CalDAV's
## multistatus answers, the incoming budget's arithmetic, Restore's judging of a record and clock.json; what a run finds is in
## .build-fuzz/findings, and its corpus grows in .build-fuzz/corpus (seeds: Fuzz/corpus)
# Swift's own backtracer is off in a fuzz run: it takes the trap of a failed precondition before
# libFuzzer, which then writes no finding (seen: reveille-fuzz-clock's first finding left .build-fuzz/findings empty).
# swiftc's -sanitize=fuzzer links libFuzzer's own main, which SwiftPM's entry point
# (`--defsym main=...`) collides with; so the instrumentation is asked of the frontend and the
# driver is linked without its main (FuzzTarget calls LLVMFuzzerRunDriver).
FUZZ_TARGETS := request store time flatpak-info ical multistatus dbusmenu sync settings budget restore clock
FUZZ_SECONDS ?= 600
FUZZ_LIMIT ?= -max_total_time=$(FUZZ_SECONDS)
LIBFUZZER = $(firstword $(wildcard $(dir $(realpath $(SWIFT)))../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a))
FUZZ_BUILD = $(SWIFT) build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=address \
	-Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xlinker $(LIBFUZZER) -Xlinker -lstdc++
# A fuzzer is built again only when a source it may use is newer: asking SwiftPM for each of the
# six, built already, took 12 s of every make test.
FUZZ_INPUTS := Package.swift $(shell find Sources Fuzz -name '*.swift' -o -name '*.h' -o -name '*.modulemap')
.build-fuzz/release/reveille-fuzz-%: $(FUZZ_INPUTS)
	@[ -n "$(LIBFUZZER)" ] || { echo "libFuzzer (libclang_rt.fuzzer_no_main) is not in the Swift toolchain of $(SWIFT)"; exit 1; }
	set -o pipefail; $(FUZZ_BUILD) --product reveille-fuzz-$* 2>&1 | { grep -v "prohibited flag" || true; }
	@touch $@
fuzz: deps $(addprefix .build-fuzz/release/reveille-fuzz-,$(FUZZ_TARGETS))
	@mkdir -p .build-fuzz/findings
	@set -o pipefail; for target in $(FUZZ_TARGETS); do mkdir -p .build-fuzz/corpus/$$target; \
		echo "== reveille-fuzz-$$target ($(FUZZ_LIMIT))"; \
		SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build-fuzz/release/reveille-fuzz-$$target $(FUZZ_LIMIT) \
			-print_final_stats=1 -timeout=10 -rss_limit_mb=4096 -artifact_prefix=.build-fuzz/findings/$$target- \
			.build-fuzz/corpus/$$target Fuzz/corpus/$$target 2>&1 | tail -n 8 || { echo "reveille-fuzz-$$target found a failure: .build-fuzz/findings"; exit 1; }; done
