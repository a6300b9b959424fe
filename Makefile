# Reveille — build, test, run and install.
# `make test` and `make run` install missing Debian packages first (through sudo when not root).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX ?= /usr/local
DEBIAN_PACKAGES := pkg-config libglib2.0-dev libglib2.0-bin libnotify-dev libpulse-dev \
	libsndfile1-dev pulseaudio pulseaudio-utils dbus-daemon dbus-bin sound-theme-freedesktop tzdata
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release test bench run clean

## deps: install the Debian packages Reveille builds and tests with, if any is missing
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## build: debug build of every target, tests included
build: deps
	$(SWIFT) build --build-tests

## release: optimized binaries in .build/release
release: deps
	$(SWIFT) build -c release

## test: unit and end-to-end tests (the end-to-end tests start their own bus, notification server and PulseAudio)
test: build
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
