# Everything goes through the project's own virtual environment, made on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNELS := $(VENV)/.kernels
CHROMIUM := $(VENV)/.chromium

.PHONY: demo test test-all lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	touch $(STAMP)

# The solver's ahead-of-time kernels (engine/aot.py: a few minutes, once per change of the
# engine or of the solver's core, solve/pncore.py): a solve then loads no numba (~140 MB
# less).  A failed build prints one line, and the JIT kernels are used.
$(KERNELS): $(STAMP) $(wildcard sprouts_cli/engine/*.py sprouts_cli/engine/kernels/*.py) sprouts_cli/solve/pncore.py
	$(BIN)/sprouts kernels --build || true
	touch $(KERNELS)

# Debian's chromium for the browser tests (tests/browser.py), installed where it is missing and
# apt-get may be used (as root); otherwise those tests say why they are skipped.  Never
# `playwright install`: playwright drives the system's browser by its path.  apt-get waits for
# another install to finish (several checkouts may run make at once) rather than failing.
APT_WAIT := -o DPkg::Lock::Timeout=600
$(CHROMIUM): $(STAMP)
	@if command -v chromium >/dev/null 2>&1; then touch $(CHROMIUM); \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the browser tests (apt-get)…"; \
		(apt-get install -y -q $(APT_WAIT) chromium >/dev/null 2>&1 || \
		 (apt-get update -q $(APT_WAIT) >/dev/null 2>&1 && \
		  apt-get install -y -q $(APT_WAIT) chromium >/dev/null 2>&1)) && touch $(CHROMIUM) || \
		echo "chromium could not be installed: the browser tests will be skipped"; \
	else echo "no chromium and no apt-get as root: the browser tests will be skipped"; fi

demo: $(KERNELS)
	$(BIN)/sprouts canonical 0*3 "0.0.0.}]!"
	$(BIN)/sprouts children 0*3
	$(BIN)/sprouts solve 0*5 --nimber --moves --no-db
	$(BIN)/sprouts bounds 0*5 "0.AB|AB"
	mkdir -p out
	$(BIN)/sprouts render "0*3.AB|1a1a.AB" -o out/demo.svg
	@echo "demo picture: out/demo.svg"

# The tests run on every core (pytest-xdist, one worker a core): the suite is CPU-bound.
test: $(KERNELS) $(CHROMIUM)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto

test-all: $(KERNELS) $(CHROMIUM)
	$(BIN)/python -m pytest -q -n auto -m ""

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(KERNELS)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
