# Everything goes through the project's own virtual environment, made on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNELS := $(VENV)/.kernels

.PHONY: demo test test-all lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	touch $(STAMP)

# The solver's ahead-of-time kernels (engine/aot.py: about a minute, once per change of the
# engine): a solve then loads no numba (~140 MB less).  A failed build prints one line, and
# the JIT kernels are used.
$(KERNELS): $(STAMP) $(wildcard sprouts_cli/engine/*.py)
	$(BIN)/sprouts kernels --build || true
	touch $(KERNELS)

demo: $(KERNELS)
	$(BIN)/sprouts canonical 0*3 "0.0.0.}]!"
	$(BIN)/sprouts children 0*3
	$(BIN)/sprouts solve 0*5 --nimber --moves --no-db
	$(BIN)/sprouts bounds 0*5 "0.AB|AB"
	mkdir -p out
	$(BIN)/sprouts render "0*3.AB|1a1a.AB" -o out/demo.svg
	@echo "demo picture: out/demo.svg"

test: $(KERNELS)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

test-all: $(KERNELS)
	$(BIN)/python -m pytest -q -m ""

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(KERNELS)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
