# Belote Arena — the two commands of the README are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-serial setup proto proto-check bench clean dd-cache

# PYTHONWARNINGS=ignore: setuptools warns on every editable install that it is one (noise on `make run`)
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(BIN)/pip install --quiet -e '.[test]'
	$(MAKE) dd-cache
	touch $(STAMP)

## make dd-cache: compile the double-dummy search into numba's cache beside it (sdk/belote_arena_sdk/__pycache__),
## which sandboxed bots read (sample_bots/expert); ~10-20 s once, then ~1 s per import
dd-cache:
	$(BIN)/python -c "import belote_arena_sdk.dd"

setup: $(STAMP)

## make run: set up, then play the main job (a duplicate round robin of the sample bots) and print ratings
run: $(STAMP)
	$(BIN)/arena tournament run demo --bots sample_bots/random --bots sample_bots/greedy \
	    --bots sample_bots/heuristic --boards 100 --seed 1
	$(BIN)/arena ratings --tournament demo
	$(BIN)/arena ratings --tournament demo --head-to-head

## make test: set up, then run the whole test suite: every test not marked `alone` in $(TEST_WORKERS) worker
## processes (pytest-xdist; most tests wait on bots and servers, so 3 keep 2 cores busy), then the tests marked
## `alone` on their own (they read machine-wide counters or time themselves against a control); fails if either
## part fails. `make test-serial` runs the suite in one process (slower: ~70 min here against ~25)
TEST_WORKERS ?= 3
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m "not alone"; parallel=$$?; \
	$(BIN)/python -m pytest -q -m alone; alone=$$?; \
	test $$parallel -eq 0 && test $$alone -eq 0

## make test-serial: the whole suite in one process
test-serial: $(STAMP)
	$(BIN)/python -m pytest -q

## make proto: regenerate the Python code of protos/ (committed; a test checks it is fresh)
proto: $(STAMP)
	$(BIN)/python protos/generate.py

## make proto-check: lint the protocol and check it against v1 as first published (buf, from npm: needs node and npm)
proto-check:
	cd protos && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	cd protos && node_modules/.bin/buf lint && node_modules/.bin/buf breaking --against v1.binpb

bench: $(STAMP)
	$(BIN)/python bench/engine_bench.py

clean:
	rm -rf $(VENV) .pytest_cache
