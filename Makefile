# Tessera's two set-up commands (README): `make serve` and `make test`; `make install` puts the
# release build under PREFIX (DESTDIR is honoured).
JOBS ?= 2
PREFIX ?= /usr/local
RELEASE_DIR := build/release
TEST_DIR := build/asan
FUZZ_DIR := build/fuzz
SERVE_ARGS ?=
# ON in CI (.ci/run): compiler warnings in src/ and tests/ fail the build.
WERROR ?= OFF

.PHONY: deps test-deps build serve install test test-build client-test fuzz fuzz-build bench format clean

# What building and serving need.
deps:
	@scripts/install-deps.sh

# What only the tests, benchmarks and formatting need: gtest, a PostgreSQL server, chromium, node
# and tests/web's packages, pytest, wrk, clang-format... (the script lists them).
test-deps:
	@scripts/install-test-deps.sh

build: deps
	cmake -S . -B $(RELEASE_DIR) -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF \
	  -DTESSERA_WERROR=$(WERROR) >/dev/null
	cmake --build $(RELEASE_DIR) -j$(JOBS) --target tessera

serve: build
	$(RELEASE_DIR)/tessera serve $(SERVE_ARGS)

# PREFIX/bin/tessera, PREFIX/share/tessera/web (the browser app) and PREFIX/share/tessera/demo
# (the demo bundle), where the binary finds them at run time.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(RELEASE_DIR) --prefix $(PREFIX)

test-build: deps test-deps
	cmake -S . -B $(TEST_DIR) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=ON \
	  -DTESSERA_WERROR=$(WERROR) >/dev/null
	cmake --build $(TEST_DIR) -j$(JOBS)

# Runs every test under ASan/UBSan, on SQLite and on a private PostgreSQL cluster.
test: test-deps test-build
	scripts/with-test-postgres.sh ctest --test-dir $(TEST_DIR) -j$(JOBS) --output-on-failure --timeout 600

# Runs tests/client with the official Python client against release servers it starts
# (scripts/client-test.sh says where the client comes from; without one it skips).
client-test: build test-deps
	scripts/client-test.sh $(CLIENT_TEST_ARGS)

# The fuzz harnesses under libFuzzer with Debian's clang, in their own build (docs/fuzzing.md).
# FUZZ_RUNS / FUZZ_SECONDS / FUZZ_HARNESSES / FUZZ_OUT / FUZZ_LOCK: see scripts/run-fuzzers.sh.
fuzz-build: deps
	@scripts/install-fuzz-deps.sh
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
	  -DTESSERA_SANITIZE=ON -DTESSERA_FUZZ=ON -DTESSERA_BUILD_TESTS=OFF >/dev/null
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target $$(cut -d' ' -f1 $(FUZZ_DIR)/fuzz-harnesses.txt | sed 's/^/fuzz_/')

fuzz: fuzz-build
	scripts/run-fuzzers.sh $(FUZZ_DIR)

bench: build test-deps
	bench/http_load.sh

format:
	@command -v clang-format >/dev/null || { echo "clang-format is missing: make test-deps installs it" >&2; exit 1; }
	find src tests bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf build
