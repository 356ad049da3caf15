# Everything a fresh machine needs is installed from here: Go modules (by the
# go command) and a Python virtual environment with the pinned inspect_ai that
# writes the fixture and demo logs and is the baseline of `make bench`.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
BIN    := bin
OUT    ?= out
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X empties/internal/app.Version=$(VERSION)
export CGO_ENABLED := 1

DEMO_LOGS := testdata/classify testdata/logs

.PHONY: all build test vet demo venv fixtures bench clean

all: build

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	touch $@

venv: $(VENV)/.installed

build:
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

vet:
	go vet ./...

test: venv vet
	go test -count=1 ./...

demo: build
	$(BIN)/empties ingest $(DEMO_LOGS) --out $(OUT)/demo
	$(BIN)/empties sql "SELECT task, class, count(*) AS replies FROM replies GROUP BY ALL ORDER BY task, replies DESC" --data $(OUT)/demo

fixtures: venv
	$(VPY) scripts/fixtures/ingest_fixtures.py testdata/logs
	$(VPY) scripts/fixtures/classify_fixtures.py testdata/classify

bench: venv build
	$(VPY) scripts/bench/bench.py --bin $(BIN)/empties --work bench

clean:
	rm -rf $(BIN) $(OUT) bench
