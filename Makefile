# Two commands do all the set-up on a fresh Debian 12 machine with Swift:
#   make demo   installs what is missing, builds, renders out/demo.gif and out/demo.mp4
#   make test   installs what is missing, builds and runs the whole test suite (Swift, then the browser tests)

# Debian packages sweep builds and tests against (headers, fonts, the ffmpeg CLI for checks).
DEB_PACKAGES := pkg-config libgif-dev libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev \
                libpango1.0-dev libcairo2-dev liblcms2-dev zlib1g-dev libheif-dev libwebp-dev libseccomp-dev libmicrohttpd-dev curl fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji ffmpeg \
                chromium python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build demo test test-slurm readme-gif bench bench-gif clean asan fuzz presets install lint man docs api-check image test-image

PREFIX ?= /usr/local
# The binary `make install` installs (scripts/image.sh may pass another, with `make -o build`).
SWEEP_BIN ?= .build/release/sweep

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	swift build -c release

# The built-in presets are compiled in (Sources/SweepPipeline/BuiltinPresets.swift); presets/ is
# their source. Run after editing presets/ (a test fails while the two differ).
presets:
	scripts/embed-presets.sh

# The man page's OPTIONS are written from Sources/SweepRequest/OptionTable.swift. Run after
# editing the table (a test fails while the two differ).
man: deps
	SWEEP_WRITE_MAN=1 swift test $(TEST_BUILD) --build-path .build/test --filter manOptionsFromTable

# The binary, the presets (editable overrides of the built-in ones, found at
# ../share/sweep/presets from the binary) and the man page. DESTDIR for staging.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(SWEEP_BIN) $(DESTDIR)$(PREFIX)/bin/sweep
	for k in looks animations formats; do \
	  install -d $(DESTDIR)$(PREFIX)/share/sweep/presets/$$k && install -m 644 presets/$$k/*.json $(DESTDIR)$(PREFIX)/share/sweep/presets/$$k/; \
	done
	install -m 644 docs/sweep.1 $(DESTDIR)$(PREFIX)/share/man/man1/sweep.1

# An OCI image (.build/image/oci and the docker-archive .build/image/sweep.tar) built without
# a container engine: debootstrap, umoci, skopeo; as root. The Debian base is cached in
# .build/image. `make test-image` runs sweep demo and sweep serve inside it (chroot).
image:
	scripts/image.sh

test-image:
	scripts/test-image.sh

demo: build
	.build/release/sweep demo -o out

# The tests run optimized, in a build folder of their own: the pixel loops make a debug build
# about 7× slower (62 s against 447 s for the Swift suite on 2 cores). -enable-testing keeps
# @testable imports working; bounds and overflow checks stay on (-O, not -Ounchecked). The
# end-to-end tests and the browser tests run the sweep binary built beside the tests.
TEST_BUILD := -c release -Xswiftc -enable-testing
test: deps
	swift test $(TEST_BUILD) --build-path .build/test
	SWEEP_BIN=$(CURDIR)/.build/test/release/sweep Tests/browser/run.sh

# `sweep batch` sharded by a real Slurm job array: starts a one-node cluster when none is up
# (as root; installs munge and slurm-wlm if missing), then runs Tests/slurm/run.sh.
test-slurm: deps
	@# `swift test list` builds exactly as `make test` does (so after it, nothing), then lists.
	@mkdir -p .build
	swift test list $(TEST_BUILD) --build-path .build/test > .build/test-list.txt || { cat .build/test-list.txt; exit 1; }
	SWEEP=$(CURDIR)/.build/test/release/sweep Tests/slurm/run.sh

# The picture at the top of the README.
readme-gif: build
	.build/release/sweep demo -o docs --size 450x600 --fps 20 --quiet && rm -f docs/demo.mp4

bench: build
	@dpkg-query -W -f='$${Status}' gifsicle 2>/dev/null | grep -q "ok installed" || $(SUDO) apt-get install -y -qq gifsicle >/dev/null
	@python3 -c "import numpy" 2>/dev/null || pip install -q numpy
	Benchmarks/run.sh

# GIF size/quality curves against FFmpeg + gifsicle at every setting (~1 h on 2 cores).
bench-gif: build
	@dpkg-query -W -f='$${Status}' gifsicle 2>/dev/null | grep -q "ok installed" || $(SUDO) apt-get install -y -qq gifsicle >/dev/null
	@python3 -c "import numpy, scipy, PIL, matplotlib" 2>/dev/null || pip install -q numpy scipy pillow matplotlib
	Benchmarks/run.sh gifcurves

clean:
	rm -rf .build out

# The test suite under AddressSanitizer (its own build folder).
asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp:print_suppressions=0 swift test $(TEST_BUILD) --sanitize=address --build-path .build/asan

# Fuzz each parser of untrusted input for 60 s (see Fuzz/run.sh).
# swift format (it ships with the toolchain) in check mode, with .swift-format's rules:
# any line it would change fails. `swift format format -i -r …` on the same paths fixes them.
lint:
	@# A plain release build (make demo) cannot compile @testable outside the test targets.
	@if grep -rlE '^@testable import' Sources Fuzz Benchmarks; then echo "these non-test files use @testable import (make demo cannot build them); use package access instead" >&2; exit 1; fi
	@# Each target lists every module of the package it imports (SwiftPM's own check accepts
	@# a module reached through another dependency).
	scripts/import-check.py
	swift format lint --strict --recursive --configuration .swift-format Sources Tests Package.swift Benchmarks Fuzz

fuzz: deps
	Fuzz/run.sh 60

# SweepKit's documentation (DocC) from its symbol graph (scripts/symbol-graph.sh: exactly what
# `import SweepKit` gives an app): .build/docs, a static site.
docs: deps
	rm -rf .build/symbol-graphs .build/docs
	scripts/symbol-graph.sh .build/symbol-graphs
	docc convert Sources/SweepKit/SweepKit.docc --fallback-display-name SweepKit \
	  --fallback-bundle-identifier org.sweep.SweepKit --additional-symbol-graph-dir .build/symbol-graphs \
	  --output-path .build/docs --warnings-as-errors

# SweepKit's API against the last release (docs/api keeps the release's API). Run by CI.
api-check: deps
	scripts/api-check.sh
