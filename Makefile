# Thin wrapper over CMake. `make run` and `make test` install missing Debian
# packages first (scripts/install-deps.sh), so a fresh Debian 12 needs nothing else.
BUILD ?= build
PRESET_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
JOBS ?= $(shell nproc)
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache needs a cache directory; without HOME (some CI environments) keep it in the tree.
ifeq ($(HOME),)
export CCACHE_DIR := $(CURDIR)/.cache/ccache
endif

.PHONY: all build deps run test test-unit clean docs asan deb
all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_GEN) $(PRESET_FLAGS) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: deps
	@$(MAKE) --no-print-directory build
	$(BUILD)/llmon agent $(ARGS)

# Every test: unit tests, golden files, and integration tests against real
# node_exporter / promtool / Prometheus started on free loopback ports.
test: deps
	@$(MAKE) --no-print-directory build
	bash scripts/run-tests.sh $(BUILD)

# The Debian package (cmake/packaging.cmake): $(BUILD)/llmon_<version>_amd64.deb.
deb: build
	cd $(BUILD) && cpack -G DEB

# Regenerate docs generated from code (docs/cli.md).
docs: build
	$(BUILD)/llmon help --markdown > docs/cli.md

asan:
	cmake --preset asan-ubsan && cmake --build --preset asan-ubsan -j $(JOBS) && ctest --preset asan-ubsan

clean:
	rm -rf $(BUILD)
