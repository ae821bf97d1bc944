# Every target sets up its own virtual environment on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint bench test-live clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m agentloop.demo

test: $(STAMP)
	$(PY) -m pytest -W error -q -m "not live"

lint: $(STAMP)
	$(PY) -m ruff check agentloop tools evals tests bench
	$(PY) -m mypy

bench: $(STAMP)
	$(PY) bench/loop_overhead.py

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache .ruff_cache
