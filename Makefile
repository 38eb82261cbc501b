# Everything goes through the project's own virtual environment, made on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/sprouts canonical 0*3 "0.0.0.}]!"
	$(BIN)/sprouts children 0*3
	$(BIN)/sprouts solve 0*5 --nimber --moves --no-db
	$(BIN)/sprouts bounds 0*5 "0.AB|AB"
	mkdir -p out
	$(BIN)/sprouts render "0*3.AB|1a1a.AB" -o out/demo.svg
	@echo "demo picture: out/demo.svg"

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m ""

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
